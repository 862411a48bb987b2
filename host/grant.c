/*
 * grant.c — session grants: scopes, their keys, and covering (grant.h).
 *
 * The key is a SHA-256 (FIPS 180-4) of the scope's canonical encoding,
 * computed here: a request an agent shapes must not be able to collide
 * with a scope someone granted.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grant.h"
#include "program.h"
#include "random.h"

/* ------------------------------------------------------------ SHA-256 */

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 64; i++) {
		t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

/* The hex digest of len bytes at s into out (65 bytes). */
static void sha256_hex(const char *s, size_t len, char *out)
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	unsigned char tail[128];
	uint64_t bits = (uint64_t)len * 8;
	size_t i, full = len / 64 * 64, rest = len - full, tl;

	for (i = 0; i < full; i += 64)
		sha256_block(h, (const unsigned char *)s + i);
	memset(tail, 0, sizeof(tail));
	memcpy(tail, s + full, rest);
	tail[rest] = 0x80;
	tl = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(h, tail);
	if (tl == 128)
		sha256_block(h, tail + 64);
	for (i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}

/* ------------------------------------------------------------- scopes */

static int scope_key(const json_t *scope, char *key)
{
	char *text = json_dumps(scope, JSON_COMPACT | JSON_SORT_KEYS);

	if (text == NULL)
		return -1;
	sha256_hex(text, strlen(text), key);
	free(text);
	return 0;
}

/* The identity of the file fd (or, fd < 0, of path), as a scope holds it. */
static json_t *identity(const char *path, int fd)
{
	struct stat st;

	if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) < 0)
		return NULL;
	return json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "path", path,
	                 "dev", (json_int_t)st.st_dev, "ino", (json_int_t)st.st_ino,
	                 "size", (json_int_t)st.st_size,
	                 "mtime", (json_int_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
	                 "ctime", (json_int_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec);
}

static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int under_shared_tmp(const char *path)
{
	return under(path, "/tmp") || under(path, "/var/tmp") || under(path, "/dev/shm");
}

static int is_shell(const char *path)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh",
	                                      "mksh", "ash", "busybox", "fish",
	                                      "csh", "tcsh", "rbash" };
	const char *base = strrchr(path, '/');
	size_t i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; i < sizeof(shells) / sizeof(*shells); i++)
		if (strcmp(base, shells[i]) == 0)
			return 1;
	return 0;
}

/* Words as one line, each quoted when it holds anything but plain
 * characters.  malloc'd. */
static char *words_text(const char *const *w, size_t n)
{
	size_t i, j, len = 1;
	char *out, *q;

	for (i = 0; i < n; i++)
		len += strlen(w[i]) * 4 + 3;
	if ((out = malloc(len)) == NULL)
		return NULL;
	q = out;
	for (i = 0; i < n; i++) {
		int plain = w[i][0] != '\0';

		for (j = 0; w[i][j]; j++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", w[i][j]))
				plain = 0;
		if (i > 0)
			*q++ = ' ';
		if (plain) {
			q += sprintf(q, "%s", w[i]);
			continue;
		}
		*q++ = '\'';
		for (j = 0; w[i][j]; j++) {
			if (w[i][j] == '\'')
				q += sprintf(q, "'\\''");
			else
				*q++ = w[i][j];
		}
		*q++ = '\'';
	}
	*q = '\0';
	return out;
}

static const char *str_or(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static char *words_of(const json_t *a)
{
	const char *w[4096];
	size_t i, n = json_array_size(a);

	if (n > sizeof(w) / sizeof(*w))
		n = sizeof(w) / sizeof(*w);
	for (i = 0; i < n; i++)
		w[i] = json_is_string(json_array_get(a, i))
		       ? json_string_value(json_array_get(a, i)) : "";
	return words_text(w, n);
}

char *warden_grant_scope_text(const json_t *scope)
{
	const char *kind = str_or(scope, "kind");
	const json_t *prog = json_object_get(scope, "program");
	const char *mode = str_or(scope, "mode"), *net = str_or(scope, "network");
	char *w, *out = NULL;
	size_t len;

	if (strcmp(kind, "destination") == 0) {
		len = strlen(str_or(scope, "host")) + 128;
		if ((out = malloc(len)) != NULL)
			snprintf(out, len, "network connections to %s:%lld",
			         str_or(scope, "host"),
			         (long long)json_integer_value(json_object_get(scope, "port")));
		return out;
	}
	w = words_of(json_object_get(scope, strcmp(kind, "exact") == 0 ? "argv" : "words"));
	if (w == NULL)
		return NULL;
	len = strlen(w) + strlen(str_or(prog, "path")) + strlen(str_or(scope, "cwd")) +
	      strlen(mode) + strlen(net) + 256;
	if ((out = malloc(len)) != NULL) {
		if (strcmp(kind, "exact") == 0)
			snprintf(out, len, "exactly `%s` in %s, program %s (this file, unchanged)%s%s%s%s",
			         w, str_or(scope, "cwd"), str_or(prog, "path"),
			         mode[0] ? ", mode " : "", mode, net[0] ? ", network " : "", net);
		else
			snprintf(out, len, "`%s ...` with any further arguments, in any directory, program %s (this file, unchanged)%s%s%s%s",
			         w, str_or(prog, "path"),
			         mode[0] ? ", mode " : "", mode, net[0] ? ", network " : "", net);
	}
	free(w);
	return out;
}

static int add_scope(struct warden_grant_scopes *sc, const char *name,
                     json_t *scope, int offered)
{
	size_t i = sc->n;

	if (scope == NULL || i >= WARDEN_GRANT_SCOPES_MAX) {
		json_decref(scope);
		return -1;
	}
	snprintf(sc->s[i].name, sizeof(sc->s[i].name), "%s", name);
	sc->s[i].scope = scope;
	sc->s[i].offered = offered;
	sc->n++;
	if (scope_key(scope, sc->s[i].key) < 0 ||
	    (sc->s[i].text = warden_grant_scope_text(scope)) == NULL)
		return -1;
	return 0;
}

static json_t *jwords(const char *const *w, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_string(w[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* HOST:PORT (a [v6]:PORT too) into host and port; 0 or -1. */
static int split_destination(const char *subject, char *host, size_t hostlen,
                             unsigned *port)
{
	const char *colon = strrchr(subject, ':');
	char *end;
	unsigned long p;
	size_t n;

	if (colon == NULL || colon == subject || colon[1] == '\0')
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || p == 0 || p > 65535 || colon[1] == '+' ||
	    colon[1] == '-' || colon[1] == ' ')
		return -1;
	n = (size_t)(colon - subject);
	if (n >= hostlen || memchr(subject, ' ', n) != NULL)
		return -1;
	memcpy(host, subject, n);
	host[n] = '\0';
	*port = (unsigned)p;
	return 0;
}

static json_t *destination_scope(const char *host, unsigned port)
{
	char lower[256];
	size_t i;

	/* Host names compare without case. */
	for (i = 0; host[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (host[i] >= 'A' && host[i] <= 'Z') ? (char)(host[i] - 'A' + 'a') : host[i];
	lower[i] = '\0';
	return json_pack("{s:s,s:s,s:s,s:I}", "kind", "destination", "tool", "network",
	                 "host", lower, "port", (json_int_t)port);
}

/* Whether s is text a JSON string can hold (valid UTF-8). */
static int utf8_text(const char *s)
{
	json_t *j = json_string(s);

	json_decref(j);
	return j != NULL;
}

int warden_grant_scopes_build(struct warden_grant_scopes *sc, const char *tool,
                              const char *subject, const char *const *argv,
                              size_t argc, const struct warden_program *p,
                              const char *mode, const char *network)
{
	json_t *prog, *interp = NULL, *base, *o;
	const char *path;
	char name[32], host[256];
	unsigned port;
	size_t i, max;
	int shell;

	memset(sc, 0, sizeof(*sc));
	mode = mode != NULL ? mode : "";
	network = network != NULL ? network : "";
	/* A connection's question (the allowlist proxy): the grant is for
	 * the destination, whichever command asked. */
	if (strcmp(tool, "network") == 0 && subject != NULL &&
	    split_destination(subject, host, sizeof(host), &port) == 0)
		return add_scope(sc, "destination", destination_scope(host, port), 1);
	if (p == NULL || argc == 0) {
		snprintf(sc->none_why, sizeof(sc->none_why), "the request names no command");
		return 0;
	}
	if (p->writable) {
		snprintf(sc->none_why, sizeof(sc->none_why),
		         "the program or its interpreter lies under a writable root of the session");
		return 0;
	}
	if (under_shared_tmp(p->path) || (p->interpreter[0] && under_shared_tmp(p->interpreter))) {
		snprintf(sc->none_why, sizeof(sc->none_why),
		         "the program or its interpreter lies under /tmp, /var/tmp or /dev/shm");
		return 0;
	}
	for (i = 0; i < argc; i++)
		if (!utf8_text(argv[i])) {
			snprintf(sc->none_why, sizeof(sc->none_why),
			         "an argument is not UTF-8 text");
			return 0;
		}
	prog = identity(p->path, p->exec_fd);
	if (prog == NULL) {
		snprintf(sc->none_why, sizeof(sc->none_why), "the program cannot be examined");
		return 0;
	}
	if (p->interpreter[0] && (interp = identity(p->interpreter, -1)) == NULL) {
		json_decref(prog);
		snprintf(sc->none_why, sizeof(sc->none_why), "the interpreter cannot be examined");
		return 0;
	}
	path = p->path_entry != NULL ? p->path_entry + strlen("PATH=") : "";
	base = json_pack("{s:s,s:O,s:s,s:s,s:s}", "tool", tool, "program", prog,
	                 "path", path, "mode", mode, "network", network);
	json_decref(prog);
	if (base == NULL || (interp != NULL && json_object_set_new(base, "interpreter", interp) < 0)) {
		json_decref(base);
		return -1;
	}
	o = json_deep_copy(base);
	if (o == NULL || json_object_set_new(o, "kind", json_string("exact")) < 0 ||
	    json_object_set_new(o, "argv", jwords(argv, argc)) < 0 ||
	    json_object_set_new(o, "cwd", json_string(p->dir)) < 0 ||
	    add_scope(sc, "exact", o, 1) < 0) {
		json_decref(base);
		return -1;
	}
	shell = is_shell(p->path) || is_shell(argv[0]);
	max = argc < WARDEN_GRANT_PREFIX_MAX ? argc : WARDEN_GRANT_PREFIX_MAX;
	for (i = max; i >= 1; i--) {
		snprintf(name, sizeof(name), "prefix:%zu", i);
		o = json_deep_copy(base);
		if (o == NULL || json_object_set_new(o, "kind", json_string("prefix")) < 0 ||
		    json_object_set_new(o, "words", jwords(argv, i)) < 0 ||
		    add_scope(sc, name, o, !shell && i < argc && argv[i - 1][0] != '-') < 0) {
			json_decref(base);
			return -1;
		}
	}
	json_decref(base);
	return 0;
}

void warden_grant_scopes_free(struct warden_grant_scopes *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++) {
		free(sc->s[i].text);
		json_decref(sc->s[i].scope);
	}
	memset(sc, 0, sizeof(*sc));
}

const struct warden_grant_ref *
warden_grant_covers(const struct warden_grant_scopes *sc,
                    const struct warden_grant_ref *refs, size_t n,
                    size_t *which)
{
	size_t i, j;

	for (i = 0; i < sc->n; i++)
		for (j = 0; j < n; j++)
			if (strcmp(sc->s[i].key, refs[j].key) == 0) {
				if (which != NULL)
					*which = i;
				return &refs[j];
			}
	return NULL;
}

const struct warden_grant_ref *
warden_grant_covers_destination(const char *host, unsigned port,
                                const struct warden_grant_ref *refs, size_t n)
{
	json_t *o;
	char key[WARDEN_GRANT_KEY_LEN + 1];
	size_t j;
	int r;

	if (host == NULL || host[0] == '\0' || port == 0 || port > 65535 ||
	    strlen(host) >= 256)
		return NULL;
	o = destination_scope(host, port);
	r = o != NULL ? scope_key(o, key) : -1;
	json_decref(o);
	if (r < 0)
		return NULL;
	for (j = 0; j < n; j++)
		if (strcmp(refs[j].key, key) == 0)
			return &refs[j];
	return NULL;
}

/* --------------------------------------------------------- validation */

static int identity_ok(const json_t *o)
{
	static const char *const ints[] = { "dev", "ino", "size", "mtime", "ctime" };
	size_t i;

	if (!json_is_object(o) || json_object_size(o) != 6 ||
	    json_string_value(json_object_get(o, "path")) == NULL ||
	    json_string_value(json_object_get(o, "path"))[0] != '/')
		return 0;
	for (i = 0; i < 5; i++)
		if (!json_is_integer(json_object_get(o, ints[i])))
			return 0;
	return 1;
}

static int words_ok(const json_t *a, size_t min)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a) || json_array_size(a) < min)
		return 0;
	json_array_foreach(a, i, v)
		if (!json_is_string(v))
			return 0;
	return 1;
}

int warden_grant_scope_check(const json_t *scope, char *key, char *why,
                             size_t whylen)
{
	const char *kind = json_string_value(json_object_get(scope, "kind"));
	size_t want;
	json_int_t port;

	if (!json_is_object(scope) || kind == NULL) {
		snprintf(why, whylen, "the scope is not an object with a \"kind\"");
		return -1;
	}
	if (strcmp(kind, "destination") == 0) {
		port = json_integer_value(json_object_get(scope, "port"));
		if (json_object_size(scope) != 4 ||
		    strcmp(str_or(scope, "tool"), "network") != 0 ||
		    str_or(scope, "host")[0] == '\0' || strlen(str_or(scope, "host")) >= 256 ||
		    !json_is_integer(json_object_get(scope, "port")) || port < 1 || port > 65535) {
			snprintf(why, whylen, "the destination scope is not {kind, tool network, host, port 1-65535}");
			return -1;
		}
	} else if (strcmp(kind, "exact") == 0 || strcmp(kind, "prefix") == 0) {
		int exact = kind[0] == 'e';

		want = (exact ? 8 : 7) + (json_object_get(scope, "interpreter") != NULL);
		if (json_object_size(scope) != want ||
		    str_or(scope, "tool")[0] == '\0' ||
		    !json_is_string(json_object_get(scope, "path")) ||
		    !json_is_string(json_object_get(scope, "mode")) ||
		    !json_is_string(json_object_get(scope, "network")) ||
		    !identity_ok(json_object_get(scope, "program")) ||
		    (json_object_get(scope, "interpreter") != NULL && !identity_ok(json_object_get(scope, "interpreter"))) ||
		    (exact ? !words_ok(json_object_get(scope, "argv"), 1) ||
		             str_or(scope, "cwd")[0] != '/'
		           : !words_ok(json_object_get(scope, "words"), 1))) {
			snprintf(why, whylen, "the %s scope lacks a field or has one too many or of the wrong type", kind);
			return -1;
		}
	} else {
		snprintf(why, whylen, "the scope's kind is not exact, prefix or destination");
		return -1;
	}
	if (scope_key(scope, key) < 0) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

int warden_grant_id_ok(const char *id)
{
	size_t i;

	if (id == NULL || strlen(id) != WARDEN_GRANT_ID_LEN || strncmp(id, "grant-", 6) != 0)
		return 0;
	for (i = 6; i < WARDEN_GRANT_ID_LEN; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return 1;
}

int warden_grant_id_new(char *id)
{
	memcpy(id, "grant-", 6);
	return warden_random_hex(id + 6, 8);
}
