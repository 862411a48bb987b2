/*
 * warden-landlock-run — run one command inside a Landlock file-write boundary.
 *
 *   warden-landlock-run [--status-fd N] [--no-namespaces]
 *                       [--network restricted|enabled] [--proxy-port N]
 *                       [--allow-unix-socket PATH]... [--ro PATH]...
 *                       [--rw PATH]... [--rw-fd N]... -- ARGV...
 *   warden-landlock-run --probe
 *
 * The runner's only input is its argv (no config file, no environment
 * variable changes what it does; PATH is read only to find ARGV[0], see
 * below).  In order it:
 *
 *   0. asks for SIGKILL when its parent dies (PR_SET_PDEATHSIG), takes the
 *      status fd, before anything that can fail (its own arguments
 *      included), and writes "started" to it: an empty status pipe then
 *      always means the runner never started.  A parent already gone is
 *      fatal: the status pipe has no reader (EPIPE) or getppid() changed;
 *   1. parses argv strictly: every path absolute, every --rw-fd an open
 *      descriptor above 2 (a directory the caller opened: the rule is made
 *      on it, not on a path that could have been swapped), `--` required,
 *      ARGV non-empty; anything else is fatal;
 *   2. marks the status fd close-on-exec and closes every other fd but 0-2
 *      and the --rw-fd ones (closed once the ruleset holds them);
 *   3. leaves the caller's controlling terminal: setsid(), or, when the
 *      runner leads its process group and setsid() cannot work, TIOCNOTTY;
 *      without a controlling terminal and without CAP_SYS_ADMIN, TIOCSTI
 *      cannot reach the caller's terminal (the seccomp guard refuses
 *      TIOCSTI as well);
 *   4. unless --no-namespaces: makes IPC and PID namespaces (directly with
 *      root's privilege, else inside a user namespace of its own mapping
 *      only its uid and gid; failing that is fatal) and forks their first
 *      process, which dies with the runner (SIGKILL), takes a session of
 *      its own and does steps 5-7 itself; it then forks the command,
 *      passes on the signals the runner forwards to it (HUP, INT, QUIT,
 *      TERM, USR1, USR2), and exits once the command has: the kernel then
 *      kills whatever else is left in the namespace.  The runner itself
 *      drops every capability, waits and ends the way the command ended
 *      (its exit status, or its signal).  So nothing the command starts outlives the runner, and
 *      the runner dies with warden; SysV IPC and POSIX message queues are
 *      the namespace's own.  With --no-namespaces the runner execs the
 *      command itself (step 8): only the command dies with the caller,
 *      and the guard refuses SysV IPC and message queues;
 *   5. builds a Landlock ruleset at the highest ABI both the kernel and
 *      this file know (1-7): read and execute everywhere (`/` and each
 *      --ro), every write-ish right (write, truncate, make/remove, refer,
 *      device ioctl, as far as the ABI has them) on each --rw and --rw-fd
 *      and on /dev/null; from ABI 6 on, signals are scoped to the sandbox;
 *      with the network restricted (the default: --network enabled lifts
 *      it), from ABI 4 on TCP bind and connect are refused to every port
 *      (but --proxy-port N: TCP connect to port N, on any address, for
 *      the allowlist network's proxy; it needs ABI 4)
 *      and from ABI 6 on abstract unix sockets are scoped to the sandbox;
 *   6. sets no_new_privs and drops every capability: the bounding set
 *      (when it holds CAP_SETPCAP, the only way to change it; without it
 *      no_new_privs and an empty permitted set already keep exec from
 *      granting any), the ambient set, then inheritable, permitted and
 *      effective;
 *   7. restricts itself and installs the seccomp guard (guard.h: an ioctl
 *      allowlist; metadata calls refused when nothing but /dev/null is
 *      writable, i.e. read-only; SysV IPC and mqueues refused with
 *      --no-namespaces) and, with the network restricted, the network
 *      guard (netguard.h: no unix socket of its own, no IP socket but TCP,
 *      which Landlock holds, or none at all below ABI 4).  With
 *      --allow-unix-socket (only with the network restricted, and only
 *      with the namespaces) the first process restricts itself with
 *      Landlock alone; the command's process installs the guards, the
 *      network guard with the gate (unixgate.h), and passes the gate's
 *      listener up; the first process, undumpable, answers for the
 *      command's connect() and bind() while it waits;
 *   8. execs the command.
 *
 * Finding the command: an ARGV[0] containing a slash is executed as given.
 * Otherwise each absolute directory of the environment's PATH is tried in
 * order, like execvp(3) but never relative directories (an empty or
 * relative PATH element is skipped) and never running a file without a #!
 * line through /bin/sh.  Without PATH, /usr/local/bin:/usr/bin:/bin.  The
 * environment reaches the command unchanged.
 *
 * Failure: exactly one stderr line "warden-landlock-run: fatal: WHAT: WHY",
 * exit status 125, the command not run; with --status-fd the same reason is
 * written to the status fd as "fatal: WHAT: WHY" after "started".  On
 * success the status fd is closed by exec() holding only "started" (every
 * other copy is closed before).  A kernel whose Landlock ABI cannot govern
 * every write gets one informational line (runner.h) and the command runs.
 *
 * --probe confines a child exactly as a read-only run with the network
 * restricted would, namespaces included, without running anything, checks
 * that the guards answer, and prints
 * "abi=N enforcement=full|partial namespaces=yes|no".
 */
#include "config.h"

#include "guard.h"
#include "netguard.h"
#include "runner.h"
#include "unixgate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Landlock rights newer than the build headers may know. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
/* A TCP port rule (ABI 4), for --proxy-port; the uapi header of an older
 * kernel lacks it. */
#define WARDEN_LANDLOCK_RULE_NET_PORT 2
struct warden_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

/* The highest Landlock ABI this runner knows how to use. */
#define RUNNER_MAX_ABI WARDEN_LANDLOCK_MAX_ABI

/* struct landlock_ruleset_attr as of ABI 6; older kernels get a prefix. */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define ACCESS_READ                                                         \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |        \
	 LANDLOCK_ACCESS_FS_READ_DIR)
/* The rights a rule on a non-directory may carry. */
#define ACCESS_FILE                                                         \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |       \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |       \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int status_fd = -1;

/* Appends s to out, escaping control bytes so the line stays one line. */
static size_t put_escaped(char *out, size_t pos, size_t cap, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s != '\0' && pos + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '\\') {
			out[pos++] = '\\';
			out[pos++] = 'x';
			out[pos++] = hex[c >> 4];
			out[pos++] = hex[c & 15];
		} else {
			out[pos++] = (char)c;
		}
	}
	return pos;
}

/* 0, or -1 with errno set when a write failed (0 bytes: EIO). */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The one way out on failure: one line, status 125, nothing run. */
__attribute__((noreturn, format(printf, 2, 3)))
static void fatal(const char *what, const char *fmt, ...)
{
	char why[2048];
	char line[4096];
	size_t pos = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);

	pos = put_escaped(line, pos, sizeof line, WARDEN_LANDLOCK_STATUS_FATAL);
	pos = put_escaped(line, pos, sizeof line, what);
	pos = put_escaped(line, pos, sizeof line, ": ");
	pos = put_escaped(line, pos, sizeof line, why);
	line[pos++] = '\n';

	write_all(STDERR_FILENO, WARDEN_LANDLOCK_RUNNER_NAME ": ",
	          sizeof(WARDEN_LANDLOCK_RUNNER_NAME ": ") - 1);
	write_all(STDERR_FILENO, line, pos);
	if (status_fd >= 0)
		write_all(status_fd, line, pos);
	_exit(WARDEN_LANDLOCK_RUNNER_EXIT);
}

/* ------------------------------------------------------------ arguments */

struct args {
	int probe;
	int status_fd;
	int no_namespaces;
	int network_enabled;    /* --network enabled; restricted otherwise */
	int network_set;
	int proxy_port;         /* --proxy-port: TCP connect to it alone */
	const char **allow;     /* --allow-unix-socket: the gate's list */
	size_t n_allow;
	const char **ro;
	size_t n_ro;
	const char **rw;
	size_t n_rw;
	int *rw_fd;
	size_t n_rw_fd;
	char **command;
};

static const char usage[] =
	"usage: warden-landlock-run [--status-fd N] [--no-namespaces] "
	"[--network restricted|enabled] [--proxy-port N] [--allow-unix-socket PATH]... "
	"[--ro PATH]... [--rw PATH]... [--rw-fd N]... -- COMMAND [ARG]... "
	"| --probe";

static int parse_fd(const char *s)
{
	long v = 0;

	if (*s == '\0' || strlen(s) > 9)
		return -1;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return (int)v;
}

static const char *take_path(const char *opt, int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		fatal(opt, "missing PATH (%s)", usage);
	const char *p = argv[++*i];
	if (p[0] != '/')
		fatal(opt, "'%s' is not an absolute path (give the full path)", p);
	if (strlen(p) >= PATH_MAX)
		fatal(opt, "path longer than %d bytes", PATH_MAX - 1);
	return p;
}

static void parse_args(int argc, char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof *a);
	a->status_fd = -1;
	if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
		a->probe = 1;
		return;
	}
	/* At most argc paths of each kind; argv outlives the runner. */
	a->ro = calloc((size_t)argc, sizeof *a->ro);
	a->rw = calloc((size_t)argc, sizeof *a->rw);
	a->rw_fd = calloc((size_t)argc, sizeof *a->rw_fd);
	a->allow = calloc((size_t)argc, sizeof *a->allow);
	if (a->ro == NULL || a->rw == NULL || a->rw_fd == NULL || a->allow == NULL)
		fatal("arguments", "out of memory");
	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];
		if (strcmp(opt, "--") == 0)
			break;
		if (strcmp(opt, "--ro") == 0) {
			a->ro[a->n_ro++] = take_path(opt, argc, argv, &i);
		} else if (strcmp(opt, "--rw") == 0) {
			a->rw[a->n_rw++] = take_path(opt, argc, argv, &i);
		} else if (strcmp(opt, "--rw-fd") == 0) {
			if (i + 1 >= argc)
				fatal(opt, "missing N (%s)", usage);
			int fd = parse_fd(argv[++i]);
			if (fd < 3 || fcntl(fd, F_GETFD) < 0)
				fatal(opt, "'%s' is not an open descriptor above 2",
				      argv[i]);
			a->rw_fd[a->n_rw_fd++] = fd;
		} else if (strcmp(opt, "--allow-unix-socket") == 0) {
			a->allow[a->n_allow++] = take_path(opt, argc, argv, &i);
		} else if (strcmp(opt, "--no-namespaces") == 0) {
			a->no_namespaces = 1;
		} else if (strcmp(opt, "--network") == 0) {
			if (a->network_set)
				fatal(opt, "given twice");
			if (i + 1 >= argc)
				fatal(opt, "missing restricted|enabled (%s)", usage);
			i++;
			if (strcmp(argv[i], "enabled") == 0)
				a->network_enabled = 1;
			else if (strcmp(argv[i], "restricted") != 0)
				fatal(opt, "'%s': allowed: restricted, enabled", argv[i]);
			a->network_set = 1;
		} else if (strcmp(opt, "--proxy-port") == 0) {
			if (i + 1 >= argc)
				fatal(opt, "missing N (%s)", usage);
			a->proxy_port = parse_fd(argv[++i]);
			if (a->proxy_port < 1 || a->proxy_port > 65535)
				fatal(opt, "'%s' is not a port in 1..65535", argv[i]);
		} else if (strcmp(opt, "--status-fd") == 0) {
			if (a->status_fd >= 0)
				fatal(opt, "given twice");
			if (i + 1 >= argc)
				fatal(opt, "missing N (%s)", usage);
			a->status_fd = parse_fd(argv[++i]);
			if (a->status_fd < 3)
				fatal(opt, "'%s' is not a descriptor number above 2",
				      argv[i]);
		} else if (strcmp(opt, "--probe") == 0) {
			fatal(opt, "takes no other argument (%s)", usage);
		} else {
			fatal("arguments", "unknown argument '%s' (%s)", opt,
			      usage);
		}
	}
	if (i >= argc)
		fatal("arguments", "missing '--' before the command (%s)", usage);
	if (i + 1 >= argc)
		fatal("arguments", "no command after '--' (%s)", usage);
	if (argv[i + 1][0] == '\0')
		fatal("arguments", "the command name is empty");
	if (a->proxy_port != 0 && a->network_enabled)
		fatal("--proxy-port", "only with the network restricted (an enabled network reaches every port already)");
	if (a->n_allow > 0) {
		struct warden_unixgate g = { a->allow, a->n_allow, 0, NULL };
		const char *bad = warden_unixgate_bad_name(&g);

		if (a->network_enabled)
			fatal("--allow-unix-socket", "only with the network restricted "
			      "(an enabled network reaches every socket already)");
		if (a->no_namespaces)
			fatal("--allow-unix-socket", "needs the PID namespace: its "
			      "first process answers for the command's connect() "
			      "calls (without namespaces, remove allow_unix_socket)");
		if (bad != NULL)
			fatal("--allow-unix-socket", "'%s' is longer than a unix "
			      "socket address can hold (%zu bytes at most)", bad,
			      sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	}
	for (size_t k = 0; k < a->n_rw_fd; k++)
		if (a->rw_fd[k] == a->status_fd)
			fatal("--rw-fd", "%d is also the status descriptor",
			      a->rw_fd[k]);
	a->command = &argv[i + 1];
}

/* ---------------------------------------------------------- descriptors */

static void take_status_fd(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0)
		fatal("--status-fd", "%d: %s", fd, strerror(errno));
	if (fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
		fatal("--status-fd", "%d: %s", fd, strerror(errno));
	if (write_all(fd, WARDEN_LANDLOCK_STATUS_STARTED,
	              sizeof(WARDEN_LANDLOCK_STATUS_STARTED) - 1) < 0 &&
	    errno == EPIPE)
		fatal("--status-fd", "nobody reads descriptor %d: the caller "
		      "has exited", fd);
	status_fd = fd;
}

/*
 * Step 0: the first --status-fd before `--`, taken before the strict parse
 * so that a bad argument is reported out of band too.  Only an open
 * descriptor above 2 is taken; anything else is left to parse_args(),
 * which then fails with the status fd unknown (an empty pipe: the host
 * reads "never started").  The paths of --ro and --rw are skipped so a
 * path spelled "--status-fd" is not mistaken for the option.
 */
static void take_status_fd_early(int argc, char **argv)
{
	int i, fd;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--ro") == 0 || strcmp(argv[i], "--rw") == 0 ||
		    strcmp(argv[i], "--rw-fd") == 0 ||
		    strcmp(argv[i], "--network") == 0 ||
		    strcmp(argv[i], "--proxy-port") == 0) {
			i++;
			continue;
		}
		if (strcmp(argv[i], "--status-fd") != 0)
			continue;
		if (i + 1 >= argc)
			return;
		fd = parse_fd(argv[i + 1]);
		if (fd >= 3 && fcntl(fd, F_GETFD) >= 0)
			take_status_fd(fd);
		return;
	}
}

static void close_range_or_die(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
	if (syscall(__NR_close_range, lo, hi, 0) < 0)
		fatal("close_range", "%s", strerror(errno));
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* Every descriptor but 0-2, the status fd and the --rw-fd descriptors
 * goes before anything runs; those the command must not hold become
 * close-on-exec (the --rw-fd ones are closed once the ruleset has them). */
static void close_inherited_fds(const struct args *a)
{
	int *keep = calloc(a->n_rw_fd + 1, sizeof *keep);
	size_t n = 0;
	unsigned lo = 3;

	if (keep == NULL)
		fatal("descriptors", "out of memory");
	if (status_fd >= 0)
		keep[n++] = status_fd;
	for (size_t i = 0; i < a->n_rw_fd; i++) {
		if (fcntl(a->rw_fd[i], F_SETFD, FD_CLOEXEC) < 0)
			fatal("--rw-fd", "%d: %s", a->rw_fd[i], strerror(errno));
		keep[n++] = a->rw_fd[i];
	}
	qsort(keep, n, sizeof *keep, cmp_int);
	for (size_t i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			close_range_or_die(lo, (unsigned)keep[i] - 1);
		lo = (unsigned)keep[i] + 1;
	}
	close_range_or_die(lo, ~0U);
	free(keep);
}

/* ------------------------------------------------------------- terminal */

static void leave_terminal(void)
{
	if (setsid() >= 0)
		return;
	if (errno != EPERM)
		fatal("setsid", "%s", strerror(errno));

	/* A process-group leader cannot make a new session; it can still
	 * give up its controlling terminal. */
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO)
			return; /* no controlling terminal */
		fatal("controlling terminal", "cannot open /dev/tty: %s",
		      strerror(errno));
	}
	/* A session leader's TIOCNOTTY hangs up its foreground group (us). */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	if (sigaction(SIGHUP, &ign, &old) < 0)
		fatal("controlling terminal", "sigaction: %s", strerror(errno));
	int r = ioctl(fd, TIOCNOTTY);
	int e = errno;
	close(fd);
	if (sigaction(SIGHUP, &old, NULL) < 0)
		fatal("controlling terminal", "sigaction: %s", strerror(errno));
	if (r < 0)
		fatal("controlling terminal", "TIOCNOTTY: %s", strerror(e));
	fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 || errno != ENXIO)
		fatal("controlling terminal", "still attached after TIOCNOTTY");
}

/* ------------------------------------------------------------- landlock */

static int landlock_abi(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	                 LANDLOCK_CREATE_RULESET_VERSION);
	if (v < 0) {
		if (errno == ENOSYS)
			fatal("landlock", "not built into this kernel (needs "
			      "Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK)");
		if (errno == EOPNOTSUPP)
			fatal("landlock", "disabled on this kernel (add "
			      "landlock to the lsm= boot parameter)");
		fatal("landlock", "version query: %s", strerror(errno));
	}
	return v > RUNNER_MAX_ABI ? RUNNER_MAX_ABI : (int)v;
}

static uint64_t handled_fs(int abi)
{
	uint64_t fs = (1ULL << 13) - 1; /* ABI 1: EXECUTE .. MAKE_SYM */

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/* One rule for what fd (named `name` in messages) refers to; the caller
 * still owns fd. */
static void add_fd(int ruleset, const char *what, const char *name, int fd,
                   uint64_t access)
{
	struct landlock_path_beneath_attr rule = { 0 };
	struct stat st;

	if (fstat(fd, &st) < 0)
		fatal(what, "%s: %s", name, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		access &= ACCESS_FILE;
	rule.allowed_access = access;
	rule.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
	            &rule, 0) < 0)
		fatal(what, "%s: landlock_add_rule: %s", name, strerror(errno));
}

static void add_path(int ruleset, const char *what, const char *path,
                     uint64_t access)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		fatal(what, "%s: %s", path, strerror(errno));
	add_fd(ruleset, what, path, fd, access);
	close(fd);
}

static int build_ruleset(int abi, const struct args *a)
{
	struct ruleset_attr attr = { 0 };
	size_t size = sizeof attr.handled_access_fs;
	uint64_t fs = handled_fs(abi);
	uint64_t write = fs & ~(uint64_t)ACCESS_READ;

	attr.handled_access_fs = fs;
	if (abi >= 4) {
		/* Handled with no rule that allows any port: no TCP bind or
		 * connect at all while the network is restricted. */
		if (!a->network_enabled)
			attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
			                          LANDLOCK_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_SIGNAL;
		if (!a->network_enabled)
			attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		size = sizeof attr;
	}
	int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0)
		fatal("landlock", "create_ruleset (ABI %d): %s", abi,
		      strerror(errno));

	add_path(ruleset, "landlock", "/", ACCESS_READ);
	for (size_t i = 0; i < a->n_ro; i++)
		add_path(ruleset, "--ro", a->ro[i], ACCESS_READ);
	for (size_t i = 0; i < a->n_rw; i++)
		add_path(ruleset, "--rw", a->rw[i], ACCESS_READ | write);
	for (size_t i = 0; i < a->n_rw_fd; i++) {
		char name[32];

		snprintf(name, sizeof name, "descriptor %d", a->rw_fd[i]);
		add_fd(ruleset, "--rw-fd", name, a->rw_fd[i], ACCESS_READ | write);
		close(a->rw_fd[i]);
	}
	add_path(ruleset, "landlock", "/dev/null", ACCESS_READ | write);
	if (a->proxy_port != 0) {
		/* The allowlist network: TCP connect to the proxy's port, on
		 * any address (a port rule names no address). */
		struct warden_net_port_attr rule = {
			LANDLOCK_ACCESS_NET_CONNECT_TCP, (uint64_t)a->proxy_port,
		};

		if (abi < 4)
			fatal("--proxy-port", "Landlock ABI %d governs no TCP port (ABI 4 does)", abi);
		if (syscall(__NR_landlock_add_rule, ruleset, WARDEN_LANDLOCK_RULE_NET_PORT,
		            &rule, 0) < 0)
			fatal("--proxy-port", "landlock_add_rule: %s", strerror(errno));
	}
	return ruleset;
}

/* ----------------------------------------------------------- privilege */

static void drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	const uint32_t setpcap = 1u << CAP_SETPCAP;

	memset(data, 0, sizeof data);
	if (syscall(__NR_capget, &hdr, data) < 0)
		fatal("capabilities", "capget: %s", strerror(errno));

	/* Only CAP_SETPCAP can shrink the bounding set. */
	if (data[0].permitted & setpcap) {
		if (!(data[0].effective & setpcap)) {
			data[0].effective |= setpcap;
			if (syscall(__NR_capset, &hdr, data) < 0)
				fatal("capabilities", "raise CAP_SETPCAP: %s",
				      strerror(errno));
		}
		for (int cap = 0;; cap++) {
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
				continue;
			if (errno == EINVAL && cap > 0)
				break; /* past the kernel's last capability */
			fatal("capabilities", "drop %d from the bounding set: %s",
			      cap, strerror(errno));
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		fatal("capabilities", "clear the ambient set: %s",
		      strerror(errno));

	memset(data, 0, sizeof data);
	if (syscall(__NR_capset, &hdr, data) < 0)
		fatal("capabilities", "capset: %s", strerror(errno));
	if (syscall(__NR_capget, &hdr, data) < 0)
		fatal("capabilities", "capget: %s", strerror(errno));
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable)
			fatal("capabilities", "still held after capset");
}

/* Landlock, no_new_privs and no capability: the part of confine() the
 * gate's supervisor shares with the command. */
static void confine_self(int abi, const struct args *a)
{
	int ruleset = build_ruleset(abi, a);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fatal("no_new_privs", "%s", strerror(errno));
	drop_capabilities();
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) < 0)
		fatal("landlock", "restrict_self: %s", strerror(errno));
	close(ruleset);
}

/* The guards; with --allow-unix-socket the network guard is the gate's,
 * whose listener is returned (-1 otherwise).  From ABI 4 on Landlock
 * refuses every TCP bind and connect, so TCP sockets may exist; below it
 * no IP socket may. */
static int install_guards(int abi, const struct args *a, unsigned guard)
{
	int inet = abi >= 4 ? WARDEN_NETGUARD_INET_TCP : 0, listener = -1;

	if (a->n_rw == 0 && a->n_rw_fd == 0)
		guard |= WARDEN_GUARD_READ_ONLY;
	if (warden_guard_install(guard) < 0)
		fatal("seccomp", "install the metadata guard: %s",
		      strerror(errno));
	if (a->network_enabled)
		return -1;
	if (a->n_allow > 0) {
		listener = warden_unixgate_install(inet);
		if (listener < 0)
			fatal("seccomp", "install the network guard with its "
			      "supervisor (allow_unix_socket): %s", strerror(errno));
	} else if (warden_netguard_install(inet) < 0) {
		fatal("seccomp", "install the network guard: %s", strerror(errno));
	}
	return listener;
}

/* Steps 4-6 without the exec: shared by a run and by --probe.  guard is
 * WARDEN_GUARD_NO_IPC or 0; read-only is added when nothing is writable. */
static void confine(int abi, const struct args *a, unsigned guard)
{
	confine_self(abi, a);
	install_guards(abi, a, guard);
}

/* ----------------------------------------------------------------- exec */

__attribute__((noreturn))
static void exec_command(char **argv)
{
	const char *name = argv[0];

	if (strchr(name, '/') != NULL) {
		execve(name, argv, environ);
		fatal("exec", "%s: %s", name, strerror(errno));
	}

	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	size_t name_len = strlen(name);
	int denied = 0;
	char buf[PATH_MAX];

	for (const char *p = path; *p != '\0';) {
		const char *end = strchr(p, ':');
		size_t dir_len = end ? (size_t)(end - p) : strlen(p);
		const char *next = end ? end + 1 : p + dir_len;

		if (dir_len > 0 && p[0] == '/' &&
		    dir_len + 1 + name_len < sizeof buf) {
			memcpy(buf, p, dir_len);
			buf[dir_len] = '/';
			memcpy(buf + dir_len + 1, name, name_len + 1);
			execve(buf, argv, environ);
			switch (errno) {
			case EACCES:
				denied = 1;
				break;
			case ENOENT:
			case ENOTDIR:
			case ENAMETOOLONG:
			case ELOOP:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
				break;
			default:
				fatal("exec", "%s: %s", buf, strerror(errno));
			}
		}
		p = next;
	}
	if (denied)
		fatal("exec", "%s: %s", name, strerror(EACCES));
	fatal("exec", "%s: command not found in PATH", name);
}

static void notice_partial(int abi)
{
	static const char *const notices[] = {
		NULL,
		WARDEN_LANDLOCK_NOTICE_ABI1 "\n",
		WARDEN_LANDLOCK_NOTICE_ABI2 "\n",
	};

	if (abi >= WARDEN_LANDLOCK_FULL_ABI)
		return;
	write_all(STDERR_FILENO, notices[abi], strlen(notices[abi]));
}

/* ------------------------------------------------------------ lifetime */

/* Dies with the caller: SIGKILL when it exits.  A caller that exited
 * before the request could not send it, so the parent must still be the
 * one the runner started under. */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fatal("parent", "PR_SET_PDEATHSIG: %s", strerror(errno));
	if (getppid() != parent)
		fatal("parent", "the caller (pid %d) exited before the command "
		      "started", (int)parent);
}

/* The first process of the new PID namespace cannot see its parent's pid
 * (getppid() is 0 there): it holds the read end of a pipe whose write end
 * only the outer runner holds, and reads POLLHUP once that is gone. */
static void init_dies_with_runner(int lifeline)
{
	struct pollfd p = { lifeline, POLLIN, 0 };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fatal("parent", "PR_SET_PDEATHSIG: %s", strerror(errno));
	while (poll(&p, 1, 0) < 0)
		if (errno != EINTR)
			fatal("parent", "poll: %s", strerror(errno));
	if (p.revents != 0)
		_exit(WARDEN_LANDLOCK_RUNNER_EXIT); /* nobody is left to tell */
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	int e = errno;
	close(fd);
	errno = e;
	if (n != (ssize_t)len) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * New IPC and PID namespaces for the children to come: directly when the
 * runner may (CAP_SYS_ADMIN: root), else inside a user namespace of its
 * own that maps only its own uid and gid.  0, or -1 with errno.
 */
static int isolate(void)
{
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	char map[64];

	if (unshare(CLONE_NEWIPC | CLONE_NEWPID) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWPID) < 0)
		return -1;
	snprintf(map, sizeof map, "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/uid_map", map) < 0 ||
	    write_file("/proc/self/setgroups", "deny\n") < 0)
		return -1;
	snprintf(map, sizeof map, "%u %u 1\n", gid, gid);
	return write_file("/proc/self/gid_map", map);
}

/* The signals the outer runner passes on to the command. */
static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM,
                                 SIGUSR1, SIGUSR2 };
#define N_FORWARDED (sizeof forwarded / sizeof forwarded[0])

/* What the caller gave the runner, given back to the command. */
static struct sigaction caller_action[N_FORWARDED];
static sigset_t caller_mask;

static void on_forwarded(int sig)
{
	(void)sig; /* taken by sigwaitinfo(); the handler only has to exist */
}

/* Blocks the forwarded signals and SIGCHLD into `set` for
 * sigwaitinfo(): the first process of a PID namespace only receives,
 * from outside it, the signals it has a handler for. */
static void catch_signals(sigset_t *set)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_forwarded;
	sigemptyset(&sa.sa_mask);
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (size_t i = 0; i < N_FORWARDED; i++) {
		if (sigaction(forwarded[i], NULL, &caller_action[i]) < 0)
			fatal("signals", "sigaction: %s", strerror(errno));
		/* One the caller ignores stays ignored. */
		if (caller_action[i].sa_handler == SIG_IGN)
			continue;
		if (sigaction(forwarded[i], &sa, NULL) < 0)
			fatal("signals", "sigaction: %s", strerror(errno));
		sigaddset(set, forwarded[i]);
	}
	if (sigprocmask(SIG_BLOCK, set, &caller_mask) < 0)
		fatal("signals", "sigprocmask: %s", strerror(errno));
}

static void restore_signals(void)
{
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded[i], &caller_action[i], NULL);
	sigprocmask(SIG_SETMASK, &caller_mask, NULL);
}

/* Waits for one of `set`; SIGCHLD or a signal to forward. */
static int wait_signal(const sigset_t *set)
{
	for (;;) {
		int sig = sigwaitinfo(set, NULL);

		if (sig > 0)
			return sig;
		if (errno != EINTR)
			fatal("signals", "sigwaitinfo: %s", strerror(errno));
	}
}

/*
 * Waits for one of `set` (blocked, read from sfd) like wait_signal(), and
 * meanwhile answers the gate's notifications on *listener.  A listener
 * that fails or that nobody uses any more is closed: the command's
 * connect() and bind() then fail (ENOSYS), never pass.
 */
static int wait_signal_gated(int sfd, int *listener, const struct warden_unixgate *g)
{
	for (;;) {
		struct pollfd p[2] = { { sfd, POLLIN, 0 }, { *listener, POLLIN, 0 } };
		struct signalfd_siginfo si;
		int r = poll(p, *listener >= 0 ? 2 : 1, -1);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll", "%s", strerror(errno));
		}
		if (*listener >= 0 && p[1].revents != 0) {
			if (!(p[1].revents & POLLIN) ||
			    warden_unixgate_answer(*listener, g) < 0) {
				close(*listener);
				*listener = -1;
			}
		}
		if ((p[0].revents & POLLIN) &&
		    read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
			return (int)si.ssi_signo;
	}
}

/*
 * The gate's two halves, in run_init (the parent, with Landlock but no
 * seccomp filter of its own) and in the command's process before its exec:
 * the command installs the guards and sends the gate's listener up the
 * socketpair.  Returns the listener in the parent (-1: the child failed,
 * and said why on the status pipe).
 */
static int gate_take(int chan[2])
{
	int listener;

	close(chan[1]);
	listener = warden_unixgate_recv(chan[0]);
	close(chan[0]);
	return listener;
}

static void gate_give(int abi, const struct args *a, int chan[2])
{
	int listener;

	close(chan[0]);
	listener = install_guards(abi, a, 0);
	if (warden_unixgate_send(chan[1], listener) < 0)
		fatal("allow_unix_socket", "pass the supervisor its listener: %s",
		      strerror(errno));
	close(listener);
	close(chan[1]);
}

/* Ends the runner the way the command ended. */
__attribute__((noreturn))
static void exit_as(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit none = { 0, 0 };
		sigset_t only;

		signal(sig, SIG_DFL);
		setrlimit(RLIMIT_CORE, &none); /* the command's core, not ours */
		sigemptyset(&only);
		sigaddset(&only, sig);
		sigprocmask(SIG_UNBLOCK, &only, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status)
	                        : WARDEN_LANDLOCK_RUNNER_EXIT);
}

/*
 * The first process of the new PID namespace: confines itself, starts the
 * command as its child, passes signals on to everything in the namespace,
 * reaps what is reparented to it, and, once the command has ended, writes
 * its wait status to `result` and exits.  Its exit ends the namespace:
 * the kernel kills whatever the command left running, double-forked or
 * not.  It dies with the outer runner (SIGKILL), so with warden.
 */
__attribute__((noreturn))
static void run_init(int abi, const struct args *a, int lifeline, int result,
                     const sigset_t *set)
{
	struct warden_unixgate gate = { a->allow, a->n_allow, 0, NULL };
	int chan[2] = { -1, -1 }, listener = -1, sfd = -1;

	init_dies_with_runner(lifeline);
	if (setsid() < 0)
		fatal("setsid", "%s", strerror(errno));
	if (a->n_allow > 0) {
		/* The command gets the guards; this process answers for it. */
		confine_self(abi, a);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan) < 0)
			fatal("socketpair", "%s", strerror(errno));
		sfd = signalfd(-1, set, SFD_CLOEXEC);
		if (sfd < 0)
			fatal("signalfd", "%s", strerror(errno));
		/* The sockets the names lead to now, before the command can
		 * change what they lead to (a link, a renamed directory). */
		if (warden_unixgate_pin(&gate) < 0)
			fatal("allow_unix_socket", "%s", strerror(errno));
		/* The command may not ptrace the one that answers for it:
		 * undumpable before the fork, so that no moment is left after
		 * the command's exec (which makes it dumpable again). */
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
			fatal("prctl", "PR_SET_DUMPABLE: %s", strerror(errno));
	} else {
		confine(abi, a, 0);
	}
	init_dies_with_runner(lifeline);
	close(lifeline);
	notice_partial(abi);

	pid_t cmd = fork();
	if (cmd < 0)
		fatal("fork", "%s", strerror(errno));
	if (cmd == 0) {
		if (a->n_allow > 0) {
			close(sfd);
			gate_give(abi, a, chan);
		}
		restore_signals();
		exec_command(a->command);
	}
	if (a->n_allow > 0)
		listener = gate_take(chan);
	/* From here on only the command's exec closes the status pipe. */
	close(status_fd);
	status_fd = -1;
	for (;;) {
		int sig = a->n_allow > 0 ? wait_signal_gated(sfd, &listener, &gate)
		                         : wait_signal(set), st;
		pid_t w;

		if (sig != SIGCHLD) {
			kill(-1, sig); /* every process of the namespace but us */
			continue;
		}
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			if (w == cmd) {
				write_all(result, (const char *)&st, sizeof st);
				_exit(0);
			}
		}
	}
}

/*
 * The outer runner, in warden's process group: makes the namespaces,
 * starts their first process, passes warden's signals to it, and ends
 * the way the command ended.  Never returns.
 */
__attribute__((noreturn))
static void supervise(int abi, const struct args *a, pid_t parent)
{
	int lifeline[2], result[2], st, cmd_st;
	sigset_t set;
	pid_t init;
	ssize_t n;

	if (isolate() < 0)
		fatal("namespaces", "cannot give the command IPC and PID "
		      "namespaces of its own: %s (without them, run with "
		      "--no-namespaces: the backend passes it when its probe "
		      "finds none)", strerror(errno));
	die_with_parent(parent); /* credentials may have changed */
	if (pipe2(lifeline, O_CLOEXEC) < 0 || pipe2(result, O_CLOEXEC) < 0)
		fatal("pipe", "%s", strerror(errno));
	catch_signals(&set);
	init = fork();
	if (init < 0)
		fatal("fork", "%s", strerror(errno));
	if (init == 0) {
		close(lifeline[1]);
		close(result[0]);
		run_init(abi, a, lifeline[0], result[1], &set);
	}
	close(lifeline[0]);
	close(result[1]);
	close(status_fd);
	status_fd = -1;
	for (size_t i = 0; i < a->n_rw_fd; i++)
		close(a->rw_fd[i]);
	/* Waiting and passing signals on needs no privilege. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fatal("no_new_privs", "%s", strerror(errno));
	drop_capabilities();

	for (;;) {
		int sig = wait_signal(&set);
		pid_t w;

		if (sig != SIGCHLD) {
			kill(init, sig);
			continue;
		}
		while ((w = waitpid(init, &st, WNOHANG)) < 0 && errno == EINTR)
			;
		if (w == init)
			break;
		if (w < 0)
			fatal("waitpid", "%s", strerror(errno));
	}
	do
		n = read(result[0], &cmd_st, sizeof cmd_st);
	while (n < 0 && errno == EINTR);
	/* Without a status the first process ended on its own: its fatal
	 * line is said, its exit is the runner's. */
	exit_as(n == (ssize_t)sizeof cmd_st ? cmd_st : st);
}

/* ---------------------------------------------------------------- probe */

/* The probe child's exit when the namespaces could not be made but the
 * fallback (IPC refused by the guard) is in effect. */
#define PROBE_NO_NAMESPACES 3

static void probe_guard(void)
{
	/* The guard must now answer for fchmod before the kernel does. */
	if (syscall(__NR_fchmod, -1, 0) == 0 || errno != EACCES)
		fatal("probe", "the metadata guard is not in effect");
	/* And the network guard for a unix socket of its own. */
	if (socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) >= 0 || errno != EACCES)
		fatal("probe", "the network guard is not in effect");
}

/* In a child of --probe: what a read-only run gets, checked for real. */
__attribute__((noreturn))
static void probe_child(int abi)
{
	struct args none;
	int status;

	memset(&none, 0, sizeof none);
	if (isolate() < 0) {
		confine(abi, &none, WARDEN_GUARD_NO_IPC);
		probe_guard();
		if (syscall(__NR_shmget, IPC_PRIVATE, 4096, 0600) != -1 ||
		    errno != EPERM)
			fatal("probe", "the IPC guard is not in effect");
		_exit(PROBE_NO_NAMESPACES);
	}
	pid_t pid = fork();
	if (pid < 0)
		fatal("probe", "fork: %s", strerror(errno));
	if (pid == 0) {
		if (getpid() != 1)
			fatal("probe", "not the first process of a new PID "
			      "namespace (pid %d)", (int)getpid());
		confine(abi, &none, 0);
		probe_guard();
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fatal("probe", "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		fatal("probe", "the confined child died of signal %d",
		      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	_exit(WEXITSTATUS(status));
}

__attribute__((noreturn))
static void probe(void)
{
	int abi = landlock_abi();
	int status, ns;

	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		fatal("probe", "fork: %s", strerror(errno));
	if (pid == 0)
		probe_child(abi);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fatal("probe", "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		fatal("probe", "the confined child died of signal %d",
		      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	if (WEXITSTATUS(status) != 0 &&
	    WEXITSTATUS(status) != PROBE_NO_NAMESPACES)
		_exit(WARDEN_LANDLOCK_RUNNER_EXIT); /* it said why */
	ns = WEXITSTATUS(status) == 0;
	printf(WARDEN_LANDLOCK_PROBE_FORMAT "\n", abi,
	       abi >= WARDEN_LANDLOCK_FULL_ABI && ns ? "full" : "partial",
	       ns ? "yes" : "no");
	if (fflush(stdout) != 0)
		fatal("probe", "write: %s", strerror(errno));
	_exit(0);
}

int main(int argc, char **argv)
{
	struct args a;
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fatal("parent", "PR_SET_PDEATHSIG: %s", strerror(errno));
	/* A caller gone before that is seen below: the status pipe has no
	 * reader (EPIPE), or the parent is no longer the one we started
	 * under. */
	take_status_fd_early(argc, argv);
	die_with_parent(parent);
	parse_args(argc, argv, &a);
	if (a.probe)
		probe();
	if (a.status_fd >= 0 && status_fd < 0)
		take_status_fd(a.status_fd);
	close_inherited_fds(&a);
	leave_terminal();
	int abi = landlock_abi();
	if (!a.no_namespaces)
		supervise(abi, &a, parent);
	confine(abi, &a, WARDEN_GUARD_NO_IPC);
	die_with_parent(parent);
	notice_partial(abi);
	exec_command(a.command);
}
