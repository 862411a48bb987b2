/*
 * probe2_only.c — a backend of ABI 1.1 that has probe2 and no probe: a
 * 1.1 host probes it through probe2 (and learns its network enforcement),
 * a 1.0 host refuses it ("required op probe is NULL"), as plugin.h says.
 * It claims read-only, full, with a restricted network held; its confine
 * refuses, so nothing ever runs under it.
 */
#include <stdio.h>
#include <string.h>

#include <warden/plugin.h>

static int instance;

static void *p2_open(const struct warden_open_args *args, char *err, size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	return &instance;
}

static void p2_close(void *state)
{
	(void)state;
}

static int p2_probe2(void *state, int mode, struct warden_probe2 *out)
{
	(void)state;
	if (mode != WARDEN_MODE_READ_ONLY) {
		snprintf(out->detail, sizeof(out->detail), "probe2-only confines read-only only");
		return 0;
	}
	out->usable = 1;
	out->enforcement = WARDEN_ENFORCEMENT_FULL;
	out->privilege_dropped = 1;
	if (WARDEN_PROBE2_HAS(out, network_detail)) {
		out->network_enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(out->network_detail, sizeof(out->network_detail),
		         "probe2-only lets loopback through");
	}
	return 0;
}

static int p2_confine(void *state, const char *const *argv, size_t argc,
                      const struct warden_policy *policy,
                      struct warden_confine_out *out, char *err, size_t errlen)
{
	(void)state;
	(void)argv;
	(void)argc;
	(void)policy;
	(void)out;
	WARDEN_PLUGIN_ERR(err, errlen, "probe2-only confines nothing");
	return -1;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin =
	WARDEN_PLUGIN_BACKEND_INIT("probe2-only", "1.1", "probes through probe2 only",
	                           p2_open, p2_close, NULL, p2_probe2, p2_confine,
	                           NULL, 0, NULL, 0);
