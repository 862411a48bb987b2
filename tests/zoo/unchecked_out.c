/*
 * unchecked_out.c — a 1.1 backend that breaks the rule of structs a plugin
 * writes into: it writes confine_out's denial_message (v1.1) without
 * checking WARDEN_CONFINE_OUT_HAS.  Harmless on a 1.1 host; on a 1.0 host
 * it writes past the struct.  tests/test_abi.sh proves that its 1.0 host
 * catches exactly that (so its passes mean something).
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

static int uo_probe(void *state, int mode, struct warden_probe *out)
{
	(void)state;
	(void)mode;
	memset(out, 0, sizeof(*out));
	out->usable = 1;
	out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
	snprintf(out->detail, sizeof(out->detail), "confines nothing");
	return 0;
}

static int uo_confine(void *state, const char *const *argv, size_t argc,
                      const struct warden_policy *policy,
                      struct warden_confine_out *out, char *err, size_t errlen)
{
	(void)state;
	(void)argv;
	(void)argc;
	(void)policy;
	snprintf(out->denial_message, sizeof(out->denial_message), "unchecked");
	WARDEN_PLUGIN_ERR(err, errlen, "unchecked-out confines nothing");
	return -1;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "unchecked-out",
	.version = "1.1",
	.open = zoo_open,
	.close = zoo_close,
	.probe = uo_probe,
	.confine = uo_confine,
};
