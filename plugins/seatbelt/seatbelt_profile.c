/*
 * seatbelt_profile.c — builds the SBPL text of seatbelt_profile.h.
 */
#include "config.h"

#include "seatbelt_profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 256) + n;
		char *p = realloc(b->s, cap);
		if (p == NULL) {
			b->oom = 1;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A path Seatbelt can match as written: absolute and canonical. */
static int check_path(const char *what, const char *p, char *err, size_t errlen)
{
	const char *c;

	if (p == NULL || p[0] != '/') {
		WARDEN_PLUGIN_ERR(err, errlen, "seatbelt: %s '%s' is not an absolute path",
		                  what, p ? p : "(none)");
		return -1;
	}
	for (c = p; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "seatbelt: %s contains a control character (byte 0x%02x): refused",
			                  what, (unsigned)(unsigned char)*c);
			return -1;
		}
	if (strcmp(p, "/") == 0)
		return 0;
	for (c = p; *c != '\0';) {
		const char *e = strchr(c + 1, '/');
		size_t n = e ? (size_t)(e - c - 1) : strlen(c + 1);

		if (n == 0 || (n == 1 && c[1] == '.') ||
		    (n == 2 && c[1] == '.' && c[2] == '.')) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "seatbelt: %s '%s' is not canonical (resolve it first: no '.', '..', '//' or trailing '/')",
			                  what, p);
			return -1;
		}
		c = e ? e : c + 1 + n;
	}
	return 0;
}

/* ` (KIND "PATH")` with the SBPL string escapes. */
static void rule(struct buf *b, const char *kind, const char *path)
{
	puts_(b, "\n  (");
	puts_(b, kind);
	puts_(b, " \"");
	for (const char *c = path; *c != '\0'; c++) {
		if (*c == '\\' || *c == '"')
			put(b, "\\", 1);
		put(b, c, 1);
	}
	puts_(b, "\")");
}

int warden_seatbelt_profile(int mode, const char *root, const char *user_tmp,
                            char **out, char *err, size_t errlen)
{
	struct buf b = { NULL, 0, 0, 0 };
	int ws = mode == WARDEN_MODE_WORKSPACE_WRITE;

	*out = NULL;
	if (mode != WARDEN_MODE_READ_ONLY && !ws) {
		WARDEN_PLUGIN_ERR(err, errlen, "seatbelt: mode %d is not a confining mode",
		                  mode);
		return -1;
	}
	if (ws && check_path("workspace root", root, err, errlen) < 0)
		return -1;
	if (ws && user_tmp != NULL &&
	    check_path("user temp dir", user_tmp, err, errlen) < 0)
		return -1;

	puts_(&b, "(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*");
	rule(&b, "literal", "/dev/null");
	if (ws) {
		rule(&b, "subpath", root);
		rule(&b, "subpath", "/private/tmp");
		if (user_tmp != NULL)
			rule(&b, "subpath", user_tmp);
	}
	puts_(&b, ")\n");
	if (b.oom) {
		free(b.s);
		WARDEN_PLUGIN_ERR(err, errlen, "seatbelt: out of memory");
		return -1;
	}
	*out = b.s;
	return 0;
}
