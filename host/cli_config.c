/*
 * cli_config.c — `warden config check [--json]`: the config check
 * operation (ops_config.c) printed.  A bad config exits 78 with the
 * one-line file:line:key error.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ops.h"
#include "text.h"

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* warden's own inputs that a workspace-write run under the configured
 * root could rewrite, one line each. */
static void print_inputs_under_root(json_t *o)
{
	json_t *under = json_object_get(o, "inputs_under_workspace_root"), *v;
	size_t i;

	if (json_is_null(json_object_get(o, "workspace_root")))
		return;
	if (json_array_size(under) == 0) {
		printf("inputs under workspace_root: none\n");
		return;
	}
	printf("inputs under workspace_root (%zu): a workspace-write command could rewrite them to loosen later commands; bwrap keeps them read-only, Landlock refuses to confine (SANDBOX_UNAVAILABLE)\n",
	       json_array_size(under));
	json_array_foreach(under, i, v)
		warden_text_line(stdout, "  %s (%s)", str(v, "path"), str(v, "what"));
}

static void print_plugins(const char *what, json_t *a)
{
	json_t *p;
	size_t i;

	printf("%s (%zu):", what, json_array_size(a));
	if (json_array_size(a) == 0)
		printf(" none");
	json_array_foreach(a, i, p)
		warden_text_printf(stdout, "%s %s (plugin %s%s%s)", i ? "," : "",
		                   str(p, "name"), str(p, "plugin"),
		                   str(p, "isolation") != NULL ? ", " : "",
		                   str(p, "isolation") != NULL ? str(p, "isolation") : "");
	printf("\n");
}

static void print_deny(json_t *o)
{
	json_t *list = json_object_get(o, "deny_read"), *d, *m;
	size_t i, k, n = 0;

	json_array_foreach(list, i, d)
		n += json_array_size(json_object_get(d, "matches"));
	printf("deny_read (%zu patterns, %zu paths kept unread today):\n",
	       json_array_size(list), n);
	json_array_foreach(list, i, d) {
		json_array_foreach(json_object_get(d, "matches"), k, m)
			warden_text_line(stdout, "  deny_read = %s: %s", str(d, "pattern"),
			                 json_string_value(m));
		if (json_array_size(json_object_get(d, "matches")) == 0)
			warden_text_line(stdout, "  deny_read = %s: nothing today", str(d, "pattern"));
	}
}

static void print_summary(json_t *o)
{
	json_t *v;
	size_t i;

	warden_text_line(stdout, "config: %s: ok", str(o, "config"));
	printf("default_mode: %s\n", str(o, "default_mode"));
	printf("approval_policy: %s\n", str(o, "approval_policy"));
	if (str(o, "workspace_root") != NULL)
		warden_text_line(stdout, "workspace_root: %s", str(o, "workspace_root"));
	printf("require_full: %s\n", json_is_true(json_object_get(o, "require_full")) ? "true" : "false");
	warden_text_line(stdout, "state_dir: %s", str(o, "state_dir"));
	warden_text_line(stdout, "plugin_dir: %s", str(o, "plugin_dir"));
	print_plugins("backends", json_object_get(o, "backends"));
	print_plugins("answerers", json_object_get(o, "answerers"));
	json_array_foreach(json_object_get(o, "rules"), i, v)
		warden_text_line(stdout, "rules %s: %lld rules, %lld examples hold", str(v, "name"),
		                 (long long)json_integer_value(json_object_get(v, "rules")),
		                 (long long)json_integer_value(json_object_get(v, "examples")));
	printf("presets (%zu%s):", json_array_size(json_object_get(o, "presets")),
	       json_is_true(json_object_get(o, "presets_builtin")) ? ", built-in" : "");
	json_array_foreach(json_object_get(o, "presets"), i, v)
		warden_text_printf(stdout, "%s %s (%s, %s)", i ? "," : "", str(v, "name"),
		                   str(v, "sandbox"), str(v, "approval"));
	printf("\n");
	print_inputs_under_root(o);
	print_deny(o);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden config check [--json]\n"
	        "\n"
	        "Finds the config (--config, $WARDEN_CONFIG,\n"
	        "$XDG_CONFIG_HOME/warden/warden.ini, " WARDEN_SYSCONF_FILE ",\n"
	        "else the built-in default), validates every section and key,\n"
	        "and prints what it configures: the file used, the [warden]\n"
	        "settings, backends and answerers in order, and the presets.\n"
	        "Plugins are not loaded (see warden plugins), but every section\n"
	        "of the rules plugin is read as it will read it: its rules, and\n"
	        "every example_match/example_not_match against its rule.\n"
	        "\n"
	        "  --json   print the summary (or the error) as one JSON object\n"
	        "  --help   this text\n"
	        "\n"
	        "Exit status: 0 when valid; 78 on a config error, printed as\n"
	        "FILE:LINE: [SECTION] KEY ... (allowed: ...).\n");
}

int warden_cmd_config(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, NULL);
	struct warden_error err = { 0, "" };
	json_t *o;
	int ch, json = 0;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "check") != 0)
		return warden_cli_usage("config: expected 'warden config check [--json]'");
	argc--;
	argv++;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return warden_cli_usage("config check: bad option");
		}
	}
	if (optind < argc)
		return warden_cli_usage("config check: unexpected argument '%s'", argv[optind]);

	if ((o = warden_op_config_check(&op)) == NULL) {
		if (json) {
			struct warden_error jerr = { 0, "" };

			o = json_pack("{s:b,s:o,s:i}", "ok", 0,
			              "error", warden_cli_json_string(op.err.msg),
			              "exit", op.err.code);
			if (warden_cli_print_json(o, &jerr) < 0)
				warden_cli_fail(&jerr);
		}
		return warden_cli_op_fail(&op, "config check");
	}
	if (json)
		return warden_cli_print_json(o, &err) < 0 ? warden_cli_fail(&err) : 0;
	print_summary(o);
	json_decref(o);
	return 0;
}
