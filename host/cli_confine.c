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

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, warden_cli_json_string(v[i]));
	return a;
}

static const char *evidence_name(int evidence)
{
	switch (evidence) {
	case WARDEN_EVIDENCE_BWRAP_JSON:
		return "bwrap-json-status";
	case WARDEN_EVIDENCE_EXEC_PIPE:
		return "exec-pipe";
	default:
		return "none";
	}
}

static json_t *rules_json(const struct warden_confined *c)
{
	json_t *a = json_array();
	size_t i, k;

	for (i = 0; i < c->n_runner_rules; i++) {
		const struct warden_runner_rule *r = &c->runner_rules[i];
		json_t *codes = json_array();

		for (k = 0; k < r->n_exit_codes; k++)
			json_array_append_new(codes, json_integer(r->exit_codes[k]));
		json_array_append_new(a, json_pack(
			"{s:o,s:o,s:o}", "exit_codes", codes,
			"fatal_signatures", strings_json((char *const *)r->fatal_signatures,
			                                 r->n_fatal_signatures),
			"informational_lines", strings_json((char *const *)r->informational_lines,
			                                    r->n_informational_lines)));
	}
	return a;
}

/* The roots beside the workspace root, as `warden run` finds them: the
 * session's list (its sandbox/roots) or the config's writable_roots, with
 * a worktree's common directory (roots.h).  They name paths: the printed
 * argv binds and locks them by path when it starts, like the root. */
static int more_roots(const struct warden_config *cfg,
                      const struct warden_resolved *res,
                      struct warden_roots *roots, struct warden_error *err)
{
	struct warden_session *s = NULL;
	int rc;

	if (res->session_id[0] != '\0' &&
	    (rc = warden_session_open(cfg, res->session_id, &s, err)) < 0)
		return rc;
	rc = warden_roots_resolve(cfg, s != NULL ? warden_session_knobs(s) : NULL,
	                          res->root, roots, err);
	warden_session_close(s);
	return rc;
}

/* What deny_read hides, expanded now, and what is bound over it. */
static int deny_read_policy(const struct warden_config *cfg,
                            const struct warden_resolved *res,
                            struct warden_deny *deny, char void_file[PATH_MAX],
                            char void_dir[PATH_MAX], struct warden_policy *pol,
                            struct warden_error *err)
{
	const char *roots[1 + WARDEN_ROOTS_ALL];
	const char *pattern, *match = NULL;
	size_t n = 0, i;
	int rc;

	void_file[0] = void_dir[0] = '\0';
	roots[n++] = res->root;
	for (i = 0; i < pol->n_more_roots && n < sizeof(roots) / sizeof(*roots); i++)
		roots[n++] = pol->more_roots[i];
	if ((rc = warden_deny_expand(cfg, roots, n, deny, err)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if ((pattern = warden_deny_covers(deny, roots[i], &match)) != NULL)
			return warden_error_set(err, WARDEN_EREFUSED,
			                        "confine: the writable root %s lies in %s, which deny_read = %s keeps unread: choose another root, or take the pattern out of deny_read in %s",
			                        roots[i], match, pattern, cfg->file);
	if (deny->n > 0 && (rc = warden_scratch_voids(void_file, void_dir, err)) < 0)
		return rc;
	pol->deny_read = (const char *const *)deny->paths;
	pol->n_deny_read = deny->n;
	pol->void_file = void_file[0] ? void_file : NULL;
	pol->void_dir = void_dir[0] ? void_dir : NULL;
	return 0;
}

static int print_json(const struct warden_confined *c,
                      const struct warden_resolved *res, const char *tmp_dir,
                      const struct warden_roots *roots, struct warden_error *err)
{
	json_t *o = json_object();

	json_object_set_new(o, "argv", strings_json(c->argv, c->argc));
	json_object_set_new(o, "backend", warden_cli_json_string(c->backend));
	json_object_set_new(o, "mode", json_string(warden_mode_name(c->mode)));
	json_object_set_new(o, "mode_source", json_string(warden_source_name(res->mode_source)));
	json_object_set_new(o, "root", warden_cli_json_string(res->root));
	json_object_set_new(o, "root_source", json_string(warden_source_name(res->root_source)));
	json_object_set_new(o, "session", res->session_id[0]
	                    ? warden_cli_json_string(res->session_id) : json_null());
	json_object_set_new(o, "enforcement", json_string(warden_enforcement_name(c->enforcement)));
	json_object_set_new(o, "detail", c->detail[0] ? warden_cli_json_string(c->detail) : json_null());
	json_object_set_new(o, "writable_roots", strings_json(c->writable_roots, c->n_writable_roots));
	/* The roots beside the root as `run --json` names them; empty
	 * outside workspace-write, where none is granted. */
	json_object_set_new(o, "roots", c->mode == WARDEN_SANDBOX_WORKSPACE_WRITE
	                    ? warden_roots_json(roots) : json_array());
	json_object_set_new(o, "roots_notes", warden_roots_notes_json(roots));
	json_object_set_new(o, "tmp_dir", tmp_dir != NULL && c->tmp_held
	                    ? warden_cli_json_string(tmp_dir) : json_null());
	json_object_set_new(o, "privilege_dropped", json_boolean(c->privilege_dropped));
	json_object_set_new(o, "evidence", json_string(evidence_name(c->evidence)));
	json_object_set_new(o, "status_fd", c->status_fd >= 0 ? json_integer(c->status_fd) : json_null());
	json_object_set_new(o, "denial_signatures",
	                    strings_json(c->denial_signatures, c->n_denial_signatures));
	json_object_set_new(o, "runner_failure_rules", rules_json(c));
	json_object_set_new(o, "network", json_string(warden_network_name(c->network)));
	json_object_set_new(o, "network_source", json_string(warden_source_name(res->network_source)));
	json_object_set_new(o, "network_enforcement",
	                    json_string(warden_enforcement_name(c->network_enforcement)));
	json_object_set_new(o, "network_detail", c->network_detail[0]
	                    ? warden_cli_json_string(c->network_detail) : json_null());
	return warden_cli_print_json(o, err);
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
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_sandbox *svc = NULL;
	struct warden_confined *c = NULL;
	struct warden_inputs *inputs = NULL;
	struct warden_resolved res;
	struct warden_policy pol;
	struct warden_scratch scratch;
	struct warden_deny deny;
	struct warden_roots roots;
	char void_file[PATH_MAX], void_dir[PATH_MAX];
	const char *mode_arg = NULL, *root_arg = NULL, *backend = NULL, *net_arg = NULL;
	const char *session = cli->session_id;
	int ch, json = 0, nul = 0, mode = 0, network = 0, status_fd = -1, rc;
	size_t i;

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
	if (session != NULL && session[0] == '\0')
		session = NULL;

	warden_scratch_init(&scratch);
	warden_deny_init(&deny);
	warden_roots_init(&roots);
	if (warden_config_load(cli->config_path, &cfg, &err) < 0)
		return warden_cli_fail(&err);
	rc = warden_policy_resolve(cfg, session, mode, &res, &err);
	if (rc == 0 && res.mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
		rc = warden_error_set(&err, WARDEN_EREFUSED,
		                      "confine: the mode is danger-full-access (from the %s), which is never confined: nothing to print; choose a confining mode with --mode read-only|workspace-write or `warden mode set`",
		                      warden_source_name(res.mode_source));
	if (rc == 0 && root_arg != NULL) {
		rc = warden_root_resolve(root_arg, "--root", res.root, &err);
		if (rc < 0)
			err.code = WARDEN_EUSAGE;
		res.root_source = WARDEN_SOURCE_EXPLICIT;
	}
	if (rc == 0)
		rc = warden_sandbox_open(cfg, &svc, &err);
	if (rc == 0)
		rc = warden_inputs_collect(cfg, &inputs, &err);
	if (rc == 0) {
		warden_policy_init(&pol);
		pol.read_only_paths = inputs->paths;
		pol.n_read_only_paths = inputs->n;
		pol.mode = res.mode;
		pol.workspace_root = res.root;
		pol.session_id = res.session_id;
		pol.status_fd = status_fd;
		if (network != 0) {
			res.network = network;
			res.network_source = WARDEN_SOURCE_EXPLICIT;
		}
		pol.network = res.network;
		pol.allow_unix_sockets = (const char *const *)cfg->allow_unix_sockets;
		pol.n_allow_unix_sockets = cfg->n_allow_unix_sockets;
		/* A session's temp area outlives this call; a run without
		 * one would need an area removed when it ends, which happens
		 * after warden is gone: none, and /tmp stays read-only. */
		if (res.session_id[0] != '\0')
			rc = warden_scratch_open(&scratch, res.session_id, &err);
		if (rc == 0 && scratch.dir[0] != '\0') {
			pol.tmp_dir = scratch.dir;
			pol.tmp_fd = scratch.fd;
			pol.tmp_hide = scratch.parent;
		}
		if (rc == 0)
			rc = more_roots(cfg, &res, &roots, &err);
		if (rc == 0 && res.mode == WARDEN_SANDBOX_WORKSPACE_WRITE && roots.n > 0) {
			pol.more_roots = (const char *const *)roots.path;
			pol.more_root_kinds = roots.kind;
			pol.n_more_roots = roots.n;
		}
		if (rc == 0)
			rc = deny_read_policy(cfg, &res, &deny, void_file, void_dir,
			                      &pol, &err);
	}
	if (rc == 0) {
		if (backend != NULL)
			rc = warden_sandbox_confine_with(svc, backend,
			                                 (const char *const *)argv + optind,
			                                 (size_t)(argc - optind), &pol, &c, &err);
		else
			rc = warden_sandbox_confine(svc, (const char *const *)argv + optind,
			                            (size_t)(argc - optind), &pol, &c, &err);
	}
	if (rc == 0) {
		if (json) {
			rc = print_json(c, &res, pol.tmp_dir, &roots, &err);
		} else {
			for (i = 0; i < c->argc; i++) {
				fputs(c->argv[i], stdout);
				putchar(nul ? '\0' : '\n');
			}
		}
		if (rc == 0 && fflush(stdout) != 0)
			rc = warden_error_set(&err, WARDEN_EIO, "confine: writing the output failed");
	}
	warden_confined_free(c);
	warden_deny_free(&deny);
	warden_roots_free(&roots);
	warden_scratch_close(&scratch);
	warden_sandbox_free(svc);
	warden_inputs_free(inputs);
	warden_config_free(cfg);
	return rc < 0 ? warden_cli_fail(&err) : 0;
}
