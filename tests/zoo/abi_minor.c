/*
 * abi_minor.c — built against a future minor ABI that appended fields: it
 * loads, and the tail (which would crash the host if called) is ignored.
 */
#include <stdlib.h>

#include "common.h"

static void future_op(void)
{
	abort();
}

struct warden_plugin_1_1 {
	struct warden_plugin v1;
	void (*future_op)(void);
	const char *future_text;
};

WARDEN_PLUGIN_EXPORT const struct warden_plugin_1_1 warden_plugin = {
	.v1 = {
		.abi_major = WARDEN_PLUGIN_ABI_MAJOR,
		.abi_minor = WARDEN_PLUGIN_ABI_MINOR + 1,
		.struct_size = sizeof(struct warden_plugin_1_1),
		.kind = WARDEN_PLUGIN_ANSWERER,
		.name = "abi-minor",
		.version = "1.1",
		ZOO_ANSWERER_OPS,
	},
	.future_op = future_op,
	.future_text = "from the future",
};
