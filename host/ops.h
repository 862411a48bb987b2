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
};

/* A struct warden_op for a config path and a session (either NULL). */
#define WARDEN_OP_INIT(config_path, session_id) \
	{ (config_path), (session_id), { 0, "" }, NULL, NULL }

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

#endif
