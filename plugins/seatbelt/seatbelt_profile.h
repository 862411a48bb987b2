/*
 * seatbelt_profile.h — the Seatbelt (SBPL) profile of a confining mode.
 *
 * Plain C with no macOS dependency, so that the exact text sandbox-exec
 * receives is built and unit-tested on every platform
 * (tests/test_seatbelt_profile.c); the backend (seatbelt.c) only runs it.
 *
 * The profile allows everything, then denies every file write (file-write*
 * covers data, create, unlink, rename, links, mode, owner, times and
 * xattrs), then allows writes again under an allow list of canonical
 * paths; in SBPL the last matching rule decides:
 *
 *   (version 1)
 *   (allow default)
 *   (deny file-write*)
 *   (allow file-write*
 *     (literal "/dev/null")
 *     (subpath "ROOT")              workspace-write only
 *     (subpath "/private/tmp")      workspace-write only
 *     (subpath "USER_TMP"))         workspace-write, when given
 *
 * Paths must be canonical (absolute, no "." or ".." or empty component,
 * no trailing slash): Seatbelt matches the resolved path, so /tmp must be
 * given as /private/tmp.  A path with a control character (newline, NUL
 * cannot occur) is refused rather than escaped: no file name a workspace
 * root resolves to needs one, and refusing keeps the profile one rule per
 * line.  Backslash and double quote are escaped with a backslash, the SBPL
 * (Scheme) string syntax.
 */
#ifndef WARDEN_SEATBELT_PROFILE_H
#define WARDEN_SEATBELT_PROFILE_H

#include <stddef.h>

/* Builds the profile of mode (enum warden_mode) into a malloc'd string in
 * *out.  root: the workspace root (workspace-write; ignored in read-only);
 * user_tmp: the per-user temp dir (confstr _CS_DARWIN_USER_TEMP_DIR,
 * resolved) or NULL.  Returns 0, or -1 with one line in err (nothing in
 * *out). */
int warden_seatbelt_profile(int mode, const char *root, const char *user_tmp,
                            char **out, char *err, size_t errlen);

#endif
