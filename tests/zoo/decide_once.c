/*
 * decide_once.c — valid: allowed-once on the first request its instance
 * sees, rejected on every later one.  It tells a reused instance (one
 * open, many requests) from a fresh one.
 */
#include "config.h"

#include <stdlib.h>

#include "common.h"

static void *once_open(const struct warden_open_args *args, char *err,
                       size_t errlen)
{
	int *seen = calloc(1, sizeof(*seen));

	(void)args;
	if (seen == NULL)
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
	return seen;
}

static void once_close(void *state)
{
	free(state);
}

static int once_decide(void *state, const struct warden_request *req,
                       char *err, size_t errlen)
{
	int *seen = state;

	(void)req;
	(void)err;
	(void)errlen;
	return (*seen)++ == 0 ? WARDEN_DECISION_ALLOWED_ONCE
	                      : WARDEN_DECISION_REJECTED;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-once",
	.version = "1.0",
	.open = once_open,
	.close = once_close,
	.decide = once_decide,
};
