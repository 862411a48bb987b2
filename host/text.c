/* text.c — see text.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* The length of the valid UTF-8 sequence at p (n bytes left), with its
 * code point in *cp, or 0 when p does not start one (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_decode(const unsigned char *p, size_t n, unsigned long *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;
	unsigned long v;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		v = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		v = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		v = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 1; i < len; i++) {
		if (i > 1 && (p[i] < 0x80 || p[i] > 0xbf))
			return 0;
		v = (v << 6) | (p[i] & 0x3f);
	}
	*cp = v;
	return len;
}

/* Characters that move or reorder what a terminal shows. */
static int deceptive(unsigned long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||            /* C1 controls */
	       (cp >= 0x200b && cp <= 0x200f) ||        /* zero-width, marks */
	       (cp >= 0x2028 && cp <= 0x202e) ||        /* separators, bidi */
	       (cp >= 0x2060 && cp <= 0x2069) ||        /* joiners, isolates */
	       cp == 0xfeff;                            /* byte order mark */
}

struct out {
	char *buf;
	size_t cap;
	size_t len;     /* bytes written into buf */
	size_t need;    /* the whole escaped length so far */
	int cut;        /* something did not fit: write nothing more */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (!o->cut && o->len + n < o->cap) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
	} else {
		o->cut = 1;
	}
	o->need += n;
}

size_t warden_text_escape(const char *s, int flags, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");
	size_t n = strlen((const char *)p), i = 0, k;
	struct out o = { out, outlen, 0, 0, 0 };
	unsigned long cp;
	char esc[16];

	while (i < n) {
		unsigned char c = p[i];

		if (c == '\\' && !(flags & WARDEN_TEXT_KEEP_BACKSLASH)) {
			put(&o, "\\\\", 2);
		} else if (c == '\n') {
			put(&o, "\\n", 2);
		} else if (c == '\t') {
			put(&o, "\\t", 2);
		} else if (c == '\r') {
			put(&o, "\\r", 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			put(&o, esc, 4);
		} else if (c < 0x80) {
			put(&o, (const char *)p + i, 1);
		} else if ((k = utf8_decode(p + i, n - i, &cp)) == 0) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			put(&o, esc, 4);
		} else {
			if (deceptive(cp))
				put(&o, esc, (size_t)snprintf(esc, sizeof(esc),
				                              "\\u{%04lx}", cp));
			else
				put(&o, (const char *)p + i, k);
			i += k;
			continue;
		}
		i++;
	}
	if (outlen > 0)
		out[o.len] = '\0';
	return o.need;
}

char *warden_text_escape_dup(const char *s, int flags)
{
	size_t need = warden_text_escape(s, flags, NULL, 0);
	char *out = malloc(need + 1);

	if (out != NULL)
		warden_text_escape(s, flags, out, need + 1);
	return out;
}

int warden_text_vprint(FILE *f, int flags, int newline, const char *fmt,
                       va_list ap)
{
	char small[1024], fixed[4096], *raw = small, *shown = fixed;
	size_t need;
	va_list ap2;
	int n, rc;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return -1;
	}
	if ((size_t)n >= sizeof(small) && (raw = malloc((size_t)n + 1)) != NULL)
		vsnprintf(raw, (size_t)n + 1, fmt, ap2);
	else if (raw == NULL)
		raw = small;    /* out of memory: the part that fitted */
	va_end(ap2);
	need = warden_text_escape(raw, flags, fixed, sizeof(fixed));
	if (need >= sizeof(fixed) && (shown = malloc(need + 1)) != NULL)
		warden_text_escape(raw, flags, shown, need + 1);
	else if (shown == NULL)
		shown = fixed;
	rc = fputs(shown, f) == EOF || (newline && putc('\n', f) == EOF) ? -1 : 0;
	if (shown != fixed)
		free(shown);
	if (raw != small)
		free(raw);
	return rc;
}

int warden_text_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = warden_text_vprint(f, 0, 1, fmt, ap);
	va_end(ap);
	return rc;
}

int warden_text_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = warden_text_vprint(f, 0, 0, fmt, ap);
	va_end(ap);
	return rc;
}
