/*
 * preset.c — permission presets: the table, current() and select()
 * (DESIGN §4); see preset.h.
 */
#include "config.h"

#include <string.h>

#include "preset.h"
#include "vocab.h"

/* DESIGN §4's default table, for a config that declares no preset. */
static const struct warden_preset builtin[] = {
	{ (char *)"workspace-write", WARDEN_SANDBOX_WORKSPACE_WRITE, WARDEN_POLICY_ASK,
	  (char *)"Workspace write",
	  (char *)"Writes under the workspace root; asks before anything beyond it", 0,
	  WARDEN_NETWORK_RESTRICTED },
	{ (char *)"danger-full-access", WARDEN_SANDBOX_DANGER_FULL_ACCESS, WARDEN_POLICY_NEVER,
	  (char *)"Full access",
	  (char *)"No sandbox and no approvals: for disposable, single-use environments only", 0,
	  WARDEN_NETWORK_ENABLED },
};

const struct warden_preset *warden_preset_table(const struct warden_config *cfg,
                                                size_t *n)
{
	if (cfg->presets != NULL && cfg->n_presets > 0) {
		*n = cfg->n_presets;
		return cfg->presets;
	}
	*n = sizeof(builtin) / sizeof(builtin[0]);
	return builtin;
}

const struct warden_preset *warden_preset_find(const struct warden_config *cfg,
                                               const char *name)
{
	const struct warden_preset *t;
	size_t i, n;

	if (name == NULL)
		return NULL;
	t = warden_preset_table(cfg, &n);
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

int warden_knobs_mode(const struct warden_config *cfg, const struct warden_knobs *k)
{
	return k->mode ? k->mode : cfg->default_mode;
}

int warden_knobs_policy(const struct warden_config *cfg, const struct warden_knobs *k)
{
	return k->policy ? k->policy : cfg->approval_policy;
}

int warden_knobs_network(const struct warden_config *cfg, const struct warden_knobs *k)
{
	if (k->network)
		return k->network;
	return cfg->default_network ? cfg->default_network : WARDEN_NETWORK_RESTRICTED;
}

int warden_knobs_network_effective(const struct warden_config *cfg,
                                   const struct warden_knobs *k)
{
	if (warden_knobs_mode(cfg, k) == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
		return WARDEN_NETWORK_ENABLED;
	return warden_knobs_network(cfg, k);
}

/* Does preset p describe these effective knobs?  A preset without a
 * network key matches any network. */
static int matches(const struct warden_preset *p, int mode, int policy, int network)
{
	return p->mode == mode && p->policy == policy &&
	       (p->network == 0 || p->network == network);
}

const char *warden_preset_current(const struct warden_config *cfg,
                                  const struct warden_knobs *k,
                                  int *from_selection)
{
	int mode = warden_knobs_mode(cfg, k), policy = warden_knobs_policy(cfg, k);
	int network = warden_knobs_network_effective(cfg, k);
	const struct warden_preset *t, *p;
	size_t i, n;

	if (from_selection != NULL)
		*from_selection = 0;
	/* Presets may share a bundle: the last selection wins while it
	 * still describes the knobs. */
	p = k->preset[0] ? warden_preset_find(cfg, k->preset) : NULL;
	if (p != NULL && matches(p, mode, policy, network)) {
		if (from_selection != NULL)
			*from_selection = 1;
		return p->name;
	}
	t = warden_preset_table(cfg, &n);
	for (i = 0; i < n; i++)
		if (matches(&t[i], mode, policy, network))
			return t[i].name;
	return WARDEN_PRESET_CUSTOM;
}

struct select_ctx {
	const struct warden_config *cfg;
	const struct warden_preset *p;
	int changed;
};

static int select_txn(struct warden_session *s, const struct warden_knobs *now,
                      void *ud, struct warden_error *err)
{
	struct select_ctx *c = ud;
	int r, ch;

	if (strcmp(warden_preset_current(c->cfg, now, NULL), c->p->name) == 0)
		return 0;
	if ((r = warden_session_set_preset(s, c->p->name, &ch, err)) < 0)
		return r;
	c->changed = 1;
	if (warden_knobs_mode(c->cfg, now) != c->p->mode &&
	    (r = warden_session_set_mode(s, c->p->mode, &ch, err)) < 0)
		return r;
	if (warden_knobs_policy(c->cfg, now) != c->p->policy &&
	    (r = warden_session_set_policy(s, c->p->policy, &ch, err)) < 0)
		return r;
	if (c->p->network != 0 && warden_knobs_network(c->cfg, now) != c->p->network &&
	    (r = warden_session_set_network(s, c->p->network, &ch, err)) < 0)
		return r;
	return 0;
}

int warden_preset_select(const struct warden_config *cfg,
                         struct warden_session *s, const char *name,
                         int *changed, struct warden_error *err)
{
	struct select_ctx c = { cfg, NULL, 0 };
	int r;

	if (changed != NULL)
		*changed = 0;
	if (name != NULL && strcmp(name, WARDEN_PRESET_CUSTOM) == 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "\"custom\" is derived from the knobs and cannot be selected (set the knobs themselves: mode set, policy set, network set)");
	c.p = warden_preset_find(cfg, name);
	if (c.p == NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "unknown preset (the preset list shows them)");
	r = warden_session_transaction(s, select_txn, &c, err);
	if (r == 0 && changed != NULL)
		*changed = c.changed;
	return r;
}
