/*
 * exec.c — the exec answerer: an external program decides (DESIGN §3, §8).
 *
 * Each request runs `command` with the `arg`s (an argv, never a shell
 * string) in a process group of its own, with a minimal environment
 * (PATH=/usr/bin:/bin, LANG=C and nothing else), every signal at its
 * default, and no descriptor but 0, 1 and 2.  Its stdin carries the request
 * as one JSON object on one line:
 *
 *   {"session":"…","request_id":"…","tool":"…","subject":"…",
 *    "call_id":"…","reason":"…","mode":"…","cwd":"…",
 *    "argv":["…"],"env_removed":["…"],"path_dropped":["…"],
 *    "program":"…","interpreter":"…","path":"…","network":"…",
 *    "program_writable":false,
 *    "grant_scopes":[{"name":"exact","text":"…"},{"name":"prefix:2",…}]}
 *
 * (absent optional fields are "", absent lists []; `mode` is the sandbox
 * mode an escalation asks for, `network` the network ("enabled"); argv to
 * path describe the command the
 * request is about, exactly as it will run: plugin.h, v1.1).  The first
 * line of its stdout is the answer: exactly `allowed-once`, `rejected`,
 * `cancelled` or `next`, or `allowed-for-session` (the first grant scope
 * offered) or `allowed-for-session NAME` (the one so named) when
 * grant_scopes is not empty (reply.c); the second line, optional, is the
 * decision's reason, recorded with it.  Anything
 * else — another word, an empty or overlong line, a NUL, more than 64 KiB
 * of output, a nonzero exit, death by a signal, a program that cannot be
 * run, or the deadline — is an error, and the request is unavailable.
 * Stderr is left to the program (it goes where warden's goes).
 *
 * The deadline is the section's timeout_ms less a tenth (at most 500 ms
 * less), so that this answerer ends the program and reports before the
 * host's own timeout of the same value kills a worker mid-way; or 60 s
 * when timeout_ms is 0: an external program with no deadline would hold
 * the request forever.  On Linux the program also dies with the process
 * that runs it (PR_SET_PDEATHSIG), should the host kill that first.  At
 * the deadline, and after every answer, the whole process group is killed,
 * so a background child cannot outlive the request; the program itself is
 * always reaped.  The program's exit is watched directly: a background
 * child that keeps stdout open does not hold the answer back.
 *
 * Config keys ([answerer NAME] with plugin = exec):
 *   command  required; the program.  An absolute path, or a path relative
 *            to the config file's directory; PATH is never searched.  It
 *            must be an executable regular file that neither group nor
 *            others may write.
 *   arg      one argument; repeatable, in order (at most 64).
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include <jansson.h>
#include <warden/plugin.h>

#include "reply.h"

#define EXEC_MAX_ARGS 64
#define EXEC_DEFAULT_TIMEOUT_MS 60000L
#define EXEC_OUTPUT_MAX (64 * 1024)
/* How often the program's exit is checked while its stdout stays open. */
#define EXEC_TICK_MS 10

struct exec {
	char *argv[EXEC_MAX_ARGS + 2];  /* command, args, NULL */
	size_t argc;
	long timeout_ms;
	long open_max;                  /* for closing descriptors in the child */
};

static char *const exec_env[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };

static void exec_close(void *state)
{
	struct exec *e = state;
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->argc; i++)
		free(e->argv[i]);   /* argv[0] is NULL until `command` is seen */
	free(e);
}

static int set_command(struct exec *e, const struct warden_open_args *args,
                       const struct warden_kv *kv, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	if (e->argv[0] != NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: command: given twice "
		                  "(use `arg` lines for its arguments)", kv->line);
		return -1;
	}
	if (kv->value[0] == '\0') {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: command: empty (name "
		                  "the program, e.g. /usr/local/bin/answer)",
		                  kv->line);
		return -1;
	}
	if (kv->value[0] == '/')
		n = snprintf(path, sizeof(path), "%s", kv->value);
	else
		n = snprintf(path, sizeof(path), "%s/%s", args->config_dir,
		             kv->value);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: command: path too long",
		                  kv->line);
		return -1;
	}
	if (stat(path, &st) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: command: %s: %s (give "
		                  "an absolute path, or one relative to the config "
		                  "file's directory; PATH is not searched)",
		                  kv->line, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: command: %s is not an "
		                  "executable file", kv->line, path);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: command: %s is writable "
		                  "by group or others (chmod go-w it)", kv->line,
		                  path);
		return -1;
	}
	e->argv[0] = strdup(path);
	if (e->argv[0] == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void *exec_open(const struct warden_open_args *args, char *err,
                       size_t errlen)
{
	struct exec *e = calloc(1, sizeof(*e));
	size_t i;

	if (e == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	e->argc = 1;    /* argv[0] is set by `command` */
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "command") == 0) {
			if (set_command(e, args, kv, err, errlen) < 0)
				goto fail;
		} else if (strcmp(kv->key, "arg") == 0) {
			if (e->argc == EXEC_MAX_ARGS + 1) {
				WARDEN_PLUGIN_ERR(err, errlen, "line %u: arg: more "
				                  "than %d arguments", kv->line,
				                  EXEC_MAX_ARGS);
				goto fail;
			}
			e->argv[e->argc] = strdup(kv->value);
			if (e->argv[e->argc++] == NULL) {
				WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
				goto fail;
			}
		} else {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: unknown key '%s' "
			                  "(exec knows: command, arg)", kv->line,
			                  kv->key);
			goto fail;
		}
	}
	if (e->argv[0] == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "[answerer %s]: no `command` (the "
		                  "program that answers, e.g. command = "
		                  "/usr/local/bin/answer)", args->instance);
		goto fail;
	}
	e->timeout_ms = EXEC_DEFAULT_TIMEOUT_MS;
	if (WARDEN_OPEN_ARGS_HAS(args, timeout_ms) && args->timeout_ms > 0)
		e->timeout_ms = args->timeout_ms - (args->timeout_ms / 10 < 500
		                                    ? args->timeout_ms / 10 : 500);
	e->open_max = sysconf(_SC_OPEN_MAX);
	if (e->open_max < 0 || e->open_max > 65536)
		e->open_max = 65536;
	return e;
fail:
	exec_close(e);
	return NULL;
}

/* ------------------------------------------------------------- request */

#define HAS(req, field) WARDEN_REQUEST_HAS(req, field)

/* The request as one JSON line, or NULL with a reason. */
static char *request_json(const struct warden_request *req, char *err,
                          size_t errlen)
{
	const struct {
		const char *name;
		const char *value;
	} f[] = {
		{ "session", req->session_id }, { "request_id", req->request_id },
		{ "tool", req->tool }, { "subject", req->subject },
		{ "call_id", req->call_id }, { "reason", req->reason },
		{ "mode", req->requested_mode }, { "cwd", req->cwd },
	};
	const struct {
		const char *name;
		const char *const *list;
		size_t n;
	} l[] = {
		{ "argv", HAS(req, argc) ? req->argv : NULL, HAS(req, argc) ? req->argc : 0 },
		{ "env_removed", HAS(req, env_removed) ? req->env_removed : NULL,
		  HAS(req, n_env_removed) ? req->n_env_removed : 0 },
		{ "path_dropped", HAS(req, path_dropped) ? req->path_dropped : NULL,
		  HAS(req, n_path_dropped) ? req->n_path_dropped : 0 },
		{ "env_config", HAS(req, n_env_config) ? req->env_config : NULL,
		  HAS(req, n_env_config) ? req->n_env_config : 0 },
	};
	const struct {
		const char *name;
		const char *value;
	} v11[] = {
		{ "program", HAS(req, program) ? req->program : "" },
		{ "interpreter", HAS(req, interpreter) ? req->interpreter : "" },
		{ "path", HAS(req, path) ? req->path : "" },
		{ "network", HAS(req, requested_network) ? req->requested_network : "" },
	};
	json_t *o = json_object(), *s, *a;
	char *text, *line = NULL;
	size_t i, j, n;

	if (o == NULL)
		goto oom;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		s = json_string(f[i].value != NULL ? f[i].value : "");
		if (s == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "the request's %s is not "
			                  "valid UTF-8, and JSON cannot carry it",
			                  f[i].name);
			json_decref(o);
			return NULL;
		}
		if (json_object_set_new(o, f[i].name, s) < 0) {
			json_decref(o);
			goto oom;
		}
	}
	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		if ((a = json_array()) == NULL ||
		    json_object_set_new(o, l[i].name, a) < 0) {
			json_decref(o);
			goto oom;
		}
		for (j = 0; l[i].list != NULL && j < l[i].n; j++) {
			s = json_string(l[i].list[j] != NULL ? l[i].list[j] : "");
			if (s == NULL) {
				WARDEN_PLUGIN_ERR(err, errlen, "the request's %s[%zu] is "
				                  "not valid UTF-8, and JSON cannot carry it",
				                  l[i].name, j);
				json_decref(o);
				return NULL;
			}
			if (json_array_append_new(a, s) < 0) {
				json_decref(o);
				goto oom;
			}
		}
	}
	for (i = 0; i < sizeof(v11) / sizeof(v11[0]); i++) {
		s = json_string(v11[i].value != NULL ? v11[i].value : "");
		if (s == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "the request's %s is not "
			                  "valid UTF-8, and JSON cannot carry it",
			                  v11[i].name);
			json_decref(o);
			return NULL;
		}
		if (json_object_set_new(o, v11[i].name, s) < 0) {
			json_decref(o);
			goto oom;
		}
	}
	if (json_object_set_new(o, "program_writable",
	                        json_boolean(HAS(req, program_writable) &&
	                                     req->program_writable)) < 0) {
		json_decref(o);
		goto oom;
	}
	/* v1.4: the grants offered, [{"name", "text"}, ...]. */
	if ((a = json_array()) == NULL ||
	    json_object_set_new(o, "grant_scopes", a) < 0) {
		json_decref(o);
		goto oom;
	}
	for (j = 0; HAS(req, grant_choice) && req->grant_scopes != NULL &&
	            req->grant_texts != NULL && j < req->n_grant_scopes; j++) {
		s = json_pack("{s:s,s:s}", "name", req->grant_scopes[j],
		              "text", req->grant_texts[j]);
		if (s == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "the request's grant scope %zu "
			                  "is not valid UTF-8, and JSON cannot carry it", j);
			json_decref(o);
			return NULL;
		}
		if (json_array_append_new(a, s) < 0) {
			json_decref(o);
			goto oom;
		}
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL)
		goto oom;
	n = strlen(text);
	line = malloc(n + 2);
	if (line != NULL) {
		memcpy(line, text, n);
		line[n] = '\n';
		line[n + 1] = '\0';
	}
	free(text);
	if (line == NULL)
		goto oom;
	return line;
oom:
	WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
	return NULL;
}

/* ---------------------------------------------------------------- child */

/* A descriptor at 3 or above (so that the dup2s onto 0-2 cannot clobber
 * it), or -1.  Async-signal-safe. */
static int high_fd(int fd, int cmd)
{
	return fd >= 3 ? fd : fcntl(fd, cmd, 3);
}

/* After fork(): only async-signal-safe calls.  Never returns. */
static void child_run(const struct exec *e, pid_t parent, int in, int out,
                      int ep)
{
	struct sigaction sa;
	sigset_t none;
	int sig, fd, saved;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setpgid(0, 0);
#ifdef __linux__
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		goto fail;
#endif

	ep = high_fd(ep, F_DUPFD_CLOEXEC);
	in = high_fd(in, F_DUPFD);
	out = high_fd(out, F_DUPFD);
	if (ep < 0 || in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0)
		goto fail;
	if (fcntl(2, F_GETFD) < 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || (fd != 2 && dup2(fd, 2) < 0))
			goto fail;
	}
	/* Nothing but 0-2 (and the close-on-exec error pipe) reaches exec. */
	fd = -1;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, (unsigned)ep - 1U, 0U) == 0 &&
	    syscall(SYS_close_range, (unsigned)ep + 1U, ~0U, 0U) == 0)
		fd = 0;
#endif
	if (fd < 0)
		for (fd = 3; fd < e->open_max; fd++)
			if (fd != ep)
				(void)close(fd);
	(void)fcntl(0, F_SETFD, 0);
	(void)fcntl(1, F_SETFD, 0);
	(void)fcntl(2, F_SETFD, 0);
	execve(e->argv[0], e->argv, exec_env);
fail:
	saved = errno;
	if (ep >= 0)
		(void)!write(ep, &saved, sizeof(saved));
	_exit(127);
}

/* ------------------------------------------------------------- decide */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What one run produced. */
struct run {
	char head[EXEC_REPLY_LINE_MAX + 2];  /* the start of stdout */
	size_t head_len;
	size_t total;                        /* every stdout byte read */
	int out_eof;
	int failed;                          /* the reason is in err */
};

/* Read what stdout has now.  Sets r->failed on too much output. */
static void read_out(struct run *r, int fd, char *err, size_t errlen)
{
	char buf[4096];
	ssize_t got;
	size_t take;

	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return;         /* EAGAIN: nothing more for now */
		if (got == 0) {
			r->out_eof = 1;
			return;
		}
		take = sizeof(r->head) - r->head_len;
		if (take > (size_t)got)
			take = (size_t)got;
		memcpy(r->head + r->head_len, buf, take);
		r->head_len += take;
		r->total += (size_t)got;
		if (r->total > EXEC_OUTPUT_MAX) {
			WARDEN_PLUGIN_ERR(err, errlen, "it wrote more than %d "
			                  "bytes to stdout", EXEC_OUTPUT_MAX);
			r->failed = 1;
			return;
		}
		if (r->head_len == sizeof(r->head) &&
		    memchr(r->head, '\n', r->head_len) == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "the first line of its "
			                  "output is longer than %d bytes",
			                  EXEC_REPLY_LINE_MAX);
			r->failed = 1;
			return;
		}
	}
}

/* Whether pid has ended, without reaping it (so that its process group
 * id cannot be reused before the group is killed). */
static int has_ended(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

/* Feed the request, collect stdout, until the program ends, fails or
 * the deadline passes.  The caller kills and reaps. */
static void supervise(const struct exec *e, pid_t pid, int in, int out,
                      const char *json, struct run *r, char *err,
                      size_t errlen)
{
	size_t json_len = strlen(json), sent = 0;
	long deadline = now_ms() + e->timeout_ms, left;
	struct pollfd pfd[2];
	ssize_t n;
	nfds_t k;

	for (;;) {
		if (has_ended(pid)) {
			if (!r->out_eof)
				read_out(r, out, err, errlen);
			return;
		}
		left = deadline - now_ms();
		if (left <= 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "no answer within %ld ms "
			                  "(killed)", e->timeout_ms);
			r->failed = 1;
			return;
		}
		k = 0;
		if (!r->out_eof) {
			pfd[k].fd = out;
			pfd[k++].events = POLLIN;
		}
		if (in >= 0) {
			pfd[k].fd = in;
			pfd[k++].events = POLLOUT;
		}
		/* Its exit is not a descriptor event: look again each tick. */
		if (poll(pfd, k, left < EXEC_TICK_MS ? (int)left : EXEC_TICK_MS) < 0 &&
		    errno != EINTR) {
			WARDEN_PLUGIN_ERR(err, errlen, "poll: %s", strerror(errno));
			r->failed = 1;
			return;
		}
		if (in >= 0) {
			n = send(in, json + sent, json_len - sent,
			         MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0)
				sent += (size_t)n;
			/* Done, or it closed stdin unread (EPIPE): its choice. */
			if (sent == json_len ||
			    (n < 0 && errno != EAGAIN && errno != EINTR)) {
				(void)shutdown(in, SHUT_WR);
				in = -1;
			}
		}
		if (!r->out_eof) {
			read_out(r, out, err, errlen);
			if (r->failed)
				return;
		}
	}
}

static int exec_decide(void *state, const struct warden_request *req,
                       char *err, size_t errlen)
{
	struct exec *e = state;
	struct run *r = NULL;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int status, child_errno, decision = WARDEN_DECISION_ERROR;
	char *json;
	ssize_t n;
	pid_t pid, parent;

	json = request_json(req, err, errlen);
	if (json == NULL)
		return WARDEN_DECISION_ERROR;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0 ||
	    pipe2(out, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "cannot make pipes: %s",
		                  strerror(errno));
		goto out;
	}
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_run(e, parent, in[1], out[1], ep[1]);
	(void)setpgid(pid, pid);        /* no race with the child's own */
	close(in[1]);
	close(out[1]);
	close(ep[1]);
	in[1] = out[1] = ep[1] = -1;

	/* The error pipe closes at exec; bytes on it mean exec failed. */
	do
		n = read(ep[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(child_errno)) {
		WARDEN_PLUGIN_ERR(err, errlen, "cannot run %s: %s", e->argv[0],
		                  strerror(child_errno));
		r->failed = 1;
	} else {
		(void)fcntl(out[0], F_SETFL, O_NONBLOCK);
		supervise(e, pid, in[0], out[0], json, r, err, errlen);
	}

	/* Whatever happened, nothing of the run outlives the request. */
	(void)kill(-pid, SIGKILL);
	while ((n = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r->failed)
		goto out;
	if (n < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "cannot collect the exit status "
		                  "of %s: %s (is SIGCHLD ignored?)", e->argv[0],
		                  strerror(errno));
		goto out;
	}
	if (WIFSIGNALED(status)) {
		WARDEN_PLUGIN_ERR(err, errlen, "%s was killed by signal %d",
		                  e->argv[0], WTERMSIG(status));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "%s exited with status %d",
		                  e->argv[0], WEXITSTATUS(status));
		goto out;
	}
	if (HAS(req, grant_choice) && req->n_grant_scopes > 0 && req->grant_choice != NULL)
		decision = exec_reply_parse_scoped(r->head, r->head_len, req->grant_scopes,
		                                   req->n_grant_scopes, req->grant_choice,
		                                   err, errlen);
	else
		decision = exec_reply_parse_scoped(r->head, r->head_len, NULL, 0, NULL,
		                                   err, errlen);
out:
	if (in[0] >= 0)
		close(in[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (ep[0] >= 0)
		close(ep[0]);
	if (ep[1] >= 0)
		close(ep[1]);
	free(r);
	free(json);
	return decision;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "exec",
	.version = PACKAGE_VERSION,
	.description = "asks an external program; the request as JSON on its stdin",
	.open = exec_open,
	.close = exec_close,
	.decide = exec_decide,
};
