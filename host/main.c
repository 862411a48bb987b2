/*
 * main.c — the `warden` command: global options, then one subcommand.
 *
 * The table below is the whole list of subcommands; --help prints it,
 * with the exit codes every subcommand shares.
 */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <warden/plugin.h>

#include "cli.h"
#include "ops.h"
#include "text.h"
#include "wjson.h"

static const struct warden_command commands[] = {
	{ "plugins", warden_cmd_plugins, "plugins [--json]            every configured plugin and its status" },
	{ "config", warden_cmd_config, "config check [--json]       validate the config; summarise it" },
	{ "session", warden_cmd_session, "session new [--cwd DIR] | show ID [--json] | state ID [--json]" },
	{ "mode", warden_cmd_mode, "mode set MODE               the session's sandbox mode" },
	{ "policy", warden_cmd_policy, "policy set ask|never        the session's approval policy" },
	{ "network", warden_cmd_network, "network [--json] | network set restricted|allowlist|enabled  the session's network knob" },
	{ "roots", warden_cmd_roots, "roots list [--json] | add DIR | remove DIR  the session's writable roots beside its root" },
	{ "grant", warden_cmd_grant, "grant list [--json] | revoke ID  the session's approval grants" },
	{ "preset", warden_cmd_preset, "preset list [--json] | select NAME | current [--json]" },
	{ "confine", warden_cmd_confine, "confine [--mode M] [--network N] [--root DIR] [--backend NAME] [--json] [--status-fd N] [-0] -- ARGV...  the confined argv of a command" },
	{ "run", warden_cmd_run, "run [--json] [--result-fd N] [--approve-fd N] [--timeout S] [--require-full] [--escalate MODE] [--escalate-network] [--justification TEXT] (-c COMMAND | -- ARGV...)  run a command in the sandbox" },
	{ "serve", warden_cmd_serve, "serve [--socket PATH]       every operation over JSON-RPC 2.0 (stdio or a unix socket)" },
	{ "mcp", warden_cmd_mcp, "mcp [--cwd DIR]             a Model Context Protocol server on stdio: a sandboxed run tool, approvals by elicitation" },
	{ "approve", warden_cmd_approve, "approve --tool T --subject S [--reason R] [--call-id C] [--mode M] [--deadline-ms N] [--json]  ask the answerers once (exit 0 allowed-once or allowed-for-session, 1 rejected, 2 cancelled, 3 unavailable)" },
	{ NULL, NULL, NULL },
};

static void print_help(FILE *f)
{
	const struct warden_command *c;

	fprintf(f,
	        "usage: warden [--config FILE] [--session ID] COMMAND [ARGS...]\n"
	        "\n"
	        "Decides what a coding agent may do: runs commands inside a\n"
	        "sandbox backend and asks a waterfall of answerers for approval.\n"
	        "\n"
	        "global options:\n"
	        "  --config FILE   config file (else $WARDEN_CONFIG,\n"
	        "                  $XDG_CONFIG_HOME/warden/warden.ini,\n"
	        "                  " WARDEN_SYSCONF_FILE ", else built-in)\n"
	        "  --session ID    session to act on (default $WARDEN_SESSION)\n"
	        "  --help          this text\n"
	        "  --version       print the version\n"
	        "\n"
	        "commands:\n");
	for (c = commands; c->name != NULL; c++)
		fprintf(f, "  warden %s\n", c->synopsis);
	fprintf(f,
	        "\n"
	        "exit status:\n"
	        "  0   success (approve: allowed-once)\n"
	        "  64  usage error\n"
	        "  65  bad data (damaged session log, bad session id)\n"
	        "  69  unavailable (no usable sandbox backend, SANDBOX_UNAVAILABLE)\n"
	        "  70  internal error\n"
	        "  71  system error (fork, pipe)\n"
	        "  74  I/O error\n"
	        "  77  refused\n"
	        "  78  configuration error\n"
	        "\n"
	        "See warden(1), warden.ini(5) and warden-plugin(7).\n");
}

void warden_cli_json_init(void)
{
	warden_json_init_exiting();
}

int warden_cli_json_failed(void)
{
	return warden_json_failures() != 0;
}

int warden_cli_print_json(json_t *o, struct warden_error *err)
{
	char *text = NULL;
	int r = 0;

	if (o != NULL && !warden_cli_json_failed())
		text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL || warden_cli_json_failed()) {
		free(text);
		return warden_error_set(err, WARDEN_EOS,
		                        "out of memory while building the JSON output (nothing printed)");
	}
	if (fputs(text, stdout) == EOF || putchar('\n') == EOF || fflush(stdout) != 0)
		r = warden_error_set(err, WARDEN_EIO, "cannot write the output");
	free(text);
	return r;
}

int warden_cli_fail(const struct warden_error *err)
{
	warden_text_line(stderr, "warden: %s", err->msg[0] ? err->msg : "unknown error");
	return err->code ? err->code : WARDEN_EINTERNAL;
}

int warden_cli_op_fail(const struct warden_op *op, const char *what)
{
	const char *msg = op->err.msg[0] ? op->err.msg : "unknown error";

	/* An argument the operation refused is named with the command's
	 * words; anything else speaks for itself. */
	if (op->field != NULL)
		warden_text_line(stderr, "warden: %s: %s", what, msg);
	else
		warden_text_line(stderr, "warden: %s", msg);
	return op->err.code ? op->err.code : WARDEN_EINTERNAL;
}

json_t *warden_cli_json_string(const char *s)
{
	return warden_json_string_lossy(s);
}

int warden_cli_usage(const char *fmt, ...)
{
	char msg[WARDEN_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warden_text_line(stderr, "warden: %s (see warden --help)", msg);
	return WARDEN_EUSAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "session", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_cli cli = { NULL, getenv("WARDEN_SESSION") };
	const struct warden_command *c;
	int ch, sub;

	warden_cli_json_init();

	/* '+': stop at the first non-option, the subcommand. */
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			cli.config_path = optarg;
			break;
		case 's':
			cli.session_id = optarg;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		case 'V':
			printf("warden %s (plugin ABI %d.%d)\n", PACKAGE_VERSION,
			       WARDEN_PLUGIN_ABI_MAJOR, WARDEN_PLUGIN_ABI_MINOR);
			return 0;
		default:
			return warden_cli_usage("bad global option");
		}
	}
	if (optind >= argc)
		return warden_cli_usage("no command given");
	sub = optind;
	for (c = commands; c->name != NULL; c++) {
		if (strcmp(c->name, argv[sub]) == 0) {
			optind = 0; /* the subcommand runs its own getopt */
			return c->fn(&cli, argc - sub, argv + sub);
		}
	}
	return warden_cli_usage("unknown command '%s'", argv[sub]);
}
