/*
 * cli_config.c — `warden config check [--json]`: find and validate the
 * config exactly as every other command will, and summarise what it
 * says.  A bad config exits 78 with the one-line file:line:key error.
 * It does not load plugins (that is `warden plugins`), but it reads every
 * section of the rules plugin as that plugin will (ruleset.h), so that a
 * rule that does not read or an example that fails refuses the config
 * here too, naming the file, the line, the rule and the example.
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "denyread.h"
#include "inputs.h"
#include "policy.h"
#include "ruleset.h"
#include "text.h"
#include "vocab.h"
#include "wconfig.h"

static const char *isolation_name(int isolation)
{
	return isolation == WARDEN_ISOLATION_PROCESS ? "process" : "inproc";
}

/* The rules of one rules answerer, as config check read them. */
struct rules_seen {
	const char *name;
	size_t rules, examples;
};

/* Reads every [answerer NAME] section of the rules plugin as the plugin
 * will: its rules, and every example against the rule above it. */
static int check_rules(const struct warden_config *c, struct rules_seen *seen,
                       size_t *n_seen, struct warden_error *err)
{
	const struct warden_config_plugin *p;
	struct warden_ruleset *rs;
	char msg[WARDEN_ERROR_MAX];
	size_t i, k;

	*n_seen = 0;
	for (i = 0; i < c->n_answerers; i++) {
		p = &c->answerers[i];
		if (p->plugin == NULL || !warden_ruleset_plugin_is_rules(p->plugin))
			continue;
		if ((rs = warden_ruleset_new(c->file, p->name)) == NULL)
			return warden_error_set(err, WARDEN_EOS, "config check: out of memory");
		for (k = 0; k < p->kv_count; k++) {
			if (warden_ruleset_add(rs, p->kv[k].key, p->kv[k].value,
			                       p->kv[k].line, msg, sizeof(msg)) < 0) {
				warden_ruleset_free(rs);
				return warden_error_set(err, WARDEN_ECONFIG, "%s", msg);
			}
		}
		seen[*n_seen].name = p->name;
		seen[*n_seen].rules = warden_ruleset_rules(rs);
		seen[*n_seen].examples = warden_ruleset_examples(rs);
		(*n_seen)++;
		warden_ruleset_free(rs);
	}
	return 0;
}

static json_t *rules_json(const struct rules_seen *seen, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o,s:I,s:I}",
		                      "name", warden_cli_json_string(seen[i].name),
		                      "rules", (json_int_t)seen[i].rules,
		                      "examples", (json_int_t)seen[i].examples));
	return a;
}

static json_t *plugins_json(const struct warden_config_plugin *p, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "name", warden_cli_json_string(p[i].name));
		json_object_set_new(o, "plugin", warden_cli_json_string(p[i].plugin));
		json_object_set_new(o, "line", json_integer(p[i].line));
		if (p[i].kind == WARDEN_PLUGIN_ANSWERER) {
			json_object_set_new(o, "isolation",
			                    warden_cli_json_string(isolation_name(p[i].isolation)));
			json_object_set_new(o, "timeout_ms", json_integer(p[i].timeout_ms));
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* The configured workspace_root as a sandbox would see it (resolved, or
 * normalised when it does not exist yet), or "" when none is set. */
static void root_of(const struct warden_config *c, char out[PATH_MAX])
{
	out[0] = '\0';
	if (c->workspace_root == NULL)
		return;
	if (warden_root_resolve(c->workspace_root, "workspace_root", out, NULL) < 0 &&
	    warden_path_normalise(c->workspace_root, out, NULL) < 0)
		out[0] = '\0';
}

static json_t *inputs_json(const struct warden_inputs *in, const char *root,
                           int only_under)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < in->n; i++) {
		if (only_under && (root[0] == '\0' || !warden_inputs_under(in->v[i].path, root)))
			continue;
		json_array_append_new(a, json_pack("{s:o,s:o}",
		                      "path", warden_cli_json_string(in->v[i].path),
		                      "what", warden_cli_json_string(in->v[i].what)));
	}
	return a;
}

/* What deny_read matches today, under the configured root (else the
 * current directory, a run's root without one). */
static int deny_matches(const struct warden_config *c, struct warden_deny *d,
                        struct warden_error *err)
{
	char root[PATH_MAX];
	const char *roots[1] = { root };

	root_of(c, root);
	if (root[0] == '\0' && getcwd(root, sizeof(root)) == NULL)
		root[0] = '\0';
	return warden_deny_expand(c, roots, root[0] != '\0', d, err);
}

static json_t *deny_json(const struct warden_deny *d)
{
	json_t *a = json_array();
	size_t i, k;

	for (i = 0; i < d->n_list; i++) {
		json_t *m = json_array();

		for (k = 0; k < d->n; k++)
			if (strcmp(d->patterns[k], d->list[i]) == 0)
				json_array_append_new(m, warden_cli_json_string(d->paths[k]));
		json_array_append_new(a, json_pack("{s:o,s:o}", "pattern",
		                      warden_cli_json_string(d->list[i]), "matches", m));
	}
	return a;
}

static void print_deny(const struct warden_deny *d)
{
	size_t i, k, n;

	printf("deny_read (%zu patterns, %zu paths kept unread today):\n",
	       d->n_list, d->n);
	for (i = 0; i < d->n_list; i++) {
		for (k = n = 0; k < d->n; k++)
			if (strcmp(d->patterns[k], d->list[i]) == 0) {
				warden_text_line(stdout, "  deny_read = %s: %s", d->list[i],
				                 d->paths[k]);
				n++;
			}
		if (n == 0)
			warden_text_line(stdout, "  deny_read = %s: nothing today", d->list[i]);
	}
}

static json_t *summary_json(const struct warden_config *c,
                            const struct warden_inputs *in,
                            const struct warden_deny *deny,
                            const struct rules_seen *seen, size_t n_seen)
{
	json_t *o = json_object(), *presets = json_array();
	char root[PATH_MAX];
	size_t i;

	json_object_set_new(o, "ok", json_true());
	json_object_set_new(o, "config", warden_cli_json_string(c->file));
	json_object_set_new(o, "default_mode", warden_cli_json_string(warden_mode_name(c->default_mode)));
	json_object_set_new(o, "approval_policy",
	                    warden_cli_json_string(warden_policy_name(c->approval_policy)));
	json_object_set_new(o, "workspace_root",
	                    c->workspace_root ? warden_cli_json_string(c->workspace_root) : json_null());
	json_object_set_new(o, "require_full", json_boolean(c->require_full));
	json_object_set_new(o, "state_dir", warden_cli_json_string(c->state_dir));
	json_object_set_new(o, "plugin_dir", warden_cli_json_string(c->plugin_dir));
	json_object_set_new(o, "durability", warden_cli_json_string(
		c->durability == WARDEN_DURABILITY_NONE ? "none" : "fsync"));
	json_object_set_new(o, "backends", plugins_json(c->backends, c->n_backends));
	json_object_set_new(o, "answerers", plugins_json(c->answerers, c->n_answerers));
	json_object_set_new(o, "rules", rules_json(seen, n_seen));
	for (i = 0; i < c->n_presets; i++) {
		const struct warden_preset *p = &c->presets[i];
		json_t *po = json_object();

		json_object_set_new(po, "name", warden_cli_json_string(p->name));
		json_object_set_new(po, "sandbox", warden_cli_json_string(warden_mode_name(p->mode)));
		json_object_set_new(po, "approval", warden_cli_json_string(warden_policy_name(p->policy)));
		json_object_set_new(po, "label", p->label ? warden_cli_json_string(p->label) : json_null());
		json_array_append_new(presets, po);
	}
	json_object_set_new(o, "presets", presets);
	json_object_set_new(o, "presets_builtin", json_boolean(c->presets_builtin));
	root_of(c, root);
	json_object_set_new(o, "inputs", inputs_json(in, root, 0));
	json_object_set_new(o, "inputs_under_workspace_root", inputs_json(in, root, 1));
	json_object_set_new(o, "deny_read_defaults", json_boolean(c->deny_read_defaults));
	json_object_set_new(o, "deny_read", deny_json(deny));
	return o;
}

/* warden's own inputs that a workspace-write run under the configured
 * root could rewrite, one line each. */
static void print_inputs_under_root(const struct warden_config *c,
                                    const struct warden_inputs *in)
{
	char root[PATH_MAX];
	size_t i, n = 0;

	root_of(c, root);
	if (root[0] == '\0')
		return;
	for (i = 0; i < in->n; i++)
		n += warden_inputs_under(in->v[i].path, root) != 0;
	if (n == 0) {
		printf("inputs under workspace_root: none\n");
		return;
	}
	printf("inputs under workspace_root (%zu): a workspace-write command could rewrite them to loosen later commands; bwrap keeps them read-only, Landlock refuses to confine (SANDBOX_UNAVAILABLE)\n", n);
	for (i = 0; i < in->n; i++)
		if (warden_inputs_under(in->v[i].path, root))
			warden_text_line(stdout, "  %s (%s)", in->v[i].path, in->v[i].what);
}

static void print_plugins(const char *what, const struct warden_config_plugin *p,
                          size_t n)
{
	size_t i;

	printf("%s (%zu):", what, n);
	if (n == 0)
		printf(" none");
	for (i = 0; i < n; i++)
		warden_text_printf(stdout, "%s %s (plugin %s%s%s)", i ? "," : "",
		                   p[i].name, p[i].plugin,
		                   p[i].kind == WARDEN_PLUGIN_ANSWERER ? ", " : "",
		                   p[i].kind == WARDEN_PLUGIN_ANSWERER
		                   ? isolation_name(p[i].isolation) : "");
	printf("\n");
}

static void print_summary(const struct warden_config *c,
                          const struct warden_inputs *in,
                          const struct warden_deny *deny,
                          const struct rules_seen *seen, size_t n_seen)
{
	size_t i;

	warden_text_line(stdout, "config: %s: ok", c->file);
	printf("default_mode: %s\n", warden_mode_name(c->default_mode));
	printf("approval_policy: %s\n", warden_policy_name(c->approval_policy));
	if (c->workspace_root != NULL)
		warden_text_line(stdout, "workspace_root: %s", c->workspace_root);
	printf("require_full: %s\n", c->require_full ? "true" : "false");
	warden_text_line(stdout, "state_dir: %s", c->state_dir);
	warden_text_line(stdout, "plugin_dir: %s", c->plugin_dir);
	print_plugins("backends", c->backends, c->n_backends);
	print_plugins("answerers", c->answerers, c->n_answerers);
	for (i = 0; i < n_seen; i++)
		warden_text_line(stdout, "rules %s: %zu rules, %zu examples hold",
		                 seen[i].name, seen[i].rules, seen[i].examples);
	printf("presets (%zu%s):", c->n_presets, c->presets_builtin ? ", built-in" : "");
	for (i = 0; i < c->n_presets; i++)
		warden_text_printf(stdout, "%s %s (%s, %s)", i ? "," : "", c->presets[i].name,
		       warden_mode_name(c->presets[i].mode),
		       warden_policy_name(c->presets[i].policy));
	printf("\n");
	print_inputs_under_root(c, in);
	print_deny(deny);
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
	struct warden_config *cfg = NULL;
	struct warden_inputs *inputs = NULL;
	struct warden_error err = { 0, "" };
	struct warden_deny deny;
	struct rules_seen *seen = NULL;
	size_t n_seen = 0;
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

	if (warden_config_load(cli->config_path, &cfg, &err) < 0 ||
	    (seen = calloc(cfg->n_answerers + 1, sizeof(*seen))) == NULL ||
	    check_rules(cfg, seen, &n_seen, &err) < 0) {
		if (cfg != NULL && seen == NULL)
			warden_error_set(&err, WARDEN_EOS, "config check: out of memory");
		free(seen);
		warden_config_free(cfg);
		if (json) {
			struct warden_error jerr = { 0, "" };

			o = json_pack("{s:b,s:o,s:i}", "ok", 0,
			              "error", warden_cli_json_string(err.msg),
			              "exit", err.code);
			if (warden_cli_print_json(o, &jerr) < 0)
				warden_cli_fail(&jerr);
		}
		return warden_cli_fail(&err);
	}
	if (warden_inputs_collect(cfg, &inputs, &err) < 0) {
		free(seen);
		warden_config_free(cfg);
		return warden_cli_fail(&err);
	}
	warden_deny_init(&deny);
	if (deny_matches(cfg, &deny, &err) < 0) {
		free(seen);
		warden_inputs_free(inputs);
		warden_config_free(cfg);
		return warden_cli_fail(&err);
	}
	if (json) {
		if (warden_cli_print_json(summary_json(cfg, inputs, &deny, seen, n_seen), &err) < 0) {
			free(seen);
			warden_deny_free(&deny);
			warden_inputs_free(inputs);
			warden_config_free(cfg);
			return warden_cli_fail(&err);
		}
	} else {
		print_summary(cfg, inputs, &deny, seen, n_seen);
	}
	free(seen);
	warden_deny_free(&deny);
	warden_inputs_free(inputs);
	warden_config_free(cfg);
	return 0;
}
