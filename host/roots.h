/*
 * roots.h — the writable roots beside the workspace root (DESIGN §2 "The
 * command's view of the host"): which directories a workspace-write run
 * may write besides its root, where each came from, and the common
 * directory of a git worktree.
 *
 * The plain roots are the session's list (its last sandbox/roots event,
 * session.h) when it has one, else the config's writable_roots.  Each is
 * resolved (realpath) when a run is confined and must be a directory that
 * is neither "/", nor the workspace root, nor inside it or another root,
 * nor one that holds the workspace root or another root; a session's root
 * must still resolve to the path `roots add` recorded (a symlink planted
 * since does not move it).  A home directory, or one holding it, is
 * refused.  A listed root that is a git directory (HEAD, objects/, refs/:
 * a bare repository, or a `.git` named on its own) is given the kind
 * WARDEN_ROOT_GIT_COMMON_DIR, so that its hooks and config stay
 * read-only as in a worktree's common directory.
 *
 * A git worktree.  When the workspace root or a plain root is a linked
 * worktree — its `.git` is a regular file "gitdir: X", X being
 * C/worktrees/NAME of the main repository's common directory C — C is
 * added as a root of kind WARDEN_ROOT_GIT_COMMON_DIR (plugin.h): git
 * writes its objects, refs and logs and the worktree's index there.  The
 * `.git` file and X/commondir lie in writable roots, so a command could
 * rewrite them to aim the next run's grant anywhere.  C is granted only
 * when every link checks out from both ends: X/commondir leads to C
 * without a symbolic link; C/worktrees/NAME is X itself; X/gitdir leads
 * back to this root's `.git`; C is a real directory (no link) owned by
 * the caller, holding HEAD, objects/ and refs/; C is not "/" and holds no
 * root.  Only a repository whose owner made the worktree passes: none of
 * these files can be made outside a writable root, and C inside a
 * writable root needs no grant (that root's own protected paths hold
 * there).  A worktree that fails a check gets nothing more, and the
 * reason is kept (notes) for run --json, confine --json and session
 * state: its git writes are then denied, never silently granted.
 */
#ifndef WARDEN_ROOTS_H
#define WARDEN_ROOTS_H

#include <jansson.h>

#include "error.h"
#include "session.h"
#include "wconfig.h"

/* Plain roots, one common directory per worktree among them and the
 * workspace root. */
#define WARDEN_ROOTS_ALL (2 * WARDEN_ROOTS_MAX + 1)

struct warden_roots {
	size_t n;
	char *path[WARDEN_ROOTS_ALL];     /* resolved, normal */
	int kind[WARDEN_ROOTS_ALL];       /* enum warden_root_kind */
	int source[WARDEN_ROOTS_ALL];     /* WARDEN_SOURCE_CONFIG or _SESSION;
	                                     _DERIVED: a worktree's common dir */
	char *worktree[WARDEN_ROOTS_ALL]; /* GIT_COMMON_DIR: the root whose
	                                     .git file leads there */
	int fd[WARDEN_ROOTS_ALL];         /* O_PATH after warden_roots_open */
	int list_source;                  /* where the plain list came from */
	char *notes[WARDEN_ROOTS_ALL];    /* why a worktree got nothing more */
	size_t n_notes;
};

void warden_roots_init(struct warden_roots *r);
void warden_roots_free(struct warden_roots *r);

/* The roots beside `root` (the resolved workspace root) from the
 * session's knobs k (NULL: none) or cfg, with the worktrees' common
 * directories.  A plain root that does not resolve or breaks a rule above
 * is an error naming it and how to fix it; nothing is granted. */
int warden_roots_resolve(const struct warden_config *cfg,
                         const struct warden_knobs *k, const char *root,
                         struct warden_roots *out, struct warden_error *err);

/* Opens each root as warden_root_open does (policy.h): fd[i] is the
 * directory path[i] names now, or an error. */
int warden_roots_open(struct warden_roots *r, struct warden_error *err);

/* `roots add DIR`: dir resolved into out and checked against root and
 * the roots r holds now (the same rules).  0, or an error saying why and
 * what to do instead. */
int warden_roots_check_new(const char *dir, const char *root,
                           const struct warden_roots *r, char out[PATH_MAX],
                           struct warden_error *err);

/* dir as a list of roots names it: resolved when it exists, else made
 * absolute (against the current directory) and normal, else as given. */
void warden_roots_dir_resolve(const char *dir, char out[PATH_MAX]);

/*
 * `roots add DIR` / `roots remove DIR` on the session s: the session's
 * list (before its first sandbox/roots, the config's) with DIR added
 * (resolved and checked: warden_roots_check_new) or taken out (matched
 * resolved, or as written when it no longer resolves), written as one
 * sandbox/roots event under the log's lock; nothing is written when it
 * fails.  resolved: DIR as it was matched or added.
 */
int warden_roots_change(const struct warden_config *cfg, struct warden_session *s,
                        const char *dir, int add, char resolved[PATH_MAX],
                        int *changed, struct warden_error *err);

/* [{"path", "kind": "plain"|"git-common-dir", "source": "config"|
 * "session"|"worktree", "worktree"?}...]; NULL when out of memory. */
json_t *warden_roots_json(const struct warden_roots *r);
/* The notes as a JSON array of strings; NULL when out of memory. */
json_t *warden_roots_notes_json(const struct warden_roots *r);

/* The name of a root kind: "plain", "git-common-dir". */
const char *warden_root_kind_name(int kind);

#endif
