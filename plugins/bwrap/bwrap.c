/*
 * bwrap.c — the bubblewrap sandbox backend (DESIGN §2 "Backends shipped",
 * "Protected paths", "Boundary integrity").
 *
 * confine() wraps an exact argv as
 *
 *   LAUNCHER [--netguard netns|host] [--lock-fd N | --lock ROOT]...
 *         [--unpin ROOT REL | --pin-text ROOT REL TEXT]...
 *         BWRAP --ro-bind / / --dev /dev --unshare-pid --unshare-ipc
 *         --proc /proc --remount-ro /proc --new-session --die-with-parent
 *         --cap-drop ALL
 *         [--unshare-user --disable-userns] [--unshare-net]
 *         [workspace-write: --tmpfs /tmp --bind-fd N ROOT   (or --bind ROOT ROOT)
 *                           PINS]
 *         [--json-status-fd N]
 *         -- ARGV...
 *
 * The whole host is visible read-only; a fresh /dev and a private /proc
 * of a new PID namespace, read-only (the command's uid is the caller's on
 * the host, and the owner of a sysctl may write it without a capability);
 * a private IPC namespace (no host SysV IPC or
 * POSIX message queue is reachable); a new session (no TIOCSTI into the
 * caller's terminal); every capability dropped, so root inside cannot
 * remount the read-only bind writable or mknod a disk.  --tmpfs /tmp comes
 * before the root's bind so a root under /tmp stays visible.
 * --json-status-fd is close-on-exec in bwrap: the command never holds it.
 * --die-with-parent (and the launcher's own parent-death signal) kill the
 * command when its spawner dies.
 *
 * PINS (workspace-write).  A read-only bind of .git/hooks alone is walked
 * around: renaming a directory moves the mounts inside it along, so
 * `mv .git x; mkdir -p .git/hooks` plants a hook.  A mount point itself
 * cannot be renamed, removed or replaced (EBUSY).  So for every protected
 * path, and every policy read-only path that lies under the root:
 *   - each directory between the root and it is bound onto itself,
 *     writable: a mount point, it stays where it is;
 *   - the path itself, when it exists, is bound read-only onto itself;
 *   - when it does not exist, its first missing component is pinned with
 *     an empty read-only tmpfs (a directory), or for a protected file with
 *     an empty read-only file (--ro-bind-data of /dev/null, which the
 *     launcher opens): bwrap creates the mount point, an empty directory or
 *     file, on the host, and the launcher removes it after the run
 *     (--unpin); a missing git `commondir` is pinned holding "." instead
 *     (an empty one stops git): the launcher makes it, bwrap binds it
 *     read-only, the launcher removes it (--pin-text);
 *   - runs that overlap on one root: a pin of one run is an existing path
 *     to a run that starts meanwhile, which binds it read-only; removing
 *     the pin on the host would detach that bind.  Each workspace-write
 *     run holds a shared flock on the root from before this walk to the
 *     end of its launcher (--lock-fd: taken here and handed over; --lock:
 *     taken by the launcher, for an argv `warden confine` prints), and a
 *     launcher removes its pins only when no other run holds one
 *     (launcher.h);
 *   - an ancestor that is a file (the `.git` file of a linked worktree) is
 *     bound read-only: it can be neither rewritten nor replaced; so is an
 *     ancestor that is an empty directory (a pin another run left, a
 *     `.git` made by hand): bound writable, a command could fill it with
 *     a repository of its own (empty_dir());
 *   - a component with a glob (the `*` of .git/modules/NAME/hooks) closes
 *     the directory it is matched in: that directory is bound read-only (no
 *     new entry can appear in it) and each existing matching directory is
 *     bound writable again, with the rest of the pattern pinned inside;
 *     in a git directory's modules/ or worktrees/ only a git directory
 *     (HEAD) is, a submodule's own modules/ pinned too (nested
 *     submodules), and anything else there (the `lib` of a submodule
 *     named lib/foo) stays read-only as a whole (git_list_entry()).
 * A symbolic link on the way cannot be pinned (a mount follows it): a
 * protected path behind one makes the confinement `partial`, naming it; a
 * read-only path of the policy behind one makes confine() fail.  The walk
 * opens everything from the root's descriptor without following links;
 * when the host can pass descriptors (push_fd), every bind names the
 * descriptor (--bind-fd), which bwrap checks against what it mounted, so
 * nothing swapped between the host's check, this walk and bwrap's mounts
 * is what gets bound.  Without descriptor passing (`warden confine` prints
 * an argv) the binds name paths.
 *
 * The network (policy->network, plugin ABI 1.1; a v1.0 host gets
 * `enabled`, what it asked for then):
 *   restricted  --unshare-net: a network namespace of its own, with only a
 *               loopback nobody else is on, so no IP socket reaches the
 *               host, and the abstract unix namespace (per network
 *               namespace) is the sandbox's own.  A pathname unix socket is
 *               a file, and the read-only bind of / still lets connect()
 *               reach it: the launcher runs inside the sandbox as the
 *               gate's supervisor (--gate netns, unixgate.h): the command
 *               may make unix stream sockets, binds freely (its abstract
 *               namespace and loopback are its own), and each connect()
 *               is the supervisor's: a listed host socket, an abstract
 *               name (its own namespace's), or a pathname socket whose
 *               listener lives in its namespace (sock_diag), i.e. one its
 *               own tree serves; a host's socket, in the workspace or
 *               anywhere, is refused.  `full`.  Without the launcher there
 *               is no guard: `partial`, host pathname sockets stay
 *               reachable.  Where bwrap cannot unshare the network (the
 *               probe says so), the launcher's --netguard has bwrap load
 *               the network guard, which refuses every IP and unix socket
 *               (stream socketpairs stay; with allow_unix_socket the gate
 *               in its host form instead): still `full`.
 *               The gate: bwrap loads no guard; its command is the
 *               launcher,
 *                 LAUNCHER --gate netns|host [--allow PATH]... -- ARGV...
 *               which holds the guard's listener and answers for ARGV's
 *               connect() (and bind() and listen(), in its host form); in
 *               workspace-write a listed socket (and the launcher) under
 *               /tmp is bound into the private /tmp.
 *   enabled     the host's network namespace, no guard.
 *
 * LAUNCHER is warden-bwrap-exec (launcher.h): static, it moves the dynamic
 * loader's variables (LD_PRELOAD, LD_LIBRARY_PATH, ...) out of bwrap's
 * environment and into the command's (--setenv), so a library the
 * spawner's environment names never runs inside bwrap, which holds every
 * capability of a root caller before it has built the sandbox.  It also
 * closes every descriptor above 2 but those bwrap's options name: bwrap
 * hands every open descriptor to the command.
 *
 * Spawned by the host itself (policy->spawn_env, plugin.h: `warden run`
 * and `warden serve`, which spawn the argv as their own child and call
 * finish() once they have reaped it), the launcher's part is done in the
 * host and the argv starts with BWRAP:
 *
 *   BWRAP [--setenv NAME VALUE]... [--seccomp N] <the flags above>
 *         -- ARGV...
 *
 * with the same code (launch.c): each loader variable of spawn_env
 * becomes --setenv and the rest is bwrap's environment (push_env); the
 * network guard is a memfd handed over (--seccomp N); an empty file is
 * read from a /dev/null descriptor handed over (--ro-bind-data N); the
 * root's lock is taken here and kept in this process, never handed to
 * bwrap; a missing commondir is made here, after the lock; the host's
 * child asks for SIGKILL with the host's death and joins an empty session
 * keyring (spawn_flags), and the host closes every descriptor but the
 * ones handed over; finish() removes the pins when no other run holds
 * the lock, and releases it.  One process fewer per run; `warden
 * confine`, whose caller spawns the argv, gets the launcher's form.
 *
 * Config keys ([backend NAME] with plugin = bwrap):
 *   path       the bwrap binary, absolute (default: configure's
 *              WARDEN_BWRAP_DEFAULT).  Never searched in PATH, and refused
 *              when it lies inside the workspace root.
 *   launcher   warden-bwrap-exec, absolute (default: LIBEXEC/warden-bwrap-exec
 *              from the host's libexec directory).  Checked like path.
 *              Without it (the default missing) bwrap runs directly and
 *              the backend says `partial`: the loader's variables would
 *              reach bwrap, and a missing protected file cannot be pinned.
 *              A configured launcher that is missing makes the backend
 *              unusable.
 *   protected  paths relative to the workspace root that stay read-only in
 *              workspace-write, by every route; whitespace-separated,
 *              repeatable.  A trailing `/` says the path is a directory
 *              (how it is pinned while it does not exist); a component
 *              before the last may be a glob.  The first `protected` line
 *              replaces the default list (default_protected below);
 *              `protected =` empties it.
 *
 * probe() runs `BWRAP <flags of the mode> -- BWRAP --version` for real,
 * killed after 5 s, with the richest flag set first: with the user
 * namespace flags, then without them, then without --cap-drop (usable but
 * `partial`: the command keeps root's capabilities).  In workspace-write
 * it tries the pins too (a bind by descriptor, a read-only tmpfs, an empty
 * read-only file), then without the bind by descriptor, then without pins
 * (usable but `partial`: protected paths are not held).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <warden/plugin.h>

#include "launcher.h"
#include "netguard.h"
#include "sysctl.h"
#include "unixgate.h"

#define PROBE_TIMEOUT_MS 5000
#define MAX_PROTECTED 64
#define MAX_MOUNTS 200  /* below the host's limit of passed descriptors */

/* What the probe found works, per mode. */
enum level {
	LEVEL_UNPROBED = 0,
	LEVEL_USERNS = 1,       /* --cap-drop ALL and --unshare-user --disable-userns */
	LEVEL_CAPDROP = 2,      /* --cap-drop ALL only */
	LEVEL_PRIVILEGED = 3,   /* neither: the command keeps capabilities */
	LEVEL_UNUSABLE = 4,
};

/* What the workspace-write probe found works beyond plain binds. */
enum {
	PIN_TMPFS = 1,          /* --tmpfs X --remount-ro X, --ro-bind-data */
	PIN_FD = 2,             /* --bind-fd / --ro-bind-fd */
};

struct bwrap {
	char path[PATH_MAX];
	char launcher[PATH_MAX];
	int launcher_set;       /* a `launcher` key was seen */
	int use_launcher;       /* the probe found the launcher usable */
	char launcher_why[200]; /* why not, when it is not */
	char *protected[MAX_PROTECTED];
	unsigned char protected_dir[MAX_PROTECTED]; /* written with a trailing '/' */
	size_t n_protected;
	int protected_set;      /* a `protected` key was seen */
	int level[2];           /* enum level per mode (index mode - 1) */
	int pins;               /* PIN_* the workspace-write probe found working */
	char pins_why[200];     /* why not all of them */
	int netns[2];           /* 1: --unshare-net works (index mode - 1) */
	char netns_why[2][160]; /* why not, when it does not */
};

/* Where git runs code or reads configuration inside the root's .git. */
static const char *const default_protected[] = {
	".git/hooks/",
	".git/config",
	".git/config.worktree",
	".git/commondir",
	".git/modules/*/hooks/",
	".git/modules/*/config",
	".git/modules/*/commondir",
	".git/worktrees/*/config.worktree",
	".git/worktrees/*/commondir",
};

static void bwrap_close(void *state)
{
	struct bwrap *b = state;
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n_protected; i++)
		free(b->protected[i]);
	free(b);
}

static int has_glob(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return 1;
	return 0;
}

/* NULL when p (a trailing '/' already taken off) is a usable protected
 * path, else why not. */
static const char *protected_bad(const char *p)
{
	const char *last = strrchr(p, '/');

	if (*p == '\0' || *p == '/')
		return "must be a path relative to the workspace root";
	if (!warden_bwrap_rel_ok(p))
		return "must be a path relative to the workspace root without '.', '..' or empty components";
	last = last != NULL ? last + 1 : p;
	return has_glob(last, strlen(last))
		? "may have a glob (* ? [) only before its last component"
		: NULL;
}

static int add_protected(struct bwrap *b, const char *value, unsigned line,
                         char *err, size_t errlen)
{
	char buf[PATH_MAX + 1];
	const char *s = value, *bad;
	size_t n;
	int dir;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return 0;
		n = strcspn(s, " \t");
		if (n >= sizeof(buf)) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: protected: path too long", line);
			return -1;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		s += n;
		dir = n > 1 && buf[n - 1] == '/';
		if (dir)
			buf[n - 1] = '\0';
		if ((bad = protected_bad(buf)) != NULL) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: protected: '%.*s' %s (e.g. .git/hooks/ or .git/modules/*/config)",
			                  line, (int)n, s - n, bad);
			return -1;
		}
		if (b->n_protected >= MAX_PROTECTED) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: protected: more than %d paths",
			                  line, MAX_PROTECTED);
			return -1;
		}
		b->protected[b->n_protected] = strdup(buf);
		if (b->protected[b->n_protected] == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
			return -1;
		}
		b->protected_dir[b->n_protected] = (unsigned char)dir;
		b->n_protected++;
	}
}

static void *bwrap_open(const struct warden_open_args *args, char *err,
                        size_t errlen)
{
	struct bwrap *b = calloc(1, sizeof(*b));
	size_t i;

	if (b == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(b->path, sizeof(b->path), "%s", WARDEN_BWRAP_DEFAULT);
	if ((size_t)snprintf(b->launcher, sizeof(b->launcher), "%s/%s",
	                     args->libexec_dir != NULL ? args->libexec_dir
	                                               : WARDEN_LIBEXEC_DIR,
	                     WARDEN_BWRAP_EXEC_NAME) >= sizeof(b->launcher)) {
		WARDEN_PLUGIN_ERR(err, errlen, "libexec directory path too long");
		goto fail;
	}
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "path") == 0) {
			if (kv->value[0] != '/' || strlen(kv->value) >= sizeof(b->path)) {
				WARDEN_PLUGIN_ERR(err, errlen,
				                  "line %u: path: '%s' must be the absolute path of the bwrap binary (e.g. /usr/bin/bwrap)",
				                  kv->line, kv->value);
				goto fail;
			}
			snprintf(b->path, sizeof(b->path), "%s", kv->value);
		} else if (strcmp(kv->key, "launcher") == 0) {
			if (kv->value[0] != '/' || strlen(kv->value) >= sizeof(b->launcher)) {
				WARDEN_PLUGIN_ERR(err, errlen,
				                  "line %u: launcher: '%s' must be the absolute path of warden-bwrap-exec (e.g. %s/%s)",
				                  kv->line, kv->value, WARDEN_LIBEXEC_DIR,
				                  WARDEN_BWRAP_EXEC_NAME);
				goto fail;
			}
			snprintf(b->launcher, sizeof(b->launcher), "%s", kv->value);
			b->launcher_set = 1;
		} else if (strcmp(kv->key, "protected") == 0) {
			b->protected_set = 1;
			if (add_protected(b, kv->value, kv->line, err, errlen) < 0)
				goto fail;
		} else {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: unknown key '%s' (bwrap knows: path, launcher, protected)",
			                  kv->line, kv->key);
			goto fail;
		}
	}
	if (!b->protected_set) {
		for (i = 0; i < sizeof(default_protected) / sizeof(*default_protected); i++)
			if (add_protected(b, default_protected[i], 0, err, errlen) < 0)
				goto fail;
	}
	return b;
fail:
	bwrap_close(b);
	return NULL;
}

/* ------------------------------------------------------------- argv */

/* A growing argv; every string is a copy.  oom: an allocation failed. */
struct args {
	char **v;
	size_t n, cap;
	int oom;
};

/* v (an array of *cap elements of `size` bytes each, or NULL) with room
 * for `need`, doubling from `first`: v itself when it has room, else its
 * reallocation (*cap updated), or NULL when out of memory (v unchanged). */
static void *grow(void *v, size_t *cap, size_t need, size_t first, size_t size)
{
	size_t n = *cap ? *cap : first;

	if (need <= *cap)
		return v;
	while (n < need)
		n *= 2;
	v = realloc(v, n * size);
	if (v != NULL)
		*cap = n;
	return v;
}

static void add(struct args *a, const char *s)
{
	char **v, *c;

	if (a->oom)
		return;
	v = grow(a->v, &a->cap, a->n + 2, 64, sizeof(*a->v));
	if (v == NULL) {
		a->oom = 1;
		return;
	}
	a->v = v;
	c = strdup(s);
	if (c == NULL) {
		a->oom = 1;
		return;
	}
	a->v[a->n++] = c;
	a->v[a->n] = NULL;
}

static void add_fd(struct args *a, int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	add(a, num);
}

static void args_free(struct args *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* The flags every confined command gets at `level`, without the mode's;
 * launcher is NULL when bwrap runs directly. */
static void base_flags(struct args *a, const char *launcher, const char *path,
                       int level)
{
	if (launcher != NULL)
		add(a, launcher);
	add(a, path);
	add(a, "--ro-bind"); add(a, "/"); add(a, "/");
	add(a, "--dev"); add(a, "/dev");
	add(a, "--unshare-pid");
	add(a, "--unshare-ipc");
	/* A fresh /proc, read-only: the command's uid is the caller's on
	 * the host, and the kernel lets a uid that owns a file write it
	 * without any capability — as root, every sysctl under /proc/sys
	 * (kernel.core_pattern runs a program as the host's root) and the
	 * other root-owned files a new procfs holds.  bwrap covers only the
	 * ones it can test for writing itself, which a 0555 directory such
	 * as /proc/sys is not. */
	add(a, "--proc"); add(a, "/proc");
	add(a, "--remount-ro"); add(a, "/proc");
	add(a, "--new-session");
	add(a, "--die-with-parent");
	if (level <= LEVEL_CAPDROP) {
		add(a, "--cap-drop"); add(a, "ALL");
	}
	if (level == LEVEL_USERNS) {
		add(a, "--unshare-user");
		add(a, "--disable-userns");
	}
}

/* The launcher, with its network guard when guard is not NULL ("netns":
 * the command has its own network namespace; "host": it has not).
 * Nothing when bwrap runs directly. */
static void launcher_flags(struct args *a, const struct bwrap *b, const char *guard)
{
	if (!b->use_launcher)
		return;
	add(a, b->launcher);
	if (guard != NULL) {
		add(a, "--netguard");
		add(a, guard);
	}
}

/* ------------------------------------------------------------ probe */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs argv with stdin/stdout on /dev/null, for at most PROBE_TIMEOUT_MS;
 * with_fd3: descriptor 3 is an O_PATH descriptor of /dev/null (for
 * --bind-fd 3).  Returns 0 when it exited 0; else -1 with the first stderr
 * line (or what happened) in why. */
static int run_probe(char *const *argv, int with_fd3, char *why, size_t whylen)
{
	char buf[512], line[200];
	size_t have = 0;
	long deadline = now_ms() + PROBE_TIMEOUT_MS;
	int fds[2], status = 0, timed_out = 0, nul, p;
	pid_t pid, w;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
		    dup2(fds[1], 2) < 0)
			_exit(127);
		if (with_fd3) {
			p = open("/dev/null", O_PATH | O_CLOEXEC);
			if (p < 0 || (p == 3 ? fcntl(3, F_SETFD, 0) : dup2(p, 3)) < 0)
				_exit(127);
			close_range(4, ~0U, 0);
		} else {
			close_range(3, ~0U, 0);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		long left = deadline - now_ms();
		int r;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		n = read(fds[0], buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (have == sizeof(buf) - 1)
			have = sizeof(buf) / 2; /* keep the start, drain the rest */
	}
	close(fds[0]);
	/* bwrap exits right after closing its stderr; wait, but not forever. */
	while (!timed_out && (w = waitpid(pid, &status, WNOHANG)) == 0) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };

		if (now_ms() >= deadline) {
			timed_out = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (timed_out) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(why, whylen, "%s did not finish within %d s (killed)",
		         argv[0], PROBE_TIMEOUT_MS / 1000);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	buf[have] = '\0';
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(buf, "\n"), buf);
	if (WIFEXITED(status))
		snprintf(why, whylen, "%.100s exited %d%s%.90s", argv[0], WEXITSTATUS(status),
		         line[0] ? ": " : "", line);
	else
		snprintf(why, whylen, "%s killed by signal %d", argv[0],
		         WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -1;
}

/* What confine() adds in `mode`, with the PIN_* mechanisms in pins; the
 * binds land on a private /tmp and /dev/null keeps the probe harmless. */
static void mode_flags(struct args *a, int mode, int pins, int launcher,
                       const char *path)
{
	if (mode != WARDEN_MODE_WORKSPACE_WRITE)
		return;
	add(a, "--tmpfs"); add(a, "/tmp");
	/* The tmpfs hides what lay there: bwrap itself, run inside, too. */
	add(a, "--ro-bind"); add(a, path); add(a, path);
	if (pins & PIN_FD) {
		add(a, "--bind-fd"); add(a, "3"); add(a, "/tmp/.warden-probe");
	} else {
		add(a, "--bind"); add(a, "/dev/null"); add(a, "/tmp/.warden-probe");
	}
	add(a, "--ro-bind"); add(a, "/dev/null"); add(a, "/tmp/.warden-probe");
	if (pins & PIN_TMPFS) {
		add(a, "--tmpfs"); add(a, "/tmp/.warden-pin");
		add(a, "--remount-ro"); add(a, "/tmp/.warden-pin");
		if (launcher) {
			add(a, "--ro-bind-data"); add(a, "null");
			add(a, "/tmp/.warden-pin-file");
		}
	}
}

/* A runner binary we will exec as root: a regular executable that only
 * root or the caller can write.  0, or -1 with why. */
static int trusted_binary(const char *path, char *why, size_t whylen,
                          const char *hint)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(why, whylen, "%.150s: %s (%s)", path, strerror(errno), hint);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
		snprintf(why, whylen, "%.150s: not an executable file", path);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		snprintf(why, whylen,
		         "%.150s: writable by others or owned by another user: refused",
		         path);
		return -1;
	}
	return 0;
}

/* Tries every level with the pins in `pins`; the level that worked, or
 * LEVEL_UNUSABLE, or -1 when out of memory (which proves nothing about
 * bwrap: no weaker level may stand in).  first: the first failure's
 * reason (kept when set); userns_why: why LEVEL_USERNS failed. */
static int try_levels(struct bwrap *b, int mode, int pins, int netns,
                      char *first, size_t firstlen, char *userns_why, size_t ulen)
{
	char why[320];
	int level;

	for (level = LEVEL_USERNS; level <= LEVEL_PRIVILEGED; level++) {
		struct args a = { NULL, 0, 0, 0 };
		int rc;

		/* What a restricted network adds: the guard, and with netns
		 * a network namespace of its own. */
		launcher_flags(&a, b, netns ? "netns" : "host");
		base_flags(&a, NULL, b->path, level);
		if (netns)
			add(&a, "--unshare-net");
		mode_flags(&a, mode, pins, b->use_launcher, b->path);
		add(&a, "--");
		add(&a, b->path);
		add(&a, "--version");
		if (a.oom) {
			args_free(&a);
			return -1;
		}
		rc = run_probe(a.v, (pins & PIN_FD) != 0, why, sizeof(why));
		args_free(&a);
		if (rc == 0)
			return level;
		if (first[0] == '\0')
			snprintf(first, firstlen, "%.199s", why);
		if (level == LEVEL_USERNS)
			snprintf(userns_why, ulen, "%.199s", why);
	}
	return LEVEL_UNUSABLE;
}

static int bwrap_probe(void *state, int mode, struct warden_probe *out)
{
	static const int pin_sets[] = { PIN_TMPFS | PIN_FD, PIN_TMPFS, 0 };
	struct bwrap *b = state;
	char first[200] = "", userns_why[200] = "";
	size_t i;
	int level = LEVEL_UNUSABLE, pins = 0, netns;

	memset(out, 0, sizeof(*out));
	if (mode != WARDEN_MODE_READ_ONLY && mode != WARDEN_MODE_WORKSPACE_WRITE) {
		snprintf(out->detail, sizeof(out->detail), "unknown mode %d", mode);
		return -1;
	}
	b->level[mode - 1] = LEVEL_UNUSABLE;
	if (trusted_binary(b->path, out->detail, sizeof(out->detail),
	                   "install bubblewrap or set path") < 0)
		return 0;
	b->use_launcher = trusted_binary(b->launcher, b->launcher_why,
	                                 sizeof(b->launcher_why),
	                                 "set launcher") == 0;
	if (!b->use_launcher && b->launcher_set) {
		/* Configured but unusable: a config error, not a fallback. */
		snprintf(out->detail, sizeof(out->detail), "launcher %s", b->launcher_why);
		return 0;
	}
	/* First with what a restricted network adds, then, when nothing
	 * works with it, without --unshare-net. */
	for (netns = 1; netns >= 0; netns--) {
		for (i = 0; i < sizeof(pin_sets) / sizeof(*pin_sets); i++) {
			pins = mode == WARDEN_MODE_WORKSPACE_WRITE ? pin_sets[i] : 0;
			level = try_levels(b, mode, pins, netns, first, sizeof(first),
			                   userns_why, sizeof(userns_why));
			if (level < 0) {
				snprintf(out->detail, sizeof(out->detail), "out of memory");
				return -1;
			}
			if (level != LEVEL_UNUSABLE || mode != WARDEN_MODE_WORKSPACE_WRITE)
				break;
			if (i == 0)
				snprintf(b->pins_why, sizeof(b->pins_why), "%s", first);
		}
		if (level != LEVEL_UNUSABLE)
			break;
		if (netns)
			snprintf(b->netns_why[mode - 1], sizeof(b->netns_why[mode - 1]),
			         "%.150s", first);
	}
	b->netns[mode - 1] = netns == 1;
	if (level == LEVEL_UNUSABLE) {
		/* Report why the full flag set failed: the first reason. */
		snprintf(out->detail, sizeof(out->detail), "%s", first);
		return 0;
	}
	b->level[mode - 1] = level;
	if (mode == WARDEN_MODE_WORKSPACE_WRITE)
		b->pins = pins;
	out->usable = 1;
	switch (level) {
	case LEVEL_USERNS:
		out->enforcement = WARDEN_ENFORCEMENT_FULL;
		out->privilege_dropped = 1;
		snprintf(out->detail, sizeof(out->detail),
		         "all capabilities dropped, user namespaces disabled inside");
		break;
	case LEVEL_CAPDROP:
		out->enforcement = WARDEN_ENFORCEMENT_FULL;
		out->privilege_dropped = 1;
		snprintf(out->detail, sizeof(out->detail),
		         "all capabilities dropped; user namespaces stay available inside (%.150s)",
		         userns_why);
		break;
	default:
		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		out->privilege_dropped = 0;
		snprintf(out->detail, sizeof(out->detail),
		         "bwrap cannot drop capabilities: a command run as root can remount the read-only bind (%.150s)",
		         userns_why);
		break;
	}
	if (mode == WARDEN_MODE_WORKSPACE_WRITE && !(pins & PIN_TMPFS)) {
		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(out->detail, sizeof(out->detail),
		         "bwrap cannot pin protected paths here, so they are not held against a rename of their directory (%.150s)",
		         b->pins_why);
	}
	if (!b->use_launcher) {
		char more[256];

		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(more, sizeof(more),
		         "no launcher (%.100s): LD_PRELOAD and kin in the spawner's environment run code in bwrap; %.60s",
		         b->launcher_why, out->detail);
		snprintf(out->detail, sizeof(out->detail), "%s", more);
	}
	return 0;
}

static int restricted_facts(const struct bwrap *b, int mode, char *detail,
                            size_t len);

/* probe() for a v1.1 host, with how a restricted network is held. */
static int bwrap_probe2(void *state, int mode, struct warden_probe2 *out)
{
	struct bwrap *b = state;
	struct warden_probe p;
	int rc = bwrap_probe(state, mode, &p);

	out->usable = p.usable;
	out->enforcement = p.enforcement;
	out->privilege_dropped = p.privilege_dropped;
	memcpy(out->detail, p.detail, sizeof(out->detail));
	if (rc == 0 && p.usable && WARDEN_PROBE2_HAS(out, network_detail))
		out->network_enforcement = restricted_facts(b, mode, out->network_detail,
		                                            sizeof(out->network_detail));
	if (rc == 0 && p.usable && WARDEN_PROBE2_HAS(out, deny_read_held))
		out->deny_read_held = 1;
	return rc;
}

/* ------------------------------------------------------------- pins */

/* What one mount does, weakest first: a node of higher rank wins over a
 * lower one at the same path. */
enum kind {
	K_ANCHOR = 1,   /* a directory bound onto itself, writable */
	K_CLOSED,       /* a directory bound read-only: no new entry */
	K_RO,           /* an existing path bound read-only onto itself */
	K_PIN_DIR,      /* a missing path: an empty read-only tmpfs */
	K_PIN_FILE,     /* a missing file: an empty read-only file */
	K_PIN_TEXT,     /* a missing file that must hold PIN_TEXT: the launcher
	                   makes it, bwrap binds it read-only */
};

/* What a pinned git `commondir` holds: "." names the git directory
 * itself, as if there were none (an empty one would stop git). */
#define PIN_TEXT "."

static int rank(int kind)
{
	return kind == K_ANCHOR ? 1 : kind == K_CLOSED ? 2 : 3;
}

struct node {
	char *rel;      /* relative to the root, "" for the root */
	int kind;
	int fd;         /* O_PATH descriptor of what is bound (borrowed: the
	                   walk's, see struct seen, or the root's), or -1 */
	int strict;     /* on the way to a read-only path of the policy */
};

/* An entry of the root the walk has looked at, by its path relative to
 * the root: opened (O_PATH, never following a link) and fstat'ed once,
 * however many protected paths pass through it, so that every route
 * sees the same directory or file, and binds the descriptor it saw. */
struct seen {
	char *rel;
	int fd;         /* owned; -1 when the open or the fstat failed */
	int err;        /* that errno, 0 when opened */
	mode_t mode;    /* st_mode, when opened */
	int empty;      /* a directory with no entry: 1, 0, or -1 not known yet */
};

struct plan {
	struct node *v;
	size_t n, cap;
	struct seen *seen;
	size_t n_seen, cap_seen;
	char partial[256];      /* the first protected path not held */
	size_t n_partial;
	char refuse[512];       /* set: confine fails with this */
};

static void plan_free(struct plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].rel);
	free(p->v);
	for (i = 0; i < p->n_seen; i++) {
		free(p->seen[i].rel);
		if (p->seen[i].fd >= 0)
			close(p->seen[i].fd);
	}
	free(p->seen);
	memset(p, 0, sizeof(*p));
}

__attribute__((format(printf, 2, 3)))
static void refuse(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->refuse[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(p->refuse, sizeof(p->refuse), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
static void not_held(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->n_partial++ > 0)
		return;
	va_start(ap, fmt);
	vsnprintf(p->partial, sizeof(p->partial), fmt, ap);
	va_end(ap);
}

/* Records that rel gets `kind`; fd (borrowed: it outlives the plan's
 * use of it, -1 for none) is what a bind of rel names. */
static void mark(struct plan *p, const char *rel, int kind, int fd, int strict)
{
	struct node *v;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (strcmp(p->v[i].rel, rel) != 0)
			continue;
		if (rank(kind) > rank(p->v[i].kind))
			p->v[i].kind = kind;
		p->v[i].strict |= strict;
		if (p->v[i].fd < 0)
			p->v[i].fd = fd;
		return;
	}
	if (p->n >= MAX_MOUNTS) {
		refuse(p, "bwrap: the protected and read-only paths need more than %d mounts (narrow `protected`)",
		       MAX_MOUNTS);
		return;
	}
	v = grow(p->v, &p->cap, p->n + 1, 16, sizeof(*p->v));
	if (v == NULL)
		goto oom;
	p->v = v;
	p->v[p->n].rel = strdup(rel);
	if (p->v[p->n].rel == NULL)
		goto oom;
	p->v[p->n].kind = kind;
	p->v[p->n].fd = fd;
	p->v[p->n].strict = strict;
	p->n++;
	return;
oom:
	refuse(p, "bwrap: out of memory");
}

/* The entry `name` of dirfd, which is `child` relative to the root: what
 * the walk saw of it before, else opened (O_PATH, no link followed) and
 * fstat'ed now.  Copies the answer to *out (its fd stays the plan's);
 * -1 when out of memory (refused). */
static struct seen *find_seen(struct plan *p, const char *child)
{
	size_t i;

	for (i = 0; i < p->n_seen; i++)
		if (strcmp(p->seen[i].rel, child) == 0)
			return &p->seen[i];
	return NULL;
}

static int look(struct plan *p, int dirfd, const char *name,
                const char *child, struct seen *out)
{
	struct seen *s;
	struct stat st;

	if ((s = find_seen(p, child)) != NULL) {
		*out = *s;
		return 0;
	}
	s = grow(p->seen, &p->cap_seen, p->n_seen + 1, 16, sizeof(*p->seen));
	if (s == NULL)
		goto oom;
	p->seen = s;
	s = &p->seen[p->n_seen];
	s->rel = strdup(child);
	if (s->rel == NULL)
		goto oom;
	s->err = 0;
	s->mode = 0;
	s->empty = -1;
	s->fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd < 0) {
		s->err = errno;
	} else if (fstat(s->fd, &st) < 0) {
		s->err = errno;
		close(s->fd);
		s->fd = -1;
	} else {
		s->mode = st.st_mode;
	}
	p->n_seen++;
	*out = *s;
	return 0;
oom:
	refuse(p, "bwrap: out of memory");
	return -1;
}

/*
 * Whether the directory the walk saw as `child` (e) has no entry.  An
 * empty directory on the way to a protected path is no repository: a pin
 * left by a run that overlapped or was killed, or one made by hand.
 * Bound writable as the way to what it would hold, a command could fill
 * it (HEAD, objects, a rebase whose next step is an `exec` line) and
 * leave the host a repository it never had; so it is bound read-only
 * instead.
 * Unreadable counts as empty: read-only is the safer side.
 */
static int empty_dir(struct plan *p, const char *child, int fd)
{
	struct seen *s = find_seen(p, child);
	struct dirent *de;
	DIR *d;
	int dfd, empty = 1;

	if (s != NULL && s->empty >= 0)
		return s->empty;
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (d == NULL) {
		if (dfd >= 0)
			close(dfd);
	} else {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
				empty = 0;
				break;
			}
		closedir(d);
	}
	if (s != NULL)
		s->empty = empty;
	return empty;
}

static int dup_fd(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* rel + "/" + name into out; -1 when too long. */
static int join(char *out, size_t outlen, const char *rel, const char *name)
{
	int n = rel[0] ? snprintf(out, outlen, "%s/%s", rel, name)
	               : snprintf(out, outlen, "%s", name);

	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/* One path to hold: `what` names it in messages (the protected pattern,
 * or the read-only path); strict: a read-only path of the policy, which
 * must be held or refused. */
struct target {
	const char *what;
	char **comp;
	size_t n;
	int leaf_dir;
	int strict;
};

static void symlink_on_way(struct plan *p, const struct target *t,
                           const char *rel)
{
	if (t->strict)
		refuse(p, "bwrap: the read-only path %.200s cannot be held: %.200s in the workspace root is a symbolic link, which a mount cannot pin (refused)",
		       t->what, rel);
	else
		not_held(p, "protected %.100s is not held: %.120s is a symbolic link",
		         t->what, rel);
}

/* Is rel a git directory's list of git directories: its last component
 * `modules` (submodules) or `worktrees`? */
static int git_dir_list(const char *rel)
{
	const char *last = strrchr(rel, '/');

	last = last != NULL ? last + 1 : rel;
	return strcmp(last, "modules") == 0 || strcmp(last, "worktrees") == 0;
}

/*
 * A directory a glob matched in a git directory's modules/ or worktrees/
 * (child, open as fd).  A git directory there (it holds HEAD) stays
 * writable for git, but for the rest of the pattern and, below modules/,
 * for its own modules/ (a nested submodule's git directories, with their
 * hooks and config at any depth): bound read-only, or pinned when
 * missing.  Anything else there is no git directory but the way to one
 * deeper (a submodule named lib/foo keeps its git directory in
 * modules/lib/foo), which the pattern's one component does not reach:
 * bound read-only as a whole.  1 when it is to be walked on.
 */
static int git_list_entry(struct plan *p, const struct target *t, const char *rel,
                          const char *child, int fd)
{
	char nested[PATH_MAX];
	struct stat st;
	struct seen e;
	const char *last = strrchr(rel, '/');

	if (fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
		mark(p, child, K_RO, fd, t->strict);
		return 0;
	}
	last = last != NULL ? last + 1 : rel;
	if (strcmp(last, "modules") != 0)
		return 1;
	if (join(nested, sizeof(nested), child, "modules") < 0) {
		refuse(p, "bwrap: %.200s: a path in the root is too long", t->what);
		return 0;
	}
	if (look(p, fd, "modules", nested, &e) < 0)
		return 0;
	if (e.fd < 0 && e.err == ENOENT)
		mark(p, nested, K_PIN_DIR, -1, t->strict);
	else if (e.fd < 0)
		refuse(p, "bwrap: %.200s: %.200s: %s", t->what, nested, strerror(e.err));
	else if (S_ISLNK(e.mode))
		symlink_on_way(p, t, nested);
	else
		mark(p, nested, K_RO, e.fd, t->strict);
	return 1;
}

/* Pins t->comp[i..] below the directory dirfd, which is rel. */
static void walk(struct plan *p, const struct target *t, int dirfd,
                 const char *rel, size_t i)
{
	char child[PATH_MAX];
	const char *c = t->comp[i];
	struct seen e;
	int last = i + 1 == t->n;

	if (p->refuse[0] != '\0')
		return;
	if (has_glob(c, strlen(c))) {
		struct dirent *de;
		DIR *d;
		int dfd;

		mark(p, rel, K_CLOSED, dirfd, t->strict);
		dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (d == NULL) {
			refuse(p, "bwrap: %.200s: cannot list %.200s: %s", t->what,
			       rel[0] ? rel : ".", strerror(errno));
			if (dfd >= 0)
				close(dfd);
			return;
		}
		while ((de = readdir(d)) != NULL && p->refuse[0] == '\0') {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
			    fnmatch(c, de->d_name, 0) != 0)
				continue;
			if (join(child, sizeof(child), rel, de->d_name) < 0) {
				refuse(p, "bwrap: %.200s: a path in the root is too long", t->what);
				break;
			}
			if (look(p, dirfd, de->d_name, child, &e) < 0)
				break;
			if (e.fd < 0) {
				refuse(p, "bwrap: %.200s: %.200s: %s", t->what, child,
				       strerror(e.err));
				break;
			}
			if (S_ISDIR(e.mode) && !t->strict && empty_dir(p, child, e.fd)) {
				mark(p, child, K_RO, e.fd, t->strict);
			} else if (S_ISDIR(e.mode) && !t->strict && git_dir_list(rel) &&
			           !git_list_entry(p, t, rel, child, e.fd)) {
				continue;
			} else if (S_ISDIR(e.mode)) {
				mark(p, child, K_ANCHOR, e.fd, t->strict);
				walk(p, t, e.fd, child, i + 1);
			} else if (S_ISLNK(e.mode)) {
				symlink_on_way(p, t, child);
			}
			/* Anything else stays frozen by its closed directory. */
		}
		closedir(d);
		return;
	}
	if (join(child, sizeof(child), rel, c) < 0) {
		refuse(p, "bwrap: %.200s: a path in the root is too long", t->what);
		return;
	}
	if (look(p, dirfd, c, child, &e) < 0)
		return;
	if (e.fd < 0) {
		if (e.err == ENOENT)
			mark(p, child, !last || t->leaf_dir ? K_PIN_DIR
			               : strcmp(c, "commondir") == 0 ? K_PIN_TEXT
			               : K_PIN_FILE, -1, t->strict);
		else
			refuse(p, "bwrap: %.200s: %.200s: %s", t->what, child,
			       strerror(e.err));
		return;
	}
	if (S_ISLNK(e.mode)) {
		symlink_on_way(p, t, child);
		return;
	}
	if (last || !S_ISDIR(e.mode) ||
	    (!t->strict && empty_dir(p, child, e.fd))) {
		/* The path itself, or a file where a directory would lead to
		 * it (a `.git` file), or an empty directory on the way (see
		 * empty_dir): neither rewritten, filled nor replaced. */
		mark(p, child, K_RO, e.fd, t->strict);
		return;
	}
	mark(p, child, K_ANCHOR, e.fd, t->strict);
	walk(p, t, e.fd, child, i + 1);
}

/* Splits rel (modified) at '/' into t->comp and walks it from rootfd. */
static void hold(struct plan *p, int rootfd, char *rel, const char *what,
                 int leaf_dir, int strict)
{
	char *comp[PATH_MAX / 2], *s = rel, *e;
	struct target t = { what, comp, 0, leaf_dir, strict };

	for (;;) {
		comp[t.n++] = s;
		e = strchr(s, '/');
		if (e == NULL)
			break;
		*e = '\0';
		s = e + 1;
	}
	walk(p, &t, rootfd, "", 0);
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct node *)a)->rel, ((const struct node *)b)->rel);
}

/* Is rel strictly below anc (both relative, anc not "")? */
static int below(const char *rel, const char *anc)
{
	size_t n = strlen(anc);

	return strncmp(rel, anc, n) == 0 && rel[n] == '/';
}

/*
 * facts(): what the probe would find at the richest level, from what is
 * cheap and current: the binaries (checked as the probe checks them) and
 * whether this kernel lets bwrap make a user namespace.  Whether bwrap
 * then sets the sandbox up, only a run shows: when it fails before exec,
 * the host probes for real, and the probe walks down the levels.
 */
static int bwrap_facts(void *state, int mode, struct warden_probe2 *out)
{
	struct bwrap *b = state;
	long v;

	if (mode != WARDEN_MODE_READ_ONLY && mode != WARDEN_MODE_WORKSPACE_WRITE) {
		snprintf(out->detail, sizeof(out->detail), "unknown mode %d", mode);
		return -1;
	}
	if (trusted_binary(b->path, out->detail, sizeof(out->detail),
	                   "install bubblewrap or set path") < 0)
		return 0;
	b->use_launcher = trusted_binary(b->launcher, b->launcher_why,
	                                 sizeof(b->launcher_why),
	                                 "set launcher") == 0;
	if (!b->use_launcher && b->launcher_set) {
		snprintf(out->detail, sizeof(out->detail), "launcher %s", b->launcher_why);
		return 0;
	}
	v = sysctl_value("/proc/sys/user/max_user_namespaces");
	if (v == 0 || (geteuid() != 0 &&
	               sysctl_value("/proc/sys/kernel/unprivileged_userns_clone") == 0)) {
		/* Not the richest level: the probe finds which one works. */
		snprintf(out->detail, sizeof(out->detail),
		         "user namespaces are not available to bwrap here");
		return 0;
	}
	b->level[mode - 1] = LEVEL_USERNS;
	/* The richest level has a network namespace of its own. */
	b->netns[mode - 1] = 1;
	if (mode == WARDEN_MODE_WORKSPACE_WRITE)
		b->pins = PIN_TMPFS | PIN_FD;
	out->usable = 1;
	out->privilege_dropped = 1;
	out->enforcement = WARDEN_ENFORCEMENT_FULL;
	snprintf(out->detail, sizeof(out->detail),
	         "all capabilities dropped, user namespaces disabled inside");
	if (!b->use_launcher) {
		char more[256];

		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(more, sizeof(more),
		         "no launcher (%.100s): LD_PRELOAD and kin in the spawner's environment run code in bwrap; %.60s",
		         b->launcher_why, out->detail);
		snprintf(out->detail, sizeof(out->detail), "%s", more);
	}
	if (WARDEN_PROBE2_HAS(out, network_detail))
		out->network_enforcement = restricted_facts(b, mode, out->network_detail,
		                                            sizeof(out->network_detail));
	if (WARDEN_PROBE2_HAS(out, deny_read_held))
		out->deny_read_held = 1;
	return 0;
}

/* ----------------------------------------------------------- confine */

/* Is path equal to root or below it?  Both are resolved. */
static int inside(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The runner and launcher must lie outside the root. */
static int check_runners(const struct bwrap *b, const char *root, char *err,
                         size_t errlen)
{
	char real_path[PATH_MAX];

	/* A runner the command could have rewritten is no runner. */
	if (realpath(b->path, real_path) == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: %s: %s", b->path, strerror(errno));
		return -1;
	}
	if (inside(real_path, root)) {
		WARDEN_PLUGIN_ERR(err, errlen,
		                  "bwrap: %s lies inside the workspace root %s: refused (set path to a system binary)",
		                  b->path, root);
		return -1;
	}
	if (b->use_launcher) {
		if (realpath(b->launcher, real_path) == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "bwrap: %s: %s", b->launcher,
			                  strerror(errno));
			return -1;
		}
		if (inside(real_path, root)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: launcher %s lies inside the workspace root %s: refused (set launcher to an installed binary)",
			                  b->launcher, root);
			return -1;
		}
	}
	return 0;
}

/* A descriptor of the writable root `root` to walk from: held (the
 * host's, -1 for none), checked to still be what the path names, or one
 * opened here.  -1 with err. */
static int open_root(int held, const char *root, char *err, size_t errlen)
{
	struct stat a, b;
	int fd;

	if (held >= 0) {
		if (fstat(held, &a) < 0 || stat(root, &b) < 0 ||
		    !S_ISDIR(a.st_mode) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: the writable root %s is no longer the directory that was checked: refused",
			                  root);
			return -1;
		}
		fd = dup_fd(held);
	} else {
		fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: %s: %s", root, strerror(errno));
	return fd;
}

/* The writable roots beside the workspace root (plugin.h, v1.3). */
static size_t n_more(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, n_more_roots) && policy->more_roots != NULL
	       ? policy->n_more_roots : 0;
}

static int more_fd(const struct warden_policy *policy, size_t i)
{
	return policy->more_root_fds != NULL ? policy->more_root_fds[i] : -1;
}

static int more_kind(const struct warden_policy *policy, size_t i)
{
	return policy->more_root_kinds != NULL ? policy->more_root_kinds[i]
	                                       : WARDEN_ROOT_PLAIN;
}

/* Is path inside the workspace root or a writable root beside it? */
static int in_any_root(const struct warden_policy *policy, const char *path)
{
	size_t i;

	if (inside(path, policy->workspace_root))
		return 1;
	for (i = 0; i < n_more(policy); i++)
		if (inside(path, policy->more_roots[i]))
			return 1;
	return 0;
}

/* Protected path i as it applies inside a root of `kind` (plugin.h, enum
 * warden_root_kind): as written in a plain root; in a git directory
 * without its ".git/" (NULL: it does not apply there). */
static const char *protected_in(const struct bwrap *b, size_t i, int kind)
{
	if (kind != WARDEN_ROOT_GIT_COMMON_DIR)
		return b->protected[i];
	return strncmp(b->protected[i], ".git/", 5) == 0 ? b->protected[i] + 5 : NULL;
}

/* Walks every protected path (as it applies in a root of `kind`) and
 * every read-only path under the root into p. */
static void plan_pins(const struct bwrap *b, const struct warden_policy *policy,
                      const char *root, int kind, int rootfd, struct plan *p)
{
	char rel[PATH_MAX], what[PATH_MAX];
	const char *pr;
	size_t i, n = strlen(root);

	for (i = 0; i < b->n_protected && p->refuse[0] == '\0'; i++) {
		if ((pr = protected_in(b, i, kind)) == NULL)
			continue;
		snprintf(rel, sizeof(rel), "%s", pr);
		snprintf(what, sizeof(what), "%s%s", pr, b->protected_dir[i] ? "/" : "");
		hold(p, rootfd, rel, what, b->protected_dir[i], 0);
	}
	if (!WARDEN_POLICY_HAS(policy, n_read_only_paths))
		return;
	for (i = 0; i < policy->n_read_only_paths && p->refuse[0] == '\0'; i++) {
		const char *ro = policy->read_only_paths[i];

		if (ro == NULL || ro[0] != '/') {
			refuse(p, "bwrap: read-only path '%.200s' is not absolute", ro ? ro : "(null)");
			return;
		}
		if (inside(root, ro)) {
			refuse(p, "bwrap: %.200s must stay read-only but holds the writable %s %.200s: refused (choose a root outside it)",
			       ro, strcmp(root, policy->workspace_root) == 0 ? "workspace root" : "root",
			       root);
			return;
		}
		if (!inside(ro, root))
			continue;  /* under the read-only host bind, or hidden by /tmp */
		if (strlen(ro + n + 1) >= sizeof(rel)) {
			refuse(p, "bwrap: read-only path %.200s is too long", ro);
			return;
		}
		snprintf(rel, sizeof(rel), "%s", ro + n + 1);
		while (n > 1 && rel[0] != '\0' && rel[strlen(rel) - 1] == '/')
			rel[strlen(rel) - 1] = '\0';
		if (rel[0] == '\0' || protected_bad(rel) != NULL) {
			refuse(p, "bwrap: read-only path %.200s is not a normalised path", ro);
			return;
		}
		hold(p, rootfd, rel, ro, 1, 1);
	}
}

/*
 * A run confined for a host that spawns bwrap itself and calls finish()
 * once it has reaped it (plugin.h, spawn_env): what the launcher would
 * hold, held here instead.  lock: the shared flock on the root
 * (launcher.h), or -1; pins: the paths bwrap will create on the host (and
 * the commondir made here), removed by finish() when no other run holds
 * the lock.
 */
#define MAX_LOCKS WARDEN_BWRAP_MAX_LOCKS

struct run {
	int locks[MAX_LOCKS];   /* one per writable root, -1 when none */
	size_t n_locks;
	struct warden_bwrap_pin *pins;
	size_t n_pins, cap;
};

static struct run *run_new(void)
{
	return calloc(1, sizeof(struct run));
}

static void pin_free(struct warden_bwrap_pin *u)
{
	free((char *)u->rel);
	free((char *)u->root);
}

/* Records the pin root/rel (text: what it must hold, or NULL).  0, or -1
 * when out of memory. */
static int run_pin(struct run *r, const char *root, const char *rel,
                   const char *text)
{
	struct warden_bwrap_pin *v;

	v = grow(r->pins, &r->cap, r->n_pins + 1, 8, sizeof(*r->pins));
	if (v == NULL)
		return -1;
	r->pins = v;
	memset(&v[r->n_pins], 0, sizeof(*v));
	v[r->n_pins].text = text;
	v[r->n_pins].rel = strdup(rel);
	v[r->n_pins].root = strdup(root);
	r->n_pins++;
	return v[r->n_pins - 1].rel == NULL || v[r->n_pins - 1].root == NULL ? -1 : 0;
}

/* Keeps the pins missing now and makes each missing file that must hold
 * a text, as the launcher does when it starts (the locks are held).  0,
 * or -1 with err: then only the files made here are left to run_end. */
static int run_make_pins(struct run *r, char *err, size_t errlen)
{
	size_t i, n = 0, made;

	for (i = 0; i < r->n_pins; i++) {
		if (warden_bwrap_pin_missing(&r->pins[i]))
			r->pins[n++] = r->pins[i];
		else
			pin_free(&r->pins[i]);
	}
	r->n_pins = n;
	for (i = 0; i < r->n_pins; i++) {
		if (r->pins[i].text == NULL || warden_bwrap_pin_make(&r->pins[i]) == 0)
			continue;
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: cannot make %s/%s: %s",
		                  r->pins[i].root, r->pins[i].rel, strerror(errno));
		for (made = i, n = 0, i = 0; i < r->n_pins; i++) {
			if (i < made && r->pins[i].text != NULL)
				r->pins[n++] = r->pins[i];
			else
				pin_free(&r->pins[i]);
		}
		r->n_pins = n;
		return -1;
	}
	return 0;
}

/* The end of a run: its pins removed when every process of the run has
 * ended (ended) and no other run on any of its roots holds a lock
 * (launcher.h), the locks released, everything freed.  A pin removed
 * while something of the sandbox still runs would detach its mount under
 * that process. */
static void run_end(struct run *r, int ended)
{
	size_t i;
	int alone = ended;

	if (r == NULL)
		return;
	for (i = 0; alone && i < r->n_locks; i++)
		alone = flock(r->locks[i], LOCK_EX | LOCK_NB) == 0;
	if (alone)
		for (i = 0; i < r->n_pins; i++)
			warden_bwrap_pin_remove(&r->pins[i]);
	for (i = 0; i < r->n_locks; i++)
		close(r->locks[i]);
	for (i = 0; i < r->n_pins; i++)
		pin_free(&r->pins[i]);
	free(r->pins);
	free(r);
}

static void bwrap_finish(void *state, void *run, int ended)
{
	(void)state;
	run_end(run, ended);
}

/* A fresh read-only descriptor of /dev/null handed to the host for
 * bwrap to read an empty file from: its number, or -1. */
static int push_null(struct warden_confine_out *out)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	return fd >= 0 ? out->push_fd(out->sink, fd) : -1;
}

/* Adds the mounts of p after the root's bind to a, and to pre the
 * launcher's --unpin of each pin (what bwrap creates on the host).  fds:
 * hand descriptors to the host (every bind then names one).  -1 with
 * err. */
static int emit_pins(const struct bwrap *b, struct plan *p, const char *root,
                     int fds, struct warden_confine_out *out, struct args *a,
                     struct args *pre, struct run *run, char *err,
                     size_t errlen)
{
	char dest[PATH_MAX];
	size_t i, j;

	qsort(p->v, p->n, sizeof(*p->v), node_cmp);
	for (i = 0; i < p->n; i++) {
		struct node *nd = &p->v[i];
		int frozen = 0, ro = nd->kind == K_CLOSED || nd->kind == K_RO;

		/* Below a read-only bind or a pin, everything is held already. */
		for (j = 0; j < i && !frozen; j++)
			frozen = rank(p->v[j].kind) == 3 && p->v[j].rel[0] != '\0' &&
			         below(nd->rel, p->v[j].rel);
		if (frozen)
			continue;
		if ((size_t)snprintf(dest, sizeof(dest), "%s%s%s", root,
		                     nd->rel[0] ? "/" : "", nd->rel) >= sizeof(dest)) {
			WARDEN_PLUGIN_ERR(err, errlen, "bwrap: %s/%s: path too long", root, nd->rel);
			return -1;
		}
		if (rank(nd->kind) == 3 && nd->kind != K_RO &&
		    !(b->pins & PIN_TMPFS)) {
			if (nd->strict) {
				WARDEN_PLUGIN_ERR(err, errlen,
				                  "bwrap: %s must stay read-only but bwrap cannot pin what does not exist here (%.100s): refused",
				                  dest, b->pins_why);
				return -1;
			}
			not_held(p, "protected %.100s does not exist and cannot be pinned here",
			         nd->rel);
			continue;
		}
		if ((nd->kind == K_PIN_DIR || nd->kind == K_PIN_FILE) &&
		    b->use_launcher) {
			if (run != NULL) {
				if (run_pin(run, root, nd->rel, NULL) < 0)
					a->oom = 1;
			} else {
				add(pre, "--unpin"); add(pre, root); add(pre, nd->rel);
			}
		}
		switch (nd->kind) {
		case K_PIN_DIR:
			add(a, "--tmpfs"); add(a, dest);
			add(a, "--remount-ro"); add(a, dest);
			break;
		case K_PIN_FILE:
		case K_PIN_TEXT:
			if (!b->use_launcher) {
				not_held(p, "protected %.100s does not exist and cannot be pinned without the launcher",
				         nd->rel);
				break;
			}
			if (nd->kind == K_PIN_FILE) {
				int num;

				add(a, "--ro-bind-data");
				if (run == NULL) {
					add(a, "null");  /* the launcher's /dev/null */
				} else if ((num = push_null(out)) >= 0) {
					add_fd(a, num);
				} else {
					WARDEN_PLUGIN_ERR(err, errlen,
					                  "bwrap: cannot pass /dev/null to bwrap for %s", dest);
					return -1;
				}
				add(a, dest);
				break;
			}
			if (run != NULL) {
				if (run_pin(run, root, nd->rel, PIN_TEXT) < 0)
					a->oom = 1;
			} else {
				add(pre, "--pin-text"); add(pre, root); add(pre, nd->rel);
				add(pre, PIN_TEXT);
			}
			add(a, "--ro-bind"); add(a, dest); add(a, dest);
			break;
		default:
			if (fds && nd->fd >= 0) {
				/* A duplicate of what the walk saw: the host's. */
				int d = dup_fd(nd->fd), num = d >= 0 ? out->push_fd(out->sink, d) : -1;

				if (num < 0) {
					WARDEN_PLUGIN_ERR(err, errlen,
					                  "bwrap: cannot pass the descriptor of %s to bwrap",
					                  dest);
					return -1;
				}
				add(a, ro ? "--ro-bind-fd" : "--bind-fd");
				add_fd(a, num);
			} else {
				add(a, ro ? "--ro-bind" : "--bind");
				add(a, dest);
			}
			add(a, dest);
			break;
		}
	}
	return 0;
}

/* The shared lock on the root that runs overlapping there hold
 * (launcher.h).  run (the host spawns bwrap itself): taken here and kept
 * in run until finish().  Else fds: taken here, before the walk, on a
 * descriptor the host hands the launcher (--lock-fd), which holds it until
 * it ends; else the launcher takes it when it starts (--lock).  -1 with
 * err. */
static int lock_root(int rootfd, const char *root, int fds,
                     struct warden_confine_out *out, struct args *pre,
                     struct run *run, char *err, size_t errlen)
{
	int fd, num;

	if (!fds && run == NULL) {
		add(pre, "--lock"); add(pre, root);
		return 0;
	}
	fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || warden_bwrap_lock_shared(fd) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen,
		                  "bwrap: cannot lock the workspace root %s (flock): %s%s",
		                  root, strerror(errno),
		                  errno == EWOULDBLOCK
		                  ? " (another process has held it exclusively for 5 s: a run's command may lock the root it shares)"
		                  : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (run != NULL) {
		/* Held here until finish(): bwrap never has it. */
		if (run->n_locks >= MAX_LOCKS) {
			close(fd);
			WARDEN_PLUGIN_ERR(err, errlen, "bwrap: more than %d writable roots",
			                  MAX_LOCKS);
			return -1;
		}
		run->locks[run->n_locks++] = fd;
		return 0;
	}
	num = out->push_fd(out->sink, fd);
	if (num < 0) {
		WARDEN_PLUGIN_ERR(err, errlen,
		                  "bwrap: cannot pass the lock on %s to the launcher", root);
		return -1;
	}
	add(pre, "--lock-fd"); add_fd(pre, num);
	return 0;
}

/* The host's temp area of policy (plugin.h, v1.2), or NULL. */
static const char *policy_tmp(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, cwd) && policy->tmp_dir != NULL &&
	       policy->tmp_dir[0] == '/' ? policy->tmp_dir : NULL;
}

/* Whether /tmp is private and empty inside: only for a host before 1.2,
 * which knows no temp area.  A later host without one (`warden confine`
 * without a session, warden confined itself) gets the host's /tmp as it
 * is, read-only, like the rest of the host. */
static int private_tmp(const struct warden_policy *policy)
{
	return !WARDEN_POLICY_HAS(policy, cwd);
}

/* Whether path (absolute, normal) is dir or lies below it. */
static int path_in(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * The temp area (after the root and its pins, so that it wins over
 * both): the host's /tmp stays what the read-only bind of / shows; the
 * directory of every session's area is covered with an empty tmpfs, the
 * run's own area bound into it (writable in workspace-write, by
 * descriptor where the host passes them), and the tmpfs made read-only:
 * another session's files stay unread, nothing new appears beside the
 * area, and the host's /tmp gets no mount point.  -1 with err.
 */
static int tmp_flags(const struct bwrap *b, const struct warden_policy *policy,
                     int writable,
                     struct warden_confine_out *out, struct args *a,
                     char *err, size_t errlen)
{
	const char *tmp = policy_tmp(policy), *hide = policy->tmp_hide;
	size_t i;
	int fd, num = -1;

	if (tmp == NULL)
		return 0;
	for (i = 0; hide != NULL && i < n_more(policy); i++)
		if (path_in(policy->more_roots[i], hide)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: the writable root %s lies in %s, where the temp areas are: refused (name a directory outside it)",
			                  policy->more_roots[i], hide);
			return -1;
		}
	if (hide != NULL && (!path_in(tmp, hide) || strcmp(tmp, hide) == 0 ||
	                     path_in(policy->workspace_root, hide))) {
		WARDEN_PLUGIN_ERR(err, errlen,
		                  "bwrap: the temp area %s is not inside %s, or the workspace root %s is: refused",
		                  tmp, hide, policy->workspace_root);
		return -1;
	}
	if (hide != NULL) {
		add(a, "--tmpfs"); add(a, hide);
	}
	if ((b->pins & PIN_FD) && policy->tmp_fd >= 0 &&
	    WARDEN_CONFINE_OUT_HAS(out, push_fd) &&
	    out->push_fd != NULL && (fd = dup_fd(policy->tmp_fd)) >= 0 &&
	    (num = out->push_fd(out->sink, fd)) >= 0) {
		add(a, writable ? "--bind-fd" : "--ro-bind-fd");
		add_fd(a, num); add(a, tmp);
	} else {
		add(a, writable ? "--bind" : "--ro-bind"); add(a, tmp); add(a, tmp);
	}
	if (hide != NULL) {
		add(a, "--remount-ro"); add(a, hide);
	}
	if (WARDEN_CONFINE_OUT_HAS(out, tmp_held))
		out->tmp_held = 1;
	return 0;
}

/*
 * Where the command starts (policy->cwd, v1.2): bwrap is told to start
 * it exactly there (--chdir: bwrap fails rather than fall back to $HOME),
 * and a directory the sandbox hides is refused here, before anything
 * starts.  -1 with err.
 */
static int cwd_flags(const struct warden_policy *policy, struct args *a,
                     char *err, size_t errlen)
{
	const char *cwd = WARDEN_POLICY_HAS(policy, cwd) ? policy->cwd : NULL;
	const char *tmp = policy_tmp(policy), *why = NULL;

	if (cwd == NULL)
		return 0;
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE && private_tmp(policy) &&
	    path_in(cwd, "/tmp") && !in_any_root(policy, cwd))
		why = "it lies under /tmp, which is private and empty inside";
	else if (tmp != NULL && policy->tmp_hide != NULL &&
	         path_in(cwd, policy->tmp_hide) && !path_in(cwd, tmp))
		why = "it is another session's temp area, which stays hidden";
	else if (path_in(cwd, "/proc") || path_in(cwd, "/dev"))
		why = "the sandbox has a /proc and /dev of its own";
	if (why != NULL) {
		WARDEN_PLUGIN_ERR(err, errlen,
		                  "bwrap: the working directory %.200s is not visible inside the sandbox (%s): nothing ran; start in the workspace root or in $TMPDIR",
		                  cwd, why);
		return -1;
	}
	add(a, "--chdir"); add(a, cwd);
	return 0;
}

/*
 * What deny_read hides (v1.3): a read-only bind of the host's empty,
 * mode-000 file or directory over each path, after every other mount so
 * that nothing is bound on top of it.  The command holds no capability:
 * a read of it is refused (EACCES), and the mount point can be neither
 * removed nor renamed (EBUSY); renaming a directory that holds it moves
 * the bind along.  A path under /proc or /dev, or in another session's
 * temp area, is not shown at all.  Sets deny_read_held when every path
 * is hidden; else names the first that stays readable in detail.
 */
static int deny_flags(const struct warden_policy *policy, struct args *a,
                      struct warden_confine_out *out)
{
	const char *tmp = policy_tmp(policy), *left = NULL;
	size_t i, used;

	if (!WARDEN_POLICY_HAS(policy, void_dir) || policy->n_deny_read == 0)
		return 0;
	for (i = 0; i < policy->n_deny_read; i++) {
		const char *path = policy->deny_read[i], *over;
		struct stat st;

		if (path_in(path, "/proc") || path_in(path, "/dev") ||
		    (tmp != NULL && policy->tmp_hide != NULL &&
		     path_in(path, policy->tmp_hide) && !path_in(path, tmp)))
			continue;
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				continue; /* gone since the host looked */
			left = left != NULL ? left : path;
			continue;
		}
		over = S_ISDIR(st.st_mode) ? policy->void_dir : policy->void_file;
		if (over == NULL || over[0] != '/' || S_ISLNK(st.st_mode)) {
			left = left != NULL ? left : path;
			continue;
		}
		add(a, "--ro-bind"); add(a, over); add(a, path);
	}
	if (left == NULL) {
		if (WARDEN_CONFINE_OUT_HAS(out, deny_read_held))
			out->deny_read_held = 1;
		return 0;
	}
	out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
	used = strlen(out->detail);
	snprintf(out->detail + used, sizeof(out->detail) - used,
	         "%sdeny_read is not held: %.120s stays readable (no empty file or directory of the host to bind over it)",
	         used > 0 ? "; " : "", left);
	return 0;
}

/* One writable root of `kind`, held by the host as `held` (-1: none):
 * bound writable (by descriptor where the host passes them), locked, its
 * protected and read-only paths pinned.  The first protected path not
 * held and their count go to *partial and *n_partial.  -1 with err. */
static int bind_root(struct bwrap *b, const struct warden_policy *policy,
                     const char *root, int held, int kind,
                     struct warden_confine_out *out, struct args *a,
                     struct args *pre, struct run *run, char *partial,
                     size_t partial_len, size_t *n_partial, char *err,
                     size_t errlen)
{
	struct plan p;
	int rootfd, fds = 0, rc = -1;

	memset(&p, 0, sizeof(p));
	rootfd = open_root(held, root, err, errlen);
	if (rootfd < 0)
		return -1;
	if ((b->pins & PIN_FD) && WARDEN_CONFINE_OUT_HAS(out, push_fd) &&
	    out->push_fd != NULL) {
		int d = dup_fd(rootfd), num = d >= 0 ? out->push_fd(out->sink, d) : -1;

		if (num >= 0) {
			add(a, "--bind-fd"); add_fd(a, num); add(a, root);
			fds = 1;
		}
	}
	if (!fds) {
		add(a, "--bind"); add(a, root); add(a, root);
	}
	/* Held before the walk decides what exists (launcher.h). */
	if (b->use_launcher &&
	    lock_root(rootfd, root, fds, out, pre, run, err, errlen) < 0)
		goto out;
	plan_pins(b, policy, root, kind, rootfd, &p);
	if (p.refuse[0] != '\0') {
		WARDEN_PLUGIN_ERR(err, errlen, "%s", p.refuse);
		goto out;
	}
	if (emit_pins(b, &p, root, fds, out, a, pre, run, err, errlen) < 0)
		goto out;
	if (p.n_partial > 0 && *n_partial == 0)
		snprintf(partial, partial_len, "%.150s%s%.100s", p.partial,
		         strcmp(root, policy->workspace_root) != 0 ? " in " : "",
		         strcmp(root, policy->workspace_root) != 0 ? root : "");
	*n_partial += p.n_partial;
	rc = 0;
out:
	plan_free(&p);
	close(rootfd);
	return rc;
}

/* The workspace-write part: private /tmp, the workspace root and the
 * writable roots beside it (plugin.h, v1.3), each with its pins.  Sets
 * the facts of out.  -1 with err. */
static int workspace_flags(struct bwrap *b, const struct warden_policy *policy,
                           const char *root, struct warden_confine_out *out,
                           struct args *a, struct args *pre, struct run *run,
                           char *err, size_t errlen)
{
	char partial[256] = "";
	size_t n_partial = 0, i;

	if (private_tmp(policy)) {
		/* A 1.1 host: a private, empty /tmp, before the roots' binds
		 * so that a root under /tmp stays visible. */
		add(a, "--tmpfs"); add(a, "/tmp");
	}
	if (bind_root(b, policy, root,
	              WARDEN_POLICY_HAS(policy, root_fd) ? policy->root_fd : -1,
	              WARDEN_ROOT_PLAIN, out, a, pre, run, partial, sizeof(partial),
	              &n_partial, err, errlen) < 0)
		return -1;
	for (i = 0; i < n_more(policy); i++) {
		const char *more = policy->more_roots[i];

		if (more == NULL || more[0] != '/' || inside(more, root) || inside(root, more)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: writable root %s is not an absolute path apart from the workspace root %s",
			                  more ? more : "(null)", root);
			return -1;
		}
		if (bind_root(b, policy, more, more_fd(policy, i), more_kind(policy, i),
		              out, a, pre, run, partial, sizeof(partial), &n_partial,
		              err, errlen) < 0)
			return -1;
	}
	if (n_partial > 0) {
		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		if (n_partial > 1)
			snprintf(out->detail, sizeof(out->detail), "%.200s (and %zu more)",
			         partial, n_partial - 1);
		else
			snprintf(out->detail, sizeof(out->detail), "%s", partial);
	}
	return 0;
}

/* How a restricted network is held in mode (enum warden_enforcement),
 * with what it is in detail. */
static int restricted_facts(const struct bwrap *b, int mode, char *detail,
                            size_t len)
{
	int m = mode - 1;

	if (!b->use_launcher) {
		snprintf(detail, len,
		         "no launcher, so no network guard: unix sockets of the host stay reachable through the read-only bind%s",
		         b->netns[m] ? "" : "; no network namespace either, so IP sockets reach the host");
		return WARDEN_ENFORCEMENT_PARTIAL;
	}
	if (b->netns[m])
		snprintf(detail, len,
		         "a network namespace of its own (loopback only); the launcher's supervisor connects unix sockets whose listener is in that namespace (the command's own) and refuses the host's, in the workspace too");
	else
		snprintf(detail, len,
		         "bwrap cannot unshare the network (%.100s): the network guard refuses every IP and unix socket",
		         b->netns_why[m]);
	return WARDEN_ENFORCEMENT_FULL;
}

/* The network of policy (a v1.0 host passes none: it had no knob). */
static int policy_network(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, network) ? policy->network
	                                          : WARDEN_NETWORK_ENABLED;
}

/* Is path under /tmp, which workspace-write replaces with a private one? */
static int under_tmp(const char *path)
{
	return strncmp(path, "/tmp/", 5) == 0;
}

/*
 * What a restricted network adds for mode: *guard is the launcher's
 * --netguard (NULL: none), *unshare whether to pass --unshare-net; fills
 * out's network facts.  Refuses what it cannot honour.
 */
static int network_plan(const struct bwrap *b, const struct warden_policy *policy,
                        struct warden_confine_out *out, const char **guard,
                        const char **gate, int *unshare, char *err, size_t errlen)
{
	int network = policy_network(policy), m = policy->mode - 1;
	int has = WARDEN_CONFINE_OUT_HAS(out, network_detail);
	size_t n_allow = WARDEN_POLICY_HAS(policy, n_allow_unix_sockets) &&
	                 policy->allow_unix_sockets != NULL
	                 ? policy->n_allow_unix_sockets : 0;

	*guard = NULL;
	*gate = NULL;
	*unshare = 0;
	if (network == WARDEN_NETWORK_ENABLED) {
		if (has) {
			out->network_enforcement = WARDEN_ENFORCEMENT_FULL;
			out->network_detail[0] = '\0';
		}
		return 0;
	}
	if (network == WARDEN_NETWORK_ALLOWLIST &&
	    (!WARDEN_POLICY_HAS(policy, proxy_fd) || policy->proxy_fd < 0 ||
	     policy->proxy_port <= 0)) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: the allowlist network without warden's proxy (a host of plugin ABI 1.4 passes it)");
		return -1;
	}
	if (network == WARDEN_NETWORK_ALLOWLIST && (!b->use_launcher || !b->netns[m])) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: the allowlist network needs %s: the command would reach more than the proxy",
		                  !b->use_launcher ? "the launcher (warden-bwrap-exec), which hands its connections to the proxy"
		                                   : "a network namespace of the command's own, which bwrap cannot unshare here");
		return -1;
	}
	if (network != WARDEN_NETWORK_RESTRICTED && network != WARDEN_NETWORK_ALLOWLIST) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: unknown network setting %d", network);
		return -1;
	}
	if (n_allow > 0) {
		struct warden_unixgate g = { policy->allow_unix_sockets, n_allow, 0, NULL };
		const char *bad = warden_unixgate_bad_name(&g);

		if (bad != NULL) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: allow_unix_socket %s: not an absolute path shorter than %zu bytes, which a unix socket address needs",
			                  bad, sizeof(((struct sockaddr_un *)0)->sun_path));
			return -1;
		}
		bad = warden_unixgate_in_root(&g, policy->workspace_root);
		for (size_t i = 0; bad == NULL && i < n_more(policy); i++)
			bad = warden_unixgate_in_root(&g, policy->more_roots[i]);
		if (bad != NULL) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: allow_unix_socket %s lies in the workspace %s: a confined command could put a link or another socket in its place (list a socket outside the workspace)",
			                  bad, policy->workspace_root);
			return -1;
		}
	}
	*unshare = b->netns[m];
	if (b->use_launcher) {
		/* In a network namespace of its own, or with names to let
		 * through, the launcher inside the sandbox holds the guard and
		 * answers for the command (--gate): its own unix sockets, in
		 * its namespace, reach each other. */
		if (b->netns[m])
			*gate = "netns";
		else if (n_allow > 0)
			*gate = "host";
		else
			*guard = "host";
	}
	if (has && network == WARDEN_NETWORK_ALLOWLIST) {
		out->network_enforcement = WARDEN_ENFORCEMENT_FULL;
		snprintf(out->network_detail, sizeof(out->network_detail),
		         "allowlist: a network namespace of its own whose loopback carries only 127.0.0.1:%d, where the launcher hands each connection to warden's proxy outside; no other address is reachable, and unix sockets are as restricted",
		         policy->proxy_port);
		if (n_allow > 0) {
			size_t used = strlen(out->network_detail);

			snprintf(out->network_detail + used, sizeof(out->network_detail) - used,
			         "; %zu allow_unix_socket", n_allow);
		}
	} else if (has) {
		out->network_enforcement = restricted_facts(b, policy->mode, out->network_detail,
		                                            sizeof(out->network_detail));
		if (n_allow > 0) {
			size_t used = strlen(out->network_detail);

			snprintf(out->network_detail + used, sizeof(out->network_detail) - used,
			         "; allow_unix_socket: %zu named host socket%s let through by the launcher inside the sandbox",
			         n_allow, n_allow == 1 ? "" : "s");
		}
	}
	return 0;
}

/*
 * The launcher's part, for a host that spawns bwrap itself: each loader
 * variable of env becomes bwrap's --setenv (the command gets it, bwrap
 * never sees it) and every other entry goes to the host's environment for
 * bwrap (out->push_env); the network guard, when bwrap loads it, is a
 * memfd handed over as --seccomp.  The host closes every other
 * descriptor, and asks for SIGKILL with its death and an empty session
 * keyring in the child (out->spawn_flags, set by the caller).  -1 with
 * err.
 */
static int hosted_flags(struct args *a, const char *const *env,
                        const char *guard, struct warden_confine_out *out,
                        char *err, size_t errlen)
{
	char *name;
	size_t i, n;
	int fd, num;

	for (i = 0; env[i] != NULL; i++) {
		n = warden_bwrap_loader_name(env[i]);
		if (n == 0) {
			if (out->push_env(out->sink, env[i]) < 0)
				goto oom;
			continue;
		}
		if ((name = strndup(env[i], n)) == NULL)
			goto oom;
		add(a, "--setenv"); add(a, name); add(a, env[i] + n + 1);
		free(name);
	}
	if (guard != NULL) {
		fd = warden_bwrap_netguard_memfd(strcmp(guard, "netns") == 0
		                                 ? WARDEN_NETGUARD_INET_ANY : 0);
		if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			close(fd);
			fd = -1;
		}
		num = fd >= 0 ? out->push_fd(out->sink, fd) : -1;
		if (num < 0) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "bwrap: cannot hand bwrap the network guard: %s",
			                  strerror(errno));
			return -1;
		}
		add(a, "--seccomp"); add_fd(a, num);
	}
	if (!a->oom)
		return 0;
oom:
	WARDEN_PLUGIN_ERR(err, errlen, "bwrap: out of memory");
	return -1;
}

/* What stays read-only inside the root of `kind` (plugin.h, push_held):
 * each protected path as it applies there and each read-only path of the
 * policy under it.  -1 when out of memory. */
static int push_held_in(const struct bwrap *b, const struct warden_policy *policy,
                        const char *root, int kind, struct warden_confine_out *out)
{
	char path[PATH_MAX];
	const char *pr;
	size_t i;

	for (i = 0; i < b->n_protected; i++) {
		if ((pr = protected_in(b, i, kind)) == NULL ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", root, pr) >= sizeof(path))
			continue;
		if (out->push_held(out->sink, path) < 0)
			return -1;
	}
	for (i = 0; WARDEN_POLICY_HAS(policy, n_read_only_paths) &&
	            i < policy->n_read_only_paths; i++)
		if (path_in(policy->read_only_paths[i], root) &&
		    out->push_held(out->sink, policy->read_only_paths[i]) < 0)
			return -1;
	return 0;
}

/* push_held_in() for the workspace root and each root beside it. */
static int push_held(const struct bwrap *b, const struct warden_policy *policy,
                     const char *root, struct warden_confine_out *out)
{
	size_t i;

	if (!WARDEN_CONFINE_OUT_HAS(out, push_held) || out->push_held == NULL)
		return 0;
	if (push_held_in(b, policy, root, WARDEN_ROOT_PLAIN, out) < 0)
		return -1;
	for (i = 0; i < n_more(policy); i++)
		if (push_held_in(b, policy, policy->more_roots[i], more_kind(policy, i),
		                 out) < 0)
			return -1;
	return 0;
}

static int bwrap_confine(void *state, const char *const *argv, size_t argc,
                         const struct warden_policy *policy,
                         struct warden_confine_out *out, char *err,
                         size_t errlen)
{
	struct bwrap *b = state;
	const char *root = policy->workspace_root;
	struct args pre = { NULL, 0, 0, 0 }, a = { NULL, 0, 0, 0 };
	const char *guard, *gate;
	const char *const *env = NULL;
	struct run *run = NULL;
	size_t i;
	int level, rc = -1, unshare, reap;

	if (policy->mode != WARDEN_MODE_READ_ONLY &&
	    policy->mode != WARDEN_MODE_WORKSPACE_WRITE) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: mode %d is not a confining mode",
		                  policy->mode);
		return -1;
	}
	level = b->level[policy->mode - 1];
	if (level == LEVEL_UNPROBED || level == LEVEL_UNUSABLE) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: not usable for this mode (probe first)");
		return -1;
	}
	if (root == NULL || root[0] != '/') {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: the workspace root must be absolute");
		return -1;
	}
	if (check_runners(b, root, err, errlen) < 0)
		return -1;
	for (i = 0; i < n_more(policy); i++)
		if (check_runners(b, policy->more_roots[i], err, errlen) < 0)
			return -1;

	out->enforcement = level == LEVEL_PRIVILEGED || !b->use_launcher
		? WARDEN_ENFORCEMENT_PARTIAL : WARDEN_ENFORCEMENT_FULL;
	out->privilege_dropped = level != LEVEL_PRIVILEGED;
	out->detail[0] = '\0';
	if (level == LEVEL_PRIVILEGED)
		snprintf(out->detail, sizeof(out->detail),
		         "the command keeps its capabilities");
	else if (!b->use_launcher)
		snprintf(out->detail, sizeof(out->detail),
		         "no launcher: LD_PRELOAD and kin in the spawner's environment run code in bwrap");

	if (network_plan(b, policy, out, &guard, &gate, &unshare, err, errlen) < 0)
		return -1;
	/* The host spawns bwrap itself and tells us when it has ended
	 * (plugin.h, spawn_env): the launcher's duties are done here and in
	 * the host's child (hosted_flags), and bwrap is spawned directly. */
	if (b->use_launcher && WARDEN_POLICY_HAS(policy, spawn_env) &&
	    policy->spawn_env != NULL && WARDEN_CONFINE_OUT_HAS(out, run) &&
	    out->push_env != NULL && out->push_fd != NULL) {
		env = policy->spawn_env;
		if ((run = run_new()) == NULL)
			goto oom;
	}
	/* pre: the launcher and its own options (--netguard first); a: bwrap
	 * and its. */
	if (run == NULL)
		launcher_flags(&pre, b, guard);
	base_flags(&a, NULL, b->path, level);
	if (run != NULL && hosted_flags(&a, env, guard, out, err, errlen) < 0)
		goto done;
	if (unshare)
		add(&a, "--unshare-net");
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE) {
		if (!(b->pins & PIN_TMPFS)) {
			out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
			snprintf(out->detail, sizeof(out->detail),
			         "protected paths are not held against a rename of their directory: bwrap cannot pin them here (%.120s)",
			         b->pins_why);
		}
		if (workspace_flags(b, policy, root, out, &a, &pre, run, err, errlen) < 0 ||
		    tmp_flags(b, policy, 1, out, &a, err, errlen) < 0)
			goto done;
		if (WARDEN_CONFINE_OUT_HAS(out, denial_message))
			snprintf(out->denial_message, sizeof(out->denial_message),
			         "the host is read-only outside %.60s%s and %s; inside %s, .git/hooks, .git/config and the other protected paths stay read-only",
			         root, n_more(policy) > 0 ? ", the roots beside it" : "",
			         policy_tmp(policy) != NULL ? "$TMPDIR (the rest of /tmp too)"
			         : private_tmp(policy) ? "the private /tmp" : "/tmp (there is no temp area)",
			         n_more(policy) > 0 ? "each root" : "it");
	} else {
		if (tmp_flags(b, policy, 0, out, &a, err, errlen) < 0)
			goto done;
		if (WARDEN_CONFINE_OUT_HAS(out, denial_message))
			snprintf(out->denial_message, sizeof(out->denial_message),
			         "read-only: the whole host is read-only, the workspace root %.150s included",
			         root);
	}
	deny_flags(policy, &a, out);
	if (cwd_flags(policy, &a, err, errlen) < 0)
		goto done;
	/* Read-only: the whole host is a read-only bind and /dev a private
	 * tmpfs; workspace-write: every read-only path under the root is
	 * pinned above (or confine failed), the rest lie under the
	 * read-only bind or the private /tmp. */
	if (WARDEN_CONFINE_OUT_HAS(out, read_only_held))
		out->read_only_held = 1;
	/* A signal told apart from an exit (warden-bwrap-exec: --reap): the
	 * launcher inside reports it on a copy of the status channel, the
	 * host's (push_status_copy) or, in an argv another process spawns,
	 * one the launcher outside makes (--status-copy). */
	reap = -1;
	if (policy->status_fd >= 0 && b->use_launcher) {
		if (WARDEN_CONFINE_OUT_HAS(out, push_status_copy) &&
		    out->push_status_copy != NULL)
			reap = out->push_status_copy(out->sink);
		if (reap < 0 && run == NULL)
			reap = policy->status_fd + 1;
		if (reap >= 0 && run == NULL) {
			add(&pre, "--status-copy"); add_fd(&pre, reap);
		}
	}
	/* The gate's launcher and the sockets it lets through must be seen
	 * inside: the private /tmp hides what lies under the host's. */
	if ((gate != NULL || reap >= 0) && policy->mode == WARDEN_MODE_WORKSPACE_WRITE &&
	    private_tmp(policy)) {
		if (under_tmp(b->launcher)) {
			add(&a, "--ro-bind"); add(&a, b->launcher); add(&a, b->launcher);
		}
		for (i = 0; i < policy->n_allow_unix_sockets; i++)
			if (under_tmp(policy->allow_unix_sockets[i])) {
				add(&a, "--ro-bind-try");
				add(&a, policy->allow_unix_sockets[i]);
				add(&a, policy->allow_unix_sockets[i]);
			}
	}
	out->evidence = WARDEN_EVIDENCE_NONE;
	if (policy->status_fd >= 0) {
		add(&a, "--json-status-fd"); add_fd(&a, policy->status_fd);
		out->evidence = WARDEN_EVIDENCE_BWRAP_JSON;
	}
	add(&a, "--");
	if (gate != NULL) {
		add(&a, b->launcher);
		add(&a, "--gate"); add(&a, gate);
		if (policy_network(policy) == WARDEN_NETWORK_ALLOWLIST) {
			char port[16];
			int fd;

			if (run == NULL) {
				WARDEN_PLUGIN_ERR(err, errlen, "bwrap: the allowlist network needs a host that spawns bwrap itself (warden run, warden serve)");
				goto done;
			}
			snprintf(port, sizeof(port), "%d", policy->proxy_port);
			if ((fd = dup(policy->proxy_fd)) < 0 ||
			    (fd = out->push_fd(out->sink, fd)) < 0) {
				WARDEN_PLUGIN_ERR(err, errlen, "bwrap: cannot hand the launcher the proxy's socket: %s",
				                  strerror(errno));
				goto done;
			}
			add(&a, "--forward"); add(&a, port); add_fd(&a, fd);
		}
		for (i = 0; i < policy->n_allow_unix_sockets; i++) {
			add(&a, "--allow"); add(&a, policy->allow_unix_sockets[i]);
		}
	} else if (reap >= 0) {
		add(&a, b->launcher);
	}
	if (reap >= 0) {
		add(&a, "--reap"); add_fd(&a, reap);
	}
	if (gate != NULL || reap >= 0)
		add(&a, "--");
	if (a.oom || pre.oom)
		goto oom;
	if (run != NULL && pre.n > 0) {
		/* The launcher's options without the launcher: never. */
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: launcher option %s in a run the host spawns",
		                  pre.v[0]);
		goto done;
	}
	for (i = 0; i < pre.n; i++)
		if (out->push_arg(out->sink, pre.v[i]) < 0)
			goto oom;
	for (i = 0; i < a.n; i++)
		if (out->push_arg(out->sink, a.v[i]) < 0)
			goto oom;
	for (i = 0; i < argc; i++)
		if (out->push_arg(out->sink, argv[i]) < 0)
			goto oom;
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE &&
	    push_held(b, policy, root, out) < 0)
		goto oom;
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE &&
	    (out->push_writable_root(out->sink, root) < 0 ||
	     (policy_tmp(policy) != NULL &&
	      out->push_writable_root(out->sink, policy_tmp(policy)) < 0) ||
	     (private_tmp(policy) && out->push_writable_root(out->sink, "/tmp") < 0)))
		goto oom;
	for (i = 0; policy->mode == WARDEN_MODE_WORKSPACE_WRITE && i < n_more(policy); i++)
		if (out->push_writable_root(out->sink, policy->more_roots[i]) < 0)
			goto oom;
	if (run != NULL) {
		/* Last: nothing fails after the files are made. */
		if (run_make_pins(run, err, errlen) < 0)
			goto done;
		out->env_set = 1;
		out->spawn_flags = WARDEN_SPAWN_DIE_WITH_HOST |
		                   WARDEN_SPAWN_OWN_SESSION_KEYRING;
		out->run = run;
		run = NULL;
	}
	rc = 0;
	goto done;
oom:
	WARDEN_PLUGIN_ERR(err, errlen, "bwrap: out of memory");
done:
	run_end(run, 1);  /* nothing ran: only what was made here is removed */
	args_free(&pre);
	args_free(&a);
	return rc;
}

/* ------------------------------------------------------------ tables */

static const char *const denial_signatures[] = { "Read-only file system" };

static const int bwrap_exit_codes[] = { 1 };
static const char *const bwrap_fatal[] = { "bwrap: " };
static const int launcher_exit_codes[] = { WARDEN_BWRAP_EXEC_EXIT };
static const char *const launcher_fatal[] = { WARDEN_BWRAP_EXEC_FATAL };
static const struct warden_runner_rule runner_rules[] = {
	{
		.exit_codes = bwrap_exit_codes,
		.n_exit_codes = 1,
		.fatal_signatures = bwrap_fatal,
		.n_fatal_signatures = 1,
		.informational_lines = NULL,
		.n_informational_lines = 0,
	},
	{
		.exit_codes = launcher_exit_codes,
		.n_exit_codes = 1,
		.fatal_signatures = launcher_fatal,
		.n_fatal_signatures = 1,
		.informational_lines = NULL,
		.n_informational_lines = 0,
	},
};

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "bwrap",
	.version = PACKAGE_VERSION,
	.description = "bubblewrap: read-only host, private /dev, /proc and /tmp, no capabilities",
	.open = bwrap_open,
	.close = bwrap_close,
	.probe = bwrap_probe,
	.probe2 = bwrap_probe2,
	.confine = bwrap_confine,
	.denial_signatures = denial_signatures,
	.n_denial_signatures = 1,
	.runner_rules = runner_rules,
	.n_runner_rules = 2,
	.facts = bwrap_facts,
	.finish = bwrap_finish,
};
