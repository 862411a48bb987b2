/* null_op.c — an answerer without its required decide op. */
#include "common.h"

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "null-op",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = NULL,
};
