/*
 * shparse.c — see shparse.h.
 *
 * A recursive-descent reader over the string, one lexer per text: the
 * command string itself, and a lexer of its own for what a backquote
 * substitution holds (after its backslashes are undone), for the body of
 * an unquoted here-document and for the string of a nested `sh -c`.
 * Every function returns 0 or -1; -1 means the first problem has been
 * written into the result (understood = 0) and everything stops.  The
 * grammar:
 *
 *   list     := and_or ((; | & | newline) and_or)*
 *   and_or   := pipeline ((&& | ||) newline* pipeline)*
 *   pipeline := [!] command ((| | |&) newline* command)*
 *   command  := ( list ) redir* | { list ; } redir* | simple
 *   simple   := (word | redir)+
 *
 * Wherever this reading and the shell's could differ, the parser says
 * "not understood" rather than pick one.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shparse.h"

struct wbuf {
	char *b;
	size_t n, cap;
	int literal;
};

struct heredoc {
	char *delim;
	int strip;              /* <<-: leading tabs removed */
	int quoted;             /* a quoted delimiter: the body is data */
	int level;              /* the substitutions it was opened inside */
};

struct lx {
	const char *s;
	size_t len, pos;
	size_t base;            /* offset of s in the outermost string */
	int dialect;
	int *depth;             /* shared by every lexer of one parse */
	struct warden_sh_parse *out;
	struct heredoc *hd;     /* here-documents whose bodies come next */
	size_t n_hd;
	int level;              /* how many $( <( >( pos is inside */
	int oom;
};

static int fail(struct lx *lx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct lx *lx, const char *fmt, ...)
{
	va_list ap;

	if (lx->out->understood) {
		lx->out->understood = 0;
		va_start(ap, fmt);
		vsnprintf(lx->out->why, sizeof(lx->out->why), fmt, ap);
		va_end(ap);
		lx->out->at = lx->base + lx->pos;
	}
	return -1;
}

static int oom(struct lx *lx)
{
	lx->oom = 1;
	return fail(lx, "out of memory");
}

static char peek(const struct lx *lx, size_t k)
{
	return lx->pos + k < lx->len ? lx->s[lx->pos + k] : '\0';
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_meta(char c)
{
	return c == '\0' || strchr(" \t\n|&;()<>", c) != NULL;
}

static int is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static int is_name(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int put(struct lx *lx, struct wbuf *w, char c)
{
	char *g;

	if (w == NULL)
		return 0;
	if (w->n + 2 > w->cap) {
		g = realloc(w->b, w->cap ? w->cap * 2 : 32);
		if (g == NULL)
			return oom(lx);
		w->b = g;
		w->cap = w->cap ? w->cap * 2 : 32;
	}
	w->b[w->n++] = c;
	w->b[w->n] = '\0';
	return 0;
}

static int puts_(struct lx *lx, struct wbuf *w, const char *s)
{
	for (; *s; s++)
		if (put(lx, w, *s) < 0)
			return -1;
	return 0;
}

static int deeper(struct lx *lx)
{
	if (++*lx->depth > WARDEN_SH_MAX_DEPTH)
		return fail(lx, "nested more than %d deep", WARDEN_SH_MAX_DEPTH);
	return 0;
}

static int parse_list(struct lx *lx, char term, size_t *count);
static int dollar(struct lx *lx, struct wbuf *w, int in_dq);
static int backquote(struct lx *lx, struct wbuf *w, int in_dq);

/* A lexer over text of its own (a substitution, a body, a -c string). */
static void sub_lexer(struct lx *sub, const struct lx *lx, const char *s,
                      size_t len, int dialect)
{
	memset(sub, 0, sizeof(*sub));
	sub->s = s;
	sub->len = len;
	sub->base = lx->base + lx->pos;
	sub->dialect = dialect;
	sub->depth = lx->depth;
	sub->out = lx->out;
}

static void heredocs_free(struct lx *lx)
{
	size_t i;

	for (i = 0; i < lx->n_hd; i++)
		free(lx->hd[i].delim);
	free(lx->hd);
	lx->hd = NULL;
	lx->n_hd = 0;
}

/* Parses the whole of a sub-lexer's text as a list. */
static int parse_all(struct lx *sub)
{
	size_t n = 0;
	int r;

	r = parse_list(sub, '\0', &n);
	if (r == 0 && sub->n_hd > 0)
		r = fail(sub, "here-document <<%s has no body", sub->hd[0].delim);
	heredocs_free(sub);
	return r;
}

/* ------------------------------------------------------------- quoting */

/* "...": pos is after the opening quote.  term '"', or '\0' for the body
 * of an unquoted here-document, which ends with the text. */
static int dquote(struct lx *lx, struct wbuf *w, char term)
{
	char c, n;

	for (;;) {
		c = peek(lx, 0);
		if (c == '\0' && lx->pos >= lx->len) {
			if (term != '\0')
				return fail(lx, "unbalanced \"");
			return 0;
		}
		if (term != '\0' && c == term) {
			lx->pos++;
			return 0;
		}
		if (c == '\\') {
			n = peek(lx, 1);
			if (n == '$' || n == '`' || n == '\\' || n == '\n' ||
			    (term != '\0' && n == '"')) {
				if (n != '\n' && put(lx, w, n) < 0)
					return -1;
				lx->pos += 2;
			} else {
				if (put(lx, w, '\\') < 0)
					return -1;
				lx->pos++;
			}
			continue;
		}
		if (c == '$') {
			if (dollar(lx, w, 1) < 0)
				return -1;
			continue;
		}
		if (c == '`') {
			if (backquote(lx, w, 1) < 0)
				return -1;
			continue;
		}
		if (put(lx, w, c) < 0)
			return -1;
		lx->pos++;
	}
}

/* The word's value is not known before the shell runs. */
static void unknown(struct wbuf *w)
{
	if (w != NULL)
		w->literal = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* $'...' (bash): pos is after the opening quote.  The escapes bash
 * decodes are decoded; \u, \U, \c and a NUL make the word's value
 * unknown here. */
static int ansi_c(struct lx *lx, struct wbuf *w)
{
	static const char from[] = "abeEfnrtv\\'\"?";
	static const char to[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
	const char *f;
	char c, n;
	int v, k, d;

	for (;;) {
		c = peek(lx, 0);
		if (lx->pos >= lx->len)
			return fail(lx, "unbalanced $'");
		if (c == '\'') {
			lx->pos++;
			return 0;
		}
		if (c != '\\') {
			if (put(lx, w, c) < 0)
				return -1;
			lx->pos++;
			continue;
		}
		n = peek(lx, 1);
		if (lx->pos + 1 >= lx->len)
			return fail(lx, "unbalanced $'");
		lx->pos += 2;
		if ((f = strchr(from, n)) != NULL && n != '\0') {
			if (put(lx, w, to[f - from]) < 0)
				return -1;
		} else if (n >= '0' && n <= '7') {
			v = n - '0';
			for (k = 0; k < 2 && peek(lx, 0) >= '0' && peek(lx, 0) <= '7'; k++)
				v = v * 8 + (lx->s[lx->pos++] - '0');
			if ((v & 0xff) == 0)
				unknown(w);
			if (put(lx, w, (char)v) < 0)
				return -1;
		} else if (n == 'x') {
			v = 0;
			for (k = 0; k < 2 && (d = hexval(peek(lx, 0))) >= 0; k++) {
				v = v * 16 + d;
				lx->pos++;
			}
			if (k == 0 || v == 0)
				unknown(w);
			if (put(lx, w, (char)v) < 0)
				return -1;
		} else if (n == 'c' || n == 'u' || n == 'U') {
			unknown(w);
			if (n == 'c' && peek(lx, 0) != '\'' && lx->pos < lx->len)
				lx->pos++;
		} else {
			if (put(lx, w, '\\') < 0 || put(lx, w, n) < 0)
				return -1;
		}
	}
}

/* The word inside ${NAME<op>...}, up to its closing brace: what it
 * expands to does not matter (the word is not literal), the commands it
 * substitutes do. */
static int param_word(struct lx *lx, int in_dq)
{
	char c;

	for (;;) {
		c = peek(lx, 0);
		if (lx->pos >= lx->len)
			return fail(lx, "unbalanced ${");
		switch (c) {
		case '}':
			lx->pos++;
			return 0;
		case '{':
			return fail(lx, "'{' inside ${...}");
		case '\\':
			if (lx->pos + 1 >= lx->len)
				return fail(lx, "unbalanced ${");
			lx->pos += 2;
			break;
		case '\'':
			/* Inside double quotes bash reads these quotes as
			 * quotes or as characters depending on the operator:
			 * not guessed. */
			if (in_dq)
				return fail(lx, "a single quote in ${...} inside double quotes");
			lx->pos++;
			while (lx->pos < lx->len && lx->s[lx->pos] != '\'')
				lx->pos++;
			if (lx->pos >= lx->len)
				return fail(lx, "unbalanced '");
			lx->pos++;
			break;
		case '"':
			lx->pos++;
			if (dquote(lx, NULL, '"') < 0)
				return -1;
			break;
		case '$':
			if (dollar(lx, NULL, in_dq) < 0)
				return -1;
			break;
		case '`':
			if (backquote(lx, NULL, in_dq) < 0)
				return -1;
			break;
		default:
			lx->pos++;
		}
	}
}

/* ${...}: pos is after "${".  The forms that only read a variable are
 * understood; those that assign, evaluate arithmetic or read a variable
 * named by another are not. */
static int brace_param(struct lx *lx, int in_dq)
{
	int length = 0, r;
	char c;

	if (deeper(lx) < 0)
		return -1;
	c = peek(lx, 0);
	if (c == '!')
		return fail(lx, "${!...} (indirection) not understood");
	if (c == '#' && peek(lx, 1) != '}') {
		length = 1;
		lx->pos++;
		c = peek(lx, 0);
	}
	if (is_name_start(c)) {
		while (is_name(peek(lx, 0)))
			lx->pos++;
	} else if (isdigit((unsigned char)c)) {
		while (isdigit((unsigned char)peek(lx, 0)))
			lx->pos++;
	} else if (c != '\0' && strchr("@*#?-$!", c) != NULL) {
		lx->pos++;
	} else {
		return fail(lx, "${...} form not understood");
	}
	c = peek(lx, 0);
	if (c == '}') {
		lx->pos++;
		--*lx->depth;
		return 0;
	}
	if (length)
		return fail(lx, "${#...} form not understood");
	if (c == '[')
		return fail(lx, "${NAME[...]} (array subscript) not understood");
	if (c == ':') {
		c = peek(lx, 1);
		if (c != '-' && c != '+' && c != '?')
			return fail(lx, "${NAME:...} (assignment or arithmetic) not understood");
		lx->pos += 2;
	} else if (c == '-' || c == '+' || c == '?') {
		lx->pos++;
	} else if (c == '#' || c == '%' || c == '^' || c == ',') {
		lx->pos++;
		if (peek(lx, 0) == c)
			lx->pos++;
	} else if (c == '/') {
		lx->pos++;
		if (peek(lx, 0) == '/' || peek(lx, 0) == '#' || peek(lx, 0) == '%')
			lx->pos++;
	} else {
		return fail(lx, "${NAME%c...} not understood", c ? c : ' ');
	}
	r = param_word(lx, in_dq);
	if (r == 0)
		--*lx->depth;
	return r;
}

/* $(...), <(...), >(...): pos is after the opening parenthesis. */
static int subst(struct lx *lx)
{
	size_t n = 0;

	if (deeper(lx) < 0)
		return -1;
	lx->level++;
	if (parse_list(lx, ')', &n) < 0)
		return -1;
	if (peek(lx, 0) != ')')
		return fail(lx, "missing )");
	lx->pos++;
	lx->level--;
	--*lx->depth;
	return 0;
}

/* $...: pos is at the '$'. */
static int dollar(struct lx *lx, struct wbuf *w, int in_dq)
{
	char c = peek(lx, 1);

	if (c == '(') {
		if (peek(lx, 2) == '(')
			return fail(lx, "$(( )) (arithmetic) not understood");
		lx->pos += 2;
		if (subst(lx) < 0)
			return -1;
		if (w != NULL)
			w->literal = 0;
		return puts_(lx, w, "$(...)");
	}
	if (c == '{') {
		lx->pos += 2;
		if (brace_param(lx, in_dq) < 0)
			return -1;
		if (w != NULL)
			w->literal = 0;
		return puts_(lx, w, "${...}");
	}
	if (c == '[')
		return fail(lx, "$[ ] (arithmetic) not understood");
	if (!in_dq && (c == '\'' || c == '"')) {
		if (lx->dialect != WARDEN_SH_BASH)
			return fail(lx, "$%c...%c is read differently by bash and sh, "
			            "and the shell is not known to be bash", c, c);
		lx->pos += 2;
		if (c == '\'')
			return ansi_c(lx, w);
		/* $"..." is translated through the locale's catalogue. */
		if (w != NULL)
			w->literal = 0;
		return dquote(lx, w, '"');
	}
	if (is_name_start(c)) {
		lx->pos++;
		while (is_name(peek(lx, 0)))
			lx->pos++;
	} else if (c != '\0' && (isdigit((unsigned char)c) || strchr("@*#?-$!", c))) {
		lx->pos += 2;
	} else {
		lx->pos++;
		return put(lx, w, '$');
	}
	if (w != NULL)
		w->literal = 0;
	return puts_(lx, w, "$...");
}

/* `...`: pos is at the opening backquote.  The text between the quotes,
 * its backslashes undone as the shell undoes them, is a command string
 * of its own. */
static int backquote(struct lx *lx, struct wbuf *w, int in_dq)
{
	struct wbuf t = { NULL, 0, 0, 1 };
	struct lx sub;
	char c, n;
	int r;

	lx->pos++;
	for (;;) {
		c = peek(lx, 0);
		if (lx->pos >= lx->len) {
			free(t.b);
			return fail(lx, "unbalanced `");
		}
		if (c == '`') {
			lx->pos++;
			break;
		}
		if (c == '\\') {
			n = peek(lx, 1);
			if (n == '$' || n == '`' || n == '\\' || (in_dq && n == '"')) {
				lx->pos += 2;
				if (put(lx, &t, n) < 0)
					goto oom;
				continue;
			}
		}
		if (put(lx, &t, c) < 0)
			goto oom;
		lx->pos++;
	}
	if (deeper(lx) < 0) {
		free(t.b);
		return -1;
	}
	sub_lexer(&sub, lx, t.b != NULL ? t.b : "", t.n, lx->dialect);
	r = parse_all(&sub);
	free(t.b);
	if (r < 0) {
		lx->oom |= sub.oom;
		return -1;
	}
	--*lx->depth;
	if (w != NULL)
		w->literal = 0;
	return puts_(lx, w, "`...`");
oom:
	free(t.b);
	return -1;
}

/* ---------------------------------------------------------------- words */

/* One word, pos at its first character (not a metacharacter, or the
 * '<(' / '>(' of a process substitution). */
static int parse_word(struct lx *lx, struct wbuf *w)
{
	size_t start = lx->pos, e;
	char c, prev;

	w->n = 0;
	w->literal = 1;
	if (w->b != NULL)
		w->b[0] = '\0';
	for (;;) {
		c = peek(lx, 0);
		if (lx->pos == start && (c == '<' || c == '>') && peek(lx, 1) == '(') {
			lx->pos += 2;
			if (subst(lx) < 0)
				return -1;
			w->literal = 0;
			if (puts_(lx, w, c == '<' ? "<(...)" : ">(...)") < 0)
				return -1;
			continue;
		}
		if (lx->pos >= lx->len || is_meta(c))
			break;
		switch (c) {
		case '\\':
			if (peek(lx, 1) == '\n') {
				lx->pos += 2;
				break;
			}
			if (lx->pos + 1 >= lx->len) {
				lx->pos++;
				if (put(lx, w, '\\') < 0)
					return -1;
				break;
			}
			if (put(lx, w, peek(lx, 1)) < 0)
				return -1;
			lx->pos += 2;
			break;
		case '\'':
			e = lx->pos + 1;
			while (e < lx->len && lx->s[e] != '\'')
				e++;
			if (e >= lx->len)
				return fail(lx, "unbalanced '");
			for (lx->pos++; lx->pos < e; lx->pos++)
				if (put(lx, w, lx->s[lx->pos]) < 0)
					return -1;
			lx->pos++;
			/* '' is a word of its own even when empty. */
			if (w->b == NULL && put(lx, w, 'x') == 0)
				w->b[--w->n] = '\0';
			break;
		case '"':
			lx->pos++;
			if (w->b == NULL && put(lx, w, 'x') == 0)
				w->b[--w->n] = '\0';
			if (dquote(lx, w, '"') < 0)
				return -1;
			break;
		case '$':
			if (dollar(lx, w, 0) < 0)
				return -1;
			break;
		case '`':
			if (backquote(lx, w, 0) < 0)
				return -1;
			break;
		case '[': case '{':
			/* pathname and brace expansion need the closing
			 * bracket later in the word: a lone [ is the test
			 * command */
			for (e = lx->pos + 1; e < lx->len && !is_meta(lx->s[e]); e++)
				if (lx->s[e] == (c == '[' ? ']' : '}'))
					w->literal = 0;
			if (put(lx, w, c) < 0)
				return -1;
			lx->pos++;
			break;
		case '*': case '?':
			/* pathname expansion */
			w->literal = 0;
			if (put(lx, w, c) < 0)
				return -1;
			lx->pos++;
			break;
		case '~':
			prev = lx->pos > start ? lx->s[lx->pos - 1] : '\0';
			if (prev == '\0' || prev == '=' || prev == ':')
				w->literal = 0;
			/* fall through */
		default:
			if (put(lx, w, c) < 0)
				return -1;
			lx->pos++;
		}
	}
	if (lx->oom)
		return -1;
	if (w->b == NULL && put(lx, w, 'x') == 0)
		w->b[--w->n] = '\0';
	return lx->oom ? -1 : 0;
}

/* ------------------------------------------------------- here-documents */

/* The delimiter word after << or <<-: quotes removed, nothing expanded. */
static int parse_delim(struct lx *lx, struct heredoc *hd)
{
	struct wbuf w = { NULL, 0, 0, 1 };
	char c, q;

	hd->quoted = 0;
	for (;;) {
		c = peek(lx, 0);
		if (lx->pos >= lx->len || is_meta(c))
			break;
		if (c == '\\') {
			hd->quoted = 1;
			if (lx->pos + 1 >= lx->len)
				break;
			if (put(lx, &w, peek(lx, 1)) < 0)
				goto bad;
			lx->pos += 2;
		} else if (c == '\'' || c == '"') {
			hd->quoted = 1;
			q = c;
			for (lx->pos++; lx->pos < lx->len && lx->s[lx->pos] != q; lx->pos++) {
				if (q == '"' && lx->s[lx->pos] == '\\' &&
				    lx->pos + 1 < lx->len &&
				    strchr("\"\\$`", lx->s[lx->pos + 1]) != NULL)
					lx->pos++;
				if (put(lx, &w, lx->s[lx->pos]) < 0)
					goto bad;
			}
			if (lx->pos >= lx->len) {
				fail(lx, "unbalanced %c", q);
				goto bad;
			}
			lx->pos++;
		} else if (c == '$' || c == '`') {
			fail(lx, "a here-document delimiter with %c", c);
			goto bad;
		} else {
			if (put(lx, &w, c) < 0)
				goto bad;
			lx->pos++;
		}
	}
	if (w.n == 0) {
		fail(lx, "a here-document without a delimiter");
		goto bad;
	}
	hd->delim = w.b;
	return 0;
bad:
	free(w.b);
	return -1;
}

/* After a newline: the bodies of the here-documents opened on the line
 * that ends there, in order. */
static int read_heredocs(struct lx *lx)
{
	struct heredoc *hd;
	struct lx sub;
	size_t i, body, end = 0, ls, eol, dl;
	int r = 0;

	for (i = 0; r == 0 && i < lx->n_hd; i++) {
		hd = &lx->hd[i];
		dl = strlen(hd->delim);
		body = lx->pos;
		for (;;) {
			if (lx->pos >= lx->len) {
				r = fail(lx, "here-document not ended by a line '%s'",
				         hd->delim);
				break;
			}
			ls = lx->pos;
			eol = ls;
			while (eol < lx->len && lx->s[eol] != '\n')
				eol++;
			if (hd->strip)
				while (ls < eol && lx->s[ls] == '\t')
					ls++;
			if (eol - ls == dl && memcmp(lx->s + ls, hd->delim, dl) == 0) {
				end = lx->pos;
				lx->pos = eol < lx->len ? eol + 1 : eol;
				break;
			}
			/* The shell joins a line ending in a backslash to the
			 * next before it looks for the delimiter. */
			if (!hd->quoted && eol > ls && lx->s[eol - 1] == '\\') {
				lx->pos = eol - 1;
				r = fail(lx, "a here-document line ending in a backslash");
				break;
			}
			lx->pos = eol < lx->len ? eol + 1 : eol;
		}
		if (r == 0 && !hd->quoted) {
			/* An unquoted body is expanded: its substitutions run. */
			if ((r = deeper(lx)) < 0)
				break;
			sub_lexer(&sub, lx, lx->s + body, end - body, lx->dialect);
			sub.base = lx->base + body;
			r = dquote(&sub, NULL, '\0');
			if (r == 0 && sub.n_hd > 0)
				r = fail(&sub, "a here-document inside a here-document");
			heredocs_free(&sub);
			lx->oom |= sub.oom;
			--*lx->depth;
		}
	}
	heredocs_free(lx);
	return r;
}

/* A newline at pos.  Where a here-document's body starts when the line
 * that opens it goes on inside or out of a substitution is not the same
 * in every shell: not understood. */
static int newline(struct lx *lx)
{
	size_t i;

	for (i = 0; i < lx->n_hd; i++)
		if (lx->hd[i].level != lx->level)
			return fail(lx, "a here-document whose line goes on %s a "
			            "substitution", lx->hd[i].level < lx->level
			            ? "into" : "out of");
	lx->pos++;
	return lx->n_hd > 0 ? read_heredocs(lx) : 0;
}

/* Blanks, line continuations and a comment. */
static void skip_blanks(struct lx *lx)
{
	for (;;) {
		if (is_blank(peek(lx, 0)))
			lx->pos++;
		else if (peek(lx, 0) == '\\' && peek(lx, 1) == '\n')
			lx->pos += 2;
		else
			break;
	}
	if (peek(lx, 0) == '#')
		while (lx->pos < lx->len && lx->s[lx->pos] != '\n')
			lx->pos++;
}

/* Blanks, comments and newlines. */
static int skip_lines(struct lx *lx)
{
	for (;;) {
		skip_blanks(lx);
		if (peek(lx, 0) != '\n' || lx->pos >= lx->len)
			return 0;
		if (newline(lx) < 0)
			return -1;
	}
}

/* ---------------------------------------------------------- redirection */

/* At pos: the length of the descriptor number before a redirection
 * operator (0 for none), or -1 when no redirection starts here. */
static int redir_at(const struct lx *lx)
{
	size_t k = 0;
	char c;

	while (isdigit((unsigned char)peek(lx, k)))
		k++;
	c = peek(lx, k);
	if (c == '<' || c == '>')
		return k == 0 && peek(lx, 1) == '(' ? -1 : (int)k;
	if (k == 0 && c == '&' && peek(lx, 1) == '>')
		return 0;
	return -1;
}

static int harmless_target(const char *t)
{
	return strcmp(t, "/dev/null") == 0 || strcmp(t, "/dev/stdout") == 0 ||
	       strcmp(t, "/dev/stderr") == 0;
}

static int all_digits(const char *t)
{
	if (*t == '\0')
		return 0;
	for (; *t; t++)
		if (!isdigit((unsigned char)*t))
			return 0;
	return 1;
}

static int parse_redir(struct lx *lx, int fdlen)
{
	struct warden_sh_parse *o = lx->out;
	struct wbuf w = { NULL, 0, 0, 1 };
	struct heredoc *g;
	int writes = 0, dup = 0;
	char c, c1, c2;

	lx->pos += (size_t)fdlen;
	c = peek(lx, 0);
	c1 = peek(lx, 1);
	c2 = peek(lx, 2);
	if (c == '&') {
		lx->pos += c2 == '>' ? 3 : 2;
		writes = 1;
	} else if (c == '<') {
		if (c1 == '<' && c2 == '<') {
			lx->pos += 3;
		} else if (c1 == '<') {
			lx->pos += c2 == '-' ? 3 : 2;
			skip_blanks(lx);
			if (lx->pos >= lx->len || is_meta(peek(lx, 0)))
				return fail(lx, "a here-document without a delimiter");
			g = realloc(lx->hd, (lx->n_hd + 1) * sizeof(*g));
			if (g == NULL)
				return oom(lx);
			lx->hd = g;
			g[lx->n_hd].strip = c2 == '-';
			g[lx->n_hd].level = lx->level;
			if (parse_delim(lx, &g[lx->n_hd]) < 0)
				return -1;
			lx->n_hd++;
			return 0;
		} else if (c1 == '>') {
			lx->pos += 2;
			writes = 1;
		} else if (c1 == '&') {
			lx->pos += 2;
		} else {
			lx->pos++;
		}
	} else {
		if (c1 == '>' || c1 == '|') {
			lx->pos += 2;
		} else if (c1 == '&') {
			lx->pos += 2;
			dup = 1;
		} else {
			lx->pos++;
		}
		writes = 1;
	}
	skip_blanks(lx);
	c = peek(lx, 0);
	if (lx->pos >= lx->len || (is_meta(c) && !((c == '<' || c == '>') &&
	                                          peek(lx, 1) == '(')))
		return fail(lx, "a redirection without a target");
	if (parse_word(lx, &w) < 0) {
		free(w.b);
		return -1;
	}
	if (writes && w.literal &&
	    (harmless_target(w.b) || (dup && (all_digits(w.b) || strcmp(w.b, "-") == 0))))
		writes = 0;
	if (writes && o->n_writes++ == 0)
		snprintf(o->write, sizeof(o->write), "%s", w.b);
	free(w.b);
	return 0;
}

/* -------------------------------------------------------------- commands */

static const char *const reserved[] = {
	"if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
	"while", "until", "for", "in", "select", "function", "time", "coproc",
	"[[", "]]", "{", "}", "!", NULL,
};

/* Builtins that change how the commands after them are found or run, or
 * run a string as commands: never understood. */
static const char *const opaque[] = {
	".", "source", "eval", "exec", "alias", "unalias", "trap", "hash",
	"enable", "builtin", "command", "declare", "typeset", "local",
	"export", "readonly", "unset", "set", "shopt", "read", "mapfile",
	"readarray", "getopts", "let", "fc", "jobs", "compgen", "complete",
	"compopt", "bind", "history", NULL,
};

static int in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && memcmp(*l, s, n) == 0)
			return 1;
	return 0;
}

/* NAME=, NAME+=, NAME[: an assignment, as written. */
static int is_assignment(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || !is_name_start(s[0]))
		return 0;
	while (i < n && is_name(s[i]))
		i++;
	return i < n && (s[i] == '=' || s[i] == '[' ||
	                 (s[i] == '+' && i + 1 < n && s[i + 1] == '='));
}

static void command_free(struct warden_sh_command *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->w[i].text);
	free(c->w);
	memset(c, 0, sizeof(*c));
}

/* Moves c into the result. */
static int push_command(struct lx *lx, struct warden_sh_command *c)
{
	struct warden_sh_parse *o = lx->out;
	struct warden_sh_command *g;

	if (o->n >= WARDEN_SH_MAX_COMMANDS) {
		command_free(c);
		return fail(lx, "more than %d commands", WARDEN_SH_MAX_COMMANDS);
	}
	g = realloc(o->cmd, (o->n + 1) * sizeof(*g));
	if (g == NULL) {
		command_free(c);
		return oom(lx);
	}
	o->cmd = g;
	g[o->n++] = *c;
	memset(c, 0, sizeof(*c));
	return 0;
}

static int push_word(struct lx *lx, struct warden_sh_command *c,
                     struct wbuf *w)
{
	struct warden_sh_word *g = realloc(c->w, (c->n + 1) * sizeof(*g));

	if (g == NULL)
		return oom(lx);
	c->w = g;
	g[c->n].text = w->b != NULL ? w->b : strdup("");
	g[c->n].literal = w->literal;
	if (g[c->n].text == NULL)
		return oom(lx);
	c->n++;
	w->b = NULL;
	w->n = w->cap = 0;
	return 0;
}

int warden_sh_dialect_of(const char *program)
{
	const char *b = strrchr(program, '/');

	b = b != NULL ? b + 1 : program;
	if (strcmp(b, "bash") == 0)
		return WARDEN_SH_BASH;
	if (strcmp(b, "sh") == 0 || strcmp(b, "dash") == 0)
		return WARDEN_SH_POSIX;
	return -1;
}

/* What the program of the result's command k means: a builtin that is
 * not understood, or a shell whose -c string is parsed in turn. */
static int check_program(struct lx *lx, size_t k)
{
	struct warden_sh_command *c = &lx->out->cmd[k];
	const char *p = c->w[0].text, *t;
	struct lx sub;
	size_t i;
	int d, r;

	if (!c->w[0].literal)
		return fail(lx, "the program is not a fixed word (%s)", p);
	if (strchr(p, '/') == NULL) {
		if (in_list(opaque, p, strlen(p)))
			return fail(lx, "'%s' changes how later commands run", p);
		if (strcmp(p, "printf") == 0 && c->n > 1 &&
		    (!c->w[1].literal || strncmp(c->w[1].text, "-v", 2) == 0))
			return fail(lx, "printf -v assigns a variable");
		/* test -v evaluates an array subscript, $( ) included */
		if (strcmp(p, "test") == 0 || strcmp(p, "[") == 0)
			for (i = 1; i < c->n; i++)
				if (!c->w[i].literal || strcmp(c->w[i].text, "-v") == 0 ||
				    strcmp(c->w[i].text, "-R") == 0)
					return fail(lx, "%s -v, or a word that may be -v, "
					            "evaluates a subscript", p);
		if (strcmp(p, "wait") == 0)
			for (i = 1; i < c->n; i++)
				if (!c->w[i].literal || (c->w[i].text[0] == '-' &&
				                         strchr(c->w[i].text, 'p')))
					return fail(lx, "wait -p assigns a variable");
	}
	if ((d = warden_sh_dialect_of(p)) < 0)
		return 0;
	if (c->n >= 2 && c->w[1].literal && strcmp(c->w[1].text, "-c") == 0) {
		if (c->n < 3 || !c->w[2].literal)
			return fail(lx, "%s -c without a fixed command string", p);
		c->shell = 1;
		t = c->w[2].text;
		if (deeper(lx) < 0)
			return -1;
		sub_lexer(&sub, lx, t, strlen(t), d);
		r = parse_all(&sub);
		lx->oom |= sub.oom;
		if (r == 0)
			--*lx->depth;
		return r;
	}
	for (i = 1; i < c->n; i++) {
		t = c->w[i].text;
		if (!c->w[i].literal)
			return fail(lx, "%s with an option that is not a fixed word", p);
		if (t[0] != '-' && t[0] != '+')
			break;
		if (strcmp(t, "--") == 0)
			break;
		if (strchr(t, 'c') != NULL)
			return fail(lx, "%s %s: a shell's options other than a lone -c", p, t);
	}
	return 0;
}

static int parse_simple(struct lx *lx)
{
	struct warden_sh_command c = { NULL, 0, 0 };
	struct wbuf w = { NULL, 0, 0, 1 };
	size_t start, nredir = 0;
	int k, r = 0;
	char ch;

	for (;;) {
		skip_blanks(lx);
		ch = peek(lx, 0);
		if (lx->pos >= lx->len || ch == '\n' || ch == ';' || ch == '|' ||
		    ch == ')' || (ch == '&' && peek(lx, 1) != '>'))
			break;
		if (ch == '(') {
			r = fail(lx, c.n > 0 ? "'(' after a word (a function definition?)"
			                     : "unexpected '('");
			break;
		}
		if ((k = redir_at(lx)) >= 0) {
			if ((r = parse_redir(lx, k)) < 0)
				break;
			nredir++;
			continue;
		}
		start = lx->pos;
		if ((r = parse_word(lx, &w)) < 0)
			break;
		if (c.n == 0 && in_list(reserved, lx->s + start, lx->pos - start)) {
			r = fail(lx, "'%.*s' (shell syntax) not understood",
			         (int)(lx->pos - start), lx->s + start);
			break;
		}
		if (c.n == 0 && is_assignment(lx->s + start, lx->pos - start)) {
			r = fail(lx, "an assignment before or as a command (%.*s)",
			         (int)(lx->pos - start > 40 ? 40 : lx->pos - start),
			         lx->s + start);
			break;
		}
		if (lx->s[start] == '{' && lx->s[lx->pos - 1] == '}' &&
		    (peek(lx, 0) == '<' || peek(lx, 0) == '>')) {
			r = fail(lx, "a redirection to a named descriptor {NAME}");
			break;
		}
		if ((r = push_word(lx, &c, &w)) < 0)
			break;
	}
	free(w.b);
	if (r == 0 && c.n == 0 && nredir == 0)
		r = fail(lx, "expected a command");
	/* Kept even when something in it was not understood: its words so
	 * far are what it starts with. */
	if (c.n > 0 || nredir > 0) {
		if (push_command(lx, &c) < 0)
			return -1;
		if (r == 0 && lx->out->cmd[lx->out->n - 1].n > 0)
			r = check_program(lx, lx->out->n - 1);
	}
	command_free(&c);
	return r;
}

/* After ) or } of a group: its redirections, then the end of it. */
static int group_tail(struct lx *lx)
{
	int k;
	char c;

	for (;;) {
		skip_blanks(lx);
		if ((k = redir_at(lx)) >= 0) {
			if (parse_redir(lx, k) < 0)
				return -1;
			continue;
		}
		c = peek(lx, 0);
		if (lx->pos < lx->len && !is_meta(c))
			return fail(lx, "unexpected word after a group");
		if (c == '(')
			return fail(lx, "unexpected '(' after a group");
		return 0;
	}
}

static int parse_command(struct lx *lx)
{
	size_t n = 0;
	char c;

	skip_blanks(lx);
	c = peek(lx, 0);
	if (c == '(') {
		if (peek(lx, 1) == '(')
			return fail(lx, "(( )) (arithmetic) not understood");
		lx->pos++;
		if (deeper(lx) < 0 || parse_list(lx, ')', &n) < 0)
			return -1;
		if (n == 0)
			return fail(lx, "an empty ( )");
		lx->pos++;
		--*lx->depth;
		return group_tail(lx);
	}
	if (c == '{' && (is_blank(peek(lx, 1)) || peek(lx, 1) == '\n')) {
		lx->pos++;
		if (deeper(lx) < 0 || parse_list(lx, '}', &n) < 0)
			return -1;
		if (n == 0)
			return fail(lx, "an empty { }");
		lx->pos++;
		--*lx->depth;
		return group_tail(lx);
	}
	return parse_simple(lx);
}

static int parse_pipeline(struct lx *lx)
{
	char c;

	skip_blanks(lx);
	if (peek(lx, 0) == '!' && (is_blank(peek(lx, 1)) || peek(lx, 1) == '\n'))
		lx->pos++;
	if (parse_command(lx) < 0)
		return -1;
	for (;;) {
		skip_blanks(lx);
		c = peek(lx, 0);
		if (c != '|' || peek(lx, 1) == '|')
			return 0;
		lx->pos += peek(lx, 1) == '&' ? 2 : 1;
		if (skip_lines(lx) < 0 || parse_command(lx) < 0)
			return -1;
	}
}

static int parse_and_or(struct lx *lx)
{
	char c;

	if (parse_pipeline(lx) < 0)
		return -1;
	for (;;) {
		skip_blanks(lx);
		c = peek(lx, 0);
		if (!((c == '&' || c == '|') && peek(lx, 1) == c))
			return 0;
		lx->pos += 2;
		if (skip_lines(lx) < 0 || parse_pipeline(lx) < 0)
			return -1;
	}
}

/* A list up to term: ')' or '}' (left unread), or the end of the text
 * ('\0').  count: the and-or lists read. */
static int parse_list(struct lx *lx, char term, size_t *count)
{
	char c;

	for (;;) {
		if (skip_lines(lx) < 0)
			return -1;
		c = peek(lx, 0);
		if (lx->pos >= lx->len) {
			if (term != '\0')
				return fail(lx, "missing %c", term);
			return 0;
		}
		if (term == ')' && c == ')')
			return 0;
		if (term == '}' && c == '}' &&
		    (lx->pos + 1 >= lx->len || is_meta(peek(lx, 1))))
			return 0;
		if (parse_and_or(lx) < 0)
			return -1;
		(*count)++;
		skip_blanks(lx);
		c = peek(lx, 0);
		if (lx->pos >= lx->len || c == '\n')
			continue;
		if (c == ';') {
			if (peek(lx, 1) == ';' || peek(lx, 1) == '&')
				return fail(lx, "';;' outside case");
			lx->pos++;
			continue;
		}
		if (c == '&') {
			lx->pos++;
			continue;
		}
		if (term == ')' && c == ')')
			continue;
		return fail(lx, "unexpected '%c'", c);
	}
}

/* ------------------------------------------------------------------ API */

static void parse_init(struct warden_sh_parse *out)
{
	memset(out, 0, sizeof(*out));
	out->understood = 1;
}

int warden_sh_parse_string(const char *s, int dialect,
                           struct warden_sh_parse *out)
{
	struct lx lx;
	int depth = 0;

	parse_init(out);
	memset(&lx, 0, sizeof(lx));
	lx.s = s;
	lx.len = strlen(s);
	lx.dialect = dialect;
	lx.depth = &depth;
	lx.out = out;
	if (lx.len > WARDEN_SH_MAX_INPUT) {
		fail(&lx, "longer than %d bytes", WARDEN_SH_MAX_INPUT);
		return 0;
	}
	parse_all(&lx);
	return lx.oom ? -1 : 0;
}

int warden_sh_parse_argv(const char *const *argv, size_t argc,
                         struct warden_sh_parse *out)
{
	struct warden_sh_command c = { NULL, 0, 0 };
	struct wbuf w;
	struct lx lx;
	size_t i, total = 0;
	int depth = 0;

	parse_init(out);
	memset(&lx, 0, sizeof(lx));
	lx.s = "";
	lx.depth = &depth;
	lx.out = out;
	if (argc == 0) {
		fail(&lx, "no command");
		return 0;
	}
	for (i = 0; i < argc; i++)
		total += strlen(argv[i]) + 1;
	if (total > WARDEN_SH_MAX_INPUT) {
		fail(&lx, "longer than %d bytes", WARDEN_SH_MAX_INPUT);
		return 0;
	}
	for (i = 0; i < argc; i++) {
		w.b = strdup(argv[i]);
		w.n = w.cap = 0;
		w.literal = 1;
		if (w.b == NULL || push_word(&lx, &c, &w) < 0) {
			free(w.b);
			command_free(&c);
			return -1;
		}
	}
	if (push_command(&lx, &c) < 0)
		return -1;
	check_program(&lx, 0);
	return lx.oom ? -1 : 0;
}

int warden_sh_split_words(const char *s, char ***words, char *why,
                          size_t whylen)
{
	struct warden_sh_parse out;
	struct wbuf w = { NULL, 0, 0, 1 };
	char **v = NULL, **g;
	struct lx lx;
	size_t n = 0;
	int depth = 0;

	parse_init(&out);
	memset(&lx, 0, sizeof(lx));
	lx.s = s;
	lx.len = strlen(s);
	lx.dialect = WARDEN_SH_BASH;
	lx.depth = &depth;
	lx.out = &out;
	*words = NULL;
	for (;;) {
		while (is_blank(peek(&lx, 0)))
			lx.pos++;
		if (lx.pos >= lx.len)
			break;
		if (is_meta(peek(&lx, 0)) || peek(&lx, 0) == '#') {
			fail(&lx, "'%c': only words, not shell syntax", peek(&lx, 0));
			break;
		}
		if (parse_word(&lx, &w) < 0)
			break;
		if (!w.literal) {
			fail(&lx, "'%s' is not a fixed word (an expansion, "
			     "substitution or glob): quote it", w.b);
			break;
		}
		if ((g = realloc(v, (n + 1) * sizeof(*g))) == NULL) {
			oom(&lx);
			break;
		}
		v = g;
		v[n++] = w.b;
		w.b = NULL;
		w.n = w.cap = 0;
	}
	free(w.b);
	heredocs_free(&lx);
	warden_sh_parse_free(&out);
	if (lx.oom || !out.understood || n == 0) {
		if (!lx.oom)
			snprintf(why, whylen, "%s", n == 0 && out.understood
			         ? "no words" : out.why);
		warden_sh_words_free(v, n);
		return lx.oom ? -1 : 0;
	}
	*words = v;
	return (int)n;
}

void warden_sh_words_free(char **words, size_t n)
{
	size_t i;

	for (i = 0; words != NULL && i < n; i++)
		free(words[i]);
	free(words);
}

void warden_sh_parse_free(struct warden_sh_parse *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		command_free(&p->cmd[i]);
	free(p->cmd);
	p->cmd = NULL;
	p->n = 0;
}
