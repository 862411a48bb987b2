/*
 * words.h — a list of request words as one line, for the answerers that
 * show or pass a request's lists as text (tty, ffi).  Built into each of
 * those plugins; not part of the plugin API.
 */
#ifndef WARDEN_PLUGIN_WORDS_H
#define WARDEN_PLUGIN_WORDS_H

#include <stddef.h>

/*
 * The n words joined by sep, in a new string (free it), or NULL when out
 * of memory.  With quote, each word is written as a POSIX shell reads it
 * back as one word: as is when it is non-empty and made only of letters,
 * digits and _@%+=:,./-, else in single quotes ('\'' for a quote).
 */
char *words_join(const char *const *words, size_t n, const char *sep,
                 int quote);

#endif
