/*
 * decide_crash.c — valid, but its decide() dereferences a null pointer
 * (SIGSEGV).  In process isolation it costs one `unavailable`.
 */
#include "common.h"

static int *volatile nowhere;

static int defect_decide(void *state, const struct warden_request *req,
                         char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	*nowhere = 1;
	return WARDEN_DECISION_ALLOWED_ONCE;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-crash",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = defect_decide,
};
