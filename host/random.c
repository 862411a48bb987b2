/*
 * random.c — random bytes and hex names (random.h).
 */
#include "config.h"

#include <errno.h>
#include <sys/random.h>

#include "random.h"

int warden_random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = getrandom(p + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

int warden_random_hex(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[64];
	size_t i, done = 0, k;

	out[0] = '\0';
	while (done < n) {
		k = n - done < sizeof(b) ? n - done : sizeof(b);
		if (warden_random_bytes(b, k) < 0) {
			out[0] = '\0';
			return -1;
		}
		for (i = 0; i < k; i++) {
			out[2 * (done + i)] = hex[b[i] >> 4];
			out[2 * (done + i) + 1] = hex[b[i] & 0xf];
		}
		done += k;
	}
	out[2 * n] = '\0';
	return 0;
}
