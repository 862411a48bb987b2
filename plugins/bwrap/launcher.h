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

#include <errno.h>
#include <sys/file.h>
#include <time.h>

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
