/*
 * server.c — the JSON-RPC connection and its runs; see server.h.
 *
 * The serve loop poll()s the client's input and, for every run, its
 * worker's control socket (one JSON object per line: notice, ask, result,
 * disproved) and its stdout and stderr pipes.  A run is over when the
 * control socket and both pipes reached end of file; its worker is then
 * reaped and done() called.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <warden/plugin.h>

#include "approval.h"
#include "run.h"
#include "sandbox.h"
#include "server.h"
#include "vocab.h"
#include "wjson.h"

/* The most bytes read from one descriptor per turn of the loop, so that
 * one busy run cannot starve the others or the client. */
#define READ_CHUNK (64 * 1024)
/* The longest line a worker sends (a report, an ask). */
#define WORKER_LINE_MAX (8L * 1024 * 1024)

struct buf {
	char *p;
	size_t len, cap;
};

struct pending {                /* a request of ours, waiting for a reply */
	long long id;
	long long deadline;         /* ms, 0: none */
	warden_server_reply_fn fn;
	void *arg;
	unsigned long ask;          /* the ask it puts to the client, 0: none */
	struct pending *next;
};

struct run {
	json_t *key;
	pid_t pid;                  /* the worker, 0 once reaped */
	int ctl;                    /* control socket, -1 at EOF */
	int out, err;               /* the command's stdout/stderr, -1 at EOF */
	struct buf line;            /* the control socket's partial line */
	const struct warden_server_run_ops *ops;
	void *arg;
	json_t *result;             /* the result frame, once it came */
	int cancelled;
	long long kill_at;          /* ms: SIGKILL the worker, 0: not yet */
	long long next_tick;        /* ms: call ops->tick, 0: none */
	unsigned long ask;          /* the open ask, 0: none */
	int job;                    /* a job's worker: never reused */
	struct run *next;
};

struct warden_server {
	int in_fd, out_fd;
	const struct warden_server_method *methods;
	void *ud;
	struct warden_consumer *consumer;
	int *close_fds;
	size_t n_close_fds;
	int cancel_at_eof;
	struct buf in;              /* the client's partial line */
	int in_eof;
	int broken;                 /* the client cannot be written to */
	int stop;
	long long next_id;          /* our requests' ids */
	unsigned long next_ask;
	struct pending *pending;
	struct run *runs;
	size_t n_runs;
	struct run *idle;           /* run workers waiting for the next run */
	size_t n_idle;
};

/* The most run workers kept waiting for a run. */
#define IDLE_MAX 4

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int buf_add(struct buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((q = realloc(b->p, cap)) == NULL)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static void buf_drop(struct buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
	if (b->p != NULL)
		b->p[b->len] = '\0';
}

/* Writes all of p, whatever EINTR and EAGAIN say; 0 or -1. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { fd, POLLOUT, 0 };

			poll(&pf, 1, -1);
			continue;
		}
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One message, one line.  Takes msg over. */
static int send_msg(struct warden_server *srv, json_t *msg)
{
	char *text;
	size_t n;
	int r;

	if (msg == NULL || srv->broken) {
		json_decref(msg);
		return -1;
	}
	text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(msg);
	if (text == NULL)
		return -1;
	n = strlen(text);
	text[n] = '\n';  /* json_dumps leaves room for its NUL: reuse it */
	r = write_all(srv->out_fd, text, n + 1);
	free(text);
	if (r < 0) {
		srv->broken = 1;
		srv->stop = 1;
	}
	return r;
}

int warden_server_result(struct warden_server *srv, json_t *id, json_t *result)
{
	return send_msg(srv, json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0",
	                               "id", id != NULL ? id : json_null(),
	                               "result", result != NULL ? result : json_null()));
}

int warden_server_error(struct warden_server *srv, json_t *id, int code,
                        const char *message, json_t *data)
{
	json_t *e = json_pack("{s:i,s:o}", "code", code, "message",
	                      warden_json_string_lossy(message));

	if (e != NULL && data != NULL)
		json_object_set(e, "data", data);
	json_decref(data);
	return send_msg(srv, json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0",
	                               "id", id != NULL ? id : json_null(),
	                               "error", e));
}

int warden_server_notify(struct warden_server *srv, const char *method,
                         json_t *params)
{
	json_t *m = json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", method);

	if (m != NULL && params != NULL)
		json_object_set(m, "params", params);
	json_decref(params);
	return send_msg(srv, m);
}

static int request(struct warden_server *srv, const char *method,
                   json_t *params, long timeout_ms, unsigned long ask,
                   warden_server_reply_fn fn, void *arg)
{
	struct pending *p = calloc(1, sizeof(*p));
	json_t *m;

	if (p == NULL) {
		json_decref(params);
		return -1;
	}
	p->id = ++srv->next_id;
	p->deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	p->fn = fn;
	p->arg = arg;
	p->ask = ask;
	m = json_pack("{s:s,s:I,s:s}", "jsonrpc", "2.0", "id", (json_int_t)p->id,
	              "method", method);
	if (m != NULL && params != NULL)
		json_object_set(m, "params", params);
	json_decref(params);
	if (send_msg(srv, m) < 0) {
		free(p);
		return -1;
	}
	p->next = srv->pending;
	srv->pending = p;
	return 0;
}

int warden_server_request(struct warden_server *srv, const char *method,
                          json_t *params, long timeout_ms,
                          warden_server_reply_fn fn, void *arg)
{
	return request(srv, method, params, timeout_ms, 0, fn, arg);
}

int warden_server_ask_request(struct warden_server *srv, unsigned long ask,
                              const char *method, json_t *params,
                              long timeout_ms, warden_server_reply_fn fn,
                              void *arg)
{
	return request(srv, method, params, timeout_ms, ask, fn, arg);
}

/* Removes and returns the pending request of that id, or NULL. */
static struct pending *pending_take(struct warden_server *srv, long long id)
{
	struct pending **pp, *p;

	for (pp = &srv->pending; (p = *pp) != NULL; pp = &p->next) {
		if (p->id == id) {
			*pp = p->next;
			return p;
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- setup */

int warden_server_new(const struct warden_server_opts *o,
                      struct warden_server **out, struct warden_error *err)
{
	struct warden_server *srv;
	int r;

	*out = NULL;
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL || (o->n_close_fds > 0 &&
	    (srv->close_fds = calloc(o->n_close_fds, sizeof(int))) == NULL)) {
		free(srv);
		return warden_error_set(err, WARDEN_EOS, "serve: out of memory");
	}
	srv->in_fd = o->in_fd;
	srv->out_fd = o->out_fd;
	srv->methods = o->methods;
	srv->ud = o->ud;
	srv->consumer = o->consumer;
	if (o->n_close_fds > 0)
		memcpy(srv->close_fds, o->close_fds, o->n_close_fds * sizeof(int));
	srv->n_close_fds = o->n_close_fds;
	srv->cancel_at_eof = o->cancel_at_eof;
	/* Backends opened here, once: every worker inherits them. */
	if (srv->consumer != NULL &&
	    (r = warden_consumer_prepare(srv->consumer, err)) < 0) {
		free(srv->close_fds);
		free(srv);
		return r;
	}
	*out = srv;
	return 0;
}

void warden_server_stop(struct warden_server *srv)
{
	srv->stop = 1;
}

size_t warden_server_runs(const struct warden_server *srv)
{
	return srv->n_runs;
}

/* --------------------------------------------------------------- worker */

/* The worker's side of the control socket. */
static int worker_ctl = -1;
/* A job's answer (warden_server_job_answer), sent with its result. */
static json_t *worker_answer;

void warden_server_job_answer(json_t *answer)
{
	json_decref(worker_answer);
	worker_answer = answer;
}

/* Raised by a job worker's SIGTERM (a cancel). */
static volatile sig_atomic_t job_cancel_flag;

static void on_job_cancel(int sig)
{
	(void)sig;
	job_cancel_flag = 1;
}

const volatile sig_atomic_t *warden_server_job_cancel(void)
{
	return &job_cancel_flag;
}

static int worker_send(json_t *msg)
{
	char *text;
	size_t n;
	int r;

	if (msg == NULL)
		return -1;
	text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(msg);
	if (text == NULL)
		return -1;
	n = strlen(text);
	text[n] = '\n';
	r = write_all(worker_ctl, text, n + 1);
	free(text);
	return r;
}

static void worker_notice(void *arg, const char *line)
{
	(void)arg;
	worker_send(json_pack("{s:s,s:o}", "t", "notice", "line",
	                      warden_json_string_lossy(line)));
}

static json_t *str_or_null(const char *s)
{
	json_t *v;

	if (s == NULL || s[0] == '\0')
		return json_null();
	v = warden_json_string_lossy(s);
	return v != NULL ? v : json_null();
}

static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, str_or_null(v[i]));
	return a != NULL ? a : json_null();
}

/* The answerer's request as JSON: the fields of plugin.h's struct. */
json_t *warden_server_request_json(const struct warden_request *req)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "session_id", str_or_null(req->session_id));
	json_object_set_new(o, "request_id", str_or_null(req->request_id));
	json_object_set_new(o, "tool", str_or_null(req->tool));
	json_object_set_new(o, "subject", str_or_null(req->subject));
	json_object_set_new(o, "call_id", str_or_null(req->call_id));
	json_object_set_new(o, "reason", str_or_null(req->reason));
	json_object_set_new(o, "requested_mode", str_or_null(req->requested_mode));
	json_object_set_new(o, "requested_network",
	                    str_or_null(WARDEN_REQUEST_HAS(req, requested_network)
	                                ? req->requested_network : NULL));
	json_object_set_new(o, "cwd", str_or_null(req->cwd));
	if (WARDEN_REQUEST_HAS(req, path) && req->argc > 0) {
		json_object_set_new(o, "argv", strings_json(req->argv, req->argc));
		json_object_set_new(o, "program", str_or_null(req->program));
		json_object_set_new(o, "interpreter", str_or_null(req->interpreter));
		json_object_set_new(o, "program_writable",
		                    json_boolean(req->program_writable));
		json_object_set_new(o, "env_removed",
		                    strings_json(req->env_removed, req->n_env_removed));
		json_object_set_new(o, "path_dropped",
		                    strings_json(req->path_dropped, req->n_path_dropped));
		json_object_set_new(o, "env_config",
		                    strings_json(WARDEN_REQUEST_HAS(req, n_env_config)
		                                 ? req->env_config : NULL,
		                                 WARDEN_REQUEST_HAS(req, n_env_config)
		                                 ? req->n_env_config : 0));
		json_object_set_new(o, "path", json_string(req->path != NULL ? req->path : ""));
	}
	/* v1.4: the grants the client may give with allowed-for-session. */
	if (WARDEN_REQUEST_HAS(req, grant_choice)) {
		json_t *a = json_array();
		size_t i;

		for (i = 0; a != NULL && req->grant_scopes != NULL &&
		            req->grant_texts != NULL && i < req->n_grant_scopes; i++)
			json_array_append_new(a, json_pack("{s:o,s:o}",
			                                   "name", str_or_null(req->grant_scopes[i]),
			                                   "text", str_or_null(req->grant_texts[i])));
		json_object_set_new(o, "grant_scopes", a != NULL ? a : json_null());
	}
	return o;
}

/* Reads one line from the control socket (blocking); a new string or
 * NULL at EOF or error.  What came after the line waits in `ahead`: the
 * worker's main thread (between runs) and the client answerer's thread
 * (during one) never read at the same time. */
static char *worker_read_line(void)
{
	static struct buf ahead;
	char chunk[4096], *nl, *line;

	for (;;) {
		ssize_t n;

		if (ahead.len > 0 && (nl = memchr(ahead.p, '\n', ahead.len)) != NULL) {
			size_t k = (size_t)(nl - ahead.p);

			if ((line = malloc(k + 1)) == NULL)
				return NULL;
			memcpy(line, ahead.p, k);
			line[k] = '\0';
			buf_drop(&ahead, k + 1);
			return line;
		}
		if (ahead.len > WORKER_LINE_MAX)
			return NULL;
		n = read(worker_ctl, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || buf_add(&ahead, chunk, (size_t)n) < 0)
			return NULL;
	}
}

/* The client answerer, in the worker: asks the server, waits for its
 * answer ({"t":"answer","decision":N,"reason":S}). */
static int worker_client_decide(void *ud, const struct warden_request *req,
                                long timeout_ms, char *err, size_t errlen)
{
	json_t *msg, *a;
	char *line;
	int d = WARDEN_DECISION_ERROR;
	const char *reason;

	(void)ud;
	if (worker_send(json_pack("{s:s,s:o,s:I}", "t", "ask", "request",
	                          warden_server_request_json(req), "timeout_ms",
	                          (json_int_t)timeout_ms)) < 0) {
		snprintf(err, errlen, "the server cannot be asked");
		return WARDEN_DECISION_ERROR;
	}
	line = worker_read_line();
	if (line == NULL) {
		snprintf(err, errlen, "the server did not answer");
		return WARDEN_DECISION_ERROR;
	}
	msg = json_loads(line, 0, NULL);
	free(line);
	if (msg == NULL || json_unpack(msg, "{s:i}", "decision", &d) < 0) {
		json_decref(msg);
		snprintf(err, errlen, "the server's answer is malformed");
		return WARDEN_DECISION_ERROR;
	}
	a = json_object_get(msg, "reason");
	reason = json_is_string(a) ? json_string_value(a) : NULL;
	if (reason != NULL && reason[0] != '\0')
		snprintf(err, errlen, "%s", reason);
	a = json_object_get(msg, "scope");
	if (d == WARDEN_DECISION_ALLOWED_FOR_SESSION && json_is_string(a)) {
		size_t i;

		for (i = 0; i < req->n_grant_scopes; i++)
			if (strcmp(req->grant_scopes[i], json_string_value(a)) == 0)
				break;
		if (i == req->n_grant_scopes) {
			snprintf(err, errlen, "the client granted scope '%.100s', which the "
			         "request does not offer", json_string_value(a));
			d = WARDEN_DECISION_ERROR;
		} else {
			*req->grant_choice = i;
		}
	}
	json_decref(msg);
	return d;
}

#define WORKER_ARGV_MAX 4096

static void worker_report(int r, const struct warden_run_report *rep,
                          const struct warden_error *err);

/* Strings travel to a worker as hex: any bytes, whatever UTF-8 says. */
static json_t *hex_json(const char *p)
{
	size_t n = strlen(p), i;
	char *h = malloc(n * 2 + 1);
	json_t *v;

	if (h == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		sprintf(h + i * 2, "%02x", (unsigned char)p[i]);
	h[n * 2] = '\0';
	v = json_string(h);
	free(h);
	return v;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The string a hex_json() value holds (a new string), NULL when absent;
 * *bad set when it is not hex or out of memory. */
static char *unhex(json_t *v, int *bad)
{
	const char *h = json_string_value(v);
	size_t n, i;
	char *p;

	if (v == NULL || json_is_null(v))
		return NULL;
	if (h == NULL || (n = strlen(h)) % 2 != 0 || (p = malloc(n / 2 + 1)) == NULL) {
		*bad = 1;
		return NULL;
	}
	for (i = 0; i < n / 2; i++) {
		int a = hexval(h[i * 2]), b = hexval(h[i * 2 + 1]);

		if (a < 0 || b < 0 || (a == 0 && b == 0)) {
			free(p);
			*bad = 1;
			return NULL;
		}
		p[i] = (char)(a * 16 + b);
	}
	p[n / 2] = '\0';
	return p;
}

/* A run request as the worker gets it. */
static json_t *request_to_json(const struct warden_run_request *req)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	if (o == NULL || a == NULL) {
		json_decref(o);
		json_decref(a);
		return NULL;
	}
	for (i = 0; req->argv != NULL && i < req->argc; i++)
		if (json_array_append_new(a, hex_json(req->argv[i])) < 0)
			break;
	json_object_set_new(o, "argv", a);
	if (req->argv != NULL && json_array_size(a) != req->argc) {
		json_decref(o);
		return NULL;
	}
#define S(f) if (req->f != NULL && json_object_set_new(o, #f, hex_json(req->f)) < 0) { \
		json_decref(o); \
		return NULL; \
	}
	S(session_id);
	S(command);
	S(justification);
	S(cwd);
	S(call_id);
	S(stdin_text);
#undef S
	json_object_set_new(o, "timeout_ms", json_integer(req->timeout_ms));
	json_object_set_new(o, "require_full", json_integer(req->require_full));
	json_object_set_new(o, "escalate", json_integer(req->escalate));
	json_object_set_new(o, "escalate_network", json_integer(req->escalate_network));
	json_object_set_new(o, "pipe_stdout", json_integer(req->pipe_stdout));
	json_object_set_new(o, "cwd_from_root", json_integer(req->cwd_from_root));
	return o;
}

/* Fills req from o; its strings (argv[], and the five in strs[]) are new
 * ones, freed by request_free(). */
static int request_from_json(json_t *o, struct warden_run_request *req,
                             char **argv, char **strs)
{
	json_t *a = json_object_get(o, "argv"), *v;
	size_t i;
	int bad = 0;

	memset(req, 0, sizeof(*req));
	argv[0] = NULL;
	if (!json_is_object(o) || !json_is_array(a) || json_array_size(a) > WORKER_ARGV_MAX)
		return -1;
	json_array_foreach(a, i, v) {
		argv[i] = unhex(v, &bad);
		argv[i + 1] = NULL;
		if (bad || argv[i] == NULL)
			return -1;
	}
	req->argv = json_array_size(a) > 0 ? (const char *const *)argv : NULL;
	req->argc = json_array_size(a);
	req->session_id = strs[0] = unhex(json_object_get(o, "session_id"), &bad);
	req->command = strs[1] = unhex(json_object_get(o, "command"), &bad);
	req->justification = strs[2] = unhex(json_object_get(o, "justification"), &bad);
	req->cwd = strs[3] = unhex(json_object_get(o, "cwd"), &bad);
	req->call_id = strs[4] = unhex(json_object_get(o, "call_id"), &bad);
	req->stdin_text = strs[5] = unhex(json_object_get(o, "stdin_text"), &bad);
	if (bad)
		return -1;
	req->timeout_ms = (long)json_integer_value(json_object_get(o, "timeout_ms"));
	req->require_full = (int)json_integer_value(json_object_get(o, "require_full"));
	req->escalate = (int)json_integer_value(json_object_get(o, "escalate"));
	req->escalate_network = (int)json_integer_value(json_object_get(o, "escalate_network"));
	req->pipe_stdout = (int)json_integer_value(json_object_get(o, "pipe_stdout"));
	req->cwd_from_root = (int)json_integer_value(json_object_get(o, "cwd_from_root"));
	req->notice = worker_notice;
	return 0;
}

static void request_free(char **argv, char **strs)
{
	size_t i;

	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	for (i = 0; i < 6; i++)
		free(strs[i]);
}

/* The worker's stdin, which the command gets: a sealed in-memory file
 * holding text, read from its start, or /dev/null (text NULL).  0, or -1
 * with errno. */
static int worker_stdin(const char *text)
{
	size_t len = text != NULL ? strlen(text) : 0, done = 0;
	ssize_t n;
	int fd;

	if (text == NULL)
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	else
		fd = memfd_create("warden-stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	while (done < len) {
		n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (text != NULL &&
	    (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	     lseek(fd, 0, SEEK_SET) < 0))
		goto fail;
	if (dup2(fd, 0) < 0)
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

/* Never returns. */
static void worker_main(struct warden_server *srv,
                        int (*job)(void *), void *job_arg,
                        int ctl, int out, int errfd, pid_t server)
{
	struct warden_run_request req;
	struct warden_run_report rep;
	struct warden_error err = { 0, "" };
	struct sigaction sa;
	struct run *x;
	size_t i;
	int devnull, r;

	/* The worker goes with the server (a job at once: it catches
	 * SIGTERM, below). */
	prctl(PR_SET_PDEATHSIG, job != NULL ? SIGKILL : SIGTERM);
	if (getppid() != server)
		_exit(WARDEN_EOS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	if (job != NULL) {
		/* A cancel raises a flag, that the job looks at before it
		 * writes: a write is never cut off from its answer.  No
		 * SA_RESTART: a wait it interrupts ends with EINTR.  SIGTERM
		 * was blocked since the fork: one that came is taken now. */
		sigset_t term;

		sa.sa_handler = on_job_cancel;
		sigaction(SIGTERM, &sa, NULL);
		sa.sa_handler = SIG_DFL;
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_UNBLOCK, &term, NULL);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);

	/* Nothing of the server's: not the client, not the other runs. */
	for (x = srv->runs; x != NULL; x = x->next) {
		if (x->ctl >= 0)
			close(x->ctl);
		if (x->out >= 0)
			close(x->out);
		if (x->err >= 0)
			close(x->err);
	}
	for (x = srv->idle; x != NULL; x = x->next) {
		close(x->ctl);
		close(x->out);
		close(x->err);
	}
	for (i = 0; i < srv->n_close_fds; i++)
		close(srv->close_fds[i]);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(errfd, 2) < 0)
		_exit(WARDEN_EOS);
	if (srv->in_fd > 2)
		close(srv->in_fd);
	if (srv->out_fd > 2)
		close(srv->out_fd);
	close(devnull);
	if (out > 2)
		close(out);
	if (errfd > 2)
		close(errfd);
	if (ctl <= 2) {
		int c = fcntl(ctl, F_DUPFD_CLOEXEC, 3);

		if (c < 0)
			_exit(WARDEN_EOS);
		ctl = c;
	}
	worker_ctl = ctl;
	fcntl(ctl, F_SETFL, fcntl(ctl, F_GETFL) & ~O_NONBLOCK);

	warden_approval_set_client(worker_client_decide, NULL);
	if (job != NULL) {
		json_t *msg;

		r = job(job_arg);
		fflush(NULL);
		msg = json_pack("{s:s,s:i,s:i}", "t", "result", "r", 0, "status", r);
		if (msg != NULL && worker_answer != NULL &&
		    json_object_set_new(msg, "answer", worker_answer) < 0) {
			/* An answer that cannot travel is no answer: the
			 * server says the call's worker failed. */
			json_decref(msg);
			msg = NULL;
		}
		worker_answer = NULL;
		if (msg != NULL)
			worker_send(msg);
		_exit(0);
	}
	/* Runs, one after the other, each from a "run" line. */
	for (;;) {
		char *line = worker_read_line();
		json_t *m = line != NULL ? json_loads(line, 0, NULL) : NULL;
		static char *argv[WORKER_ARGV_MAX + 2];
		char *strs[6] = { NULL, NULL, NULL, NULL, NULL, NULL };

		free(line);
		if (m == NULL)
			_exit(0);
		if (request_from_json(json_object_get(m, "req"), &req, argv, strs) < 0) {
			request_free(argv, strs);
			json_decref(m);
			_exit(WARDEN_EINTERNAL);
		}
		json_decref(m);
		memset(&rep, 0, sizeof(rep));
		warden_error_clear(&err);
		if (worker_stdin(req.stdin_text) < 0) {
			request_free(argv, strs);
			_exit(WARDEN_EOS);
		}
		r = warden_consumer_run(srv->consumer, &req, &rep, &err);
		if (req.stdin_text != NULL && worker_stdin(NULL) < 0)
			_exit(WARDEN_EOS);
		worker_report(r, &rep, &err);
		warden_run_report_clear(&rep);
		request_free(argv, strs);
	}
}

/* Sends a run's result. */
static void worker_report(int r, const struct warden_run_report *rep,
                          const struct warden_error *err)
{
	json_t *msg;

	if (r == 0) {
		json_t *o = warden_run_report_json(rep);

		if (o != NULL) {
			json_object_set_new(o, "session", str_or_null(rep->session));
			json_object_set_new(o, "status", json_integer(rep->status));
			json_object_set_new(o, "policy", rep->policy
			                    ? json_string(warden_policy_name(rep->policy))
			                    : json_null());
		}
		if (rep->disproved[0] != '\0')
			worker_send(json_pack("{s:s,s:s,s:i}", "t", "disproved",
			                      "backend", rep->disproved, "mode",
			                      rep->disproved_mode));
		msg = o != NULL ? json_pack("{s:s,s:i,s:o}", "t", "result", "r", 0,
		                            "report", o) : NULL;
		if (msg == NULL)
			msg = json_pack("{s:s,s:i,s:i,s:s}", "t", "result", "r",
			                -WARDEN_EOS, "code", WARDEN_EOS, "message",
			                "run: out of memory while reporting the run");
	} else {
		msg = json_pack("{s:s,s:i,s:i,s:o}", "t", "result", "r", r,
		                "code", err->code ? err->code : -r, "message",
		                warden_json_string_lossy(err->msg));
	}
	/* The command's output is all in the pipes by now: it ended. */
	fflush(NULL);
	worker_send(msg);
}

/* ----------------------------------------------------------------- runs */

static struct run *run_find(struct warden_server *srv, json_t *key)
{
	struct run *x;

	for (x = srv->runs; x != NULL; x = x->next)
		if (key != NULL && json_equal(x->key, key))
			return x;
	return NULL;
}

int warden_server_busy(struct warden_server *srv, json_t *key)
{
	return run_find(srv, key) != NULL;
}

static int start_worker(struct warden_server *srv, json_t *key,
                        const struct warden_run_request *req,
                        int (*job)(void *), void *job_arg,
                        const struct warden_server_run_ops *ops, void *arg,
                        struct warden_error *err);

/* Ends a worker that is on no list: closes its channels (it ends at EOF
 * on its control socket) and reaps it. */
static void worker_discard(struct run *x)
{
	if (x->ctl >= 0)
		close(x->ctl);
	if (x->out >= 0)
		close(x->out);
	if (x->err >= 0)
		close(x->err);
	if (x->pid > 0) {
		kill(x->pid, SIGTERM);
		while (waitpid(x->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	json_decref(x->result);
	json_decref(x->key);
	free(x->line.p);
	free(x);
}

/* Ends every waiting worker (their inherited state is stale). */
static void idle_discard(struct warden_server *srv)
{
	while (srv->idle != NULL) {
		struct run *x = srv->idle;

		srv->idle = x->next;
		srv->n_idle--;
		worker_discard(x);
	}
}

int warden_server_run(struct warden_server *srv, json_t *key,
                      const struct warden_run_request *req,
                      const struct warden_server_run_ops *ops, void *arg,
                      struct warden_error *err)
{
	if (srv->consumer == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "serve: no consumer for runs");
	return start_worker(srv, key, req, NULL, NULL, ops, arg, err);
}

int warden_server_job(struct warden_server *srv, json_t *key,
                      int (*fn)(void *), void *fn_arg,
                      const struct warden_server_run_ops *ops, void *arg,
                      struct warden_error *err)
{
	return start_worker(srv, key, NULL, fn, fn_arg, ops, arg, err);
}

static int start_worker(struct warden_server *srv, json_t *key,
                        const struct warden_run_request *req,
                        int (*job)(void *), void *job_arg,
                        const struct warden_server_run_ops *ops, void *arg,
                        struct warden_error *err)
{
	int ctl[2] = { -1, -1 }, out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	struct run *x;
	sigset_t term, old_mask;
	pid_t pid, self = getpid();

	/* A job is a call, not a run: its words say so. */
	const char *what = job != NULL ? "this call" : "run";

	if (key != NULL && run_find(srv, key) != NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "%s: a call with that id is still going on", what);
	if (key != NULL && job == NULL) {
		/* A run: a waiting worker takes it, else a new one. */
		json_t *m = request_to_json(req);
		json_t *frame = m != NULL ? json_pack("{s:s,s:o}", "t", "run", "req", m) : NULL;
		char *text = frame != NULL ? json_dumps(frame, JSON_COMPACT) : NULL;

		json_decref(frame);
		if (text == NULL)
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		if (strlen(text) + 1 > (size_t)WORKER_LINE_MAX) {
			free(text);
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "run: the request is too large for a worker (command, argv and stdin together, encoded, over %ld MiB)",
			                        WORKER_LINE_MAX / (1024 * 1024));
		}
		for (;;) {
			int fresh = 0;

			x = srv->idle;
			if (x != NULL) {
				srv->idle = x->next;
				srv->n_idle--;
			} else if (start_worker(srv, NULL, NULL, NULL, NULL, NULL, NULL, err) < 0) {
				free(text);
				return -err->code;
			} else {
				x = srv->idle;
				srv->idle = x->next;
				srv->n_idle--;
				fresh = 1;
			}
			if (write_all(x->ctl, text, strlen(text)) == 0 &&
			    write_all(x->ctl, "\n", 1) == 0)
				break;
			/* That worker is gone: reaped, and the next one; but a
			 * worker just started that cannot take the request will
			 * not be the last to fail. */
			worker_discard(x);
			if (fresh) {
				free(text);
				return warden_error_set(err, WARDEN_EOS,
				                        "run: a new worker could not take the request");
			}
		}
		free(text);
		x->key = json_incref(key);
		x->ops = ops;
		x->arg = arg;
		x->next_tick = ops->tick != NULL ? now_ms() + WARDEN_SERVER_TICK_MS : 0;
		x->next = srv->runs;
		srv->runs = x;
		srv->n_runs++;
		return 0;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return warden_error_set(err, WARDEN_EOS, "%s: out of memory", what);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) < 0 ||
	    pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		warden_error_errno(err, WARDEN_EOS, errno, "%s: cannot make the worker's channels", what);
		goto fail;
	}
	/* A job's cancel may come before its worker catches SIGTERM: until
	 * then the signal waits (worker_main unblocks it). */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (job != NULL)
		sigprocmask(SIG_BLOCK, &term, &old_mask);
	pid = fork();
	if (job != NULL && pid != 0)
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (pid < 0) {
		warden_error_errno(err, WARDEN_EOS, errno, "%s: cannot start a worker", what);
		goto fail;
	}
	if (pid == 0) {
		close(ctl[0]);
		close(out[0]);
		close(errp[0]);
		worker_main(srv, job, job_arg, ctl[1], out[1], errp[1], self);
	}
	close(ctl[1]);
	close(out[1]);
	close(errp[1]);
	fcntl(ctl[0], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	x->pid = pid;
	x->ctl = ctl[0];
	x->out = out[0];
	x->err = errp[0];
	if (key == NULL) {
		/* A run worker, waiting for its first run. */
		x->next = srv->idle;
		srv->idle = x;
		srv->n_idle++;
		return 0;
	}
	x->key = json_incref(key);
	x->job = 1;
	x->ops = ops;
	x->arg = arg;
	x->next_tick = ops->tick != NULL ? now_ms() + WARDEN_SERVER_TICK_MS : 0;
	x->next = srv->runs;
	srv->runs = x;
	srv->n_runs++;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	free(x);
	return -err->code;
}

/* The open ask of x is void (why: one line): the client's request for
 * it is withdrawn (ops->withdraw, with the id it was sent under) and
 * settled as unanswered; an answer that comes after this is discarded
 * (warden_server_answer finds no such ask). */
static void ask_void(struct warden_server *srv, struct run *x, const char *why)
{
	struct pending **pp, *p;
	unsigned long ask = x->ask;

	if (ask == 0)
		return;
	x->ask = 0;
	for (pp = &srv->pending; (p = *pp) != NULL; pp = &p->next) {
		if (p->ask != ask)
			continue;
		*pp = p->next;
		if (x->ops != NULL && x->ops->withdraw != NULL && !srv->broken)
			x->ops->withdraw(srv, x->arg, json_integer((json_int_t)p->id), why);
		p->fn(srv, p->arg, NULL, NULL);
		free(p);
		return;
	}
}

static void run_cancel(struct warden_server *srv, struct run *x)
{
	/* A job that has answered has done what it does: its answer
	 * stands, and it ends on its own. */
	if (x->cancelled || x->pid <= 0 || (x->job && x->result != NULL))
		return;
	x->cancelled = 1;
	ask_void(srv, x, srv->in_eof ? "the client went away" : "the run was cancelled");
	kill(x->pid, SIGTERM);
	x->kill_at = now_ms() + WARDEN_SERVER_KILL_MS;
}

int warden_server_cancel(struct warden_server *srv, json_t *key)
{
	struct run *x = run_find(srv, key);

	if (x == NULL || x->cancelled)
		return -1;
	run_cancel(srv, x);
	return 0;
}

static int send_answer(struct run *x, int decision, const char *scope,
                       const char *reason)
{
	json_t *m = json_pack("{s:s,s:i,s:o,s:o}", "t", "answer", "decision", decision,
	                      "reason", str_or_null(reason), "scope", str_or_null(scope));
	char *text;
	size_t n;
	int r;

	if (m == NULL)
		return -1;
	text = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	if (text == NULL)
		return -1;
	n = strlen(text);
	text[n] = '\n';
	r = x->ctl >= 0 ? write_all(x->ctl, text, n + 1) : -1;
	free(text);
	return r;
}

int warden_server_answer(struct warden_server *srv, unsigned long ask,
                         int decision, const char *reason)
{
	return warden_server_answer_scope(srv, ask, decision, NULL, reason);
}

int warden_server_answer_scope(struct warden_server *srv, unsigned long ask,
                               int decision, const char *scope,
                               const char *reason)
{
	struct run *x;

	if (ask == 0)
		return -1;
	for (x = srv->runs; x != NULL; x = x->next) {
		if (x->ask == ask) {
			x->ask = 0;
			return send_answer(x, decision, scope, reason) < 0 ? -1 : 0;
		}
	}
	return -1;
}

/* One line from a worker. */
static void worker_line(struct warden_server *srv, struct run *x, const char *line)
{
	json_t *m = json_loads(line, 0, NULL), *v;
	const char *t = NULL;

	if (m == NULL || json_unpack(m, "{s:s}", "t", &t) < 0) {
		json_decref(m);
		return;
	}
	if (strcmp(t, "notice") == 0) {
		v = json_object_get(m, "line");
		if (x->ops->notice != NULL && json_is_string(v))
			x->ops->notice(srv, x->arg, json_string_value(v));
	} else if (strcmp(t, "ask") == 0) {
		json_int_t timeout = 0;
		json_t *req = json_object_get(m, "request");

		json_unpack(m, "{s:I}", "timeout_ms", &timeout);
		if (x->ops->ask == NULL || x->cancelled || !json_is_object(req) ||
		    srv->in_eof) {
			/* No client to ask (its input has ended, or none): the
			 * rest of the waterfall decides. */
			send_answer(x, WARDEN_DECISION_DELEGATE, NULL,
			            x->cancelled ? "the run was cancelled"
			            : x->ops->ask == NULL ? x->ops->no_ask
			            : srv->in_eof ? "the client's input has ended" : NULL);
		} else {
			x->ask = ++srv->next_ask;
			x->ops->ask(srv, x->arg, x->ask, req, (long)timeout);
		}
	} else if (strcmp(t, "disproved") == 0) {
		const char *backend;
		int mode;

		if (json_unpack(m, "{s:s,s:i}", "backend", &backend, "mode", &mode) == 0) {
			warden_consumer_disprove(srv->consumer, backend, mode);
			/* Waiting workers still believe the facts. */
			idle_discard(srv);
		}
	} else if (strcmp(t, "result") == 0 && x->result == NULL) {
		x->result = json_incref(m);
	}
	json_decref(m);
}

/* Reads what a worker's control socket has; at EOF closes it. */
static void read_ctl(struct warden_server *srv, struct run *x)
{
	char chunk[8192];
	ssize_t n = read(x->ctl, chunk, sizeof(chunk));
	char *nl;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0 || buf_add(&x->line, chunk, (size_t)n) < 0 ||
	    x->line.len > WORKER_LINE_MAX) {
		close(x->ctl);
		x->ctl = -1;
		return;
	}
	while ((nl = memchr(x->line.p, '\n', x->line.len)) != NULL) {
		*nl = '\0';
		worker_line(srv, x, x->line.p);
		buf_drop(&x->line, (size_t)(nl - x->line.p) + 1);
	}
}

/* Reads what one output pipe has: 1 (data), 0 (EOF: closed), -1 (none
 * now). */
static int read_output(struct warden_server *srv, struct run *x, int which)
{
	int *fd = which == 1 ? &x->out : &x->err;
	static char chunk[READ_CHUNK];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -1;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (x->ops != NULL && x->ops->output != NULL)
		x->ops->output(srv, x->arg, which, chunk, (size_t)n);
	return 1;
}

/* A run whose channels all ended (or, recycle, whose worker reported
 * and waits for the next run): reaped, reported, freed (or its worker
 * kept for the next run). */
static void run_finish(struct warden_server *srv, struct run *x, int recycle)
{
	struct warden_server_outcome o;
	struct run **pp;
	int status = 0;

	if (recycle) {
		/* The command ended before its worker reported: what it wrote
		 * is in the pipes, read to the last byte before done(). */
		while (x->out >= 0 && read_output(srv, x, 1) > 0)
			;
		while (x->err >= 0 && read_output(srv, x, 2) > 0)
			;
		if (x->out < 0 || x->err < 0) {
			/* Its worker went away after all: it is reaped. */
			recycle = 0;
			close(x->ctl);
			x->ctl = -1;
		}
	}
	while (!recycle && x->pid > 0 && waitpid(x->pid, &status, 0) < 0 && errno == EINTR)
		;
	memset(&o, 0, sizeof(o));
	o.cancelled = x->cancelled;
	if (x->result != NULL) {
		json_int_t r = 0, code = 0;
		const char *msg = "";

		json_unpack(x->result, "{s:I}", "r", &r);
		o.r = (int)r;
		if (o.r == 0 && json_object_get(x->result, "report") == NULL) {
			json_unpack(x->result, "{s:i}", "status", &o.status);
			o.answer = json_object_get(x->result, "answer");
		} else if (o.r == 0) {
			o.report = json_object_get(x->result, "report");
			json_unpack(o.report, "{s:i}", "status", &o.status);
		} else {
			json_unpack(x->result, "{s:I,s:s}", "code", &code, "message", &msg);
			o.status = (int)code;
			warden_error_set(&o.err, (int)code, "%s", msg);
		}
	} else {
		o.r = x->cancelled ? -WARDEN_EREFUSED : -WARDEN_EINTERNAL;
		o.status = -o.r;
		/* A job is a call, not a run: its words say so. */
		const char *what = x->job ? "this call" : "run";

		if (x->cancelled && x->job && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			/* A job answers a cancel itself; this one did not
			 * within the time it had, and was killed: whatever it
			 * wrote before stands. */
			warden_error_set(&o.err, WARDEN_EREFUSED,
			                 "this call was cancelled and had not answered %d s later, so it was stopped; a change it had made by then stands (session.show shows the session's log)",
			                 WARDEN_SERVER_KILL_MS / 1000);
		else if (x->cancelled && x->job)
			warden_error_set(&o.err, WARDEN_EREFUSED,
			                 "this call was cancelled, and its worker ended (%s) before it answered; a change it had made by then stands (session.show shows the session's log)",
			                 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "without a signal");
		else if (x->cancelled)
			warden_error_set(&o.err, WARDEN_EREFUSED,
			                 srv->in_eof && !srv->stop
			                 ? "run: cancelled before the command started: the client's input ended while this call waited for the client's approval"
			                 : "run: cancelled before the command started");
		else if (WIFSIGNALED(status))
			warden_error_set(&o.err, WARDEN_EINTERNAL,
			                 "%s: the worker died of %s before it reported",
			                 what, strsignal(WTERMSIG(status)));
		else
			warden_error_set(&o.err, WARDEN_EINTERNAL,
			                 "%s: the worker ended (status %d) before it reported",
			                 what, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	for (pp = &srv->runs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	}
	srv->n_runs--;
	ask_void(srv, x, "the run ended before the answer came");
	if (x->ops->done != NULL)
		x->ops->done(srv, x->arg, &o);
	json_decref(x->result);
	json_decref(x->key);
	x->result = x->key = NULL;
	if (recycle && srv->n_idle < IDLE_MAX && !srv->stop && !srv->in_eof) {
		x->ops = NULL;
		x->arg = NULL;
		x->ask = 0;
		x->next_tick = 0;
		x->line.len = 0;
		x->next = srv->idle;
		srv->idle = x;
		srv->n_idle++;
		return;
	}
	if (recycle) {
		worker_discard(x);
		return;
	}
	free(x->line.p);
	free(x);
}

/* --------------------------------------------------------------- client */

/* A request's id: a string or an integer.  Not null, which is the id of
 * the answer to what could not be read (and MCP forbids it), nor a
 * fraction. */
static int valid_id(json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

static void dispatch(struct warden_server *srv, json_t *m)
{
	json_t *id = json_object_get(m, "id"), *method = json_object_get(m, "method");
	json_t *params = json_object_get(m, "params"), *v;
	const struct warden_server_method *e;
	const char *name;

	if (!json_is_object(m)) {
		warden_server_error(srv, NULL, WARDEN_RPC_INVALID_REQUEST,
		                    json_is_array(m) ? "Invalid Request: batches are not supported"
		                                     : "Invalid Request: not an object", NULL);
		return;
	}
	if (method == NULL && id != NULL &&
	    ((v = json_object_get(m, "result")) != NULL ||
	     json_object_get(m, "error") != NULL)) {
		/* A reply to one of ours.  Only a JSON-RPC 2.0 response is
		 * one: jsonrpc "2.0" and exactly one of result and error.  Any
		 * other shape reaches the caller as an error, never as a
		 * result. */
		struct pending *p = json_is_integer(id)
			? pending_take(srv, (long long)json_integer_value(id)) : NULL;
		json_t *er = json_object_get(m, "error"), *bad = NULL,
		       *ver = json_object_get(m, "jsonrpc");

		if (p == NULL)
			return;
		if ((v != NULL && er != NULL) || !json_is_string(ver) ||
		    strcmp(json_string_value(ver), "2.0") != 0) {
			bad = json_pack("{s:i,s:s}", "code", WARDEN_RPC_INVALID_REQUEST,
			                "message", v != NULL && er != NULL
			                ? "a reply with both result and error"
			                : "a reply without jsonrpc \"2.0\"");
			v = NULL;
			er = bad != NULL ? bad : json_null();
		}
		p->fn(srv, p->arg, v, v != NULL ? NULL : er);
		json_decref(bad);
		free(p);
		return;
	}
	v = json_object_get(m, "jsonrpc");
	if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0 ||
	    !json_is_string(method) || (id != NULL && !valid_id(id)) ||
	    (params != NULL && !json_is_object(params) && !json_is_array(params))) {
		if (id != NULL || !json_is_string(method))
			warden_server_error(srv, id != NULL && valid_id(id) ? id : NULL,
			                    WARDEN_RPC_INVALID_REQUEST,
			                    "Invalid Request: give jsonrpc \"2.0\", a method name, an id (a string or an integer) and params (object or array)",
			                    NULL);
		return;
	}
	name = json_string_value(method);
	for (e = srv->methods; e != NULL && e->name != NULL; e++) {
		if (strcmp(e->name, name) == 0) {
			e->fn(srv, id, params, srv->ud);
			return;
		}
	}
	if (id != NULL) {
		char msg[300];

		snprintf(msg, sizeof(msg), "Method not found: %.200s", name);
		warden_server_error(srv, id, WARDEN_RPC_METHOD_NOT_FOUND, msg, NULL);
	}
}

static void client_line(struct warden_server *srv, const char *line, size_t len)
{
	json_error_t je;
	json_t *m;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
	                   line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	m = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (m == NULL) {
		char msg[300];

		snprintf(msg, sizeof(msg), "Parse error: %.200s (column %d)", je.text, je.column);
		warden_server_error(srv, NULL, WARDEN_RPC_PARSE_ERROR, msg, NULL);
		return;
	}
	dispatch(srv, m);
	json_decref(m);
}

/* Reads the client; 0, or -1 with errno on a read error. */
static int read_client(struct warden_server *srv)
{
	static char chunk[READ_CHUNK];
	ssize_t n = read(srv->in_fd, chunk, sizeof(chunk));
	size_t off = 0;
	char *nl;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n < 0) {
		srv->in_eof = 1;
		return -1;
	}
	if (n == 0) {
		srv->in_eof = 1;
		/* A last line without '\n' is still a line. */
		if (srv->in.len > 0) {
			client_line(srv, srv->in.p, srv->in.len);
			srv->in.len = 0;
		}
		return 0;
	}
	if (buf_add(&srv->in, chunk, (size_t)n) < 0) {
		errno = ENOMEM;
		srv->in_eof = 1;
		return -1;
	}
	while (!srv->stop &&
	       (nl = memchr(srv->in.p + off, '\n', srv->in.len - off)) != NULL) {
		client_line(srv, srv->in.p + off, (size_t)(nl - (srv->in.p + off)));
		off = (size_t)(nl - srv->in.p) + 1;
	}
	buf_drop(&srv->in, off);
	if (srv->in.len > (size_t)WARDEN_SERVER_LINE_MAX) {
		warden_server_error(srv, NULL, WARDEN_RPC_INVALID_REQUEST,
		                    "Invalid Request: a line longer than 16 MiB", NULL);
		srv->in_eof = 1;
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ loop */

static void expire(struct warden_server *srv, long long now)
{
	struct pending **pp = &srv->pending, *p;
	struct run *x;

	while ((p = *pp) != NULL) {
		if (p->deadline > 0 && p->deadline <= now) {
			*pp = p->next;
			/* The client's question is void: no answer in time. */
			for (x = srv->runs; p->ask != 0 && x != NULL; x = x->next)
				if (x->ask == p->ask && x->ops->withdraw != NULL &&
				    !srv->broken)
					x->ops->withdraw(srv, x->arg,
					                 json_integer((json_int_t)p->id),
					                 "no answer came in time");
			p->fn(srv, p->arg, NULL, NULL);
			free(p);
			pp = &srv->pending; /* fn may have changed the list */
			continue;
		}
		pp = &p->next;
	}
	for (x = srv->runs; x != NULL; x = x->next) {
		if (x->kill_at > 0 && x->kill_at <= now && x->pid > 0) {
			kill(x->pid, SIGKILL);
			x->kill_at = 0;
		}
		/* A heartbeat while it goes on; none once it reported or was
		 * withdrawn.  Late turns of the loop are not made up for. */
		if (x->next_tick > 0 && x->next_tick <= now) {
			x->next_tick = now + WARDEN_SERVER_TICK_MS;
			if (x->result == NULL && !x->cancelled)
				x->ops->tick(srv, x->arg);
		}
	}
}

static int next_timeout(struct warden_server *srv, long long now)
{
	long long t = -1;
	struct pending *p;
	struct run *x;

	for (p = srv->pending; p != NULL; p = p->next)
		if (p->deadline > 0 && (t < 0 || p->deadline < t))
			t = p->deadline;
	for (x = srv->runs; x != NULL; x = x->next) {
		if (x->kill_at > 0 && (t < 0 || x->kill_at < t))
			t = x->kill_at;
		if (x->next_tick > 0 && (t < 0 || x->next_tick < t))
			t = x->next_tick;
	}
	if (t < 0)
		return -1;
	return t <= now ? 0 : (int)(t - now > INT_MAX ? INT_MAX : t - now);
}

int warden_server_serve(struct warden_server *srv, struct warden_error *err)
{
	struct pollfd *pf = NULL;
	struct run **who = NULL;
	int *what = NULL;
	size_t cap = 0;
	int rc = 0;
	struct sigaction sa, old_pipe;

	/* A client that went away is a failed write, not a signal. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &old_pipe);

	for (;;) {
		struct run *x, *next;
		size_t n = 0, i;
		long long now;
		int pr;

		if (srv->stop || srv->in_eof) {
			/* Stopped: what runs is cancelled.  At the end of the
			 * client's input (a client that half-closes after its
			 * last request) every call goes on and is answered,
			 * but one waiting for the client's own approval, which
			 * can no longer come. */
			for (x = srv->runs; x != NULL; x = x->next)
				if (srv->stop || x->ask != 0 || srv->cancel_at_eof)
					run_cancel(srv, x);
			if (srv->runs == NULL)
				break;
		}
		if (cap < 1 + srv->n_runs * 3) {
			cap = 1 + srv->n_runs * 3 + 16;
			free(pf);
			free(who);
			free(what);
			pf = calloc(cap, sizeof(*pf));
			who = calloc(cap, sizeof(*who));
			what = calloc(cap, sizeof(*what));
			if (pf == NULL || who == NULL || what == NULL) {
				rc = warden_error_set(err, WARDEN_EOS, "serve: out of memory");
				break;
			}
		}
		if (!srv->in_eof && !srv->stop) {
			pf[n].fd = srv->in_fd;
			pf[n].events = POLLIN;
			who[n] = NULL;
			what[n++] = 0;
		}
		for (x = srv->runs; x != NULL; x = x->next) {
			int fds[3] = { x->ctl, x->out, x->err };

			for (i = 0; i < 3; i++) {
				if (fds[i] < 0)
					continue;
				pf[n].fd = fds[i];
				pf[n].events = POLLIN;
				who[n] = x;
				what[n++] = (int)i;
			}
		}
		now = now_ms();
		pr = poll(pf, n, next_timeout(srv, now));
		if (pr < 0 && errno != EINTR) {
			rc = warden_error_errno(err, WARDEN_EOS, errno, "serve: poll");
			break;
		}
		now = now_ms();
		expire(srv, now);
		for (i = 0; pr > 0 && i < n; i++) {
			if (pf[i].revents == 0)
				continue;
			if (who[i] == NULL) {
				if (read_client(srv) < 0 && rc == 0 && errno != ENOMEM &&
				    errno != EMSGSIZE)
					rc = warden_error_errno(err, WARDEN_EIO, errno,
					                        "serve: reading the client");
				continue;
			}
			if (what[i] == 0)
				read_ctl(srv, who[i]);
			else
				read_output(srv, who[i], what[i]);
		}
		for (x = srv->runs; x != NULL; x = next) {
			next = x->next;
			if (x->result != NULL && x->ctl >= 0) {
				if (!x->job && !x->cancelled) {
					run_finish(srv, x, 1);
					continue;
				}
				/* Not reused: it ends at EOF. */
				close(x->ctl);
				x->ctl = -1;
			}
			if (x->ctl < 0 && x->out < 0 && x->err < 0)
				run_finish(srv, x, 0);
		}
	}
	idle_discard(srv);
	/* Our requests still open get no reply. */
	while (srv->pending != NULL) {
		struct pending *p = srv->pending;

		srv->pending = p->next;
		p->fn(srv, p->arg, NULL, NULL);
		free(p);
	}
	free(pf);
	free(who);
	free(what);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return rc;
}

void warden_server_free(struct warden_server *srv)
{
	struct warden_error err;

	if (srv == NULL)
		return;
	if (srv->runs != NULL) {
		srv->stop = 1;
		warden_server_serve(srv, &err);
	}
	idle_discard(srv);
	while (srv->pending != NULL) {
		struct pending *p = srv->pending;

		srv->pending = p->next;
		free(p);
	}
	free(srv->in.p);
	free(srv->close_fds);
	free(srv);
}
