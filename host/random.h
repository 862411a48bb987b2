/*
 * random.h — the random part of every fresh name warden gives: session
 * ids, grant ids, approval request ids, per-run areas.
 */
#ifndef WARDEN_RANDOM_H
#define WARDEN_RANDOM_H

#include <stddef.h>

/* Fills buf with n bytes from the kernel's generator (getrandom(2),
 * retried when interrupted or short).  0, or -1 with errno set. */
int warden_random_bytes(void *buf, size_t n);

/* Writes n random bytes as 2 * n lower-case hex digits and a NUL into out,
 * which holds 2 * n + 1 bytes.  0, or -1 with errno set (out is then "" ). */
int warden_random_hex(char *out, size_t n);

#endif
