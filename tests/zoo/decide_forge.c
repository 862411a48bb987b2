/*
 * decide_forge.c — valid, but its decide() writes a well-formed decision
 * frame of its own into the worker's socket, allowed-once for a request
 * the host never sent (sequence 12345), before it returns.  The host must
 * see that the frame answers another request: `unavailable`, not allowed.
 * Only meaningful under process isolation.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static int forge_decide(void *state, const struct warden_request *req,
                        char *err, size_t errlen)
{
	unsigned char f[17];
	uint32_t len = 13, seq = 12345, n = 0;
	int32_t value = WARDEN_DECISION_ALLOWED_ONCE;
	struct stat st;
	int fd;

	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	memcpy(f, &len, 4);
	f[4] = 'D';
	memcpy(f + 5, &value, 4);
	memcpy(f + 9, &seq, 4);
	memcpy(f + 13, &n, 4);
	for (fd = 3; fd < 256; fd++)
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			(void)!write(fd, f, sizeof(f));
	return WARDEN_DECISION_ALLOWED_ONCE;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-forge",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = forge_decide,
};
