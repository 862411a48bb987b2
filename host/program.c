/*
 * program.c — see program.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "denyread.h"
#include "env.h"
#include "policy.h"
#include "program.h"
#include "scratch.h"

extern char **environ;

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U       /* linux/memfd.h, Linux 6.3 */
#endif

/* The bytes of a script's first line the kernel looks at. */
#define SHEBANG_MAX 256

void warden_program_init(struct warden_program *p)
{
	memset(p, 0, sizeof(*p));
	p->dir_fd = -1;
	p->exec_fd = -1;
}

static void free_list(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void warden_program_free(struct warden_program *p)
{
	if (p->dir_fd >= 0)
		close(p->dir_fd);
	if (p->exec_fd >= 0)
		close(p->exec_fd);
	free(p->envp);
	free(p->path_entry);
	free(p->pwd_entry);
	warden_env_names_free(p->env_removed, p->n_env_removed);
	warden_env_names_free(p->env_config, p->n_env_config);
	free_list(p->path_dropped, p->n_path_dropped);
	free(p->home_entry);
	warden_program_init(p);
}

int warden_path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int under_any(const char *path, const char *const *roots, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (warden_path_under(path, roots[i]))
			return 1;
	return 0;
}

/* fd moved to 3 or above (spawn.h takes 0 for "none"); -1 stays. */
static int high(int fd)
{
	int h;

	if (fd < 0 || fd >= 3)
		return fd;
	h = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return h;
}

/* The name of what fd refers to, as the kernel keeps it. */
static int fd_name(int fd, char out[PATH_MAX])
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, PATH_MAX - 1);
	if (n < 0 || n >= PATH_MAX - 1)
		return -1;
	out[n] = '\0';
	return 0;
}

/* ------------------------------------------------------------ directory */

int warden_program_dir(struct warden_program *p, const char *requested,
                       const char *root, int root_fd,
                       struct warden_error *err)
{
	char here[PATH_MAX];
	const char *what = "the directory asked for (cwd)";
	int fd;

	if (requested != NULL) {
		fd = high(open(requested, O_PATH | O_DIRECTORY | O_CLOEXEC));
	} else if (getcwd(here, sizeof(here)) != NULL &&
	           warden_path_under(here, root)) {
		what = "the current directory";
		requested = here;
		fd = high(open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
	} else {
		what = "the workspace root";
		requested = root;
		fd = root_fd >= 0 ? high(fcntl(root_fd, F_DUPFD_CLOEXEC, 3))
		                  : high(open(root, O_PATH | O_DIRECTORY | O_CLOEXEC));
	}
	if (fd < 0)
		return warden_error_errno(err, WARDEN_EUSAGE, errno,
		                          "%s %s: the command cannot run there",
		                          what, requested);
	if (fd_name(fd, p->dir) < 0 || p->dir[0] != '/') {
		close(fd);
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "%s %s: its resolved name cannot be read (is /proc mounted?)",
		                        what, requested);
	}
	if (p->dir_fd >= 0)
		close(p->dir_fd);
	p->dir_fd = fd;
	return 0;
}

/* ----------------------------------------------------------------- PATH */

/*
 * Where an absolute path leads as the kernel would resolve it: realpath()
 * of its longest existing prefix, then the rest, lexically normalised.
 * -1 when no prefix resolves for another reason than absence (a loop, no
 * permission).
 */
static int resolve_existing(const char *abs, char out[PATH_MAX])
{
	char prefix[PATH_MAX], real[PATH_MAX], joined[2 * PATH_MAX + 2];
	struct warden_error e = { 0, "" };
	size_t cut = strlen(abs);

	if (cut >= PATH_MAX)
		return -1;
	for (;;) {
		memcpy(prefix, abs, cut);
		prefix[cut] = '\0';
		if (cut == 0)
			strcpy(prefix, "/");
		if (realpath(prefix, real) != NULL)
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		while (cut > 0 && abs[cut - 1] != '/')
			cut--;
		while (cut > 0 && abs[cut - 1] == '/')
			cut--;
	}
	snprintf(joined, sizeof(joined), "%s/%s", real, abs + cut);
	if (strlen(joined) >= PATH_MAX || warden_path_normalise(joined, out, &e) < 0)
		return -1;
	return 0;
}

/* Whether a PATH entry may be searched: absolute, and neither as written
 * nor as resolved under a writable root. */
static int entry_safe(const char *entry, const char *const *roots, size_t n)
{
	char lexical[PATH_MAX], resolved[PATH_MAX];
	struct warden_error e = { 0, "" };

	if (entry[0] != '/' || strlen(entry) >= PATH_MAX ||
	    warden_path_normalise(entry, lexical, &e) < 0)
		return 0;
	if (under_any(lexical, roots, n))
		return 0;
	if (resolve_existing(entry, resolved) < 0)
		return 0;
	return !under_any(resolved, roots, n);
}

static int list_add(char ***list, size_t *n, const char *s, size_t len)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(*grown));
	char *copy;

	if (grown == NULL)
		return -1;
	*list = grown;
	if ((copy = strndup(s, len)) == NULL)
		return -1;
	grown[(*n)++] = copy;
	return 0;
}

struct roots_arg {
	const char *const *roots;
	size_t n;
};

/* A location name's value may be kept when every entry of it (a ':'
 * list; empty entries mean "the default") is absolute and lies, as
 * written and as resolved, outside every writable root. */
static int location_ok(const char *value, void *arg)
{
	const struct roots_arg *r = arg;
	char entry[PATH_MAX];
	const char *s, *colon;
	size_t len;

	for (s = value;; s = colon + 1) {
		colon = strchrnul(s, ':');
		len = (size_t)(colon - s);
		if (len >= sizeof(entry))
			return 0;
		memcpy(entry, s, len);
		entry[len] = '\0';
		if (len > 0 && !entry_safe(entry, r->roots, r->n))
			return 0;
		if (*colon == '\0')
			return 1;
	}
}

int warden_program_env(struct warden_program *p, char *const *env,
                       const char *const *patterns, size_t n_patterns,
                       const char *const *roots, size_t n_roots,
                       struct warden_error *err)
{
	const char *path = WARDEN_PROGRAM_DEFAULT_PATH, *s, *colon;
	char entry[PATH_MAX], home[PATH_MAX], *q;
	size_t i, len, kept = 0;
	struct warden_env_approved a;
	struct warden_env_changes ch;
	struct roots_arg ra;
	int r;

	for (i = 0; env != NULL && env[i] != NULL; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			path = env[i] + 5;  /* the last one, as getenv() */
	p->path_entry = malloc(strlen(path) + 6);
	p->pwd_entry = malloc(strlen(p->dir) + 5);
	if (p->path_entry == NULL || p->pwd_entry == NULL)
		goto oom;
	sprintf(p->pwd_entry, "PWD=%s", p->dir);
	q = stpcpy(p->path_entry, "PATH=");
	for (s = path;; s = colon + 1) {
		colon = strchrnul(s, ':');
		len = (size_t)(colon - s);
		if (len < sizeof(entry)) {
			memcpy(entry, s, len);
			entry[len] = '\0';
		}
		if (len < sizeof(entry) && entry_safe(entry, roots, n_roots)) {
			if (kept++ > 0)
				*q++ = ':';
			q = stpcpy(q, entry);
		} else if (list_add(&p->path_dropped, &p->n_path_dropped, s, len) < 0) {
			goto oom;
		}
		if (*colon == '\0')
			break;
	}
	if (kept == 0)
		return warden_error_set(err, WARDEN_EREFUSED,
		                        "no PATH entry is left once those that are empty, relative or under a writable root of the session (%s) are dropped: nothing safe to search; give PATH directories outside it",
		                        n_roots > 0 ? roots[0] : "none");
	switch (warden_passwd_home(getuid(), home)) {
	case 1:
		if ((p->home_entry = malloc(strlen(home) + 6)) == NULL)
			goto oom;
		sprintf(p->home_entry, "HOME=%s", home);
		break;
	case 0:
		break;  /* no entry: HOME is judged like the rest */
	default:
		return warden_error_errno(err, WARDEN_EOS, errno,
		                          "cannot read /etc/passwd for the user's own HOME");
	}
	a.path_entry = p->path_entry;
	a.pwd_entry = p->pwd_entry;
	a.home_entry = p->home_entry;
	a.location_ok = location_ok;
	a.arg = &ra;
	ra.roots = roots;
	ra.n = n_roots;
	if ((r = warden_env_build_approved(env, patterns, n_patterns, &a, &ch,
	                                   &p->envp, err)) < 0)
		return r;
	p->env_removed = ch.removed;
	p->n_env_removed = ch.n_removed;
	p->env_config = ch.config;
	p->n_env_config = ch.n_config;
	return 0;
oom:
	return warden_error_set(err, WARDEN_EOS, "out of memory");
}

const char *warden_program_path_value(const struct warden_program *p)
{
	return p->path_entry != NULL ? p->path_entry + 5 : "";
}

/* -------------------------------------------------------------- program */

/* What opening one candidate came to. */
enum found { FOUND = 0, ABSENT, NOT_EXEC, DENIED };

/* Opens `name` (relative to dirfd) as an O_PATH descriptor of an
 * executable regular file.  *fd is set with FOUND. */
static int candidate(int dirfd, const char *name, int *fd)
{
	char link[64];
	struct stat st;
	int f;

	*fd = -1;
	f = high(openat(dirfd, name, O_PATH | O_CLOEXEC));
	if (f < 0)
		return errno == EACCES ? DENIED : ABSENT;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", f);
	if (fstat(f, &st) < 0 || !S_ISREG(st.st_mode) || access(link, X_OK) < 0) {
		close(f);
		return NOT_EXEC;
	}
	*fd = f;
	return FOUND;
}

/* Finds argv0 as execvp would in p's PATH (or relative to p's dir).
 * 0 with *fd, or a WARDEN_PROGRAM_* status with why. */
static int find(const struct warden_program *p, const char *argv0, int *fd,
                char *why, size_t whylen)
{
	const char *s, *colon;
	char full[PATH_MAX];
	int r, saw_noexec = 0;

	if (strchr(argv0, '/') != NULL) {
		r = candidate(p->dir_fd, argv0, fd);
		if (r == FOUND)
			return 0;
		snprintf(why, whylen, "%s: %s", argv0,
		         r == ABSENT ? "no such file"
		         : r == DENIED ? "permission denied"
		         : "not an executable regular file");
		return r == ABSENT ? WARDEN_PROGRAM_NOT_FOUND
		                   : WARDEN_PROGRAM_CANNOT_EXEC;
	}
	for (s = warden_program_path_value(p);; s = colon + 1) {
		colon = strchrnul(s, ':');
		if (snprintf(full, sizeof(full), "%.*s/%s", (int)(colon - s), s,
		             argv0) < (int)sizeof(full)) {
			r = candidate(AT_FDCWD, full, fd);
			if (r == FOUND)
				return 0;
			if (r != ABSENT)
				saw_noexec = 1;
		}
		if (*colon == '\0')
			break;
	}
	if (saw_noexec) {
		snprintf(why, whylen, "%s: permission denied (not executable)", argv0);
		return WARDEN_PROGRAM_CANNOT_EXEC;
	}
	snprintf(why, whylen, "%s: command not found in PATH %s", argv0,
	         warden_program_path_value(p));
	return WARDEN_PROGRAM_NOT_FOUND;
}

/* A "#!" script's interpreter into p->interpreter (resolved when it
 * exists, else lexically against dir); rfd reads the script. */
static void interpreter(struct warden_program *p, int rfd)
{
	char buf[SHEBANG_MAX + 1], word[SHEBANG_MAX + 1], joined[2 * PATH_MAX];
	struct warden_error e = { 0, "" };
	ssize_t n = pread(rfd, buf, SHEBANG_MAX, 0);
	size_t i = 2, k = 0;
	int fd;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return;
	buf[n] = '\0';
	p->script = 1;
	while (i < (size_t)n && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	while (i < (size_t)n && buf[i] != ' ' && buf[i] != '\t' &&
	       buf[i] != '\n' && buf[i] != '\0')
		word[k++] = buf[i++];
	word[k] = '\0';
	if (k == 0)
		return;
	fd = openat(p->dir_fd, word, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		if (fd_name(fd, p->interpreter) < 0)
			p->interpreter[0] = '\0';
		close(fd);
	}
	if (p->interpreter[0] != '\0')
		return;
	if (word[0] == '/')
		snprintf(joined, sizeof(joined), "%s", word);
	else
		snprintf(joined, sizeof(joined), "%s/%s", p->dir, word);
	if (strlen(joined) >= PATH_MAX ||
	    warden_path_normalise(joined, p->interpreter, &e) < 0)
		snprintf(p->interpreter, sizeof(p->interpreter), "%.*s",
		         PATH_MAX - 1, word);
}

/* A sealed copy of what rfd reads, executable: nothing can change it. */
static int sealed_copy(int rfd, struct warden_error *err)
{
	char buf[65536];
	ssize_t n, w, off;
	int fd;

	fd = memfd_create("warden-approved", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("warden-approved", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	fd = high(fd);
	if (fd < 0)
		return warden_error_errno(err, WARDEN_EOS, errno,
		                          "cannot make a sealed copy of the program");
	for (;;) {
		n = read(rfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		for (off = 0; off < n; off += w) {
			w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				goto fail;
		}
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
	          F_SEAL_SEAL) < 0)
		goto fail;
	return fd;
fail:
	warden_error_errno(err, WARDEN_EOS, errno,
	                   "cannot make a sealed copy of the program");
	close(fd);
	return -1;
}

int warden_program_open(struct warden_program *p, const char *argv0,
                        const char *const *roots, size_t n_roots,
                        char *why, size_t whylen, struct warden_error *err)
{
	char link[64];
	int fd, rfd, copy, r;

	r = find(p, argv0, &fd, why, whylen);
	if (r != 0)
		return r;
	if (fd_name(fd, p->path) < 0 || p->path[0] != '/') {
		close(fd);
		return warden_error_set(err, WARDEN_EOS,
		                        "%s: the resolved name of the program cannot be read (is /proc mounted?)",
		                        argv0);
	}
	/* Readable: then it may be a script.  Not readable: no interpreter
	 * could read it either, so it runs (or fails) as a binary. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	rfd = open(link, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (rfd >= 0)
		interpreter(p, rfd);
	p->writable = under_any(p->path, roots, n_roots) ||
	              (p->interpreter[0] != '\0' &&
	               under_any(p->interpreter, roots, n_roots));
	if (p->writable && under_any(p->path, roots, n_roots)) {
		if (rfd < 0) {
			close(fd);
			return warden_error_errno(err, WARDEN_EREFUSED, EACCES,
			                          "%s lies under a writable root and cannot be read to run a sealed copy of it",
			                          p->path);
		}
		copy = sealed_copy(rfd, err);
		close(fd);
		close(rfd);
		if (copy < 0)
			return -err->code;
		p->exec_fd = copy;
		return 0;
	}
	if (rfd >= 0)
		close(rfd);
	p->exec_fd = fd;
	return 0;
}

int warden_program_describe(struct warden_program *p,
                            const struct warden_config *cfg,
                            const char *argv0, const char *cwd,
                            const char *root, char *why, size_t whylen,
                            struct warden_error *err)
{
	const char **patterns = NULL;
	const char *roots[2];
	char temp[PATH_MAX];
	size_t n;
	int r, root_fd = -1;

	roots[0] = root;
	warden_scratch_parent(temp);
	roots[1] = temp;
	if (cwd == NULL && (r = warden_root_open(root, &root_fd, err)) < 0)
		return r;
	r = warden_program_dir(p, cwd, root, root_fd, err);
	if (root_fd >= 0)
		close(root_fd);
	if (r < 0 || (r = warden_env_patterns(cfg, &patterns, &n, err)) < 0)
		return r;
	r = warden_program_env(p, environ, patterns, n, roots, 2, err);
	free(patterns);
	if (r < 0)
		return r;
	return warden_program_open(p, argv0, roots, 2, why, whylen, err);
}
