/*
 * cli_confine.c — `warden confine`: print the confined argv of a command
 * (DESIGN §2, §8) without running it.
 *
 *   warden confine [--mode M] [--network N] [--root DIR] [--backend NAME]
 *                  [--json] [--status-fd N] [-0] -- ARGV...
 *
 * The policy is resolved as for every action: --mode (an explicit mode)
 * over the session's last sandbox/mode (--session, $WARDEN_SESSION) over
 * the config's default_mode; the network is --network, else the
 * session's last sandbox/network, else the config's default_network
 * (restricted); the root is --root, else the session's cwd,
 * else the configured workspace_root, else the current directory.
 * danger-full-access is never confined: asking for it is an error, not an
 * unconfined argv.  No usable backend is SANDBOX_UNAVAILABLE (exit 69)
 * with each backend's reason.
 * In workspace-write the writable roots beside the root are the session's
 * (sandbox/roots) or the config's writable_roots with a worktree's common
 * directory, as for `warden run` (roots.h); the printed argv binds them by
 * path and its launcher locks each of them when it starts.
 *
 * The output is for a caller that spawns the argv itself: one element a
 * line (an argument holding a newline needs -0 or --json), NUL-terminated
 * elements with -0, or one JSON object with every fact a consumer needs
 * to spawn and classify the run.
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ops.h"
#include "denyread.h"
#include "inputs.h"
#include "policy.h"
#include "roots.h"
#include "sandbox.h"
#include "scratch.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden confine [--mode M] [--network N] [--root DIR]\n"
	        "                      [--backend NAME] [--json] [--status-fd N] [-0]\n"
	        "                      -- ARGV...\n"
	        "\n"
	        "Prints the argv that runs ARGV inside the sandbox, without running\n"
	        "it.  The mode is --mode, else the session's (--session or\n"
	        "$WARDEN_SESSION), else the config's default_mode; the network is\n"
	        "--network, else the session's, else default_network; the root is\n"
	        "--root, else the session's cwd, else workspace_root, else the\n"
	        "current directory.  danger-full-access is never confined.\n"
	        "With a session, the command's temp area is the session's (set\n"
	        "TMPDIR to --json's tmp_dir); without one, /tmp is read-only.\n"
	        "\n"
	        "  --mode M         read-only or workspace-write\n"
	        "  --network N      restricted or enabled\n"
	        "  --root DIR       the workspace root (must exist)\n"
	        "  --backend NAME   only this [backend NAME], not the first usable\n"
	        "  --status-fd N    the caller will give the command the write end\n"
	        "                   of a status pipe at descriptor N (> 2): the\n"
	        "                   backend reports out of band whether exec happened\n"
	        "  --json           one object: argv, backend, mode, enforcement,\n"
	        "                   writable_roots, roots, roots_notes,\n"
	        "                   privilege_dropped, evidence,\n"
	        "                   denial_signatures, runner_failure_rules, ...\n"
	        "  -0, --null       elements end with NUL instead of a newline\n"
	        "  --help           this text\n"
	        "\n"
	        "Exit status: 0 printed; 64 usage (incl. a bad root); 69\n"
	        "SANDBOX_UNAVAILABLE; 77 the resolved mode is danger-full-access;\n"
	        "78 config error.\n");
}

/* A descriptor number above 2, or -1. */
static int parse_fd(const char *s)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < 3 || v > 65535)
		return -1;
	return (int)v;
}

int warden_cmd_confine(struct warden_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "network", required_argument, NULL, 'n' },
		{ "root", required_argument, NULL, 'r' },
		{ "backend", required_argument, NULL, 'b' },
		{ "status-fd", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "null", no_argument, NULL, '0' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	struct warden_op_confine a;
	struct warden_error err = { 0, "" };
	const char *mode_arg = NULL, *root_arg = NULL, *backend = NULL, *net_arg = NULL;
	int ch, json = 0, nul = 0, mode, network = 0, status_fd = -1;
	char **out = NULL;
	size_t i, n = 0;
	json_t *o;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+0h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			mode_arg = optarg;
			break;
		case 'r':
			root_arg = optarg;
			break;
		case 'n':
			net_arg = optarg;
			break;
		case 'b':
			backend = optarg;
			break;
		case 'f':
			status_fd = parse_fd(optarg);
			if (status_fd < 0)
				return warden_cli_usage("confine: --status-fd '%s': give a descriptor number from 3 to 65535 (0-2 are the command's stdio)",
				                        optarg);
			break;
		case 'j':
			json = 1;
			break;
		case '0':
			nul = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return warden_cli_usage("confine: bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc || strcmp(argv[optind - 1], "--") != 0)
		return warden_cli_usage("confine: give the command after '--' (warden confine [OPTIONS] -- PROGRAM [ARGS...])");
	if (json && nul)
		return warden_cli_usage("confine: --json and -0 exclude each other");
	if (argv[optind][0] == '\0')
		return warden_cli_usage("confine: the program name after '--' is empty");
	if (mode_arg != NULL) {
		mode = warden_mode_parse(mode_arg);
		if (mode < 0)
			return warden_cli_usage("confine: --mode '%s': use read-only or workspace-write",
			                        mode_arg);
		if (mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
			return warden_cli_usage("confine: --mode danger-full-access is never confined: that mode runs a command as it is (use read-only or workspace-write)");
	}
	if (net_arg != NULL && (network = warden_network_parse(net_arg)) < 0)
		return warden_cli_usage("confine: --network '%s': use restricted or enabled",
		                        net_arg);
	if (network == WARDEN_NETWORK_ALLOWLIST)
		return warden_cli_usage("confine: --network allowlist needs warden's proxy for the life of the command, and confine only prints an argv: use warden run (or restricted or enabled here)");
	if (root_arg != NULL && root_arg[0] != '/')
		return warden_cli_usage("confine: --root '%s' is relative: give the absolute path of the workspace",
		                        root_arg);
	memset(&a, 0, sizeof(a));
	a.argv = (const char *const *)argv + optind;
	a.argc = (size_t)(argc - optind);
	a.mode = mode_arg;
	a.network = net_arg;
	a.root = root_arg;
	a.backend = backend;
	a.status_fd = status_fd;
	if ((o = warden_op_confine(&op, &a, &out, &n)) == NULL)
		return warden_cli_op_fail(&op, op.field != NULL && strcmp(op.field, "root") == 0
		                               ? "confine: --root" : "confine");
	if (json) {
		warden_op_confine_argv_free(out);
		return warden_cli_print_json(o, &err) < 0 ? warden_cli_fail(&err) : 0;
	}
	json_decref(o);
	for (i = 0; i < n; i++) {
		fputs(out[i], stdout);
		putchar(nul ? '\0' : '\n');
	}
	warden_op_confine_argv_free(out);
	if (fflush(stdout) != 0) {
		warden_error_set(&err, WARDEN_EIO, "confine: writing the output failed");
		return warden_cli_fail(&err);
	}
	return 0;
}
