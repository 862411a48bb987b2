/*
 * bwrap.c — the bubblewrap sandbox backend (DESIGN §2 "Backends shipped").
 *
 * confine() wraps an exact argv as
 *
 *   LAUNCHER BWRAP --ro-bind / / --dev /dev --unshare-pid --unshare-ipc
 *         --proc /proc --new-session --die-with-parent --cap-drop ALL
 *         [--unshare-user --disable-userns]
 *         [workspace-write: --tmpfs /tmp --bind ROOT ROOT
 *                           --ro-bind P P  (each protected path P)]
 *         [--json-status-fd N]
 *         -- ARGV...
 *
 * The whole host is visible read-only; a fresh /dev and a private /proc
 * of a new PID namespace; a private IPC namespace (no host SysV IPC object
 * or POSIX message queue is reachable); a new session (no TIOCSTI into the caller's
 * terminal); every capability dropped, so root inside cannot remount the
 * read-only bind writable or mknod a disk.  --tmpfs /tmp comes before the
 * root's bind so a root under /tmp stays visible.  --json-status-fd is
 * close-on-exec in bwrap: the command never holds it.
 *
 * LAUNCHER is warden-bwrap-exec (launcher.h): static, it moves the dynamic
 * loader's variables (LD_PRELOAD, LD_LIBRARY_PATH, ...) out of bwrap's
 * environment and into the command's (--setenv), so a library the
 * spawner's environment names never runs inside bwrap, which holds every
 * capability of a root caller before it has built the sandbox.  It also
 * closes every descriptor above 2 but those bwrap's options name (bwrap
 * hands every open descriptor to the command), and asks for SIGKILL when
 * its parent dies.
 *
 * Config keys ([backend NAME] with plugin = bwrap):
 *   path       the bwrap binary, absolute (default: configure's
 *              WARDEN_BWRAP_DEFAULT).  Never searched in PATH, and refused
 *              when it lies inside the workspace root.
 *   launcher   warden-bwrap-exec, absolute (default: LIBEXEC/warden-bwrap-exec
 *              from the host's libexec directory).  Checked like path.
 *              Without it (the default missing) bwrap runs directly and
 *              the backend says `partial`: the loader's variables would
 *              reach bwrap.  A configured launcher that is missing makes
 *              the backend unusable.
 *   protected  paths relative to the workspace root that stay read-only in
 *              workspace-write where they exist; whitespace-separated,
 *              repeatable.  The first `protected` line replaces the default
 *              list (.git/hooks .git/config); `protected =` empties it.
 *
 * probe() runs `BWRAP <flags of the mode> -- BWRAP --version` for real,
 * killed after 5 s, with the richest flag set first: with the user
 * namespace flags, then without them, then without --cap-drop (usable but
 * `partial`: the command keeps root's capabilities).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <warden/plugin.h>

#include "launcher.h"

#define PROBE_TIMEOUT_MS 5000
#define MAX_PROTECTED 64

/* What the probe found works, per mode. */
enum level {
	LEVEL_UNPROBED = 0,
	LEVEL_USERNS = 1,       /* --cap-drop ALL and --unshare-user --disable-userns */
	LEVEL_CAPDROP = 2,      /* --cap-drop ALL only */
	LEVEL_PRIVILEGED = 3,   /* neither: the command keeps capabilities */
	LEVEL_UNUSABLE = 4,
};

struct bwrap {
	char path[PATH_MAX];
	char launcher[PATH_MAX];
	int launcher_set;       /* a `launcher` key was seen */
	int use_launcher;       /* the probe found the launcher usable */
	char launcher_why[200]; /* why not, when it is not */
	char *protected[MAX_PROTECTED];
	size_t n_protected;
	int protected_set;      /* a `protected` key was seen */
	int level[2];           /* enum level per mode (index mode - 1) */
};

static const char *const default_protected[] = { ".git/hooks", ".git/config" };

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

/* A protected path: relative, no "." or ".." components, no empty ones. */
static int protected_ok(const char *p)
{
	const char *s = p, *e;

	if (*p == '\0' || *p == '/')
		return 0;
	while (*s != '\0') {
		e = strchr(s, '/');
		if (e == NULL)
			e = s + strlen(s);
		if (e == s || (e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s = *e ? e + 1 : e;
		if (*e == '/' && *s == '\0')
			return 0;
	}
	return 1;
}

static int add_protected(struct bwrap *b, const char *value, unsigned line,
                         char *err, size_t errlen)
{
	char buf[PATH_MAX + 1];
	const char *s = value;
	size_t n;

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
		if (!protected_ok(buf)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: protected: '%s' must be a path relative to the workspace root without '.' or '..' (e.g. .git/hooks)",
			                  line, buf);
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

struct args {
	const char *v[64];
	size_t n;
};

static void add(struct args *a, const char *s)
{
	if (a->n + 1 < sizeof(a->v) / sizeof(*a->v))
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
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
	add(a, "--proc"); add(a, "/proc");
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

/* ------------------------------------------------------------ probe */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs argv with stdin/stdout on /dev/null, for at most PROBE_TIMEOUT_MS.
 * Returns 0 when it exited 0; else -1 with the first stderr line (or what
 * happened) in why. */
static int run_probe(const char *const *argv, char *why, size_t whylen)
{
	char buf[512], line[200];
	size_t have = 0;
	long deadline = now_ms() + PROBE_TIMEOUT_MS;
	int fds[2], status = 0, timed_out = 0, nul;
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
		close_range(3, ~0U, 0);
		execv(argv[0], (char *const *)argv);
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
		snprintf(why, whylen, "%s exited %d%s%s", argv[0], WEXITSTATUS(status),
		         line[0] ? ": " : "", line);
	else
		snprintf(why, whylen, "%s killed by signal %d", argv[0],
		         WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -1;
}

static void mode_flags(struct args *a, int mode)
{
	if (mode == WARDEN_MODE_WORKSPACE_WRITE) {
		/* What confine() adds: a private /tmp, a writable bind and a
		 * read-only bind over it; /dev/null keeps the probe harmless. */
		add(a, "--tmpfs"); add(a, "/tmp");
		add(a, "--bind"); add(a, "/dev/null"); add(a, "/tmp/.warden-probe");
		add(a, "--ro-bind"); add(a, "/dev/null"); add(a, "/tmp/.warden-probe");
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

static int bwrap_probe(void *state, int mode, struct warden_probe *out)
{
	struct bwrap *b = state;
	char why[200];
	int level;

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
	for (level = LEVEL_USERNS; level <= LEVEL_PRIVILEGED; level++) {
		struct args a = { { NULL }, 0 };

		base_flags(&a, b->use_launcher ? b->launcher : NULL, b->path, level);
		mode_flags(&a, mode);
		add(&a, "--");
		add(&a, b->path);
		add(&a, "--version");
		if (run_probe(a.v, level == LEVEL_USERNS ? why : out->detail,
		              level == LEVEL_USERNS ? sizeof(why) : sizeof(out->detail)) == 0)
			break;
	}
	if (level > LEVEL_PRIVILEGED) {
		/* Report why the full flag set failed: the first reason. */
		snprintf(out->detail, sizeof(out->detail), "%s", why);
		return 0;
	}
	b->level[mode - 1] = level;
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
		         why);
		break;
	default:
		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		out->privilege_dropped = 0;
		snprintf(out->detail, sizeof(out->detail),
		         "bwrap cannot drop capabilities: a command run as root can remount the read-only bind (%.150s)",
		         why);
		break;
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

/* ----------------------------------------------------------- confine */

/* Is path equal to root or below it?  Both are resolved. */
static int inside(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int bwrap_confine(void *state, const char *const *argv, size_t argc,
                         const struct warden_policy *policy,
                         struct warden_confine_out *out, char *err,
                         size_t errlen)
{
	struct bwrap *b = state;
	const char *root = policy->workspace_root;
	char prot[MAX_PROTECTED][PATH_MAX], fdbuf[16], real_path[PATH_MAX];
	size_t i, n_prot = 0;
	struct args a = { { NULL }, 0 };
	int level;

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

	base_flags(&a, b->use_launcher ? b->launcher : NULL, b->path, level);
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE) {
		add(&a, "--tmpfs"); add(&a, "/tmp");
		add(&a, "--bind"); add(&a, root); add(&a, root);
		for (i = 0; i < b->n_protected; i++) {
			char full[PATH_MAX];
			struct stat st;

			if ((size_t)snprintf(full, sizeof(full), "%s/%s", root,
			                     b->protected[i]) >= sizeof(full) ||
			    lstat(full, &st) < 0)
				continue;    /* absent: nothing to protect */
			if (realpath(full, prot[n_prot]) == NULL ||
			    !inside(prot[n_prot], root))
				continue;    /* outside the root: read-only anyway */
			if (S_ISLNK(st.st_mode))
				snprintf(out->detail, sizeof(out->detail),
				         "protected path %s is a symlink: its target is read-only, the link itself is not",
				         b->protected[i]);
			add(&a, "--ro-bind"); add(&a, prot[n_prot]); add(&a, prot[n_prot]);
			n_prot++;
		}
		if (out->detail[0] != '\0')
			out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
	}
	out->evidence = WARDEN_EVIDENCE_NONE;
	if (policy->status_fd >= 0) {
		snprintf(fdbuf, sizeof(fdbuf), "%d", policy->status_fd);
		add(&a, "--json-status-fd"); add(&a, fdbuf);
		out->evidence = WARDEN_EVIDENCE_BWRAP_JSON;
	}
	add(&a, "--");
	if (a.n + 1 >= sizeof(a.v) / sizeof(*a.v)) {
		WARDEN_PLUGIN_ERR(err, errlen, "bwrap: too many protected paths");
		return -1;
	}
	for (i = 0; i < a.n; i++)
		if (out->push_arg(out->sink, a.v[i]) < 0)
			goto oom;
	for (i = 0; i < argc; i++)
		if (out->push_arg(out->sink, argv[i]) < 0)
			goto oom;
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE &&
	    (out->push_writable_root(out->sink, root) < 0 ||
	     out->push_writable_root(out->sink, "/tmp") < 0))
		goto oom;
	return 0;
oom:
	WARDEN_PLUGIN_ERR(err, errlen, "bwrap: out of memory");
	return -1;
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
	.confine = bwrap_confine,
	.denial_signatures = denial_signatures,
	.n_denial_signatures = 1,
	.runner_rules = runner_rules,
	.n_runner_rules = 2,
};
