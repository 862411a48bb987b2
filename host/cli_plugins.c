/*
 * cli_plugins.c — `warden plugins [--json]`: the plugins operation
 * (ops_plugins.c) printed: every configured plugin, its status (loaded,
 * missing, malformed, failed), reason, ABI, version, path, and each
 * backend's probes in read-only and workspace-write.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "ops.h"
#include "text.h"

static const char *const probe_modes[2] = { "read-only", "workspace-write" };

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void print_text(json_t *p)
{
	const char *reason = str(p, "reason"), *name = str(p, "name");
	const char *path = str(p, "path"), *isolation = str(p, "isolation");
	json_t *probes = json_object_get(p, "probes");
	int m;

	warden_text_printf(stdout, "[%s %s] %s", str(p, "section"), str(p, "instance"),
	                   str(p, "status"));
	if (reason != NULL)
		warden_text_printf(stdout, ": %s", reason);
	/* What the plugin says it is, once its descriptor was accepted; a
	 * refused ABI is already in the reason. */
	if (name != NULL)
		warden_text_printf(stdout, "; %s %s, abi %s", name,
		                   str(p, "version") != NULL ? str(p, "version") : "",
		                   str(p, "abi") != NULL ? str(p, "abi") : "0.0");
	if (isolation != NULL)
		printf(", isolation %s", isolation);
	warden_text_line(stdout, "; %s", path != NULL ? path : str(p, "plugin"));
	for (m = 0; json_is_object(probes) && m < 2; m++) {
		json_t *q = json_object_get(probes, probe_modes[m]);
		const char *detail = str(q, "detail"), *net = str(q, "network");
		const char *net_detail = str(q, "network_detail");

		if (json_is_true(json_object_get(q, "usable")))
			warden_text_line(stdout, "    %s: %s, privilege %s%s%s", probe_modes[m],
			                 str(q, "enforcement"),
			                 json_is_true(json_object_get(q, "privilege_dropped"))
			                 ? "dropped" : "KEPT",
			                 detail != NULL ? "; " : "", detail != NULL ? detail : "");
		else
			warden_text_line(stdout, "    %s: unusable: %s", probe_modes[m],
			                 detail != NULL ? detail : "no reason given");
		if (json_is_true(json_object_get(q, "usable")) && net != NULL)
			warden_text_line(stdout, "    %s, network restricted: %s%s%s", probe_modes[m],
			                 net, net_detail != NULL ? "; " : "",
			                 net_detail != NULL ? net_detail : "");
	}
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden plugins [--json]\n"
	        "\n"
	        "Loads and opens every configured backend and answerer, in\n"
	        "config order, each in a throwaway child process, and prints\n"
	        "its status: loaded, missing, malformed (reason says why) or\n"
	        "failed (open() refused or crashed), with the plugin's name,\n"
	        "version, ABI and the file it was loaded from.  Each loaded backend\n"
	        "is probed in read-only and workspace-write: usable or why not,\n"
	        "enforcement (full/partial), and whether the confined command's\n"
	        "privilege (every capability) is dropped.\n"
	        "\n"
	        "  --json   one JSON object: {\"config\": FILE, \"plugins\": [...]}\n"
	        "  --help   this text\n"
	        "\n"
	        "Exit status: 0 when the list was printed (whatever the plugins'\n"
	        "status), 78 on a config error.\n");
}

int warden_cmd_plugins(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, NULL);
	struct warden_error err = { 0, "" };
	json_t *root, *p;
	int ch, json = 0;
	size_t i;

	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return warden_cli_usage("plugins: bad option");
		}
	}
	if (optind < argc)
		return warden_cli_usage("plugins: unexpected argument '%s'", argv[optind]);
	if ((root = warden_op_plugins(&op)) == NULL)
		return warden_cli_op_fail(&op, "plugins");
	if (json)
		return warden_cli_print_json(root, &err) < 0 ? warden_cli_fail(&err) : 0;
	warden_text_line(stdout, "config: %s", str(root, "config"));
	if (json_array_size(json_object_get(root, "plugins")) == 0)
		printf("no plugins configured\n");
	json_array_foreach(json_object_get(root, "plugins"), i, p)
		print_text(p);
	json_decref(root);
	return 0;
}
