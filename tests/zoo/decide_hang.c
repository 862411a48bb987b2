/*
 * decide_hang.c — valid, but its decide() never returns.  Only a
 * timeout or a withdrawal ends the wait for it.
 */
#include <unistd.h>

#include "common.h"

static void __attribute__((noreturn)) forever(void)
{
	for (;;)
		sleep(60);
}

static int defect_decide(void *state, const struct warden_request *req,
                         char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	forever();
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-hang",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = defect_decide,
};
