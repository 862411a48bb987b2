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
 * It also closes every descriptor above 2 but the one bwrap is told to
 * report on (--json-status-fd N, before `--`): bwrap passes every open
 * descriptor to the command, and one the spawner forgot would let the
 * command write wherever it points.
 *
 * Failure: one stderr line "warden-bwrap-exec: fatal: WHAT: WHY", exit
 * status 125, nothing run.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
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

/* The N of the first --json-status-fd N before `--`, or -1. */
static int status_fd(int argc, char **argv)
{
	char *end;
	long v;
	int i;

	for (i = 2; i + 1 < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--json-status-fd") != 0)
			continue;
		errno = 0;
		v = strtol(argv[i + 1], &end, 10);
		if (errno != 0 || end == argv[i + 1] || *end != '\0' || v < 3 || v > 65535)
			fatal("arguments", "--json-status-fd '%s' is not a descriptor above 2",
			      argv[i + 1]);
		return (int)v;
	}
	return -1;
}

static void close_from(unsigned lo, unsigned hi)
{
	if (lo <= hi && syscall(__NR_close_range, lo, hi, 0) < 0)
		fatal("close_range", "%s", strerror(errno));
}

int main(int argc, char **argv)
{
	size_t n_env = 0, n_moved = 0, i, k = 0, e = 0;
	char **args, **env;
	int keep;

	if (argc < 2)
		fatal("arguments", "usage: warden-bwrap-exec BWRAP [ARG]...");
	if (argv[1][0] != '/')
		fatal("arguments", "'%s' is not an absolute path", argv[1]);
	keep = status_fd(argc, argv);
	if (keep < 0) {
		close_from(3, ~0U);
	} else {
		close_from(3, (unsigned)keep - 1);
		close_from((unsigned)keep + 1, ~0U);
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
