/*
 * answerer.c — the zoo's valid answerer: the smallest plugin that loads.
 *
 * `decision = allowed-once|rejected|cancelled|delegate` (default delegate)
 * is its only key; any other key is refused with its line, as every
 * plugin's open() must.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

struct zoo_answerer {
	int decision;
};

static void *zoo_open(const struct warden_open_args *args, char *err, size_t errlen)
{
	static const struct { const char *name; int value; } decisions[] = {
		{ "allowed-once", WARDEN_DECISION_ALLOWED_ONCE },
		{ "rejected", WARDEN_DECISION_REJECTED },
		{ "cancelled", WARDEN_DECISION_CANCELLED },
		{ "delegate", WARDEN_DECISION_DELEGATE },
	};
	struct zoo_answerer *z;
	size_t i, j;

	z = calloc(1, sizeof(*z));
	if (z == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	z->decision = WARDEN_DECISION_DELEGATE;
	for (i = 0; i < args->kv_count; i++) {
		if (strcmp(args->kv[i].key, "decision") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: unknown key '%s' "
			                  "(allowed: decision)", args->kv[i].line,
			                  args->kv[i].key);
			free(z);
			return NULL;
		}
		for (j = 0; j < sizeof(decisions) / sizeof(decisions[0]); j++)
			if (strcmp(args->kv[i].value, decisions[j].name) == 0)
				break;
		if (j == sizeof(decisions) / sizeof(decisions[0])) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: decision = %s: "
			                  "allowed: allowed-once, rejected, "
			                  "cancelled, delegate", args->kv[i].line,
			                  args->kv[i].value);
			free(z);
			return NULL;
		}
		z->decision = decisions[j].value;
	}
	return z;
}

static void zoo_close(void *state)
{
	free(state);
}

static int zoo_decide(void *state, const struct warden_request *req,
                      char *err, size_t errlen)
{
	(void)req;
	(void)err;
	(void)errlen;
	return ((struct zoo_answerer *)state)->decision;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "zoo-answerer",
	.version = "1.0",
	.description = "answers what its config says",
	.open = zoo_open,
	.close = zoo_close,
	.decide = zoo_decide,
};
