/*
 * denyread.h — secrets kept unread: the `deny_read` list (DESIGN §2 "The
 * command's view of the host").
 *
 * A pattern is a path whose components may be fnmatch(3) globs ('*'
 * matches a leading dot too) and whose `**` component stands for any
 * number of directories:
 *   ~/REST     under the invoking user's home (the password entry's, and
 *              $HOME when that differs)
 *   /ABS       absolute
 *   REL        under each writable root (`**` then `.env`: every .env)
 * No '.', '..' or empty component, no trailing '/'.  The list is
 * expanded when a run is confined, against what exists then: a file made
 * later under a glob is not covered.  Each match is resolved (a link to
 * a secret hides the secret); a match inside another is dropped.
 */
#ifndef WARDEN_DENYREAD_H
#define WARDEN_DENYREAD_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "wconfig.h"

/* The default list (deny_read_defaults = true), NULL-terminated; the
 * state directory is added by warden_deny_patterns(). */
extern const char *const warden_deny_defaults[];

/* Limits: matches per run, entries a `**` may look through. */
#define WARDEN_DENY_MAX 128
#define WARDEN_DENY_WALK_MAX 20000

/* NULL when pattern is well formed, else what is wrong with it. */
const char *warden_deny_pattern_problem(const char *pattern);

struct warden_deny {
	char **paths;           /* resolved, absolute, sorted by first match */
	const char **patterns;  /* the pattern each came from (borrowed) */
	size_t n;
	/* The patterns in effect (the defaults, the config's lines, the
	 * state directory), owned. */
	char **list;
	size_t n_list;
};

void warden_deny_init(struct warden_deny *d);
void warden_deny_free(struct warden_deny *d);

/*
 * Expands cfg's list for a run whose writable roots are roots[0..n).
 * 0, or a negative status with err naming the pattern (a `**` that looks
 * through more than WARDEN_DENY_WALK_MAX entries, more than
 * WARDEN_DENY_MAX matches).
 */
int warden_deny_expand(const struct warden_config *cfg,
                       const char *const *roots, size_t n_roots,
                       struct warden_deny *d, struct warden_error *err);

/* The home directory of uid in /etc/passwd, read directly (glibc's NSS
 * lookups crash on a failed allocation): 1 with out set, 0 when none,
 * -1 with errno when the file could not be read. */
int warden_passwd_home(uid_t uid, char out[PATH_MAX]);

/* The pattern whose match path is, or lies under; NULL for none.
 * *match (may be NULL) gets the match. */
const char *warden_deny_covers(const struct warden_deny *d, const char *path,
                               const char **match);

#endif
