/*
 * session.h — the session log (DESIGN §1, §4, §5).
 *
 * One append-only JSON Lines file per session, <state_dir>/<id>.jsonl
 * (directories 0700, files 0600, opened O_NOFOLLOW | O_CLOEXEC).  Every
 * event is one line, a compact JSON object whose keys come in this order:
 *
 *   seq    integer, 1 for the first line, each line exactly one more
 *   time   RFC 3339 UTC with microseconds, "2026-12-02T15:50:07.123456Z"
 *   type   one of the eight event types of DESIGN §1
 *   ...    the event's own fields, sorted by key
 *   knobs  the fold of every knob event up to and including this line:
 *          {"mode": M, "policy": P, "preset": NAME, "network": N,
 *          "roots": [DIR, ...]}, each key present only once its event has
 *          been written (never set = the config's value)
 *
 * The fields of the knob events are fixed here: session/start {"cwd":
 * absolute resolved directory}, sandbox/mode {"mode"}, approval/policy
 * {"policy"}, permission/preset {"preset"}, sandbox/network {"network":
 * "restricted" | "enabled"}, sandbox/roots {"roots": the whole list of
 * the session's writable roots beside its cwd after the change, each an
 * absolute, resolved, normal path; [] when every one was removed}.
 * sandbox/roots was added after the others: a log without one replays as
 * before (the config's writable_roots), and its "roots" knob is written
 * only once such an event is.
 *
 * Grants (grant.h) are knobs too, added later still: approval/grant
 * {"grant": ID, "key": the scope's key, "scope": the scope, "request_id",
 * "answerer", "name": the scope's name} adds {"id", "key"} to the knobs'
 * "grants" list (written only while it is not empty); approval/revoke
 * {"grant": ID} takes it out.  A grant whose key is not its scope's, whose
 * id is already in force, a revoke of an id not in force, or more than
 * WARDEN_GRANTS_MAX in force, is damage.  The audit events
 * (approval/asked, approval/decided, sandbox/run) carry whatever object
 * their writer gives; their keys must not be seq, time, type or knobs.
 * The consumer (host/run.h) writes two sandbox/run events per run that
 * starts: "phase": "start" before the spawn, then "phase": "end" with the
 * report and "start_seq"; a run refused before it started has only the
 * end.  A sandbox/run without "phase" (logs written before phases) is an
 * end; replay treats all of them alike.
 *
 * Why "knobs" on every line: the effective knobs are the last sandbox/mode,
 * approval/policy, permission/preset and sandbox/network events, and a scan backwards for
 * them reads the whole log when a knob was set once, early, before a
 * million runs (or never).  Carrying the fold makes resolution read the
 * first line (session/start, the cwd) and the last complete line: the same
 * work at 10 events and at 10^6.  A writer computes the new line's knobs
 * from the last line under the same lock that gives it its seq.
 *
 * Appending.  Under flock(LOCK_EX) on the log: read the tail from the end
 * (never a forward scan), take seq and knobs from the last complete line,
 * then one write(2) with O_APPEND of the whole batch of lines, then
 * fsync when cfg->durability is fsync.  A write or fsync that fails is
 * rolled back (ftruncate to the old end), so a failed append leaves
 * nothing behind.  A torn tail left by a writer that died mid-write is
 * cut off (with a warning) before the next line is written, so it can
 * never become damage in the middle of the log.
 *
 * What is validated where (a line is valid when it is a JSON object with
 * the keys and types above, a known type, known mode / policy strings,
 * known network strings, its knobs equal to the previous line's knobs with
 * its own event applied,
 * and seq exactly one more than the previous line's):
 *
 *   warden_session_open, warden_session_refresh, and so every policy
 *   resolution (bounded: the same work whatever the log's length):
 *     - the first line: must be seq 1, session/start, with an absolute cwd;
 *     - the last WARDEN_SESSION_TAIL_CHECK complete lines, each fully and
 *       against each other (seq steps, knob fold); a refresh skips this
 *       when the file's size, mtime and ctime are what this handle saw
 *       right after its own last check or write (as an append does,
 *       below): every line in the window was then checked or written by
 *       this handle, and its seq and knobs stand.
 *   every append (under LOCK_EX):
 *     - the last complete line, the one the new line builds on; skipped
 *       when the file's size, mtime and ctime are what this handle saw
 *       right after its own last check or write (writers only grow the
 *       file beyond what they saw, or cut it back to that, so nothing
 *       changed).
 *   warden_session_replay (session show; reads the whole log):
 *     - every line, in order, from line 1.
 *
 * A torn final line — no trailing newline, or JSON cut short at the end —
 * is ignored with one warning on stderr.  Any other damage in a line that
 * is read is an error (WARDEN_EDATA) naming the line (by number in a full
 * replay, by byte offset in the bounded check), and the session cannot be
 * used: no caller falls back to defaults.  Damage in the middle of a long
 * log, outside the lines the bounded check reads, is found by a replay.
 *
 * Locking.  Readers take LOCK_SH, writers LOCK_EX, on the log file itself.
 */
#ifndef WARDEN_SESSION_H
#define WARDEN_SESSION_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "error.h"
#include "grant.h"
#include "wconfig.h"

#define WARDEN_SESSION_ID_MAX 128
#define WARDEN_PRESET_NAME_MAX 255
/* The longest event line accepted, newline included. */
#define WARDEN_SESSION_LINE_MAX (1024 * 1024)
/* Complete lines at the end of the log that the bounded check validates. */
#define WARDEN_SESSION_TAIL_CHECK 8

enum warden_event_type {
	WARDEN_EVENT_SESSION_START = 1,
	WARDEN_EVENT_SANDBOX_MODE,
	WARDEN_EVENT_APPROVAL_POLICY,
	WARDEN_EVENT_PERMISSION_PRESET,
	WARDEN_EVENT_APPROVAL_ASKED,
	WARDEN_EVENT_APPROVAL_DECIDED,
	WARDEN_EVENT_SANDBOX_RUN,
	WARDEN_EVENT_SANDBOX_NETWORK,
	WARDEN_EVENT_SANDBOX_ROOTS,
	WARDEN_EVENT_APPROVAL_GRANT,
	WARDEN_EVENT_APPROVAL_REVOKE,
	WARDEN_EVENT_NETWORK_CONNECT,   /* one connection through the proxy */
};

/* The most bytes the paths of a session's writable roots take together,
 * NULs included (WARDEN_ROOTS_MAX of them at most: wconfig.h). */
#define WARDEN_ROOTS_TEXT_MAX 8192

int warden_event_type_parse(const char *s);      /* enum or -1 */
const char *warden_event_type_name(int type);    /* NULL if unknown */

/* The knobs as the log records them; 0 / "" = never written. */
struct warden_knobs {
	int mode;                                /* last sandbox/mode */
	int policy;                              /* last approval/policy */
	char preset[WARDEN_PRESET_NAME_MAX + 1]; /* last permission/preset */
	int network;                             /* last sandbox/network */
	int roots_set;                           /* a sandbox/roots was written */
	size_t n_roots;                          /* in its list */
	char roots[WARDEN_ROOTS_TEXT_MAX];       /* its paths, each ended by NUL */
	size_t n_grants;                         /* the grants in force */
	struct warden_grant_ref grants[WARDEN_GRANTS_MAX]; /* in grant order */
};

/* The roots of k (k->n_roots of them) into out; their number. */
size_t warden_knobs_roots(const struct warden_knobs *k,
                          const char *out[WARDEN_ROOTS_MAX]);

struct warden_session;

/* 0 when id matches [A-Za-z0-9._-]{1,128} and is not "." or "..";
 * else -WARDEN_EUSAGE.  The message never echoes the id (it may hold
 * terminal escapes) and it is never used as a path. */
int warden_session_id_check(const char *id, struct warden_error *err);

/*
 * Creates a session whose root is `cwd` (NULL: the process's current
 * directory), resolved with realpath; it must be a directory.  The id is
 * fresh (UTC time + 64 random bits), the file created with O_EXCL, and
 * session/start written and made durable before returning.  *id_out is
 * malloc'd.
 */
int warden_session_create(const struct warden_config *cfg, const char *cwd,
                          char **id_out, struct warden_error *err);

/* Opens an existing session and runs the bounded check (see above).
 * Unknown id: -WARDEN_EUSAGE; damage: -WARDEN_EDATA. */
int warden_session_open(const struct warden_config *cfg, const char *id,
                        struct warden_session **out, struct warden_error *err);

void warden_session_close(struct warden_session *s);

const char *warden_session_id(const struct warden_session *s);
const char *warden_session_path(const struct warden_session *s);
/* The resolved cwd recorded in session/start. */
const char *warden_session_cwd(const struct warden_session *s);
/* The knobs and last seq as of the last open/refresh/append. */
const struct warden_knobs *warden_session_knobs(const struct warden_session *s);
uint64_t warden_session_last_seq(const struct warden_session *s);

/* Re-reads the tail (bounded check) so the knobs above are current. */
int warden_session_refresh(struct warden_session *s, struct warden_error *err);

/*
 * In a child after fork(): opens the log anew for this process.  A lock
 * on the log belongs to the open file description, which a fork shares,
 * so without this a child and its parent appending at once would not
 * exclude each other (two lines with one seq: a damaged log).  The new
 * descriptor must name the same file, else an error and nothing changes.
 */
int warden_session_reopen(struct warden_session *s, struct warden_error *err);

/*
 * Appends one audit event: type is "approval/asked", "approval/decided",
 * "sandbox/run" or "network/connect"; fields is a JSON object (borrowed, not modified; NULL =
 * none).  The knob events have their own writers below and session/start
 * is written only by create.  Returns once the line is written (and
 * fsync'd under durability fsync); on failure nothing was appended.
 */
int warden_session_append(struct warden_session *s, const char *type,
                          json_t *fields, struct warden_error *err);

/* The single write path of each knob.  They append only when the
 * recorded value differs (*changed says whether they did; may be NULL). */
int warden_session_set_mode(struct warden_session *s, int mode,
                            int *changed, struct warden_error *err);
int warden_session_set_policy(struct warden_session *s, int policy,
                              int *changed, struct warden_error *err);
int warden_session_set_network(struct warden_session *s, int network,
                               int *changed, struct warden_error *err);
/* The session's whole list of writable roots beside its cwd (each
 * absolute, resolved and normal; checked by the caller, roots.h). */
int warden_session_set_roots(struct warden_session *s, const char *const *roots,
                             size_t n, int *changed, struct warden_error *err);
/* Records a grant: fields holds grant, key, scope and the rest
 * (session.h, above); it is checked as replay checks it.  Works inside a
 * transaction (approval.c writes it with approval/decided). */
int warden_session_grant(struct warden_session *s, json_t *fields,
                         struct warden_error *err);
/* Revokes the grant id in force; -WARDEN_EUSAGE when no such grant is. */
int warden_session_revoke(struct warden_session *s, const char *id,
                          struct warden_error *err);
/* Records a permission/preset selection; only preset select calls it. */
int warden_session_set_preset(struct warden_session *s, const char *name,
                              int *changed, struct warden_error *err);

/*
 * From now on, in this process, taking a session log's lock fails once
 * *flag is set, also while it waits for another holder: the call fails
 * with WARDEN_EREFUSED ("cancelled ...: nothing was written").  serve's
 * workers pass the flag their cancel raises (not for approve, whose
 * audit is written whatever the outcome); NULL: waits go on.
 */
void warden_session_cancel_on(const volatile sig_atomic_t *flag);

/*
 * Runs fn under the exclusive lock, with the knobs as the log has them at
 * that moment.  Every append fn makes (through the writers above) is
 * buffered and written with the others in one write(2) when fn returns 0;
 * nothing is written when it fails.  This is how preset select changes up
 * to four knobs atomically.
 */
typedef int (*warden_session_txn_fn)(struct warden_session *s,
                                     const struct warden_knobs *now,
                                     void *ud, struct warden_error *err);
int warden_session_transaction(struct warden_session *s,
                               warden_session_txn_fn fn, void *ud,
                               struct warden_error *err);

/*
 * Reads and validates every line from the first (LOCK_SH held
 * throughout).  For each valid event calls fn(line_no, event, ud), if fn
 * is not NULL; event is the parsed line, borrowed for the call.  A
 * nonzero return from fn stops the replay and is returned.  *knobs (may be
 * NULL) receives the fold of the whole log.
 */
typedef int (*warden_session_event_fn)(uint64_t line_no, json_t *event,
                                       void *ud);
int warden_session_replay(struct warden_session *s, warden_session_event_fn fn,
                          void *ud, struct warden_knobs *knobs,
                          struct warden_error *err);

/*
 * The grants in force in the session, in grant order, each as {"id",
 * "name" (exact, prefix:N, destination), "text" (one line: what it
 * covers), "scope", "seq", "time", "answerer", "request_id"}: a replay
 * of the whole log (every line checked), the grant events read back.
 * *out is a new array.
 */
int warden_session_grants(struct warden_session *s, json_t **out,
                          struct warden_error *err);

/* Policy resolution (DESIGN §2) lives in policy.h. */
#include "policy.h"

#endif
