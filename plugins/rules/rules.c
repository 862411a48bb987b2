/*
 * rules.c — the `rules` answerer: decides by rules, without asking
 * anyone.
 *
 *   [answerer rules]
 *   plugin = rules
 *   allow_command = git status
 *   example_match = git status -s
 *   example_not_match = git status; rm -rf ~
 *   deny_command = git push
 *   deny  = bash:rm -rf *
 *   allow = read:*
 *
 * The rules and their order of precedence are ruleset.h's: command rules
 * match the simple commands of a parsed shell command line (shparse.h),
 * the older allow/deny patterns the whole tool:subject string.  Every
 * example must hold when the section is read, or the plugin does not
 * open (and `warden config check` refuses the config for the same
 * reason).  A decision's reason names the rule and where it is written;
 * a request the rules do not settle goes to the next answerer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#include "ruleset.h"

static void rules_close(void *state)
{
	warden_ruleset_free(state);
}

static void *rules_open(const struct warden_open_args *args, char *err,
                        size_t errlen)
{
	struct warden_ruleset *rs;
	const struct warden_kv *kv;
	size_t i;

	rs = warden_ruleset_new(args->config_file, args->instance);
	if (rs == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	for (i = 0; i < args->kv_count; i++) {
		kv = WARDEN_OPEN_ARGS_KV(args, i);
		if (warden_ruleset_add(rs, kv->key, kv->value, kv->line, err,
		                       errlen) < 0) {
			warden_ruleset_free(rs);
			return NULL;
		}
	}
	return rs;
}

static int rules_decide(void *state, const struct warden_request *req,
                        char *err, size_t errlen)
{
	struct warden_rules_request rq;

	memset(&rq, 0, sizeof(rq));
	rq.tool = req->tool;
	rq.subject = req->subject;
	if (WARDEN_REQUEST_HAS(req, argc) && req->argv != NULL) {
		rq.argv = req->argv;
		rq.argc = req->argc;
	}
	rq.program = WARDEN_REQUEST_HAS(req, program) ? req->program : "";
	rq.program_writable = WARDEN_REQUEST_HAS(req, program_writable) &&
	                      req->program_writable;
	return warden_ruleset_decide(state, &rq, err, errlen);
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "rules",
	.version = "1.1",
	.description = "command rules over parsed shell (allow_command, "
	               "deny_command, ask_command) and TOOL:GLOB patterns",
	.open = rules_open,
	.close = rules_close,
	.decide = rules_decide,
};
