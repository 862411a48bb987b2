/*
 * server.h — the JSON-RPC 2.0 connection that `warden serve` and `warden
 * mcp` share (DESIGN §8): one client, methods from a table the caller
 * supplies, and runs of the consumer (host/run.h) streamed while they go.
 *
 * Wire.  One JSON object per line, both ways (UTF-8, '\n' ends a message;
 * a line longer than WARDEN_SERVER_LINE_MAX is refused and the
 * connection closed).  The connection is an fd pair: stdin/stdout, or an
 * accepted unix socket given twice.  What the server writes is
 * serialized: every message is written whole, one line, in the order the
 * calls were made (blocking writes: a client that does not read holds the
 * server, and through it the output of its runs, back).
 *
 * Incoming:
 *   - a request ({"jsonrpc":"2.0","id":ID,"method":M,"params":P}) goes to
 *     the table's entry for M with the id; the method answers it with
 *     warden_server_result() or warden_server_error(), at once or later
 *     (a run answers when it ends).  No entry: -32601.
 *   - a notification (no "id") goes to the same entry with id NULL; it
 *     is never answered.
 *   - a response ({"id":ID,"result":R} or {"id":ID,"error":E}) settles
 *     the server's own request of that id (warden_server_request()).
 *   - anything else: -32700 (not JSON) or -32600 (not a request), id null
 *     when none can be read.  Batches (arrays) are -32600.
 *
 * Runs.  warden_server_run() starts one run of the consumer in a worker
 * process (a fork of the server that calls warden_consumer_run(), the
 * same code as `warden run`): its stdin is /dev/null (or, with the
 * request's stdin_text, a sealed in-memory file holding it), its stdout and
 * stderr are pipes the server reads, so every byte the command writes is
 * handed to ops->output() exactly as written (binary, invalid UTF-8, no
 * final newline: the caller encodes them; serve and mcp use base64).
 * Lines the consumer has for the caller's user come to ops->notice(),
 * ops->tick() comes every WARDEN_SERVER_TICK_MS while the run goes on,
 * and the result to ops->done() once the worker ended and both pipes are
 * drained (so no output is ever delivered after done()).  Several runs at
 * once; each is known by its key (the JSON-RPC id of the request that
 * started it).  The worker gets none of the server's descriptors: not the
 * client's connection, not another run's pipes; the command gets only its
 * stdio (host/spawn.h), so a confined command cannot write to the client.
 *
 * Approvals.  In a worker, the built-in answerer `plugin = client`
 * (approval.h) asks the server: ops->ask() gets the request (the same
 * fields an answerer gets, as JSON) and a number; the caller asks its
 * client (serve: a JSON-RPC request; mcp: an elicitation) and settles it
 * with warden_server_answer(), at once or later.  A run with no ops->ask
 * gets a delegation.  An ask still open when its run ends, is cancelled
 * or its client goes away is void: ops->withdraw() tells the client.
 *
 * Cancel.  warden_server_cancel() withdraws a run: SIGTERM to its worker,
 * which forwards it to the command's process group (SIGKILL after the
 * grace period, host/spawn.h) or withdraws an approval it waits for; a
 * worker still there WARDEN_SERVER_KILL_MS later is killed.  done() then
 * says cancelled.
 *
 * Backends are opened once, by warden_server_new() in the server process
 * (warden_consumer_prepare()), and every worker inherits them; a worker
 * whose backend was disproved by a run (run.h) tells the server, which
 * disproves it too, so the next run re-proves it.
 *
 * The end.  warden_server_serve() returns when the client's input ends
 * (or warden_server_stop()): the runs still going are cancelled and
 * waited for, the server's open requests get their reply callback with
 * neither result nor error.  Single-threaded: every callback runs in the
 * serve loop.
 */
#ifndef WARDEN_SERVER_H
#define WARDEN_SERVER_H

#include <signal.h>
#include <stddef.h>

#include "error.h"
#include "run.h"

struct json_t;
struct warden_server;
struct warden_consumer;

/* The longest line read from a client (16 MiB). */
#define WARDEN_SERVER_LINE_MAX (16L * 1024 * 1024)
/* How often ops->tick() is called while a run goes on. */
#define WARDEN_SERVER_TICK_MS 1000
/* After a cancel: how long a worker may take before it is SIGKILLed
 * (spawn's SIGTERM-to-SIGKILL grace, and some). */
#define WARDEN_SERVER_KILL_MS (WARDEN_SPAWN_GRACE_MS + 3000)

/* JSON-RPC error codes. */
#define WARDEN_RPC_PARSE_ERROR (-32700)
#define WARDEN_RPC_INVALID_REQUEST (-32600)
#define WARDEN_RPC_METHOD_NOT_FOUND (-32601)
#define WARDEN_RPC_INVALID_PARAMS (-32602)
#define WARDEN_RPC_INTERNAL_ERROR (-32603)

/* A method: id is the request's (borrowed; NULL for a notification),
 * params its "params" (borrowed; NULL when absent).  It answers through
 * warden_server_result()/warden_server_error() with that id (or later:
 * json_incref() the id to keep it). */
typedef void (*warden_server_method_fn)(struct warden_server *srv,
                                        struct json_t *id,
                                        struct json_t *params, void *ud);

struct warden_server_method {
	const char *name;
	warden_server_method_fn fn;
};

struct warden_server_opts {
	int in_fd;                  /* where the client's lines come from */
	int out_fd;                 /* where the server's lines go (may be
	                               in_fd: a socket) */
	const struct warden_server_method *methods; /* ends with a NULL name */
	void *ud;                   /* for every method */
	struct warden_consumer *consumer; /* for runs (borrowed); NULL: none */
	const int *close_fds;       /* descriptors of the caller's that no
	                               worker may keep (a listening socket) */
	size_t n_close_fds;
	int cancel_at_eof;          /* the end of the client's input cancels
	                               every call (mcp: the client is gone);
	                               0: calls go on and are answered */
};

int warden_server_new(const struct warden_server_opts *o,
                      struct warden_server **out, struct warden_error *err);
/* Serves until the client's input ends; 0, or a negative status with err
 * (a read error; the client is gone either way). */
int warden_server_serve(struct warden_server *srv, struct warden_error *err);
/* Makes warden_server_serve() end after the current callback. */
void warden_server_stop(struct warden_server *srv);
/* Cancels and waits for what still runs; NULL is fine. */
void warden_server_free(struct warden_server *srv);

/* Messages.  Each takes its json_t argument (result, data, params) over
 * (it is decref'd); 0, or -1 when the client cannot be written to (the
 * server then stops). */
int warden_server_result(struct warden_server *srv, struct json_t *id,
                         struct json_t *result);
int warden_server_error(struct warden_server *srv, struct json_t *id,
                        int code, const char *message, struct json_t *data);
int warden_server_notify(struct warden_server *srv, const char *method,
                         struct json_t *params);

/*
 * A request from the server to the client.  fn is called exactly once:
 * with the reply's result or error (borrowed), or with both NULL when no
 * reply came within timeout_ms (> 0; 0: none) or the client went away.
 * 0, or -1 (the client cannot be written to; fn is not called).
 */
typedef void (*warden_server_reply_fn)(struct warden_server *srv, void *arg,
                                       struct json_t *result,
                                       struct json_t *error);
int warden_server_request(struct warden_server *srv, const char *method,
                          struct json_t *params, long timeout_ms,
                          warden_server_reply_fn fn, void *arg);
/* The same, as the question of `ask` (from ops->ask): when the ask
 * becomes void before the reply, ops->withdraw() says so first. */
int warden_server_ask_request(struct warden_server *srv, unsigned long ask,
                              const char *method, struct json_t *params,
                              long timeout_ms, warden_server_reply_fn fn,
                              void *arg);

/* ------------------------------------------------------------------ runs */

/* What a run came to, for ops->done(). */
struct warden_server_outcome {
	int r;                      /* 0: a report; negative: the consumer's
	                               error before any report (err) */
	struct json_t *report;      /* r == 0: warden_run_report_json()'s
	                               object plus "session", "status" and
	                               "policy" (borrowed for the call) */
	int status;                 /* the exit status the run stands for
	                               (as `warden run`), or err's code */
	int cancelled;              /* 1: warden_server_cancel() withdrew it */
	struct json_t *answer;      /* a job's warden_server_job_answer(), or
	                               NULL (borrowed for the call) */
	struct warden_error err;    /* r < 0: why */
};

struct warden_server_run_ops {
	/* Output as it comes: fd 1 (stdout) or 2 (stderr), len > 0 bytes. */
	void (*output)(struct warden_server *srv, void *arg, int fd,
	               const char *buf, size_t len);
	/* One line for the caller's user (may be NULL). */
	void (*notice)(struct warden_server *srv, void *arg, const char *line);
	/* The client answerer's question (may be NULL: it delegates):
	 * request is the answerer's request as JSON (borrowed), timeout_ms
	 * the answerer's (0: none).  Settle with warden_server_answer(srv,
	 * ask, ...). */
	void (*ask)(struct warden_server *srv, void *arg, unsigned long ask,
	            struct json_t *request, long timeout_ms);
	/* Exactly once, last. */
	void (*done)(struct warden_server *srv, void *arg,
	             const struct warden_server_outcome *out);
	/* Every WARDEN_SERVER_TICK_MS from the start until done(), whether
	 * output comes or not (may be NULL): a heartbeat for the caller's
	 * client, e.g. MCP progress. */
	void (*tick)(struct warden_server *srv, void *arg);
	/* The client's question for an ask (one sent with
	 * warden_server_ask_request()) is void before it answered (may be
	 * NULL): the run was cancelled, the client went away, the run ended,
	 * or no answer came in time.  request_id is the id the question was
	 * sent under (taken over: decref it), why one line.  Tell the client
	 * (serve: approval.withdrawn; mcp: notifications/cancelled); its
	 * reply callback is then called with neither result nor error. */
	void (*withdraw)(struct warden_server *srv, void *arg,
	                 struct json_t *request_id, const char *why);
	/* With no ask: why the client answerer delegates (may be NULL). */
	const char *no_ask;
};

/*
 * Starts req (its strings are read before this returns; req->notice is
 * the server's) as the run known by key (a JSON-RPC id, kept; no other run
 * of this server may have an equal key).  0, or a negative status with err
 * (nothing started, done() is not called).
 */
int warden_server_run(struct warden_server *srv, struct json_t *key,
                      const struct warden_run_request *req,
                      const struct warden_server_run_ops *ops, void *arg,
                      struct warden_error *err);
/*
 * A job: fn(fn_arg) in a worker like a run's (stdin /dev/null, stdout
 * and stderr to ops->output, ops->notice unused, the client answerer
 * asking through ops->ask), for an operation that may ask for an
 * approval or write to a session.  fn's return value is the status done()
 * reports (out->r 0, out->report NULL); stdio is flushed after it.  0, or
 * a negative status with err.
 *
 * A job is cancelled without being cut short where it writes: its SIGTERM
 * only raises the flag of warden_server_job_cancel() (an approval it
 * waits for from the client is void at once), so the job answers what it
 * did, and a job that has answered is not cancelled at all.  Only a job
 * still there WARDEN_SERVER_KILL_MS after a cancel is killed; it dies with
 * the server.
 */
int warden_server_job(struct warden_server *srv, struct json_t *key,
                      int (*fn)(void *fn_arg), void *fn_arg,
                      const struct warden_server_run_ops *ops, void *arg,
                      struct warden_error *err);
/* In a job's fn (in its worker): the job's answer, a JSON value (taken
 * over), which done() gets as out->answer.  The last call wins. */
void warden_server_job_answer(struct json_t *answer);
/* In a job's worker: the flag a cancel raises (never NULL; 0 elsewhere).
 * A job looks at it before it writes, and stops then if it is set. */
const volatile sig_atomic_t *warden_server_job_cancel(void);
/* 1 when a run or job of that key goes on, else 0. */
int warden_server_busy(struct warden_server *srv, struct json_t *key);
/* Cancels the run (or job) of that key: 0, or -1 when there is none. */
int warden_server_cancel(struct warden_server *srv, struct json_t *key);
/* The number of runs going on. */
size_t warden_server_runs(const struct warden_server *srv);

/*
 * Settles ask (from ops->ask) with an enum warden_decision
 * (WARDEN_DECISION_ALLOWED_ONCE, _REJECTED, _CANCELLED, _DELEGATE; or
 * _ERROR, which the approval service records as unavailable) and an
 * optional one-line reason (may be NULL).  0, or -1 when that ask is no
 * longer open (its run ended): nothing is done.
 */
int warden_server_answer(struct warden_server *srv, unsigned long ask,
                         int decision, const char *reason);

/*
 * The same with WARDEN_DECISION_ALLOWED_FOR_SESSION: scope names one of
 * the request's grant_scopes (NULL: the first offered).  A name the
 * request does not offer makes the request unavailable.
 */
/* A request as approval.ask's "request" holds it (every field of
 * plugin.h's struct the host set, grant_scopes included); a new object. */
struct json_t *warden_server_request_json(const struct warden_request *req);

int warden_server_answer_scope(struct warden_server *srv, unsigned long ask,
                               int decision, const char *scope,
                               const char *reason);

#endif
