/*
 * launch.c — the launcher's duties that the bwrap backend also does itself
 * when the host spawns bwrap directly (plugin.h, spawn_env): which
 * variables the dynamic loader honours, and the pins bwrap leaves on the
 * host.  One source for both, linked into warden-bwrap-exec and bwrap.so,
 * so that the two cannot drift apart.  See launcher.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher.h"
#include "netguard.h"

static const char *const unsafe[] = {
	"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES",
	"LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE", "NIS_PATH", "NLSPATH",
	"RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR",
};

size_t warden_bwrap_loader_name(const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n, i;

	if (eq == NULL || eq == entry)
		return 0;
	n = (size_t)(eq - entry);
	if (n > 3 && strncmp(entry, "LD_", 3) == 0)
		return n;
	for (i = 0; i < sizeof(unsafe) / sizeof(*unsafe); i++)
		if (strlen(unsafe[i]) == n && strncmp(entry, unsafe[i], n) == 0)
			return n;
	return 0;
}

int warden_bwrap_rel_ok(const char *rel)
{
	const char *s = rel, *e;

	if (*rel == '\0' || *rel == '/')
		return 0;
	for (;;) {
		e = strchr(s, '/');
		if (e == NULL)
			e = s + strlen(s);
		if (e == s || (e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		if (*e == '\0')
			return 1;
		s = e + 1;
	}
}

/* The directory holding u's last component, reached from its root without
 * following a link (buf holds the components; *last the last one), or
 * -1. */
static int open_parent(const struct warden_bwrap_pin *u, char *buf,
                       size_t buflen, const char **last)
{
	char *s, *e;
	int fd, next;

	if ((size_t)snprintf(buf, buflen, "%s", u->rel) >= buflen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(u->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (s = buf; fd >= 0 && (e = strchr(s, '/')) != NULL; s = e + 1) {
		*e = '\0';
		next = openat(fd, s, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	*last = s;
	return fd;
}

int warden_bwrap_pin_missing(const struct warden_bwrap_pin *u)
{
	char buf[4096];
	const char *last;
	struct stat st;
	int fd = open_parent(u, buf, sizeof(buf), &last), r;

	if (fd < 0)
		return 0;
	r = fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
	close(fd);
	return r;
}

int warden_bwrap_pin_make(struct warden_bwrap_pin *u)
{
	char buf[4096];
	const char *last;
	struct stat st;
	size_t n = strlen(u->text);
	int dir = open_parent(u, buf, sizeof(buf), &last), fd = -1, e;

	if (dir < 0)
		return -1;
	fd = openat(dir, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	            0644);
	e = errno;
	if (fd >= 0 && (write(fd, u->text, n) != (ssize_t)n || fstat(fd, &st) < 0)) {
		e = errno ? errno : EIO;
		close(fd);
		(void)unlinkat(dir, last, 0);
		fd = -1;
	} else if (fd >= 0 && close(fd) < 0) {
		e = errno;
		(void)unlinkat(dir, last, 0);
		fd = -1;
	} else if (fd >= 0) {
		fd = 0;
	}
	close(dir);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	u->dev = st.st_dev;
	u->ino = st.st_ino;
	return 0;
}

/* Whether the file last in dir is the one warden_bwrap_pin_make made for
 * u, unchanged. */
static int made_unchanged(const struct warden_bwrap_pin *u, int dir,
                          const char *last, const struct stat *st)
{
	char buf[256];
	size_t n = strlen(u->text);
	ssize_t got;
	int fd, same;

	if (st->st_dev != u->dev || st->st_ino != u->ino ||
	    (size_t)st->st_size != n || n >= sizeof(buf))
		return 0;
	fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, buf, sizeof(buf));
	same = got == (ssize_t)n && memcmp(buf, u->text, n) == 0;
	close(fd);
	return same;
}

void warden_bwrap_pin_remove(const struct warden_bwrap_pin *u)
{
	char buf[4096];
	const char *last;
	struct stat st;
	int fd = open_parent(u, buf, sizeof(buf), &last);

	if (fd < 0)
		return;
	if (fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			(void)unlinkat(fd, last, AT_REMOVEDIR);  /* fails unless empty */
		else if (S_ISREG(st.st_mode) &&
		         (u->text != NULL ? made_unchanged(u, fd, last, &st)
		                          : st.st_size == 0))
			(void)unlinkat(fd, last, 0);
	}
	close(fd);
}

int warden_bwrap_netguard_memfd(int flags)
{
	struct sock_filter insn[WARDEN_NETGUARD_MAX_INSNS];
	const char *p = (const char *)insn;
	size_t left;
	ssize_t n;
	int len, fd, e;

	len = warden_netguard_build(flags, insn, WARDEN_NETGUARD_MAX_INSNS);
	if (len < 0)
		return -1;
	fd = (int)syscall(SYS_memfd_create, "warden-netguard", 0);
	if (fd < 0)
		return -1;
	for (left = (size_t)len * sizeof(*insn); left > 0; left -= (size_t)n, p += n) {
		n = write(fd, p, left);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
