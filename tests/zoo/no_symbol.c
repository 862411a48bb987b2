/* no_symbol.c — a shared object that exports no descriptor at all. */
#include "common.h"

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin_v1 = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "no-symbol",
	.version = "1.0",
	ZOO_ANSWERER_OPS,
};
