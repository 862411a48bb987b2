/*
 * ops.c — the session, knob, roots, grant and preset operations (ops.h).
 *
 * Each one loads the config, opens the session it acts on, and answers
 * with JSON; the words of its errors are the operation's own, so that the
 * CLI and `warden serve` can each put them in their own frame.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "denyread.h"
#include "grant.h"
#include "ops.h"
#include "policy.h"
#include "preset.h"
#include "roots.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

static struct json_t *fail(struct warden_op *op, const char *field)
{
	op->field = field;
	return NULL;
}

static struct json_t *no_memory(struct warden_op *op, const char *what)
{
	warden_error_set(&op->err, WARDEN_EOS, "%s: out of memory", what);
	return fail(op, NULL);
}

static int has_session(const struct warden_op *op)
{
	return op->session_id != NULL && op->session_id[0] != '\0';
}

/* The config, unless it is the caller's. */
static void cfg_free(const struct warden_op *op, struct warden_config *cfg)
{
	if (cfg != op->cfg)
		warden_config_free(cfg);
}

/* The config, and the session when one is given (need: one must be). */
static int begin(struct warden_op *op, int need, struct warden_config **cfg,
                 struct warden_session **s)
{
	*cfg = NULL;
	if (s != NULL)
		*s = NULL;
	op->field = NULL;
	if (need && !has_session(op)) {
		op->field = "session";
		return warden_error_set(&op->err, WARDEN_EUSAGE, "no session given");
	}
	if (has_session(op) && warden_session_id_check(op->session_id, &op->err) < 0) {
		op->field = "session";
		return -op->err.code;
	}
	if (op->cfg != NULL)
		*cfg = (struct warden_config *)op->cfg;
	else if (warden_config_load(op->config_path, cfg, &op->err) < 0)
		return -op->err.code;
	if (s != NULL && has_session(op) &&
	    warden_session_open(*cfg, op->session_id, s, &op->err) < 0) {
		cfg_free(op, *cfg);
		*cfg = NULL;
		return -op->err.code;
	}
	return 0;
}

static void end(struct warden_op *op, struct warden_config *cfg, struct warden_session *s)
{
	warden_session_close(s);
	cfg_free(op, cfg);
}

static json_t *str_or_null(const char *s)
{
	return s != NULL && s[0] != '\0' ? warden_json_string_lossy(s) : json_null();
}

/*
 * A write that happened is never reported as an error, and a process of
 * warden ends at once when jansson cannot allocate (wjson.h): so a write's
 * answer is built in full before the write, both its forms when the write
 * may find nothing to do, and after the write only a value of a key it
 * already has is replaced (which allocates nothing).
 */
struct answer {
	json_t *o;          /* {session, ..., changed: true, message: done} */
	json_t *same;       /* the message when nothing was written */
};

static int answer_new(struct warden_op *op, struct answer *a, json_t *o,
                      const char *same)
{
	a->o = o;
	a->same = same != NULL ? warden_json_string_lossy(same) : NULL;
	if (a->o == NULL || (same != NULL && a->same == NULL)) {
		json_decref(a->o);
		json_decref(a->same);
		a->o = a->same = NULL;
		return warden_error_set(&op->err, WARDEN_EOS, "out of memory (nothing was written)");
	}
	return 0;
}

static json_t *answer_give(struct answer *a, int changed)
{
	if (!changed) {
		json_object_set_new(a->o, "changed", json_false());
		if (a->same != NULL)
			json_object_set_new(a->o, "message", a->same);
	} else {
		json_decref(a->same);
	}
	return a->o;
}

static void answer_drop(struct answer *a)
{
	json_decref(a->o);
	json_decref(a->same);
}

/* Whether a cancel (op->cancel) came: then nothing is written.  (A write
 * to a session's log is stopped deeper, where its lock is taken:
 * warden_session_cancel_on(); creating a session takes no lock.) */
static int cancelled(struct warden_op *op)
{
	if (op->cancel == NULL || !*op->cancel)
		return 0;
	warden_error_set(&op->err, WARDEN_EREFUSED, "cancelled: nothing was written");
	return 1;
}

/* ------------------------------------------------------------ sessions */

json_t *warden_op_session_new(struct warden_op *op, const char *cwd)
{
	struct warden_config *cfg;
	char *id = NULL;
	json_t *o;

	if (begin(op, 0, &cfg, NULL) < 0)
		return fail(op, op->field);
	if (cancelled(op)) {
		cfg_free(op, cfg);
		return fail(op, NULL);
	}
	if (warden_session_create(cfg, cwd, &id, &op->err) < 0) {
		cfg_free(op, cfg);
		return fail(op, cwd != NULL ? "cwd" : NULL);
	}
	cfg_free(op, cfg);
	o = json_pack("{s:s}", "session", id);
	free(id);
	return o != NULL ? o : no_memory(op, "session new");
}

int warden_op_session_show(struct warden_op *op,
                           int (*fn)(uint64_t, json_t *, void *), void *ud)
{
	struct warden_config *cfg;
	struct warden_session *s;
	int r;

	if (begin(op, 1, &cfg, &s) < 0)
		return -op->err.code;
	/* The whole log is checked before any of it is given out. */
	r = warden_session_replay(s, NULL, NULL, NULL, &op->err);
	if (r == 0)
		r = warden_session_replay(s, fn, ud, NULL, &op->err);
	if (r == -WARDEN_EOS && op->err.msg[0] == '\0')
		warden_error_set(&op->err, WARDEN_EOS, "out of memory while reading the events");
	end(op, cfg, s);
	return r;
}

static json_t *sourced(json_t *value, int source)
{
	return json_pack("{s:o,s:s}", "value", value, "source", warden_source_name(source));
}

/* A note for each root (the workspace root first) that deny_read keeps
 * unread, which a run refuses (run.c says the same). */
static void deny_notes(const struct warden_config *cfg, const char *root,
                       const struct warden_roots *roots, json_t *notes)
{
	const char *list[1 + WARDEN_ROOTS_ALL], *pattern, *match;
	struct warden_error err = { 0, "" };
	struct warden_deny d;
	size_t i, n = 0;

	list[n++] = root;
	for (i = 0; i < roots->n; i++)
		list[n++] = roots->path[i];
	warden_deny_init(&d);
	if (json_is_array(notes) && warden_deny_expand(cfg, list, n, &d, &err) == 0)
		for (i = 0; i < n; i++)
			if ((pattern = warden_deny_covers(&d, list[i], &match)) != NULL)
				json_array_append_new(notes, json_sprintf(
					"%s lies in %s, which deny_read = %s keeps unread: a run refuses it (choose another directory, or take the pattern out of deny_read)",
					list[i], match, pattern));
	warden_deny_free(&d);
}

/* The roots a workspace-write run of the session would get beside its
 * root: {value, source, notes}, or {value: null, error} when they do not
 * resolve; NULL: no answer (never a wrong one). */
static json_t *state_roots(const struct warden_config *cfg, struct warden_session *s,
                           const char *root)
{
	struct warden_error err = { 0, "" };
	struct warden_roots roots;
	json_t *o;
	int r;

	warden_roots_init(&roots);
	r = warden_roots_resolve(cfg, warden_session_knobs(s), root, &roots, &err);
	if (r == -WARDEN_EOS || r == -WARDEN_EIO)
		return NULL;
	if (r < 0)
		return json_pack("{s:n,s:o}", "value", "error", warden_json_string_lossy(err.msg));
	o = json_pack("{s:o,s:s,s:o}", "value", warden_roots_json(&roots),
	              "source", warden_source_name(roots.list_source),
	              "notes", warden_roots_notes_json(&roots));
	if (o != NULL)
		deny_notes(cfg, root, &roots, json_object_get(o, "notes"));
	warden_roots_free(&roots);
	return o;
}

json_t *warden_op_session_state(struct warden_op *op)
{
	struct warden_config *cfg;
	struct warden_session *s;
	struct warden_resolved res;
	json_t *roots, *grants = NULL;

	if (begin(op, 1, &cfg, &s) < 0)
		return fail(op, op->field);
	if (warden_policy_resolve_session(cfg, s, 0, &res, &op->err) < 0 ||
	    warden_session_grants(s, &grants, &op->err) < 0) {
		end(op, cfg, s);
		return fail(op, NULL);
	}
	roots = state_roots(cfg, s, res.root);
	end(op, cfg, s);
	if (roots == NULL) {
		json_decref(grants);
		warden_error_set(&op->err, WARDEN_EOS, "session state: the writable roots could not be read (out of memory?)");
		return fail(op, NULL);
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
	                 "session", warden_json_string_lossy(res.session_id),
	                 "mode", sourced(json_string(warden_mode_name(res.mode)), res.mode_source),
	                 "network", sourced(json_string(warden_network_name(res.network)), res.network_source),
	                 "policy", sourced(json_string(warden_policy_name(res.policy)), res.policy_source),
	                 "preset", sourced(warden_json_string_lossy(res.preset), res.preset_source),
	                 "root", sourced(warden_json_string_lossy(res.root), res.root_source),
	                 "roots", roots, "grants", grants);
}

/* --------------------------------------------------------------- knobs */

json_t *warden_op_knob_set(struct warden_op *op, int knob, const char *value)
{
	static const char *const names[] = { "", "mode", "policy", "network" };
	struct warden_config *cfg;
	struct warden_session *s;
	int v, r, changed = 0;
	char msg[256], same[256];
	struct answer ans;

	if (knob < WARDEN_OP_MODE || knob > WARDEN_OP_NETWORK) {
		warden_error_set(&op->err, WARDEN_EINTERNAL, "no such knob");
		return fail(op, NULL);
	}
	v = knob == WARDEN_OP_MODE ? warden_mode_parse(value)
	    : knob == WARDEN_OP_POLICY ? warden_policy_parse(value)
	    : warden_network_parse(value);
	if (v < 0) {
		warden_error_set(&op->err, WARDEN_EUSAGE, "%s",
		                 knob == WARDEN_OP_MODE
		                 ? "not a sandbox mode (allowed: read-only, workspace-write, danger-full-access)"
		                 : knob == WARDEN_OP_POLICY
		                 ? "not an approval policy (allowed: ask, never)"
		                 : "not a network setting (allowed: restricted, allowlist, enabled)");
		return fail(op, names[knob]);
	}
	if (begin(op, 1, &cfg, &s) < 0)
		return fail(op, op->field);
	snprintf(msg, sizeof(msg), "%s: %s", names[knob], value);
	snprintf(same, sizeof(same), "%s: %s (already recorded; nothing written)", names[knob], value);
	if (answer_new(op, &ans, json_pack("{s:s,s:s,s:b,s:s}", "session", op->session_id,
	                                   names[knob], value, "changed", 1, "message", msg),
	               same) < 0) {
		end(op, cfg, s);
		return fail(op, NULL);
	}
	r = knob == WARDEN_OP_MODE ? warden_session_set_mode(s, v, &changed, &op->err)
	    : knob == WARDEN_OP_POLICY ? warden_session_set_policy(s, v, &changed, &op->err)
	    : warden_session_set_network(s, v, &changed, &op->err);
	end(op, cfg, s);
	if (r < 0) {
		answer_drop(&ans);
		return fail(op, NULL);
	}
	return answer_give(&ans, changed);
}

json_t *warden_op_network(struct warden_op *op)
{
	struct warden_config *cfg;
	struct warden_resolved res;
	int r;

	/* A session given as "" is a bad id, not none. */
	if (op->session_id != NULL && warden_session_id_check(op->session_id, &op->err) < 0)
		return fail(op, "session");
	if (begin(op, 0, &cfg, NULL) < 0)
		return fail(op, op->field);
	r = warden_policy_resolve(cfg, has_session(op) ? op->session_id : NULL, 0, &res, &op->err);
	cfg_free(op, cfg);
	if (r < 0)
		return fail(op, NULL);
	return json_pack("{s:o,s:s,s:s,s:s}", "session", str_or_null(res.session_id),
	                 "network", warden_network_name(res.network),
	                 "source", warden_source_name(res.network_source),
	                 "mode", warden_mode_name(res.mode));
}

/* --------------------------------------------------------------- roots */

json_t *warden_op_roots_list(struct warden_op *op)
{
	struct warden_config *cfg;
	struct warden_session *s;
	struct warden_resolved res;
	struct warden_roots roots;
	json_t *o;
	int r;

	warden_roots_init(&roots);
	if (begin(op, 0, &cfg, &s) < 0)
		return fail(op, op->field);
	r = s != NULL ? warden_policy_resolve_session(cfg, s, 0, &res, &op->err)
	              : warden_policy_resolve(cfg, NULL, 0, &res, &op->err);
	if (r == 0)
		r = warden_roots_resolve(cfg, s != NULL ? warden_session_knobs(s) : NULL,
		                         res.root, &roots, &op->err);
	end(op, cfg, s);
	if (r < 0)
		return fail(op, NULL);
	o = json_pack("{s:o,s:o,s:s,s:o,s:o}", "session", str_or_null(res.session_id),
	              "root", warden_json_string_lossy(res.root),
	              "source", warden_source_name(roots.list_source),
	              "roots", warden_roots_json(&roots),
	              "notes", warden_roots_notes_json(&roots));
	warden_roots_free(&roots);
	return o != NULL ? o : no_memory(op, "roots");
}

json_t *warden_op_roots_change(struct warden_op *op, const char *dir, int add)
{
	struct warden_config *cfg;
	struct warden_session *s;
	char resolved[PATH_MAX], pre[PATH_MAX], msg[PATH_MAX + 64], same[PATH_MAX + 128];
	struct answer ans;
	int r, changed = 0;

	if (dir == NULL || dir[0] != '/') {
		warden_error_set(&op->err, WARDEN_EUSAGE, "'%.256s' is not an absolute path: give the directory's absolute path",
		                 dir != NULL ? dir : "");
		return fail(op, "dir");
	}
	if (!has_session(op)) {
		warden_error_set(&op->err, WARDEN_EUSAGE, "no session given (without one, list directories in [warden] writable_roots)");
		return fail(op, "session");
	}
	if (begin(op, 1, &cfg, &s) < 0)
		return fail(op, op->field);
	/* The directory as the change will record it (roots.h); were it to
	 * resolve otherwise by the time of the write, the answer is built
	 * again with what was recorded. */
	warden_roots_dir_resolve(dir, pre);
	snprintf(msg, sizeof(msg), "roots: %s %s", add ? "added" : "removed", pre);
	snprintf(same, sizeof(same), "%s (already recorded; nothing written)", msg);
	if (answer_new(op, &ans, json_pack("{s:s,s:o,s:b,s:o}", "session", op->session_id,
	                                   "dir", warden_json_string_lossy(pre), "changed", 1,
	                                   "message", warden_json_string_lossy(msg)),
	               same) < 0) {
		end(op, cfg, s);
		return fail(op, NULL);
	}
	r = warden_roots_change(cfg, s, dir, add, resolved, &changed, &op->err);
	end(op, cfg, s);
	if (r < 0) {
		answer_drop(&ans);
		return fail(op, r == -WARDEN_EUSAGE || r == -WARDEN_EDATA ? "dir" : NULL);
	}
	if (strcmp(resolved, pre) != 0) {
		answer_drop(&ans);
		snprintf(msg, sizeof(msg), "roots: %s %s%s", add ? "added" : "removed", resolved,
		         changed ? "" : " (already recorded; nothing written)");
		return json_pack("{s:s,s:o,s:b,s:o}", "session", op->session_id,
		                 "dir", warden_json_string_lossy(resolved), "changed", changed,
		                 "message", warden_json_string_lossy(msg));
	}
	return answer_give(&ans, changed);
}

/* -------------------------------------------------------------- grants */

json_t *warden_op_grant_list(struct warden_op *op)
{
	struct warden_config *cfg;
	struct warden_session *s;
	json_t *grants = NULL;
	int r;

	if (!has_session(op)) {
		warden_error_set(&op->err, WARDEN_EUSAGE, "no session given: grants belong to a session");
		return fail(op, "session");
	}
	if (begin(op, 1, &cfg, &s) < 0)
		return fail(op, op->field);
	r = warden_session_grants(s, &grants, &op->err);
	end(op, cfg, s);
	if (r < 0)
		return fail(op, NULL);
	return json_pack("{s:s,s:o}", "session", op->session_id, "grants", grants);
}

json_t *warden_op_grant_revoke(struct warden_op *op, const char *grant)
{
	struct warden_config *cfg;
	struct warden_session *s;
	char msg[128];
	struct answer ans;
	int r;

	if (grant == NULL || !warden_grant_id_ok(grant)) {
		warden_error_set(&op->err, WARDEN_EUSAGE, "'%.64s' is not a grant id (grant- and 16 hex digits: the grant list shows them)",
		                 grant != NULL ? grant : "");
		return fail(op, "grant");
	}
	if (!has_session(op)) {
		warden_error_set(&op->err, WARDEN_EUSAGE, "no session given: grants belong to a session");
		return fail(op, "session");
	}
	if (begin(op, 1, &cfg, &s) < 0)
		return fail(op, op->field);
	snprintf(msg, sizeof(msg), "grant: revoked %s", grant);
	if (answer_new(op, &ans, json_pack("{s:s,s:s,s:s}", "session", op->session_id,
	                                   "grant", grant, "message", msg), NULL) < 0) {
		end(op, cfg, s);
		return fail(op, NULL);
	}
	r = warden_session_revoke(s, grant, &op->err);
	end(op, cfg, s);
	if (r < 0) {
		answer_drop(&ans);
		return fail(op, r == -WARDEN_EUSAGE ? "grant" : NULL);
	}
	return answer_give(&ans, 1);
}

/* ------------------------------------------------------------- presets */

json_t *warden_op_preset_list(struct warden_op *op)
{
	struct warden_config *cfg;
	struct warden_resolved res;
	const struct warden_preset *t;
	const char *current = NULL;
	json_t *a;
	size_t i, n;

	if (begin(op, 0, &cfg, NULL) < 0)
		return fail(op, op->field);
	if (has_session(op)) {
		if (warden_policy_resolve(cfg, op->session_id, 0, &res, &op->err) < 0) {
			cfg_free(op, cfg);
			return fail(op, NULL);
		}
		current = res.preset;
	}
	t = warden_preset_table(cfg, &n);
	a = json_array();
	for (i = 0; a != NULL && i < n; i++) {
		json_t *o = json_pack("{s:o,s:s,s:s,s:o,s:o,s:o}",
		                      "name", warden_json_string_lossy(t[i].name),
		                      "sandbox", warden_mode_name(t[i].mode),
		                      "approval", warden_policy_name(t[i].policy),
		                      "network", t[i].network ? json_string(warden_network_name(t[i].network))
		                                              : json_null(),
		                      "label", t[i].label ? warden_json_string_lossy(t[i].label) : json_null(),
		                      "description", t[i].description ? warden_json_string_lossy(t[i].description) : json_null());

		if (o != NULL && current != NULL)
			json_object_set_new(o, "current", json_boolean(strcmp(current, t[i].name) == 0));
		if (o == NULL || json_array_append_new(a, o) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	cfg_free(op, cfg);
	return a != NULL ? a : no_memory(op, "preset list");
}

json_t *warden_op_preset_select(struct warden_op *op, const char *name)
{
	struct warden_config *cfg;
	struct warden_session *s;
	char msg[512], same[560];
	struct answer ans;
	int r, changed = 0;

	if (name == NULL || name[0] == '\0') {
		warden_error_set(&op->err, WARDEN_EUSAGE, "no preset named");
		return fail(op, "name");
	}
	if (begin(op, 1, &cfg, &s) < 0)
		return fail(op, op->field);
	if (strcmp(name, WARDEN_PRESET_CUSTOM) != 0 && warden_preset_find(cfg, name) == NULL) {
		end(op, cfg, s);
		warden_error_set(&op->err, WARDEN_EUSAGE, "unknown preset (the preset list shows them)");
		return fail(op, "name");
	}
	snprintf(msg, sizeof(msg), "preset: %s", name);
	snprintf(same, sizeof(same), "preset: %s (already current; nothing written)", name);
	if (answer_new(op, &ans, json_pack("{s:s,s:o,s:b,s:o}", "session", op->session_id,
	                                   "preset", warden_json_string_lossy(name), "changed", 1,
	                                   "message", warden_json_string_lossy(msg)),
	               same) < 0) {
		end(op, cfg, s);
		return fail(op, NULL);
	}
	r = warden_preset_select(cfg, s, name, &changed, &op->err);
	end(op, cfg, s);
	if (r < 0) {
		answer_drop(&ans);
		return fail(op, r == -WARDEN_EUSAGE ? "name" : NULL);
	}
	return answer_give(&ans, changed);
}

json_t *warden_op_preset_current(struct warden_op *op)
{
	struct warden_config *cfg;
	struct warden_resolved res;
	int r;

	if (begin(op, 1, &cfg, NULL) < 0)
		return fail(op, op->field);
	r = warden_policy_resolve(cfg, op->session_id, 0, &res, &op->err);
	cfg_free(op, cfg);
	if (r < 0)
		return fail(op, NULL);
	return json_pack("{s:o,s:s,s:s,s:s,s:s}",
	                 "preset", warden_json_string_lossy(res.preset),
	                 "source", warden_source_name(res.preset_source),
	                 "sandbox", warden_mode_name(res.mode),
	                 "approval", warden_policy_name(res.policy),
	                 "network", warden_network_name(res.network));
}
