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
#include "ops.h"
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
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, NULL);
	struct opts o;
	json_t *res;
	int r;

	if ((r = parse_opts(argc, argv, 0, 1, "session new", &o)) != 0)
		return r;
	if (o.help) {
		session_usage(stdout);
		return 0;
	}
	if (optind < argc)
		return warden_cli_usage("session new: unexpected argument '%s'", argv[optind]);
	if ((res = warden_op_session_new(&op, o.cwd)) == NULL)
		return warden_cli_op_fail(&op, "session new");
	printf("%s\n", json_string_value(json_object_get(res, "session")));
	json_decref(res);
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

/* --json's opening, printed before the first event (and for a log with
 * none, before the end). */
struct show {
	const char *id;
	int json, opened;
};

static void show_open(struct show *sh)
{
	if (sh->json && !sh->opened)
		printf("{\n  \"session\": \"%s\",\n  \"events\": [\n", sh->id);
	sh->opened = 1;
}

static int show_event(uint64_t line_no, json_t *event, void *ud)
{
	struct show *sh = ud;

	show_open(sh);
	return sh->json ? show_json(line_no, event, ud) : show_text(line_no, event, ud);
}

static int session_show(struct warden_cli *cli, const char *id, int json)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, id);
	struct show sh = { id, json, 0 };
	int r;

	r = warden_op_session_show(&op, show_event, &sh);
	if (r == 0) {
		show_open(&sh);
		if (json)
			printf("\n  ]\n}\n");
	}
	if (r == -WARDEN_EOS && op.err.msg[0] == '\0')
		warden_error_set(&op.err, WARDEN_EOS, "out of memory while printing the events (output incomplete)");
	if (r == 0 && fflush(stdout) != 0)
		r = warden_error_set(&op.err, WARDEN_EIO, "cannot write the output");
	return r < 0 ? warden_cli_op_fail(&op, "session show") : 0;
}

/* "NAME: VALUE (SOURCE)" from {value, source}. */
static void sourced_line(json_t *o, const char *name)
{
	warden_text_line(stdout, "%s: %s (%s)", name,
	                 json_string_value(json_object_get(json_object_get(o, name), "value")),
	                 json_string_value(json_object_get(json_object_get(o, name), "source")));
}

static int session_state(struct warden_cli *cli, const char *id, int json)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, id);
	json_t *o, *roots, *v;
	size_t i;

	if ((o = warden_op_session_state(&op)) == NULL)
		return warden_cli_op_fail(&op, "session state");
	if (json)
		return print_json(o);
	warden_text_line(stdout, "session: %s", json_string_value(json_object_get(o, "session")));
	sourced_line(o, "mode");
	sourced_line(o, "network");
	sourced_line(o, "policy");
	sourced_line(o, "preset");
	sourced_line(o, "root");
	roots = json_object_get(o, "roots");
	if (json_is_null(json_object_get(roots, "value")))
		warden_text_line(stdout, "roots: unusable: %s",
		                 json_string_value(json_object_get(roots, "error")));
	json_array_foreach(json_object_get(roots, "value"), i, v) {
		const char *wt = json_string_value(json_object_get(v, "worktree"));

		warden_text_line(stdout, "writable root: %s (%s, %s%s%s)",
		                 json_string_value(json_object_get(v, "path")),
		                 json_string_value(json_object_get(v, "source")),
		                 json_string_value(json_object_get(v, "kind")),
		                 wt != NULL ? ", for " : "", wt != NULL ? wt : "");
	}
	json_array_foreach(json_object_get(roots, "notes"), i, v)
		warden_text_line(stdout, "roots note: %s", json_string_value(v));
	json_array_foreach(json_object_get(o, "grants"), i, v)
		warden_text_line(stdout, "grant: %s %s: %s",
		                 json_string_value(json_object_get(v, "id")),
		                 json_string_value(json_object_get(v, "name")) != NULL
		                 ? json_string_value(json_object_get(v, "name")) : "?",
		                 json_string_value(json_object_get(v, "text")));
	json_decref(o);
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
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	struct opts o;
	json_t *res;
	int r;

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
	if (warden_mode_parse(argv[optind]) < 0 && is_mode)
		return warden_cli_usage("mode set: not a sandbox mode (allowed: read-only, workspace-write, danger-full-access)");
	if (warden_policy_parse(argv[optind]) < 0 && !is_mode)
		return warden_cli_usage("policy set: not an approval policy (allowed: ask, never)");
	if ((r = need_session(cli, what)) != 0)
		return r;
	if ((res = warden_op_knob_set(&op, is_mode ? WARDEN_OP_MODE : WARDEN_OP_POLICY,
	                              argv[optind])) == NULL)
		return warden_cli_op_fail(&op, what);
	warden_text_line(stdout, "%s", json_string_value(json_object_get(res, "message")));
	json_decref(res);
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
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	json_t *a, *p;
	size_t i;

	if ((a = warden_op_preset_list(&op)) == NULL)
		return warden_cli_op_fail(&op, "preset list");
	if (json)
		return print_json(a);
	json_array_foreach(a, i, p) {
		const char *net = json_string_value(json_object_get(p, "network"));
		const char *desc = json_string_value(json_object_get(p, "description"));
		const char *label = json_string_value(json_object_get(p, "label"));

		warden_text_line(stdout, "%s %-20s %-19s %-6s %-10s %s",
		                 json_is_true(json_object_get(p, "current")) ? "*" : " ",
		                 json_string_value(json_object_get(p, "name")),
		                 json_string_value(json_object_get(p, "sandbox")),
		                 json_string_value(json_object_get(p, "approval")),
		                 net != NULL ? net : "-",
		                 desc != NULL ? desc : label != NULL ? label : "");
	}
	json_decref(a);
	return 0;
}

static int preset_select(struct warden_cli *cli, const char *name)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	json_t *res;
	int r;

	if ((r = need_session(cli, "preset select")) != 0)
		return r;
	if ((res = warden_op_preset_select(&op, name)) == NULL) {
		if (op.field != NULL && strcmp(op.field, "name") == 0)
			return warden_cli_usage("preset select: %s", op.err.msg);
		return warden_cli_op_fail(&op, "preset select");
	}
	warden_text_line(stdout, "%s", json_string_value(json_object_get(res, "message")));
	json_decref(res);
	return 0;
}

static int preset_current(struct warden_cli *cli, int json)
{
	struct warden_op op = WARDEN_OP_INIT(cli->config_path, cli->session_id);
	json_t *res;
	int r;

	if ((r = need_session(cli, "preset current")) != 0)
		return r;
	if ((res = warden_op_preset_current(&op)) == NULL)
		return warden_cli_op_fail(&op, "preset current");
	if (json)
		return print_json(res);
	warden_text_line(stdout, "%s", json_string_value(json_object_get(res, "preset")));
	json_decref(res);
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
