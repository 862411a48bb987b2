/*
 * ops.h — warden's operations, one function each, for every face.
 *
 * Each operation reads the config (op->config_path, NULL: the default),
 * acts on op->session_id where it needs a session, and returns what it
 * found or did as a JSON value (a new reference), or NULL with op->err
 * set: a code (enum warden_status), one line in the operation's own words
 * (never a face's: no command-line option, no JSON-RPC method), and in
 * op->field the parameter at fault when one is (NULL otherwise).
 *
 * The faces only format: the CLI prints the value as text or --json, and
 * `warden serve` returns it as the result (an error as {code, message,
 * data: {field}}).  An operation that writes does so in one append, after
 * every argument was checked; an error writes nothing.  Parameter names
 * (op->field) are those of the serve protocol: session, cwd, mode,
 * policy, network, dir, grant, name.
 */
#ifndef WARDEN_OPS_H
#define WARDEN_OPS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct json_t;
struct warden_config;

struct warden_op {
	const char *config_path;  /* NULL: the default config */
	const char *session_id;   /* NULL or "": none given */
	struct warden_error err;  /* why, when an operation returns NULL */
	const char *field;        /* the parameter at fault, or NULL */
	const struct warden_config *cfg; /* NULL: load config_path for each
	                                    operation; else this one (kept) */
	const volatile sig_atomic_t *cancel; /* NULL, or a flag that, once
	                                    set, stops a write not yet made
	                                    (WARDEN_EREFUSED) */
};

/* A struct warden_op for a config path and a session (either NULL). */
#define WARDEN_OP_INIT(config_path, session_id) \
	{ (config_path), (session_id), { 0, "" }, NULL, NULL, NULL }

/* The knobs an operation sets (warden_op_knob_set). */
enum warden_op_knob {
	WARDEN_OP_MODE = 1,
	WARDEN_OP_POLICY = 2,
	WARDEN_OP_NETWORK = 3,
};

/* {session}: a new session whose root is cwd (NULL: the current
 * directory). */
struct json_t *warden_op_session_new(struct warden_op *op, const char *cwd);

/* The session's events: the whole log is checked first, then fn gets each
 * event (borrowed) in order; a negative return from fn stops it.  0 or
 * -code with op->err set. */
int warden_op_session_show(struct warden_op *op,
                           int (*fn)(uint64_t line_no, struct json_t *event, void *ud),
                           void *ud);

/* {session, mode, network, policy, preset, root: {value, source},
 * roots: {value, source, notes} or {value: null, error}, grants}. */
struct json_t *warden_op_session_state(struct warden_op *op);

/* {session, KNOB: value, changed, message}: records the knob (mode,
 * policy or network; field: "mode", "policy", "network") unless the
 * session already records that value. */
struct json_t *warden_op_knob_set(struct warden_op *op, int knob, const char *value);

/* {session (or null), network, source, mode}: the effective network;
 * without a session, what a run without one would get. */
struct json_t *warden_op_network(struct warden_op *op);

/* {session (or null), root, source, roots, notes}. */
struct json_t *warden_op_roots_list(struct warden_op *op);

/* {session, dir (resolved), changed, message}: dir added to (add) or
 * taken out of the session's writable roots. */
struct json_t *warden_op_roots_change(struct warden_op *op, const char *dir, int add);

/* {session, grants}. */
struct json_t *warden_op_grant_list(struct warden_op *op);

/* {session, grant, message}: an approval/revoke of grant. */
struct json_t *warden_op_grant_revoke(struct warden_op *op, const char *grant);

/* [{name, sandbox, approval, network, label, description (, current
 * with a session)}]: the presets in declaration order. */
struct json_t *warden_op_preset_list(struct warden_op *op);

/* {session, preset, changed, message}. */
struct json_t *warden_op_preset_select(struct warden_op *op, const char *name);

/* {preset, source, sandbox, approval, network}. */
struct json_t *warden_op_preset_current(struct warden_op *op);

/* approve: one approval request through the waterfall, audited in the
 * session (required).  With command (SHELL -c COMMAND) or argv the
 * request is about that command, described as `run --escalate` would
 * (program.h), cwd its directory; tool then defaults to "bash" and
 * subject to the command. */
struct warden_op_approve {
	const char *tool, *subject, *reason, *call_id;
	const char *mode;           /* an escalation's mode, or NULL */
	long deadline_ms;           /* 0: none; else 1 to 86400000 */
	const char *command;        /* or NULL */
	const char *const *argv;    /* or NULL */
	size_t argc;
	const char *cwd;            /* with a command, or NULL */
};

/* {request_id, outcome, answerer, reason, delegated (, grant) (, command:
 * what to run)}, whatever the outcome; an error when the request could
 * not be asked or audited (nothing was decided), 126 or 127 when the
 * command's program is not executable or not found. */
struct json_t *warden_op_approve(struct warden_op *op, const struct warden_op_approve *a);

/* The exit status an approve outcome stands for: 0 allowed, 1 rejected,
 * 2 cancelled, 3 unavailable. */
int warden_op_approve_status(const struct json_t *result);

/* confine: the argv that runs argv inside the sandbox, not run. */
struct warden_op_confine {
	const char *const *argv;
	size_t argc;
	const char *mode;           /* read-only or workspace-write, or NULL */
	const char *network;        /* restricted or enabled, or NULL */
	const char *root;           /* absolute, or NULL */
	const char *backend;        /* only this [backend NAME], or NULL */
	int status_fd;              /* > 2: the status pipe's descriptor, or -1 */
};

/* {argv, backend, mode, mode_source, root, root_source, session,
 * enforcement, detail, writable_roots, roots, roots_notes, tmp_dir,
 * privilege_dropped, evidence, status_fd, denial_signatures,
 * runner_failure_rules, network, network_source, network_enforcement,
 * network_detail}.  argv_out (may be NULL): the confined argv's bytes
 * as they are, NULL-ended (free with warden_op_confine_argv_free). */
struct json_t *warden_op_confine(struct warden_op *op, const struct warden_op_confine *a,
                                 char ***argv_out, size_t *argc_out);
void warden_op_confine_argv_free(char **argv);

/* {config, plugins: [{section, instance, plugin, line, status, reason,
 * path, abi, name, version (, isolation) (, probes: {read-only,
 * workspace-write: {usable, enforcement, privilege_dropped, detail,
 * network, network_detail, deny_read_held}})}]}: every configured
 * plugin, each loaded, opened and probed in a throwaway child. */
struct json_t *warden_op_plugins(struct warden_op *op);

/* {ok: true, config, default_mode, approval_policy, workspace_root,
 * require_full, state_dir, plugin_dir, durability, backends, answerers,
 * rules, presets, presets_builtin, inputs, inputs_under_workspace_root,
 * deny_read_defaults, deny_read}: the config read again (op->cfg is not
 * used) and checked as every operation will, the rules plugin's sections
 * included; a bad config is WARDEN_ECONFIG with file:line. */
struct json_t *warden_op_config_check(struct warden_op *op);

#endif
