/*
 * scratch.c — the command's temp area; see scratch.h.
 *
 * The base directory lives in a world-writable, sticky /tmp: another user
 * may have made warden-UID first (a link, a directory of theirs, one open
 * to others), so it is opened without following a link and used only when
 * it is the caller's alone.  Once it is, nobody else can rename or replace
 * an entry in it, and everything below is made and opened through its
 * descriptor.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "random.h"
#include "scratch.h"

const char *warden_scratch_base = WARDEN_SCRATCH_BASE;

void warden_scratch_init(struct warden_scratch *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

void warden_scratch_parent(char out[PATH_MAX])
{
	char base[PATH_MAX];
	int n;

	if (realpath(warden_scratch_base, base) == NULL)
		snprintf(base, sizeof(base), "%s", warden_scratch_base);
	n = snprintf(out, PATH_MAX, "%s/warden-%lu",
	             strcmp(base, "/") ? base : "", (unsigned long)geteuid());
	if (n < 0 || n >= PATH_MAX)  /* then nothing is there: the base */
		snprintf(out, PATH_MAX, "%s", base);
}

/* The base directory, made when missing, as a descriptor: -1 with err. */
static int open_base(struct warden_scratch *s, struct warden_error *err)
{
	struct stat st;
	uid_t uid = geteuid();
	int fd;

	snprintf(s->parent, sizeof(s->parent), "%s/warden-%lu",
	         warden_scratch_base, (unsigned long)uid);
	if (mkdir(s->parent, 0700) < 0 && errno != EEXIST) {
		if (errno == EACCES || errno == EPERM || errno == EROFS) {
			/* warden itself confined (a nested run): no area. */
			s->parent[0] = '\0';
			return -2;
		}
		warden_error_errno(err, WARDEN_EIO, errno,
		                   "temp area: cannot make %s", s->parent);
		return -1;
	}
	fd = open(s->parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		warden_error_errno(err, WARDEN_EIO, errno,
		                   "temp area: cannot open %s (it must be a directory, not a link)",
		                   s->parent);
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != uid || (st.st_mode & 077) != 0) {
		warden_error_set(err, WARDEN_EREFUSED,
		                 "temp area: %s belongs to uid %lu with mode %03o: it must be yours alone (mode 0700); another user may have made it: remove it and run again",
		                 s->parent, (unsigned long)st.st_uid,
		                 (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	return fd;
}

/* A fresh per-run name in base: "run+" and 8 random characters ('+' is
 * never in a session id, so no session's area is ever taken). */
static int make_run_dir(int base, char name[32])
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[8];
	int tries, i;

	for (tries = 0; tries < 32; tries++) {
		if (warden_random_bytes(rnd, sizeof(rnd)) < 0)
			return -1;
		memcpy(name, "run+", 4);
		for (i = 0; i < 8; i++)
			name[4 + i] = alpha[rnd[i] % (sizeof(alpha) - 1)];
		name[12] = '\0';
		if (mkdirat(base, name, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int warden_scratch_open(struct warden_scratch *s, const char *session_id,
                        struct warden_error *err)
{
	char name[32];
	const char *entry;
	struct stat st;
	int base, fd;

	warden_scratch_init(s);
	if ((base = open_base(s, err)) == -2)
		return 0;
	if (base < 0)
		return -err->code;
	if (session_id == NULL || session_id[0] == '\0') {
		if (make_run_dir(base, name) < 0) {
			if (errno == EACCES || errno == EPERM || errno == EROFS) {
				close(base);
				s->parent[0] = '\0';
				return 0;
			}
			warden_error_errno(err, WARDEN_EIO, errno,
			                   "temp area: cannot make a directory for this run in %s",
			                   s->parent);
			close(base);
			return -err->code;
		}
		entry = name;
		s->per_run = 1;
	} else {
		entry = session_id;
		if (mkdirat(base, entry, 0700) < 0 && errno != EEXIST) {
			warden_error_errno(err, WARDEN_EIO, errno,
			                   "temp area: cannot make %s/%s", s->parent, entry);
			close(base);
			return -err->code;
		}
	}
	if ((size_t)snprintf(s->dir, sizeof(s->dir), "%s/%s", s->parent, entry) >=
	    sizeof(s->dir)) {
		close(base);
		return warden_error_set(err, WARDEN_EUSAGE, "temp area: its name is too long");
	}
	fd = openat(base, entry, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		warden_error_set(err, WARDEN_EREFUSED,
		                 "temp area: %s is not a directory of yours (%s): remove it and run again",
		                 s->dir, fd < 0 ? strerror(errno) : "another owner");
		if (fd >= 0)
			close(fd);
		if (s->per_run)
			(void)unlinkat(base, entry, AT_REMOVEDIR);
		close(base);
		s->per_run = 0;
		return -err->code;
	}
	close(base);
	s->fd = fd;
	return 0;
}

/* Removes every entry of the open directory fd (taking its ownership of
 * fd), recursing max_depth levels. */
static int empty_dir(int fd, int max_depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	/* A directory the command made unwritable or unsearchable. */
	(void)fchmod(fd, 0700);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (warden_scratch_remove_tree(dirfd(d), e->d_name, max_depth) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int warden_scratch_remove_tree(int dirfd, const char *name, int max_depth)
{
	int fd, saved;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if (max_depth <= 0) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES &&
	    /* A directory (unlinkat said so) the command made unreadable;
	     * nothing of the run is left to swap it. */
	    fchmodat(dirfd, name, 0700, 0) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	saved = empty_dir(fd, max_depth - 1);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		return -1;
	return saved;
}

void warden_scratch_close(struct warden_scratch *s)
{
	int base;
	const char *slash;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->per_run && s->dir[0] != '\0' &&
	    (slash = strrchr(s->dir, '/')) != NULL) {
		base = open(s->parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (base >= 0) {
			(void)warden_scratch_remove_tree(base, slash + 1, 256);
			close(base);
		}
	}
	s->per_run = 0;
	s->dir[0] = '\0';
}

/* One void in base: made when missing, else checked (the caller's, mode
 * 000, of kind dir or not, empty).  0, or -1 with err. */
static int void_entry(int base, const char *parent, const char *name, int dir,
                      struct warden_error *err)
{
	struct stat st;
	int fd = -1, made;

	if (dir)
		made = mkdirat(base, name, 0) == 0;
	else if ((fd = openat(base, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	                      O_CLOEXEC, 0)) >= 0)
		made = 1;
	else
		made = 0;
	if (fd >= 0)
		close(fd);
	if (!made && errno != EEXIST) {
		warden_error_errno(err, WARDEN_EIO, errno, "temp area: cannot make %s/%s",
		                   parent, name);
		return -1;
	}
	if (fstatat(base, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_uid != geteuid() || (st.st_mode & 07777) != 0 ||
	    (dir ? !S_ISDIR(st.st_mode) || st.st_nlink != 2
	         : !S_ISREG(st.st_mode) || st.st_size != 0)) {
		warden_error_set(err, WARDEN_EREFUSED,
		                 "temp area: %s/%s is not an empty %s of yours with mode 000 (what deny_read binds over a secret): remove it and run again",
		                 parent, name, dir ? "directory" : "file");
		return -1;
	}
	return 0;
}

int warden_scratch_voids(char file[PATH_MAX], char dir[PATH_MAX],
                         struct warden_error *err)
{
	struct warden_scratch s;
	int base, rc = 0;

	file[0] = dir[0] = '\0';
	warden_scratch_init(&s);
	if ((base = open_base(&s, err)) == -2)
		return 0;
	if (base < 0)
		return -err->code;
	if (void_entry(base, s.parent, "void+file", 0, err) < 0 ||
	    void_entry(base, s.parent, "void+dir", 1, err) < 0)
		rc = -err->code;
	close(base);
	if (rc == 0) {
		snprintf(file, PATH_MAX, "%.4000s/void+file", s.parent);
		snprintf(dir, PATH_MAX, "%.4000s/void+dir", s.parent);
	}
	return rc;
}
