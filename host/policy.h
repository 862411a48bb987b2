/*
 * policy.h — policy resolution: one call that says in which mode, under
 * which approval policy and preset, and under which workspace root an
 * action runs, and where each value came from (DESIGN §2, §3, §4).
 *
 *   mode    explicit (an approved one-shot escalation) > the session's
 *           last sandbox/mode > the config's default_mode
 *   policy  the session's last approval/policy > the config's
 *           approval_policy
 *   network explicit (an approved one-shot escalation) > enabled under
 *           danger-full-access (nothing is confined) > the session's last
 *           sandbox/network > the config's default_network (restricted
 *           when unset)
 *   preset  current(): the last permission/preset selection while it
 *           still matches the knobs, else the first declared preset that
 *           matches, else "custom" (preset.h)
 *   root    the session's cwd (session/start); without a session, the
 *           configured workspace_root; with neither, the process's
 *           current directory.  Resolved with realpath first (symlinks
 *           and ".." as the kernel sees them), then normalised lexically.
 *           A root that does not resolve, or is not a directory, is an
 *           error — never a fallback to another root.  A session's root
 *           must resolve to exactly the path session new recorded: when a
 *           symlink planted since (or a directory moved) makes it lead
 *           elsewhere, the resolution fails with WARDEN_EDATA, as for a
 *           damaged session.
 *
 * A session that cannot be opened or fails its check (session.h) makes
 * the resolution fail: nothing runs on a damaged session.
 */
#ifndef WARDEN_POLICY_H
#define WARDEN_POLICY_H

#include <limits.h>

#include "error.h"
#include "wconfig.h"

struct warden_session;

/* Where a resolved value came from. */
enum warden_source {
	WARDEN_SOURCE_EXPLICIT = 1, /* the caller's approved mode */
	WARDEN_SOURCE_SESSION,      /* the session log */
	WARDEN_SOURCE_CONFIG,       /* the config (or its built-in default) */
	WARDEN_SOURCE_CWD,          /* the process's current directory */
	WARDEN_SOURCE_DERIVED,      /* computed from the knobs (preset) */
	WARDEN_SOURCE_MODE,         /* forced by the mode: danger-full-access
	                               has the network enabled */
};

const char *warden_source_name(int source);  /* "explicit", "session", ... */

struct warden_resolved {
	int mode;                   /* enum warden_sandbox_mode */
	int mode_source;
	int policy;                 /* enum warden_approval_policy */
	int policy_source;
	char preset[256];           /* a preset name or "custom" */
	int preset_source;          /* session: the last selection still
	                               matches; derived: first match/custom */
	char root[PATH_MAX];        /* absolute, resolved, normalised */
	int root_source;            /* session, config or cwd */
	char session_id[129];       /* "" without a session */
	int network;                /* enum warden_network */
	int network_source;         /* explicit, mode, session or config */
};

/* session_id may be NULL (no session); explicit_mode 0 = none. */
int warden_policy_resolve(const struct warden_config *cfg,
                          const char *session_id, int explicit_mode,
                          struct warden_resolved *out,
                          struct warden_error *err);

/* The same with a session the caller holds open (its tail is re-read). */
int warden_policy_resolve_session(const struct warden_config *cfg,
                                  struct warden_session *s, int explicit_mode,
                                  struct warden_resolved *out,
                                  struct warden_error *err);

/* The same with an explicitly approved network too (enum warden_network,
 * 0 = none): a one-shot escalation with the network enabled.  s may be
 * NULL (no session). */
int warden_policy_resolve_escalated(const struct warden_config *cfg,
                                    struct warden_session *s, int explicit_mode,
                                    int explicit_network,
                                    struct warden_resolved *out,
                                    struct warden_error *err);

/*
 * Resolves a root: realpath(path), then lexical normalisation (one "/"
 * between segments, no "." or ".." segments, no trailing "/"), and it
 * must be a directory.  `what` names it in errors ("workspace root").
 */
int warden_root_resolve(const char *path, const char *what,
                        char out[PATH_MAX], struct warden_error *err);

/*
 * Opens root (absolute, resolved: no symlink in it) with O_PATH, one
 * component at a time, following no symlink, so that the descriptor is
 * the directory that path names now, or nothing: a component that became
 * a symlink or went away since the root was resolved is WARDEN_EDATA.
 * 0 with *fd (close-on-exec) set.
 */
int warden_root_open(const char *root, int *fd, struct warden_error *err);

/* 1 when the resolved, normalised path p is /proc or below: entries of
 * processes that come and go (/proc/self names a different one for each
 * process), never a directory to work or write in. */
int warden_path_in_proc(const char *p);

/* Lexical normalisation of an absolute path, in place semantics into out
 * (which may be path).  Returns -WARDEN_EDATA for a relative path. */
int warden_path_normalise(const char *path, char out[PATH_MAX],
                          struct warden_error *err);

#endif
