/*
 * cli_serve.c — `warden serve [--socket PATH]` (DESIGN §8): every
 * operation of the command line over one JSON-RPC 2.0 connection
 * (host/server.h), on stdio or on a unix socket.
 *
 * No operation has a second implementation here.  `run` calls the
 * consumer (host/run.h) in a worker of the server, streaming the
 * command's output as notifications; every other method calls its
 * operation (host/ops.h) in a worker and answers with the JSON the
 * operation returns, or with a JSON-RPC error whose code is the
 * operation's status, whose message is the method's name and the
 * operation's own words, and whose data names the parameter at fault
 * ({field}) when one is.  Nothing printed is parsed: the CLI formats the
 * same operations for people.  Approvals that the built-in answerer `client`
 * asks go to the client as `approval.ask` requests; one that becomes
 * void before the client replied (its run cancelled or ended, no reply
 * in time, the client gone) is withdrawn with an `approval.withdrawn`
 * notification naming it.
 *
 * The socket: created 0600 in a directory that no other user can write
 * to (group- or other-writable only with the sticky bit, owned by this
 * user or root), so that nobody else can put their own socket in its
 * place; a connection is served only when its peer (SO_PEERCRED) is this
 * user, is not a process this server started (a confined command), and
 * lives in this server's mount and PID namespaces (a sandboxed process
 * elsewhere does not).  Each connection is served by a fork of the
 * server, after the backends were opened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include <warden/plugin.h>

#include "cli.h"
#include "ops.h"
#include "run.h"
#include "server.h"
#include "session.h"
#include "text.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

struct opcall;

struct serve {
	struct warden_cli *cli;
	const struct warden_config *cfg;
	/* This connection's writes (knobs, roots, grants, presets) are made
	 * one after the other, in the order they came: the one going on,
	 * and those waiting for it. */
	struct opcall *writing;
	struct opcall *queue, **queue_end;
	size_t queued;
};

/* The most writes one connection may have waiting. */
#define WRITES_QUEUED_MAX 256

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--config FILE] [--session ID] serve [--socket PATH]\n"
	        "\n"
	        "Serves every warden operation over JSON-RPC 2.0, one JSON object\n"
	        "per line: on stdin/stdout, or with --socket on a unix socket at\n"
	        "PATH (mode 0600; only this user connects, never a command that\n"
	        "runs in a sandbox).  Methods: session.new, session.show,\n"
	        "session.state, mode.set, network, network.set, roots.list,\n"
	        "roots.add, roots.remove, grant.list, grant.revoke, policy.set,\n"
	        "preset.list, preset.select, preset.current, config.check,\n"
	        "plugins, confine, approve, run, cancel.  A run's output comes as run.output notifications\n"
	        "(base64, numbered by seq across both streams; at most output_limit\n"
	        "bytes, head and tail, a run.left_out notification between them),\n"
	        "its result as the response; approvals asked of the\n"
	        "client come as approval.ask requests, and approval.withdrawn\n"
	        "notifications void those no longer asked.  Each method's params,\n"
	        "result and errors: warden(1), PROTOCOL.\n"
	        "\n"
	        "  --socket PATH   listen on a unix socket instead of stdio\n"
	        "  --help          this text\n");
}

/* ---------------------------------------------------------------- base64 */

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *q = out;
	size_t i;

	if (out == NULL)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		*q++ = tab[p[i] >> 2];
		*q++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*q++ = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*q++ = tab[p[i + 2] & 63];
	}
	if (i < n) {
		*q++ = tab[p[i] >> 2];
		if (i + 1 < n) {
			*q++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			*q++ = tab[(p[i + 1] & 15) << 2];
		} else {
			*q++ = tab[(p[i] & 3) << 4];
			*q++ = '=';
		}
		*q++ = '=';
	}
	*q = '\0';
	return out;
}

/* ------------------------------------------------------------ approvals */

/* One approval.ask in flight. */
struct asking {
	unsigned long ask;
	long timeout_ms;
};

static void asked(struct warden_server *srv, void *arg, json_t *result,
                  json_t *error)
{
	struct asking *a = arg;
	const char *d = NULL, *msg = NULL, *scope = NULL;
	json_t *m, *sc;
	int decision;
	char why[300];

	if (result == NULL && error == NULL) {
		snprintf(why, sizeof(why), "no reply from the client within %ld ms",
		         a->timeout_ms);
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR, why);
		free(a);
		return;
	}
	if (error != NULL) {
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR,
		                     "the client answered approval.ask with an error");
		free(a);
		return;
	}
	d = json_string_value(json_object_get(result, "decision"));
	m = json_object_get(result, "message");
	if (m != NULL && !json_is_string(m) && !json_is_null(m))
		d = NULL;
	msg = json_string_value(m);
	sc = json_object_get(result, "scope");
	if (sc != NULL && !json_is_string(sc) && !json_is_null(sc))
		d = NULL;
	scope = json_string_value(sc);
	if (scope != NULL && (d == NULL || strcmp(d, "allowed-for-session") != 0))
		d = NULL;
	if (d != NULL && strcmp(d, "allowed-once") == 0)
		decision = WARDEN_DECISION_ALLOWED_ONCE;
	else if (d != NULL && strcmp(d, "allowed-for-session") == 0)
		decision = WARDEN_DECISION_ALLOWED_FOR_SESSION;
	else if (d != NULL && strcmp(d, "rejected") == 0)
		decision = WARDEN_DECISION_REJECTED;
	else if (d != NULL && strcmp(d, "cancelled") == 0)
		decision = WARDEN_DECISION_CANCELLED;
	else
		decision = 0;
	if (decision == 0 || !json_is_object(result))
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR,
		                     "the client's reply is malformed (want {\"decision\": \"allowed-once\"|\"allowed-for-session\"|\"rejected\"|\"cancelled\", \"scope\": one of the request's grant_scopes (with allowed-for-session), \"message\": \"...\"})");
	else
		warden_server_answer_scope(srv, a->ask, decision, scope, msg);
	free(a);
}

/* Asks the client: approval.ask {id, request}. */
static void ask_client(struct warden_server *srv, json_t *id, unsigned long ask,
                       json_t *request, long timeout_ms)
{
	struct asking *a = malloc(sizeof(*a));

	if (a == NULL) {
		warden_server_answer(srv, ask, WARDEN_DECISION_ERROR, "out of memory");
		return;
	}
	a->ask = ask;
	a->timeout_ms = timeout_ms;
	if (warden_server_ask_request(srv, ask, "approval.ask",
	                              json_pack("{s:O,s:O,s:I}", "id", id,
	                                        "request", request, "timeout_ms",
	                                        (json_int_t)timeout_ms),
	                              timeout_ms, asked, a) < 0) {
		free(a);
		warden_server_answer(srv, ask, WARDEN_DECISION_ERROR,
		                     "the client cannot be asked");
	}
}

/* The approval.ask sent under request_id is void: approval.withdrawn
 * {ask, id, reason}, ask the approval.ask's JSON-RPC id, id the call's. */
static void withdraw_client(struct warden_server *srv, json_t *id,
                            json_t *request_id, const char *why)
{
	warden_server_notify(srv, "approval.withdrawn",
	                     json_pack("{s:o,s:O,s:s}", "ask", request_id,
	                               "id", id != NULL ? id : json_null(),
	                               "reason", why));
}

/* -------------------------------------------------------------- params */

/* A params error: -32602 with the message; returns -1. */
static int bad_params(struct warden_server *srv, json_t *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad_params(struct warden_server *srv, json_t *id, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (id != NULL)
		warden_server_error(srv, id, WARDEN_RPC_INVALID_PARAMS, msg, NULL);
	return -1;
}

/* Checks that params is an object (or absent) with only these keys. */
static int check_keys(struct warden_server *srv, json_t *id, const char *method,
                      json_t *params, const char *const *keys)
{
	const char *k;
	json_t *v;
	size_t i;

	if (params == NULL)
		return 0;
	if (!json_is_object(params))
		return bad_params(srv, id, "%s: params must be an object", method);
	json_object_foreach(params, k, v) {
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(keys[i], k) == 0)
				break;
		if (keys[i] == NULL)
			return bad_params(srv, id, "%s: unknown parameter '%s'", method, k);
	}
	return 0;
}

/* The string parameter key: *out NULL when absent; -1 (answered) when
 * it is not a string without NUL bytes, or missing and required. */
static int str_param(struct warden_server *srv, json_t *id, const char *method,
                     json_t *params, const char *key, int required,
                     const char **out)
{
	json_t *v = params != NULL ? json_object_get(params, key) : NULL;

	*out = NULL;
	if (v == NULL || json_is_null(v)) {
		if (required)
			return bad_params(srv, id, "%s: parameter '%s' is required", method, key);
		return 0;
	}
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
		return bad_params(srv, id, "%s: parameter '%s' must be a string (without NUL bytes)",
		                  method, key);
	*out = json_string_value(v);
	return 0;
}

static int bool_param(struct warden_server *srv, json_t *id, const char *method,
                      json_t *params, const char *key, int *out)
{
	json_t *v = params != NULL ? json_object_get(params, key) : NULL;

	*out = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return bad_params(srv, id, "%s: parameter '%s' must be true or false", method, key);
	*out = json_is_true(v);
	return 0;
}

/* The session a method acts on: params "session", else serve's own. */
static int session_param(struct serve *sv, struct warden_server *srv, json_t *id,
                         const char *method, json_t *params, const char **out)
{
	if (str_param(srv, id, method, params, "session", 0, out) < 0)
		return -1;
	if (*out != NULL && (*out)[0] == '\0')
		return bad_params(srv, id, "%s: parameter 'session' is empty (give a session id, or leave it out for the one serve was started with)",
		                  method);
	if (*out == NULL)
		*out = sv->cli->session_id;
	return 0;
}

/* ----------------------------------------------------------- operations */

/*
 * Every method but run is an operation of ops.h (or of the module that
 * owns it) called in a worker of the server, so that one that loads
 * plugins, waits on a session's lock or asks the client for an approval
 * never holds up the connection.  The worker answers with the
 * operation's own JSON (warden_server_job_answer): {result} or {error:
 * {code, message, field}}; nothing it prints is read.
 */
typedef json_t *(*op_fn)(struct warden_op *op, json_t *params);

static json_t *op_approve(struct warden_op *op, json_t *params);

struct opcall {
	json_t *id, *params;
	const char *method;
	op_fn fn;
	struct warden_op op;
	char *session;
	struct serve *sv;
	int write;              /* made in turn with the connection's others */
	struct opcall *next;    /* in sv->queue */
};

static void opcall_free(struct opcall *c)
{
	json_decref(c->id);
	json_decref(c->params);
	free(c->session);
	free(c);
}

static int opcall_job(void *arg)
{
	struct opcall *c = arg;
	json_t *v;

	warden_error_clear(&c->op.err);
	c->op.field = NULL;
	c->op.cancel = warden_server_job_cancel();
	/* A cancel stops a wait for a session's log, but approve's: its
	 * audit is written whatever the outcome. */
	warden_session_cancel_on(c->fn != op_approve ? c->op.cancel : NULL);
	v = c->fn(&c->op, c->params);
	if (v != NULL)
		warden_server_job_answer(json_pack("{s:o}", "result", v));
	else
		warden_server_job_answer(json_pack("{s:{s:i,s:o,s:o}}", "error",
		                                   "code", c->op.err.code ? c->op.err.code : WARDEN_EINTERNAL,
		                                   "message", warden_json_string_lossy(c->op.err.msg[0] ? c->op.err.msg : "failed"),
		                                   "field", c->op.field != NULL ? json_string(c->op.field) : json_null()));
	return 0;
}

static void opcall_ask(struct warden_server *srv, void *arg, unsigned long ask,
                       json_t *request, long timeout_ms)
{
	ask_client(srv, ((struct opcall *)arg)->id, ask, request, timeout_ms);
}

static void opcall_withdraw(struct warden_server *srv, void *arg,
                            json_t *request_id, const char *why)
{
	withdraw_client(srv, ((struct opcall *)arg)->id, request_id, why);
}

static void launch(struct warden_server *srv, struct opcall *c);
static struct opcall *next_write(struct serve *sv);

static void opcall_done(struct warden_server *srv, void *arg,
                        const struct warden_server_outcome *o)
{
	struct opcall *c = arg;
	struct serve *sv = c->sv;
	json_t *res = json_object_get(o->answer, "result");
	json_t *e = json_object_get(o->answer, "error");
	char msg[WARDEN_ERROR_MAX + 64];
	const char *field;

	/* What the operation answered stands, cancelled or not: a write it
	 * made is never reported as not made. */
	if (o->r < 0) {
		snprintf(msg, sizeof(msg), "%s: %s", c->method, o->err.msg);
		warden_server_error(srv, c->id, o->status, msg, NULL);
	} else if (res != NULL) {
		warden_server_result(srv, c->id, json_incref(res));
	} else if (json_is_object(e)) {
		snprintf(msg, sizeof(msg), "%s: %s", c->method,
		         json_string_value(json_object_get(e, "message")) != NULL
		         ? json_string_value(json_object_get(e, "message")) : "failed");
		field = json_string_value(json_object_get(e, "field"));
		warden_server_error(srv, c->id, (int)json_integer_value(json_object_get(e, "code")),
		                    msg, field != NULL ? json_pack("{s:s}", "field", field) : NULL);
	} else {
		snprintf(msg, sizeof(msg), "%s: the call's worker ended without an answer", c->method);
		warden_server_error(srv, c->id, WARDEN_RPC_INTERNAL_ERROR, msg, NULL);
	}
	if (sv->writing == c) {
		/* The next write of the connection, now. */
		sv->writing = NULL;
		launch(srv, next_write(sv));
	}
	opcall_free(arg);
}

static const struct warden_server_run_ops opcall_ops = {
	NULL, NULL, opcall_ask, opcall_done, NULL, opcall_withdraw, NULL,
};

/* The connection's next write, off its queue (NULL: none). */
static struct opcall *next_write(struct serve *sv)
{
	struct opcall *c = sv->queue;

	if (c != NULL) {
		sv->queue = c->next;
		if (sv->queue == NULL)
			sv->queue_end = &sv->queue;
		c->next = NULL;
		sv->queued--;
	}
	return c;
}

/* 1 when a write of that id waits on the connection's queue. */
static int queued_id(const struct serve *sv, json_t *id)
{
	const struct opcall *q;

	for (q = sv->queue; q != NULL; q = q->next)
		if (json_equal(q->id, id))
			return 1;
	return 0;
}

/* Refuses a call whose id a call going on or a queued write has: 1 when
 * it was refused (answered), else 0. */
static int refuse_id_in_use(struct serve *sv, struct warden_server *srv, json_t *id,
                            const char *method)
{
	char msg[256];

	if (!warden_server_busy(srv, id) && !queued_id(sv, id))
		return 0;
	snprintf(msg, sizeof(msg), "%s: a call with that id is still going on", method);
	warden_server_error(srv, id, WARDEN_RPC_INVALID_REQUEST, msg, NULL);
	return 1;
}

/* Starts c in a worker; one that cannot start is answered and freed, and
 * when it was a write, the next write is started in its place. */
static void launch(struct warden_server *srv, struct opcall *c)
{
	struct warden_error err = { 0, "" };
	char msg[WARDEN_ERROR_MAX + 64];
	struct opcall *next;

	for (; c != NULL; c = next) {
		warden_error_clear(&err);
		if (warden_server_job(srv, c->id, opcall_job, c, &opcall_ops, c, &err) == 0) {
			if (c->write)
				c->sv->writing = c;
			return;
		}
		/* A request the server cannot take (its id is in use) is
		 * the client's; anything else (no descriptors, no fork) is
		 * the system's, and says so. */
		snprintf(msg, sizeof(msg), "%s: %s", c->method, err.msg);
		warden_server_error(srv, c->id, err.code == WARDEN_EUSAGE
		                    ? WARDEN_RPC_INVALID_REQUEST : err.code, msg, NULL);
		next = c->write && c->sv->writing == NULL ? next_write(c->sv) : NULL;
		opcall_free(c);
	}
}

/* Starts fn(op, params) for the call id of method on session (or none);
 * a write waits for the connection's write going on, if any. */
static void start_call(struct serve *sv, struct warden_server *srv, json_t *id,
                       const char *method, op_fn fn, const char *session,
                       json_t *params, int write)
{
	struct opcall *c;

	if (id == NULL)
		return; /* a notification: nothing to answer, nothing done */
	if (refuse_id_in_use(sv, srv, id, method))
		return;
	c = calloc(1, sizeof(*c));
	if (c == NULL || (session != NULL && (c->session = strdup(session)) == NULL)) {
		free(c);
		warden_server_error(srv, id, WARDEN_EOS, "out of memory", NULL);
		return;
	}
	c->id = json_incref(id);
	c->params = params != NULL ? json_incref(params) : json_object();
	c->method = method;
	c->fn = fn;
	c->sv = sv;
	c->write = write;
	c->op.config_path = sv->cli->config_path;
	/* The config the server started with, which its runs use too
	 * (config.check alone reads the file again: that is its job). */
	c->op.cfg = sv->cfg;
	c->op.session_id = c->session;
	if (write && sv->writing != NULL) {
		if (sv->queued >= WRITES_QUEUED_MAX) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s: too many writes wait already on this connection (wait for their answers)",
			         method);
			warden_server_error(srv, id, WARDEN_RPC_INVALID_REQUEST, msg, NULL);
			opcall_free(c);
			return;
		}
		*sv->queue_end = c;
		sv->queue_end = &c->next;
		sv->queued++;
		return;
	}
	launch(srv, c);
}

static void start_op(struct serve *sv, struct warden_server *srv, json_t *id,
                     const char *method, op_fn fn, const char *session,
                     json_t *params)
{
	start_call(sv, srv, id, method, fn, session, params, 0);
}

static void start_write(struct serve *sv, struct warden_server *srv, json_t *id,
                        const char *method, op_fn fn, const char *session,
                        json_t *params)
{
	start_call(sv, srv, id, method, fn, session, params, 1);
}

/* Takes the queued write of that id off the queue: 1, or 0 when none. */
static int unqueue(struct serve *sv, struct warden_server *srv, json_t *key)
{
	struct opcall **pp, *c;
	char msg[128];

	for (pp = &sv->queue; *pp != NULL; pp = &(*pp)->next) {
		if (!json_equal((*pp)->id, key))
			continue;
		c = *pp;
		*pp = c->next;
		if (*pp == NULL)
			sv->queue_end = pp;
		sv->queued--;
		snprintf(msg, sizeof(msg), "%s: cancelled: nothing was written", c->method);
		warden_server_error(srv, c->id, WARDEN_EREFUSED, msg, NULL);
		opcall_free(c);
		return 1;
	}
	return 0;
}

static const char *param(json_t *params, const char *key)
{
	return json_string_value(json_object_get(params, key));
}

static json_t *op_session_new(struct warden_op *op, json_t *params)
{
	return warden_op_session_new(op, param(params, "cwd"));
}

/* session.show answers at most this much of events' JSON at once (well
 * within what a worker's answer may be): the rest is asked for with
 * "after". */
#define SHOW_PAGE_BYTES (2L * 1024 * 1024)

struct show_page {
	json_t *events;
	json_int_t after;   /* events of a seq above this */
	size_t bytes;
	json_int_t next;    /* 0, or the seq of the last event given */
};

static int collect_event(uint64_t line_no, json_t *event, void *ud)
{
	struct show_page *pg = ud;
	json_int_t seq = json_integer_value(json_object_get(event, "seq"));
	size_t n;

	(void)line_no;
	if (seq <= pg->after || pg->next != 0)
		return 0;
	n = json_dumpb(event, NULL, 0, JSON_COMPACT) + 1;
	if (json_array_size(pg->events) > 0 && pg->bytes + n > SHOW_PAGE_BYTES) {
		/* Full: the page ends with the event before this one. */
		pg->next = json_integer_value(json_object_get(
			json_array_get(pg->events, json_array_size(pg->events) - 1), "seq"));
		return 0;
	}
	pg->bytes += n;
	return json_array_append(pg->events, event) == 0 ? 0 : -WARDEN_EOS;
}

static json_t *op_session_show(struct warden_op *op, json_t *params)
{
	struct show_page pg = { json_array(), 0, 0, 0 };

	pg.after = json_integer_value(json_object_get(params, "after"));
	if (pg.events == NULL || warden_op_session_show(op, collect_event, &pg) < 0) {
		json_decref(pg.events);
		if (op->err.code == 0)
			warden_error_set(&op->err, WARDEN_EOS, "out of memory");
		return NULL;
	}
	return json_pack("{s:s,s:o,s:o}", "session", op->session_id, "events", pg.events,
	                 "next_after", pg.next != 0 ? json_integer(pg.next) : json_null());
}

static json_t *op_session_state(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_session_state(op);
}

static json_t *op_mode_set(struct warden_op *op, json_t *params)
{
	return warden_op_knob_set(op, WARDEN_OP_MODE, param(params, "mode"));
}

static json_t *op_policy_set(struct warden_op *op, json_t *params)
{
	return warden_op_knob_set(op, WARDEN_OP_POLICY, param(params, "policy"));
}

static json_t *op_network_set(struct warden_op *op, json_t *params)
{
	return warden_op_knob_set(op, WARDEN_OP_NETWORK, param(params, "network"));
}

static json_t *op_network(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_network(op);
}

static json_t *op_roots_list(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_roots_list(op);
}

static json_t *op_roots_add(struct warden_op *op, json_t *params)
{
	return warden_op_roots_change(op, param(params, "dir"), 1);
}

static json_t *op_roots_remove(struct warden_op *op, json_t *params)
{
	return warden_op_roots_change(op, param(params, "dir"), 0);
}

static json_t *op_grant_list(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_grant_list(op);
}

static json_t *op_grant_revoke(struct warden_op *op, json_t *params)
{
	return warden_op_grant_revoke(op, param(params, "grant"));
}

static json_t *op_preset_list(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_preset_list(op);
}

static json_t *op_preset_current(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_preset_current(op);
}

static json_t *op_preset_select(struct warden_op *op, json_t *params)
{
	return warden_op_preset_select(op, param(params, "name"));
}

static json_t *op_config_check(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_config_check(op);
}

static json_t *op_plugins(struct warden_op *op, json_t *params)
{
	(void)params;
	return warden_op_plugins(op);
}

/* confine: params checked for their types by m_confine.  The argv comes
 * back as JSON: a client that spawns it must take it from there. */
static json_t *op_confine(struct warden_op *op, json_t *params)
{
	struct warden_op_confine a;
	const char *argv[24];
	json_t *v;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.mode = param(params, "mode");
	a.network = param(params, "network");
	a.root = param(params, "root");
	a.backend = param(params, "backend");
	a.status_fd = -1;
	json_array_foreach(json_object_get(params, "argv"), i, v)
		if (i < 16)
			argv[a.argc++] = json_string_value(v);
	argv[a.argc] = NULL;
	a.argv = argv;
	return warden_op_confine(op, &a, NULL, NULL);
}

/* approve: params checked for their types by m_approve. */
static json_t *op_approve(struct warden_op *op, json_t *params)
{
	struct warden_op_approve a;
	const char *argv[24];
	json_t *v, *d = json_object_get(params, "deadline_ms");
	size_t i;

	memset(&a, 0, sizeof(a));
	a.tool = param(params, "tool");
	a.subject = param(params, "subject");
	a.reason = param(params, "reason");
	a.call_id = param(params, "call_id");
	a.mode = param(params, "mode");
	a.command = param(params, "command");
	a.cwd = param(params, "cwd");
	if (json_is_integer(d)) {
		if (json_integer_value(d) < 1 || json_integer_value(d) > 86400000) {
			warden_error_set(&op->err, WARDEN_EUSAGE, "the deadline is out of range (allowed: 1 to 86400000 ms)");
			op->field = "deadline_ms";
			return NULL;
		}
		a.deadline_ms = (long)json_integer_value(d);
	}
	json_array_foreach(json_object_get(params, "argv"), i, v)
		if (i < 16)
			argv[a.argc++] = json_string_value(v);
	argv[a.argc] = NULL;
	a.argv = a.argc > 0 ? argv : NULL;
	return warden_op_approve(op, &a);
}

/* -------------------------------------------------------------- methods */

static void m_session_new(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "cwd", NULL };
	const char *cwd;

	if (check_keys(srv, id, "session.new", params, keys) < 0 ||
	    str_param(srv, id, "session.new", params, "cwd", 0, &cwd) < 0)
		return;
	(void)cwd;
	start_op(ud, srv, id, "session.new", op_session_new, NULL, params);
}

/* session.show / session.state: the session's id, params or serve's. */
static void session_view(struct warden_server *srv, json_t *id, json_t *params,
                         void *ud, const char *method, op_fn fn)
{
	static const char *const state_keys[] = { "session", NULL };
	static const char *const show_keys[] = { "session", "after", NULL };
	const char *session;
	json_t *after = json_object_get(params, "after");

	if (check_keys(srv, id, method, params, fn == op_session_show ? show_keys : state_keys) < 0 ||
	    session_param(ud, srv, id, method, params, &session) < 0)
		return;
	if (after != NULL && !json_is_null(after) &&
	    (!json_is_integer(after) || json_integer_value(after) < 0)) {
		bad_params(srv, id, "%s: parameter 'after' must be an integer of 0 or more (the next_after of the page before)",
		           method);
		return;
	}
	if (session == NULL || session[0] == '\0') {
		bad_params(srv, id, "%s: no session (give params {\"session\": ID}, or serve --session ID)",
		           method);
		return;
	}
	start_op(ud, srv, id, method, fn, session, params);
}

static void m_session_show(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	session_view(srv, id, params, ud, "session.show", op_session_show);
}

static void m_session_state(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	session_view(srv, id, params, ud, "session.state", op_session_state);
}

/* mode.set, policy.set, network.set: WORD set VALUE. */
static void knob_set(struct warden_server *srv, json_t *id, json_t *params,
                     void *ud, const char *method, const char *key, op_fn fn)
{
	const char *keys[] = { key, "session", NULL };
	const char *value, *session;

	if (check_keys(srv, id, method, params, keys) < 0 ||
	    str_param(srv, id, method, params, key, 1, &value) < 0 ||
	    session_param(ud, srv, id, method, params, &session) < 0)
		return;
	(void)value;
	start_write(ud, srv, id, method, fn, session, params);
}

static void m_mode_set(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	knob_set(srv, id, params, ud, "mode.set", "mode", op_mode_set);
}

static void m_policy_set(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	knob_set(srv, id, params, ud, "policy.set", "policy", op_policy_set);
}

static void m_network_set(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	knob_set(srv, id, params, ud, "network.set", "network", op_network_set);
}

/* network: the effective network and its source (`warden network --json`);
 * without a session, what a run without one would get. */
static void m_network(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "session", NULL };
	const char *session;

	if (check_keys(srv, id, "network", params, keys) < 0 ||
	    session_param(ud, srv, id, "network", params, &session) < 0)
		return;
	start_op(ud, srv, id, "network", op_network, session, params);
}

/* roots.list: the writable roots beside the root (`warden roots list
 * --json`); without a session, the config's. */
static void m_roots_list(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "session", NULL };
	const char *session;

	if (check_keys(srv, id, "roots.list", params, keys) < 0 ||
	    session_param(ud, srv, id, "roots.list", params, &session) < 0)
		return;
	start_op(ud, srv, id, "roots.list", op_roots_list, session, params);
}

/* roots.add / roots.remove {"dir": absolute}: the session's list (a
 * relative dir would resolve against this server's own directory). */
static void roots_change(struct warden_server *srv, json_t *id, json_t *params,
                         void *ud, const char *method, op_fn fn)
{
	const char *keys[] = { "dir", "session", NULL };
	const char *dir, *session;

	if (check_keys(srv, id, method, params, keys) < 0 ||
	    str_param(srv, id, method, params, "dir", 1, &dir) < 0 ||
	    session_param(ud, srv, id, method, params, &session) < 0)
		return;
	if (dir[0] != '/') {
		bad_params(srv, id, "%s: dir must be an absolute path", method);
		return;
	}
	start_write(ud, srv, id, method, fn, session, params);
}

static void m_roots_add(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	roots_change(srv, id, params, ud, "roots.add", op_roots_add);
}

static void m_roots_remove(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	roots_change(srv, id, params, ud, "roots.remove", op_roots_remove);
}

/* grant.list: the session's grants in force (`warden grant list --json`). */
static void m_grant_list(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "session", NULL };
	const char *session;

	if (check_keys(srv, id, "grant.list", params, keys) < 0 ||
	    session_param(ud, srv, id, "grant.list", params, &session) < 0)
		return;
	start_op(ud, srv, id, "grant.list", op_grant_list, session, params);
}

/* grant.revoke {"grant": ID}: an approval/revoke (`warden grant revoke`). */
static void m_grant_revoke(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "grant", "session", NULL };
	const char *grant, *session;

	if (check_keys(srv, id, "grant.revoke", params, keys) < 0 ||
	    str_param(srv, id, "grant.revoke", params, "grant", 1, &grant) < 0 ||
	    session_param(ud, srv, id, "grant.revoke", params, &session) < 0)
		return;
	(void)grant;
	start_write(ud, srv, id, "grant.revoke", op_grant_revoke, session, params);
}

static void m_preset_list(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "session", NULL };
	const char *session;

	if (check_keys(srv, id, "preset.list", params, keys) < 0 ||
	    session_param(ud, srv, id, "preset.list", params, &session) < 0)
		return;
	start_op(ud, srv, id, "preset.list", op_preset_list, session, params);
}

static void m_preset_current(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "session", NULL };
	const char *session;

	if (check_keys(srv, id, "preset.current", params, keys) < 0 ||
	    session_param(ud, srv, id, "preset.current", params, &session) < 0)
		return;
	start_op(ud, srv, id, "preset.current", op_preset_current, session, params);
}

static void m_preset_select(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "name", "session", NULL };
	const char *name, *session;

	if (check_keys(srv, id, "preset.select", params, keys) < 0 ||
	    str_param(srv, id, "preset.select", params, "name", 1, &name) < 0 ||
	    session_param(ud, srv, id, "preset.select", params, &session) < 0)
		return;
	(void)name;
	start_write(ud, srv, id, "preset.select", op_preset_select, session, params);
}

static void m_config_check(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { NULL };

	if (check_keys(srv, id, "config.check", params, keys) < 0)
		return;
	start_op(ud, srv, id, "config.check", op_config_check, NULL, params);
}

static void m_plugins(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { NULL };

	if (check_keys(srv, id, "plugins", params, keys) < 0)
		return;
	start_op(ud, srv, id, "plugins", op_plugins, NULL, params);
}

/* argv: a non-empty array of strings without NUL bytes. */
static int argv_param(struct warden_server *srv, json_t *id, const char *method,
                      json_t *params, const char **argv, size_t max, size_t *argc)
{
	json_t *a = json_object_get(params, "argv"), *v;
	size_t i;

	*argc = 0;
	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > max)
		return bad_params(srv, id, "%s: argv must be an array of 1 to %zu strings",
		                  method, max);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
			return bad_params(srv, id, "%s: argv[%zu] must be a string (without NUL bytes)",
			                  method, i);
		argv[i] = json_string_value(v);
	}
	argv[json_array_size(a)] = NULL;
	*argc = json_array_size(a);
	return 0;
}

static void m_confine(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = {
		"argv", "mode", "network", "root", "backend", "session", NULL,
	};
	const char *argv[24], *mode, *network, *root, *backend, *session;
	size_t argc;

	if (check_keys(srv, id, "confine", params, keys) < 0 ||
	    session_param(ud, srv, id, "confine", params, &session) < 0 ||
	    str_param(srv, id, "confine", params, "mode", 0, &mode) < 0 ||
	    str_param(srv, id, "confine", params, "network", 0, &network) < 0 ||
	    str_param(srv, id, "confine", params, "root", 0, &root) < 0 ||
	    str_param(srv, id, "confine", params, "backend", 0, &backend) < 0 ||
	    argv_param(srv, id, "confine", params, argv, 16, &argc) < 0)
		return;
	if (argc == 0) {
		bad_params(srv, id, "confine: parameter 'argv' is required");
		return;
	}
	(void)mode;
	(void)network;
	(void)root;
	(void)backend;
	start_op(ud, srv, id, "confine", op_confine, session, params);
}

static void m_approve(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = {
		"tool", "subject", "reason", "call_id", "mode", "deadline_ms",
		"command", "argv", "cwd", "session", NULL,
	};
	const char *argv[24], *tool, *subject, *reason, *call_id, *mode, *command,
	           *cwd, *session;
	json_t *d = json_object_get(params, "deadline_ms");
	size_t argc;

	if (check_keys(srv, id, "approve", params, keys) < 0 ||
	    str_param(srv, id, "approve", params, "tool", 1, &tool) < 0 ||
	    str_param(srv, id, "approve", params, "subject", 0, &subject) < 0 ||
	    str_param(srv, id, "approve", params, "reason", 0, &reason) < 0 ||
	    str_param(srv, id, "approve", params, "call_id", 0, &call_id) < 0 ||
	    str_param(srv, id, "approve", params, "mode", 0, &mode) < 0 ||
	    str_param(srv, id, "approve", params, "command", 0, &command) < 0 ||
	    str_param(srv, id, "approve", params, "cwd", 0, &cwd) < 0 ||
	    session_param(ud, srv, id, "approve", params, &session) < 0 ||
	    argv_param(srv, id, "approve", params, argv, 16, &argc) < 0)
		return;
	if (d != NULL && !json_is_null(d) && !json_is_integer(d)) {
		bad_params(srv, id, "approve: deadline_ms must be an integer");
		return;
	}
	(void)argv;
	(void)tool;
	(void)subject;
	(void)reason;
	(void)call_id;
	(void)mode;
	(void)command;
	(void)cwd;
	start_op(ud, srv, id, "approve", op_approve, session, params);
}

/* ------------------------------------------------------------------ run */

/*
 * A run's output as the client gets it: every run.output notification
 * carries "seq", one count across both streams in the order the output
 * came, so that a client can rebuild the interleaving.  At most
 * output_limit bytes of a run reach the client: the first half streams
 * as it comes; past it, the last half is kept (a queue of pieces, oldest
 * trimmed first) and sent when the run ends, after a run.left_out
 * notification that says how many bytes of each stream were left out.
 */
struct piece {
	struct piece *next;
	int fd;                     /* 1 or 2 */
	size_t off, len;            /* what is still kept: data[off..len) */
	char data[];
};

struct running {
	json_t *id;
	unsigned long long seq;     /* the last one sent */
	size_t half;                /* output_limit / 2 */
	size_t sent;                /* bytes streamed as the head */
	struct piece *first, *last; /* the tail, oldest first */
	size_t kept;                /* bytes in it */
	unsigned long long total[3], left_out[3]; /* by fd: 1, 2 */
};

static void output_notify(struct warden_server *srv, struct running *x, int fd,
                          const char *p, size_t n)
{
	char *b = base64((const unsigned char *)p, n);

	if (b == NULL)
		return;
	warden_server_notify(srv, "run.output",
	                     json_pack("{s:O,s:I,s:s,s:s}", "id", x->id,
	                               "seq", (json_int_t)++x->seq, "stream",
	                               fd == 1 ? "stdout" : "stderr", "data", b));
	free(b);
}

static void run_output(struct warden_server *srv, void *arg, int fd,
                       const char *p, size_t n)
{
	struct running *x = arg;
	struct piece *q;
	size_t k;

	fd = fd == 2 ? 2 : 1;
	x->total[fd] += n;
	if (x->sent < x->half) {
		k = n < x->half - x->sent ? n : x->half - x->sent;
		output_notify(srv, x, fd, p, k);
		x->sent += k;
		p += k;
		n -= k;
	}
	if (n == 0)
		return;
	if (n > x->half) {
		x->left_out[fd] += n - x->half;
		p += n - x->half;
		n = x->half;
	}
	q = malloc(sizeof(*q) + n);
	if (q == NULL) {
		x->left_out[fd] += n;
		return;
	}
	q->next = NULL;
	q->fd = fd;
	q->off = 0;
	q->len = n;
	memcpy(q->data, p, n);
	if (x->last != NULL)
		x->last->next = q;
	else
		x->first = q;
	x->last = q;
	x->kept += n;
	/* Trim the oldest down to the last half. */
	while (x->kept > x->half) {
		struct piece *f = x->first;
		size_t drop = f->len - f->off;

		if (drop > x->kept - x->half)
			drop = x->kept - x->half;
		f->off += drop;
		x->kept -= drop;
		x->left_out[f->fd] += drop;
		if (f->off == f->len) {
			x->first = f->next;
			if (x->first == NULL)
				x->last = NULL;
			free(f);
		}
	}
}

/* At the end: what was left out, then the tail. */
static void output_flush(struct warden_server *srv, struct running *x)
{
	struct piece *q;

	if (x->left_out[1] + x->left_out[2] > 0)
		warden_server_notify(srv, "run.left_out",
		                     json_pack("{s:O,s:I,s:I,s:I,s:I}", "id", x->id,
		                               "seq", (json_int_t)++x->seq,
		                               "bytes", (json_int_t)(x->left_out[1] + x->left_out[2]),
		                               "stdout", (json_int_t)x->left_out[1],
		                               "stderr", (json_int_t)x->left_out[2]));
	while ((q = x->first) != NULL) {
		output_notify(srv, x, q->fd, q->data + q->off, q->len - q->off);
		x->first = q->next;
		free(q);
	}
	x->last = NULL;
	x->kept = 0;
}

static void running_free(struct running *x)
{
	struct piece *q;

	while ((q = x->first) != NULL) {
		x->first = q->next;
		free(q);
	}
	json_decref(x->id);
	free(x);
}

static void run_notice(struct warden_server *srv, void *arg, const char *line)
{
	struct running *x = arg;

	warden_server_notify(srv, "run.notice",
	                     json_pack("{s:O,s:o}", "id", x->id, "line",
	                               warden_json_string_lossy(line)));
}

static void run_ask(struct warden_server *srv, void *arg, unsigned long ask,
                    json_t *request, long timeout_ms)
{
	ask_client(srv, ((struct running *)arg)->id, ask, request, timeout_ms);
}

static void run_done(struct warden_server *srv, void *arg,
                     const struct warden_server_outcome *o)
{
	struct running *x = arg;

	output_flush(srv, x);
	if (o->r < 0) {
		warden_server_error(srv, x->id, o->cancelled ? WARDEN_EREFUSED : o->status,
		                    o->cancelled ? "cancelled" : o->err.msg,
		                    json_pack("{s:i,s:b}", "status", o->status,
		                              "cancelled", o->cancelled));
	} else {
		json_t *res = json_deep_copy(o->report);

		if (res != NULL) {
			json_object_set_new(res, "cancelled", json_boolean(o->cancelled));
			json_object_set_new(res, "output", json_pack(
				"{s:I,s:I,s:I,s:I,s:I}", "limit", (json_int_t)(x->half * 2),
				"stdout_bytes", (json_int_t)x->total[1],
				"stderr_bytes", (json_int_t)x->total[2],
				"stdout_left_out", (json_int_t)x->left_out[1],
				"stderr_left_out", (json_int_t)x->left_out[2]));
		}
		warden_server_result(srv, x->id, res);
	}
	running_free(x);
}

static void run_withdraw(struct warden_server *srv, void *arg,
                         json_t *request_id, const char *why)
{
	withdraw_client(srv, ((struct running *)arg)->id, request_id, why);
}

static const struct warden_server_run_ops run_ops = {
	run_output, run_notice, run_ask, run_done, NULL, run_withdraw, NULL,
};

static void m_run(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = {
		"command", "argv", "timeout_s", "require_full", "cwd", "call_id",
		"escalate", "escalate_network", "justification", "session", "stdin", NULL,
	};
	struct serve *sv = ud;
	struct warden_run_request req;
	struct warden_error err = { 0, "" };
	struct running *x;
	const char *argv[257], *escalate;
	json_t *t = json_object_get(params, "timeout_s");
	size_t argc;

	if (id == NULL)
		return;
	memset(&req, 0, sizeof(req));
	req.cwd_from_root = 1;
	if (check_keys(srv, id, "run", params, keys) < 0 ||
	    str_param(srv, id, "run", params, "command", 0, &req.command) < 0 ||
	    argv_param(srv, id, "run", params, argv, 256, &argc) < 0 ||
	    bool_param(srv, id, "run", params, "require_full", &req.require_full) < 0 ||
	    str_param(srv, id, "run", params, "cwd", 0, &req.cwd) < 0 ||
	    str_param(srv, id, "run", params, "call_id", 0, &req.call_id) < 0 ||
	    str_param(srv, id, "run", params, "escalate", 0, &escalate) < 0 ||
	    bool_param(srv, id, "run", params, "escalate_network", &req.escalate_network) < 0 ||
	    str_param(srv, id, "run", params, "justification", 0, &req.justification) < 0 ||
	    str_param(srv, id, "run", params, "stdin", 0, &req.stdin_text) < 0 ||
	    session_param(sv, srv, id, "run", params, &req.session_id) < 0)
		return;
	if (req.stdin_text != NULL && strlen(req.stdin_text) > WARDEN_RUN_STDIN_MAX) {
		bad_params(srv, id, "run: stdin is %zu bytes, more than the %d (1 MiB) a run takes: write it to a file and have the command read that",
		           strlen(req.stdin_text), WARDEN_RUN_STDIN_MAX);
		return;
	}
	if (req.command == NULL && argc == 0) {
		bad_params(srv, id, "run: no command: give command (a shell command) or argv (an array of strings)");
		return;
	}
	if (req.command != NULL && argc > 0) {
		bad_params(srv, id, "run: give either command (a shell command) or argv (an array), not both");
		return;
	}
	if (argc > 0 && argv[0][0] == '\0') {
		bad_params(srv, id, "run: the program name is empty");
		return;
	}
	if (t != NULL && !json_is_null(t)) {
		double v = json_number_value(t);

		if (!json_is_number(t) || !isfinite(v) || v <= 0 ||
		    v > WARDEN_RUN_TIMEOUT_MAX_MS / 1000.0) {
			bad_params(srv, id, "run: timeout_s: give seconds, more than 0 and at most %.0f (e.g. 30 or 0.5)",
			           WARDEN_RUN_TIMEOUT_MAX_MS / 1000.0);
			return;
		}
		req.timeout_ms = (long)(v * 1000.0);
		if (req.timeout_ms < 1)
			req.timeout_ms = 1;
	}
	if (escalate != NULL) {
		req.escalate = warden_mode_parse(escalate);
		if (req.escalate != WARDEN_SANDBOX_WORKSPACE_WRITE &&
		    req.escalate != WARDEN_SANDBOX_DANGER_FULL_ACCESS) {
			bad_params(srv, id, "run: escalate '%s': escalate to workspace-write or danger-full-access",
			           escalate);
			return;
		}
		if (req.justification == NULL || req.justification[0] == '\0') {
			bad_params(srv, id, "run: escalate needs justification (why the command needs that mode)");
			return;
		}
	} else if (req.escalate_network) {
		if (req.justification == NULL || req.justification[0] == '\0') {
			bad_params(srv, id, "run: escalate_network needs justification (why the command needs the network)");
			return;
		}
	} else if (req.justification != NULL) {
		bad_params(srv, id, "run: justification goes with escalate or escalate_network");
		return;
	}
	if (req.call_id != NULL && req.call_id[0] == '\0') {
		bad_params(srv, id, "run: call_id needs the caller's tool-call id");
		return;
	}
	if (req.cwd != NULL && req.cwd[0] == '\0') {
		bad_params(srv, id, "run: cwd needs a directory");
		return;
	}
	req.argv = argc > 0 ? argv : NULL;
	req.argc = argc;
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		warden_server_error(srv, id, WARDEN_EOS, "out of memory", NULL);
		return;
	}
	x->id = json_incref(id);
	x->half = (sv->cfg->output_limit > 0 ? sv->cfg->output_limit
	                                     : WARDEN_OUTPUT_LIMIT_DEFAULT) / 2;
	if (refuse_id_in_use(sv, srv, id, "run")) {
		running_free(x);
		return;
	}
	if (warden_run_request_size_check(&req, &err) < 0) {
		warden_server_error(srv, id, WARDEN_RPC_INVALID_PARAMS, err.msg, NULL);
		running_free(x);
		return;
	}
	if (warden_server_run(srv, id, &req, &run_ops, x, &err) < 0) {
		warden_server_error(srv, id, err.code == WARDEN_EUSAGE
		                    ? WARDEN_RPC_INVALID_REQUEST : err.code, err.msg, NULL);
		running_free(x);
	}
}

static void m_cancel(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	static const char *const keys[] = { "id", NULL };
	json_t *which = json_object_get(params, "id");

	if (check_keys(srv, id, "cancel", params, keys) < 0)
		return;
	if (which == NULL) {
		bad_params(srv, id, "cancel: parameter 'id' (the run's request id) is required");
		return;
	}
	if (!unqueue(ud, srv, which) && warden_server_cancel(srv, which) < 0) {
		if (id != NULL)
			warden_server_error(srv, id, WARDEN_RPC_INVALID_PARAMS,
			                    "cancel: no run with that id is going on", NULL);
		return;
	}
	if (id != NULL)
		warden_server_result(srv, id, json_pack("{s:b}", "cancelled", 1));
}

static const struct warden_server_method methods[] = {
	{ "session.new", m_session_new },
	{ "session.show", m_session_show },
	{ "session.state", m_session_state },
	{ "mode.set", m_mode_set },
	{ "network", m_network },
	{ "network.set", m_network_set },
	{ "roots.list", m_roots_list },
	{ "roots.add", m_roots_add },
	{ "roots.remove", m_roots_remove },
	{ "grant.list", m_grant_list },
	{ "grant.revoke", m_grant_revoke },
	{ "policy.set", m_policy_set },
	{ "preset.list", m_preset_list },
	{ "preset.select", m_preset_select },
	{ "preset.current", m_preset_current },
	{ "config.check", m_config_check },
	{ "plugins", m_plugins },
	{ "confine", m_confine },
	{ "approve", m_approve },
	{ "run", m_run },
	{ "cancel", m_cancel },
	{ NULL, NULL },
};

/* --------------------------------------------------------------- serving */

/* Serves one connection (in_fd, out_fd) to its end. */
static int serve_conn(struct serve *sv, struct warden_consumer *consumer,
                      int in_fd, int out_fd, const int *close_fds,
                      size_t n_close, struct warden_error *err)
{
	struct warden_server_opts o;
	struct warden_server *srv = NULL;
	int r;

	memset(&o, 0, sizeof(o));
	o.in_fd = in_fd;
	o.out_fd = out_fd;
	o.methods = methods;
	o.ud = sv;
	o.consumer = consumer;
	o.close_fds = close_fds;
	o.n_close_fds = n_close;
	if ((r = warden_server_new(&o, &srv, err)) < 0)
		return r;
	r = warden_server_serve(srv, err);
	warden_server_free(srv);
	return r;
}

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Is pid a descendant of this process? -1 when it cannot be told. */
static int descendant(pid_t pid)
{
	pid_t self = getpid();
	int depth;

	for (depth = 0; depth < 4096 && pid > 1; depth++) {
		char path[64], buf[512], *p;
		FILE *f;
		int ppid = -1;

		if (pid == self)
			return 1;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if ((f = fopen(path, "r")) == NULL)
			return -1;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* pid (comm) state ppid: comm may hold anything but ends at
		 * the last ')'. */
		if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %*c %d", &ppid) != 1)
			return -1;
		pid = ppid;
	}
	return 0;
}

/* Does pid live in this process's namespace kind (ns: "mnt", "pid")? */
static int same_ns(pid_t pid, const char *ns)
{
	char a[64], b[64], la[128], lb[128];
	ssize_t na, nb;

	snprintf(a, sizeof(a), "/proc/%d/ns/%s", (int)pid, ns);
	snprintf(b, sizeof(b), "/proc/self/ns/%s", ns);
	na = readlink(a, la, sizeof(la) - 1);
	nb = readlink(b, lb, sizeof(lb) - 1);
	if (na <= 0 || nb <= 0)
		return -1;
	return na == nb && memcmp(la, lb, (size_t)na) == 0;
}

/* Who may connect: this user, from outside every sandbox. 0, or -1 with
 * why filled. */
static int peer_ok(int fd, char *why, size_t len)
{
	struct ucred uc;
	socklen_t sl = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl) < 0) {
		snprintf(why, len, "its credentials cannot be read: %s", strerror(errno));
		return -1;
	}
	if (uc.uid != geteuid()) {
		snprintf(why, len, "uid %u is not the server's (%u)", (unsigned)uc.uid,
		         (unsigned)geteuid());
		return -1;
	}
	if (uc.pid <= 0) {
		snprintf(why, len, "its process is not visible from here");
		return -1;
	}
	switch (descendant(uc.pid)) {
	case 0: break;
	case 1:
		snprintf(why, len, "pid %d is a command this server started", (int)uc.pid);
		return -1;
	default:
		snprintf(why, len, "pid %d cannot be inspected", (int)uc.pid);
		return -1;
	}
	if (same_ns(uc.pid, "mnt") != 1 || same_ns(uc.pid, "pid") != 1) {
		snprintf(why, len, "pid %d lives in another mount or PID namespace (a sandbox)",
		         (int)uc.pid);
		return -1;
	}
	return 0;
}

/* The directory path lies in must be this user's (or root's) and
 * writable by no one else, unless sticky (another user could otherwise
 * rename their own socket over ours, and a client would talk to them). */
static int dir_ok(const char *path, struct warden_error *err)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0)
		return warden_error_errno(err, WARDEN_EUSAGE, errno,
		                          "serve: --socket %s: its directory %s", path, dir);
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "serve: --socket %s: its directory %s belongs to uid %u, who could replace the socket; give a path in a directory of yours",
		                        path, dir, (unsigned)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "serve: --socket %s: its directory %s is writable by others (mode %04o, not sticky), who could replace the socket; give a path in a directory only you can write",
		                        path, dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Makes the listening socket at path, 0600. */
static int listen_at(const char *path, struct warden_error *err)
{
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "serve: --socket %s: the path is longer than %zu bytes (a unix socket's limit); give a shorter one",
		                        path, sizeof(sa.sun_path) - 1);
	if ((r = dir_ok(path, err)) < 0)
		return r;
	if (lstat(path, &st) == 0) {
		int probe;

		if (!S_ISSOCK(st.st_mode))
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "serve: --socket %s: a file that is not a socket is there; remove it or give another path",
			                        path);
		/* A socket nobody serves is left over: replaced. */
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(probe);
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "serve: --socket %s: another server is listening there",
			                        path);
		}
		if (probe >= 0)
			close(probe);
		if (unlink(path) < 0)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "serve: --socket %s: cannot remove the old socket", path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return warden_error_errno(err, WARDEN_EOS, errno, "serve: socket");
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0) {
		r = errno;
		close(fd);
		return warden_error_errno(err, WARDEN_EIO, r, "serve: --socket %s: cannot bind", path);
	}
	if (chmod(path, 0600) < 0 || listen(fd, 16) < 0) {
		r = errno;
		close(fd);
		unlink(path);
		return warden_error_errno(err, WARDEN_EIO, r, "serve: --socket %s", path);
	}
	return fd;
}

static int serve_socket(struct serve *sv, struct warden_consumer *consumer,
                        const char *path, struct warden_error *err)
{
	struct sigaction sa, old_term, old_int, old_pipe;
	int lfd, rc = 0;

	/* A stop asked for from the moment the socket exists still removes
	 * it: the handlers come first (opening the backends below takes a
	 * while, and a TERM then used to leave the socket behind). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);
	if ((lfd = listen_at(path, err)) < 0) {
		rc = lfd;
		goto restore;
	}
	/* Backends opened here, once: every connection inherits them. */
	if (!stopping && (rc = warden_consumer_prepare(consumer, err)) < 0) {
		close(lfd);
		unlink(path);
		goto restore;
	}
	if (!stopping)
		warden_text_line(stderr, "warden: serve: listening on %s", path);
	while (!stopping) {
		struct pollfd pf = { lfd, POLLIN, 0 };
		char why[300];
		pid_t pid;
		int c;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (poll(&pf, 1, 500) <= 0)
			continue;
		c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		if (peer_ok(c, why, sizeof(why)) < 0) {
			warden_text_line(stderr, "warden: serve: refused a connection: %s", why);
			close(c);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			struct warden_error e = { 0, "" };

			prctl(PR_SET_PDEATHSIG, SIGTERM);
			sa.sa_handler = SIG_DFL;
			sigaction(SIGTERM, &sa, NULL);
			sigaction(SIGINT, &sa, NULL);
			close(lfd);
			if (serve_conn(sv, consumer, c, c, NULL, 0, &e) < 0)
				warden_text_line(stderr, "warden: serve: %s", e.msg);
			_exit(0);
		}
		if (pid < 0)
			warden_text_line(stderr, "warden: serve: cannot serve a connection: %s",
			                 strerror(errno));
		close(c);
	}
	close(lfd);
	unlink(path);
restore:
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return rc;
}

int warden_cmd_serve(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_consumer *consumer = NULL;
	struct serve sv;
	const char *socket_path = NULL;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", longs, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (optarg[0] == '\0')
				return warden_cli_usage("serve: --socket needs a path");
			socket_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			return warden_cli_usage("serve: unknown option '%s'", argv[optind - 1]);
		default:
			return warden_cli_usage("serve: option '%s' needs an argument", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return warden_cli_usage("serve: unexpected argument '%s'", argv[optind]);
	if (cli->session_id != NULL && cli->session_id[0] != '\0' &&
	    warden_session_id_check(cli->session_id, &err) < 0)
		return warden_cli_fail(&err);
	if (warden_config_load(cli->config_path, &cfg, &err) < 0)
		return warden_cli_fail(&err);
	memset(&sv, 0, sizeof(sv));
	sv.cli = cli;
	sv.cfg = cfg;
	sv.queue_end = &sv.queue;
	if ((r = warden_consumer_new(cfg, &consumer, &err)) == 0)
		r = socket_path != NULL
			? serve_socket(&sv, consumer, socket_path, &err)
			: serve_conn(&sv, consumer, STDIN_FILENO, STDOUT_FILENO, NULL, 0, &err);
	warden_consumer_free(consumer);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	return 0;
}
