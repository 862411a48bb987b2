/* abi_major.c — built against a future ABI 2.0: refused, never read further. */
#include "common.h"

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	.abi_major = 2,
	.abi_minor = 0,
	.struct_size = sizeof(struct warden_plugin),
	.kind = WARDEN_PLUGIN_ANSWERER,
	.name = "abi-major",
	.version = "1.0",
	ZOO_ANSWERER_OPS,
};
