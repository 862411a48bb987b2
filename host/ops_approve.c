/*
 * ops_approve.c — the approve operation (ops.h): one approval request
 * through the service (approval.h), audited in the session's log.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "approval.h"
#include "ops.h"
#include "policy.h"
#include "program.h"
#include "run.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

static json_t *str_or_null(const char *s)
{
	return s[0] ? warden_json_string_lossy(s) : json_null();
}

static json_t *names_json(const char *const *names, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, warden_json_string_lossy(names[i]));
	return a;
}

/* What the caller is to run, exactly, when the answer allows it. */
static json_t *command_json(const struct warden_approval_request *req,
                            const struct warden_program *p)
{
	return json_pack("{s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o}",
	                 "argv", names_json(req->argv, req->argc),
	                 "program", warden_json_string_lossy(p->path),
	                 "interpreter", str_or_null(p->interpreter),
	                 "program_writable", p->writable,
	                 "cwd", warden_json_string_lossy(p->dir),
	                 "env_removed", names_json((const char *const *)p->env_removed, p->n_env_removed),
	                 "path_dropped", names_json((const char *const *)p->path_dropped, p->n_path_dropped),
	                 "env_config", names_json((const char *const *)p->env_config, p->n_env_config),
	                 "path", warden_json_string_lossy(warden_program_path_value(p)));
}

static json_t *refuse(struct warden_op *op, const char *field, const char *msg)
{
	warden_error_set(&op->err, WARDEN_EUSAGE, "%s", msg);
	op->field = field;
	return NULL;
}

json_t *warden_op_approve(struct warden_op *op, const struct warden_op_approve *a)
{
	struct warden_approval_request req;
	struct warden_approval_result res;
	struct warden_config *cfg = NULL;
	struct warden_session *s = NULL;
	struct warden_approval *ap = NULL;
	struct warden_program prog;
	struct warden_resolved pol;
	const char *cmd_argv[4] = { NULL, "-c", NULL, NULL };
	char *subject = NULL, why[512];
	json_t *o = NULL, *delegated;
	size_t i;
	int r;

	op->field = NULL;
	memset(&req, 0, sizeof(req));
	req.tool = a->tool;
	req.subject = a->subject;
	req.reason = a->reason;
	req.call_id = a->call_id;
	req.requested_mode = a->mode;
	req.deadline_ms = a->deadline_ms;
	if (a->mode != NULL && warden_mode_parse(a->mode) < 0)
		return refuse(op, "mode", "not a sandbox mode (allowed: read-only, workspace-write, danger-full-access)");
	if (a->deadline_ms < 0 || a->deadline_ms > 86400000L)
		return refuse(op, "deadline_ms", "the deadline is out of range (allowed: 1 to 86400000 ms)");
	if (a->command != NULL && a->argc > 0)
		return refuse(op, "command", "give either a shell command or an argv, not both");
	if (a->argc > 0 && (a->argv == NULL || a->argv[0] == NULL || a->argv[0][0] == '\0'))
		return refuse(op, "argv", "the program name is empty");
	if (a->cwd != NULL && (a->cwd[0] == '\0' || (a->command == NULL && a->argc == 0)))
		return refuse(op, "cwd", "a directory goes with a command (a shell command or an argv) and is not empty");
	if ((a->command != NULL || a->argc > 0) && req.tool == NULL)
		req.tool = "bash";
	if (a->command != NULL && req.subject == NULL)
		req.subject = a->command;
	if (req.tool == NULL || req.tool[0] == '\0')
		return refuse(op, "tool", "no tool named (say which tool wants to act, e.g. bash)");
	if (req.subject == NULL && a->argc == 0)
		return refuse(op, "subject", "no subject (say what the tool wants to do, or give the command)");
	if (op->session_id == NULL || op->session_id[0] == '\0')
		return refuse(op, "session", "no session given: every request is audited in the session's log");
	if (warden_session_id_check(op->session_id, &op->err) < 0) {
		op->field = "session";
		return NULL;
	}

	warden_program_init(&prog);
	if (op->cfg != NULL)
		cfg = (struct warden_config *)op->cfg;
	else if (warden_config_load(op->config_path, &cfg, &op->err) < 0)
		goto out;
	if (warden_session_open(cfg, op->session_id, &s, &op->err) < 0)
		goto out;
	if (a->command != NULL || a->argc > 0) {
		if (a->command != NULL) {
			cmd_argv[0] = cfg->shell != NULL ? cfg->shell : "bash";
			cmd_argv[2] = a->command;
			req.argv = cmd_argv;
			req.argc = 3;
		} else {
			req.argv = a->argv;
			req.argc = a->argc;
		}
		if (req.subject == NULL &&
		    (req.subject = subject = warden_run_subject(req.argv, req.argc)) == NULL) {
			warden_error_set(&op->err, WARDEN_EOS, "out of memory");
			goto out;
		}
		if (warden_policy_resolve_session(cfg, s, 0, &pol, &op->err) < 0)
			goto out;
		r = warden_program_describe(&prog, cfg, req.argv[0], a->cwd, pol.root,
		                            why, sizeof(why), &op->err);
		if (r < 0) {
			op->field = a->cwd != NULL ? "cwd" : NULL;
			goto out;
		}
		if (r > 0) {
			/* 126 or 127, as a shell says of a program it cannot run. */
			warden_error_set(&op->err, r, "%s", why);
			op->field = a->command != NULL ? "command" : "argv";
			goto out;
		}
		req.program = &prog;
	}
	if (warden_approval_new(cfg, &ap, &op->err) < 0 ||
	    warden_approval_ask(ap, s, &req, &res, &op->err) < 0)
		goto out;
	delegated = json_array();
	for (i = 0; delegated != NULL && i < res.n_delegated && i < WARDEN_APPROVAL_DELEGATED_MAX; i++)
		json_array_append_new(delegated, warden_json_string_lossy(res.delegated[i]));
	o = json_pack("{s:s,s:s,s:o,s:o,s:o}", "request_id", res.request_id,
	              "outcome", warden_outcome_name(res.outcome),
	              "answerer", str_or_null(res.answerer),
	              "reason", str_or_null(res.reason), "delegated", delegated);
	if (o != NULL && res.grant[0])
		json_object_set_new(o, "grant", json_pack("{s:s,s:s,s:b}", "id", res.grant,
		                                          "scope", res.grant_scope,
		                                          "new", res.grant_new));
	if (o != NULL && req.program != NULL)
		json_object_set_new(o, "command", command_json(&req, &prog));
	if (o == NULL)
		/* Decided and audited, but not told: the caller refuses. */
		warden_error_set(&op->err, WARDEN_EOS, "out of memory while telling the outcome (it is in the session's log)");
out:
	free(subject);
	warden_program_free(&prog);
	warden_approval_free(ap);
	warden_session_close(s);
	if (cfg != op->cfg)
		warden_config_free(cfg);
	return o;
}

int warden_op_approve_status(const json_t *result)
{
	const char *o = json_string_value(json_object_get(result, "outcome"));

	if (o == NULL)
		return 3;
	if (strcmp(o, warden_outcome_name(WARDEN_OUTCOME_ALLOWED_ONCE)) == 0 ||
	    strcmp(o, warden_outcome_name(WARDEN_OUTCOME_ALLOWED_FOR_SESSION)) == 0)
		return 0;
	if (strcmp(o, warden_outcome_name(WARDEN_OUTCOME_REJECTED)) == 0)
		return 1;
	if (strcmp(o, warden_outcome_name(WARDEN_OUTCOME_CANCELLED)) == 0)
		return 2;
	return 3;
}
