/*
 * fuzz_exec_reply.c — libFuzzer target for the exec answerer's reply
 * parser (plugins/exec/reply.c): the bytes a program wrote to stdout.
 *
 * Beyond memory safety it checks the parser against a plain model: the
 * first line (up to the first '\n' or the end) decides only when it is
 * exactly one of the four words, and then the reason is the second line
 * up to its '\n', a NUL or the end, cut to fit; anything else is an error
 * with a reason, and that reason is always one printable line.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#include "reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int model(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);
	size_t len = nl != NULL ? (size_t)(nl - s) : n;

#define IS(w) (len == sizeof(w) - 1 && memcmp(s, w, len) == 0)
	if (IS("allowed-once"))
		return WARDEN_DECISION_ALLOWED_ONCE;
	if (IS("rejected"))
		return WARDEN_DECISION_REJECTED;
	if (IS("cancelled"))
		return WARDEN_DECISION_CANCELLED;
	if (IS("next"))
		return WARDEN_DECISION_DELEGATE;
#undef IS
	return WARDEN_DECISION_ERROR;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that a read past the end is caught. */
	char *buf = malloc(size ? size : 1), why[256];
	size_t i;
	int got;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	memset(why, 'X', sizeof(why));
	got = exec_reply_parse(buf, size, why, sizeof(why));
	if (got != model(buf, size))
		abort();
	if (got != WARDEN_DECISION_ERROR) {
		const char *nl = memchr(buf, '\n', size);
		const char *second = nl != NULL ? nl + 1 : buf + size;
		size_t left = (size_t)(buf + size - second), want = 0;

		while (want < left && want < sizeof(why) - 1 &&
		       second[want] != '\n' && second[want] != '\0')
			want++;
		if (memchr(why, '\0', sizeof(why)) == NULL || strlen(why) != want ||
		    memcmp(why, second, want) != 0)
			abort();
	} else {
		if (memchr(why, '\0', sizeof(why)) == NULL || why[0] == '\0')
			abort();
		for (i = 0; why[i] != '\0'; i++)
			if ((unsigned char)why[i] < 0x20 || why[i] == 0x7f)
				abort();
	}
	free(buf);
	return 0;
}
