/*
 * ops_confine.c — the confine operation (ops.h): the argv that runs a
 * command inside the sandbox, without running it (DESIGN §2, §8).
 *
 * The policy is resolved as for every action: an explicit mode over the
 * session's last sandbox/mode over the config's default_mode; the
 * network likewise; the root is the one given, else the session's cwd,
 * else the configured workspace_root, else the current directory.
 * danger-full-access is never confined: asking for it is an error, not an
 * unconfined argv.  No usable backend is SANDBOX_UNAVAILABLE (69) with
 * each backend's reason.  In workspace-write the writable roots beside
 * the root are the session's or the config's, with a worktree's common
 * directory, as for `warden run` (roots.h).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "denyread.h"
#include "inputs.h"
#include "ops.h"
#include "policy.h"
#include "roots.h"
#include "sandbox.h"
#include "scratch.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, warden_json_string_lossy(v[i]));
	return a;
}

static const char *evidence_name(int evidence)
{
	switch (evidence) {
	case WARDEN_EVIDENCE_BWRAP_JSON:
		return "bwrap-json-status";
	case WARDEN_EVIDENCE_EXEC_PIPE:
		return "exec-pipe";
	default:
		return "none";
	}
}

static json_t *rules_json(const struct warden_confined *c)
{
	json_t *a = json_array();
	size_t i, k;

	for (i = 0; i < c->n_runner_rules; i++) {
		const struct warden_runner_rule *r = &c->runner_rules[i];
		json_t *codes = json_array();

		for (k = 0; k < r->n_exit_codes; k++)
			json_array_append_new(codes, json_integer(r->exit_codes[k]));
		json_array_append_new(a, json_pack(
			"{s:o,s:o,s:o}", "exit_codes", codes,
			"fatal_signatures", strings_json((char *const *)r->fatal_signatures,
			                                 r->n_fatal_signatures),
			"informational_lines", strings_json((char *const *)r->informational_lines,
			                                    r->n_informational_lines)));
	}
	return a;
}

/* The roots beside the workspace root, as `warden run` finds them: the
 * session's list (its sandbox/roots) or the config's writable_roots, with
 * a worktree's common directory (roots.h).  They name paths: the printed
 * argv binds and locks them by path when it starts, like the root. */
static int more_roots(const struct warden_config *cfg,
                      const struct warden_resolved *res,
                      struct warden_roots *roots, struct warden_error *err)
{
	struct warden_session *s = NULL;
	int rc;

	if (res->session_id[0] != '\0' &&
	    (rc = warden_session_open(cfg, res->session_id, &s, err)) < 0)
		return rc;
	rc = warden_roots_resolve(cfg, s != NULL ? warden_session_knobs(s) : NULL,
	                          res->root, roots, err);
	warden_session_close(s);
	return rc;
}

/* What deny_read hides, expanded now, and what is bound over it. */
static int deny_read_policy(const struct warden_config *cfg,
                            const struct warden_resolved *res,
                            struct warden_deny *deny, char void_file[PATH_MAX],
                            char void_dir[PATH_MAX], struct warden_policy *pol,
                            struct warden_error *err)
{
	const char *roots[1 + WARDEN_ROOTS_ALL];
	const char *pattern, *match = NULL;
	size_t n = 0, i;
	int rc;

	void_file[0] = void_dir[0] = '\0';
	roots[n++] = res->root;
	for (i = 0; i < pol->n_more_roots && n < sizeof(roots) / sizeof(*roots); i++)
		roots[n++] = pol->more_roots[i];
	if ((rc = warden_deny_expand(cfg, roots, n, deny, err)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if ((pattern = warden_deny_covers(deny, roots[i], &match)) != NULL)
			return warden_error_set(err, WARDEN_EREFUSED,
			                        "the writable root %s lies in %s, which deny_read = %s keeps unread: choose another root, or take the pattern out of deny_read in %s",
			                        roots[i], match, pattern, cfg->file);
	if (deny->n > 0 && (rc = warden_scratch_voids(void_file, void_dir, err)) < 0)
		return rc;
	pol->deny_read = (const char *const *)deny->paths;
	pol->n_deny_read = deny->n;
	pol->void_file = void_file[0] ? void_file : NULL;
	pol->void_dir = void_dir[0] ? void_dir : NULL;
	return 0;
}

static json_t *confined_json(const struct warden_confined *c,
                             const struct warden_resolved *res, const char *tmp_dir,
                             const struct warden_roots *roots)
{
	json_t *o = json_object();

	json_object_set_new(o, "argv", strings_json(c->argv, c->argc));
	json_object_set_new(o, "backend", warden_json_string_lossy(c->backend));
	json_object_set_new(o, "mode", json_string(warden_mode_name(c->mode)));
	json_object_set_new(o, "mode_source", json_string(warden_source_name(res->mode_source)));
	json_object_set_new(o, "root", warden_json_string_lossy(res->root));
	json_object_set_new(o, "root_source", json_string(warden_source_name(res->root_source)));
	json_object_set_new(o, "session", res->session_id[0]
	                    ? warden_json_string_lossy(res->session_id) : json_null());
	json_object_set_new(o, "enforcement", json_string(warden_enforcement_name(c->enforcement)));
	json_object_set_new(o, "detail", c->detail[0] ? warden_json_string_lossy(c->detail) : json_null());
	json_object_set_new(o, "writable_roots", strings_json(c->writable_roots, c->n_writable_roots));
	/* The roots beside the root as `run --json` names them; empty
	 * outside workspace-write, where none is granted. */
	json_object_set_new(o, "roots", c->mode == WARDEN_SANDBOX_WORKSPACE_WRITE
	                    ? warden_roots_json(roots) : json_array());
	json_object_set_new(o, "roots_notes", warden_roots_notes_json(roots));
	json_object_set_new(o, "tmp_dir", tmp_dir != NULL && c->tmp_held
	                    ? warden_json_string_lossy(tmp_dir) : json_null());
	json_object_set_new(o, "privilege_dropped", json_boolean(c->privilege_dropped));
	json_object_set_new(o, "evidence", json_string(evidence_name(c->evidence)));
	json_object_set_new(o, "status_fd", c->status_fd >= 0 ? json_integer(c->status_fd) : json_null());
	json_object_set_new(o, "denial_signatures",
	                    strings_json(c->denial_signatures, c->n_denial_signatures));
	json_object_set_new(o, "runner_failure_rules", rules_json(c));
	json_object_set_new(o, "network", json_string(warden_network_name(c->network)));
	json_object_set_new(o, "network_source", json_string(warden_source_name(res->network_source)));
	json_object_set_new(o, "network_enforcement",
	                    json_string(warden_enforcement_name(c->network_enforcement)));
	json_object_set_new(o, "network_detail", c->network_detail[0]
	                    ? warden_json_string_lossy(c->network_detail) : json_null());
	return o;
}

static json_t *refuse(struct warden_op *op, const char *field, int code, const char *msg)
{
	warden_error_set(&op->err, code, "%s", msg);
	op->field = field;
	return NULL;
}

json_t *warden_op_confine(struct warden_op *op, const struct warden_op_confine *a,
                          char ***argv_out, size_t *argc_out)
{
	struct warden_error *err = &op->err;
	struct warden_config *cfg = NULL;
	struct warden_sandbox *svc = NULL;
	struct warden_confined *c = NULL;
	struct warden_inputs *inputs = NULL;
	struct warden_resolved res;
	struct warden_policy pol;
	struct warden_scratch scratch;
	struct warden_deny deny;
	struct warden_roots roots;
	char void_file[PATH_MAX], void_dir[PATH_MAX];
	const char *session = op->session_id;
	int mode = 0, network = 0, rc;
	json_t *o = NULL;
	size_t i;

	op->field = NULL;
	if (argv_out != NULL) {
		*argv_out = NULL;
		*argc_out = 0;
	}
	if (a->argc == 0 || a->argv == NULL || a->argv[0] == NULL)
		return refuse(op, "argv", WARDEN_EUSAGE, "no command given");
	if (a->argv[0][0] == '\0')
		return refuse(op, "argv", WARDEN_EUSAGE, "the program name is empty");
	if (a->mode != NULL) {
		mode = warden_mode_parse(a->mode);
		if (mode < 0)
			return refuse(op, "mode", WARDEN_EUSAGE, "not a confining mode (use read-only or workspace-write)");
		if (mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
			return refuse(op, "mode", WARDEN_EUSAGE, "danger-full-access is never confined: that mode runs a command as it is (use read-only or workspace-write)");
	}
	if (a->network != NULL && (network = warden_network_parse(a->network)) < 0)
		return refuse(op, "network", WARDEN_EUSAGE, "not a network setting here (use restricted or enabled)");
	if (network == WARDEN_NETWORK_ALLOWLIST)
		return refuse(op, "network", WARDEN_EUSAGE, "allowlist needs warden's proxy for the life of the command, and confine only gives an argv: run the command through warden (or use restricted or enabled here)");
	if (a->root != NULL && a->root[0] != '/')
		return refuse(op, "root", WARDEN_EUSAGE, "the root is relative: give the absolute path of the workspace");
	if (session != NULL && session[0] == '\0')
		session = NULL;
	if (session != NULL && warden_session_id_check(session, err) < 0)
		return refuse(op, "session", err->code, err->msg);

	warden_scratch_init(&scratch);
	warden_deny_init(&deny);
	warden_roots_init(&roots);
	if (op->cfg != NULL)
		cfg = (struct warden_config *)op->cfg;
	else if (warden_config_load(op->config_path, &cfg, err) < 0)
		return NULL;
	rc = warden_policy_resolve(cfg, session, mode, &res, err);
	if (rc == 0 && res.mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
		rc = warden_error_set(err, WARDEN_EREFUSED,
		                      "the mode is danger-full-access (from the %s), which is never confined: there is no argv to give; ask for read-only or workspace-write, or set the session's mode to one",
		                      warden_source_name(res.mode_source));
	if (rc == 0 && a->root != NULL) {
		rc = warden_root_resolve(a->root, "root", res.root, err);
		if (rc < 0) {
			err->code = WARDEN_EUSAGE;
			op->field = "root";
		}
		res.root_source = WARDEN_SOURCE_EXPLICIT;
	}
	if (rc == 0)
		rc = warden_sandbox_open(cfg, &svc, err);
	if (rc == 0)
		rc = warden_inputs_collect(cfg, &inputs, err);
	if (rc == 0) {
		warden_policy_init(&pol);
		pol.read_only_paths = inputs->paths;
		pol.n_read_only_paths = inputs->n;
		pol.mode = res.mode;
		pol.workspace_root = res.root;
		pol.session_id = res.session_id;
		pol.status_fd = a->status_fd;
		if (network != 0) {
			res.network = network;
			res.network_source = WARDEN_SOURCE_EXPLICIT;
		}
		pol.network = res.network;
		pol.allow_unix_sockets = (const char *const *)cfg->allow_unix_sockets;
		pol.n_allow_unix_sockets = cfg->n_allow_unix_sockets;
		/* A session's temp area outlives this call; a run without
		 * one would need an area removed when it ends, which happens
		 * after warden is gone: none, and /tmp stays read-only. */
		if (res.session_id[0] != '\0')
			rc = warden_scratch_open(&scratch, res.session_id, err);
		if (rc == 0 && scratch.dir[0] != '\0') {
			pol.tmp_dir = scratch.dir;
			pol.tmp_fd = scratch.fd;
			pol.tmp_hide = scratch.parent;
		}
		if (rc == 0)
			rc = more_roots(cfg, &res, &roots, err);
		if (rc == 0 && res.mode == WARDEN_SANDBOX_WORKSPACE_WRITE && roots.n > 0) {
			pol.more_roots = (const char *const *)roots.path;
			pol.more_root_kinds = roots.kind;
			pol.n_more_roots = roots.n;
		}
		if (rc == 0)
			rc = deny_read_policy(cfg, &res, &deny, void_file, void_dir,
			                      &pol, err);
	}
	if (rc == 0) {
		if (a->backend != NULL)
			rc = warden_sandbox_confine_with(svc, a->backend, a->argv, a->argc,
			                                 &pol, &c, err);
		else
			rc = warden_sandbox_confine(svc, a->argv, a->argc, &pol, &c, err);
	}
	if (rc == 0) {
		o = confined_json(c, &res, pol.tmp_dir, &roots);
		if (o == NULL)
			warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	if (o != NULL && argv_out != NULL) {
		/* The argv's bytes as they are (JSON holds them as UTF-8). */
		*argv_out = calloc(c->argc + 1, sizeof(char *));
		for (i = 0; *argv_out != NULL && i < c->argc; i++)
			if (((*argv_out)[i] = strdup(c->argv[i])) == NULL)
				break;
		if (*argv_out == NULL || i < c->argc) {
			warden_op_confine_argv_free(*argv_out);
			*argv_out = NULL;
			json_decref(o);
			o = NULL;
			warden_error_set(err, WARDEN_EOS, "out of memory");
		} else {
			*argc_out = c->argc;
		}
	}
	warden_confined_free(c);
	warden_deny_free(&deny);
	warden_roots_free(&roots);
	warden_scratch_close(&scratch);
	warden_sandbox_free(svc);
	warden_inputs_free(inputs);
	if (cfg != op->cfg)
		warden_config_free(cfg);
	return o;
}

void warden_op_confine_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}
