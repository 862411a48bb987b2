/*
 * guard.h — the seccomp filter warden-landlock-run installs before exec.
 *
 * Landlock governs opening, creating, removing, renaming, linking and
 * truncating files, but not metadata: chmod, chown, utime, xattrs and
 * ioctls on a descriptor go through.  The guard closes what a syscall
 * filter can see without paths:
 *
 *   every mode      ioctl(2) only for an allowlist of requests (guard.c:
 *                   terminal attributes, window size, pty set-up, FIONREAD,
 *                   FIONBIO, FIOCLEX, reading inode flags and version, ...);
 *                   TIOCSTI gets EPERM, the requests that change a file's
 *                   inode flags, generation or fsxattr (chattr, SETVERSION)
 *                   EACCES, every other request ENOTTY.  No fresh user
 *                   namespace (unshare/clone with CLONE_NEWUSER: EPERM;
 *                   clone3, whose flags a filter cannot read: ENOSYS, libc
 *                   falls back to clone); io_uring refused (ENOSYS: its
 *                   SETXATTR ops would bypass the filter); any syscall newer
 *                   than this table (ENOSYS, the answer of an older kernel)
 *                   so that a future metadata call is not silently allowed;
 *                   syscalls of a foreign ABI (x32, or anything but the
 *                   native and i386 ABIs) get ENOSYS.
 *   read-only       also every metadata change, anywhere (EACCES, the
 *                   errno Landlock itself answers with): the chmod,
 *                   chown, utime and xattr families.  Nothing is writable in
 *                   this mode but /dev/null, so nothing legitimate is lost.
 *   workspace-write metadata calls stay allowed: a filter cannot tell a
 *                   path inside the root from one outside, and refusing
 *                   `chmod +x` in the workspace would break ordinary work.
 *                   The backend therefore reports this mode `partial`.
 *   WARDEN_GUARD_NO_IPC  (when the runner could not make an IPC namespace)
 *                   SysV IPC (shm*, sem*, msg*, ipc) and POSIX message
 *                   queues (mq_*) get EPERM, so nothing reaches the host's.
 */
#ifndef WARDEN_LANDLOCK_GUARD_H
#define WARDEN_LANDLOCK_GUARD_H

#include <stddef.h>

#define WARDEN_GUARD_READ_ONLY 1u  /* refuse metadata changes everywhere */
#define WARDEN_GUARD_NO_IPC 2u     /* refuse SysV IPC and POSIX mqueues */

/* Installs the guard on the calling thread (no_new_privs must be set).
 * Returns 0, or -1 with errno set. */
int warden_guard_install(unsigned flags);

#endif
