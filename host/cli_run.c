/*
 * cli_run.c — `warden run`, the sandboxed bash tool an agent calls
 * (DESIGN §2, §3, §8):
 *
 *   warden run [--json] [--result-fd N] [--approve-fd N] [--timeout S] [--require-full]
 *              [--cwd DIR] [--call-id C]
 *              [--escalate MODE] [--escalate-network] [--justification TEXT]
 *              (-c 'COMMAND' | -- ARGV...)
 *
 * This file parses the options and prints; the run itself (resolve,
 * confine, spawn, classify, record, escalate) is the consumer's
 * (host/run.h), which `warden serve` and `warden mcp` call too.  Output:
 * --json prints one object after the command's output (--result-fd N:
 * on descriptor N instead, stdout being the command's alone), a denial prints
 * one line an agent can act on, and the exit status says the rest (see
 * the table in usage()).
 *
 * Fail closed on the log: when the sandbox/run event of a run that did
 * start cannot be appended, the run's result is still shown (its effects
 * happened) but the exit status is 74, never the command's own.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "classify.h"
#include "cli.h"
#include "run.h"
#include "approvefd.h"
#include "session.h"
#include "text.h"
#include "vocab.h"
#include "wconfig.h"

struct run_opts {
	int json;
	int result_fd;          /* --result-fd N, -1: the object on stdout */
	int approve_fd;         /* --approve-fd N, -1: none */
	int require_full;       /* --require-full */
	long timeout_ms;        /* 0: none */
	int escalate;           /* requested mode, 0: none */
	int escalate_network;   /* --escalate-network */
	const char *justification;
	const char *cwd;        /* --cwd */
	const char *call_id;    /* --call-id */
	const char *command;    /* -c */
	char **argv;            /* -- ARGV... */
	size_t argc;
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--session ID] run [--json] [--result-fd N] [--approve-fd N] [--timeout S]\n"
	        "                  [--require-full] [--cwd DIR] [--call-id C]\n"
	        "                  [--escalate MODE] [--escalate-network]\n"
	        "                  [--justification TEXT]\n"
	        "                  (-c 'COMMAND' | -- ARGV...)\n"
	        "\n"
	        "Runs one command inside the sandbox mode that policy resolution\n"
	        "gives (the session's mode, else the config's default_mode) and\n"
	        "says what happened: ok, failed, denied (the sandbox refused an\n"
	        "effect) or sandbox-error (the sandbox itself failed; the command\n"
	        "did not run).  danger-full-access runs the command unconfined.\n"
	        "\n"
	        "  -c COMMAND          run SHELL -c COMMAND ([warden] shell, default bash)\n"
	        "  -- ARGV...          run ARGV exactly (no shell)\n"
	        "  --json              print one JSON object on stdout after the\n"
	        "                      command's output: class, exit, signal, mode,\n"
	        "                      backend, enforcement, duration_ms, timed_out,\n"
	        "                      session, argv, status, escalate_to (the mode\n"
	        "                      a retry would need after a denial, or null),\n"
	        "                      network_denied, escalate_network (true when\n"
	        "                      a retry would need --escalate-network)\n"
	        "  --result-fd N       write that object to descriptor N (open for\n"
	        "                      writing) instead of stdout, which then carries\n"
	        "                      only the command's output; implies --json\n"
	        "  --approve-fd N      this run's approvals go to the caller on\n"
	        "                      descriptor N (a socket): approval.ask as\n"
	        "                      warden serve sends it, one JSON-RPC line each\n"
	        "                      way; in the client answerer's slot, else\n"
	        "                      after the configured answerers\n"
	        "  --timeout S         kill the command's process group after S\n"
	        "                      seconds (SIGTERM, then SIGKILL after 2 s)\n"
	        "  --require-full      only a backend that enforces the mode fully;\n"
	        "                      none: refuse (also require_full = yes)\n"
	        "  --cwd DIR           run in DIR (default: the current directory when\n"
	        "                      it lies inside the workspace root, else the root)\n"
	        "  --call-id C         the caller's tool-call id, in the approval\n"
	        "                      request and in the session's events\n"
	        "  --escalate MODE     ask the approval service to run this command\n"
	        "                      once under MODE (workspace-write or\n"
	        "                      danger-full-access); needs --justification\n"
	        "  --escalate-network  ask the approval service to run this command\n"
	        "                      once with the network enabled (alone, under\n"
	        "                      the session's mode, or with --escalate MODE);\n"
	        "                      needs --justification\n"
	        "  --justification TEXT  why the escalation is needed (the reason\n"
	        "                      the answerers see)\n"
	        "                      An escalation shows the answerers the argv, the\n"
	        "                      program's resolved path, the directory and the\n"
	        "                      environment it will run with, and runs exactly\n"
	        "                      that: the file opened before asking, without\n"
	        "                      BASH_ENV, ENV, the loader's and other start-up\n"
	        "                      variables, without PATH entries under the root\n"
	        "  --help              this text\n"
	        "\n"
	        "The command runs in --cwd DIR, else in the current directory when it\n"
	        "lies inside the workspace root, else in the root.  Its stdin,\n"
	        "stdout and stderr are warden's; it gets no\n"
	        "other descriptor, runs in a process group of its own, and gets the\n"
	        "environment minus the names [warden] scrub_env removes.  SIGINT,\n"
	        "SIGTERM, SIGHUP and SIGQUIT are forwarded to the group.  With a\n"
	        "session, every run appends a sandbox/run event with phase start\n"
	        "before it is spawned and one with phase end when it ends.\n"
	        "\n"
	        "exit status:\n"
	        "  N    the command's own status (ok, failed, denied)\n"
	        "  128+N  the command was killed by signal N\n"
	        "  124  --timeout fired; the command's group was killed\n"
	        "  125  sandbox-error: the sandbox runner failed, the command did not run\n"
	        "  126  the program is not executable; nothing ran\n"
	        "  127  the program was not found; nothing ran\n"
	        "  64   usage error\n"
	        "  65   damaged session log\n"
	        "  69   SANDBOX_UNAVAILABLE: no backend can enforce the mode; nothing ran\n"
	        "  74   a sandbox/run event could not be recorded (the command may\n"
	        "       have run when its end could not; nothing runs when the log\n"
	        "       is known unwritable or its start could not be recorded)\n"
	        "  77   refused: --require-full with only partial backends, or an\n"
	        "       escalation that was not allowed-once; nothing ran (an\n"
	        "       escalation withdrawn by SIGINT/SIGTERM: 128+N)\n"
	        "  78   configuration error\n");
}

/* ------------------------------------------------------------- options */

/* --result-fd N: a descriptor that is open for writing, checked before
 * anything runs. */
static int parse_result_fd(const char *s, int *fd)
{
	char *end;
	long v;
	int fl;

	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > INT_MAX)
		return warden_cli_usage("run: --result-fd '%s': give a descriptor number (e.g. --result-fd 3 3>result.json)",
		                        s);
	fl = fcntl((int)v, F_GETFL);
	if (fl < 0)
		return warden_cli_usage("run: --result-fd %ld: descriptor %ld is not open (open it for writing, e.g. %ld>result.json)",
		                        v, v, v);
	if ((fl & O_ACCMODE) == O_RDONLY || (fl & O_PATH) != 0)
		return warden_cli_usage("run: --result-fd %ld: descriptor %ld is not open for writing (e.g. %ld>result.json)",
		                        v, v, v);
	*fd = (int)v;
	return 0;
}

/* --approve-fd N: a socket, read and written by the approval service. */
static int parse_approve_fd(const char *s, int *fd)
{
	char *end;
	long v;
	int type;
	socklen_t len = sizeof(type);

	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > INT_MAX || v < 3)
		return warden_cli_usage("run: --approve-fd '%s': give a descriptor number of 3 or more (one end of a socket the caller answers on)",
		                        s);
	if (fcntl((int)v, F_GETFL) < 0)
		return warden_cli_usage("run: --approve-fd %ld: descriptor %ld is not open (pass one end of a socket pair)",
		                        v, v);
	if (getsockopt((int)v, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
		return warden_cli_usage("run: --approve-fd %ld: descriptor %ld is not a stream socket (pass one end of a socket pair or a connected unix socket)",
		                        v, v);
	*fd = (int)v;
	return 0;
}

static int parse_timeout(const char *s, long *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v <= 0 ||
	    v > (WARDEN_RUN_TIMEOUT_MAX_MS / 1000.0))
		return warden_cli_usage("run: --timeout '%s': give seconds, more than 0 and at most %.0f (e.g. 30 or 0.5)",
		                        s, (WARDEN_RUN_TIMEOUT_MAX_MS / 1000.0));
	*ms = (long)(v * 1000.0);
	if (*ms < 1)
		*ms = 1;
	return 0;
}

static int parse_opts(int argc, char **argv, struct run_opts *o, int *help)
{
	enum { OPT_JSON = 256, OPT_TIMEOUT, OPT_REQUIRE_FULL, OPT_ESCALATE,
	       OPT_ESCALATE_NETWORK, OPT_JUSTIFICATION, OPT_CWD, OPT_CALL_ID,
	       OPT_RESULT_FD, OPT_APPROVE_FD };
	static const struct option longs[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "require-full", no_argument, NULL, OPT_REQUIRE_FULL },
		{ "escalate", required_argument, NULL, OPT_ESCALATE },
		{ "escalate-network", no_argument, NULL, OPT_ESCALATE_NETWORK },
		{ "justification", required_argument, NULL, OPT_JUSTIFICATION },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "call-id", required_argument, NULL, OPT_CALL_ID },
		{ "result-fd", required_argument, NULL, OPT_RESULT_FD },
		{ "approve-fd", required_argument, NULL, OPT_APPROVE_FD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, r;

	memset(o, 0, sizeof(*o));
	o->result_fd = -1;
	o->approve_fd = -1;
	*help = 0;
	optind = 0;
	opterr = 0;
	/* '+': the command's own options are never ours. */
	while ((ch = getopt_long(argc, argv, "+hc:", longs, NULL)) != -1) {
		switch (ch) {
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_RESULT_FD:
			if (o->result_fd >= 0)
				return warden_cli_usage("run: --result-fd given twice");
			if ((r = parse_result_fd(optarg, &o->result_fd)) != 0)
				return r;
			o->json = 1;
			break;
		case OPT_APPROVE_FD:
			if (o->approve_fd >= 0)
				return warden_cli_usage("run: --approve-fd given twice");
			if ((r = parse_approve_fd(optarg, &o->approve_fd)) != 0)
				return r;
			break;
		case OPT_TIMEOUT:
			if ((r = parse_timeout(optarg, &o->timeout_ms)) != 0)
				return r;
			break;
		case OPT_REQUIRE_FULL:
			o->require_full = 1;
			break;
		case OPT_ESCALATE:
			o->escalate = warden_mode_parse(optarg);
			if (o->escalate != WARDEN_SANDBOX_WORKSPACE_WRITE &&
			    o->escalate != WARDEN_SANDBOX_DANGER_FULL_ACCESS)
				return warden_cli_usage("run: --escalate '%s': escalate to workspace-write or danger-full-access",
				                        optarg);
			break;
		case OPT_ESCALATE_NETWORK:
			o->escalate_network = 1;
			break;
		case OPT_JUSTIFICATION:
			o->justification = optarg;
			break;
		case OPT_CWD:
			if (optarg[0] == '\0')
				return warden_cli_usage("run: --cwd needs a directory");
			o->cwd = optarg;
			break;
		case OPT_CALL_ID:
			if (optarg[0] == '\0')
				return warden_cli_usage("run: --call-id needs the caller's tool-call id");
			o->call_id = optarg;
			break;
		case 'c':
			if (o->command != NULL)
				return warden_cli_usage("run: -c given twice");
			o->command = optarg;
			break;
		case 'h':
			*help = 1;
			return 0;
		case '?':
			if (optopt == 'c')
				return warden_cli_usage("run: -c needs the command as its argument");
			return warden_cli_usage("run: unknown option '%s'", argv[optind - 1]);
		default:
			return warden_cli_usage("run: option '%s' needs an argument", argv[optind - 1]);
		}
	}
	if (o->escalate && (o->justification == NULL || o->justification[0] == '\0'))
		return warden_cli_usage("run: --escalate needs --justification TEXT (why the command needs that mode)");
	if (o->escalate_network && (o->justification == NULL || o->justification[0] == '\0'))
		return warden_cli_usage("run: --escalate-network needs --justification TEXT (why the command needs the network)");
	if (!o->escalate && !o->escalate_network && o->justification != NULL)
		return warden_cli_usage("run: --justification goes with --escalate MODE or --escalate-network");
	if (optind < argc) {
		if (o->command != NULL)
			return warden_cli_usage("run: give either -c COMMAND or -- ARGV..., not both");
		if (strcmp(argv[optind - 1], "--") != 0)
			return warden_cli_usage("run: put -- before the command's argv (warden run -- %s ...)",
			                        argv[optind]);
		o->argv = argv + optind;
		o->argc = (size_t)(argc - optind);
	} else if (o->command == NULL) {
		return warden_cli_usage("run: no command: give -c 'COMMAND' or -- ARGV...");
	}
	if (o->argv != NULL && o->argv[0][0] == '\0')
		return warden_cli_usage("run: the program name is empty");
	return 0;
}

/* --------------------------------------------------------------- output */

/* Writes all of buf to fd: 0, or -1 with errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The result object: the last line of stdout, or one line on result_fd.
 * 0, or -1 when it could not be delivered to result_fd (said on stderr:
 * the caller never got its result).
 */
static int print_json(const struct warden_run_report *rep, int result_fd)
{
	json_t *o = warden_run_report_json(rep);
	const struct warden_spawn_result *sr = rep->spawn;
	char *text;
	int r;

	if (o == NULL) {
		fputs("warden: run: out of memory\n", stderr);
		return -1;
	}
	json_object_set_new(o, "session", rep->session[0]
	                    ? warden_cli_json_string(rep->session) : json_null());
	json_object_set_new(o, "status", json_integer(rep->status));
	if (result_fd < 0) {
		/* The object is the last line of stdout, on a line of its own. */
		if (sr != NULL && sr->stdout_total > 0 && sr->stdout_last != '\n')
			putchar('\n');
		json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
		fflush(stdout);
		json_decref(o);
		return 0;
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL) {
		fputs("warden: run: out of memory\n", stderr);
		return -1;
	}
	/* A reader that went away is an error to report, not a death. */
	signal(SIGPIPE, SIG_IGN);
	r = write_all(result_fd, text, strlen(text));
	if (r == 0)
		r = write_all(result_fd, "\n", 1);
	if (r < 0)
		warden_text_line(stderr, "warden: run: the result could not be written to descriptor %d: %s",
		                 result_fd, strerror(errno));
	free(text);
	return r;
}

/* One short stderr line after a denial: who denied it and what to do
 * (a network denial and a file denial each get theirs). */
static void print_denial(const struct warden_run_report *rep,
                         const struct run_opts *o)
{
	const char *mode = warden_mode_name(rep->mode);

	if (rep->network_denied && rep->network == WARDEN_NETWORK_ALLOWLIST) {
		/* denial names the destination and the domain to add. */
		warden_text_line(stderr,
		        "warden: denied by the allowlist network (%s sandbox, %s): %s%s%s",
		        mode, rep->backend, rep->denial,
		        rep->policy == WARDEN_POLICY_NEVER ? "" : "; or: warden run --escalate-network --justification 'WHY' ",
		        rep->policy == WARDEN_POLICY_NEVER ? "" : o->command != NULL ? "-c '...'" : "-- ...");
		if (!rep->file_denied)
			return;
	} else if (rep->network_denied) {
		if (rep->policy == WARDEN_POLICY_NEVER)
			warden_text_line(stderr,
			        "warden: denied by the restricted network (%s sandbox, %s): %s; escalation is not possible (approval policy never)",
			        mode, rep->backend, rep->network_denial);
		else
			warden_text_line(stderr,
			        "warden: denied by the restricted network (%s sandbox, %s): %s; to ask for the network: warden run --escalate-network --justification 'WHY' %s",
			        mode, rep->backend, rep->network_denial,
			        o->command != NULL ? "-c '...'" : "-- ...");
		if (!rep->file_denied)
			return;
	}
	if (rep->policy == WARDEN_POLICY_NEVER) {
		warden_text_line(stderr,
		        "warden: denied by the %s sandbox (%s): %s; escalation is not possible (approval policy never)",
		        mode, rep->backend, rep->denial);
		return;
	}
	warden_text_line(stderr,
	        "warden: denied by the %s sandbox (%s): %s; to ask for more: warden run --escalate %s --justification 'WHY' %s",
	        mode, rep->backend, rep->denial,
	        warden_mode_name(warden_run_next_mode(rep->mode)),
	        o->command != NULL ? "-c '...'" : "-- ...");
}

/* After a failed run whose stderr read like a refusal without evidence. */
static void print_hint(const struct warden_run_report *rep)
{
	if (rep->cls == WARDEN_CLASS_FAILED && rep->hint[0] != '\0')
		warden_text_line(stderr, "warden: failed, not denied: %s", rep->hint);
}

static void print_notice(void *arg, const char *line)
{
	(void)arg;
	warden_text_line(stderr, "warden: run: %s", line);
}

int warden_cmd_run(struct warden_cli *cli, int argc, char **argv)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_consumer *consumer = NULL;
	struct warden_run_request req;
	struct warden_run_report rep;
	struct run_opts o;
	int r, help, status;

	if ((r = parse_opts(argc, argv, &o, &help)) != 0)
		return r;
	if (help) {
		usage(stdout);
		return 0;
	}
	memset(&rep, 0, sizeof(rep));
	if (cli->session_id != NULL && cli->session_id[0] != '\0' &&
	    warden_session_id_check(cli->session_id, &err) < 0)
		return warden_cli_fail(&err);
	if (warden_config_load(cli->config_path, &cfg, &err) < 0)
		return warden_cli_fail(&err);

	memset(&req, 0, sizeof(req));
	req.session_id = cli->session_id;
	req.command = o.command;
	req.argv = (const char *const *)o.argv;
	req.argc = o.argc;
	req.timeout_ms = o.timeout_ms;
	req.require_full = o.require_full;
	req.escalate = o.escalate;
	req.escalate_network = o.escalate_network;
	req.justification = o.justification;
	req.cwd = o.cwd;
	req.call_id = o.call_id;
	/* Through a pipe only when the object follows the output on stdout
	 * and must know whether the output ended a line. */
	req.pipe_stdout = o.json && o.result_fd < 0;
	req.notice = print_notice;
	if ((r = warden_consumer_new(cfg, &consumer, &err)) == 0 && o.approve_fd >= 0 &&
	    warden_approvefd_attach(consumer, cfg, o.approve_fd) < 0)
		r = warden_error_errno(&err, WARDEN_EOS, errno, "run: --approve-fd %d", o.approve_fd);
	if (r == 0)
		r = warden_consumer_run(consumer, &req, &rep, &err);
	if (r < 0) {
		status = warden_cli_fail(&err);
		goto out;
	}
	status = rep.status;
	if (rep.record_error[0] != '\0')
		warden_text_line(stderr, "warden: run: %s the sandbox/run event could not be appended to session %s: %s",
		        rep.started ? "the command ran but" : "nothing ran and",
		        rep.session, rep.record_error);
	if (!rep.started && rep.refused != NULL)
		warden_text_line(stderr, "warden: run: %s; nothing was run", rep.reason);
	else if (rep.cls == WARDEN_CLASS_SANDBOX_ERROR)
		warden_text_line(stderr, "warden: run: sandbox-error: %s; the command did not run",
		        rep.reason);
	else if (rep.cls == WARDEN_CLASS_DENIED)
		print_denial(&rep, &o);
	else if (rep.timed_out)
		warden_text_line(stderr, "warden: run: timed out after %.3g s; the command's process group was killed",
		        (double)rep.timeout_ms / 1000.0);
	else
		print_hint(&rep);
	if (o.json && print_json(&rep, o.result_fd) < 0 && o.result_fd >= 0)
		status = WARDEN_EIO;
out:
	warden_run_report_clear(&rep);
	warden_consumer_free(consumer);
	warden_config_free(cfg);
	return status;
}
