/*
 * decide_tty_hang.c — valid, but its decide() turns the controlling
 * terminal's echo off, as a prompt does, and then never returns.  Killed
 * at a timeout or a withdrawal, it cannot put the terminal back: the host
 * must.
 */
#include "config.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"

static void __attribute__((noreturn)) forever(void)
{
	for (;;)
		sleep(60);
}

static int tty_hang_decide(void *state, const struct warden_request *req,
                           char *err, size_t errlen)
{
	struct termios t;
	int fd;

	(void)state;
	(void)req;
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || tcgetattr(fd, &t) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "no terminal");
		return WARDEN_DECISION_ERROR;
	}
	t.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
	tcsetattr(fd, TCSANOW, &t);
	forever();
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "decide-tty-hang",
	.version = "1.0",
	.open = zoo_open,
	.close = zoo_close,
	.decide = tty_hang_decide,
};
