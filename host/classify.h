/*
 * classify.h — what a finished confined run means (DESIGN §2 "Classifying
 * a finished run").
 *
 * Owns the decision ok | failed | denied | sandbox-error from the facts a
 * backend gave with its ConfinedArgv (runner-failure rules, denial
 * signatures, the kind of out-of-band evidence), the wait status, the
 * stderr tail and the out-of-band evidence.  Also owns reading that
 * evidence: bubblewrap's --json-status-fd documents and the EXEC_PIPE
 * protocol of plugin.h.
 *
 * Stderr is in-band: a confined command can print anything, including a
 * runner's fatal line.  So evidence read out of band decides first: when
 * it says exec happened the run is the command's own (never a runner
 * failure); when it says exec did not happen the run is a sandbox error.
 * Only without evidence do the stderr rules decide.
 */
#ifndef WARDEN_CLASSIFY_H
#define WARDEN_CLASSIFY_H

#include <stddef.h>

#include <warden/plugin.h>

#include "error.h"

enum warden_run_class {
	WARDEN_CLASS_OK = 1,            /* exit status 0 */
	WARDEN_CLASS_FAILED = 2,        /* the command's own failure */
	WARDEN_CLASS_DENIED = 3,        /* the sandbox refused an effect */
	WARDEN_CLASS_SANDBOX_ERROR = 4, /* the runner broke; command not run */
};

/* "ok", "failed", "denied", "sandbox-error"; NULL if unknown. */
const char *warden_class_name(int cls);

/* What out-of-band evidence says about exec(). */
enum warden_exec_evidence {
	WARDEN_EXEC_UNKNOWN = 0,        /* no channel, or it proves nothing */
	WARDEN_EXEC_HAPPENED = 1,       /* the command itself ran */
	WARDEN_EXEC_NOT_HAPPENED = 2,   /* the runner failed before exec */
};

/* The backend facts classification needs (a view into a ConfinedArgv). */
struct warden_classify_facts {
	const struct warden_runner_rule *runner_rules;
	size_t n_runner_rules;
	const char *const *denial_signatures;
	size_t n_denial_signatures;
};

/* One finished run. */
struct warden_run_facts {
	int wait_status;        /* as filled by waitpid() */
	const char *stderr_tail;/* the last bytes of stderr; may hold NUL,
	                           CR, and start mid-line; may be NULL */
	size_t stderr_len;
	int exec_evidence;      /* enum warden_exec_evidence */
};

struct warden_classification {
	int cls;                /* enum warden_run_class */
	char reason[256];       /* one line: what decided, for logs */
	char denied_line[512];  /* denied: the stderr line that carried the
	                           signature (cut to fit), else "" */
};

/*
 * Classifies one run, in this order:
 *   1. evidence NOT_HAPPENED: sandbox-error.
 *   2. no evidence (UNKNOWN): a runner rule matches (nonzero exit, in the
 *      rule's exit codes when it lists any, and one stderr line — after
 *      informational lines are removed — contains a fatal signature):
 *      sandbox-error.  Evidence HAPPENED skips this step.
 *   3. exit status 0: ok.
 *   4. a denial signature in the stderr tail (informational lines
 *      removed): denied.
 *   5. otherwise: failed (nonzero exit or killed by a signal).
 * Matching is case-insensitive; lines end at '\n', a trailing '\r' is not
 * part of the line, NUL bytes are ordinary bytes.  Always succeeds.
 */
void warden_classify(const struct warden_classify_facts *facts,
                     const struct warden_run_facts *run,
                     struct warden_classification *out);

/* What a runner-failure rule set says about a run, without evidence:
 * 1 when one rule matches (its index in *rule_index when non-NULL). */
int warden_classify_runner_failed(const struct warden_classify_facts *facts,
                                  int wait_status, const char *stderr_tail,
                                  size_t stderr_len, size_t *rule_index);

/*
 * Whether a failed run's stderr tail shows a connection, a socket or a
 * name lookup refused, as a restricted network refuses them (DESIGN §2
 * "Network knob"): the netguard's and Landlock's EACCES/EPERM on a socket
 * or a connect, a namespace's unreachable network, an unanswered lookup.
 * One line matches when it holds
 *   - "Network is unreachable", "Temporary failure in name resolution",
 *     "Could not resolve host", "Address family not supported",
 *     "Couldn't connect", "Could not connect", "Failed to connect" or
 *     "Unable to connect", or
 *   - "Permission denied", "Operation not permitted" or "Connection
 *     refused" together with a network word ("connect", "socket",
 *     "/dev/tcp/", "/dev/udp/", "://", "getaddrinfo", "urlopen")
 *     in it or in one of the 3 lines before it (a traceback names the
 *     call a line or two above the error).
 * Case-insensitive, lines as warden_classify() takes them.  Returns 1
 * with the first matching line in `line` (cut to fit), or 0.  A hint for
 * the agent, not evidence: the caller asks only after a failed run with
 * the network restricted.
 */
int warden_classify_network_denied(const char *stderr_tail, size_t len,
                                   char *line, size_t linelen);

/*
 * Evidence that the network guard refused it: a line that carries the
 * guard's own answer, EACCES or EPERM in their strerror words ("Permission
 * denied", "Operation not permitted") with a network word in it or in one
 * of the 3 lines before (netguard.h, Landlock's TCP rules), or the gate's
 * "refused by the restricted network".  A refused connection, an
 * unreachable network or an unanswered lookup are not the guard's words:
 * a server that is down says the same.  Returns 1 with that line, or 0.
 */
int warden_classify_network_guard(const char *stderr_tail, size_t len,
                                  char *line, size_t linelen);

/*
 * The first TCP port named in a line that speaks of a refused or
 * unreachable connection ("port N", ":N", "/N", ", N") for which fn says
 * 1 (the caller's question: does a host service listen there?).  Returns
 * that port with its line, or 0.
 */
int warden_classify_network_port(const char *stderr_tail, size_t len,
                                 int (*fn)(int port, void *arg), void *arg,
                                 char *line, size_t linelen);

/*
 * Whether a stderr line says that a write to a held path was refused: a
 * line that carries one of the refusal errors (EBUSY "Device or resource
 * busy", EROFS, EACCES, EPERM, in their strerror words) and names, in
 * any of its words (quotes and a trailing ':' removed; a relative one
 * taken from dir), a path that is held or lies below one — a held path
 * is absolute and its components may be fnmatch(3) globs — or, with
 * EBUSY, a directory on the way to one (pinned: it can be neither
 * renamed nor removed).  1 with path (lexically normal) and line (cut to
 * linelen) filled, else 0.  Every byte of the tail may be hostile.
 */
int warden_classify_held_refusal(const char *stderr_tail, size_t len,
                                 const char *dir, const char *const *held,
                                 size_t n_held, char path[4096],
                                 char *line, size_t linelen);

/*
 * Reads evidence of `kind` (enum warden_evidence) from the bytes the
 * status channel carried up to EOF (at most the first WARDEN_EVIDENCE_MAX
 * bytes matter).  Fills *exec with an enum warden_exec_evidence and, when
 * exec did not happen and the channel said why, `why` (may be NULL).
 *
 * BWRAP_JSON: a sequence of JSON objects; exec happened iff one has an
 * integer "exit-code".  Without it, exec did not happen only when the
 * runner itself exited normally with a nonzero status (wait_status), since
 * a runner killed from outside (a timeout) writes no exit-code object
 * either; otherwise UNKNOWN.  Malformed JSON proves nothing (UNKNOWN).
 *
 * EXEC_PIPE: HAPPENED only on positive evidence, a channel that carried
 * exactly "started\n" up to EOF; anything else is NOT_HAPPENED: empty (the
 * runner never started), or "started\nfatal: REASON" (REASON in `why`).
 *
 * NONE: UNKNOWN.
 */
#define WARDEN_EVIDENCE_MAX 4096
void warden_evidence_parse(int kind, const char *buf, size_t len,
                           int wait_status, int *exec, char *why,
                           size_t whylen);

/*
 * BWRAP_JSON: the signal that killed the command when the launcher inside
 * the sandbox reported one ({"warden-signal": N}, warden-bwrap-exec
 * --reap) and bwrap's own exit-code object says 128+N, as its process 1
 * turns a signal into; else 0.  A command that exits 128+N itself leaves
 * no such report.
 */
int warden_evidence_signal(const char *buf, size_t len);

/* Reads fd to EOF (retrying EINTR, keeping at most WARDEN_EVIDENCE_MAX
 * bytes) into buf, which has room for WARDEN_EVIDENCE_MAX bytes; *len is
 * what was kept.  Returns 0, or -WARDEN_EIO with err filled. */
int warden_evidence_read(int fd, char *buf, size_t *len,
                         struct warden_error *err);

#endif
