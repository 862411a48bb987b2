/*
 * decide_late.c — valid: it applies its own timeout, as tty and exec do.
 * decide() waits exactly the timeout_ms it was opened with (the host's
 * key, passed in the open args) and then says rejected, its "on_timeout".
 * The host must give it the time to say so, not call it unavailable.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "common.h"

struct late {
	long timeout_ms;
};

static void *late_open(const struct warden_open_args *args, char *err,
                       size_t errlen)
{
	struct late *l = calloc(1, sizeof(*l));

	if (l == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	l->timeout_ms = WARDEN_OPEN_ARGS_HAS(args, timeout_ms) ? args->timeout_ms : 0;
	return l;
}

static void late_close(void *state)
{
	free(state);
}

static int late_decide(void *state, const struct warden_request *req,
                       char *err, size_t errlen)
{
	const struct late *l = state;
	struct timespec ts;

	(void)req;
	(void)err;
	(void)errlen;
	ts.tv_sec = l->timeout_ms / 1000;
	ts.tv_nsec = (l->timeout_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0)
		;
	return WARDEN_DECISION_REJECTED;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-late",
	.version = "1.0",
	.open = late_open,
	.close = late_close,
	.decide = late_decide,
};
