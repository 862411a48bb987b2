/*
 * rules.c — the `rules` answerer: an ordered list of patterns.
 *
 *   [answerer rules]
 *   plugin = rules
 *   deny  = bash:rm -rf *
 *   allow = bash:git status*
 *   allow = read:*
 *
 * Each `allow` or `deny` value is TOOL:GLOB, split at the first ':'; both
 * sides are fnmatch(3) patterns without flags (so `*` also matches '/'),
 * and either may be `*`.  The entries are tried in file order and the
 * first whose TOOL pattern matches the request's tool and whose GLOB
 * matches its subject decides: allow → allowed-once, deny → rejected,
 * with the rule and where it is written as the reason ("deny = bash:rm
 * -rf * (/etc/warden/warden.ini:12)").  No match: delegate to the next
 * answerer.
 *
 * A request about a program that lies under a writable root of the
 * session (plugin.h, v1.1: program_writable — the sandboxed command could
 * have written it) is decided before any pattern by
 *
 *   writable_program = reject | next | rules
 *
 * reject (the default): rejected, whatever the patterns say; next:
 * delegated to the next answerer (a person, say); rules: the patterns
 * decide as for any other program.  Given once at most.
 *
 * Any other key, an entry without ':' or with an empty side, or a pattern
 * fnmatch rejects, is an error naming its line.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

struct rule {
	int allow;
	char *tool;
	char *glob;
	char *where;    /* "KEY = VALUE (FILE:LINE)": the decision's reason */
};

struct rules {
	struct rule *r;
	size_t n;
	int writable;           /* the decision for a writable program, or 0:
	                           the rules decide */
	int writable_set;
};

static void rules_close(void *state)
{
	struct rules *rs = state;
	size_t i;

	if (rs == NULL)
		return;
	for (i = 0; i < rs->n; i++) {
		free(rs->r[i].tool);
		free(rs->r[i].glob);
		free(rs->r[i].where);
	}
	free(rs->r);
	free(rs);
}

/* fnmatch has no compile step: a pattern it cannot use makes it return
 * an error other than FNM_NOMATCH on any string. */
static int bad_pattern(const char *p)
{
	int r = fnmatch(p, "", 0);

	return r != 0 && r != FNM_NOMATCH;
}

static void *rules_open(const struct warden_open_args *args, char *err,
                        size_t errlen)
{
	struct rules *rs;
	const struct warden_kv *kv;
	const char *colon;
	struct rule *r;
	size_t i;

	rs = calloc(1, sizeof(*rs));
	if (rs == NULL || (args->kv_count > 0 &&
	    (rs->r = calloc(args->kv_count, sizeof(*rs->r))) == NULL)) {
		free(rs);
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	rs->writable = WARDEN_DECISION_REJECTED;
	for (i = 0; i < args->kv_count; i++) {
		kv = &args->kv[i];
		if (strcmp(kv->key, "writable_program") == 0) {
			if (rs->writable_set) {
				WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] "
				                  "writable_program: given twice",
				                  args->config_file, kv->line,
				                  args->instance);
				goto fail;
			}
			rs->writable_set = 1;
			if (strcmp(kv->value, "reject") == 0)
				rs->writable = WARDEN_DECISION_REJECTED;
			else if (strcmp(kv->value, "next") == 0)
				rs->writable = WARDEN_DECISION_DELEGATE;
			else if (strcmp(kv->value, "rules") == 0)
				rs->writable = 0;
			else {
				WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] "
				                  "writable_program = %s: allowed: "
				                  "reject, next, rules",
				                  args->config_file, kv->line,
				                  args->instance, kv->value);
				goto fail;
			}
			continue;
		}
		if (strcmp(kv->key, "allow") != 0 && strcmp(kv->key, "deny") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] unknown "
			                  "key '%s' (allowed: allow, deny, "
			                  "writable_program)",
			                  args->config_file, kv->line,
			                  args->instance, kv->key);
			goto fail;
		}
		colon = strchr(kv->value, ':');
		if (colon == NULL || colon == kv->value || colon[1] == '\0') {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] %s = "
			                  "%s: allowed: TOOL:GLOB (both non-empty; "
			                  "`*` for any)", args->config_file,
			                  kv->line, args->instance, kv->key,
			                  kv->value);
			goto fail;
		}
		r = &rs->r[rs->n];
		r->allow = kv->key[0] == 'a';
		r->tool = strndup(kv->value, (size_t)(colon - kv->value));
		r->glob = strdup(colon + 1);
		if (asprintf(&r->where, "%s = %s (%s:%u)", kv->key, kv->value,
		             args->config_file, kv->line) < 0)
			r->where = NULL;
		rs->n++;
		if (r->tool == NULL || r->glob == NULL || r->where == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
			goto fail;
		}
		if (bad_pattern(r->tool) || bad_pattern(r->glob)) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] %s = "
			                  "%s: not a usable fnmatch pattern",
			                  args->config_file, kv->line,
			                  args->instance, kv->key, kv->value);
			goto fail;
		}
	}
	return rs;
fail:
	rules_close(rs);
	return NULL;
}

static int rules_decide(void *state, const struct warden_request *req,
                        char *err, size_t errlen)
{
	const struct rules *rs = state;
	size_t i;

	if (WARDEN_REQUEST_HAS(req, program_writable) && req->program_writable &&
	    rs->writable != 0) {
		if (rs->writable == WARDEN_DECISION_REJECTED)
			WARDEN_PLUGIN_ERR(err, errlen, "%s lies under a writable "
			                  "root (writable_program = reject)",
			                  req->program);
		return rs->writable;
	}
	for (i = 0; i < rs->n; i++) {
		if (fnmatch(rs->r[i].tool, req->tool, 0) == 0 &&
		    fnmatch(rs->r[i].glob, req->subject, 0) == 0) {
			/* The reason: the rule that matched, and where. */
			WARDEN_PLUGIN_ERR(err, errlen, "%s", rs->r[i].where);
			return rs->r[i].allow ? WARDEN_DECISION_ALLOWED_ONCE
			                      : WARDEN_DECISION_REJECTED;
		}
	}
	return WARDEN_DECISION_DELEGATE;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "rules",
	.version = "1.0",
	.description = "allow/deny TOOL:GLOB patterns, first match decides",
	.open = rules_open,
	.close = rules_close,
	.decide = rules_decide,
};
