/* spawn.c — see spawn.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
/* The child shares our memory until it execs (see start_child), but not
 * under AddressSanitizer, which cannot follow a call that never returns
 * on a stack it did not make (it warns on the command's stderr): there it
 * is fork(). */
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#define SPAWN_CLONE_VM 1
#endif

#include <warden/plugin.h>

#include "spawn.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)  /* linux/close_range.h, Linux 5.11 */
#endif

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* The self-pipe the signal handler writes to: the only state a handler
 * may touch.  One run at a time per process. */
static int signal_pipe[2] = { -1, -1 };

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
                                       SIGCHLD };
#define N_HANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (write(signal_pipe[1], &b, 1) < 0) {
		/* Full pipe: a wake-up is already pending. */
	}
	errno = saved;
}

/* The process that spawns (for the child's WARDEN_SPAWN_DIE_WITH_HOST). */
static pid_t spawn_parent;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ program */

/* The files execve() will try, in order (execvp's search, done before
 * fork so that the child allocates nothing). */
struct candidates {
	char **path;
	size_t n;
};

static void candidates_free(struct candidates *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->path[i]);
	free(c->path);
	c->path = NULL;
	c->n = 0;
}

static int candidates_add(struct candidates *c, const char *dir, size_t dlen,
                          const char *name)
{
	char **grown, *p;
	size_t nlen = strlen(name);

	grown = realloc(c->path, (c->n + 1) * sizeof(*grown));
	if (grown == NULL)
		return -1;
	c->path = grown;
	p = malloc(dlen + 1 + nlen + 1);
	if (p == NULL)
		return -1;
	memcpy(p, dir, dlen);
	p[dlen] = '/';
	memcpy(p + dlen + 1, name, nlen + 1);
	c->path[c->n++] = p;
	return 0;
}

static int candidates_resolve(const char *name, struct candidates *c)
{
	const char *path, *p, *colon;

	c->path = NULL;
	c->n = 0;
	if (name[0] == '\0')
		return 0;  /* no candidate: ENOENT, as execvp("") */
	if (strchr(name, '/') != NULL) {
		c->path = malloc(sizeof(*c->path));
		if (c->path == NULL || (c->path[0] = strdup(name)) == NULL)
			return -1;
		c->n = 1;
		return 0;
	}
	path = getenv("PATH");
	if (path == NULL)
		path = DEFAULT_PATH;
	for (p = path;; p = colon + 1) {
		colon = strchrnul(p, ':');
		/* An empty entry is the current directory. */
		if (colon == p ? candidates_add(c, ".", 1, name)
		               : candidates_add(c, p, (size_t)(colon - p), name))
			return -1;
		if (*colon == '\0')
			break;
	}
	return 0;
}

/* In the child: try each candidate like execvp, minus its /bin/sh
 * fallback for ENOEXEC.  Returns the errno to report. */
static int exec_candidates(const struct candidates *c, char *const *argv,
                           char *const *envp)
{
	int saw_eacces = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		execve(c->path[i], argv, envp);
		switch (errno) {
		case EACCES:
			saw_eacces = 1;
			break;
		case ENOENT:
		case ENOTDIR:
		case ESTALE:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			return errno;
		}
	}
	return saw_eacces ? EACCES : ENOENT;
}

/* --------------------------------------------------------- descriptors */

/* A close-on-exec pipe whose both ends sit at or above `floor`, so that
 * the child's dup2() onto 2 and onto the status fd cannot hit them. */
static int pipe_above(int p[2], int floor)
{
	int raw[2], i, fd;

	if (pipe2(raw, O_CLOEXEC) < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		if (raw[i] >= floor) {
			p[i] = raw[i];
			continue;
		}
		fd = fcntl(raw[i], F_DUPFD_CLOEXEC, floor);
		close(raw[i]);
		if (fd < 0) {
			if (i == 0)
				close(raw[1]);
			else
				close(p[0]);
			return -1;
		}
		p[i] = fd;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* In the child: every descriptor from `from` to `to` (inclusive) becomes
 * close-on-exec, so that it stays usable until execve() and then goes. */
static void cloexec_range(int from, int to)
{
	int fd, flags;
	long max;

	if (from > to)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)from, (unsigned)to,
	            CLOSE_RANGE_CLOEXEC) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	if (to > max)
		to = (int)max;
	for (fd = from; fd <= to; fd++) {
		flags = fcntl(fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ------------------------------------------------------------- output */

#define CHUNK 4096
_Static_assert(CHUNK <= WARDEN_SPAWN_TAIL, "a read must fit in the tail");

static void tail_add(struct warden_spawn_result *r, const char *p, size_t n)
{
	size_t drop;

	r->stderr_total += n;
	if (r->tail_len + n > sizeof(r->tail)) {
		drop = r->tail_len + n - sizeof(r->tail);
		memmove(r->tail, r->tail + drop, r->tail_len - drop);
		r->tail_len -= drop;
	}
	memcpy(r->tail + r->tail_len, p, n);
	r->tail_len += n;
}

/* The stderr gate (gate_token): shut until the status channel tells. */
enum gate { GATE_NONE, GATE_SHUT, GATE_OPEN, GATE_FAILED };

struct gate_state {
	enum gate state;
	size_t held;            /* bytes held back: the tail's last `held` */
};

/* Opens the gate: what was held is copied out (from the tail, which holds
 * at least as much: a held byte is never dropped from it, see below). */
static void gate_open(struct gate_state *g, struct warden_spawn_result *r,
                      int *copy_ok)
{
	if (*copy_ok && g->held > 0 &&
	    write_all(STDERR_FILENO, r->tail + r->tail_len - g->held, g->held) < 0)
		*copy_ok = 0;
	g->held = 0;
	g->state = GATE_OPEN;
	r->stderr_withheld = 0;
}

/* Reads what is there on the stderr pipe: copies it to our stderr (until
 * that fails: the run goes on without the copy) and into the tail; while
 * the gate is shut, into the tail only.  On EOF closes *fd. */
static void pump_stderr(int *fd, struct warden_spawn_result *r, int *copy_ok,
                        struct gate_state *g)
{
	char buf[CHUNK];
	ssize_t n;

	n = read(*fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fd);
		return;
	}
	if (g->state == GATE_SHUT && g->held + (size_t)n > sizeof(r->tail))
		gate_open(g, r, copy_ok); /* more than a runner says: not held */
	if (g->state == GATE_SHUT || g->state == GATE_FAILED) {
		g->held += (size_t)n;
		r->stderr_withheld += (size_t)n;
		if (g->held > sizeof(r->tail))
			g->held = sizeof(r->tail);
	} else if (*copy_ok && write_all(STDERR_FILENO, buf, (size_t)n) < 0) {
		*copy_ok = 0;
	}
	tail_add(r, buf, (size_t)n);
}

/* The status channel reached EOF: the gate opens when it carried exactly
 * the token, else stays shut for good. */
static void gate_decide(struct gate_state *g, const struct warden_spawn_opts *o,
                        struct warden_spawn_result *r, int *copy_ok)
{
	if (g->state != GATE_SHUT)
		return;
	if (r->evidence_len == strlen(o->gate_token) &&
	    memcmp(r->evidence, o->gate_token, r->evidence_len) == 0)
		gate_open(g, r, copy_ok);
	else
		g->state = GATE_FAILED;
}

/* The same for stdout when it goes through a pipe: copied, and only its
 * last byte kept. */
static void pump_stdout(int *fd, struct warden_spawn_result *r, int *copy_ok)
{
	char buf[CHUNK];
	ssize_t n;

	n = read(*fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fd);
		return;
	}
	if (*copy_ok && write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
		*copy_ok = 0;
	r->stdout_total += (size_t)n;
	r->stdout_last = (unsigned char)buf[n - 1];
}

static void pump_status(int *fd, struct warden_spawn_result *r)
{
	char buf[1024];
	ssize_t n;
	size_t room, keep;

	n = read(*fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fd);
		return;
	}
	room = sizeof(r->evidence) - r->evidence_len;
	keep = (size_t)n < room ? (size_t)n : room;
	memcpy(r->evidence + r->evidence_len, buf, keep);
	r->evidence_len += keep;
}

/* --------------------------------------------------------- descendants */

/* The live children of this process (every thread's), from procfs.
 * Returns the count (at most max), or -1 when procfs cannot tell;
 * *complete: 1 when that is every one of them (a kernel without
 * CONFIG_PROC_CHILDREN lists none, and more than max are cut). */
static int list_children(pid_t *out, int max, int *complete)
{
	char path[64], *line = NULL, *p, *end;
	size_t cap = 0;
	struct dirent *de;
	DIR *d;
	FILE *f;
	int n = 0;
	long v;

	*complete = 0;
	d = opendir("/proc/self/task");
	if (d == NULL)
		return -1;
	*complete = 1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children",
		         de->d_name);
		f = fopen(path, "re");
		if (f == NULL) {
			/* A kernel without CONFIG_PROC_CHILDREN. */
			*complete = 0;
			continue;
		}
		if (getline(&line, &cap, f) > 0) {
			for (p = line; ; p = end) {
				v = strtol(p, &end, 10);
				if (end == p)
					break;
				if (n == max) {
					*complete = 0;
					break;
				}
				out[n++] = (pid_t)v;
			}
		}
		fclose(f);
	}
	free(line);
	closedir(d);
	return n;
}

#define MAX_CHILDREN 1024

struct children {
	pid_t pid[MAX_CHILDREN];
	int n;
};

static int children_has(const struct children *c, pid_t pid)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->pid[i] == pid)
			return 1;
	return 0;
}

/*
 * Kills and reaps every child that was not there before the run (`before`):
 * what is left of the run after its group was killed, reparented to us
 * because we are a subreaper.  Each round reaps at least one process, and
 * a process is reparented before its parent becomes reapable, so a round
 * that finds nothing new means nothing is left.  Returns 1 when that is
 * known: every list it read was complete.
 */
static int sweep_descendants(const struct children *before)
{
	static pid_t now[MAX_CHILDREN];
	int n, i, found, complete, all = 1;

	for (;;) {
		n = list_children(now, MAX_CHILDREN, &complete);
		all = all && complete;
		if (n < 0)
			return 0;
		found = 0;
		for (i = 0; i < n; i++) {
			if (children_has(before, now[i]))
				continue;
			kill(now[i], SIGKILL);
			while (waitpid(now[i], NULL, 0) < 0 && errno == EINTR)
				;
			found = 1;
		}
		if (!found)
			return all;
	}
}

/* ----------------------------------------------------------------- run */

struct saved_state {
	struct sigaction act[N_HANDLED];
	struct sigaction pipe_act;
	sigset_t mask;
	int subreaper;
	int subreaper_set;
};

/* sigaction() and sigprocmask() cannot fail with these valid signals. */
static void install(struct saved_state *s, const sigset_t *handled)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_HANDLED; i++)
		sigaction(handled_signals[i], &sa, &s->act[i]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &s->pipe_act);
	sigprocmask(SIG_BLOCK, handled, &s->mask);
	s->subreaper_set = 0;
	s->subreaper = 0; /* memcheck cannot see the kernel fill it below */
#ifdef PR_SET_CHILD_SUBREAPER
	if (prctl(PR_GET_CHILD_SUBREAPER, &s->subreaper, 0, 0, 0) == 0 &&
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
		s->subreaper_set = 1;
#endif
}

static void restore(const struct saved_state *s)
{
	size_t i;

#ifdef PR_SET_CHILD_SUBREAPER
	if (s->subreaper_set)
		prctl(PR_SET_CHILD_SUBREAPER, s->subreaper, 0, 0, 0);
#endif
	for (i = 0; i < N_HANDLED; i++)
		sigaction(handled_signals[i], &s->act[i], NULL);
	sigaction(SIGPIPE, &s->pipe_act, NULL);
	sigprocmask(SIG_SETMASK, &s->mask, NULL);
}

int warden_fds_place(const int *fds, const int *at, size_t n, int top)
{
	int moved[WARDEN_SPAWN_PASS_MAX];
	size_t i;

	if (n > WARDEN_SPAWN_PASS_MAX) {
		errno = EMFILE;
		return -1;
	}
	/* First everything above the numbers they take, so that placing
	 * one never overwrites another that is still to be placed. */
	for (i = 0; i < n; i++)
		if ((moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, top + 1)) < 0)
			return -1;
	for (i = 0; i < n; i++)
		if (dup2(moved[i], at[i]) < 0)
			return -1;
	return 0;
}

/* What a backend asked the child to do before exec (plugin.h, enum
 * warden_spawn_flag).  0, or -1 with errno.  Async-signal-safe. */
static int spawn_flags(const struct warden_spawn_opts *o)
{
	if (o->flags & ~WARDEN_SPAWN_FLAGS_KNOWN) {
		errno = EINVAL;
		return -1;
	}
#ifdef __linux__
	/* SIGKILL when this process dies; it may have died already. */
	if (o->flags & WARDEN_SPAWN_DIE_WITH_HOST) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
			return -1;
		if (getppid() != spawn_parent) {
			errno = ESRCH;
			return -1;
		}
	}
	/* A session keyring of its own, empty (the host's is not
	 * namespaced); none to have, or refused by a filter that then binds
	 * the process too: nothing to reach. */
	if ((o->flags & WARDEN_SPAWN_OWN_SESSION_KEYRING) &&
	    syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, (char *)NULL) < 0 &&
	    errno != ENOSYS && errno != EPERM)
		return -1;
#else
	if (o->flags != 0) {
		errno = ENOSYS;
		return -1;
	}
#endif
	return 0;
}

/* In the child, between fork and exec.  Only async-signal-safe calls. */
static void child(const struct warden_spawn_opts *o,
                  const struct candidates *c, int err_w, int stdout_w,
                  int stderr_w, int status_w, int top, int exec_fd)
{
	struct sigaction sa;
	sigset_t none;
	size_t i;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_HANDLED; i++)
		sigaction(handled_signals[i], &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	/* A command starts with no signal blocked: one that blocked SIGTERM
	 * would sit out the grace period of every kill. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Every pipe lies above status_fd and the pass_at numbers (the
	 * floor of warden_spawn_run), so these never overwrite one; the
	 * passed descriptors are placed first, before the status channel's
	 * number can overwrite one of them, and after cwd_fd was used (its
	 * number may be one they take). */
	if (setsid() < 0 ||
	    (o->cwd_fd > 2 && fchdir(o->cwd_fd) < 0) ||
	    warden_fds_place(o->pass_fds, o->pass_at, o->n_pass, top) < 0 ||
	    dup2(stderr_w, STDERR_FILENO) < 0 ||
	    (stdout_w >= 0 && dup2(stdout_w, STDOUT_FILENO) < 0) ||
	    (o->status_fd >= 0 && dup2(status_w, o->status_fd) < 0) ||
	    (o->status_fd >= 0 && o->status_copy_at > 2 &&
	     dup2(status_w, o->status_copy_at) < 0)) {
		e = errno;
		goto fail;
	}
	cloexec_range(3, INT32_MAX);
	if (spawn_flags(o) < 0) {
		e = errno;
		goto fail;
	}
	if ((o->status_fd >= 0 && fcntl(o->status_fd, F_SETFD, 0) < 0) ||
	    (o->status_fd >= 0 && o->status_copy_at > 2 &&
	     fcntl(o->status_copy_at, F_SETFD, 0) < 0)) {
		e = errno;
		goto fail;
	}
	for (i = 0; i < o->n_pass; i++) {
		if (fcntl(o->pass_at[i], F_SETFD, 0) < 0) {
			e = errno;
			goto fail;
		}
	}
	if (exec_fd >= 0) {
		/* What the caller opened, not what a path leads to now. */
		if (o->exec_keep && fcntl(exec_fd, F_SETFD, 0) < 0) {
			e = errno;
			goto fail;
		}
		fexecve(exec_fd, (char *const *)o->argv, o->envp);
		e = errno;
		goto fail;
	}
	e = exec_candidates(c, (char *const *)o->argv, o->envp);
fail:
	if (write(err_w, &e, sizeof(e)) < 0) {
		/* The parent then sees exit 127 without a reason. */
	}
	_exit(127);
}

#ifdef SPAWN_CLONE_VM
struct child_args {
	const struct warden_spawn_opts *o;
	const struct candidates *c;
	int err_w, stdout_w, stderr_w, status_w, top, exec_fd;
};

static int child_main(void *arg)
{
	const struct child_args *a = arg;

	child(a->o, a->c, a->err_w, a->stdout_w, a->stderr_w, a->status_w,
	      a->top, a->exec_fd);
	return 127;
}

/* The child's stack (one run at a time per process, see signal_pipe). */
#define CHILD_STACK_SIZE (128 * 1024)
static _Alignas(64) unsigned char child_stack[CHILD_STACK_SIZE];
#endif

/*
 * Starts the child.  On Linux it shares our memory until it execs
 * (clone with CLONE_VM | CLONE_VFORK, as posix_spawn does): nothing of
 * this process is copied, and we sleep until the child has exec'd or
 * failed.  The child runs on a stack of its own, writes nothing of ours
 * but its stack and errno, allocates nothing, and runs no handler of ours:
 * every signal is blocked across the clone and child() puts each handled
 * one back to its default before it unblocks them.  Elsewhere, and under
 * AddressSanitizer: fork().
 */
static pid_t start_child(const struct warden_spawn_opts *o,
                         const struct candidates *c, int err_w, int stdout_w,
                         int stderr_w, int status_w, int top, int exec_fd)
{
#ifdef SPAWN_CLONE_VM
	struct child_args a = { o, c, err_w, stdout_w, stderr_w, status_w, top,
	                        exec_fd };
	sigset_t all, was;
	pid_t pid;
	int e;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &was);
	pid = clone(child_main, child_stack + sizeof(child_stack),
	            CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	e = errno;
	sigprocmask(SIG_SETMASK, &was, NULL);
	errno = e;
	return pid;
#else
	pid_t pid = fork();

	if (pid == 0)
		child(o, c, err_w, stdout_w, stderr_w, status_w, top, exec_fd);
	return pid;
#endif
}

int warden_spawn_run(const struct warden_spawn_opts *o,
                     struct warden_spawn_result *r, struct warden_error *err)
{
	struct candidates cand = { NULL, 0 };
	struct gate_state gate = { GATE_NONE, 0 };
	struct saved_state saved;
	struct children before;
	struct pollfd pfd[4];
	int out_i, st_i, so_i;
	sigset_t handled;
	int err_p[2] = { -1, -1 }, out_p[2] = { -1, -1 }, st_p[2] = { -1, -1 };
	int so_p[2] = { -1, -1 }, exec_fd = -1;
	int floor, rc = 0, copy_ok = 1, so_copy_ok = 1, killed = 0, leader_done = 0;
	int before_complete = 0;
	int64_t start, deadline = 0, kill_at = 0, t, wait_ms;
	long grace = o->grace_ms > 0 ? o->grace_ms : WARDEN_SPAWN_GRACE_MS;
	unsigned char sigbuf[64];
	ssize_t n;
	size_t i, npfd;
	pid_t pid, w;
	int e;

	memset(r, 0, sizeof(*r));
	if (o->argv == NULL || o->argv[0] == NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: no command to run");
	if (o->status_fd != -1 && o->status_fd < 3)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "run: status fd %d is not above stderr",
		                        o->status_fd);
	if (signal_pipe[0] >= 0)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "run: a run is already in progress");
	if (o->gate_token != NULL && o->status_fd >= 0)
		gate.state = GATE_SHUT;
	if (candidates_resolve(o->argv[0], &cand) < 0) {
		candidates_free(&cand);
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	}

	floor = (o->status_fd > 2 ? o->status_fd : 2) + 1;
	if (o->status_copy_at > 2 && o->status_copy_at + 1 > floor)
		floor = o->status_copy_at + 1;
	for (i = 0; i < o->n_pass; i++) {
		if (o->pass_at[i] < 3 || o->pass_at[i] == o->status_fd ||
		    (o->status_copy_at > 2 && o->pass_at[i] == o->status_copy_at) ||
		    o->pass_fds[i] < 0 || o->n_pass > WARDEN_SPAWN_PASS_MAX) {
			candidates_free(&cand);
			return warden_error_set(err, WARDEN_EINTERNAL,
			                        "run: descriptor %d cannot be passed at %d",
			                        o->pass_fds[i], o->pass_at[i]);
		}
		if (o->pass_at[i] + 1 > floor)
			floor = o->pass_at[i] + 1;
	}
	if (pipe_above(err_p, floor) < 0 || pipe_above(out_p, floor) < 0 ||
	    (o->pipe_stdout && pipe_above(so_p, floor) < 0) ||
	    (o->status_fd >= 0 && pipe_above(st_p, floor) < 0) ||
	    pipe_above(signal_pipe, floor) < 0) {
		rc = warden_error_errno(err, WARDEN_EOS, errno,
		                        "run: cannot create a pipe");
		goto out_fds;
	}
	/* The file to execute sits above every number the child places. */
	if (o->exec_fd > 2 &&
	    (exec_fd = fcntl(o->exec_fd, F_DUPFD_CLOEXEC, floor)) < 0) {
		rc = warden_error_errno(err, WARDEN_EOS, errno,
		                        "run: cannot duplicate a descriptor");
		goto out_fds;
	}
	fcntl(signal_pipe[0], F_SETFL, O_NONBLOCK);
	fcntl(signal_pipe[1], F_SETFL, O_NONBLOCK);

	sigemptyset(&handled);
	for (i = 0; i < N_HANDLED; i++)
		sigaddset(&handled, handled_signals[i]);
	before.n = list_children(before.pid, MAX_CHILDREN, &before_complete);
	if (before.n < 0)
		before.n = 0;
	install(&saved, &handled);

	fflush(NULL);
	spawn_parent = getpid();
	start = now_ms();
	pid = start_child(o, &cand, err_p[1], so_p[1], out_p[1], st_p[1],
	                  floor - 1, exec_fd);
	if (pid < 0) {
		rc = warden_error_errno(err, WARDEN_EOS, errno,
		                        "run: cannot fork");
		restore(&saved);
		goto out_fds;
	}

	close_fd(&err_p[1]);
	close_fd(&out_p[1]);
	close_fd(&so_p[1]);
	close_fd(&st_p[1]);
	/* EOF: exec happened (the pipe was close-on-exec); an int: it failed.
	 * Our signals stay blocked until then, so that a forwarded signal
	 * always finds the new group. */
	do
		n = read(err_p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		r->exec_errno = e ? e : ENOEXEC;
		while (waitpid(pid, &r->wait_status, 0) < 0 && errno == EINTR)
			;
		r->all_ended = 1;  /* nothing was executed */
		r->duration_ms = (long)(now_ms() - start);
		restore(&saved);
		goto out_fds;
	}
	sigprocmask(SIG_UNBLOCK, &handled, NULL);
	if (o->timeout_ms > 0)
		deadline = start + o->timeout_ms;

	while (!leader_done) {
		t = now_ms();
		wait_ms = -1;
		if (deadline && !r->timed_out)
			wait_ms = deadline > t ? deadline - t : 0;
		if (kill_at && !killed) {
			int64_t k = kill_at > t ? kill_at - t : 0;

			if (wait_ms < 0 || k < wait_ms)
				wait_ms = k;
		}
		npfd = 0;
		out_i = st_i = so_i = -1;
		pfd[npfd++] = (struct pollfd){ signal_pipe[0], POLLIN, 0 };
		if (out_p[0] >= 0) {
			out_i = (int)npfd;
			pfd[npfd++] = (struct pollfd){ out_p[0], POLLIN, 0 };
		}
		if (so_p[0] >= 0) {
			so_i = (int)npfd;
			pfd[npfd++] = (struct pollfd){ so_p[0], POLLIN, 0 };
		}
		if (st_p[0] >= 0) {
			st_i = (int)npfd;
			pfd[npfd++] = (struct pollfd){ st_p[0], POLLIN, 0 };
		}
		if (poll(pfd, npfd, wait_ms > INT32_MAX ? INT32_MAX : (int)wait_ms) < 0 &&
		    errno != EINTR) {
			rc = warden_error_errno(err, WARDEN_EOS, errno,
			                        "run: poll failed");
			kill(-pid, SIGKILL);
			while (waitpid(pid, &r->wait_status, 0) < 0 &&
			       errno == EINTR)
				;
			break;
		}
		while ((n = read(signal_pipe[0], sigbuf, sizeof(sigbuf))) > 0) {
			for (i = 0; i < (size_t)n; i++) {
				if (sigbuf[i] == SIGCHLD)
					continue;
				r->host_signal = sigbuf[i];
				kill(-pid, sigbuf[i]);
				if (!kill_at)
					kill_at = now_ms() + grace;
			}
		}
		if (out_i >= 0 && pfd[out_i].revents)
			pump_stderr(&out_p[0], r, &copy_ok, &gate);
		if (so_i >= 0 && pfd[so_i].revents)
			pump_stdout(&so_p[0], r, &so_copy_ok);
		if (st_i >= 0 && pfd[st_i].revents) {
			pump_status(&st_p[0], r);
			if (st_p[0] < 0)
				gate_decide(&gate, o, r, &copy_ok);
		}
		t = now_ms();
		if (deadline && !r->timed_out && t >= deadline) {
			r->timed_out = 1;
			kill(-pid, SIGTERM);
			if (!kill_at)
				kill_at = t + grace;
		}
		if (kill_at && !killed && t >= kill_at) {
			kill(-pid, SIGKILL);
			killed = 1;
		}
		w = waitpid(pid, &r->wait_status, WNOHANG);
		if (w == pid) {
			leader_done = 1;
			r->duration_ms = (long)(now_ms() - start);
		}
	}

	/* Nothing outlives the run: the rest of the group, then whatever
	 * left it and was reparented to us. */
	kill(-pid, SIGKILL);
	if (saved.subreaper_set)
		r->all_ended = sweep_descendants(&before) && before_complete;
	while (st_p[0] >= 0)
		pump_status(&st_p[0], r);
	gate_decide(&gate, o, r, &copy_ok);
	while (out_p[0] >= 0)
		pump_stderr(&out_p[0], r, &copy_ok, &gate);
	while (so_p[0] >= 0)
		pump_stdout(&so_p[0], r, &so_copy_ok);
	restore(&saved);

out_fds:
	close_fd(&err_p[0]);
	close_fd(&err_p[1]);
	close_fd(&out_p[0]);
	close_fd(&out_p[1]);
	close_fd(&so_p[0]);
	close_fd(&so_p[1]);
	close_fd(&st_p[0]);
	close_fd(&st_p[1]);
	close_fd(&signal_pipe[0]);
	close_fd(&signal_pipe[1]);
	close_fd(&exec_fd);
	candidates_free(&cand);
	return rc;
}
