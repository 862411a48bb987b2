/* open_error.c — valid, but its open() fails with a reason. */
#include "common.h"

static void *failing_open(const struct warden_open_args *args, char *err,
                          size_t errlen)
{
	WARDEN_PLUGIN_ERR(err, errlen, "cannot reach the policy service of %s",
	                  args->instance);
	return NULL;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "open-error",
	.version = "1.0",
	.open = failing_open,
	.close = zoo_close,
	.decide = zoo_decide,
};
