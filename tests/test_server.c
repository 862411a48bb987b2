/* test_server.c — the JSON-RPC connection of host/server.h with real
 * processes: the server runs in a child over a socketpair, this test is
 * its client.  Dispatch and the error objects, requests from the server
 * with a reply and with a timeout, runs whose output arrives byte for
 * byte (binary, no final newline, a megabyte), several runs at once,
 * cancel killing the command, and the client answerer asking through the
 * server (allowed, rejected, no answer), a run's ticks every second while
 * it goes on and none after it ended. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include <warden/plugin.h>

#include "run.h"
#include "server.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"

/* ---------------------------------------------------------- the server */

static char tmpdir[PATH_MAX];
static char session_id[200];

static void hex_out(struct warden_server *srv, void *arg, int fd,
                    const char *buf, size_t len)
{
	char *h = malloc(len * 2 + 1);
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(h + i * 2, "%02x", (unsigned char)buf[i]);
	warden_server_notify(srv, "out", json_pack("{s:O,s:i,s:s}", "id", (json_t *)arg,
	                                           "fd", fd, "hex", h));
	free(h);
}

static void asked(struct warden_server *srv, void *arg, json_t *reply,
                  json_t *error);

struct ask_ctx {
	unsigned long ask;
};

static void run_ask(struct warden_server *srv, void *arg, unsigned long ask,
                    json_t *request, long timeout_ms)
{
	struct ask_ctx *a = malloc(sizeof(*a));

	(void)arg;
	a->ask = ask;
	warden_server_request(srv, "approve", json_incref(request), timeout_ms,
	                      asked, a);
}

static void asked(struct warden_server *srv, void *arg, json_t *reply,
                  json_t *error)
{
	struct ask_ctx *a = arg;
	const char *d = json_string_value(json_object_get(reply, "decision"));

	(void)error;
	if (reply == NULL)
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR, "no reply in time");
	else if (d != NULL && strcmp(d, "allow") == 0)
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ALLOWED_ONCE, "the client said yes");
	else if (d != NULL && strcmp(d, "late") == 0)
		/* A yes that comes after the run was cancelled: what the
		 * server did with it is told to the test. */
		warden_server_notify(srv, "answered", json_pack("{s:i}", "r",
			warden_server_answer(srv, a->ask, WARDEN_DECISION_ALLOWED_ONCE,
			                     "the client said yes, late")));
	else
		warden_server_answer(srv, a->ask, WARDEN_DECISION_REJECTED, "the client said no");
	free(a);
}

static void run_done(struct warden_server *srv, void *arg,
                     const struct warden_server_outcome *o)
{
	json_t *id = arg;

	if (o->r == 0 && o->report == NULL)
		warden_server_result(srv, id, json_pack("{s:i}", "status", o->status));
	else if (o->r == 0)
		warden_server_result(srv, id, json_pack("{s:O,s:b}", "report", o->report,
		                                        "cancelled", o->cancelled));
	else
		warden_server_error(srv, id, 1, o->err.msg,
		                    json_pack("{s:b}", "cancelled", o->cancelled));
	json_decref(id);
}

static const struct warden_server_run_ops ops = {
	hex_out, NULL, run_ask, run_done, NULL, NULL, NULL,
};

static void run_tick(struct warden_server *srv, void *arg)
{
	warden_server_notify(srv, "tick", json_pack("{s:O}", "id", (json_t *)arg));
}

static const struct warden_server_run_ops ops_ticking = {
	hex_out, NULL, run_ask, run_done, run_tick, NULL, NULL,
};

static void m_echo(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	(void)ud;
	if (id != NULL)
		warden_server_result(srv, id, json_incref(params));
	else
		warden_server_notify(srv, "heard", json_incref(params));
}

static void pinged(struct warden_server *srv, void *arg, json_t *result,
                   json_t *error)
{
	json_t *id = arg;

	warden_server_result(srv, id, json_pack("{s:O,s:O}",
	                     "result", result != NULL ? result : json_null(),
	                     "error", error != NULL ? error : json_null()));
	json_decref(id);
}

static void m_ping(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	(void)ud;
	warden_server_request(srv, "ping", json_incref(params),
	                      json_integer_value(json_object_get(params, "timeout_ms")),
	                      pinged, json_incref(id));
}

static void m_run(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	struct warden_run_request req;
	struct warden_error err = { 0, "" };
	json_t *argv = json_object_get(params, "argv");
	const char *args[16];
	size_t i;

	(void)ud;
	memset(&req, 0, sizeof(req));
	for (i = 0; i < json_array_size(argv) && i < 15; i++)
		args[i] = json_string_value(json_array_get(argv, i));
	args[i] = NULL;
	req.argv = args;
	req.argc = i;
	req.command = json_string_value(json_object_get(params, "command"));
	if (json_object_get(params, "escalate") != NULL) {
		req.session_id = session_id;
		req.escalate = WARDEN_SANDBOX_DANGER_FULL_ACCESS;
		req.justification = "a test";
	}
	if (warden_server_run(srv, id, &req,
	                      json_is_true(json_object_get(params, "tick")) ? &ops_ticking : &ops,
	                      json_incref(id), &err) < 0) {
		json_decref(id);
		warden_server_error(srv, id, 2, err.msg, NULL);
	}
}

static int job_fn(void *arg)
{
	printf("job %s", (const char *)arg);
	fputs("to stderr", stderr);
	return 5;
}

static void m_job(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	struct warden_error err = { 0, "" };

	(void)ud;
	(void)params;
	if (warden_server_job(srv, id, job_fn, "output", &ops, json_incref(id), &err) < 0) {
		json_decref(id);
		warden_server_error(srv, id, 2, err.msg, NULL);
	}
}

static void m_cancel(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	(void)ud;
	warden_server_result(srv, id, json_boolean(
		warden_server_cancel(srv, json_object_get(params, "id")) == 0));
}

static const struct warden_server_method methods[] = {
	{ "echo", m_echo },
	{ "ping", m_ping },
	{ "run", m_run },
	{ "cancel", m_cancel },
	{ "job", m_job },
	{ NULL, NULL },
};

static const char cfg_fmt[] =
	"[warden]\n"
	"default_mode = danger-full-access\n"
	"state_dir = %s/state\n"
	"workspace_root = %s\n"
	"durability = none\n"
	"[answerer c]\n"
	"plugin = client\n"
	"timeout_ms = 1500\n";

static struct warden_config *make_config(void)
{
	struct warden_config *cfg = NULL;
	struct warden_error err = { 0, "" };
	char text[3 * PATH_MAX];

	snprintf(text, sizeof(text), cfg_fmt, tmpdir, tmpdir);
	if (warden_config_parse(text, "test.ini", &cfg, &err) < 0)
		fail_msg("config: %s", err.msg);
	return cfg;
}

/* Starts the server on one end of a socketpair; the other is ours. */
static pid_t start_server(int *fd)
{
	int sv[2];
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct warden_config *cfg = make_config();
		struct warden_consumer *c = NULL;
		struct warden_server *srv = NULL;
		struct warden_server_opts o;
		struct warden_error err = { 0, "" };

		close(sv[0]);
		memset(&o, 0, sizeof(o));
		o.in_fd = o.out_fd = sv[1];
		o.methods = methods;
		if (warden_consumer_new(cfg, &c, &err) < 0)
			_exit(3);
		o.consumer = c;
		if (warden_server_new(&o, &srv, &err) < 0) {
			fprintf(stderr, "server: %s\n", err.msg);
			_exit(4);
		}
		if (warden_server_serve(srv, &err) < 0)
			fprintf(stderr, "serve: %s\n", err.msg);
		warden_server_free(srv);
		warden_consumer_free(c);
		warden_config_free(cfg);
		_exit(0);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

static void stop_server(pid_t pid, int fd)
{
	int status;

	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ----------------------------------------------------------- the client */

static char rbuf[1 << 22];
static size_t rlen;

static void send_line(int fd, const char *line)
{
	size_t n = strlen(line);

	assert_int_equal(write(fd, line, n), (ssize_t)n);
	assert_int_equal(write(fd, "\n", 1), 1);
}

/* The next message, or NULL after timeout_ms. */
static json_t *recv_msg(int fd, int timeout_ms)
{
	for (;;) {
		char *nl = memchr(rbuf, '\n', rlen);
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t n;

		if (nl != NULL) {
			json_error_t je;
			json_t *m = json_loadb(rbuf, (size_t)(nl - rbuf), 0, &je);

			if (m == NULL)
				fail_msg("not JSON: %.*s (%s)", (int)(nl - rbuf), rbuf, je.text);
			rlen -= (size_t)(nl - rbuf) + 1;
			memmove(rbuf, nl + 1, rlen);
			return m;
		}
		if (poll(&pf, 1, timeout_ms) <= 0)
			return NULL;
		n = read(fd, rbuf + rlen, sizeof(rbuf) - rlen);
		if (n <= 0)
			return NULL;
		rlen += (size_t)n;
	}
}

static json_t *recv_must(int fd)
{
	json_t *m = recv_msg(fd, 20000);

	assert_non_null(m);
	return m;
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* Collects a run's output until its response; returns the response. */
static json_t *collect(int fd, json_int_t id, char *out, size_t *outlen,
                       char *err, size_t *errlen)
{
	*outlen = *errlen = 0;
	for (;;) {
		json_t *m = recv_must(fd), *p = json_object_get(m, "params");
		const char *method = json_string_value(json_object_get(m, "method"));

		if (method != NULL && strcmp(method, "out") == 0 &&
		    json_integer_value(json_object_get(p, "id")) == id) {
			const char *h = json_string_value(json_object_get(p, "hex"));
			int which = (int)json_integer_value(json_object_get(p, "fd"));
			char *dst = which == 1 ? out : err;
			size_t *len = which == 1 ? outlen : errlen;

			for (; h[0] && h[1]; h += 2)
				dst[(*len)++] = (char)(hexval(h[0]) * 16 + hexval(h[1]));
			json_decref(m);
			continue;
		}
		if (method == NULL && json_integer_value(json_object_get(m, "id")) == id)
			return m;
		fail_msg("unexpected message");
	}
}

/* ---------------------------------------------------------------- tests */

static void test_dispatch_and_errors(void **state)
{
	int fd;
	pid_t pid = start_server(&fd);
	json_t *m, *want = json_pack("{s:[i,s]}", "a", 1, "\xc3\xa9");

	(void)state;
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"a\":[1,\"\\u00e9\"]}}");
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 1);
	assert_string_equal(json_string_value(json_object_get(m, "jsonrpc")), "2.0");
	assert_true(json_equal(json_object_get(m, "result"), want));
	json_decref(want);
	json_decref(m);

	/* A notification is never answered: the next answer is for id "x". */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"method\":\"nosuch\"}");
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[7]}");
	m = recv_must(fd);
	assert_string_equal(json_string_value(json_object_get(m, "method")), "heard");
	json_decref(m);
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"nosuch\"}");
	m = recv_must(fd);
	assert_string_equal(json_string_value(json_object_get(m, "id")), "x");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "error"), "code")),
	                 WARDEN_RPC_METHOD_NOT_FOUND);
	json_decref(m);

	send_line(fd, "{not json");
	m = recv_must(fd);
	assert_true(json_is_null(json_object_get(m, "id")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "error"), "code")),
	                 WARDEN_RPC_PARSE_ERROR);
	json_decref(m);
	send_line(fd, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}]");
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "error"), "code")),
	                 WARDEN_RPC_INVALID_REQUEST);
	json_decref(m);
	send_line(fd, "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"echo\"}");
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "error"), "code")),
	                 WARDEN_RPC_INVALID_REQUEST);
	json_decref(m);
	/* Blank lines and a CR before the newline are fine. */
	send_line(fd, "");
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"echo\",\"params\":{}}\r");
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 4);
	json_decref(m);
	stop_server(pid, fd);
}

static void test_requests_to_the_client(void **state)
{
	int fd;
	pid_t pid = start_server(&fd);
	json_t *m, *ask;
	char line[256];

	(void)state;
	/* Answered. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"timeout_ms\":5000}}");
	ask = recv_must(fd);
	assert_string_equal(json_string_value(json_object_get(ask, "method")), "ping");
	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":\"pong\"}",
	         (long long)json_integer_value(json_object_get(ask, "id")));
	json_decref(ask);
	send_line(fd, line);
	m = recv_must(fd);
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "result"), "result")),
	                    "pong");
	json_decref(m);

	/* An error reply. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"timeout_ms\":5000}}");
	ask = recv_must(fd);
	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-1,\"message\":\"no\"}}",
	         (long long)json_integer_value(json_object_get(ask, "id")));
	json_decref(ask);
	send_line(fd, line);
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 2);
	assert_true(json_is_null(json_object_get(json_object_get(m, "result"), "result")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(m, "result"), "error"), "message")), "no");
	json_decref(m);

	/* No reply: the callback after the timeout with neither; a late
	 * reply is ignored. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"timeout_ms\":300}}");
	ask = recv_must(fd);
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 3);
	assert_true(json_is_null(json_object_get(json_object_get(m, "result"), "result")));
	assert_true(json_is_null(json_object_get(json_object_get(m, "result"), "error")));
	json_decref(m);
	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":\"late\"}",
	         (long long)json_integer_value(json_object_get(ask, "id")));
	json_decref(ask);
	send_line(fd, line);
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"echo\",\"params\":{}}");
	m = recv_must(fd);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 4);
	json_decref(m);
	stop_server(pid, fd);
}

static char out[1 << 21], errb[1 << 16];

static void test_run_output_is_exact(void **state)
{
	int fd;
	pid_t pid = start_server(&fd);
	size_t outlen, errlen, i;
	json_t *m, *rep;

	(void)state;
	/* Binary bytes, invalid UTF-8, no final newline, on both streams. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"run\",\"params\":{\"command\":"
	          "\"printf 'a\\\\000b\\\\377\\\\n\\\\303(end'; printf 'E\\\\001' >&2; exit 3\"}}");
	m = collect(fd, 1, out, &outlen, errb, &errlen);
	rep = json_object_get(json_object_get(m, "result"), "report");
	assert_non_null(rep);
	assert_string_equal(json_string_value(json_object_get(rep, "class")), "failed");
	assert_int_equal(json_integer_value(json_object_get(rep, "exit")), 3);
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 3);
	assert_int_equal(outlen, 10);
	assert_memory_equal(out, "a\0b\377\n\303(end", 10);
	assert_int_equal(errlen, 2);
	assert_memory_equal(errb, "E\001", 2);
	json_decref(m);

	/* Two megabytes, every byte value. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"run\",\"params\":{\"command\":"
	          "\"s=$(printf '\\\\\\\\%03o' $(seq 0 255)); for i in $(seq 8192); do printf \\\"$s\\\"; done\"}}");
	m = collect(fd, 2, out, &outlen, errb, &errlen);
	rep = json_object_get(json_object_get(m, "result"), "report");
	assert_string_equal(json_string_value(json_object_get(rep, "class")), "ok");
	assert_int_equal(outlen, 8192 * 256);
	for (i = 0; i < outlen; i++)
		if ((unsigned char)out[i] != i % 256)
			fail_msg("byte %zu is %u", i, (unsigned char)out[i]);
	assert_int_equal(errlen, 0);
	json_decref(m);

	/* A job: its output, its status. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"job\"}");
	m = collect(fd, 4, out, &outlen, errb, &errlen);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "result"), "status")), 5);
	assert_int_equal(outlen, 10);
	assert_memory_equal(out, "job output", 10);
	assert_int_equal(errlen, 9);
	assert_memory_equal(errb, "to stderr", 9);
	json_decref(m);

	/* A program that is not there: a report, nothing started. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"run\",\"params\":{\"argv\":[\"/nonexistent/x\"]}}");
	m = collect(fd, 3, out, &outlen, errb, &errlen);
	rep = json_object_get(json_object_get(m, "result"), "report");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 127);
	assert_false(json_is_true(json_object_get(rep, "started")));
	json_decref(m);
	stop_server(pid, fd);
}

static void test_ticks_while_a_silent_run_goes_on(void **state)
{
	int fd, ticks = 0;
	pid_t pid = start_server(&fd);
	json_t *m;

	(void)state;
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"run\",\"params\":"
	          "{\"command\":\"sleep 2.5\",\"tick\":true}}");
	for (;;) {
		const char *method;

		m = recv_must(fd);
		method = json_string_value(json_object_get(m, "method"));
		if (method == NULL)
			break;
		assert_string_equal(method, "tick");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "params"),
		                                                    "id")), 7);
		ticks++;
		json_decref(m);
	}
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 7);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(m, "result"), "report"), "class")), "ok");
	json_decref(m);
	/* At 1 s and 2 s (a slow machine may be late, never early). */
	assert_true(ticks >= 2 && ticks <= 3);
	/* None after the response. */
	assert_null(recv_msg(fd, 1500));
	/* A run without tick gets none. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"run\",\"params\":"
	          "{\"command\":\"sleep 1.5\"}}");
	m = recv_must(fd);
	assert_null(json_object_get(m, "method"));
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 8);
	json_decref(m);
	stop_server(pid, fd);
}

static void test_concurrent_runs_and_cancel(void **state)
{
	int fd;
	pid_t pid = start_server(&fd);
	json_t *m, *rep;
	int got[3] = { 0, 0, 0 }, n;
	struct timespec t0, t1;
	char marker[PATH_MAX + 32], line[PATH_MAX + 256];
	struct stat st;

	(void)state;
	snprintf(marker, sizeof(marker), "%s/late-marker", tmpdir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Two runs of 1 s at once take about 1 s; a third is cancelled. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"run\",\"params\":{\"command\":\"sleep 1; echo one\"}}");
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"run\",\"params\":{\"command\":\"sleep 1; echo two\"}}");
	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"run\",\"params\":{\"command\":\"echo started; sleep 30; touch %s\"}}",
	         marker);
	send_line(fd, line);
	/* A second run with an id still going is refused. */
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"run\",\"params\":{\"command\":\"true\"}}");
	for (n = 0; n < 3;) {
		json_t *p;
		const char *method;

		m = recv_must(fd);
		p = json_object_get(m, "params");
		method = json_string_value(json_object_get(m, "method"));
		if (method != NULL && strcmp(method, "out") == 0 &&
		    json_integer_value(json_object_get(p, "id")) == 3) {
			/* It started: cancel it, and an unknown id. */
			send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"cancel\",\"params\":{\"id\":3}}");
			send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"cancel\",\"params\":{\"id\":77}}");
		} else if (method == NULL) {
			json_int_t id = json_integer_value(json_object_get(m, "id"));

			if (id == 9)
				assert_true(json_is_true(json_object_get(m, "result")));
			else if (id == 10)
				assert_true(json_is_false(json_object_get(m, "result")));
			else if (id == 3 && json_object_get(m, "error") != NULL &&
			         json_integer_value(json_object_get(json_object_get(m, "error"), "code")) == 2)
				; /* the duplicate */
			else {
				assert_true(id >= 1 && id <= 3);
				rep = json_object_get(json_object_get(m, "result"), "report");
				assert_non_null(rep);
				if (id == 3) {
					assert_true(json_is_true(json_object_get(json_object_get(m, "result"),
					                                         "cancelled")));
					assert_int_equal(json_integer_value(json_object_get(rep, "signal")),
					                 SIGTERM);
				} else {
					assert_string_equal(json_string_value(json_object_get(rep, "class")), "ok");
				}
				got[id - 1]++;
				n++;
			}
		}
		json_decref(m);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(got[0] + got[1] + got[2], 3);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	/* The cancelled command is gone: it never got to its touch. */
	sleep(1);
	assert_int_equal(stat(marker, &st), -1);
	stop_server(pid, fd);
}

/* The client answerer: an escalation asks the client through the server. */
static void escalate(int fd, int id, const char *answer, int want_status,
                     const char *want_outcome)
{
	char line[512];
	json_t *m, *rep, *ask;
	size_t outlen = 0, errlen = 0;

	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"run\",\"params\":{\"command\":\"echo escalated\",\"escalate\":1}}",
	         id);
	send_line(fd, line);
	ask = recv_must(fd);
	assert_string_equal(json_string_value(json_object_get(ask, "method")), "approve");
	assert_string_equal(json_string_value(json_object_get(json_object_get(ask, "params"), "subject")),
	                    "echo escalated");
	assert_string_equal(json_string_value(json_object_get(json_object_get(ask, "params"), "requested_mode")),
	                    "danger-full-access");
	if (answer != NULL) {
		snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"decision\":\"%s\"}}",
		         (long long)json_integer_value(json_object_get(ask, "id")), answer);
		send_line(fd, line);
	}
	json_decref(ask);
	m = collect(fd, id, out, &outlen, errb, &errlen);
	rep = json_object_get(json_object_get(m, "result"), "report");
	assert_non_null(rep);
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), want_status);
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "escalation"), "outcome")),
	                    want_outcome);
	if (want_status == 0) {
		assert_int_equal(outlen, 10);
		assert_memory_equal(out, "escalated\n", 10);
	} else {
		assert_int_equal(outlen, 0);
	}
	json_decref(m);
}

/* A cancel, then the client's yes to the run's approval: the yes is
 * discarded (the run is withdrawn), the command never runs. */
static void test_an_answer_after_cancel_is_discarded(void **state)
{
	char line[512];
	json_t *m, *ask, *rep;
	json_int_t ask_id;
	int fd, answered = 0, got_result = 0, outlen = 0;
	pid_t pid;

	(void)state;
	pid = start_server(&fd);
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"run\",\"params\":{\"command\":\"echo escalated\",\"escalate\":1}}");
	ask = recv_must(fd);
	assert_string_equal(json_string_value(json_object_get(ask, "method")), "approve");
	ask_id = json_integer_value(json_object_get(ask, "id"));
	json_decref(ask);
	send_line(fd, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"cancel\",\"params\":{\"id\":7}}");
	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"decision\":\"late\"}}",
	         (long long)ask_id);
	send_line(fd, line);
	while (!answered || !got_result) {
		const char *method;

		m = recv_must(fd);
		method = json_string_value(json_object_get(m, "method"));
		if (method != NULL && strcmp(method, "answered") == 0) {
			assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "params"), "r")), -1);
			answered = 1;
		} else if (method != NULL && strcmp(method, "out") == 0) {
			outlen++;
		} else if (json_integer_value(json_object_get(m, "id")) == 8) {
			assert_true(json_is_true(json_object_get(m, "result")));
		} else if (json_integer_value(json_object_get(m, "id")) == 7) {
			rep = json_object_get(json_object_get(m, "result"), "report");
			if (rep != NULL)
				assert_string_not_equal(json_string_value(json_object_get(json_object_get(rep, "escalation"), "outcome")),
				                        "allowed-once");
			assert_true(json_is_true(json_object_get(rep != NULL ? json_object_get(m, "result")
			                                                     : json_object_get(json_object_get(m, "error"), "data"),
			                                         "cancelled")));
			got_result = 1;
		} else {
			fail_msg("unexpected message");
		}
		json_decref(m);
	}
	assert_int_equal(outlen, 0);
	stop_server(pid, fd);
}

static void test_client_answers_approvals(void **state)
{
	int fd;
	pid_t pid;
	char path[PATH_MAX + 512], *log;
	FILE *f;
	long len;

	(void)state;
	{
		struct warden_config *cfg = make_config();
		struct warden_error err = { 0, "" };
		char *id = NULL;

		struct warden_session *s = NULL;

		if (warden_session_create(cfg, tmpdir, &id, &err) < 0)
			fail_msg("session: %s", err.msg);
		snprintf(session_id, sizeof(session_id), "%s", id);
		free(id);
		/* Escalating to the mode in force is a usage error: the
		 * session is read-only, the escalation to danger-full-access. */
		if (warden_session_open(cfg, session_id, &s, &err) < 0 ||
		    warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, &err) < 0)
			fail_msg("session mode: %s", err.msg);
		warden_session_close(s);
		warden_config_free(cfg);
	}
	pid = start_server(&fd);
	escalate(fd, 1, "allow", 0, "allowed-once");
	escalate(fd, 2, "deny", WARDEN_EREFUSED, "rejected");
	escalate(fd, 3, NULL, WARDEN_EREFUSED, "unavailable");
	stop_server(pid, fd);

	/* The log has the client's reasons. */
	snprintf(path, sizeof(path), "%s/state/%s.jsonl", tmpdir, session_id);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	log = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(log, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_non_null(strstr(log, "the client said yes"));
	assert_non_null(strstr(log, "the client said no"));
	assert_non_null(strstr(log, "no reply in time"));
	free(log);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_server.XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch_and_errors),
		cmocka_unit_test(test_requests_to_the_client),
		cmocka_unit_test(test_run_output_is_exact),
		cmocka_unit_test(test_concurrent_runs_and_cancel),
		cmocka_unit_test(test_ticks_while_a_silent_run_goes_on),
		cmocka_unit_test(test_client_answers_approvals),
		cmocka_unit_test(test_an_answer_after_cancel_is_discarded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
