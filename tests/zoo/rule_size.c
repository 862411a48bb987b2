/* rule_size.c — a backend whose runner_rule_size (v1.1) is smaller than a
 * 1.0 rule: its table cannot be read, so it is refused (`malformed`). */
#include <string.h>

#include "common.h"

static int rs_probe(void *state, int mode, struct warden_probe *out)
{
	(void)state;
	(void)mode;
	memset(out, 0, sizeof(*out));
	return 0;
}

static int rs_confine(void *state, const char *const *argv, size_t argc,
                      const struct warden_policy *policy,
                      struct warden_confine_out *out, char *err, size_t errlen)
{
	(void)state;
	(void)argv;
	(void)argc;
	(void)policy;
	(void)out;
	(void)err;
	(void)errlen;
	return -1;
}

static const char *const fatal[] = { "x" };
static const struct warden_runner_rule rules[] = { { NULL, 0, fatal, 1, NULL, 0 } };

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "rule-size",
	.version = "1.1",
	.open = zoo_open,
	.close = zoo_close,
	.probe = rs_probe,
	.confine = rs_confine,
	.runner_rules = rules,
	.n_runner_rules = 1,
	.runner_rule_size = 8,
};
