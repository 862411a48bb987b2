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
#include "ops.h"
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
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	struct warden_op_approve req;
	struct warden_error err = { 0, "" };
	const char *command = NULL, *cwd = NULL;
	json_t *o;
	int ch, json = 0, rc;

	memset(&req, 0, sizeof(req));
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
			req.mode = optarg;
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
	if ((req.tool == NULL && command == NULL && req.argc == 0) ||
	    (req.tool != NULL && req.tool[0] == '\0') ||
	    (req.subject == NULL && command == NULL && req.argc == 0))
		return warden_cli_usage("approve: --tool and --subject are required (or a command: -c COMMAND or -- ARGV...)");
	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("approve: no session (give --session ID or "
		                        "set WARDEN_SESSION; `warden session new` "
		                        "makes one): every request is audited in "
		                        "the session's log");

	req.command = command;
	req.cwd = cwd;
	if ((o = warden_op_approve(&op, &req)) == NULL) {
		rc = warden_cli_op_fail(&op, "approve");
		fprintf(stderr, "warden: approve: the request was not decided; "
		        "refuse the operation\n");
		return rc;
	}
	rc = warden_op_approve_status(o);
	if (json) {
		if (warden_cli_print_json(o, &err) < 0)
			return warden_cli_fail(&err);
	} else {
		const char *answerer = json_string_value(json_object_get(o, "answerer"));
		const char *reason = json_string_value(json_object_get(o, "reason"));
		json_t *g = json_object_get(o, "grant");
		int grant_new = json_is_true(json_object_get(g, "new"));

		warden_text_line(stdout, "%s%s%s%s%s%s%s%s%s%s [%s]",
		                 json_string_value(json_object_get(o, "outcome")),
		                 answerer != NULL ? " (answerer " : "", answerer != NULL ? answerer : "",
		                 answerer != NULL ? ")" : "",
		                 reason != NULL ? ": " : "", reason != NULL ? reason : "",
		                 grant_new ? "; grant " : "",
		                 grant_new ? json_string_value(json_object_get(g, "id")) : "",
		                 grant_new ? " " : "",
		                 grant_new ? json_string_value(json_object_get(g, "scope")) : "",
		                 json_string_value(json_object_get(o, "request_id")));
		json_decref(o);
	}
	if (fflush(stdout) != 0)
		rc = WARDEN_EIO;
	return rc;
}
