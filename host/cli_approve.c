/*
 * cli_approve.c — `warden approve`: one approval request through the
 * service (approval.h), its outcome as the exit status.
 *
 *   warden approve --tool T --subject S [--reason R] [--call-id C]
 *                  [--mode M] [--deadline-ms N] [--json]
 *                  [--cwd DIR] [-c COMMAND | -- ARGV...]
 *
 * With -c or an argv the request describes a command, by the same rules
 * as `warden run --escalate` (host/program.h): the answerers see its argv,
 * the resolved program, the directory and the environment it would run
 * with, and --json prints them, so that a caller that runs the command
 * itself can run exactly that.  --tool is then bash and --subject the
 * command unless given.
 *
 * A session is required (--session, else $WARDEN_SESSION): every request
 * is audited in the session log, and a decision that cannot be logged is
 * never given.  Without one the command refuses (exit 64) instead of
 * inventing a log nobody would read.
 *
 * Exit status: 0 allowed-once, 1 rejected, 2 cancelled, 3 unavailable;
 * 64 and up (sysexits) when the request could not be asked or audited, in
 * which case nothing is printed on stdout.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "approval.h"
#include "cli.h"
#include "policy.h"
#include "program.h"
#include "run.h"
#include "session.h"
#include "text.h"
#include "vocab.h"
#include "wconfig.h"

static void approve_usage(FILE *f)
{
	fprintf(f,
	        "usage: warden approve --tool T --subject S [--reason R]\n"
	        "                      [--call-id C] [--mode M] [--deadline-ms N]\n"
	        "                      [--json] [--cwd DIR] [-c COMMAND | -- ARGV...]\n"
	        "\n"
	        "Asks once whether an operation may proceed: the session's\n"
	        "approval policy (never: rejected at once), else the answerers\n"
	        "of the config in order.  Both the request (approval/asked) and\n"
	        "its outcome (approval/decided) go to the session's log, so a\n"
	        "session is required (--session ID or $WARDEN_SESSION).\n"
	        "SIGINT or SIGTERM while an answerer decides withdraws the\n"
	        "request: cancelled.\n"
	        "\n"
	        "  --tool T         the tool that wants to act, e.g. bash\n"
	        "  --subject S      what it wants to do, e.g. the command line\n"
	        "  --reason R       why (shown to the answerers)\n"
	        "  --call-id C      the caller's tool-call id\n"
	        "  --mode M         for an escalation: the sandbox mode asked for\n"
	        "  --deadline-ms N  withdraw the request (cancelled) after N ms\n"
	        "  -c COMMAND       the request is about SHELL -c COMMAND ([warden]\n"
	        "                   shell, default bash)\n"
	        "  -- ARGV...       the request is about this argv\n"
	        "                   With either: the answerers see the argv, the\n"
	        "                   program's resolved path, the directory and the\n"
	        "                   environment it would run with (as warden run\n"
	        "                   --escalate); --tool defaults to bash, --subject\n"
	        "                   to the command\n"
	        "  --cwd DIR        with a command: the directory it would run in\n"
	        "                   (default: the current directory inside the\n"
	        "                   workspace root, else the root)\n"
	        "  --json           print {request_id, outcome, answerer, reason,\n"
	        "                   delegated}, and with a command, `command`: what\n"
	        "                   to run\n"
	        "  --help           this text\n"
	        "\n"
	        "exit status:\n"
	        "  0   allowed-once or allowed-for-session (proceed, once, with\n"
	        "      exactly this operation; for-session: under a grant, given now or before)\n"
	        "  1   rejected\n"
	        "  2   cancelled\n"
	        "  3   unavailable (no answerer decided, or one failed)\n"
	        "  64  usage (no session, bad option); 65 damaged session log;\n"
	        "  74  the audit could not be written; 77 the command cannot\n"
	        "      run safely (no PATH entry left); 78 bad config;\n"
	        "  126, 127  the command's program is not executable, not found:\n"
	        "      the request was not decided and nothing is printed on stdout\n");
}

static int exit_for(int outcome)
{
	switch (outcome) {
	case WARDEN_OUTCOME_ALLOWED_ONCE: return 0;
	case WARDEN_OUTCOME_ALLOWED_FOR_SESSION: return 0;
	case WARDEN_OUTCOME_REJECTED: return 1;
	case WARDEN_OUTCOME_CANCELLED: return 2;
	default: return 3;
	}
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? warden_cli_json_string(s) : json_null();
}

static json_t *names_json(const char *const *names, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, warden_cli_json_string(names[i]));
	return a;
}

/* What the caller is to run, exactly, when the answer is allowed-once. */
static json_t *command_json(const struct warden_approval_request *req,
                            const struct warden_program *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "argv", names_json(req->argv, req->argc));
	json_object_set_new(o, "program", warden_cli_json_string(p->path));
	json_object_set_new(o, "interpreter", str_or_null(p->interpreter));
	json_object_set_new(o, "program_writable", json_boolean(p->writable));
	json_object_set_new(o, "cwd", warden_cli_json_string(p->dir));
	json_object_set_new(o, "env_removed",
	                    names_json((const char *const *)p->env_removed,
	                               p->n_env_removed));
	json_object_set_new(o, "path_dropped",
	                    names_json((const char *const *)p->path_dropped,
	                               p->n_path_dropped));
	json_object_set_new(o, "env_config",
	                    names_json((const char *const *)p->env_config,
	                               p->n_env_config));
	json_object_set_new(o, "path",
	                    warden_cli_json_string(warden_program_path_value(p)));
	return o;
}

/* The command's directory, environment and program, under the session's
 * root (host/program.h).  0, a 126/127 status with why, or -code. */
static int describe(const struct warden_config *cfg, struct warden_session *s,
                    const struct warden_approval_request *req,
                    struct warden_program *prog, const char *cwd, char *why,
                    size_t whylen, struct warden_error *err)
{
	struct warden_resolved res;
	int r;

	if ((r = warden_policy_resolve_session(cfg, s, 0, &res, err)) < 0)
		return r;
	return warden_program_describe(prog, cfg, req->argv[0], cwd, res.root,
	                               why, whylen, err);
}

static int parse_deadline(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 86400000L)
		return -1;
	*out = v;
	return 0;
}

int warden_cmd_approve(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tool", required_argument, NULL, 't' },
		{ "subject", required_argument, NULL, 's' },
		{ "reason", required_argument, NULL, 'r' },
		{ "call-id", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, 'm' },
		{ "deadline-ms", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "cwd", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_approval_request req;
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_session *s = NULL;
	struct warden_approval *a = NULL;
	struct warden_program prog;
	const char *cmd_argv[4] = { NULL, "-c", NULL, NULL };
	const char *command = NULL, *cwd = NULL;
	char *subject = NULL, why[512];
	json_t *o, *delegated;
	size_t i;
	int ch, json = 0, rc;

	memset(&req, 0, sizeof(req));
	warden_program_init(&prog);
	optind = 0;
	opterr = 0;
	/* '+': a command's own options are never ours. */
	while ((ch = getopt_long(argc, argv, "+hc:", opts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			if (optarg[0] == '\0')
				return warden_cli_usage("approve: --cwd needs a directory");
			cwd = optarg;
			break;
		case 't': req.tool = optarg; break;
		case 's': req.subject = optarg; break;
		case 'r': req.reason = optarg; break;
		case 'i': req.call_id = optarg; break;
		case 'c':
			if (command != NULL)
				return warden_cli_usage("approve: -c given twice");
			command = optarg;
			break;
		case 'm':
			if (warden_mode_parse(optarg) < 0)
				return warden_cli_usage("approve: --mode %s: allowed: "
				                        "read-only, workspace-write, "
				                        "danger-full-access", optarg);
			req.requested_mode = optarg;
			break;
		case 'd':
			if (parse_deadline(optarg, &req.deadline_ms) < 0)
				return warden_cli_usage("approve: --deadline-ms %s: "
				                        "allowed: 1 to 86400000", optarg);
			break;
		case 'j': json = 1; break;
		case 'h':
			approve_usage(stdout);
			return 0;
		default:
			return warden_cli_usage("approve: bad option");
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return warden_cli_usage("approve: unexpected argument '%s' (an argv goes after --)",
			                        argv[optind]);
		if (command != NULL)
			return warden_cli_usage("approve: give either -c COMMAND or -- ARGV..., not both");
		if (argv[optind][0] == '\0')
			return warden_cli_usage("approve: the program name is empty");
		req.argv = (const char *const *)argv + optind;
		req.argc = (size_t)(argc - optind);
	}
	if (cwd != NULL && command == NULL && req.argc == 0)
		return warden_cli_usage("approve: --cwd goes with a command (-c COMMAND or -- ARGV...)");
	if ((command != NULL || req.argc > 0) && req.tool == NULL)
		req.tool = "bash";
	if (command != NULL && req.subject == NULL)
		req.subject = command;
	if (req.tool == NULL || req.tool[0] == '\0' ||
	    (req.subject == NULL && req.argc == 0))
		return warden_cli_usage("approve: --tool and --subject are required (or a command: -c COMMAND or -- ARGV...)");
	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("approve: no session (give --session ID or "
		                        "set WARDEN_SESSION; `warden session new` "
		                        "makes one): every request is audited in "
		                        "the session's log");

	if (warden_config_load(cli->config_path, &cfg, &err) < 0 ||
	    warden_session_open(cfg, cli->session_id, &s, &err) < 0) {
		rc = warden_cli_fail(&err);
		goto undecided;
	}
	if (command != NULL || req.argc > 0) {
		if (command != NULL) {
			cmd_argv[0] = cfg->shell != NULL ? cfg->shell : "bash";
			cmd_argv[2] = command;
			req.argv = cmd_argv;
			req.argc = 3;
		}
		if (req.subject == NULL &&
		    (req.subject = subject = warden_run_subject(req.argv, req.argc)) == NULL) {
			warden_error_set(&err, WARDEN_EOS, "approve: out of memory");
			rc = warden_cli_fail(&err);
			goto undecided;
		}
		if ((rc = describe(cfg, s, &req, &prog, cwd, why, sizeof(why), &err)) != 0) {
			if (rc < 0)
				rc = warden_cli_fail(&err);
			else
				warden_text_line(stderr, "warden: approve: %s", why);
			goto undecided;
		}
		req.program = &prog;
	}
	if (warden_approval_new(cfg, &a, &err) < 0 ||
	    warden_approval_ask(a, s, &req, &res, &err) < 0) {
		rc = warden_cli_fail(&err);
		goto undecided;
	}
	rc = exit_for(res.outcome);
	if (json) {
		o = json_object();
		json_object_set_new(o, "request_id", json_string(res.request_id));
		json_object_set_new(o, "outcome",
		                    json_string(warden_outcome_name(res.outcome)));
		json_object_set_new(o, "answerer", str_or_null(res.answerer));
		json_object_set_new(o, "reason", str_or_null(res.reason));
		delegated = json_array();
		for (i = 0; i < res.n_delegated && i < WARDEN_APPROVAL_DELEGATED_MAX; i++)
			json_array_append_new(delegated,
			                      warden_cli_json_string(res.delegated[i]));
		json_object_set_new(o, "delegated", delegated);
		if (res.grant[0])
			json_object_set_new(o, "grant",
			                    json_pack("{s:s,s:s,s:b}", "id", res.grant,
			                              "scope", res.grant_scope, "new", res.grant_new));
		if (req.program != NULL)
			json_object_set_new(o, "command", command_json(&req, &prog));
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(o);
	} else {
		warden_text_line(stdout, "%s%s%s%s%s%s%s%s%s%s [%s]",
		                 warden_outcome_name(res.outcome),
		                 res.answerer[0] ? " (answerer " : "", res.answerer,
		                 res.answerer[0] ? ")" : "",
		                 res.reason[0] ? ": " : "", res.reason,
		                 res.grant[0] && res.grant_new ? "; grant " : "",
		                 res.grant_new ? res.grant : "",
		                 res.grant[0] && res.grant_new ? " " : "",
		                 res.grant_new ? res.grant_scope : "",
		                 res.request_id);
	}
	if (fflush(stdout) != 0)
		rc = WARDEN_EIO;
	goto out;
undecided:
	fprintf(stderr, "warden: approve: the request was not decided; "
	        "refuse the operation\n");
out:
	free(subject);
	warden_program_free(&prog);
	warden_approval_free(a);
	warden_session_close(s);
	warden_config_free(cfg);
	return rc;
}
