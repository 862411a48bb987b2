/* words.c — see words.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "words.h"

static const char safe[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	"0123456789_@%+=:,./-";

char *words_join(const char *const *words, size_t n, const char *sep,
                 int quote)
{
	size_t i, len = 1, seplen = strlen(sep);
	const char *p, *w;
	char *out, *q;

	for (i = 0; i < n; i++)
		len += (words[i] != NULL ? strlen(words[i]) * 4 : 0) + 2 + seplen;
	if ((out = malloc(len)) == NULL)
		return NULL;
	q = out;
	for (i = 0; i < n; i++) {
		w = words[i] != NULL ? words[i] : "";
		if (i > 0)
			q = stpcpy(q, sep);
		if (!quote || (w[0] != '\0' && strspn(w, safe) == strlen(w))) {
			q = stpcpy(q, w);
			continue;
		}
		*q++ = '\'';
		for (p = w; *p; p++) {
			if (*p == '\'')
				q = stpcpy(q, "'\\''");
			else
				*q++ = *p;
		}
		*q++ = '\'';
	}
	*q = '\0';
	return out;
}
