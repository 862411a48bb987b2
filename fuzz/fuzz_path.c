/*
 * fuzz_path.c — libFuzzer target for lexical path normalisation
 * (warden_path_normalise, host/policy.c), the second step of resolving a
 * workspace root.
 *
 * Checks, for any bytes: a relative path is refused; an accepted result
 * is absolute, has no empty, "." or ".." segment and no trailing "/",
 * never grows past its input, is a fixed point (normalising it again
 * changes nothing), and equals a plain model that splits on "/" and keeps
 * a stack of segments.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The model: split, stack, join. */
static void model(const char *in, char *out)
{
	const char *starts[PATH_MAX];
	size_t lens[PATH_MAX], n = 0, o = 0;
	const char *p = in;

	while (*p) {
		const char *s;
		size_t l;

		while (*p == '/')
			p++;
		s = p;
		while (*p && *p != '/')
			p++;
		l = (size_t)(p - s);
		if (l == 0 || (l == 1 && s[0] == '.'))
			continue;
		if (l == 2 && s[0] == '.' && s[1] == '.') {
			if (n > 0)
				n--;
			continue;
		}
		starts[n] = s;
		lens[n++] = l;
	}
	for (size_t i = 0; i < n; i++) {
		out[o++] = '/';
		memcpy(out + o, starts[i], lens[i]);
		o += lens[i];
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[PATH_MAX], out[PATH_MAX], again[PATH_MAX], want[PATH_MAX];
	struct warden_error err = { 0 };
	size_t n = size < PATH_MAX - 1 ? size : PATH_MAX - 1;
	int r;

	memcpy(in, data, n);
	in[n] = '\0';
	r = warden_path_normalise(in, out, &err);
	if (in[0] != '/') {
		if (r == 0)
			abort();        /* a relative path was accepted */
		return 0;
	}
	if (r != 0)
		return 0;           /* too long: refused, nothing to check */
	if (out[0] != '/' || strstr(out, "//") != NULL ||
	    strstr(out, "/./") != NULL || strstr(out, "/../") != NULL)
		abort();
	n = strlen(out);
	if (n > 1 && (out[n - 1] == '/' ||
	              (n >= 2 && strcmp(out + n - 2, "/.") == 0) ||
	              (n >= 3 && strcmp(out + n - 3, "/..") == 0)))
		abort();
	if (n > strlen(in))
		abort();
	if (warden_path_normalise(out, again, &err) != 0 || strcmp(out, again) != 0)
		abort();            /* not a fixed point */
	model(in, want);
	if (strcmp(out, want) != 0)
		abort();
	return 0;
}
