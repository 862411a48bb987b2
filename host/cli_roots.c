/*
 * cli_roots.c — the session's writable roots beside its workspace root
 * (DESIGN §2 "The command's view of the host", §8):
 *
 *   warden roots list [--json]     every root a workspace-write run gets
 *                                  beside the workspace root, and why
 *   warden roots add DIR           the session's sandbox/roots, DIR added
 *   warden roots remove DIR        the session's sandbox/roots, DIR taken out
 *
 * They act on the global --session (else $WARDEN_SESSION); `list`
 * without a session shows the config's writable_roots.  add and remove
 * are the knob's write path from the command line (roots.h).
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ops.h"
#include "policy.h"
#include "roots.h"
#include "session.h"
#include "text.h"
#include "wconfig.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--session ID] roots list [--json]\n"
	        "       warden [--session ID] roots add DIR\n"
	        "       warden [--session ID] roots remove DIR\n"
	        "\n"
	        "Directories a workspace-write run may write beside the workspace\n"
	        "root.  Every protected path (.git/hooks, .git/config, ...) and every\n"
	        "read-only path stays read-only inside each, as in the root.  A\n"
	        "session starts with [warden] writable_roots; its first add or\n"
	        "remove records the whole list in the session (a sandbox/roots\n"
	        "event), which from then on is the session's own.  When the root or\n"
	        "a listed directory is a git worktree, the main repository's git\n"
	        "directory is writable too, its hooks and config read-only (source\n"
	        "worktree).\n"
	        "\n"
	        "  --json  one JSON object instead of text\n"
	        "  --help  this text\n");
}

static int list(struct warden_cli *cli, int json)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	struct warden_error err = { 0, "" };
	json_t *res, *v;
	size_t i;

	if ((res = warden_op_roots_list(&op)) == NULL)
		return warden_cli_op_fail(&op, "roots list");
	if (json)
		return warden_cli_print_json(res, &err) < 0 ? warden_cli_fail(&err) : 0;
	warden_text_line(stdout, "root: %s (workspace root)",
	                 json_string_value(json_object_get(res, "root")));
	json_array_foreach(json_object_get(res, "roots"), i, v) {
		const char *wt = json_string_value(json_object_get(v, "worktree"));

		warden_text_line(stdout, "root: %s (%s%s%s%s)",
		                 json_string_value(json_object_get(v, "path")),
		                 json_string_value(json_object_get(v, "source")),
		                 strcmp(json_string_value(json_object_get(v, "kind")), "git-common-dir") == 0
		                 ? ", git directory: hooks and config read-only" : "",
		                 wt != NULL ? ", for " : "", wt != NULL ? wt : "");
	}
	json_array_foreach(json_object_get(res, "notes"), i, v)
		warden_text_line(stdout, "note: %s", json_string_value(v));
	json_decref(res);
	return 0;
}

static int change(struct warden_cli *cli, const char *dir, int add)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	json_t *res;

	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("roots %s: no session (give --session ID or set WARDEN_SESSION; without one, list directories in [warden] writable_roots)",
		                        add ? "add" : "remove");
	if ((res = warden_op_roots_change(&op, dir, add)) == NULL)
		return warden_cli_op_fail(&op, add ? "roots add" : "roots remove");
	warden_text_line(stdout, "%s", json_string_value(json_object_get(res, "message")));
	json_decref(res);
	return 0;
}

int warden_cmd_roots(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub = argc >= 2 ? argv[1] : "";
	int ch, json = 0;

	if (strcmp(sub, "add") == 0 || strcmp(sub, "remove") == 0 ||
	    strcmp(sub, "list") == 0) {
		argc--;
		argv++;
	} else if (strcmp(sub, "--help") != 0 && strcmp(sub, "-h") != 0) {
		return warden_cli_usage("roots: expected list, add DIR or remove DIR");
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (strcmp(sub, "list") != 0)
				return warden_cli_usage("roots %s: no --json here", sub);
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return warden_cli_usage("roots: bad option '%s'", argv[optind - 1]);
		}
	}
	if (strcmp(sub, "list") == 0) {
		if (optind < argc)
			return warden_cli_usage("roots list: no argument expected");
		return list(cli, json);
	}
	if (optind + 1 != argc)
		return warden_cli_usage("roots %s: expected exactly one directory", sub);
	return change(cli, argv[optind], strcmp(sub, "add") == 0);
}
