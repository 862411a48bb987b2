/*
 * approval.h — the approval service: "may this one operation proceed?"
 * answered once, through the waterfall of answerers (DESIGN §3, §6).
 *
 * Owns the chain of answerers (the [answerer NAME] sections in file order,
 * plus what an embedder registers in front or behind), the dispatch of one
 * request along it, answerer isolation (inproc or a worker process, with
 * the per-answerer timeout_ms), withdrawal, and the audit pair
 * approval/asked + approval/decided in the session log.
 *
 * The rules, in the order they are applied:
 *   - every request gets a fresh request id; approval/asked is appended
 *     before anything is consulted; if it cannot be committed the request
 *     fails (an error, no outcome);
 *   - the effective policy is the session's last approval/policy, else the
 *     config's approval_policy; `never` gives `rejected` before any
 *     answerer, registered ones included, is consulted;
 *   - `ask`: each answerer in chain order decides (allowed-once, rejected,
 *     cancelled) or delegates to the next; the first decision wins; the
 *     end of the chain without a decision is `unavailable` (an empty chain
 *     too);
 *   - an answerer that errors, crashes, aborts, times out (timeout_ms,
 *     plus half a second of grace so that an answerer applying its own
 *     timeout, like tty's on_timeout, answers first), or
 *     returns anything outside the closed set makes the request
 *     `unavailable` — never a fall-through to the next one;
 *   - an answerer whose plugin is missing, malformed or failed to open is
 *     `unavailable` in its slot: a request that reaches it is unavailable;
 *   - withdrawal — SIGINT or SIGTERM delivered to the process while it
 *     waits for an answerer, or the caller's deadline — is `cancelled` at
 *     once; the answer that may still come is discarded (a worker is
 *     killed; an inproc answerer's call is abandoned and the instance
 *     stays unavailable until that call returns);
 *   - grants (grant.h): under `ask`, a request that a grant of the
 *     session covers is allowed-for-session at once, naming the grant, no
 *     answerer consulted; otherwise the request offers the answerers its
 *     grantable scopes, and an answer of allowed-for-session writes the
 *     chosen scope as approval/grant in the same write as
 *     approval/decided (an answerer of ABI < 1.4 cannot give it, nor any
 *     when nothing was offered: unavailable);
 *   - approval/decided (request_id, call_id, outcome, the deciding
 *     answerer, the reason, and the answerers that delegated before it,
 *     in order) is appended after; if it cannot be committed the request fails: no
 *     outcome is returned, the caller must refuse.
 *
 * Reasons.  An answerer may give a one-line reason with any decision (its
 * err text, plugin.h).  What it gives is never kept raw: control and
 * text-moving characters are escaped in text.h's dialect (a backslash is
 * kept as it is: a rule's pattern may hold one; the terminal printers
 * escape it), and the result is cut to WARDEN_APPROVAL_REASON_MAX bytes
 * ("..." marks a cut), so that it stays one line in the log, in JSON and
 * on a terminal.
 *
 * Isolation (per [answerer NAME], `isolation = inproc | process`, default
 * process).  process: the plugin is dlopen()ed and opened in a worker
 * process (worker.h), started when a request first reaches it, reused for
 * the next ones, started afresh after any failure; a crash, abort, hang
 * or garbage from the worker costs that one request (`unavailable`) and
 * nothing else.  inproc: the plugin runs in the host process (a crash
 * there kills the host); its decide() runs on a helper thread so that the
 * timeout and withdrawal still hold.
 *
 * Plugins are loaded lazily: a request that is decided before it reaches
 * an answerer never loads it.
 */
#ifndef WARDEN_APPROVAL_H
#define WARDEN_APPROVAL_H

#include <warden/plugin.h>

#include "error.h"
#include "grant.h"
#include "vocab.h"
#include "wconfig.h"

struct warden_session;
struct warden_approval;
struct warden_program;

/* What the caller asks.  Strings are borrowed for the call; optional ones
 * may be NULL or "". */
struct warden_approval_request {
	const char *tool;           /* required, non-empty: e.g. "bash" */
	const char *subject;        /* required: e.g. the command line */
	const char *call_id;        /* optional: the caller's tool-call id */
	const char *reason;         /* optional: why the caller asks */
	const char *requested_mode; /* optional: for an escalation, the mode
	                               asked for ("danger-full-access"); must
	                               be a mode name of DESIGN §1 */
	const char *requested_network; /* optional: for an escalation, the
	                               network asked for ("enabled"); must be
	                               a network name of DESIGN §1 */
	long deadline_ms;           /* optional: > 0 withdraws the request
	                               (`cancelled`) after this many ms */
	/* optional: the command the request is about, as it will run
	 * (DESIGN §3): its argv, and the directory, program and environment
	 * host/program.h settled for it (borrowed).  The answerers get them
	 * (plugin.h, v1.1) and approval/asked records them.  Without them the
	 * request's cwd is the session's workspace root. */
	const char *const *argv;
	size_t argc;
	const struct warden_program *program;
};

/* The longest answerer's reason kept (escaped, "..." included). */
#define WARDEN_APPROVAL_REASON_MAX 256
/* How many delegating answerers a result names (the chain rarely has
 * more; n_delegated still counts them all). */
#define WARDEN_APPROVAL_DELEGATED_MAX 32

/* What came of it.  Filled only when warden_approval_ask() returns 0. */
struct warden_approval_result {
	int outcome;                /* enum warden_outcome */
	char request_id[64];        /* the id in both audit events */
	char answerer[128];         /* the section name of the deciding
	                               answerer (or of the one that was
	                               unavailable); "" when none decided
	                               (policy never, end of chain,
	                               withdrawal) */
	char reason[512];           /* one line: the deciding answerer's own
	                               reason (escaped, at most
	                               WARDEN_APPROVAL_REASON_MAX bytes; ""
	                               when it gave none); for an unavailable
	                               answerer what went wrong; for every
	                               other outcome why */
	char delegated[WARDEN_APPROVAL_DELEGATED_MAX][128];
	size_t n_delegated;         /* the answerers that delegated before
	                               the outcome, in chain order (the first
	                               WARDEN_APPROVAL_DELEGATED_MAX named) */
	int signal;                 /* the signal that withdrew the request
	                               (SIGINT, SIGTERM), else 0 */
	/* With allowed-for-session: the grant this answer gave (grant_new
	 * 1, approval/grant written with approval/decided) or the grant
	 * that covered the request (grant_new 0, no answerer asked). */
	char grant[WARDEN_GRANT_ID_LEN + 1];
	char grant_scope[32];       /* its scope's name: exact, prefix:N, ... */
	int grant_new;
};

/* Where warden_approval_register() puts an embedder's answerer. */
enum warden_approval_where {
	WARDEN_APPROVAL_PREPEND = 1,    /* before the configured answerers */
	WARDEN_APPROVAL_APPEND = 2,     /* after them */
};

/* An embedder's answerer: the same contract as a plugin's decide()
 * (plugin.h): returns an enum warden_decision; anything else, or
 * WARDEN_DECISION_ERROR with a reason in err, is `unavailable`.  Runs in
 * the host process, on a helper thread, under the given timeout. */
typedef int (*warden_approval_decide_fn)(void *ud,
                                         const struct warden_request *req,
                                         char *err, size_t errlen);

/*
 * The built-in answerer `plugin = client` (DESIGN §8): the client of a
 * `warden serve` or `warden mcp` connection decides.  It runs in the
 * host process (whatever its isolation says) and calls the function
 * set here with the request and its timeout_ms, on the helper thread of
 * an inproc answerer (the usual contract: an enum warden_decision, a
 * reason in err).  With no function set (no client connected: `warden
 * run`, `warden approve`) it delegates.
 */
#define WARDEN_APPROVAL_CLIENT "client"
typedef int (*warden_approval_client_fn)(void *ud,
                                         const struct warden_request *req,
                                         long timeout_ms, char *err,
                                         size_t errlen);
/* Sets (or with NULL clears) the process's client function. */
void warden_approval_set_client(warden_approval_client_fn fn, void *ud);

/*
 * Builds the chain from cfg's [answerer NAME] sections (nothing is loaded
 * yet).  cfg is borrowed and must outlive the service.
 */
int warden_approval_new(const struct warden_config *cfg,
                        struct warden_approval **out,
                        struct warden_error *err);

/* Stops the workers, closes and unloads the plugins.  NULL is fine. */
void warden_approval_free(struct warden_approval *a);

/*
 * Adds an embedder's answerer named `name` ([a-z0-9_-], unique in the
 * chain) in front of or behind the configured ones; timeout_ms 0 = none.
 * It is consulted only under policy `ask`: prepending cannot bypass
 * `never`.
 */
int warden_approval_register(struct warden_approval *a,
                             enum warden_approval_where where,
                             const char *name, warden_approval_decide_fn fn,
                             void *ud, long timeout_ms,
                             struct warden_error *err);

/*
 * THE CALL FOR CONSUMERS (`warden approve`, `warden run --escalate`):
 * asks once whether req may proceed, in session s (required: the audit
 * goes to its log; NULL is -WARDEN_EUSAGE).
 *
 * Returns 0 and fills *out when the request was decided AND both audit
 * events were committed: the caller then proceeds only when
 * out->outcome == WARDEN_OUTCOME_ALLOWED_ONCE, and only with the
 * operation it asked about.  Returns a negative -WARDEN_E* with err
 * filled (and *out's outcome left 0) when the request could not be asked
 * or audited (bad request, damaged session, failed append): the caller
 * must refuse, exactly as for `rejected`.
 *
 * While it waits for an answerer it holds handlers for SIGINT and SIGTERM
 * (restored before it returns); such a signal makes the outcome
 * `cancelled` with out->signal set; the caller decides what the signal
 * means for itself afterwards (`warden approve` exits 2).  Blocking: as
 * long as the answerers take, bounded by their timeout_ms and
 * req->deadline_ms.  One call at a time per process (the signal handlers
 * are the process's), from a thread that outlives the service's workers.
 */
int warden_approval_ask(struct warden_approval *a, struct warden_session *s,
                        const struct warden_approval_request *req,
                        struct warden_approval_result *out,
                        struct warden_error *err);

#endif
