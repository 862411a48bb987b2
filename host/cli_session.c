/*
 * cli_session.c — the session commands of DESIGN §8:
 *
 *   warden session new [--cwd DIR]      prints the new id as its last line
 *   warden session show ID [--json]     every event (a full replay)
 *   warden session state ID [--json]    mode, network, policy, preset, root
 *                                       + sources
 *   warden mode set MODE                the session's sandbox/mode
 *   warden policy set ask|never         the session's approval/policy
 *   warden preset list [--json] | select NAME | current [--json]
 *
 * mode, policy, preset select and preset current act on the global
 * --session (else $WARDEN_SESSION).  Every error is one line on stderr,
 * and an error never writes to the log: each write is a single append
 * that happens only after every argument has been checked.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "policy.h"
#include "preset.h"
#include "roots.h"
#include "session.h"
#include "text.h"
#include "vocab.h"
#include "wconfig.h"

/* Options shared by every command here: --json and --help. */
struct opts {
	int json;
	int help;
	const char *cwd;
};

/* Parses argv (argv[0] = the command's words so far); leaves the
 * positional arguments at argv[optind..]. */
static int parse_opts(int argc, char **argv, int allow_json, int allow_cwd,
                      const char *what, struct opts *o)
{
	static const struct option all[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cwd", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", all, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (!allow_json)
				return warden_cli_usage("%s: no --json here", what);
			o->json = 1;
			break;
		case 'C':
			if (!allow_cwd)
				return warden_cli_usage("%s: no --cwd here", what);
			o->cwd = optarg;
			break;
		case 'h':
			o->help = 1;
			break;
		default:
			return warden_cli_usage("%s: bad option", what);
		}
	}
	return 0;
}

/* Prints o (consumed) or fails: the exit status. */
static int print_json(json_t *o)
{
	struct warden_error err = { 0, "" };

	return warden_cli_print_json(o, &err) < 0 ? warden_cli_fail(&err) : 0;
}

static int load_config(struct warden_cli *cli, struct warden_config **cfg)
{
	struct warden_error err = { 0, "" };

	if (warden_config_load(cli->config_path, cfg, &err) < 0)
		return warden_cli_fail(&err);
	return 0;
}

/* The session a knob command acts on: --session, else $WARDEN_SESSION. */
static int need_session(struct warden_cli *cli, const char *what)
{
	struct warden_error err = { 0, "" };

	if (cli->session_id == NULL || cli->session_id[0] == '\0')
		return warden_cli_usage("%s: no session (give --session ID or set WARDEN_SESSION)", what);
	if (warden_session_id_check(cli->session_id, &err) < 0)
		return warden_cli_fail(&err);
	return 0;
}

/* ---- warden session ---------------------------------------------------- */

static void session_usage(FILE *f)
{
	fprintf(f,
	        "usage: warden session new [--cwd DIR]\n"
	        "       warden session show ID [--json]\n"
	        "       warden session state ID [--json]\n"
	        "\n"
	        "A session is an append-only log of events (one JSON object per\n"
	        "line under state_dir) from which its knobs are rebuilt.\n"
	        "\n"
	        "  new     start a session whose workspace root is DIR (default:\n"
	        "          the current directory), resolved and fixed for its\n"
	        "          lifetime; prints the new id as the last line\n"
	        "  show    every event, after checking the whole log; a damaged\n"
	        "          log is an error naming the line (exit 65)\n"
	        "  state   the effective mode, network, approval policy, preset\n"
	        "          and workspace root, and where each comes from (session,\n"
	        "          config, derived, mode)\n"
	        "\n"
	        "  --json  one JSON object instead of text\n"
	        "  --help  this text\n");
}

static int session_new(struct warden_cli *cli, int argc, char **argv)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct opts o;
	char *id = NULL;
	int r;

	if ((r = parse_opts(argc, argv, 0, 1, "session new", &o)) != 0)
		return r;
	if (o.help) {
		session_usage(stdout);
		return 0;
	}
	if (optind < argc)
		return warden_cli_usage("session new: unexpected argument '%s'", argv[optind]);
	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	r = warden_session_create(cfg, o.cwd, &id, &err);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	printf("%s\n", id);
	free(id);
	return 0;
}

/* The event's own fields: everything but seq, time, type and knobs. */
static json_t *own_fields(json_t *event)
{
	json_t *o = json_deep_copy(event);

	json_object_del(o, "seq");
	json_object_del(o, "time");
	json_object_del(o, "type");
	json_object_del(o, "knobs");
	return o;
}

static int show_text(uint64_t line_no, json_t *event, void *ud)
{
	json_t *fields = own_fields(event);
	char *text = json_dumps(fields, JSON_COMPACT | JSON_PRESERVE_ORDER), *shown;

	(void)line_no;
	(void)ud;
	if (text == NULL || warden_cli_json_failed()) {
		free(text);
		json_decref(fields);
		return -WARDEN_EOS;
	}
	/* The fields are compact JSON: control characters are already \u
	 * escapes there, but DEL, C1 and the characters that reorder text
	 * are not. */
	shown = warden_text_escape_dup(text, WARDEN_TEXT_KEEP_BACKSLASH);
	if (shown == NULL) {
		free(text);
		json_decref(fields);
		return -WARDEN_EOS;
	}
	printf("%lld %s %s %s\n",
	       (long long)json_integer_value(json_object_get(event, "seq")),
	       json_string_value(json_object_get(event, "time")),
	       json_string_value(json_object_get(event, "type")), shown);
	free(shown);
	free(text);
	json_decref(fields);
	return 0;
}

/* --json: {"session": ID, "events": [ ... ]} streamed event by event, so
 * that a long log is not held in memory. */
static int show_json(uint64_t line_no, json_t *event, void *ud)
{
	char *text = json_dumps(event, JSON_COMPACT | JSON_PRESERVE_ORDER);

	(void)ud;
	if (text == NULL || warden_cli_json_failed()) {
		free(text);
		return -WARDEN_EOS;
	}
	printf("%s    %s", line_no > 1 ? ",\n" : "", text);
	free(text);
	return 0;
}

static int session_show(struct warden_cli *cli, const char *id, int json)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_session *s = NULL;
	int r;

	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	r = warden_session_open(cfg, id, &s, &err);
	/* Check the whole log before printing any of it. */
	if (r == 0)
		r = warden_session_replay(s, NULL, NULL, NULL, &err);
	if (r == 0 && json) {
		printf("{\n  \"session\": \"%s\",\n  \"events\": [\n", id);
		r = warden_session_replay(s, show_json, NULL, NULL, &err);
		if (r == 0)
			printf("\n  ]\n}\n");
	} else if (r == 0) {
		r = warden_session_replay(s, show_text, NULL, NULL, &err);
	}
	if (r == -WARDEN_EOS && err.msg[0] == '\0')
		warden_error_set(&err, WARDEN_EOS, "out of memory while printing the events (output incomplete)");
	if (r == 0 && fflush(stdout) != 0)
		r = warden_error_set(&err, WARDEN_EIO, "cannot write the output");
	warden_session_close(s);
	warden_config_free(cfg);
	return r < 0 ? warden_cli_fail(&err) : 0;
}

static json_t *sourced(json_t *value, int source)
{
	return json_pack("{s:o,s:s}", "value", value, "source", warden_source_name(source));
}

/* The roots a workspace-write run of session id would get beside its
 * root, as {"value", "source", "notes"} (or "error" when they do not
 * resolve); text: printed. */
static json_t *state_roots(const struct warden_config *cfg, const char *id,
                           const char *root, int text)
{
	struct warden_error err = { 0, "" };
	struct warden_session *s = NULL;
	struct warden_roots roots;
	json_t *o;
	size_t i;
	int r;

	warden_roots_init(&roots);
	r = warden_session_open(cfg, id, &s, &err);
	if (r == 0)
		r = warden_roots_resolve(cfg, warden_session_knobs(s), root, &roots, &err);
	warden_session_close(s);
	if (r == -WARDEN_EOS || r == -WARDEN_EIO)
		return NULL;  /* no answer, never a wrong one */
	if (r < 0) {
		if (text)
			warden_text_line(stdout, "roots: unusable: %s", err.msg);
		return json_pack("{s:n,s:o}", "value", "error", warden_cli_json_string(err.msg));
	}
	if (text) {
		for (i = 0; i < roots.n; i++)
			warden_text_line(stdout, "writable root: %s (%s, %s%s%s)", roots.path[i],
			                 roots.source[i] == WARDEN_SOURCE_DERIVED ? "worktree"
			                 : warden_source_name(roots.source[i]),
			                 warden_root_kind_name(roots.kind[i]),
			                 roots.worktree[i] != NULL ? ", for " : "",
			                 roots.worktree[i] != NULL ? roots.worktree[i] : "");
		for (i = 0; i < roots.n_notes; i++)
			warden_text_line(stdout, "roots note: %s", roots.notes[i]);
	}
	o = json_pack("{s:o,s:s,s:o}", "value", warden_roots_json(&roots),
	              "source", warden_source_name(roots.list_source),
	              "notes", warden_roots_notes_json(&roots));
	warden_roots_free(&roots);
	return o;
}

/* The grants in force (warden_session_grants), or NULL with err. */
static json_t *state_grants(const struct warden_config *cfg, const char *id,
                            struct warden_error *err)
{
	struct warden_session *s = NULL;
	json_t *g = NULL;

	if (warden_session_open(cfg, id, &s, err) == 0)
		warden_session_grants(s, &g, err);
	warden_session_close(s);
	return g;
}

static int session_state(struct warden_cli *cli, const char *id, int json)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_resolved res;
	json_t *roots, *grants, *g;
	size_t i;
	int r;

	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	r = warden_policy_resolve(cfg, id, 0, &res, &err);
	if (r < 0) {
		warden_config_free(cfg);
		return warden_cli_fail(&err);
	}
	grants = state_grants(cfg, id, &err);
	if (grants == NULL) {
		warden_config_free(cfg);
		return warden_cli_fail(&err);
	}
	if (json) {
		roots = state_roots(cfg, id, res.root, 0);
		warden_config_free(cfg);
		if (roots == NULL) {
			json_decref(grants);
			warden_error_set(&err, WARDEN_EOS, "session state: the writable roots could not be read (out of memory?)");
			return warden_cli_fail(&err);
		}
		return print_json(json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		                     "session", res.session_id,
		                     "mode", sourced(json_string(warden_mode_name(res.mode)), res.mode_source),
		                     "network", sourced(json_string(warden_network_name(res.network)), res.network_source),
		                     "policy", sourced(json_string(warden_policy_name(res.policy)), res.policy_source),
		                     "preset", sourced(warden_cli_json_string(res.preset), res.preset_source),
		                     "root", sourced(warden_cli_json_string(res.root), res.root_source),
		                     "roots", roots, "grants", grants));
	}
	printf("session: %s\n", res.session_id);
	printf("mode: %s (%s)\n", warden_mode_name(res.mode), warden_source_name(res.mode_source));
	printf("network: %s (%s)\n", warden_network_name(res.network),
	       warden_source_name(res.network_source));
	printf("policy: %s (%s)\n", warden_policy_name(res.policy), warden_source_name(res.policy_source));
	warden_text_line(stdout, "preset: %s (%s)", res.preset, warden_source_name(res.preset_source));
	warden_text_line(stdout, "root: %s (%s)", res.root, warden_source_name(res.root_source));
	roots = state_roots(cfg, id, res.root, 1);
	warden_config_free(cfg);
	if (roots == NULL) {
		json_decref(grants);
		warden_error_set(&err, WARDEN_EOS, "session state: the writable roots could not be read (out of memory?)");
		return warden_cli_fail(&err);
	}
	json_decref(roots);
	json_array_foreach(grants, i, g)
		warden_text_line(stdout, "grant: %s %s: %s",
		                 json_string_value(json_object_get(g, "id")),
		                 json_string_value(json_object_get(g, "name")) != NULL
		                 ? json_string_value(json_object_get(g, "name")) : "?",
		                 json_string_value(json_object_get(g, "text")));
	json_decref(grants);
	return 0;
}

int warden_cmd_session(struct warden_cli *cli, int argc, char **argv)
{
	struct warden_error err = { 0, "" };
	const char *sub, *id;
	struct opts o;
	int r;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		if (argc < 2)
			return warden_cli_usage("session: expected new, show or state");
		session_usage(stdout);
		return 0;
	}
	sub = argv[1];
	if (strcmp(sub, "new") == 0)
		return session_new(cli, argc - 1, argv + 1);
	if (strcmp(sub, "show") != 0 && strcmp(sub, "state") != 0)
		return warden_cli_usage("session: unknown subcommand (expected new, show or state)");
	if ((r = parse_opts(argc - 1, argv + 1, 1, 0, sub[1] == 'h' ? "session show" : "session state", &o)) != 0)
		return r;
	if (o.help) {
		session_usage(stdout);
		return 0;
	}
	argc--;
	argv++;
	if (optind + 1 < argc)
		return warden_cli_usage("session %s: one session id expected", sub);
	id = optind < argc ? argv[optind] : cli->session_id;
	if (id == NULL)
		return warden_cli_usage("session %s: no session id given", sub);
	if (warden_session_id_check(id, &err) < 0)
		return warden_cli_fail(&err);
	return strcmp(sub, "show") == 0 ? session_show(cli, id, o.json)
	                                : session_state(cli, id, o.json);
}

/* ---- warden mode / warden policy ----------------------------------------- */

static void knob_usage(int is_mode)
{
	fputs(is_mode
	      ? "usage: warden [--session ID] mode set MODE\n"
	        "\n"
	        "Records the session's sandbox mode (a sandbox/mode event): one of\n"
	        "read-only, workspace-write, danger-full-access.  Nothing is\n"
	        "written when the session already records that mode.\n"
	      : "usage: warden [--session ID] policy set ask|never\n"
	        "\n"
	        "Records the session's approval policy (an approval/policy event),\n"
	        "the single write path of that knob.  never rejects every approval\n"
	        "request before any answerer is asked.  Nothing is written when\n"
	        "the session already records that policy.\n",
	      stdout);
}

/* `warden mode set MODE` and `warden policy set ask|never`. */
static int knob_set(struct warden_cli *cli, int argc, char **argv, int is_mode)
{
	const char *what = is_mode ? "mode set" : "policy set";
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_session *s = NULL;
	struct opts o;
	int r, value, changed = 0;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		knob_usage(is_mode);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "set") != 0)
		return warden_cli_usage("%s: expected 'warden %s set VALUE'",
		                        is_mode ? "mode" : "policy", is_mode ? "mode" : "policy");
	if ((r = parse_opts(argc - 1, argv + 1, 0, 0, what, &o)) != 0)
		return r;
	if (o.help) {
		knob_usage(is_mode);
		return 0;
	}
	argc--;
	argv++;
	if (optind + 1 != argc)
		return warden_cli_usage("%s: expected exactly one value", what);
	value = is_mode ? warden_mode_parse(argv[optind]) : warden_policy_parse(argv[optind]);
	if (value < 0)
		return warden_cli_usage(is_mode
		                        ? "mode set: not a sandbox mode (allowed: read-only, workspace-write, danger-full-access)"
		                        : "policy set: not an approval policy (allowed: ask, never)");
	if ((r = need_session(cli, what)) != 0)
		return r;
	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	r = warden_session_open(cfg, cli->session_id, &s, &err);
	if (r == 0)
		r = is_mode ? warden_session_set_mode(s, value, &changed, &err)
		            : warden_session_set_policy(s, value, &changed, &err);
	warden_session_close(s);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	printf("%s: %s%s\n", is_mode ? "mode" : "policy", argv[optind],
	       changed ? "" : " (already recorded; nothing written)");
	return 0;
}

int warden_cmd_mode(struct warden_cli *cli, int argc, char **argv)
{
	return knob_set(cli, argc, argv, 1);
}

int warden_cmd_policy(struct warden_cli *cli, int argc, char **argv)
{
	return knob_set(cli, argc, argv, 0);
}

/* ---- warden preset --------------------------------------------------- */

static void preset_usage(FILE *f)
{
	fprintf(f,
	        "usage: warden preset list [--json]\n"
	        "       warden [--session ID] preset select NAME\n"
	        "       warden [--session ID] preset current [--json]\n"
	        "\n"
	        "A preset names a bundle of the knobs sandbox mode, approval\n"
	        "policy and network ([preset NAME] sections, else the built-in\n"
	        "workspace-write and danger-full-access); a preset without a\n"
	        "network leaves that knob alone.\n"
	        "\n"
	        "  list     the presets in declaration order (with a session, the\n"
	        "           current one is marked)\n"
	        "  select   record the selection, then each knob that changes;\n"
	        "           nothing when NAME is already current\n"
	        "  current  the last selection while it still matches the knobs,\n"
	        "           else the first matching preset, else \"custom\"\n"
	        "\n"
	        "danger-full-access is meant for disposable, single-use\n"
	        "environments only.\n");
}

static int preset_list(struct warden_cli *cli, int json)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_resolved res;
	const struct warden_preset *t;
	const char *current = NULL;
	json_t *a;
	size_t i, n;
	int r;

	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	if (cli->session_id != NULL && cli->session_id[0] != '\0') {
		if ((r = warden_policy_resolve(cfg, cli->session_id, 0, &res, &err)) < 0) {
			warden_config_free(cfg);
			return warden_cli_fail(&err);
		}
		current = res.preset;
	}
	t = warden_preset_table(cfg, &n);
	a = json_array();
	for (i = 0; i < n; i++) {
		int is_current = current != NULL && strcmp(current, t[i].name) == 0;

		if (json) {
			json_t *o = json_pack("{s:o,s:s,s:s,s:o,s:o,s:o}",
			                      "name", warden_cli_json_string(t[i].name),
			                      "sandbox", warden_mode_name(t[i].mode),
			                      "approval", warden_policy_name(t[i].policy),
			                      "network", t[i].network ? json_string(warden_network_name(t[i].network))
			                                              : json_null(),
			                      "label", t[i].label ? warden_cli_json_string(t[i].label) : json_null(),
			                      "description", t[i].description ? warden_cli_json_string(t[i].description) : json_null());

			if (current != NULL)
				json_object_set_new(o, "current", json_boolean(is_current));
			json_array_append_new(a, o);
		} else {
			warden_text_line(stdout, "%s %-20s %-19s %-6s %-10s %s", is_current ? "*" : " ", t[i].name,
			       warden_mode_name(t[i].mode), warden_policy_name(t[i].policy),
			       t[i].network ? warden_network_name(t[i].network) : "-",
			       t[i].description ? t[i].description : (t[i].label ? t[i].label : ""));
		}
	}
	warden_config_free(cfg);
	if (json)
		return print_json(a);
	json_decref(a);
	return 0;
}

static int preset_select(struct warden_cli *cli, const char *name)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_session *s = NULL;
	int r, changed = 0;

	if ((r = need_session(cli, "preset select")) != 0)
		return r;
	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	if (strcmp(name, WARDEN_PRESET_CUSTOM) != 0 && warden_preset_find(cfg, name) == NULL) {
		warden_config_free(cfg);
		return warden_cli_usage("preset select: unknown preset (warden preset list shows them)");
	}
	r = warden_session_open(cfg, cli->session_id, &s, &err);
	if (r == 0)
		r = warden_preset_select(cfg, s, name, &changed, &err);
	warden_session_close(s);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	warden_text_line(stdout, "preset: %s%s", name, changed ? "" : " (already current; nothing written)");
	return 0;
}

static int preset_current(struct warden_cli *cli, int json)
{
	struct warden_error err = { 0, "" };
	struct warden_config *cfg = NULL;
	struct warden_resolved res;
	int r;

	if ((r = need_session(cli, "preset current")) != 0)
		return r;
	if ((r = load_config(cli, &cfg)) != 0)
		return r;
	r = warden_policy_resolve(cfg, cli->session_id, 0, &res, &err);
	warden_config_free(cfg);
	if (r < 0)
		return warden_cli_fail(&err);
	if (json)
		return print_json(json_pack("{s:o,s:s,s:s,s:s,s:s}",
		                     "preset", warden_cli_json_string(res.preset),
		                     "source", warden_source_name(res.preset_source),
		                     "sandbox", warden_mode_name(res.mode),
		                     "approval", warden_policy_name(res.policy),
		                     "network", warden_network_name(res.network)));
	else
		warden_text_line(stdout, "%s", res.preset);
	return 0;
}

int warden_cmd_preset(struct warden_cli *cli, int argc, char **argv)
{
	const char *sub;
	struct opts o;
	int r, is_select;

	if (argc < 2)
		return warden_cli_usage("preset: expected list, select or current");
	sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		preset_usage(stdout);
		return 0;
	}
	if (strcmp(sub, "list") != 0 && strcmp(sub, "select") != 0 &&
	    strcmp(sub, "current") != 0)
		return warden_cli_usage("preset: unknown subcommand (expected list, select or current)");
	is_select = strcmp(sub, "select") == 0;
	if ((r = parse_opts(argc - 1, argv + 1, !is_select, 0, "preset", &o)) != 0)
		return r;
	if (o.help) {
		preset_usage(stdout);
		return 0;
	}
	argc--;
	argv++;
	if (is_select) {
		if (optind + 1 != argc)
			return warden_cli_usage("preset select: expected exactly one preset name");
		return preset_select(cli, argv[optind]);
	}
	if (optind != argc)
		return warden_cli_usage("preset %s: unexpected argument", sub);
	return strcmp(sub, "list") == 0 ? preset_list(cli, o.json) : preset_current(cli, o.json);
}
