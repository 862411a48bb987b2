/*
 * warden-bwrap-exec — start bubblewrap with the dynamic loader's variables
 * moved out of its environment and into its command's.
 *
 *   warden-bwrap-exec BWRAP [ARG]...
 *
 * bwrap is a dynamic program and, run by root, not a set-uid one: the
 * loader honours LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT and their kin in
 * its environment, so a library named there would run inside bwrap,
 * with every capability and before any namespace exists.  This launcher
 * is linked statically (the loader never runs for it) and execs
 *
 *   BWRAP --setenv NAME VALUE ... [ARG]...
 *
 * with each such variable removed from bwrap's environment and handed to
 * the confined command through --setenv, so the command sees the
 * environment it was given, unchanged, and only code inside the sandbox
 * ever loads what those variables name.
 *
 * The variables: every name starting with LD_, and the others glibc drops
 * for a set-uid program (its "unsecure" list).
 *
 * Descriptors.  bwrap passes every open descriptor to the command, and one
 * the spawner forgot would let the command write wherever it points.  So
 * every descriptor above 2 is closed but those bwrap's own options name
 * before `--` (--json-status-fd N, --bind-fd N DEST, --ro-bind-fd N DEST,
 * and every other option whose argument is a descriptor); bwrap closes
 * those itself before the command runs.  The options are read with their
 * arities, as bwrap reads them; an option this launcher does not know is
 * refused rather than guessed at.
 *
 * Empty files.  A descriptor argument `null` of --ro-bind-data, --bind-data
 * or --file is replaced by a fresh read-only descriptor of /dev/null: bwrap
 * then makes an empty file there (the backend pins a protected file that
 * does not exist yet with an empty read-only one).
 *
 * Life.  It asks for SIGKILL when its parent dies (PR_SET_PDEATHSIG, kept
 * across the exec of bwrap, which is not set-uid), so that bwrap and its
 * command never outlive the spawner even before bwrap's own
 * --die-with-parent is in place.
 *
 * Failure: one stderr line "warden-bwrap-exec: fatal: WHAT: WHY", exit
 * status 125, nothing run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

#ifndef __NR_close_range
#define __NR_close_range 436
#endif

extern char **environ;

static const char *const unsafe[] = {
	"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES",
	"LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE", "NIS_PATH", "NLSPATH",
	"RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR",
};

/* bwrap's options (0.8.0 and Debian's additions): how many arguments each
 * takes, and which one (1-based) is a descriptor, 0 for none.  `data`:
 * the descriptor is read for a file's content (`null` allowed). */
static const struct option {
	const char *name;
	int nargs;
	int fd_arg;
	int data;
} options[] = {
	{ "--help", 0, 0, 0 }, { "--version", 0, 0, 0 },
	{ "--args", 1, 1, 0 },
	{ "--unshare-all", 0, 0, 0 }, { "--share-net", 0, 0, 0 },
	{ "--unshare-user", 0, 0, 0 }, { "--unshare-user-try", 0, 0, 0 },
	{ "--unshare-ipc", 0, 0, 0 }, { "--unshare-pid", 0, 0, 0 },
	{ "--unshare-net", 0, 0, 0 }, { "--unshare-uts", 0, 0, 0 },
	{ "--unshare-cgroup", 0, 0, 0 }, { "--unshare-cgroup-try", 0, 0, 0 },
	{ "--userns", 1, 1, 0 }, { "--userns2", 1, 1, 0 },
	{ "--disable-userns", 0, 0, 0 }, { "--assert-userns-disabled", 0, 0, 0 },
	{ "--pidns", 1, 1, 0 },
	{ "--uid", 1, 0, 0 }, { "--gid", 1, 0, 0 }, { "--hostname", 1, 0, 0 },
	{ "--chdir", 1, 0, 0 }, { "--clearenv", 0, 0, 0 },
	{ "--setenv", 2, 0, 0 }, { "--unsetenv", 1, 0, 0 },
	{ "--lock-file", 1, 0, 0 }, { "--sync-fd", 1, 1, 0 },
	{ "--bind", 2, 0, 0 }, { "--bind-try", 2, 0, 0 },
	{ "--dev-bind", 2, 0, 0 }, { "--dev-bind-try", 2, 0, 0 },
	{ "--ro-bind", 2, 0, 0 }, { "--ro-bind-try", 2, 0, 0 },
	{ "--bind-fd", 2, 1, 0 }, { "--ro-bind-fd", 2, 1, 0 },
	{ "--remount-ro", 1, 0, 0 },
	{ "--exec-label", 1, 0, 0 }, { "--file-label", 1, 0, 0 },
	{ "--proc", 1, 0, 0 }, { "--dev", 1, 0, 0 }, { "--tmpfs", 1, 0, 0 },
	{ "--mqueue", 1, 0, 0 }, { "--dir", 1, 0, 0 },
	{ "--file", 2, 1, 1 }, { "--bind-data", 2, 1, 1 },
	{ "--ro-bind-data", 2, 1, 1 },
	{ "--symlink", 2, 0, 0 },
	{ "--seccomp", 1, 1, 0 }, { "--add-seccomp-fd", 1, 1, 0 },
	{ "--block-fd", 1, 1, 0 }, { "--userns-block-fd", 1, 1, 0 },
	{ "--info-fd", 1, 1, 0 }, { "--json-status-fd", 1, 1, 0 },
	{ "--new-session", 0, 0, 0 }, { "--die-with-parent", 0, 0, 0 },
	{ "--as-pid-1", 0, 0, 0 },
	{ "--cap-add", 1, 0, 0 }, { "--cap-drop", 1, 0, 0 },
	{ "--perms", 1, 0, 0 }, { "--size", 1, 0, 0 }, { "--chmod", 2, 0, 0 },
};

__attribute__((noreturn, format(printf, 2, 3)))
static void fatal(const char *what, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	fprintf(stderr, WARDEN_BWRAP_EXEC_FATAL "%s: %s\n", what, why);
	_exit(WARDEN_BWRAP_EXEC_EXIT);
}

/* The length of NAME in "NAME=VALUE" when NAME is a loader variable. */
static size_t loader_name(const char *entry)
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

static const struct option *find_option(const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(*options); i++)
		if (strcmp(options[i].name, arg) == 0)
			return &options[i];
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void close_from(unsigned lo, unsigned hi)
{
	if (lo <= hi && syscall(__NR_close_range, lo, hi, 0) < 0)
		fatal("close_range", "%s", strerror(errno));
}

/* Reads bwrap's options in argv[2..] up to `--` or the command: every
 * descriptor they name goes to keep (n_keep of them); each `null` data
 * descriptor's index in argv goes to nulls. */
static void scan(int argc, char **argv, int *keep, size_t *n_keep,
                 int *nulls, size_t *n_nulls)
{
	const struct option *o;
	char *end;
	long v;
	int i = 2;

	while (i < argc && strcmp(argv[i], "--") != 0 &&
	       strncmp(argv[i], "--", 2) == 0) {
		o = find_option(argv[i]);
		if (o == NULL)
			fatal("arguments", "unknown bwrap option '%s': refusing to guess which descriptors it needs",
			      argv[i]);
		if (i + o->nargs >= argc)
			fatal("arguments", "%s takes %d argument%s", o->name,
			      o->nargs, o->nargs == 1 ? "" : "s");
		if (o->fd_arg > 0) {
			const char *a = argv[i + o->fd_arg];

			if (o->data && strcmp(a, "null") == 0) {
				nulls[(*n_nulls)++] = i + o->fd_arg;
			} else {
				errno = 0;
				v = strtol(a, &end, 10);
				if (errno != 0 || end == a || *end != '\0' || v < 3 ||
				    v > 65535)
					fatal("arguments", "%s '%s' is not a descriptor above 2",
					      o->name, a);
				keep[(*n_keep)++] = (int)v;
			}
		}
		i += 1 + o->nargs;
	}
}

int main(int argc, char **argv)
{
	size_t n_env = 0, n_moved = 0, i, k = 0, e = 0, n_keep = 0, n_nulls = 0;
	char **args, **env;
	int *keep, *nulls;
	unsigned lo = 3;

	/* Die with the spawner: kept across the exec of bwrap. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fatal("prctl", "PR_SET_PDEATHSIG: %s", strerror(errno));
	if (argc < 2)
		fatal("arguments", "usage: warden-bwrap-exec BWRAP [ARG]...");
	if (argv[1][0] != '/')
		fatal("arguments", "'%s' is not an absolute path", argv[1]);
	keep = calloc((size_t)argc, sizeof(*keep));
	nulls = calloc((size_t)argc, sizeof(*nulls));
	if (keep == NULL || nulls == NULL)
		fatal("arguments", "out of memory");
	scan(argc, argv, keep, &n_keep, nulls, &n_nulls);
	qsort(keep, n_keep, sizeof(*keep), cmp_int);
	for (i = 0; i < n_keep; i++) {
		if (keep[i] < (int)lo)
			continue;  /* named twice */
		close_from(lo, (unsigned)keep[i] - 1);
		if (fcntl(keep[i], F_GETFD) < 0)
			fatal("arguments", "descriptor %d is not open", keep[i]);
		lo = (unsigned)keep[i] + 1;
	}
	close_from(lo, ~0U);
	for (i = 0; i < n_nulls; i++) {
		char *num = malloc(16);
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0)
			fatal("/dev/null", "%s", strerror(errno));
		if (num == NULL)
			fatal("arguments", "out of memory");
		snprintf(num, 16, "%d", fd);
		argv[nulls[i]] = num;
	}
	for (i = 0; environ != NULL && environ[i] != NULL; i++) {
		n_env++;
		if (loader_name(environ[i]) > 0)
			n_moved++;
	}
	args = calloc((size_t)argc + 3 * n_moved + 1, sizeof(*args));
	env = calloc(n_env + 1, sizeof(*env));
	if (args == NULL || env == NULL)
		fatal("arguments", "out of memory");
	args[k++] = argv[1];
	for (i = 0; i < n_env; i++) {
		size_t n = loader_name(environ[i]);
		char *name;

		if (n == 0) {
			env[e++] = environ[i];
			continue;
		}
		name = strndup(environ[i], n);
		if (name == NULL)
			fatal("arguments", "out of memory");
		args[k++] = (char *)"--setenv";
		args[k++] = name;
		args[k++] = environ[i] + n + 1;
	}
	for (i = 2; i < (size_t)argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	env[e] = NULL;
	execve(argv[1], args, env);
	fatal("exec", "%s: %s", argv[1], strerror(errno));
}
