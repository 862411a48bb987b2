/*
 * backend.c — the zoo's valid backend: loads and opens, and honestly
 * reports that it can confine nothing (so no test ever runs under it).
 */
#include <stdio.h>
#include <string.h>

#include <warden/plugin.h>

static int instance;

static void *zoo_open(const struct warden_open_args *args, char *err, size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	return &instance;
}

static void zoo_close(void *state)
{
	(void)state;
}

static int zoo_probe(void *state, int mode, struct warden_probe *out)
{
	(void)state;
	(void)mode;
	memset(out, 0, sizeof(*out));
	snprintf(out->detail, sizeof(out->detail), "the zoo backend confines nothing");
	return 0;
}

static int zoo_confine(void *state, const char *const *argv, size_t argc,
                       const struct warden_policy *policy,
                       struct warden_confine_out *out, char *err, size_t errlen)
{
	(void)state;
	(void)argv;
	(void)argc;
	(void)policy;
	(void)out;
	WARDEN_PLUGIN_ERR(err, errlen, "the zoo backend confines nothing");
	return -1;
}

static const char *const denials[] = { "zoo: denied" };

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "zoo-backend",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.probe = zoo_probe,
	.confine = zoo_confine,
	.denial_signatures = denials,
	.n_denial_signatures = 1,
};
