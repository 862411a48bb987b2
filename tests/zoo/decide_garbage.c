/*
 * decide_garbage.c — valid, but its decide() prints garbage on stdout and
 * writes garbage into every socket it holds (in a worker: the one to the
 * host, a frame that claims 2 GiB), then says allowed-once.  Only
 * meaningful under process isolation: in process it would scribble on
 * the host's own sockets.
 */
#include "config.h"

#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static int garbage_decide(void *state, const struct warden_request *req,
                          char *err, size_t errlen)
{
	static const char junk[] = "\xff\xff\xff\x7f" "D\x01garbage";
	struct stat st;
	int fd;

	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	(void)!write(STDOUT_FILENO, "not a decision\n", 15);
	for (fd = 3; fd < 256; fd++)
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			(void)!write(fd, junk, sizeof(junk) - 1);
	return WARDEN_DECISION_ALLOWED_ONCE;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-garbage",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = garbage_decide,
};
