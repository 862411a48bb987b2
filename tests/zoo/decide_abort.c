/*
 * decide_abort.c — valid, but its decide() calls abort() (SIGABRT).
 */
#include <stdlib.h>

#include "common.h"

static int defect_decide(void *state, const struct warden_request *req,
                         char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	abort();
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-abort",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = defect_decide,
};
