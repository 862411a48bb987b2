/*
 * launcher.h — what warden-bwrap-exec and the bwrap backend agree on: the
 * launcher's name, its exit status and the start of its one fatal line
 * (the backend's second runner-failure rule).
 */
#ifndef WARDEN_BWRAP_LAUNCHER_H
#define WARDEN_BWRAP_LAUNCHER_H

#define WARDEN_BWRAP_EXEC_NAME "warden-bwrap-exec"
#define WARDEN_BWRAP_EXEC_EXIT 125
#define WARDEN_BWRAP_EXEC_FATAL WARDEN_BWRAP_EXEC_NAME ": fatal: "

/*
 * Runs that overlap on one workspace root.  A pin is a mount point bwrap
 * creates on the host for a protected path that does not exist; the run
 * that made it removes it when its bwrap has ended.  A run that started
 * meanwhile saw the pin as an existing path and binds it read-only, and
 * removing a mount point's path on the host detaches every mount on it,
 * in every namespace: the later run's protected path would turn writable
 * under its command.  So every run holds a shared flock(2) on the root
 * directory from before the backend looks at the protected paths until
 * its launcher has ended, and a launcher removes its pins only when it
 * can turn its lock exclusive at once (no other run holds one); else it
 * leaves them, empty and harmless, where they are.
 *
 * warden_bwrap_lock_shared(fd): the shared lock on fd (a directory opened
 * for reading), waiting at most WARDEN_BWRAP_LOCK_WAIT_MS for an
 * exclusive holder (a cleanup takes milliseconds; a command in a sandbox
 * can lock the root too, and then no run starts there: refused, never
 * run without the lock).  0, or -1 with errno.
 */
#define WARDEN_BWRAP_LOCK_WAIT_MS 5000
/* At most this many roots' locks in one run (the workspace root and the
 * roots beside it): the launcher's --lock/--lock-fd and the host's run. */
#define WARDEN_BWRAP_MAX_LOCKS (1 + 64)

#include <errno.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/types.h>
#include <time.h>

/*
 * launch.c: what the launcher does that the backend also does itself
 * when the host spawns bwrap directly (plugin.h, spawn_env).
 *
 * warden_bwrap_loader_name(entry): the length of NAME in "NAME=VALUE"
 * when the dynamic loader honours NAME (every LD_ name, and the others
 * glibc drops for a set-uid program: its "unsecure" list), else 0.  Such
 * a variable is moved from bwrap's environment to its command's
 * (--setenv NAME VALUE).
 *
 * A pin: a protected path under root (rel: no empty, "." or ".."
 * component, warden_bwrap_rel_ok) that does not exist and that bwrap
 * binds over, creating its mount point on the host; text: the content a
 * file made for it must hold (git's commondir), else NULL.  Every path
 * is reached from root without following a link.
 * warden_bwrap_pin_missing: it does not exist now (its directory does).
 * warden_bwrap_pin_make: creates the missing file with text (O_EXCL),
 * remembering which file it is; 0, or -1 with errno (nothing left).
 * warden_bwrap_pin_remove: removes it when it is an empty directory or an
 * empty regular file, or the file made for it still as made.
 */
struct warden_bwrap_pin {
	const char *root;
	const char *rel;
	const char *text;
	dev_t dev;              /* the file made for text */
	ino_t ino;
};

/* The network guard (netguard.h, built for flags) in a memfd at offset
 * 0, not close-on-exec, for bwrap --seccomp FD; -1 with errno. */
int warden_bwrap_netguard_memfd(int flags);

size_t warden_bwrap_loader_name(const char *entry);
int warden_bwrap_rel_ok(const char *rel);
int warden_bwrap_pin_missing(const struct warden_bwrap_pin *u);
int warden_bwrap_pin_make(struct warden_bwrap_pin *u);
void warden_bwrap_pin_remove(const struct warden_bwrap_pin *u);

static inline int warden_bwrap_lock_shared(int fd)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int waited = 0;

	for (;;) {
		if (flock(fd, LOCK_SH | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (waited >= WARDEN_BWRAP_LOCK_WAIT_MS) {
			errno = EWOULDBLOCK;
			return -1;
		}
		nanosleep(&tick, NULL);
		waited += 10;
	}
}

#endif
