/* error.c — see error.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

int warden_error_set(struct warden_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

int warden_error_errno(struct warden_error *err, int code, int errnum,
                       const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (err != NULL) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		len = strlen(err->msg);
		snprintf(err->msg + len, sizeof(err->msg) - len, ": %s",
		         strerror(errnum));
	}
	return -code;
}

void warden_error_clear(struct warden_error *err)
{
	if (err != NULL) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}
