/*
 * run.h — the consumer: one run of a command as an agent's bash tool
 * (DESIGN §2, §3, §8).  `warden run`, `warden serve` and `warden mcp` all
 * call it; none of them repeats a step.
 *
 * One run, in this order, each step able to stop it before anything
 * starts:
 *
 *   1. the argv: a shell command is [shell, "-c", COMMAND] (shell from
 *      [warden] shell, default bash); an argv is taken as is.  A program
 *      that cannot be found or executed is 127 / 126, as a shell says.
 *   2. the session: opened and checked; its log must be writable, since a
 *      run that cannot be recorded does not start.
 *   3. escalation: asks the approval service (audited in the session's
 *      log, so a session is required); only allowed-once goes on, under
 *      that mode and/or with the network enabled, for this run only.
 *   4. policy resolution: explicit (escalated) mode > the session's mode
 *      > the config's default_mode; the root is the session's cwd (which
 *      must still resolve to exactly the recorded path), else the
 *      configured root.  The root is then opened and held (O_PATH, no
 *      symlink followed): the backend binds that descriptor, and the
 *      command starts in the directory the request names (--cwd), else
 *      in the caller's directory when that lies inside the root, else in
 *      the root (host/program.h: opened, and entered by descriptor);
 *      the network: explicit (an escalation with the network enabled) >
 *      enabled under danger-full-access > the session's sandbox/network
 *      > the config's default_network (restricted).
 *   5. danger-full-access: the argv is spawned as is, never confined.
 *      Otherwise the sandbox service confines it: no usable backend is
 *      SANDBOX_UNAVAILABLE (69); with require_full only a backend that
 *      enforces the mode `full` is taken, and none is a refusal (77).
 *   6. the session gets a sandbox/run event with "phase": "start" (what
 *      is about to run, under which mode, root and backend): a run whose
 *      warden is killed is still in the log.  When it cannot be appended
 *      nothing runs (a negative status, 74).  Then spawn
 *      (host/spawn.h): live output, own process group, timeout and
 *      forwarded signals, scrubbed environment (host/env.h).
 *   7. classification (host/classify.h): out-of-band evidence first, then
 *      runner-failure rules, then denial signatures.
 *   8. the session gets the run's end: a sandbox/run event with "phase":
 *      "end", the report, and "start_seq", the seq of its start event
 *      (null for a run refused at step 3 or 5, which never started).
 *
 * Fail closed on the log: when the sandbox/run event of a run that did
 * start cannot be appended, the report still describes the run (its
 * effects happened) but its status is 74 (WARDEN_EIO), never the
 * command's own.
 *
 * A consumer is long-lived: the sandbox service (its backends, opened and
 * probed once) and the approval service are made on first use and kept
 * for the consumer's life, so a server pays for them once.
 */
#ifndef WARDEN_RUN_H
#define WARDEN_RUN_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "approval.h"
#include "error.h"
#include "sandbox.h"
#include "spawn.h"
#include "wconfig.h"

struct json_t;

/* The exit statuses of a run besides the command's own. */
#define WARDEN_RUN_TIMEOUT 124        /* the timeout fired (as timeout(1)) */
#define WARDEN_RUN_SANDBOX_ERROR 125  /* the runner failed, the command never ran */
#define WARDEN_RUN_CANNOT_EXEC 126    /* found but not executable (as shells) */
#define WARDEN_RUN_NOT_FOUND 127      /* no such program (as shells) */

/* The longest timeout: a day. */
#define WARDEN_RUN_TIMEOUT_MAX_MS 86400000L
/* The most text a server's run takes for the command's stdin: 1 MiB. */
#define WARDEN_RUN_STDIN_MAX (1024 * 1024)

/* The longest argument a program takes (Linux: MAX_ARG_STRLEN, 32
 * pages, with its NUL), and the most bytes of argv a run takes. */
#define WARDEN_RUN_ARG_MAX (128 * 1024 - 1)
#define WARDEN_RUN_ARGV_MAX (1024 * 1024)

struct warden_consumer;

/* What to run.  Either command (run through the configured shell) or
 * argv/argc (exact) is set. */
struct warden_run_request {
	const char *session_id;     /* NULL or "": no session */
	const char *command;        /* SHELL -c COMMAND */
	const char *const *argv;    /* or this argv, exactly */
	size_t argc;
	long timeout_ms;            /* 0: none */
	int require_full;           /* on top of the config's require_full */
	int escalate;               /* enum warden_sandbox_mode asked for, 0: none */
	int escalate_network;       /* 1: ask to run it once with the network
	                               enabled (alone, or with escalate) */
	const char *justification;  /* with an escalation: why (the request's
	                               reason) */
	const char *cwd;            /* NULL, or the directory to run in
	                               (relative to the current one) */
	int cwd_from_root;          /* 1: a relative cwd is taken from the
	                               workspace root (serve, mcp: the
	                               server's own directory means nothing
	                               to its client) */
	const char *call_id;        /* NULL or the caller's tool-call id: in the
	                               approval request and every event */
	int pipe_stdout;            /* stdout through a pipe (spawn.h): the
	                               report then knows whether the output
	                               ended with a newline */
	const char *stdin_text;     /* a server's run (server.h): the text the
	                               command reads on its stdin (at most
	                               WARDEN_RUN_STDIN_MAX bytes), NULL:
	                               /dev/null.  The consumer itself hands
	                               the command the caller's stdin. */
	/* Called with one line for the caller's user while the run goes on
	 * (e.g. "escalation to danger-full-access allowed once (answerer
	 * r)"), before the command starts; may be NULL. */
	void (*notice)(void *arg, const char *line);
	void *notice_arg;
};

/* Everything a run's report says: the JSON object, the session event and
 * the exit status are all built from this. */
struct warden_run_report {
	const char **argv;          /* the command's argv (strings borrowed
	                               from the request or the config) */
	size_t argc;
	char session[129];          /* "" without a session */
	int started;                /* the runner or the command was started */
	int cls;                    /* enum warden_run_class, 0 when not started */
	int exit_code;              /* -1 when killed by a signal or not started */
	int signal;                 /* 0 when none */
	int mode;                   /* the mode it ran (or would have run) under */
	int mode_source;
	char backend[128];          /* "" when not confined */
	int enforcement;            /* 0 when not confined */
	long duration_ms;
	int timed_out;
	int policy;                 /* the effective approval policy */
	int escalated_mode;         /* the mode an escalation asked for, 0:
	                               none (no escalation, or one for the
	                               network alone) */
	int escalated_network;      /* enum warden_network an escalation asked
	                               for, 0: none */
	int escalation_outcome;     /* enum warden_outcome, 0 when not decided */
	char escalation_answerer[128]; /* the deciding answerer, "" when none */
	char escalation_grant[WARDEN_GRANT_ID_LEN + 1]; /* allowed-for-session:
	                                   the grant given or that covered it */
	char escalation_grant_scope[32];
	int escalation_grant_new;       /* 1: given by this answer */
	char escalation_reason[512]; /* the approval's reason: the deciding
	                               answerer's own (escaped), or why none
	                               decided; "" when none */
	char escalation_delegated[WARDEN_APPROVAL_DELEGATED_MAX][128];
	size_t n_escalation_delegated; /* the answerers that delegated before
	                               the outcome, in order (names kept:
	                               the first WARDEN_APPROVAL_DELEGATED_MAX) */
	char request_id[64];        /* the approval request's id, "" when none */
	char reason[WARDEN_ERROR_MAX + 256]; /* what decided the class, or why
	                               not run */
	int status;                 /* the exit status the run stands for */
	const char *refused;        /* "unavailable", "require-full",
	                               "escalation", "not-found", ... when
	                               nothing started */
	char root[PATH_MAX];        /* the workspace root it ran under, or "" */
	json_t *roots;              /* the writable roots beside it, as
	                               warden_roots_json (owned), or NULL */
	json_t *roots_notes;        /* why a worktree got nothing more
	                               (owned), or NULL */
	char dir[PATH_MAX];         /* the directory the command starts in:
	                               the request's, else the caller's when
	                               inside the root, else the root */
	char detail[256];           /* what the confinement holds partially,
	                               or "" */
	char tmp_dir[PATH_MAX];     /* the command's temp area (TMPDIR), or ""
	                               when it has none of warden's */
	const char *call_id;        /* the request's (borrowed), or NULL */
	char program[PATH_MAX];     /* escalation: the file it asked about */
	int program_writable;       /* escalation: that file lies under a
	                               writable root */
	char **env_removed;         /* escalation: the start-up and loader
	                               variables removed (owned) */
	size_t n_env_removed;
	char **path_dropped;        /* escalation: the PATH entries dropped */
	size_t n_path_dropped;
	char **env_config;          /* escalation: "NAME=value" of the
	                               location names it got, HOME first */
	size_t n_env_config;
	struct warden_skipped *skipped; /* backends passed over before the one
	                               that confined it, in config order */
	size_t n_skipped;
	char denial[1024];           /* denied: what was refused, in words for
	                               the agent (the backend's, else the
	                               host's from the stderr line), else "" */
	char denied_path[PATH_MAX]; /* denied: the path the refused effect
	                               named, when stderr said one, else "" */
	int read_denied;            /* denied: a read of denied_path, which
	                               deny_read hides */
	char record_error[WARDEN_ERROR_MAX]; /* why the sandbox/run event could
	                               not be appended ("" when it was, or
	                               when there is no session) */
	struct warden_spawn_result *spawn; /* the spawn's result, or NULL */
	char disproved[128];        /* the backend whose facts this run
	                               disproved (its runner failed before
	                               exec), "" when none */
	int disproved_mode;         /* ... for this mode */
	int network;                /* enum warden_network it ran (or would
	                               have run) with, 0 before resolution */
	int network_source;
	int network_enforcement;    /* 0 when not confined */
	char network_detail[256];   /* what is partial about it, or "" */
	int network_denied;         /* 1: a confined run with the network
	                               restricted failed, and its stderr shows
	                               a connection, socket or lookup refused
	                               (classify.h): the class is then denied */
	char network_denial[512];   /* that stderr line, or "" */
	char **network_refused;     /* the allowlist network: destinations
	                               (host:port) its proxy refused,
	                               NULL-terminated, or NULL */
	long timeout_ms;            /* the time limit the run had (the request's
	                               or the config's), 0: none */
	char hint[640];             /* failed: stderr read like a refusal
	                               that nothing shows the sandbox made
	                               (wording alone is no denial): what it
	                               may mean, or "" */
	int file_denied;            /* 1: denial says what file effect was
	                               refused (beside a network denial, or
	                               alone) */
};

/* A consumer over cfg (borrowed: it must outlive the consumer). */
int warden_consumer_new(const struct warden_config *cfg,
                        struct warden_consumer **out,
                        struct warden_error *err);
void warden_consumer_free(struct warden_consumer *c);

/* An answerer of the embedder's, appended to the chain of every approval
 * service this consumer makes, under `name` (approval.h,
 * warden_approval_register); timeout_ms 0 = none. */
void warden_consumer_append_answerer(struct warden_consumer *c, const char *name,
                                     warden_approval_decide_fn fn, void *ud,
                                     long timeout_ms);

/* Opens the sandbox service now rather than on the first confined run
 * (a server does it once, before its workers fork): 0, or a negative
 * status with err. */
int warden_consumer_prepare(struct warden_consumer *c, struct warden_error *err);
/* Forgets what the facts said of backend for mode (a run elsewhere found
 * its runner failing before exec): the next run judges it by a real
 * probe.  Nothing when the service is not open or has no such backend. */
void warden_consumer_disprove(struct warden_consumer *c, const char *backend,
                              int mode);

/* Refuses (WARDEN_EUSAGE, saying what to do instead) a command or an
 * argv no program could be given: an argument over WARDEN_RUN_ARG_MAX
 * bytes, or over WARDEN_RUN_ARGV_MAX bytes of them in all.  0 when it
 * fits.  warden_consumer_run() checks it too; a server checks it before
 * a worker is asked. */
int warden_run_request_size_check(const struct warden_run_request *req,
                                  struct warden_error *err);

/*
 * Runs one request.  Returns 0 with *rep filled when there is a report to
 * give — a run, or a refusal worth reporting (rep->started says which);
 * rep->status is then the exit status it stands for.  Returns a negative
 * WARDEN_E* with err for an error before any report (a bad session, a
 * damaged log, a bad request).  Free the report with
 * warden_run_report_clear() either way.
 */
int warden_consumer_run(struct warden_consumer *c,
                        const struct warden_run_request *req,
                        struct warden_run_report *rep,
                        struct warden_error *err);

void warden_run_report_clear(struct warden_run_report *rep);

/* The report's fields as a JSON object (the --json object and the
 * sandbox/run event share them); NULL when out of memory. */
struct json_t *warden_run_report_json(const struct warden_run_report *rep);

/* The first path a denied run's stderr line names (a word starting with
 * '/', or quoted; relative ones from the current directory), lexically
 * normal: 0 with out filled, or -1 when it names none. */
int warden_run_denied_path(const char *line, char out[PATH_MAX]);
/* The same with relative paths taken from dir (absolute). */
int warden_run_denied_path_in(const char *line, const char *dir,
                              char out[PATH_MAX]);

/* The approval subject of an argv: the words, shell-quoted where needed,
 * so that the answerer sees exactly what would run; a new string, or
 * NULL when out of memory. */
char *warden_run_subject(const char *const *argv, size_t argc);

/* The mode an agent may ask for after a denial under `mode`. */
int warden_run_next_mode(int mode);

/* The mode a retry of this run would have to be escalated to: after a
 * file denial, the next mode (warden_run_next_mode) unless the approval
 * policy is never, which makes asking pointless; else 0 (a denial by the
 * network alone needs the network, not a mode).  The report's
 * "escalate_to". */
int warden_run_escalate_to(const struct warden_run_report *rep);

/* 1 when a retry would have to ask for the network
 * (--escalate-network): a denial by the restricted network, under the
 * approval policy ask.  The report's "escalate_network". */
int warden_run_escalate_network(const struct warden_run_report *rep);

#endif
