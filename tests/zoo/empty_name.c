/* empty_name.c — a descriptor whose name is "". */
#include "common.h"

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "",
	.version = "1.0",
	ZOO_ANSWERER_OPS,
};
