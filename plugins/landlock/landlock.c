/*
 * landlock.c — the Landlock sandbox backend (DESIGN §2 "Backends shipped").
 *
 * confine() wraps an exact argv as
 *
 *   RUNNER [--status-fd N] [--no-namespaces] --network restricted|enabled
 *          [--proxy-port N]
 *          [--rw ROOT | --rw-fd N] -- ARGV...
 *
 * where RUNNER is warden-landlock-run (runner.h, warden-landlock-run.c):
 * read and execute everywhere, writes only under ROOT (workspace-write) and
 * to /dev/null, no capability, no_new_privs, no controlling terminal, no
 * descriptor above 2, a seccomp guard (guard.h), IPC and PID namespaces of
 * the command's own, dying with warden.  The status fd is close-on-exec in
 * the runner, so the command never holds it: the runner writes "started"
 * first and "fatal: ..." on failure, so the pipe reaches EOF holding
 * exactly "started" when exec() happened, and empty when the runner never
 * started (WARDEN_EVIDENCE_EXEC_PIPE).  When the host hands over the
 * root's descriptor (policy->root_fd, out->push_fd) the rule is made on
 * that descriptor (--rw-fd): nothing can swap the path in between.
 *
 * What each mode honestly gets:
 *   read-only        `full` on a kernel with Landlock ABI >= 3 when the
 *                    runner can make namespaces (root, or unprivileged user
 *                    namespaces): Landlock refuses every write, truncate,
 *                    create, remove, rename and link; the guard refuses
 *                    chmod, chown, utime, xattr and every ioctl off its
 *                    allowlist (inode flags, generation) everywhere; SysV
 *                    IPC and message queues are the command's own; nothing
 *                    the command starts outlives warden.  ABI 1-2 is
 *                    `partial`: truncate(2) is not governed.  Without
 *                    namespaces (--no-namespaces) `partial`: the guard
 *                    refuses SysV IPC and message queues instead, and a
 *                    process the command detaches (setsid, double fork)
 *                    can outlive warden.
 *   workspace-write  always `partial`: a seccomp filter sees no paths, so
 *                    the guard cannot refuse metadata changes outside the
 *                    root without refusing them inside it too (chmod +x in
 *                    the workspace is ordinary work); Landlock itself does
 *                    not govern them.  The host's /tmp is read as it is
 *                    and never written; the host's temp area
 *                    (policy->tmp_dir, v1.2) is granted writes and TMPDIR
 *                    points to it.  Landlock cannot hide a path it reads,
 *                    so other sessions' areas (policy->tmp_hide) stay
 *                    readable (named in detail).
 *                    Protected paths (.git/hooks, .git/config) stay
 *                    writable: a Landlock rule only adds rights, so nothing
 *                    below a writable root can be taken back.  For the same
 *                    reason a path that must stay read-only
 *                    (policy->read_only_paths: the config in use, the
 *                    session logs, plugins, runners) under the root, or a
 *                    root under such a path, is refused by name: confine()
 *                    fails and the host reports SANDBOX_UNAVAILABLE.
 *
 * The network (policy->network, plugin ABI 1.1; a v1.0 host gets
 * `enabled`, what it asked for then):
 *   restricted  `full` on every Landlock ABI: the runner's network guard
 *               (plugins/common/netguard.h) leaves the command no unix
 *               socket of its own (socket(AF_UNIX) refused; stream
 *               socketpairs stay) and no IP socket but TCP, whose bind and
 *               connect Landlock (ABI 4) refuses to every port; below ABI 4
 *               no IP socket at all.  From ABI 6 abstract unix sockets are
 *               scoped too.  What it cannot tell apart: a unix socket the
 *               command's own tree serves from one the host serves (both
 *               are refused, since the command cannot make one), and
 *               loopback TCP to its own server from TCP to the host's (both
 *               refused).  allow_unix_sockets: passed to the runner as
 *               --allow-unix-socket PATH, whose namespace init answers
 *               for the command's connect() and bind() (unixgate.h);
 *               without the namespaces confine() refuses.
 *   enabled     no network rule, no network guard, no abstract scoping.
 *
 * Config keys ([backend NAME] with plugin = landlock):
 *   runner   the runner binary, absolute (default: LIBEXEC/warden-landlock-run
 *            from the host's libexec directory).  Refused when it is not a
 *            regular executable file, when others can write it, or, at
 *            confine time, when it lies inside the workspace root.
 *
 * probe() runs `RUNNER --probe` for real (killed after 5 s): the runner
 * confines a child exactly as a read-only run would and prints
 * "abi=N enforcement=full|partial namespaces=yes|no" (runner.h).  The
 * result is kept for the instance: it does not depend on the mode.
 */
#include "config.h"

#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <warden/plugin.h>

#include "unixgate.h"
#include "sysctl.h"

#define PROBE_TIMEOUT_MS 5000

#define DETAIL_METADATA                                                     \
	"metadata changes (chmod, chown, utime, xattr) outside the root are " \
	"not governed"
#define DETAIL_PROTECTED ".git/hooks and .git/config stay writable"
#define DETAIL_TRUNCATE "truncate not governed"
#define DETAIL_NO_NAMESPACES                                                \
	"no PID namespace: detached processes can outlive warden"

struct landlock {
	char runner[PATH_MAX];
	int probed;             /* 1 once RUNNER --probe ran */
	int judged;             /* 1 once probe() or facts() set abi */
	int abi;                /* its answer, when usable */
	int abi_full;           /* 1: enforcement=full */
	int namespaces;         /* 1: namespaces=yes */
	char why[256];          /* why it is unusable, when abi == 0 */
};

static void landlock_close(void *state)
{
	free(state);
}

static void *landlock_open(const struct warden_open_args *args, char *err,
                           size_t errlen)
{
	struct landlock *l = calloc(1, sizeof(*l));
	const char *dir = args->libexec_dir != NULL ? args->libexec_dir
	                                            : WARDEN_LIBEXEC_DIR;
	size_t i;

	if (l == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	if ((size_t)snprintf(l->runner, sizeof(l->runner), "%s/%s", dir,
	                     WARDEN_LANDLOCK_RUNNER_NAME) >= sizeof(l->runner)) {
		WARDEN_PLUGIN_ERR(err, errlen, "libexec directory path too long");
		goto fail;
	}
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "runner") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: unknown key '%s' (landlock knows: runner)",
			                  kv->line, kv->key);
			goto fail;
		}
		if (kv->value[0] != '/' || strlen(kv->value) >= sizeof(l->runner)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: runner: '%s' must be the absolute path of warden-landlock-run (e.g. %s/%s)",
			                  kv->line, kv->value, WARDEN_LIBEXEC_DIR,
			                  WARDEN_LANDLOCK_RUNNER_NAME);
			goto fail;
		}
		snprintf(l->runner, sizeof(l->runner), "%s", kv->value);
	}
	return l;
fail:
	free(l);
	return NULL;
}

/* ------------------------------------------------------------ probe */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs RUNNER --probe, stdout and stderr into one pipe, for at most
 * PROBE_TIMEOUT_MS.  Returns 0 with the exit status in *status and the
 * first output line in line, or -1 with what went wrong in line. */
static int run_probe(const char *runner, int *status, char *line, size_t linelen)
{
	char buf[512];
	size_t have = 0;
	long deadline = now_ms() + PROBE_TIMEOUT_MS;
	int fds[2], timed_out = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(line, linelen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(line, linelen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (nul < 0 || dup2(nul, 0) < 0 || dup2(fds[1], 1) < 0 ||
		    dup2(fds[1], 2) < 0)
			_exit(127);
		execl(runner, runner, "--probe", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		long left = deadline - now_ms();
		ssize_t n;
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
			break; /* the first line is all that counts */
	}
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			snprintf(line, linelen, "waitpid: %s", strerror(errno));
			return -1;
		}
	if (timed_out) {
		snprintf(line, linelen, "%.150s --probe did not finish within %d s (killed)",
		         runner, PROBE_TIMEOUT_MS / 1000);
		return -1;
	}
	buf[have] = '\0';
	snprintf(line, linelen, "%.*s", (int)strcspn(buf, "\n"), buf);
	return 0;
}

/* A runner must be a regular executable only root or we can write. */
static int runner_trusted(const char *runner, char *why, size_t whylen)
{
	struct stat st;

	if (stat(runner, &st) < 0) {
		snprintf(why, whylen, "%.150s: %s (install warden or set runner)",
		         runner, strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode) || access(runner, X_OK) < 0) {
		snprintf(why, whylen, "%.150s: not an executable file", runner);
		return 0;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		snprintf(why, whylen,
		         "%.150s: writable by others or owned by another user: refused",
		         runner);
		return 0;
	}
	return 1;
}

static void probe_runner(struct landlock *l)
{
	char line[200], full[16], ns[8], check[256];
	int status = 0, abi = 0;

	l->probed = 1;
	l->judged = 1;
	l->abi = 0;
	if (!runner_trusted(l->runner, l->why, sizeof(l->why)))
		return;
	if (run_probe(l->runner, &status, line, sizeof(line)) < 0) {
		snprintf(l->why, sizeof(l->why), "%s", line);
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFSIGNALED(status))
			snprintf(l->why, sizeof(l->why), "%.150s --probe: killed by signal %d",
			         l->runner, WTERMSIG(status));
		else
			snprintf(l->why, sizeof(l->why), "%s",
			         line[0] ? line : "runner --probe failed without a reason");
		return;
	}
	/* Exactly the documented line, nothing more. */
	if (sscanf(line, "abi=%d enforcement=%15s namespaces=%7s", &abi, full,
	           ns) != 3 || abi < 1 ||
	    (strcmp(full, "full") != 0 && strcmp(full, "partial") != 0) ||
	    (strcmp(ns, "yes") != 0 && strcmp(ns, "no") != 0) ||
	    snprintf(check, sizeof(check), WARDEN_LANDLOCK_PROBE_FORMAT, abi, full,
	             ns) < 0 ||
	    strcmp(check, line) != 0) {
		snprintf(l->why, sizeof(l->why), "%.150s --probe: unexpected answer '%.30s'",
		         l->runner, line);
		return;
	}
	l->abi = abi;
	l->abi_full = strcmp(full, "full") == 0;
	l->namespaces = strcmp(ns, "yes") == 0;
}

/* Appends "; " (unless first) and text to detail. */
static void detail_add(char *detail, size_t detlen, const char *text)
{
	size_t n = strlen(detail);

	if (n + 1 >= detlen)
		return;
	snprintf(detail + n, detlen - n, "%s%s", n > 0 ? "; " : "", text);
}

/* Enforcement and its detail for mode, from the probe's facts. */
static int mode_facts(const struct landlock *l, int mode, char *detail,
                      size_t detlen)
{
	char abi[64];

	detail[0] = '\0';
	snprintf(abi, sizeof(abi), "landlock ABI %d: " DETAIL_TRUNCATE, l->abi);
	if (mode == WARDEN_MODE_READ_ONLY) {
		if (l->abi >= WARDEN_LANDLOCK_FULL_ABI && l->namespaces) {
			snprintf(detail, detlen,
			         "landlock ABI %d; chmod, chown, utime, xattr and file ioctls refused by a seccomp guard; IPC and PID namespaces of its own",
			         l->abi);
			return l->abi_full ? WARDEN_ENFORCEMENT_FULL
			                   : WARDEN_ENFORCEMENT_PARTIAL;
		}
		if (l->abi < WARDEN_LANDLOCK_FULL_ABI)
			detail_add(detail, detlen, abi);
		if (!l->namespaces)
			detail_add(detail, detlen, DETAIL_NO_NAMESPACES);
		return WARDEN_ENFORCEMENT_PARTIAL;
	}
	detail_add(detail, detlen, DETAIL_METADATA);
	if (l->abi < WARDEN_LANDLOCK_FULL_ABI)
		detail_add(detail, detlen, abi);
	if (!l->namespaces)
		detail_add(detail, detlen, DETAIL_NO_NAMESPACES);
	detail_add(detail, detlen, DETAIL_PROTECTED);
	return WARDEN_ENFORCEMENT_PARTIAL;
}

static int landlock_probe(void *state, int mode, struct warden_probe *out)
{
	struct landlock *l = state;

	memset(out, 0, sizeof(*out));
	if (mode != WARDEN_MODE_READ_ONLY && mode != WARDEN_MODE_WORKSPACE_WRITE) {
		snprintf(out->detail, sizeof(out->detail), "unknown mode %d", mode);
		return -1;
	}
	if (!l->probed)
		probe_runner(l);
	if (l->abi == 0) {
		snprintf(out->detail, sizeof(out->detail), "%s", l->why);
		return 0;
	}
	out->usable = 1;
	out->privilege_dropped = 1;
	out->enforcement = mode_facts(l, mode, out->detail, sizeof(out->detail));
	return 0;
}

/* How a restricted network is held (enum warden_enforcement): the same
 * in both modes. */
static int restricted_facts(const struct landlock *l, char *detail, size_t len)
{
	if (l->abi >= 4)
		snprintf(detail, len,
		         "landlock ABI %d refuses every TCP bind and connect; the network guard refuses unix, UDP and raw sockets (a server of the command's own tree is refused too)",
		         l->abi);
	else
		snprintf(detail, len,
		         "landlock ABI %d governs no TCP: the network guard refuses every IP and unix socket",
		         l->abi);
	return WARDEN_ENFORCEMENT_FULL;
}

/* probe() for a v1.1 host, with how a restricted network is held. */
static int landlock_probe2(void *state, int mode, struct warden_probe2 *out)
{
	struct landlock *l = state;
	struct warden_probe p;
	int rc = landlock_probe(state, mode, &p);

	out->usable = p.usable;
	out->enforcement = p.enforcement;
	out->privilege_dropped = p.privilege_dropped;
	memcpy(out->detail, p.detail, sizeof(out->detail));
	if (rc == 0 && p.usable && WARDEN_PROBE2_HAS(out, network_detail))
		out->network_enforcement = restricted_facts(l, out->network_detail,
		                                            sizeof(out->network_detail));
	return rc;
}

/*
 * facts(): the probe's answer without running the runner.  The kernel's
 * Landlock ABI is one syscall in this process; the runner is checked as
 * the probe checks it; namespaces are assumed where the runner will try
 * them (root, or unprivileged user namespaces enabled), and the runner
 * then refuses to exec without them.  What only a run shows (the
 * namespaces are made, the seccomp guard loads, the capabilities drop)
 * the run itself proves: the runner reports on its status pipe and never
 * execs when a step fails, and the host then probes for real.  Where the
 * namespaces are unlikely, facts() leaves the answer to the probe.
 */
static int landlock_facts(void *state, int mode, struct warden_probe2 *out)
{
	struct landlock *l = state;
	struct warden_probe p;
	long v;
	int rc;

	if (mode != WARDEN_MODE_READ_ONLY && mode != WARDEN_MODE_WORKSPACE_WRITE) {
		snprintf(out->detail, sizeof(out->detail), "unknown mode %d", mode);
		return -1;
	}
	if (l->probed) {
		/* A probe ran: its answer is the better one. */
		rc = landlock_probe(state, mode, &p);
		out->usable = p.usable;
		out->enforcement = p.enforcement;
		out->privilege_dropped = p.privilege_dropped;
		memcpy(out->detail, p.detail, sizeof(out->detail));
		if (rc == 0 && p.usable && WARDEN_PROBE2_HAS(out, network_detail))
			out->network_enforcement = restricted_facts(l, out->network_detail,
			                                            sizeof(out->network_detail));
		return rc;
	}
	if (!runner_trusted(l->runner, out->detail, sizeof(out->detail)))
		return 0;
	if (geteuid() != 0 &&
	    (sysctl_value("/proc/sys/user/max_user_namespaces") == 0 ||
	     sysctl_value("/proc/sys/kernel/unprivileged_userns_clone") == 0)) {
		snprintf(out->detail, sizeof(out->detail),
		         "user namespaces look unavailable: the probe decides");
		return 0;
	}
	v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	            LANDLOCK_CREATE_RULESET_VERSION);
	if (v < 1) {
		snprintf(out->detail, sizeof(out->detail),
		         "landlock is not available on this kernel: %s",
		         v < 0 ? strerror(errno) : "ABI 0");
		return 0;
	}
	l->judged = 1;
	l->abi = v > WARDEN_LANDLOCK_MAX_ABI ? WARDEN_LANDLOCK_MAX_ABI : (int)v;
	l->abi_full = l->abi >= WARDEN_LANDLOCK_FULL_ABI;
	l->namespaces = 1;
	out->usable = 1;
	out->privilege_dropped = 1;
	out->enforcement = mode_facts(l, mode, out->detail, sizeof(out->detail));
	if (WARDEN_PROBE2_HAS(out, network_detail))
		out->network_enforcement = restricted_facts(l, out->network_detail,
		                                            sizeof(out->network_detail));
	return 0;
}

/* ----------------------------------------------------------- confine */

/* The network of policy (a v1.0 host passes none: it had no knob). */
static int policy_network(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, network) ? policy->network
	                                          : WARDEN_NETWORK_ENABLED;
}

/* How many host sockets the policy names (a v1.0 host names none). */
static size_t n_allowed(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, n_allow_unix_sockets) &&
	       policy->allow_unix_sockets != NULL
	       ? policy->n_allow_unix_sockets : 0;
}

/* Refuses what the network guard cannot honour; fills out's network facts. */
static int network_facts(const struct landlock *l, const struct warden_policy *policy,
                         struct warden_confine_out *out, char *err, size_t errlen)
{
	int network = policy_network(policy);

	if (network != WARDEN_NETWORK_RESTRICTED && network != WARDEN_NETWORK_ENABLED &&
	    network != WARDEN_NETWORK_ALLOWLIST) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: unknown network setting %d", network);
		return -1;
	}
	if (network == WARDEN_NETWORK_ALLOWLIST &&
	    (!WARDEN_POLICY_HAS(policy, proxy_port) || policy->proxy_port <= 0)) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: the allowlist network without warden's proxy (a host of plugin ABI 1.4 passes it)");
		return -1;
	}
	if (network == WARDEN_NETWORK_ALLOWLIST && l->abi < 4) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: the allowlist network needs Landlock ABI 4 (TCP port rules); this kernel has ABI %d", l->abi);
		return -1;
	}
	if (network != WARDEN_NETWORK_ENABLED && n_allowed(policy) > 0) {
		struct warden_unixgate g = { policy->allow_unix_sockets,
		                             policy->n_allow_unix_sockets, 0, NULL };
		const char *bad = warden_unixgate_bad_name(&g);

		if (bad != NULL) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: allow_unix_socket %s: not an absolute path shorter than %zu bytes, which a unix socket address needs",
			                  bad, sizeof(((struct sockaddr_un *)0)->sun_path));
			return -1;
		}
		bad = warden_unixgate_in_root(&g, policy->workspace_root);
		if (bad != NULL) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: allow_unix_socket %s lies in the workspace %s: a confined command could put a link or another socket in its place (list a socket outside the workspace)",
			                  bad, policy->workspace_root);
			return -1;
		}
		/* The runner's first process answers for the command's
		 * connect() calls: without the namespaces there is none. */
		if (!l->namespaces) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: allow_unix_socket %s cannot be let through without the runner's PID namespace, whose first process answers for the command's connect() (remove allow_unix_socket, or enable the network)",
			                  policy->allow_unix_sockets[0]);
			return -1;
		}
	}
	if (!WARDEN_CONFINE_OUT_HAS(out, network_detail))
		return 0;
	if (network == WARDEN_NETWORK_ENABLED) {
		out->network_enforcement = WARDEN_ENFORCEMENT_FULL;
		out->network_detail[0] = '\0';
		return 0;
	}
	if (network == WARDEN_NETWORK_ALLOWLIST) {
		/* A Landlock port rule names no address. */
		out->network_enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(out->network_detail, sizeof(out->network_detail),
		         "allowlist: TCP connect to port %d on any address, not only the proxy's 127.0.0.1:%d: any listener on that port, local or remote, is reachable; other ports, UDP (DNS too), unix sockets refused",
		         policy->proxy_port, policy->proxy_port);
	} else {
		out->network_enforcement = restricted_facts(l, out->network_detail,
		                                            sizeof(out->network_detail));
	}
	if (n_allowed(policy) > 0) {
		size_t used = strlen(out->network_detail);

		snprintf(out->network_detail + used, sizeof(out->network_detail) - used,
		         "; allow_unix_socket: %zu named host socket%s let through by the runner's first process",
		         n_allowed(policy), n_allowed(policy) == 1 ? "" : "s");
	}
	return 0;
}

/* Is path equal to root or below it?  Both are resolved. */
static int inside(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * Class 1 of the boundary (DESIGN §2 "No self-escalation"): a path that
 * decides how a later command is confined must stay read-only, and
 * Landlock cannot take a right back below a writable root.  So a path
 * under the root, or a root under such a path, is refused by name.
 * Read-only mode grants nothing but /dev/null: every path is held.
 */
static int check_read_only_paths(const struct warden_policy *policy,
                                 const char *root, char *err, size_t errlen)
{
	char real[PATH_MAX];
	size_t i;

	if (!WARDEN_POLICY_HAS(policy, n_read_only_paths) ||
	    policy->mode != WARDEN_MODE_WORKSPACE_WRITE)
		return 0;
	if (policy->n_read_only_paths > 0 && policy->read_only_paths == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: read_only_paths is missing");
		return -1;
	}
	for (i = 0; i < policy->n_read_only_paths; i++) {
		const char *p = policy->read_only_paths[i];
		const char *seen = p;

		if (p == NULL || p[0] != '/') {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: read-only path %zu '%s' is not absolute",
			                  i, p != NULL ? p : "(null)");
			return -1;
		}
		/* The host resolved it; a link planted since is followed too. */
		if (realpath(p, real) != NULL && strcmp(real, p) != 0 &&
		    (inside(real, root) || inside(root, real)))
			seen = real;
		if (inside(seen, root)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: %s must stay read-only but lies inside the writable root %s, and Landlock cannot keep a path read-only inside a writable root (move it out of the root, or confine with bwrap)",
			                  p, root);
			return -1;
		}
		if (inside(root, seen)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: the writable root %s lies inside %s, which must stay read-only (choose a root outside it, or confine with bwrap)",
			                  root, p);
			return -1;
		}
	}
	return 0;
}

/* The --rw argument pair for a writable directory: the host's descriptor
 * of it (held, or -1) when it can pass one (nothing can swap the path
 * between its check and the rule), else the path. */
static int push_rw(int held, const char *path, struct warden_confine_out *out)
{
	char fdbuf[16];
	int fd, n;

	if (held >= 0 && WARDEN_CONFINE_OUT_HAS(out, push_fd) && out->push_fd != NULL) {
		fd = fcntl(held, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -1;
		/* The host owns fd from here on, whatever push_fd answers. */
		n = out->push_fd(out->sink, fd);
		if (n >= 3) {
			snprintf(fdbuf, sizeof(fdbuf), "%d", n);
			return out->push_arg(out->sink, "--rw-fd") < 0 ||
			       out->push_arg(out->sink, fdbuf) < 0 ? -1 : 0;
		}
	}
	return out->push_arg(out->sink, "--rw") < 0 ||
	       out->push_arg(out->sink, path) < 0 ? -1 : 0;
}

/* The writable roots beside the workspace root (plugin.h, v1.3). */
static size_t n_more(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, n_more_roots) && policy->more_roots != NULL
	       ? policy->n_more_roots : 0;
}

static int more_kind(const struct warden_policy *policy, size_t i)
{
	return policy->more_root_kinds != NULL ? policy->more_root_kinds[i]
	                                       : WARDEN_ROOT_PLAIN;
}

/* Where git writes in its common directory when it commits, fetches or
 * checks out from a worktree; hooks/, config and the rest stay
 * read-only (nothing else of the directory is granted). */
static const char *const git_writable[] = { "objects", "refs", "logs" };

/* --rw for the directory name below dirfd (path: its path), opened
 * without following a link: nothing when it is missing or no directory.
 * -1 when out of memory. */
static int push_rw_below(int dirfd, const char *path, const char *name,
                         struct warden_confine_out *out)
{
	char sub[PATH_MAX];
	struct stat st;
	int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    (size_t)snprintf(sub, sizeof(sub), "%s/%s", path, name) >= sizeof(sub)) {
		close(fd);
		return 0;
	}
	rc = push_rw(fd, sub, out);
	close(fd);
	return rc;
}

/*
 * A git common directory (WARDEN_ROOT_GIT_COMMON_DIR): Landlock cannot
 * keep hooks/ and config read-only under a writable directory, so only
 * what git writes is granted: objects/, refs/, logs/ and each
 * worktrees/NAME/ (index, HEAD, its logs).  Inside worktrees/NAME/ the
 * files commondir and config.worktree stay writable (named in detail by
 * the caller).  -1 when out of memory or the root cannot be opened.
 */
static int push_git_dir(const struct warden_policy *policy, size_t i,
                        struct warden_confine_out *out)
{
	const char *c = policy->more_roots[i];
	char wt[PATH_MAX];
	struct dirent *de;
	size_t k;
	int held = policy->more_root_fds != NULL ? policy->more_root_fds[i] : -1;
	int fd = held >= 0 ? fcntl(held, F_DUPFD_CLOEXEC, 3)
	                   : open(c, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int wfd, dfd, rc = 0;
	DIR *d;

	if (fd < 0)
		return -1;
	for (k = 0; rc == 0 && k < sizeof(git_writable) / sizeof(*git_writable); k++)
		rc = push_rw_below(fd, c, git_writable[k], out);
	wfd = rc == 0 ? openat(fd, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	dfd = wfd >= 0 ? dup(wfd) : -1;
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (d == NULL && dfd >= 0)
		close(dfd);
	snprintf(wt, sizeof(wt), "%s/worktrees", c);
	while (rc == 0 && d != NULL && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = push_rw_below(wfd, wt, de->d_name, out);
	if (d != NULL)
		closedir(d);
	if (wfd >= 0)
		close(wfd);
	close(fd);
	return rc;
}

/* The host's temp area (plugin.h, v1.2), or NULL. */
static const char *tmp_of(const struct warden_policy *policy)
{
	return WARDEN_POLICY_HAS(policy, cwd) && policy->tmp_dir != NULL &&
	       policy->tmp_dir[0] == '/' ? policy->tmp_dir : NULL;
}

static int landlock_confine(void *state, const char *const *argv, size_t argc,
                            const struct warden_policy *policy,
                            struct warden_confine_out *out, char *err,
                            size_t errlen)
{
	struct landlock *l = state;
	const char *root = policy->workspace_root;
	char real_runner[PATH_MAX], fdbuf[16];
	size_t i, git_dirs = 0;
	int ws = policy->mode == WARDEN_MODE_WORKSPACE_WRITE;

	if (policy->mode != WARDEN_MODE_READ_ONLY && !ws) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: mode %d is not a confining mode",
		                  policy->mode);
		return -1;
	}
	if (!l->judged || l->abi == 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: not usable (probe first)");
		return -1;
	}
	if (root == NULL || root[0] != '/') {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: the workspace root must be absolute");
		return -1;
	}
	if (argc == 0 || argv[0] == NULL || argv[0][0] == '\0') {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: empty command");
		return -1;
	}
	/* A runner the command could have rewritten is no runner. */
	if (realpath(l->runner, real_runner) == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "landlock: %s: %s", l->runner,
		                  strerror(errno));
		return -1;
	}
	if (inside(real_runner, root)) {
		WARDEN_PLUGIN_ERR(err, errlen,
		                  "landlock: %s lies inside the workspace root %s: refused (set runner to an installed binary)",
		                  l->runner, root);
		return -1;
	}
	if (check_read_only_paths(policy, root, err, errlen) < 0)
		return -1;
	for (i = 0; ws && i < n_more(policy); i++) {
		if (inside(real_runner, policy->more_roots[i])) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "landlock: %s lies inside the writable root %s: refused (set runner to an installed binary)",
			                  l->runner, policy->more_roots[i]);
			return -1;
		}
		if (check_read_only_paths(policy, policy->more_roots[i], err, errlen) < 0)
			return -1;
	}

	if (network_facts(l, policy, out, err, errlen) < 0)
		return -1;
	out->enforcement = mode_facts(l, policy->mode, out->detail,
	                              sizeof(out->detail));
	out->privilege_dropped = 1;
	out->evidence = WARDEN_EVIDENCE_NONE;
	if (out->push_arg(out->sink, l->runner) < 0)
		goto oom;
	if (policy->status_fd >= 0) {
		snprintf(fdbuf, sizeof(fdbuf), "%d", policy->status_fd);
		if (out->push_arg(out->sink, "--status-fd") < 0 ||
		    out->push_arg(out->sink, fdbuf) < 0)
			goto oom;
		out->evidence = WARDEN_EVIDENCE_EXEC_PIPE;
	}
	if (!l->namespaces && out->push_arg(out->sink, "--no-namespaces") < 0)
		goto oom;
	if (out->push_arg(out->sink, "--network") < 0 ||
	    out->push_arg(out->sink, policy_network(policy) == WARDEN_NETWORK_ENABLED
	                             ? "enabled" : "restricted") < 0)
		goto oom;
	if (policy_network(policy) == WARDEN_NETWORK_ALLOWLIST) {
		snprintf(fdbuf, sizeof(fdbuf), "%d", policy->proxy_port);
		if (out->push_arg(out->sink, "--proxy-port") < 0 ||
		    out->push_arg(out->sink, fdbuf) < 0)
			goto oom;
	}
	if (policy_network(policy) != WARDEN_NETWORK_ENABLED)
		for (i = 0; i < n_allowed(policy); i++)
			if (out->push_arg(out->sink, "--allow-unix-socket") < 0 ||
			    out->push_arg(out->sink, policy->allow_unix_sockets[i]) < 0)
				goto oom;
	if (ws && push_rw(WARDEN_POLICY_HAS(policy, root_fd) ? policy->root_fd : -1,
	                  root, out) < 0)
		goto oom;
	if (ws && tmp_of(policy) != NULL && push_rw(policy->tmp_fd, policy->tmp_dir, out) < 0)
		goto oom;
	for (i = 0; ws && i < n_more(policy); i++) {
		if (more_kind(policy, i) == WARDEN_ROOT_GIT_COMMON_DIR) {
			if (push_git_dir(policy, i, out) < 0)
				goto oom;
			git_dirs++;
		} else if (push_rw(policy->more_root_fds != NULL ? policy->more_root_fds[i] : -1,
		                   policy->more_roots[i], out) < 0) {
			goto oom;
		}
	}
	if (out->push_arg(out->sink, "--") < 0)
		goto oom;
	for (i = 0; i < argc; i++)
		if (out->push_arg(out->sink, argv[i]) < 0)
			goto oom;
	if (ws && out->push_writable_root(out->sink, root) < 0)
		goto oom;
	if (ws && tmp_of(policy) != NULL &&
	    out->push_writable_root(out->sink, tmp_of(policy)) < 0)
		goto oom;
	for (i = 0; ws && i < n_more(policy); i++)
		if (out->push_writable_root(out->sink, policy->more_roots[i]) < 0)
			goto oom;
	if (ws && n_more(policy) > 0) {
		size_t used = strlen(out->detail);

		snprintf(out->detail + used, sizeof(out->detail) - used,
		         "%s%s",
		         used > 0 ? "; " : "",
		         git_dirs > 0
		         ? "roots beside the root: protected paths writable; in a git dir only objects, refs, logs, worktrees/* (their commondir too)"
		         : "roots beside the root: protected paths writable");
	}
	if (tmp_of(policy) != NULL) {
		/* The host's /tmp is read as it is and never written. */
		if (WARDEN_CONFINE_OUT_HAS(out, tmp_held))
			out->tmp_held = 1;
		/* Reads are not promised yet (SECURITY.md): named where the
		 * mode is partial already; deny_read will decide for both. */
		if (ws && policy->tmp_hide != NULL) {
			size_t used = strlen(out->detail);

			snprintf(out->detail + used, sizeof(out->detail) - used,
			         "%sother sessions' temp areas in %.100s stay readable",
			         used > 0 ? "; " : "", policy->tmp_hide);
		}
	}
	if (WARDEN_POLICY_HAS(policy, void_dir) && policy->n_deny_read > 0) {
		/* Landlock only adds read access below a tree: nothing takes
		 * it back for a path under `/` (deny_read_held stays 0). */
		size_t used = strlen(out->detail);

		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(out->detail + used, sizeof(out->detail) - used,
		         "%sdeny_read is not held: Landlock cannot take read access back below a readable tree (%.80s%s stays readable)",
		         used > 0 ? "; " : "", policy->deny_read[0],
		         policy->n_deny_read > 1 ? " and the rest of the list" : "");
	}
	if (WARDEN_CONFINE_OUT_HAS(out, read_only_held))
		out->read_only_held = 1; /* checked above */
	return 0;
oom:
	WARDEN_PLUGIN_ERR(err, errlen, "landlock: out of memory");
	return -1;
}

/* ------------------------------------------------------------ tables */

static const char *const denial_signatures[] = { "Permission denied" };

static const int runner_exit_codes[] = { WARDEN_LANDLOCK_RUNNER_EXIT };
static const char *const runner_fatal[] = { WARDEN_LANDLOCK_FATAL_PREFIX };
static const char *const runner_notices[] = {
	WARDEN_LANDLOCK_NOTICE_ABI1,
	WARDEN_LANDLOCK_NOTICE_ABI2,
};
static const struct warden_runner_rule runner_rules[] = {
	{
		.exit_codes = runner_exit_codes,
		.n_exit_codes = 1,
		.fatal_signatures = runner_fatal,
		.n_fatal_signatures = 1,
		.informational_lines = runner_notices,
		.n_informational_lines = 2,
	},
};

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "landlock",
	.version = PACKAGE_VERSION,
	.description = "Landlock: writes only under the root and /dev/null, no capabilities, metadata guard",
	.open = landlock_open,
	.close = landlock_close,
	.probe = landlock_probe,
	.probe2 = landlock_probe2,
	.confine = landlock_confine,
	.denial_signatures = denial_signatures,
	.n_denial_signatures = 1,
	.runner_rules = runner_rules,
	.n_runner_rules = 1,
	.facts = landlock_facts,
};
