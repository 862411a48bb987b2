/* ruleset.c — see ruleset.h. */
#include "config.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#include "ruleset.h"
#include "shparse.h"
#include "words.h"

enum kind {
	ALLOW_GLOB = 1,
	DENY_GLOB,
	ALLOW_COMMAND,
	DENY_COMMAND,
	ASK_COMMAND,
};

enum match {
	NO = 0,
	MAYBE,
	YES,
};

struct rule {
	int kind;
	char *tool, *glob;      /* the patterns */
	char **words;           /* the command rules' prefix */
	size_t n;
	char *where;            /* "KEY = VALUE (FILE:LINE)" */
	unsigned line;
};

struct warden_ruleset {
	char *file, *instance;
	struct rule *r;
	size_t n;
	size_t n_commands;      /* rules of the *_command kinds */
	size_t n_examples;
	int writable;           /* decision for a writable program, 0: the
	                           rules decide */
	int writable_set;
};

static int say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (len == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

struct warden_ruleset *warden_ruleset_new(const char *file,
                                          const char *instance)
{
	struct warden_ruleset *rs = calloc(1, sizeof(*rs));

	if (rs == NULL)
		return NULL;
	rs->file = strdup(file);
	rs->instance = strdup(instance);
	rs->writable = WARDEN_DECISION_REJECTED;
	if (rs->file == NULL || rs->instance == NULL) {
		warden_ruleset_free(rs);
		return NULL;
	}
	return rs;
}

void warden_ruleset_free(struct warden_ruleset *rs)
{
	size_t i;

	if (rs == NULL)
		return;
	for (i = 0; i < rs->n; i++) {
		free(rs->r[i].tool);
		free(rs->r[i].glob);
		free(rs->r[i].where);
		warden_sh_words_free(rs->r[i].words, rs->r[i].n);
	}
	free(rs->r);
	free(rs->file);
	free(rs->instance);
	free(rs);
}

size_t warden_ruleset_rules(const struct warden_ruleset *rs)
{
	return rs->n;
}

size_t warden_ruleset_examples(const struct warden_ruleset *rs)
{
	return rs->n_examples;
}

int warden_ruleset_plugin_is_rules(const char *plugin)
{
	const char *b = strrchr(plugin, '/');

	if (b == NULL)
		return strcmp(plugin, "rules") == 0;
	return strcmp(b + 1, "rules.so") == 0;
}

/* ------------------------------------------------------------ matching */

static const char *base_of(const char *p)
{
	const char *b = strrchr(p, '/');

	return b != NULL ? b + 1 : p;
}

/* Whether command c starts with the rule's words. */
static int command_match(const struct rule *r, const struct warden_sh_command *c)
{
	size_t i;
	const char *w;

	if (c->n == 0)
		return NO;
	for (i = 0; i < r->n; i++) {
		if (i >= c->n)
			return NO;
		if (!c->w[i].literal)
			return MAYBE;
		w = c->w[i].text;
		if (i == 0 && r->kind != ALLOW_COMMAND &&
		    strchr(r->words[0], '/') == NULL)
			w = base_of(w);
		if (strcmp(w, r->words[i]) != 0)
			return NO;
	}
	return YES;
}

/* The command as shell words, for a reason: into buf, shortened. */
static const char *show(const struct warden_sh_command *c, char *buf,
                        size_t len)
{
	const char **v;
	char *s;
	size_t i;

	if (c->n == 0) {
		snprintf(buf, len, "(redirections only)");
		return buf;
	}
	v = calloc(c->n, sizeof(*v));
	if (v == NULL) {
		snprintf(buf, len, "%s", c->w[0].text);
		return buf;
	}
	for (i = 0; i < c->n; i++)
		v[i] = c->w[i].text;
	s = words_join(v, c->n, " ", 1);
	free(v);
	if (s == NULL) {
		snprintf(buf, len, "%s", c->w[0].text);
		return buf;
	}
	if (strlen(s) >= len && len > 4) {
		memcpy(buf, s, len - 4);
		strcpy(buf + len - 4, "...");
	} else {
		snprintf(buf, len, "%s", s);
	}
	free(s);
	return buf;
}

/* The commands of p that run something of their own (not a shell that
 * runs a -c string whose commands are listed). */
static size_t own_commands(const struct warden_sh_parse *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += !p->cmd[i].shell;
	return n;
}

/* Whether the allow_command r alone allows the parse p; when not, why. */
static int allows(const struct rule *r, const struct warden_sh_parse *p,
                  char *why, size_t len)
{
	char cmd[96];
	size_t i;

	if (!p->understood)
		return !say(why, len, "not understood: %s (at byte %zu)", p->why, p->at);
	if (own_commands(p) == 0)
		return !say(why, len, "it has no command");
	if (p->n_writes > 0)
		return !say(why, len, "it writes %s by redirection", p->write);
	for (i = 0; i < p->n; i++)
		if (!p->cmd[i].shell && command_match(r, &p->cmd[i]) != YES)
			return !say(why, len, "`%s` is not covered",
			            show(&p->cmd[i], cmd, sizeof(cmd)));
	return 1;
}

/* The first command of p that the deny or ask rule r matches (YES, or
 * MAYBE too when maybe), or -1. */
static long matching(const struct rule *r, const struct warden_sh_parse *p,
                     int maybe)
{
	size_t i;
	int m;

	for (i = 0; i < p->n; i++) {
		m = command_match(r, &p->cmd[i]);
		if (m == YES || (maybe && m == MAYBE))
			return (long)i;
	}
	return -1;
}

/* ------------------------------------------------------------- reading */

static int parse_example(const char *text, struct warden_sh_parse *p)
{
	/* Examples are read as bash reads them (warden run -c's shell). */
	return warden_sh_parse_string(text, WARDEN_SH_BASH, p);
}

/* Whether the rule r decides the example text: for an allow_command,
 * allows it; for a deny_command, denies one of its commands; for an
 * ask_command, asks about one; for a pattern, matches it.  why: what
 * was found, for the error. */
static int example_matches(const struct rule *r, const char *text, int *m,
                           char *why, size_t len)
{
	struct warden_sh_parse p;
	char cmd[96];
	long k;

	why[0] = '\0';
	if (r->kind == ALLOW_GLOB || r->kind == DENY_GLOB) {
		*m = fnmatch(r->glob, text, 0) == 0;
		return 0;
	}
	if (parse_example(text, &p) < 0) {
		warden_sh_parse_free(&p);
		return -1;
	}
	if (r->kind == ALLOW_COMMAND) {
		*m = allows(r, &p, why, len);
		if (*m)
			say(why, len, "every command is covered");
	} else {
		k = matching(r, &p, r->kind == ASK_COMMAND);
		*m = k >= 0;
		if (*m)
			say(why, len, "`%s` matches", show(&p.cmd[k], cmd, sizeof(cmd)));
		else if (!p.understood && r->kind == DENY_COMMAND)
			say(why, len, "no command matches; not understood: %s", p.why);
		else
			say(why, len, "no command matches");
	}
	warden_sh_parse_free(&p);
	return 0;
}

int warden_ruleset_add(struct warden_ruleset *rs, const char *key,
                       const char *value, unsigned line, char *err,
                       size_t errlen)
{
	const char *colon = NULL;
	struct rule *r, *g;
	char why[256];
	int kind = 0, want, m, n = 0;
	char **words = NULL;

	if (strcmp(key, "writable_program") == 0) {
		if (rs->writable_set)
			return say(err, errlen, "%s:%u: [answerer %s] "
			           "writable_program: given twice",
			           rs->file, line, rs->instance);
		rs->writable_set = 1;
		if (strcmp(value, "reject") == 0)
			rs->writable = WARDEN_DECISION_REJECTED;
		else if (strcmp(value, "next") == 0)
			rs->writable = WARDEN_DECISION_DELEGATE;
		else if (strcmp(value, "rules") == 0)
			rs->writable = 0;
		else
			return say(err, errlen, "%s:%u: [answerer %s] "
			           "writable_program = %s: allowed: reject, "
			           "next, rules", rs->file, line, rs->instance,
			           value);
		return 0;
	}
	if ((want = strcmp(key, "example_match") == 0) ||
	    strcmp(key, "example_not_match") == 0) {
		if (rs->n == 0)
			return say(err, errlen, "%s:%u: [answerer %s] %s = %s: an "
			           "example belongs to the rule just above it "
			           "(allow_command, deny_command, ask_command, "
			           "allow or deny), and there is none",
			           rs->file, line, rs->instance, key, value);
		r = &rs->r[rs->n - 1];
		if (example_matches(r, value, &m, why, sizeof(why)) < 0)
			return say(err, errlen, "out of memory");
		rs->n_examples++;
		if (m == want)
			return 0;
		return say(err, errlen, "%s:%u: [answerer %s] %s = %s: the "
		           "rule %s %s it%s%s%s", rs->file, line,
		           rs->instance, key, value, r->where,
		           r->kind == ALLOW_GLOB || r->kind == DENY_GLOB
		           ? (m ? "matches" : "does not match")
		           : r->kind == ALLOW_COMMAND
		           ? (m ? "allows" : "does not allow")
		           : r->kind == DENY_COMMAND
		           ? (m ? "denies" : "does not deny")
		           : (m ? "asks about" : "does not ask about"),
		           why[0] ? " (" : "", why, why[0] ? ")" : "");
	}
	if (strcmp(key, "allow") == 0)
		kind = ALLOW_GLOB;
	else if (strcmp(key, "deny") == 0)
		kind = DENY_GLOB;
	else if (strcmp(key, "allow_command") == 0)
		kind = ALLOW_COMMAND;
	else if (strcmp(key, "deny_command") == 0)
		kind = DENY_COMMAND;
	else if (strcmp(key, "ask_command") == 0)
		kind = ASK_COMMAND;
	else
		return say(err, errlen, "%s:%u: [answerer %s] unknown key '%s' "
		           "(allowed: allow_command, deny_command, ask_command, "
		           "example_match, example_not_match, allow, deny, "
		           "writable_program)", rs->file, line, rs->instance, key);

	if (kind == ALLOW_GLOB || kind == DENY_GLOB) {
		colon = strchr(value, ':');
		if (colon == NULL || colon == value || colon[1] == '\0')
			return say(err, errlen, "%s:%u: [answerer %s] %s = %s: "
			           "allowed: TOOL:GLOB (both non-empty; `*` for "
			           "any)", rs->file, line, rs->instance, key, value);
	} else {
		n = warden_sh_split_words(value, &words, why, sizeof(why));
		if (n < 0)
			return say(err, errlen, "out of memory");
		if (n == 0)
			return say(err, errlen, "%s:%u: [answerer %s] %s = %s: "
			           "allowed: a command prefix in shell words "
			           "(`git status`): %s", rs->file, line,
			           rs->instance, key, value, why);
	}
	g = realloc(rs->r, (rs->n + 1) * sizeof(*g));
	if (g == NULL) {
		warden_sh_words_free(words, (size_t)(words ? n : 0));
		return say(err, errlen, "out of memory");
	}
	rs->r = g;
	r = &g[rs->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->line = line;
	if (kind == ALLOW_GLOB || kind == DENY_GLOB) {
		r->tool = strndup(value, (size_t)(colon - value));
		r->glob = strdup(colon + 1);
		if (r->tool == NULL || r->glob == NULL)
			return say(err, errlen, "out of memory");
		/* fnmatch has no compile step: a pattern it cannot use makes
		 * it return an error other than FNM_NOMATCH on any string. */
		m = fnmatch(r->tool, "", 0);
		n = fnmatch(r->glob, "", 0);
		if ((m != 0 && m != FNM_NOMATCH) || (n != 0 && n != FNM_NOMATCH))
			return say(err, errlen, "%s:%u: [answerer %s] %s = %s: not "
			           "a usable fnmatch pattern", rs->file, line,
			           rs->instance, key, value);
	} else {
		r->words = words;
		r->n = (size_t)n;
		rs->n_commands++;
	}
	if (asprintf(&r->where, "%s = %s (%s:%u)", key, value, rs->file, line) < 0) {
		r->where = NULL;
		return say(err, errlen, "out of memory");
	}
	return 0;
}

/* ------------------------------------------------------------ deciding */

int warden_ruleset_decide(const struct warden_ruleset *rs,
                          const struct warden_rules_request *rq,
                          char *why, size_t whylen)
{
	struct warden_sh_parse p;
	const struct rule *r;
	char cmd[96];
	size_t i, k, used;
	int parsed = 0, d = WARDEN_DECISION_DELEGATE;
	long at;

	why[0] = '\0';
	if (rq->program_writable && rs->writable != 0) {
		if (rs->writable == WARDEN_DECISION_REJECTED)
			say(why, whylen, "%s lies under a writable root "
			    "(writable_program = reject)", rq->program);
		return rs->writable;
	}
	memset(&p, 0, sizeof(p));
	if (rs->n_commands > 0 && strcmp(rq->tool, "bash") == 0) {
		if ((rq->argc > 0 ? warden_sh_parse_argv(rq->argv, rq->argc, &p)
		                  : warden_sh_parse_string(rq->subject,
		                                           WARDEN_SH_UNKNOWN, &p)) < 0) {
			warden_sh_parse_free(&p);
			say(why, whylen, "out of memory");
			return WARDEN_DECISION_ERROR;
		}
		parsed = 1;
		/* Deny wins, whatever else the string holds. */
		for (i = 0; i < rs->n; i++) {
			r = &rs->r[i];
			if (r->kind == DENY_COMMAND && (at = matching(r, &p, 0)) >= 0) {
				say(why, whylen, "%s: `%s`", r->where,
				    show(&p.cmd[at], cmd, sizeof(cmd)));
				d = WARDEN_DECISION_REJECTED;
				goto out;
			}
		}
		for (i = 0; i < rs->n; i++) {
			r = &rs->r[i];
			if ((r->kind == DENY_COMMAND || r->kind == ASK_COMMAND) &&
			    (at = matching(r, &p, 1)) >= 0) {
				say(why, whylen, "%s%s: `%s`",
				    r->kind == DENY_COMMAND ? "may match " : "",
				    r->where, show(&p.cmd[at], cmd, sizeof(cmd)));
				goto out;
			}
		}
	}
	for (i = 0; i < rs->n; i++) {
		r = &rs->r[i];
		if ((r->kind == ALLOW_GLOB || r->kind == DENY_GLOB) &&
		    fnmatch(r->tool, rq->tool, 0) == 0 &&
		    fnmatch(r->glob, rq->subject, 0) == 0) {
			say(why, whylen, "%s", r->where);
			d = r->kind == ALLOW_GLOB ? WARDEN_DECISION_ALLOWED_ONCE
			                          : WARDEN_DECISION_REJECTED;
			goto out;
		}
	}
	if (!parsed)
		goto out;
	if (!p.understood) {
		say(why, whylen, "not understood: %s (at byte %zu)", p.why, p.at);
		goto out;
	}
	if (own_commands(&p) == 0) {
		say(why, whylen, "no command");
		goto out;
	}
	if (p.n_writes > 0) {
		say(why, whylen, "writes %s by redirection", p.write);
		goto out;
	}
	used = 0;
	for (k = 0; k < p.n; k++) {
		if (p.cmd[k].shell)
			continue;
		for (i = 0; i < rs->n; i++)
			if (rs->r[i].kind == ALLOW_COMMAND &&
			    command_match(&rs->r[i], &p.cmd[k]) == YES)
				break;
		if (i == rs->n) {
			say(why, whylen, "no allow_command covers `%s`",
			    show(&p.cmd[k], cmd, sizeof(cmd)));
			goto out;
		}
		/* The reason names each rule used, once. */
		if (used < whylen && strstr(why, rs->r[i].where) == NULL)
			used += (size_t)snprintf(why + used, whylen - used, "%s%s",
			                         used ? "; " : "", rs->r[i].where);
	}
	d = WARDEN_DECISION_ALLOWED_ONCE;
out:
	warden_sh_parse_free(&p);
	return d;
}
