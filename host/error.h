/*
 * error.h — the one error convention of warden.
 *
 * Every fallible function returns 0 on success or a negative status
 * (-WARDEN_E...) and fills a struct warden_error with one line that says
 * what went wrong, where, and how to fix it.  The status values are the
 * process exit codes of the CLI (sysexits), so an error travels from the
 * module that found it to `exit()` unchanged.
 */
#ifndef WARDEN_ERROR_H
#define WARDEN_ERROR_H

#include <stddef.h>

enum warden_status {
	WARDEN_OK = 0,
	WARDEN_EUSAGE = 64,       /* bad command line */
	WARDEN_EDATA = 65,        /* bad input data (damaged log, bad id) */
	WARDEN_EUNAVAILABLE = 69, /* no usable backend, answerer unavailable */
	WARDEN_EINTERNAL = 70,    /* a bug or an impossible state */
	WARDEN_EOS = 71,          /* the system failed (fork, pipe, ...) */
	WARDEN_EIO = 74,          /* reading or writing a file failed */
	WARDEN_EREFUSED = 77,     /* refused: permission, policy, approval */
	WARDEN_ECONFIG = 78,      /* bad configuration */
};

#define WARDEN_ERROR_MAX 1024

struct warden_error {
	int code;                 /* enum warden_status, 0 when none */
	char msg[WARDEN_ERROR_MAX];
};

/* Records code and the formatted message; returns -code. */
int warden_error_set(struct warden_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like warden_error_set, with ": strerror(errnum)" appended. */
int warden_error_errno(struct warden_error *err, int code, int errnum,
                       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

void warden_error_clear(struct warden_error *err);

#endif
