/* vocab.c — see vocab.h. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "vocab.h"

struct name { int value; const char *name; };

static const struct name modes[] = {
	{ WARDEN_SANDBOX_READ_ONLY, "read-only" },
	{ WARDEN_SANDBOX_WORKSPACE_WRITE, "workspace-write" },
	{ WARDEN_SANDBOX_DANGER_FULL_ACCESS, "danger-full-access" },
};
static const struct name policies[] = {
	{ WARDEN_POLICY_ASK, "ask" },
	{ WARDEN_POLICY_NEVER, "never" },
};
static const struct name outcomes[] = {
	{ WARDEN_OUTCOME_ALLOWED_ONCE, "allowed-once" },
	{ WARDEN_OUTCOME_REJECTED, "rejected" },
	{ WARDEN_OUTCOME_CANCELLED, "cancelled" },
	{ WARDEN_OUTCOME_UNAVAILABLE, "unavailable" },
	{ WARDEN_OUTCOME_ALLOWED_FOR_SESSION, "allowed-for-session" },
};
static const struct name enforcements[] = {
	{ WARDEN_ENFORCEMENT_FULL, "full" },
	{ WARDEN_ENFORCEMENT_PARTIAL, "partial" },
};

static const struct name networks[] = {
	{ WARDEN_NETWORK_RESTRICTED, "restricted" },
	{ WARDEN_NETWORK_ENABLED, "enabled" },
	{ WARDEN_NETWORK_ALLOWLIST, "allowlist" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const struct name *t, size_t n, const char *s)
{
	size_t i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, s) == 0)
			return t[i].value;
	return -1;
}

static const char *name_of(const struct name *t, size_t n, int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

int warden_mode_parse(const char *s) { return lookup(modes, N(modes), s); }
const char *warden_mode_name(int m) { return name_of(modes, N(modes), m); }
int warden_policy_parse(const char *s) { return lookup(policies, N(policies), s); }
const char *warden_policy_name(int p) { return name_of(policies, N(policies), p); }
int warden_outcome_parse(const char *s) { return lookup(outcomes, N(outcomes), s); }
const char *warden_outcome_name(int o) { return name_of(outcomes, N(outcomes), o); }
int warden_enforcement_parse(const char *s) { return lookup(enforcements, N(enforcements), s); }
const char *warden_enforcement_name(int e) { return name_of(enforcements, N(enforcements), e); }
int warden_network_parse(const char *s) { return lookup(networks, N(networks), s); }
const char *warden_network_name(int n) { return name_of(networks, N(networks), n); }

int warden_outcome_allows(int o)
{
	return o == WARDEN_OUTCOME_ALLOWED_ONCE || o == WARDEN_OUTCOME_ALLOWED_FOR_SESSION;
}
