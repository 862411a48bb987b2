/*
 * open_hang.c — valid, but its open() never returns: whoever opens it
 * waits for ever unless it gives up (`warden plugins`' inspection is
 * cancelled or times out, and kills what it started).
 */
#include <unistd.h>

#include "common.h"

static void *hanging_open(const struct warden_open_args *args, char *err,
                          size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	for (;;)
		pause();
	return &zoo_instance;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "open-hang",
	.version = "1.0",
	.open = hanging_open,
	.close = zoo_close,
	.decide = zoo_decide,
};
