/*
 * worker.h — one answerer in its own process (`isolation = process`,
 * DESIGN §6), and the bounded wait that approval.c shares with it.
 *
 * The worker is a fork of the host that loads and opens the plugin and
 * then answers requests over a socketpair, one at a time.  Started when a
 * request first needs it, reused after, and after any failure (crash,
 * abort, timeout, a malformed frame, a plugin that did not load) killed,
 * reaped and started afresh for the next request: a broken answerer costs
 * exactly the request that met it.  One that died while idle is started
 * afresh without costing anything.  The worker dies with the thread that
 * started it (PR_SET_PDEATHSIG): call the service from a thread that
 * outlives its use.
 *
 * Protocol: every frame is a 4-byte length (native order; both ends are
 * the same program) and that many bytes of payload, bounded on both sides
 * (WARDEN_WORKER_FRAME_MAX towards the worker, WARDEN_WORKER_REPLY_MAX
 * back).  Payloads: host → worker 'R' + a 4-byte sequence number + the
 * request's WARDEN_REQUEST_NSTR strings, each a 4-byte length and its
 * bytes, then its WARDEN_REQUEST_NLIST lists, each a 4-byte count and that
 * many strings, then program_writable as a 4-byte int; worker →
 * host 'H' (hello, once, after open; sequence 0) or 'D' (decision, with
 * the sequence of the request it answers), each + a 4-byte int + the
 * sequence + a 4-byte length + a 4-byte grant choice (what decide() wrote
 * to grant_choice; 0 in a hello) and a one-line reason of that length.
 * The worker turns allowed-for-session from a plugin of ABI < 1.4 into an
 * error.  A frame that breaks
 * any rule, answers another request, or arrives unasked, is garbage: the
 * worker is killed.
 */
#ifndef WARDEN_WORKER_H
#define WARDEN_WORKER_H

#include <stddef.h>

#include <warden/plugin.h>

#include "wconfig.h"

#define WARDEN_WORKER_FRAME_MAX (1024 * 1024)
#define WARDEN_WORKER_REPLY_MAX 1024

/* What a bounded wait ended with. */
enum warden_wait_result {
	WARDEN_WAIT_READY = 0,     /* the fd is ready */
	WARDEN_WAIT_TIMEOUT,       /* the answerer's timeout_ms passed */
	WARDEN_WAIT_DEADLINE,      /* the caller's deadline passed */
	WARDEN_WAIT_SIGNAL,        /* cancel_fd became readable */
	WARDEN_WAIT_ERROR,         /* poll() failed */
};

struct warden_wait {
	int cancel_fd;             /* readable = withdrawn by a signal; -1 none */
	long long timeout_at;      /* monotonic ms of the answerer's timeout; 0 none */
	long long deadline_at;     /* monotonic ms of the caller's deadline; 0 none */
};

/* CLOCK_MONOTONIC in milliseconds. */
long long warden_now_ms(void);

/* Waits until fd is ready for `events` (POLLIN / POLLOUT), a withdrawal,
 * or one of the deadlines.  A withdrawal outranks readiness. */
int warden_wait_fd(int fd, short events, const struct warden_wait *w);

/* A request and everything it points to, owned: what a worker decodes
 * from a frame, and what an inproc call keeps while its thread may
 * outlive the ask.  The strings, in order: session_id, request_id, tool,
 * subject, call_id, reason, requested_mode, cwd, program, interpreter,
 * path, requested_network; the lists: argv, env_removed, path_dropped,
 * grant_scopes, grant_texts (v1.4; the same count).  grant_choice points
 * at `choice` when a scope is offered. */
#define WARDEN_REQUEST_NSTR 12
#define WARDEN_REQUEST_NLIST 6

struct warden_request_copy {
	struct warden_request req;  /* points into the fields below */
	char *str[WARDEN_REQUEST_NSTR];
	char **list[WARDEN_REQUEST_NLIST];  /* each NULL-terminated */
	size_t n[WARDEN_REQUEST_NLIST];
	size_t choice;              /* what decide() wrote to grant_choice */
};

/* A deep copy of req into c (absent fields become "" or empty lists).
 * 0, or -1 when out of memory (free c either way). */
int warden_request_copy(struct warden_request_copy *c,
                        const struct warden_request *req);
void warden_request_copy_free(struct warden_request_copy *c);

struct warden_worker;

/* Nothing is started yet.  cfg and pl are borrowed for the worker's life. */
int warden_worker_new(const struct warden_config *cfg,
                      const struct warden_config_plugin *pl,
                      struct warden_worker **out);

/* What warden_worker_decide() came to. */
enum warden_worker_result {
	WARDEN_WORKER_ANSWERED = 0, /* *decision holds what decide() returned
	                               (not yet checked against the closed set) */
	WARDEN_WORKER_FAILED,       /* reason says why; the worker is gone */
	WARDEN_WORKER_TIMEOUT,      /* killed at the answerer's timeout */
	WARDEN_WORKER_DEADLINE,     /* killed at the caller's deadline */
	WARDEN_WORKER_SIGNAL,       /* killed: withdrawn by a signal */
};

/* Sends req to the worker (starting it first when needed) and waits for
 * its decision under w.  reason receives one line for every result but
 * ANSWERED, and with ANSWERED the plugin's err text (its reason for a
 * decision, or its error), as the plugin wrote it: the caller escapes. */
int warden_worker_decide(struct warden_worker *wk,
                         const struct warden_request *req,
                         const struct warden_wait *w, int *decision,
                         char *reason, size_t reasonlen);

/* Kills (if running) and reaps the worker.  NULL is fine. */
void warden_worker_free(struct warden_worker *wk);

#endif
