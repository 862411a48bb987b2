/*
 * cli_network.c — the network knob of DESIGN §2 ("Network knob") and §8:
 *
 *   warden network [--json]                 the effective network and its source
 *   warden network set restricted|allowlist|enabled   the session's sandbox/network
 *
 * Both act on the global --session (else $WARDEN_SESSION); `warden
 * network` without a session shows what a run without one would get (the
 * config's default_network).  `set` is the single write path of the knob
 * from the command line: one sandbox/network event, appended only after
 * every argument was checked and only when the value changes.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ops.h"
#include "policy.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--session ID] network [--json]\n"
	        "       warden [--session ID] network set restricted|allowlist|enabled\n"
	        "\n"
	        "The network knob, independent of the sandbox mode:\n"
	        "  restricted  a confined command reaches no socket outside its own\n"
	        "              process tree: no TCP, UDP or raw socket to any\n"
	        "              address (loopback included), no host unix socket,\n"
	        "              pathname or abstract, but those [warden]\n"
	        "              allow_unix_socket names\n"
	        "  allowlist   a confined command reaches only warden's proxy\n"
	        "              (HTTP CONNECT, absolute-URI HTTP, SOCKS5), which\n"
	        "              lets through [warden] allowed_domains, refuses\n"
	        "              denied_domains (deny wins) and asks the approval\n"
	        "              waterfall about every other destination\n"
	        "  enabled     the host's network\n"
	        "\n"
	        "Without `set`: the effective value and where it comes from\n"
	        "(explicit, mode, session or config).  danger-full-access confines\n"
	        "nothing, so under it the network is always enabled.  `set` records\n"
	        "a sandbox/network event in the session (nothing when the session\n"
	        "already records that value).  Default: [warden] default_network,\n"
	        "else restricted.\n"
	        "\n"
	        "  --json  one JSON object instead of text\n"
	        "  --help  this text\n");
}

static int show(struct warden_cli *cli, int json)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	struct warden_error err = { 0, "" };
	json_t *res;

	if ((res = warden_op_network(&op)) == NULL)
		return warden_cli_op_fail(&op, "network");
	if (json)
		return warden_cli_print_json(res, &err) < 0 ? warden_cli_fail(&err) : 0;
	printf("network: %s (%s)\n", json_string_value(json_object_get(res, "network")),
	       json_string_value(json_object_get(res, "source")));
	json_decref(res);
	return 0;
}

static int set(struct warden_cli *cli, const char *value)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	json_t *res;

	if (warden_network_parse(value) < 0)
		return warden_cli_usage("network set: not a network setting (allowed: restricted, allowlist, enabled)");
	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("network set: no session (give --session ID or set WARDEN_SESSION)");
	if ((res = warden_op_knob_set(&op, WARDEN_OP_NETWORK, value)) == NULL)
		return warden_cli_op_fail(&op, "network set");
	printf("%s\n", json_string_value(json_object_get(res, "message")));
	json_decref(res);
	return 0;
}

int warden_cmd_network(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, json = 0, is_set;

	is_set = argc >= 2 && strcmp(argv[1], "set") == 0;
	if (is_set) {
		argc--;
		argv++;
	}
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (is_set)
				return warden_cli_usage("network set: no --json here");
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return warden_cli_usage("network: bad option '%s'", argv[optind - 1]);
		}
	}
	if (is_set) {
		if (optind + 1 != argc)
			return warden_cli_usage("network set: expected exactly one value (restricted, allowlist or enabled)");
		return set(cli, argv[optind]);
	}
	if (optind < argc)
		return warden_cli_usage("network: unknown subcommand (expected 'warden network' or 'warden network set restricted|allowlist|enabled')");
	return show(cli, json);
}
