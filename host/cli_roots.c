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

/* The session (or NULL) and the roots a run would get; 0 or an exit. */
static int resolve(struct warden_cli *cli, struct warden_config *cfg,
                   struct warden_roots *roots, struct warden_resolved *res,
                   struct warden_error *err)
{
	struct warden_session *s = NULL;
	int r;

	if (cli->session_id != NULL && cli->session_id[0] != '\0' &&
	    (r = warden_session_open(cfg, cli->session_id, &s, err)) < 0)
		return r;
	r = s != NULL ? warden_policy_resolve_session(cfg, s, 0, res, err)
	              : warden_policy_resolve(cfg, NULL, 0, res, err);
	if (r == 0)
		r = warden_roots_resolve(cfg, s != NULL ? warden_session_knobs(s) : NULL,
		                         res->root, roots, err);
	warden_session_close(s);
	return r;
}

static int list(struct warden_cli *cli, int json)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_resolved res;
	struct warden_roots roots;
	size_t i;
	int r;

	warden_roots_init(&roots);
	if (warden_config_load(cli->config_path, &cfg, &err) < 0)
		return warden_cli_fail(&err);
	r = resolve(cli, cfg, &roots, &res, &err);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	if (json) {
		r = warden_cli_print_json(json_pack("{s:o,s:o,s:s,s:o,s:o}",
		                                    "session", res.session_id[0]
		                                    ? warden_cli_json_string(res.session_id)
		                                    : json_null(),
		                                    "root", warden_cli_json_string(res.root),
		                                    "source", warden_source_name(roots.list_source),
		                                    "roots", warden_roots_json(&roots),
		                                    "notes", warden_roots_notes_json(&roots)),
		                          &err);
		warden_roots_free(&roots);
		return r < 0 ? warden_cli_fail(&err) : 0;
	}
	warden_text_line(stdout, "root: %s (workspace root)", res.root);
	for (i = 0; i < roots.n; i++)
		warden_text_line(stdout, "root: %s (%s%s%s%s)", roots.path[i],
		                 roots.source[i] == WARDEN_SOURCE_DERIVED ? "worktree"
		                 : warden_source_name(roots.source[i]),
		                 roots.kind[i] == WARDEN_ROOT_GIT_COMMON_DIR
		                 ? ", git directory: hooks and config read-only" : "",
		                 roots.worktree[i] != NULL ? ", for " : "",
		                 roots.worktree[i] != NULL ? roots.worktree[i] : "");
	for (i = 0; i < roots.n_notes; i++)
		warden_text_line(stdout, "note: %s", roots.notes[i]);
	warden_roots_free(&roots);
	return 0;
}

static int change(struct warden_cli *cli, const char *dir, int add)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_session *s = NULL;
	char resolved[PATH_MAX];
	int r, changed = 0;

	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("roots %s: no session (give --session ID or set WARDEN_SESSION; without one, list directories in [warden] writable_roots)",
		                        add ? "add" : "remove");
	if (warden_session_id_check(cli->session_id, &err) < 0)
		return warden_cli_fail(&err);
	if (warden_config_load(cli->config_path, &cfg, &err) < 0)
		return warden_cli_fail(&err);
	r = warden_session_open(cfg, cli->session_id, &s, &err);
	if (r == 0)
		r = warden_roots_change(cfg, s, dir, add, resolved, &changed, &err);
	warden_session_close(s);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	warden_text_line(stdout, "roots: %s %s%s", add ? "added" : "removed", resolved,
	                 changed ? "" : " (already recorded; nothing written)");
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
