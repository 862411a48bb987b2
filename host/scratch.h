/*
 * scratch.h — the command's temp area (DESIGN §2 "The command's view of
 * the host").
 *
 * A confined command sees the host's /tmp as it is, read-only, and writes
 * its temporary files in a directory of its own that TMPDIR names: every
 * temp area of a user lives in one directory of the host's /tmp,
 * WARDEN_SCRATCH_BASE/warden-UID (mode 0700, the user's own: never a
 * link, never another user's, never open to others), a session's is its
 * id inside it and is kept across the session's runs, a run without a
 * session gets run+XXXXXXXX ('+' is never in a session id), removed (without following any link) when
 * the run ends.  Backends hide the other entries of warden-UID: another
 * session's files stay unread.
 */
#ifndef WARDEN_SCRATCH_H
#define WARDEN_SCRATCH_H

#include <limits.h>

#include "error.h"

#define WARDEN_SCRATCH_BASE "/tmp"

/* Where warden-UID is made: WARDEN_SCRATCH_BASE, which only the unit
 * tests change (to a directory of their own, so that what they do to
 * warden-UID never meets a real run's). */
extern const char *warden_scratch_base;

struct warden_scratch {
	char dir[PATH_MAX];     /* the area, absolute */
	char parent[PATH_MAX];  /* WARDEN_SCRATCH_BASE/warden-UID */
	int fd;                 /* O_PATH of dir, or -1 */
	int per_run;            /* removed by warden_scratch_close() */
};

/* The directory every temp area of the user lies in
 * (WARDEN_SCRATCH_BASE/warden-UID), resolved as far as it exists: a
 * writable root for what an approval judges (host/program.h), since a
 * confined run of any session writes there. */
void warden_scratch_parent(char out[PATH_MAX]);

/* Nothing open: fd -1, dir "". */
void warden_scratch_init(struct warden_scratch *s);

/* Makes (or finds) the temp area of session_id, or a fresh one for one
 * run when session_id is NULL or "".  0, or a negative status with err
 * naming the directory and what is wrong with it.  0 with dir "" when
 * the caller may not write the base at all (warden itself confined):
 * there is no area, and the backend keeps a /tmp of its own. */
int warden_scratch_open(struct warden_scratch *s, const char *session_id,
                        struct warden_error *err);

/* Makes (or finds) in the base directory an empty regular file and an
 * empty directory, both mode 000 (void+file, void+dir: '+' is never in
 * a session id), for a backend to bind over what deny_read hides.  0
 * with both paths set; 0 with both "" when the base may not be written
 * (warden itself confined); a negative status with err when one of them
 * is anything else (removed, then made again, or named). */
int warden_scratch_voids(char file[PATH_MAX], char dir[PATH_MAX],
                         struct warden_error *err);

/* Closes the descriptor and removes a per-run area with everything in it
 * (links are removed, never followed).  Safe on an initialised s. */
void warden_scratch_close(struct warden_scratch *s);

/* Removes name in dirfd and, for a directory, everything below it,
 * without following a link; directories deeper than max_depth are left.
 * 0, or -1 with errno when something stayed. */
int warden_scratch_remove_tree(int dirfd, const char *name, int max_depth);

#endif
