/* small_struct.c — claims a descriptor smaller than ABI 1.0's. */
#include <stddef.h>

#include "common.h"

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	.abi_major = WARDEN_PLUGIN_ABI_MAJOR,
	.abi_minor = WARDEN_PLUGIN_ABI_MINOR,
	.struct_size = offsetof(struct warden_plugin, decide),
	.kind = WARDEN_PLUGIN_ANSWERER,
	.name = "small-struct",
	.version = "1.0",
	ZOO_ANSWERER_OPS,
};
