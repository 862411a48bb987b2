/*
 * cli_mcp.c — `warden mcp`, a Model Context Protocol server on stdio
 * (DESIGN §8):
 *
 *   warden mcp [--cwd DIR]
 *
 * One connection, one session: the session is made when the server
 * starts, rooted at --cwd (default: the current directory), and every
 * run of the connection is in its log.  The connection itself (JSON-RPC
 * lines, runs in workers, requests to the client, cancel) is the server
 * core's (host/server.h); the MCP shapes are host/mcp.h's; this file maps
 * MCP's methods onto them:
 *
 *   initialize            the version (2025-06-18 and later) and whether
 *                         the client elicits
 *   tools/list            run, session_state
 *   tools/call run        a run of the consumer, as `warden run -c`
 *                         would do it in the session (its stdin the
 *                         call's text, else none); output gathered for
 *                         the result (each stream, or both as one, head
 *                         and tail), progress notifications when
 *                         the call carries a progressToken (at the
 *                         start, every second, and as output comes)
 *   notifications/cancelled  cancels the run of that request id
 *   ping                  {}
 *
 * Approvals: the built-in answerer `plugin = client` asks this client
 * through elicitation/create when it declared elicitation, and delegates
 * to the rest of the waterfall when it did not.  The form offers the
 * grant scopes the request offers: the user may allow for the session,
 * and the grant is the same as one given through any other answerer.  An elicitation that
 * becomes void before its answer (the tool call cancelled, no answer in
 * time, the run ended) is withdrawn with notifications/cancelled.  When
 * no answerer of the waterfall can answer here (the client answerer
 * without elicitation, tty without a terminal), the model is not invited
 * to escalate.
 *
 * No tool changes the session's mode, network or policy: a model that
 * could set its own mode would escape the approval that guards every
 * escalation.  session_state only reads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "cli.h"
#include "ops.h"
#include "mcp.h"
#include "policy.h"
#include "run.h"
#include "screen.h"
#include "server.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

/* Progress notifications at most this often while output comes. */
#define PROGRESS_EVERY_MS 200

struct mcp {
	const struct warden_config *cfg;
	char root[PATH_MAX];
	char *session;              /* the connection's session id */
	const char *version;        /* negotiated, NULL before initialize */
	int elicit;                 /* the client declared form elicitation */
	char no_approver[512];      /* why nobody can approve an escalation
	                               here ("": someone may) */
};

/* One tools/call of run, from start to its response. */
struct call {
	struct mcp *m;
	json_t *id;
	json_t *progress_token;     /* or NULL */
	struct warden_mcp_output out, err;
	long long start_ms;         /* monotonic: when the run started */
	long long last_progress_ms; /* monotonic, 0: none sent */
	double progress;            /* the last one sent */
	char last_line[201];        /* the last line of output so far */
	json_t *notices;            /* warden's own lines, outside the
	                               command's streams (or NULL) */
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--config FILE] mcp [--cwd DIR]\n"
	        "\n"
	        "A Model Context Protocol server on stdin/stdout (protocol\n"
	        "2025-06-18 and later) for one client: a tool `run` that runs a\n"
	        "shell command in the sandbox (approvals for escalations asked of\n"
	        "the client's user through elicitation, once or for the session,\n"
	        "else of the configured answerers), and a read-only tool\n"
	        "`session_state`.  The connection gets a session of its own\n"
	        "rooted at DIR.\n"
	        "\n"
	        "  --cwd DIR   the workspace root (default: the current directory)\n"
	        "  --help      this text\n"
	        "\n"
	        "exit status: 0 when the client closed the connection; 64 usage\n"
	        "error; 78 configuration error; otherwise the error's status.\n");
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ approvals */

struct asking {
	unsigned long ask;
	long timeout_ms;
	json_t *request;            /* what was asked: the answer's choice
	                               must be one it offered */
};

static void elicited(struct warden_server *srv, void *arg, json_t *result,
                     json_t *error)
{
	struct asking *a = arg;
	char note[512], why[600], scope[64];
	int outcome;

	if (result == NULL && error == NULL) {
		snprintf(why, sizeof(why), "no answer to the elicitation within %ld ms",
		         a->timeout_ms);
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR, why);
	} else if (error != NULL) {
		snprintf(why, sizeof(why), "the client answered the elicitation with an error: %.400s",
		         json_string_value(json_object_get(error, "message"))
		         ? json_string_value(json_object_get(error, "message")) : "?");
		warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR, why);
	} else {
		/* note: the user's note, or why the answer is no decision. */
		outcome = warden_mcp_elicit_outcome(result, a->request, scope, sizeof(scope),
		                                    note, sizeof(note));
		if (outcome == WARDEN_OUTCOME_ALLOWED_ONCE)
			warden_server_answer(srv, a->ask, WARDEN_DECISION_ALLOWED_ONCE, note);
		else if (outcome == WARDEN_OUTCOME_ALLOWED_FOR_SESSION)
			warden_server_answer_scope(srv, a->ask, WARDEN_DECISION_ALLOWED_FOR_SESSION,
			                           scope, note);
		else if (outcome == WARDEN_OUTCOME_REJECTED)
			warden_server_answer(srv, a->ask, WARDEN_DECISION_REJECTED, note);
		else if (outcome == WARDEN_OUTCOME_CANCELLED)
			warden_server_answer(srv, a->ask, WARDEN_DECISION_CANCELLED, note);
		else
			warden_server_answer(srv, a->ask, WARDEN_DECISION_ERROR, note);
	}
	json_decref(a->request);
	free(a);
}

/* The client answerer's question, as an elicitation of the client: the
 * form offers the grants the request offers. */
static void ask_by_elicitation(struct warden_server *srv, void *arg,
                               unsigned long ask, json_t *request,
                               long timeout_ms)
{
	struct call *c = arg;
	struct asking *a = malloc(sizeof(*a));
	json_t *params;

	params = a != NULL ? warden_mcp_elicit_params(request, c->m->version) : NULL;
	if (params == NULL) {
		free(a);
		warden_server_answer(srv, ask, WARDEN_DECISION_ERROR, "out of memory");
		return;
	}
	a->ask = ask;
	a->timeout_ms = timeout_ms;
	a->request = json_incref(request);
	if (warden_server_ask_request(srv, ask, "elicitation/create", params,
	                              timeout_ms, elicited, a) < 0) {
		json_decref(a->request);
		free(a);
		warden_server_answer(srv, ask, WARDEN_DECISION_ERROR,
		                     "the client cannot be asked");
	}
}

/* ----------------------------------------------------------------- runs */

static void call_free(struct call *c)
{
	json_decref(c->id);
	json_decref(c->progress_token);
	warden_mcp_output_free(&c->out);
	warden_mcp_output_free(&c->err);
	json_decref(c->notices);
	free(c);
}

/* Keeps the last non-empty line of buf as the call's last line. */
static void keep_last_line(struct call *c, const char *buf, size_t len)
{
	const char *end = buf + len, *start;
	char *shown;
	size_t n;

	while (end > buf && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == buf)
		return;
	for (start = end; start > buf && start[-1] != '\n'; start--)
		;
	/* As a screen shows it: no colours, a progress bar's last state. */
	shown = warden_screen_text(start, (size_t)(end - start), &n);
	if (shown == NULL)
		return;
	if (n > sizeof(c->last_line) - 1)
		n = sizeof(c->last_line) - 1;
	memcpy(c->last_line, shown, n);
	c->last_line[n] = '\0';
	free(shown);
	for (n = 0; c->last_line[n] != '\0'; n++)
		if ((unsigned char)c->last_line[n] < 0x20)
			c->last_line[n] = ' ';
}

/* A progress notification: progress is the seconds since the run started
 * (it only grows: the protocol wants each one above the last; a command's
 * length is not known, so there is no total), the message the last line
 * of output, or how long it has run while there is none. */
static void progress(struct warden_server *srv, struct call *c)
{
	long long now = now_ms();
	double p = (double)(now - c->start_ms) / 1000.0;
	char line[sizeof(c->last_line) + 64];
	json_t *msg;

	if (c->progress_token == NULL)
		return;
	if (c->last_progress_ms != 0 && p <= c->progress)
		p = c->progress + 0.001;
	c->progress = p;
	c->last_progress_ms = now;
	if (c->last_line[0] != '\0')
		snprintf(line, sizeof(line), "%s", c->last_line);
	else
		snprintf(line, sizeof(line), "running for %lld s, no output yet",
		         (now - c->start_ms) / 1000);
	msg = warden_json_string_lossy(line);
	warden_server_notify(srv, "notifications/progress",
	                     json_pack("{s:O,s:f,s:o}", "progressToken", c->progress_token,
	                               "progress", c->progress,
	                               "message", msg != NULL ? msg : json_string("")));
}

static void run_output(struct warden_server *srv, void *arg, int fd,
                       const char *buf, size_t len)
{
	struct call *c = arg;

	/* Merged, both streams go to out in the order they came; err counts. */
	warden_mcp_output_add(fd == 2 ? &c->err : &c->out, buf, len);
	if (fd == 2 && c->err.count_only)
		warden_mcp_output_add(&c->out, buf, len);
	if (c->progress_token == NULL)
		return;
	keep_last_line(c, buf, len);
	if (now_ms() - c->last_progress_ms >= PROGRESS_EVERY_MS)
		progress(srv, c);
}

/* Every second while it runs, output or not: a silent command shows it
 * still runs. */
static void run_tick(struct warden_server *srv, void *arg)
{
	progress(srv, arg);
}

static void run_notice(struct warden_server *srv, void *arg, const char *line)
{
	struct call *c = arg;

	/* Warden's own words, never in the command's stderr: the result's
	 * notices (as serve's run.notice). */
	if (c->notices == NULL)
		c->notices = json_array();
	if (c->notices != NULL)
		json_array_append_new(c->notices, warden_json_string_lossy(line));
	(void)srv;
}

static void run_done(struct warden_server *srv, void *arg,
                     const struct warden_server_outcome *o)
{
	struct call *c = arg;
	json_t *res;
	char text[WARDEN_ERROR_MAX + 64];

	/* A request the client cancelled gets no response (MCP). */
	if (o->cancelled) {
		call_free(c);
		return;
	}
	if (o->r < 0 || o->report == NULL) {
		snprintf(text, sizeof(text), "nothing ran: %s", o->err.msg);
		res = warden_mcp_tool_error(text);
	} else {
		json_t *rep = json_deep_copy(o->report);

		if (rep != NULL && c->notices != NULL && json_array_size(c->notices) > 0)
			json_object_set(rep, "notices", c->notices);
		/* Nobody can approve: no retry with an escalation is offered,
		 * whatever else the result says. */
		if (rep != NULL && c->m->no_approver[0] != '\0') {
			json_object_set_new(rep, "escalate_to", json_null());
			json_object_set_new(rep, "escalate_network", json_false());
			json_object_set_new(rep, "no_approver",
			                    json_string(c->m->no_approver));
		}
		res = rep != NULL ? warden_mcp_run_result(rep, &c->out, &c->err) : NULL;
		json_decref(rep);
	}
	if (res == NULL)
		warden_server_error(srv, c->id, WARDEN_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		warden_server_result(srv, c->id, res);
	call_free(c);
}

/* The elicitation is void: MCP's notifications/cancelled for it. */
static void run_withdraw(struct warden_server *srv, void *arg,
                         json_t *request_id, const char *why)
{
	(void)arg;
	warden_server_notify(srv, "notifications/cancelled",
	                     json_pack("{s:o,s:s}", "requestId", request_id,
	                               "reason", why));
}

static const struct warden_server_run_ops ops_elicit = {
	run_output, run_notice, ask_by_elicitation, run_done, run_tick,
	run_withdraw, NULL,
};
static const struct warden_server_run_ops ops_waterfall = {
	run_output, run_notice, NULL, run_done, run_tick, NULL,
	"the client did not declare elicitation (nobody to ask through it)",
};

static void tool_error(struct warden_server *srv, json_t *id, const char *text)
{
	json_t *res = warden_mcp_tool_error(text);

	if (res == NULL)
		warden_server_error(srv, id, WARDEN_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		warden_server_result(srv, id, res);
}

static void call_run(struct warden_server *srv, struct mcp *m, json_t *id,
                     json_t *params)
{
	struct warden_mcp_run_args a;
	struct warden_run_request req;
	struct warden_error err = { 0, "" };
	struct call *c;
	char why[512], call_id[128];
	char *idtext;

	if (warden_mcp_run_args_parse(json_object_get(params, "arguments"), &a,
	                              why, sizeof(why)) < 0) {
		tool_error(srv, id, why);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		warden_server_error(srv, id, WARDEN_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	c->m = m;
	c->out.half = c->err.half = m->cfg->output_limit / 2;
	c->err.count_only = a.merge_output;
	c->id = json_incref(id);
	c->start_ms = now_ms();
	c->progress_token = json_incref(json_object_get(json_object_get(params, "_meta"),
	                                                "progressToken"));
	if (c->progress_token != NULL && !json_is_string(c->progress_token) &&
	    !json_is_integer(c->progress_token)) {
		json_decref(c->progress_token);
		c->progress_token = NULL;
	}
	/* The call's id ties the approval and the events to it. */
	idtext = json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(call_id, sizeof(call_id), "mcp-%.100s", idtext != NULL ? idtext : "?");
	free(idtext);

	memset(&req, 0, sizeof(req));
	req.session_id = m->session;
	req.command = a.command;
	req.timeout_ms = a.timeout_ms;
	req.escalate = a.escalate;
	req.escalate_network = a.escalate_network;
	req.justification = a.justification;
	req.cwd = a.cwd != NULL ? a.cwd : m->root;
	req.stdin_text = a.stdin_text;
	req.call_id = call_id;
	req.pipe_stdout = 1;
	req.cwd_from_root = 1;
	if (warden_run_request_size_check(&req, &err) < 0 ||
	    warden_server_run(srv, id, &req, m->elicit ? &ops_elicit : &ops_waterfall,
	                      c, &err) < 0) {
		char text[WARDEN_ERROR_MAX + 32];

		snprintf(text, sizeof(text), "nothing ran: %s", err.msg);
		tool_error(srv, id, text);
		call_free(c);
		return;
	}
	/* Progress from the start: even a silent command shows it runs. */
	progress(srv, c);
}

/* session_state: the operation session.state and `warden session state`
 * answer with (ops.h), on the connection's session and config. */
static void call_state(struct warden_server *srv, struct mcp *m, json_t *id)
{
	struct warden_op op = WARDEN_OP_INIT(NULL, m->session);
	json_t *state, *out;

	op.cfg = m->cfg;
	if ((state = warden_op_session_state(&op)) == NULL) {
		tool_error(srv, id, op.err.msg);
		return;
	}
	out = warden_mcp_state_result(state);
	json_decref(state);
	if (out == NULL)
		warden_server_error(srv, id, WARDEN_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		warden_server_result(srv, id, out);
}

/* -------------------------------------------------------------- methods */

/* Whether an answerer of the waterfall can answer an escalation asked in
 * this connection: fills m->no_approver with why none can ("" when one
 * may).  The client answerer cannot when the client did not declare
 * elicitation, the tty answerer when warden has no terminal it may use;
 * any other answerer (a program, rules, ...) may decide. */
static void find_approver(struct mcp *m)
{
	const struct warden_config_plugin *pl;
	const char *base;
	size_t i, used = 0;
	int fd, tty_ok = 0, k;

	m->no_approver[0] = '\0';
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		tty_ok = tcgetpgrp(fd) == getpgrp();
		close(fd);
	}
	if (m->cfg->n_answerers == 0) {
		snprintf(m->no_approver, sizeof(m->no_approver), "no answerer is configured");
		return;
	}
	for (i = 0; i < m->cfg->n_answerers; i++) {
		const char *why;

		pl = &m->cfg->answerers[i];
		base = strrchr(pl->plugin, '/') != NULL ? strrchr(pl->plugin, '/') + 1 : pl->plugin;
		if (strcmp(pl->plugin, WARDEN_APPROVAL_CLIENT) == 0 && !m->elicit)
			why = "the client did not declare elicitation";
		else if ((strcmp(base, "tty") == 0 || strcmp(base, "tty.so") == 0) && !tty_ok)
			why = "no terminal";
		else {
			m->no_approver[0] = '\0';
			return;
		}
		k = snprintf(m->no_approver + used, sizeof(m->no_approver) - used,
		             "%s%s: %s", used ? "; " : "", pl->name, why);
		if (k > 0)
			used = used + (size_t)k >= sizeof(m->no_approver)
			     ? sizeof(m->no_approver) - 1 : used + (size_t)k;
	}
}

static void m_initialize(struct warden_server *srv, json_t *id, json_t *params,
                         void *ud)
{
	struct mcp *m = ud;
	json_t *res;

	if (id == NULL)
		return;
	if (m->version != NULL) {
		/* What was negotiated (the version, whether the client
		 * elicits, so who approves) stays for the connection. */
		warden_server_error(srv, id, WARDEN_RPC_INVALID_REQUEST,
		                    "initialize: this connection is initialized already (one initialize per connection)",
		                    NULL);
		return;
	}
	m->version = warden_mcp_version(json_string_value(json_object_get(params,
	                                                                 "protocolVersion")));
	m->elicit = warden_mcp_client_elicits(params);
	find_approver(m);
	res = warden_mcp_initialize_result(m->version, m->session, m->root,
	                                   m->no_approver[0] ? m->no_approver : NULL);
	if (res == NULL)
		warden_server_error(srv, id, WARDEN_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		warden_server_result(srv, id, res);
}

static void m_ignore(struct warden_server *srv, json_t *id, json_t *params, void *ud)
{
	(void)params;
	(void)ud;
	if (id != NULL)
		warden_server_result(srv, id, json_object());
}

static void m_tools_list(struct warden_server *srv, json_t *id, json_t *params,
                         void *ud)
{
	json_t *res;

	struct mcp *m = ud;

	(void)params;
	if (id == NULL)
		return;
	res = warden_mcp_tools_list(m->no_approver[0] ? m->no_approver : NULL,
	                            m->cfg->max_timeout_ms);
	if (res == NULL)
		warden_server_error(srv, id, WARDEN_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		warden_server_result(srv, id, res);
}

static void m_tools_call(struct warden_server *srv, json_t *id, json_t *params,
                         void *ud)
{
	struct mcp *m = ud;
	const char *name = json_string_value(json_object_get(params, "name"));

	if (id == NULL)
		return;
	if (m->version == NULL) {
		/* Nothing runs before the handshake said what the client
		 * is (whether it elicits decides who approves). */
		warden_server_error(srv, id, WARDEN_RPC_INVALID_REQUEST,
		                    "tools/call before initialize: send initialize (and notifications/initialized) first",
		                    NULL);
	} else if (name == NULL) {
		warden_server_error(srv, id, WARDEN_RPC_INVALID_PARAMS,
		                    "tools/call: params need the tool's \"name\"", NULL);
	} else if (strcmp(name, WARDEN_MCP_TOOL_RUN) == 0) {
		call_run(srv, m, id, params);
	} else if (strcmp(name, WARDEN_MCP_TOOL_STATE) == 0) {
		json_t *args = json_object_get(params, "arguments");

		if (args != NULL && !json_is_null(args) &&
		    (!json_is_object(args) || json_object_size(args) > 0))
			tool_error(srv, id, "session_state takes no arguments");
		else
			call_state(srv, m, id);
	} else {
		char msg[256];

		snprintf(msg, sizeof(msg), "tools/call: unknown tool \"%.100s\" (the tools are run and session_state)",
		         name);
		warden_server_error(srv, id, WARDEN_RPC_INVALID_PARAMS, msg, NULL);
	}
}

static void m_cancelled(struct warden_server *srv, json_t *id, json_t *params,
                        void *ud)
{
	json_t *rid = json_object_get(params, "requestId");

	(void)ud;
	(void)id;
	/* Unknown or finished requests are ignored, as the protocol says. */
	if (rid != NULL)
		warden_server_cancel(srv, rid);
}

static const struct warden_server_method methods[] = {
	{ "initialize", m_initialize },
	{ "notifications/initialized", m_ignore },
	{ "ping", m_ignore },
	{ "tools/list", m_tools_list },
	{ "tools/call", m_tools_call },
	{ "notifications/cancelled", m_cancelled },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------ main */

int warden_cmd_mcp(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "cwd", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_consumer *consumer = NULL;
	struct warden_server *srv = NULL;
	struct warden_server_opts so;
	struct mcp m;
	const char *cwd = ".";
	struct stat st;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", longs, NULL)) != -1) {
		switch (ch) {
		case 'C':
			if (optarg[0] == '\0')
				return warden_cli_usage("mcp: --cwd needs a directory");
			cwd = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			return warden_cli_usage("mcp: unknown option '%s'", argv[optind - 1]);
		default:
			return warden_cli_usage("mcp: option '%s' needs an argument", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return warden_cli_usage("mcp: unexpected argument '%s'", argv[optind]);
	memset(&m, 0, sizeof(m));
	if (realpath(cwd, m.root) == NULL)
		return warden_cli_usage("mcp: --cwd %s: %s (give the workspace root, a directory)",
		                        cwd, strerror(errno));
	if (stat(m.root, &st) < 0 || !S_ISDIR(st.st_mode))
		return warden_cli_usage("mcp: --cwd %s: not a directory (give the workspace root)",
		                        cwd);
	if (warden_config_load(cli->config_path, &cfg, &err) < 0)
		return warden_cli_fail(&err);
	m.cfg = cfg;
	/* A client that goes away mid-write is the end of the connection. */
	signal(SIGPIPE, SIG_IGN);
	if ((r = warden_session_create(cfg, m.root, &m.session, &err)) == 0 &&
	    (r = warden_consumer_new(cfg, &consumer, &err)) == 0) {
		memset(&so, 0, sizeof(so));
		so.in_fd = STDIN_FILENO;
		so.out_fd = STDOUT_FILENO;
		so.methods = methods;
		so.ud = &m;
		/* MCP over stdio: the end of input is the client gone. */
		so.cancel_at_eof = 1;
		so.consumer = consumer;
		if ((r = warden_server_new(&so, &srv, &err)) == 0)
			r = warden_server_serve(srv, &err);
	}
	warden_server_free(srv);
	warden_consumer_free(consumer);
	free(m.session);
	warden_config_free(cfg);
	return r < 0 ? warden_cli_fail(&err) : 0;
}
