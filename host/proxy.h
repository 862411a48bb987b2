/*
 * proxy.h — the allowlist network's proxy (DESIGN §2 "Network knob"): for
 * the life of one confined run, the only way out of the sandbox.
 *
 * warden_proxy_start() forks a process that serves the run's command and
 * nothing else, on two doors:
 *   - a TCP listener on 127.0.0.1, on a port the kernel picks (the
 *     Landlock backend lets the command connect to that port alone);
 *   - pass_fd, one end of a unix socket pair: a backend whose command
 *     has a network namespace of its own (bwrap) runs a forwarder inside
 *     it that accepts on 127.0.0.1:port there and hands each accepted
 *     socket over this pair (SCM_RIGHTS), so no byte is copied twice
 *     and no socket path is shared with the host.
 * Clients speak HTTP CONNECT, plain HTTP with absolute URIs, or SOCKS5
 * (proxyreq.h).  Each destination is decided:
 *   denied_domains matches          refused (deny wins)
 *   allowed_domains matches         allowed
 *   neither                         asked through the approval waterfall
 *                                   (tool "network", subject host:port,
 *                                   the run's argv and call id), one
 *                                   question at a time, with a deadline;
 *                                   allowed-once lets this one connection
 *                                   through, anything else refuses it
 *                                   (warden_proxy_grant_fn is where a
 *                                   session's grants will answer first)
 * and an allowed destination is resolved here (hosts_file first, then the
 * system's resolver, in a child so the loop never waits) and refused when
 * its addresses are private, loopback or link-local and the destination
 * is not listed exactly (netlist.h).  A refusal is an HTTP 403 whose body
 * says how to ask (the domain to add, or --escalate-network), or a SOCKS5
 * "not allowed by ruleset" reply.
 *
 * Bounds: WARDEN_PROXY_CONNS_MAX connections at once (more wait in the
 * listen queue), a request head of WARDEN_PROXYREQ_HEAD_MAX bytes, two
 * relay buffers of WARDEN_PROXY_BUF bytes per connection, a resolution of
 * 10 s, a question of WARDEN_PROXY_ASK_MS.  One poll(2) loop; nothing in
 * it waits for a peer, a resolver or an answerer.
 *
 * Every connection ends as one network/connect event in the session's log
 * (destination, how it came, what decided, the address reached, bytes
 * each way).  The destinations refused come back to the run through
 * warden_proxy_stop().
 */
#ifndef WARDEN_PROXY_H
#define WARDEN_PROXY_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "wconfig.h"

struct warden_session;
struct warden_approval;
struct warden_program;

#define WARDEN_PROXY_CONNS_MAX 128
#define WARDEN_PROXY_BUF (64 * 1024)
/* The pipe each relay direction asks for (splice; the kernel may give
 * less). */
#define WARDEN_PROXY_PIPE (256 * 1024)
#define WARDEN_PROXY_ASK_MS 120000
/* The most refused destinations a run reports. */
#define WARDEN_PROXY_REFUSED_MAX 32

struct warden_proxy_opts {
	const struct warden_config *cfg;    /* lists and hosts_file */
	struct warden_session *session;     /* NULL: no events, nothing asked,
	                                     * no destination grants */
	struct warden_approval *approval;   /* NULL: nothing asked */
	const char *const *argv;            /* the run's command, for questions */
	size_t argc;
	const char *call_id;
	const struct warden_program *program;
};

struct warden_proxy {
	pid_t pid;
	int port;                           /* on 127.0.0.1 */
	int pass_fd;                        /* for a backend to hand on */
	int report_fd;                      /* refused destinations */
};

/* Starts the proxy: 0 with *out set, or a negative -WARDEN_E* (then no
 * command may run with the allowlist network). */
int warden_proxy_start(const struct warden_proxy_opts *o,
                       struct warden_proxy **out, struct warden_error *err);

/* Stops it (its open connections end and are logged) and fills refused
 * (host:port strings, at most WARDEN_PROXY_REFUSED_MAX, NULL-terminated,
 * malloc'd; may be NULL).  NULL p is fine. */
void warden_proxy_stop(struct warden_proxy *p, char ***refused);

/* The "NAME=VALUE" entries a command behind the proxy gets:
 * HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, their lower-case forms and
 * NO_PROXY (empty: everything goes through the proxy).  Writes at most
 * cap entries into out (malloc'd strings); their number, or -1. */
int warden_proxy_env(int port, char **out, size_t cap);
#define WARDEN_PROXY_ENV_N 8

#endif
