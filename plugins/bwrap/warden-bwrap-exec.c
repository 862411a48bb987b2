/*
 * warden-bwrap-exec — start bubblewrap with the dynamic loader's variables
 * moved out of its environment and into its command's.
 *
 *   warden-bwrap-exec [--netguard netns|host] [--lock-fd N | --lock ROOT]...
 *                     [--unpin ROOT REL | --pin-text ROOT REL TEXT]... BWRAP [ARG]...
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
 * Pins left behind.  To pin a path that does not exist, bwrap creates its
 * mount point on the host: an empty directory or file.  The backend names
 * each such path before BWRAP,
 *
 *   warden-bwrap-exec [--netguard netns|host]
 *                     [--unpin ROOT REL | --pin-text ROOT REL TEXT]...
 *                     BWRAP [ARG]...
 *
 * --pin-text: a file that must hold TEXT while it is pinned (git's
 * `commondir` must hold "." where an empty one would stop git); the
 * launcher creates it, when it does not exist, before bwrap starts, so
 * that bwrap binds it read-only as it is and a launcher killed before it
 * could remove it leaves a file git reads as if there were none.
 *
 * When one of them does not exist yet, the launcher does not exec bwrap
 * but runs it as its child (which also dies with it), forwards the
 * signals a spawner sends (INT, TERM, HUP, QUIT), and once bwrap has
 * ended — and with it the whole sandbox: as the subreaper of what bwrap
 * leaves behind, it kills and reaps the rest first (not the children its
 * caller started before it exec'd this one), since a pin removed under a
 * process still running there would detach its mount; where it cannot
 * list its children, the pins stay —
 * removes each such path it saw missing that is now an empty
 * directory or an empty regular file, or the file it created still
 * holding TEXT (each reached from ROOT without following any link), then
 * ends as bwrap did: its exit status, or its signal.  A launcher killed
 * with SIGKILL removes nothing.
 *
 * Runs that overlap on one root (launcher.h).  --lock-fd N: a directory
 * descriptor of the root on which the backend took a shared flock before
 * it looked at the protected paths; --lock ROOT: this launcher takes it
 * itself, first.  One of them for each writable root (the workspace root
 * and the roots beside it, at most MAX_LOCKS).  Either way this process
 * stays bwrap's parent and holds every lock until bwrap has ended (the
 * descriptors are close-on-exec: bwrap and the command never have them),
 * then removes the pins only if it can turn each lock exclusive at once;
 * another run that holds a lock may bind them, and then they stay, empty
 * (or holding ".").
 *
 * Network.  --netguard (first, when given) holds a restricted network
 * (DESIGN §2 "Network knob"): the launcher builds the network guard
 * (plugins/common/netguard.h) into a memfd, after the descriptors above
 * are closed, and hands it to bwrap as `--seccomp FD`, so bwrap loads it
 * into the command right before exec (bwrap reads and closes the
 * descriptor; the command never holds it).  `netns`: the command has a
 * network namespace of its own (bwrap --unshare-net), where IP sockets
 * reach nothing of the host's; `host`: it shares the host's, so no IP
 * socket may exist.  Either way it can make no unix socket of its own: a
 * pathname socket on the read-only host is still connect()able.  A seccomp
 * program in bwrap's own options would replace the guard (bwrap keeps the
 * last one): refused.
 *
 * The gate (allow_unix_socket, plugins/common/unixgate.h).  Inside the
 * sandbox, as bwrap's command,
 *
 *   warden-bwrap-exec --gate netns|host [--forward PORT FD] [--allow PATH]...
 *                     -- ARGV...
 *
 * holds a restricted network that lets the named host sockets through:
 * bwrap then loads no guard (a filter loaded by bwrap would bind this
 * process too, and the guard's listener must be held by a process the
 * guard does not bind); this process forks ARGV, which installs the
 * network guard with the gate before its exec and passes the listener up;
 * this one, made undumpable before the fork (the command may not ptrace
 * it), having opened each listed socket first (unixgate.h: what a name
 * leads to later changes nothing), answers the command's connect(),
 * bind() and listen() calls, passes on the signals it gets
 * (INT, TERM, HUP, QUIT, USR1, USR2), and ends as ARGV ended.  ARGV is
 * found in PATH as bwrap would (execvp); when it cannot be run the line is
 * "warden-bwrap-exec: exec ARGV0: WHY" and the status 127 (not found) or
 * 126, as a shell's.
 *
 * --forward PORT FD (the allowlist network, in a network namespace of the
 * command's own): before ARGV starts, a child of this process listens on
 * 127.0.0.1:PORT of that namespace and sends each connection it accepts
 * over FD (a unix SOCK_SEQPACKET socket bwrap was handed; SCM_RIGHTS, one
 * per message) to warden's proxy outside, which serves it: no byte goes
 * through this process, and no socket of the host is named.  ARGV holds
 * neither the listener nor FD.
 *
 * A signal told apart from an exit.  bwrap's own process 1 turns a
 * command killed by signal N into the exit status 128+N, in its exit
 * status and in its --json-status-fd document alike, so that `kill -TERM
 * $$` and `exit 143` look the same from outside.  So the backend names,
 * before BWRAP, --status-copy M: this launcher then puts a copy of the
 * descriptor bwrap's --json-status-fd names at M (not close-on-exec, so
 * that bwrap passes it on), and inside the sandbox, as bwrap's command,
 *
 *   warden-bwrap-exec --reap M -- ARGV...
 *   warden-bwrap-exec --gate netns|host [--allow PATH]... --reap M -- ARGV...
 *
 * forks ARGV (which never holds M: close-on-exec), made undumpable before
 * the fork as the gate is, passes on the signals it gets, and when ARGV
 * was killed by a signal writes `{"warden-signal": N}` to M before it
 * ends as ARGV ended.  The host reads it beside bwrap's own documents.
 *
 * Failure: one stderr line "warden-bwrap-exec: fatal: WHAT: WHY", exit
 * status 125, nothing run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"
#include "netguard.h"
#include "unixgate.h"

#define MAX_LOCKS WARDEN_BWRAP_MAX_LOCKS

#ifndef __NR_close_range
#define __NR_close_range 436
#endif

extern char **environ;

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

/* A memfd holding the network guard for bwrap --seccomp, inherited by
 * bwrap (not close-on-exec).  Its number, or a fatal error. */
static int netguard_fd(int flags)
{
	int fd = warden_bwrap_netguard_memfd(flags);

	if (fd < 0)
		fatal("netguard", "%s", strerror(errno));
	return fd;
}

/* --netguard KIND in front of everything else: the guard's flags, -1
 * without it; *shift is how many arguments it took. */
static int netguard_option(int argc, char **argv, int *shift)
{
	int i;

	*shift = 0;
	if (argc < 2 || strcmp(argv[1], "--netguard") != 0)
		return -1;
	if (argc < 3)
		fatal("arguments", "--netguard needs netns or host");
	*shift = 2;
	/* bwrap keeps the last seccomp program it is given: none may follow. */
	for (i = 3; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--seccomp") == 0 ||
		    strcmp(argv[i], "--add-seccomp-fd") == 0)
			fatal("arguments", "%s with --netguard: the guard would be replaced",
			      argv[i]);
	if (strcmp(argv[2], "netns") == 0)
		return WARDEN_NETGUARD_INET_ANY;
	if (strcmp(argv[2], "host") == 0)
		return 0;
	fatal("arguments", "--netguard '%s': allowed: netns, host", argv[2]);
}

static void close_from(unsigned lo, unsigned hi)
{
	if (lo <= hi && syscall(__NR_close_range, lo, hi, 0) < 0)
		fatal("close_range", "%s", strerror(errno));
}

/* Reads bwrap's options in argv[i..] up to `--` or the command: every
 * descriptor they name goes to keep (n_keep of them); each `null` data
 * descriptor's index in argv goes to nulls. */
/* The descriptor --json-status-fd names, once scan() has seen it. */
static int json_status_fd = -1;

static void scan(int argc, char **argv, int i, int *keep, size_t *n_keep,
                 int *nulls, size_t *n_nulls)
{
	const struct option *o;
	char *end;
	long v;

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
				if (strcmp(o->name, "--json-status-fd") == 0)
					json_status_fd = (int)v;
			}
		}
		i += 1 + o->nargs;
	}
}

/* ------------------------------------------------------------ unpin */

/* A descriptor number from 3 to 65535, or -1. */
static int fd_arg(const char *a)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(a, &end, 10);
	if (errno != 0 || end == a || *end != '\0' || v < 3 || v > 65535)
		return -1;
	return (int)v;
}

static volatile pid_t child_pid;

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Our children now (the whole list, however long), into *out (malloc'd,
 * *n of them); -1 when the kernel cannot list them (no
 * CONFIG_PROC_CHILDREN) or out of memory. */
static int children(pid_t **out, size_t *n)
{
	char path[64], *buf = NULL, *p, *end, *nb;
	size_t len = 0, cap = 0, k = 0;
	ssize_t got;
	long v;
	int fd;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			if ((nb = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nb;
		}
		got = read(fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	fd = -1;
	if (buf == NULL)
		return 0;
	buf[len] = '\0';
	*out = calloc(len / 2 + 1, sizeof(**out));
	if (*out == NULL)
		goto fail;
	for (p = buf; (v = strtol(p, &end, 10)) > 0 && end != p; p = end)
		(*out)[k++] = (pid_t)v;
	*n = k;
	free(buf);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(*out);
	*out = NULL;
	return -1;
}

static int listed(const pid_t *v, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

/*
 * Kills what is left of the sandbox, now our children (we are their
 * subreaper), and reaps it: every child that was not ours before bwrap
 * started (`before`: what our caller started before it exec'd us is not
 * the sandbox's and is left alone).  The sandbox's first process is
 * reapable only once every process in its PID namespace has ended, and a
 * process is reparented before its parent becomes reapable, so a round
 * that finds no new child means nothing of the sandbox is left: 0.  -1
 * when that cannot be known (the children cannot be listed).
 */
static int end_sandbox(const pid_t *before, size_t n_before)
{
	pid_t *now;
	size_t n, i;
	int found;

	do {
		if (children(&now, &n) < 0)
			return -1;
		found = 0;
		for (i = 0; i < n; i++) {
			if (listed(before, n_before, now[i]))
				continue;
			kill(now[i], SIGKILL);
			while (waitpid(now[i], NULL, 0) < 0 && errno == EINTR)
				;
			found = 1;
		}
		free(now);
	} while (found);
	return 0;
}

/* Runs bwrap as a child, waits for it, removes the pins it left, and ends
 * as it ended. */
__attribute__((noreturn))
static void supervise(char **args, char **env, const struct warden_bwrap_pin *u,
                      size_t n_u, int *locks, size_t n_locks)
{
	struct sigaction sa;
	struct rlimit no_core = { 0, 0 };
	sigset_t set, old;
	pid_t pid, self = getpid(), *before = NULL;
	size_t i, n_before = 0;
	int status, sig, ended;

	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		sigaction(forwarded[i], &sa, NULL);
	/* What bwrap leaves behind when it ends (its child, the sandbox's
	 * first process) becomes ours, so that we see the whole sandbox
	 * end before a pin is removed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		fatal("prctl", "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	/* Without the list nothing can be known of the sandbox's end, and
	 * the pins stay (ended below). */
	ended = children(&before, &n_before) == 0;
	pid = fork();
	if (pid < 0)
		fatal("fork", "%s", strerror(errno));
	if (pid == 0) {
		sa.sa_handler = SIG_DFL;
		for (i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
			sigaction(forwarded[i], &sa, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != self)
			_exit(WARDEN_BWRAP_EXEC_EXIT);
		execve(args[0], args, env);
		fatal("exec", "%s: %s", args[0], strerror(errno));
	}
	child_pid = pid;
	/* Only bwrap needs the descriptors its options name; the locks on
	 * the roots stay held here until the end (sorted in main). */
	{
		unsigned lo = 3;

		for (i = 0; i < n_locks; i++) {
			if (locks[i] < (int)lo)
				continue;
			close_from(lo, (unsigned)locks[i] - 1);
			lo = (unsigned)locks[i] + 1;
		}
		close_from(lo, ~0U);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fatal("waitpid", "%s", strerror(errno));
	child_pid = 0;
	/* bwrap may end before its sandbox does (a signal forwarded to it,
	 * say): its processes would still be running there when a pin is
	 * removed, which detaches the pin's mount under them.  So the rest
	 * is killed, and reaped, first; when that cannot be known, the pins
	 * stay. */
	ended = ended && end_sandbox(before, n_before) == 0;
	free(before);
	/* Another run on a root that holds its lock may bind what we
	 * pinned: then the pins stay (launcher.h). */
	for (i = 0; ended && i < n_locks; i++)
		ended = flock(locks[i], LOCK_EX | LOCK_NB) == 0;
	if (ended)
		for (i = 0; i < n_u; i++)
			warden_bwrap_pin_remove(&u[i]);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	setrlimit(RLIMIT_CORE, &no_core);
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* Ends the way a child with wait status `status` ended. */
__attribute__((noreturn))
static void exit_like(int status)
{
	struct sigaction sa;
	struct rlimit no_core = { 0, 0 };
	sigset_t set;
	int sig;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	setrlimit(RLIMIT_CORE, &no_core);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* --forward: the listener on 127.0.0.1:port, before anything runs. */
static int forward_listen(int port)
{
	struct sockaddr_in sin;
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fatal("forward", "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 128) < 0)
		fatal("forward", "listen on 127.0.0.1:%d: %s", port, strerror(errno));
	return fd;
}

/* The forwarder's loop: each accepted socket goes to the proxy. */
__attribute__((noreturn))
static void forward_loop(int lfd, int to)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov;
	struct msghdr m;
	char one = 'c';
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				continue;
			_exit(1);
		}
		memset(&m, 0, sizeof(m));
		iov.iov_base = &one;
		iov.iov_len = 1;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &fd, sizeof(int));
		while (sendmsg(to, &m, MSG_NOSIGNAL) < 0) {
			if (errno != EINTR)
				_exit(errno == EPIPE || errno == ECONNREFUSED ? 0 : 1);
		}
		close(fd);
	}
}

/* --gate: see the comment at the top.  Never returns. */

/* --reap M: writes what ended ARGV to M when it was a signal (the comment
 * at the top). */
static void report_signal(int fd, int status)
{
	char doc[64];
	int n;

	if (fd < 0 || !WIFSIGNALED(status))
		return;
	n = snprintf(doc, sizeof(doc), "{\"warden-signal\": %d}\n", WTERMSIG(status));
	while (write(fd, doc, (size_t)n) < 0 && errno == EINTR)
		;
}

/* "--reap M" at argv[i]: M made close-on-exec (the command never holds
 * it), its number returned, i moved past it; -1 when argv[i] is not it. */
static int reap_option(int argc, char **argv, int *i)
{
	int fd;

	if (*i >= argc || strcmp(argv[*i], "--reap") != 0)
		return -1;
	if (*i + 1 >= argc || (fd = fd_arg(argv[*i + 1])) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		fatal("arguments", "--reap needs an open descriptor above 2");
	*i += 2;
	return fd;
}

__attribute__((noreturn))
static void gate(int argc, char **argv)
{
	static const int passed[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	                              SIGUSR1, SIGUSR2 };
	struct warden_unixgate g;
	const char **allow = calloc((size_t)argc, sizeof(*allow));
	sigset_t set, old;
	int i = 3, chan[2] = { -1, -1 }, listener = -1, sfd, status, flags = 0, reap;
	int gated = strcmp(argv[1], "--gate") == 0;
	int fwd_port = 0, fwd_to = -1, fwd_listen = -1;
	const char *bad;
	pid_t pid, w, fwd = 0;
	size_t k;

	if (allow == NULL)
		fatal("arguments", "out of memory");
	memset(&g, 0, sizeof(g));
	if (gated) {
		if (argc < 3 || (strcmp(argv[2], "netns") != 0 && strcmp(argv[2], "host") != 0))
			fatal("arguments", "--gate needs netns or host");
		flags = strcmp(argv[2], "netns") == 0 ? WARDEN_NETGUARD_INET_ANY : 0;
		if (i + 2 < argc && strcmp(argv[i], "--forward") == 0) {
			char *end;
			long v = strtol(argv[i + 1], &end, 10);

			if (flags == 0 || *end != '\0' || v < 1 || v > 65535 ||
			    (fwd_to = fd_arg(argv[i + 2])) < 0)
				fatal("arguments", "--forward PORT FD: a port in 1..65535 and a descriptor, with --gate netns");
			fwd_port = (int)v;
			if (fcntl(fwd_to, F_SETFD, FD_CLOEXEC) < 0)
				fatal("forward", "descriptor %d: %s", fwd_to, strerror(errno));
			i += 3;
		}
		while (i + 1 < argc && strcmp(argv[i], "--allow") == 0) {
			allow[g.n_allow++] = argv[i + 1];
			i += 2;
		}
	} else {
		i = 1;
	}
	reap = reap_option(argc, argv, &i);
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc || (!gated && reap < 0))
		fatal("arguments", "usage: warden-bwrap-exec --gate netns|host [--forward PORT FD] [--allow PATH]... [--reap M] -- ARGV... | --reap M -- ARGV...");
	g.allow = allow;
	g.own_netns = flags != 0;
	if (gated && (bad = warden_unixgate_bad_name(&g)) != NULL)
		fatal("--allow", "'%s': not an absolute path shorter than a unix socket address (108 bytes)", bad);
	argv += i + 1;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (k = 0; k < sizeof(passed) / sizeof(*passed); k++)
		sigaddset(&set, passed[k]);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0 ||
	    (sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0)
		fatal("signals", "%s", strerror(errno));
	if (gated && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan) < 0)
		fatal("socketpair", "%s", strerror(errno));
	/* The sockets the names lead to now, before the command can change
	 * what they lead to (a link, a renamed directory in /tmp or in the
	 * workspace). */
	if (gated && warden_unixgate_pin(&g) < 0)
		fatal("allow_unix_socket", "%s", strerror(errno));
	/* The command may not ptrace the one that answers for it: undumpable
	 * before the fork, so that no moment is left after the command's
	 * exec (which makes the command dumpable again). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fatal("prctl", "PR_SET_DUMPABLE: %s", strerror(errno));
	/* The proxy's door, listening before the command can dial it. */
	if (fwd_port != 0) {
		fwd_listen = forward_listen(fwd_port);
		fwd = fork();
		if (fwd < 0)
			fatal("fork", "%s", strerror(errno));
		if (fwd == 0) {
			close(chan[0]);
			close(chan[1]);
			close(sfd);
			if (reap >= 0)
				close(reap);
			sigprocmask(SIG_SETMASK, &old, NULL);
			forward_loop(fwd_listen, fwd_to);
		}
		close(fwd_listen);
		close(fwd_to);
	}
	pid = fork();
	if (pid < 0)
		fatal("fork", "%s", strerror(errno));
	if (pid == 0) {
		int e;

		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (!gated) {
			execvp(argv[0], argv);
			e = errno;
			fprintf(stderr, WARDEN_BWRAP_EXEC_NAME ": exec %s: %s\n", argv[0], strerror(e));
			_exit(e == ENOENT ? 127 : 126);
		}
		close(chan[0]);
		listener = warden_unixgate_install(flags);
		if (listener < 0)
			fatal("seccomp", "install the network guard with its supervisor (allow_unix_socket): %s",
			      strerror(errno));
		if (warden_unixgate_send(chan[1], listener) < 0)
			fatal("allow_unix_socket", "pass the supervisor its listener: %s",
			      strerror(errno));
		close(listener);
		close(chan[1]);
		execvp(argv[0], argv);
		e = errno;
		fprintf(stderr, WARDEN_BWRAP_EXEC_NAME ": exec %s: %s\n", argv[0], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}
	if (gated) {
		close(chan[1]);
		listener = warden_unixgate_recv(chan[0]);
		close(chan[0]);
	}
	for (;;) {
		struct pollfd p[2] = { { sfd, POLLIN, 0 }, { listener, POLLIN, 0 } };
		struct signalfd_siginfo si;

		if (poll(p, listener >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll", "%s", strerror(errno));
		}
		/* A listener that fails or that nobody uses any more is
		 * closed: connect() then fails (ENOSYS), never passes. */
		if (listener >= 0 && p[1].revents != 0 &&
		    (!(p[1].revents & POLLIN) || warden_unixgate_answer(listener, &g) < 0)) {
			close(listener);
			listener = -1;
		}
		if (!(p[0].revents & POLLIN) ||
		    read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		if (si.ssi_signo != SIGCHLD) {
			kill(pid, (int)si.ssi_signo);
			continue;
		}
		while ((w = waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR)
			;
		if (w == pid) {
			report_signal(reap, status);
			exit_like(status);
		}
	}
}

int main(int argc, char **argv)
{
	size_t n_env = 0, n_moved = 0, i, k = 0, e = 0, n_keep = 0, n_nulls = 0;
	size_t n_u = 0, n_missing = 0;
	struct warden_bwrap_pin *u;
	char **args, **env, seccomp_arg[16];
	int *keep, *nulls, b0 = 1, guard, shift, locks[MAX_LOCKS], copy = -1;
	const char *lock_roots[MAX_LOCKS];
	size_t n_locks = 0, n_lock_roots = 0;
	unsigned lo = 3;

	/* Die with the spawner: kept across the exec of bwrap. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fatal("prctl", "PR_SET_PDEATHSIG: %s", strerror(errno));
	/* A spawner that ignores SIGCHLD hands that on through exec: our
	 * children, and bwrap's, would then be reaped by the kernel unseen,
	 * and no wait here (nor the gate's) could tell when they end. */
	signal(SIGCHLD, SIG_DFL);
	if (argc > 1 && (strcmp(argv[1], "--gate") == 0 || strcmp(argv[1], "--reap") == 0))
		gate(argc, argv);
	/* A session keyring of bwrap's own, empty: the spawner's would be
	 * the command's (it is not namespaced), and a key it added or
	 * unlinked there would outlive the run.  Its user keyrings are its
	 * user namespace's.  A kernel without keyrings, or a seccomp filter
	 * that refuses them to this process (as a container's may), leaves
	 * the command nothing to reach: its filters are this one's. */
	if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, (char *)NULL) < 0 &&
	    errno != ENOSYS && errno != EPERM)
		fatal("keyctl", "a session keyring of its own: %s", strerror(errno));
	/* From here on argv[1] is the first argument after --netguard. */
	guard = netguard_option(argc, argv, &shift);
	argc -= shift;
	argv += shift;
	u = calloc((size_t)argc, sizeof(*u));
	if (u == NULL)
		fatal("arguments", "out of memory");
	while (b0 < argc && (strcmp(argv[b0], "--unpin") == 0 ||
	                     strcmp(argv[b0], "--status-copy") == 0 ||
	                     strcmp(argv[b0], "--pin-text") == 0 ||
	                     strcmp(argv[b0], "--lock") == 0 ||
	                     strcmp(argv[b0], "--lock-fd") == 0)) {
		int text = strcmp(argv[b0], "--pin-text") == 0;
		int by_path = strcmp(argv[b0], "--lock") == 0;

		if (strcmp(argv[b0], "--status-copy") == 0) {
			if (b0 + 1 >= argc || copy >= 0 || (copy = fd_arg(argv[b0 + 1])) < 0)
				fatal("arguments", "--status-copy takes one descriptor number above 2 and comes once");
			b0 += 2;
			continue;
		}

		if (by_path || strcmp(argv[b0], "--lock-fd") == 0) {
			if (b0 + 1 >= argc)
				fatal("arguments", "%s takes one argument", argv[b0]);
			if (n_locks + n_lock_roots >= MAX_LOCKS)
				fatal("arguments", "more than %d --lock and --lock-fd: one per writable root",
				      MAX_LOCKS);
			if (by_path) {
				if (argv[b0 + 1][0] != '/')
					fatal("arguments", "--lock '%s': want an absolute root", argv[b0 + 1]);
				lock_roots[n_lock_roots++] = argv[b0 + 1];
			} else {
				int lock = fd_arg(argv[b0 + 1]);

				if (lock < 3 || fcntl(lock, F_SETFD, FD_CLOEXEC) < 0)
					fatal("arguments", "--lock-fd '%s': not an open descriptor above 2",
					      argv[b0 + 1]);
				locks[n_locks++] = lock;
			}
			b0 += 2;
			continue;
		}

		if (b0 + 2 + text >= argc)
			fatal("arguments", "%s takes %s", argv[b0],
			      text ? "three arguments, ROOT, REL and TEXT"
			           : "two arguments, ROOT and REL");
		if (argv[b0 + 1][0] != '/' || !warden_bwrap_rel_ok(argv[b0 + 2]))
			fatal("arguments", "%s '%s' '%s': want an absolute root and a path relative to it",
			      argv[b0], argv[b0 + 1], argv[b0 + 2]);
		u[n_u].root = argv[b0 + 1];
		u[n_u].rel = argv[b0 + 2];
		u[n_u].text = text ? argv[b0 + 3] : NULL;
		n_u++;
		b0 += 3 + text;
	}
	if (b0 >= argc)
		fatal("arguments", "usage: warden-bwrap-exec [--netguard netns|host] [--status-copy M] [--unpin ROOT REL | --pin-text ROOT REL TEXT]... BWRAP [ARG]...");
	if (argv[b0][0] != '/')
		fatal("arguments", "'%s' is not an absolute path", argv[b0]);
	keep = calloc((size_t)argc, sizeof(*keep));
	nulls = calloc((size_t)argc, sizeof(*nulls));
	if (keep == NULL || nulls == NULL)
		fatal("arguments", "out of memory");
	scan(argc, argv, b0 + 1, keep, &n_keep, nulls, &n_nulls);
	for (i = 0; i < n_locks; i++)
		keep[n_keep++] = locks[i];  /* ours: close-on-exec, bwrap never has them */
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
	if (copy >= 0) {
		/* A number of its own, never one bwrap's options name. */
		if (json_status_fd < 0)
			fatal("--status-copy", "bwrap has no --json-status-fd to copy");
		if (fcntl(copy, F_GETFD) >= 0)
			fatal("--status-copy", "descriptor %d is already in use", copy);
		if (dup2(json_status_fd, copy) < 0)
			fatal("--status-copy", "%s", strerror(errno));
	}
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
		if (warden_bwrap_loader_name(environ[i]) > 0)
			n_moved++;
	}
	if (guard >= 0)
		snprintf(seccomp_arg, sizeof(seccomp_arg), "%d", netguard_fd(guard));
	args = calloc((size_t)argc + 3 * n_moved + 3, sizeof(*args));
	env = calloc(n_env + 1, sizeof(*env));
	if (args == NULL || env == NULL)
		fatal("arguments", "out of memory");
	args[k++] = argv[b0];
	if (guard >= 0) {
		args[k++] = (char *)"--seccomp";
		args[k++] = seccomp_arg;
	}
	for (i = 0; i < n_env; i++) {
		size_t n = warden_bwrap_loader_name(environ[i]);
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
	for (i = (size_t)b0 + 1; i < (size_t)argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	env[e] = NULL;
	/* Held before anything is looked at or made (launcher.h). */
	for (i = 0; i < n_lock_roots; i++) {
		int lock = open(lock_roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (lock < 0 || warden_bwrap_lock_shared(lock) < 0)
			fatal("--lock", "%s: %s", lock_roots[i], strerror(errno));
		locks[n_locks++] = lock;
	}
	qsort(locks, n_locks, sizeof(*locks), cmp_int);
	/* Only what is missing now is bwrap's (or ours) to create and ours
	 * to remove. */
	for (i = 0; i < n_u; i++) {
		if (!warden_bwrap_pin_missing(&u[i]))
			continue;
		if (u[i].text != NULL && warden_bwrap_pin_make(&u[i]) < 0)
			fatal("--pin-text", "%s/%s: %s", u[i].root, u[i].rel, strerror(errno));
		u[n_missing++] = u[i];
	}
	/* With a lock, this process holds it for the whole run. */
	if (n_missing > 0 || n_locks > 0)
		supervise(args, env, u, n_missing, locks, n_locks);
	execve(args[0], args, env);
	fatal("exec", "%s: %s", args[0], strerror(errno));
}
