/*
 * screen.c — output as a terminal would have shown it; see screen.h.
 *
 * One pass over the bytes: a small state machine drops escape sequences
 * and controls, and the text of the current line is kept as segments
 * (each carriage return starts one).  At the line's end the segments are
 * laid over each other from the last backwards: the last one is what
 * the screen shows from the left, and each earlier one longer than all
 * after it shows past them.  Characters are UTF-8 sequences; a byte
 * that is not valid UTF-8 is '?'.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "screen.h"

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

static void put(struct buf *b, const char *p, size_t n)
{
	size_t cap;
	char *q;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((q = realloc(b->p, cap)) == NULL) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* The length of the character at p (n > 0 bytes there): a valid UTF-8
 * sequence's, else 1. */
static size_t char_len(const unsigned char *p, size_t n)
{
	size_t want, i;
	unsigned char lo = 0x80, hi = 0xBF;

	if (p[0] < 0xC2)
		return 1;
	if (p[0] < 0xE0)
		want = 2;
	else if (p[0] < 0xF0)
		want = 3;
	else if (p[0] < 0xF5)
		want = 4;
	else
		return 1;
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (n < want || p[1] < lo || p[1] > hi)
		return 1;
	for (i = 2; i < want; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 1;
	return want;
}

/* A segment of the current line: the bytes line[start, start + len),
 * chars characters. */
struct seg {
	size_t start, len, chars;
};

struct screen {
	struct buf out, line;
	struct seg *segs;
	size_t nsegs, capsegs;
	int oom;
};

static void new_seg(struct screen *s)
{
	struct seg *g;

	if (s->nsegs == s->capsegs) {
		size_t cap = s->capsegs ? s->capsegs * 2 : 8;

		if ((g = realloc(s->segs, cap * sizeof(*g))) == NULL) {
			s->oom = 1;
			return;
		}
		s->segs = g;
		s->capsegs = cap;
	}
	g = &s->segs[s->nsegs++];
	g->start = s->line.len;
	g->len = g->chars = 0;
}

static void emit(struct screen *s, const char *p, size_t n)
{
	struct seg *g;

	if (s->nsegs == 0)
		new_seg(s);
	if (s->oom || s->line.oom)
		return;
	g = &s->segs[s->nsegs - 1];
	put(&s->line, p, n);
	g->len += n;
	g->chars++;
}

/* A backspace: the current segment's last character goes. */
static void back(struct screen *s)
{
	struct seg *g;
	const unsigned char *p;
	size_t k = 1, i;

	if (s->nsegs == 0 || s->oom)
		return;
	g = &s->segs[s->nsegs - 1];
	if (g->chars == 0)
		return;
	p = (const unsigned char *)s->line.p + g->start;
	/* The last character: a lead byte whose sequence ends here, else
	 * the last byte alone. */
	for (i = 2; i <= 4 && i <= g->len; i++)
		if (p[g->len - i] >= 0xC2 &&
		    char_len(p + g->len - i, i) == i) {
			k = i;
			break;
		}
	g->len -= k;
	g->chars--;
	s->line.len -= k;
}

/* The line's end: its segments laid over each other, out. */
static void flush(struct screen *s)
{
	size_t shown = 0, j, skip, at;
	const unsigned char *p;
	struct seg *g;

	for (j = s->nsegs; j-- > 0;) {
		g = &s->segs[j];
		if (g->chars <= shown)
			continue;
		p = (const unsigned char *)s->line.p + g->start;
		for (at = 0, skip = 0; skip < shown && at < g->len; skip++)
			at += char_len(p + at, g->len - at);
		put(&s->out, (const char *)p + at, g->len - at);
		shown = g->chars;
	}
	s->nsegs = 0;
	s->line.len = 0;
}

enum state { TEXT, ESC, ESC_INTER, CSI, STR };

char *warden_screen_text(const char *in, size_t len, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)in;
	struct screen s;
	enum state st = TEXT;
	size_t i = 0, k;
	unsigned char b;

	memset(&s, 0, sizeof(s));
	put(&s.out, "", 0);
	while (i < len) {
		b = p[i];
		switch (st) {
		case ESC:
			st = TEXT;
			if (b == '[')
				st = CSI;
			else if (b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_')
				st = STR;
			else if (b >= 0x20 && b <= 0x2F)
				st = ESC_INTER;
			else if (!(b >= 0x30 && b <= 0x7E))
				continue;       /* not part of it: taken as text */
			i++;
			continue;
		case ESC_INTER:
		case CSI:
			if ((b >= 0x20 && b <= 0x2F) ||
			    (st == CSI && b >= 0x30 && b <= 0x3F)) {
				i++;
				continue;
			}
			/* The final byte ends it; any other ends it too and
			 * is taken as text. */
			if (b >= (st == CSI ? 0x40 : 0x30) && b <= 0x7E)
				i++;
			st = TEXT;
			continue;
		case STR:
			if (b == 0x07) {
				st = TEXT;
				i++;
			} else if (b == 0x1B || b == '\n') {
				st = TEXT;      /* ESC \ or another escape; a line end */
			} else if (b == 0xC2 && i + 1 < len && p[i + 1] == 0x9C) {
				st = TEXT;
				i += 2;
			} else {
				i++;
			}
			continue;
		case TEXT:
			break;
		}
		if (b == 0x1B) {
			st = ESC;
			i++;
		} else if (b == '\n') {
			flush(&s);
			put(&s.out, "\n", 1);
			i++;
		} else if (b == '\r') {
			new_seg(&s);
			i++;
		} else if (b == '\b') {
			back(&s);
			i++;
		} else if (b == '\t') {
			emit(&s, "\t", 1);
			i++;
		} else if (b < 0x20 || b == 0x7F) {
			i++;
		} else if (b == 0xC2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
			/* A C1 control: CSI and the string openers act as their
			 * ESC forms; the rest go. */
			b = p[i + 1];
			if (b == 0x9B)
				st = CSI;
			else if (b == 0x90 || b == 0x98 || b == 0x9D || b == 0x9E || b == 0x9F)
				st = STR;
			i += 2;
		} else {
			/* A byte that is not UTF-8 is shown as '?': no two
			 * of them can meet on the screen as a character
			 * (a C1 control) that neither was. */
			k = char_len(p + i, len - i);
			emit(&s, k == 1 && b >= 0x80 ? "?" : in + i, k);
			i += k;
		}
	}
	flush(&s);
	free(s.segs);
	free(s.line.p);
	if (s.oom || s.line.oom || s.out.oom) {
		free(s.out.p);
		return NULL;
	}
	if (outlen != NULL)
		*outlen = s.out.len;
	return s.out.p;
}
