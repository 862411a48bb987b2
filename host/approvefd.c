/*
 * approvefd.c — the caller of `warden run --approve-fd N` answers that
 * run's approvals (approvefd.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "approvefd.h"
#include "server.h"

/* The longest response line read. */
#define LINE_MAX_ (256 * 1024)

struct caller {
	int fd;
	json_int_t next_id;
};

/* One process, one caller: the client function is the process's. */
static struct caller the_caller = { -1, 0 };

static int send_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One line from fd, without its newline; malloc'd, NULL at the end of
 * the stream, on an error, past LINE_MAX_ or at the deadline (ms, 0:
 * none). */
static char *read_line(int fd, long timeout_ms, const char **why)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t len = 0, cap = 256;
	char *buf = malloc(cap), c, *grown;
	ssize_t got;
	int r;

	while (buf != NULL) {
		r = poll(&p, 1, timeout_ms > 0 ? (int)(timeout_ms < 2000000000L ? timeout_ms : 2000000000L) : -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			*why = "no reply within the answerer's timeout";
			break;
		}
		got = r < 0 ? -1 : recv(fd, &c, 1, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			*why = got == 0 ? "the caller closed --approve-fd without a reply"
			                : "cannot read --approve-fd";
			break;
		}
		if (c == '\n') {
			buf[len] = '\0';
			return buf;
		}
		if (len + 2 > cap) {
			if (cap >= LINE_MAX_) {
				*why = "the caller's reply is longer than 256 KiB";
				break;
			}
			grown = realloc(buf, cap * 2);
			if (grown == NULL)
				break;
			buf = grown;
			cap *= 2;
		}
		buf[len++] = c;
	}
	free(buf);
	return NULL;
}

static int caller_ask(void *ud, const struct warden_request *req, long timeout_ms,
                      char *err, size_t errlen)
{
	struct caller *k = ud;
	json_t *msg, *resp, *result, *v;
	const char *d, *scope = NULL, *why = "out of memory";
	char *text, *line;
	json_int_t id = ++k->next_id;
	int decision;
	size_t i;

	msg = json_pack("{s:s,s:I,s:s,s:{s:n,s:o,s:I}}", "jsonrpc", "2.0", "id", id,
	                "method", "approval.ask", "params", "id", "request",
	                warden_server_request_json(req), "timeout_ms", (json_int_t)timeout_ms);
	text = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (text == NULL) {
		snprintf(err, errlen, "the request cannot be encoded (out of memory?)");
		return WARDEN_DECISION_ERROR;
	}
	if (send_all(k->fd, text, strlen(text)) < 0 || send_all(k->fd, "\n", 1) < 0) {
		free(text);
		snprintf(err, errlen, "cannot write to --approve-fd: %s", strerror(errno));
		return WARDEN_DECISION_ERROR;
	}
	free(text);
	line = read_line(k->fd, timeout_ms, &why);
	if (line == NULL) {
		snprintf(err, errlen, "%s", why);
		return WARDEN_DECISION_ERROR;
	}
	resp = json_loads(line, 0, NULL);
	free(line);
	result = json_object_get(resp, "result");
	v = json_object_get(resp, "id");
	if (!json_is_object(resp) ||
	    !json_is_string(json_object_get(resp, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(resp, "jsonrpc")), "2.0") != 0 ||
	    !json_is_integer(v) || json_integer_value(v) != id ||
	    json_object_get(resp, "error") != NULL || !json_is_object(result)) {
		json_decref(resp);
		snprintf(err, errlen, "the caller's reply is not a JSON-RPC 2.0 result "
		         "for approval.ask %lld", (long long)id);
		return WARDEN_DECISION_ERROR;
	}
	d = json_string_value(json_object_get(result, "decision"));
	v = json_object_get(result, "scope");
	if (v != NULL && !json_is_null(v))
		scope = json_string_value(v);
	if (d == NULL || (v != NULL && !json_is_null(v) && scope == NULL))
		decision = 0;
	else if (strcmp(d, "allowed-once") == 0 && scope == NULL)
		decision = WARDEN_DECISION_ALLOWED_ONCE;
	else if (strcmp(d, "allowed-for-session") == 0)
		decision = WARDEN_DECISION_ALLOWED_FOR_SESSION;
	else if (strcmp(d, "rejected") == 0 && scope == NULL)
		decision = WARDEN_DECISION_REJECTED;
	else if (strcmp(d, "cancelled") == 0 && scope == NULL)
		decision = WARDEN_DECISION_CANCELLED;
	else
		decision = 0;
	if (decision == 0) {
		json_decref(resp);
		snprintf(err, errlen, "the caller's reply is malformed (want {\"decision\": "
		         "\"allowed-once\"|\"allowed-for-session\"|\"rejected\"|\"cancelled\", "
		         "\"scope\": NAME, \"message\": \"...\"})");
		return WARDEN_DECISION_ERROR;
	}
	if (scope != NULL) {
		for (i = 0; i < req->n_grant_scopes; i++)
			if (strcmp(req->grant_scopes[i], scope) == 0)
				break;
		if (i == req->n_grant_scopes) {
			snprintf(err, errlen, "the caller granted scope '%.100s', which the "
			         "request does not offer", scope);
			json_decref(resp);
			return WARDEN_DECISION_ERROR;
		}
		*req->grant_choice = i;
	}
	v = json_object_get(result, "message");
	if (json_is_string(v))
		snprintf(err, errlen, "%s", json_string_value(v));
	json_decref(resp);
	return decision;
}

/* As an appended answerer: no timeout of its own. */
static int caller_decide(void *ud, const struct warden_request *req,
                         char *err, size_t errlen)
{
	return caller_ask(ud, req, 0, err, errlen);
}

int warden_approvefd_attach(struct warden_consumer *c,
                            const struct warden_config *cfg, int fd)
{
	size_t i;
	int has_client = 0;

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	the_caller.fd = fd;
	warden_approval_set_client(caller_ask, &the_caller);
	for (i = 0; i < cfg->n_answerers; i++)
		if (strcmp(cfg->answerers[i].plugin, WARDEN_APPROVAL_CLIENT) == 0)
			has_client = 1;
	if (!has_client)
		warden_consumer_append_answerer(c, "caller", caller_decide, &the_caller, 0);
	return 0;
}
