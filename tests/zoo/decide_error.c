/*
 * decide_error.c — valid, but its decide() reports an error
 * (WARDEN_DECISION_ERROR with a reason): `unavailable`.
 */
#include "common.h"

static int defect_decide(void *state, const struct warden_request *req,
                         char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	WARDEN_PLUGIN_ERR(err, errlen, "the policy service is unreachable");
	return WARDEN_DECISION_ERROR;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-error",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = defect_decide,
};
