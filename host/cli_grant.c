/*
 * cli_grant.c — the session's approval grants (DESIGN §3 "Grants", §8):
 *
 *   warden grant list [--json]   the grants in force: id, scope, when given
 *   warden grant revoke ID       an approval/revoke: the grant covers
 *                                nothing from now on
 *
 * Both act on the global --session (else $WARDEN_SESSION); grants belong
 * to one session and never exist without one.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ops.h"
#include "grant.h"
#include "session.h"
#include "text.h"
#include "wconfig.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--session ID] grant list [--json]\n"
	        "       warden [--session ID] grant revoke ID\n"
	        "\n"
	        "A grant is what an answer of allowed-for-session gives: a request\n"
	        "of this session that its scope covers is allowed without asking.\n"
	        "Scopes: exact (this program file, argv, directory, PATH, mode and\n"
	        "network), prefix:N (this program file and its first N argv words,\n"
	        "any directory), destination (network connections to HOST:PORT).\n"
	        "revoke writes an approval/revoke: the grant covers nothing after.\n"
	        "\n"
	        "  --json  one JSON object instead of text\n"
	        "  --help  this text\n");
}

static int no_session(struct warden_cli *cli, const char *sub)
{
	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("grant %s: no session (give --session ID or set WARDEN_SESSION): grants belong to a session",
		                        sub);
	return 0;
}

static int list(struct warden_cli *cli, int json)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	struct warden_error err = { 0, "" };
	json_t *res, *g;
	size_t i;
	int r;

	if ((r = no_session(cli, "list")) != 0)
		return r;
	if ((res = warden_op_grant_list(&op)) == NULL)
		return warden_cli_op_fail(&op, "grant list");
	if (json)
		return warden_cli_print_json(res, &err) < 0 ? warden_cli_fail(&err) : 0;
	if (json_array_size(json_object_get(res, "grants")) == 0)
		printf("no grant is in force\n");
	json_array_foreach(json_object_get(res, "grants"), i, g)
		warden_text_line(stdout, "%s  %s: %s (seq %lld, %s, answerer %s)",
		                 json_string_value(json_object_get(g, "id")),
		                 json_string_value(json_object_get(g, "name")) != NULL
		                 ? json_string_value(json_object_get(g, "name")) : "?",
		                 json_string_value(json_object_get(g, "text")),
		                 (long long)json_integer_value(json_object_get(g, "seq")),
		                 json_string_value(json_object_get(g, "time")),
		                 json_string_value(json_object_get(g, "answerer")) != NULL
		                 ? json_string_value(json_object_get(g, "answerer")) : "?");
	json_decref(res);
	return fflush(stdout) == 0 ? 0 : WARDEN_EIO;
}

static int revoke_grant(struct warden_cli *cli, const char *id)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	json_t *res;
	int r;

	if (!warden_grant_id_ok(id))
		return warden_cli_usage("grant revoke: '%.64s' is not a grant id (grant- and 16 hex digits: warden grant list shows them)",
		                        id);
	if ((r = no_session(cli, "revoke")) != 0)
		return r;
	if ((res = warden_op_grant_revoke(&op, id)) == NULL)
		return warden_cli_op_fail(&op, "grant revoke");
	printf("%s\n", json_string_value(json_object_get(res, "message")));
	json_decref(res);
	return 0;
}

int warden_cmd_grant(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub = argc >= 2 ? argv[1] : "";
	int ch, json = 0;

	if (strcmp(sub, "list") == 0 || strcmp(sub, "revoke") == 0) {
		argc--;
		argv++;
	} else if (strcmp(sub, "--help") != 0 && strcmp(sub, "-h") != 0) {
		return warden_cli_usage("grant: expected list or revoke ID");
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (strcmp(sub, "list") != 0)
				return warden_cli_usage("grant %s: no --json here", sub);
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return warden_cli_usage("grant: bad option '%s'", argv[optind - 1]);
		}
	}
	if (strcmp(sub, "list") == 0) {
		if (optind < argc)
			return warden_cli_usage("grant list: no argument expected");
		return list(cli, json);
	}
	if (optind + 1 != argc)
		return warden_cli_usage("grant revoke: expected exactly one grant id");
	return revoke_grant(cli, argv[optind]);
}
