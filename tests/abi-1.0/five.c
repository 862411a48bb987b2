/*
 * five.c — an answerer built against the frozen 1.0 header that returns
 * 5 from decide(), a value 1.0 does not define (a bug, or garbage).  ABI
 * 1.4 gave 5 a meaning, allowed-for-session; from a plugin whose
 * descriptor says 1.0 the host must still read it as garbage: the request
 * is unavailable, no grant is written (tests/run/grants.sh).
 */
#include <stdlib.h>

#include <warden/plugin.h>

static void *five_open(const struct warden_open_args *args, char *err,
                       size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	return malloc(1);
}

static void five_close(void *state)
{
	free(state);
}

static int five_decide(void *state, const struct warden_request *req,
                       char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	return 5;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "five",
	.version = "1.0",
	.description = "returns 5 from decide(), undefined in ABI 1.0",
	.open = five_open,
	.close = five_close,
	.decide = five_decide,
};
