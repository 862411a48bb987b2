/*
 * decide_42.c — valid, but its decide() returns 42, a value outside
 * the closed set of decisions: `unavailable`, never a fall-through.
 */
#include "common.h"

static int defect_decide(void *state, const struct warden_request *req,
                         char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	return 42;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-42",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = defect_decide,
};
