/*
 * open_crash.c — valid, but its open() dereferences a null pointer.
 * In process it takes the host down with SIGSEGV; that is what
 * `isolation = process` exists to contain.
 */
#include "common.h"

static int *volatile nowhere;

static void *crashing_open(const struct warden_open_args *args, char *err,
                           size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	*nowhere = 1;
	return &zoo_instance;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "open-crash",
	.version = "1.0",
	.open = crashing_open,
	.close = zoo_close,
	.decide = zoo_decide,
};
