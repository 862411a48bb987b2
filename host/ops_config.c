/*
 * ops_config.c — the config check operation (ops.h): find and validate
 * the config exactly as every other operation will, and summarise what it
 * says.  It does not load plugins (that is the plugins operation), but it
 * reads every section of the rules plugin as that plugin will
 * (ruleset.h), so that a rule that does not read or an example that fails
 * refuses the config here too, naming the file, the line, the rule and
 * the example.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "denyread.h"
#include "inputs.h"
#include "ops.h"
#include "policy.h"
#include "ruleset.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

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
			return warden_error_set(err, WARDEN_EOS, "out of memory");
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
		                      "name", warden_json_string_lossy(seen[i].name),
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

		json_object_set_new(o, "name", warden_json_string_lossy(p[i].name));
		json_object_set_new(o, "plugin", warden_json_string_lossy(p[i].plugin));
		json_object_set_new(o, "line", json_integer(p[i].line));
		if (p[i].kind == WARDEN_PLUGIN_ANSWERER) {
			json_object_set_new(o, "isolation",
			                    warden_json_string_lossy(isolation_name(p[i].isolation)));
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
		                      "path", warden_json_string_lossy(in->v[i].path),
		                      "what", warden_json_string_lossy(in->v[i].what)));
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
				json_array_append_new(m, warden_json_string_lossy(d->paths[k]));
		json_array_append_new(a, json_pack("{s:o,s:o}", "pattern",
		                      warden_json_string_lossy(d->list[i]), "matches", m));
	}
	return a;
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
	json_object_set_new(o, "config", warden_json_string_lossy(c->file));
	json_object_set_new(o, "default_mode", warden_json_string_lossy(warden_mode_name(c->default_mode)));
	json_object_set_new(o, "approval_policy",
	                    warden_json_string_lossy(warden_policy_name(c->approval_policy)));
	json_object_set_new(o, "workspace_root",
	                    c->workspace_root ? warden_json_string_lossy(c->workspace_root) : json_null());
	json_object_set_new(o, "require_full", json_boolean(c->require_full));
	json_object_set_new(o, "state_dir", warden_json_string_lossy(c->state_dir));
	json_object_set_new(o, "plugin_dir", warden_json_string_lossy(c->plugin_dir));
	json_object_set_new(o, "durability", warden_json_string_lossy(
		c->durability == WARDEN_DURABILITY_NONE ? "none" : "fsync"));
	json_object_set_new(o, "backends", plugins_json(c->backends, c->n_backends));
	json_object_set_new(o, "answerers", plugins_json(c->answerers, c->n_answerers));
	json_object_set_new(o, "rules", rules_json(seen, n_seen));
	for (i = 0; i < c->n_presets; i++) {
		const struct warden_preset *p = &c->presets[i];
		json_t *po = json_object();

		json_object_set_new(po, "name", warden_json_string_lossy(p->name));
		json_object_set_new(po, "sandbox", warden_json_string_lossy(warden_mode_name(p->mode)));
		json_object_set_new(po, "approval", warden_json_string_lossy(warden_policy_name(p->policy)));
		json_object_set_new(po, "label", p->label ? warden_json_string_lossy(p->label) : json_null());
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

json_t *warden_op_config_check(struct warden_op *op)
{
	struct warden_config *cfg = NULL;
	struct warden_inputs *inputs = NULL;
	struct warden_deny deny;
	struct rules_seen *seen = NULL;
	size_t n_seen = 0;
	json_t *o = NULL;

	op->field = NULL;
	warden_deny_init(&deny);
	/* Always read again: the point is to check the file as it is now. */
	if (warden_config_load(op->config_path, &cfg, &op->err) < 0)
		return NULL;
	if ((seen = calloc(cfg->n_answerers + 1, sizeof(*seen))) == NULL)
		warden_error_set(&op->err, WARDEN_EOS, "out of memory");
	else if (check_rules(cfg, seen, &n_seen, &op->err) == 0 &&
	         warden_inputs_collect(cfg, &inputs, &op->err) == 0 &&
	         deny_matches(cfg, &deny, &op->err) == 0 &&
	         (o = summary_json(cfg, inputs, &deny, seen, n_seen)) == NULL)
		warden_error_set(&op->err, WARDEN_EOS, "out of memory");
	free(seen);
	warden_deny_free(&deny);
	warden_inputs_free(inputs);
	warden_config_free(cfg);
	return o;
}
