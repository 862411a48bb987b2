/*
 * text.h — text for people: the one place where a string that came from
 * outside (an argv, a config value, a path, a plugin's reason, a session
 * log) becomes something a terminal shows.
 *
 * A terminal acts on what it is sent: ESC [ 2 J clears it, OSC sequences
 * set its title or write to its clipboard, a C1 CSI (U+009B) does what
 * ESC [ does, a carriage return or a backspace overwrites what was shown,
 * a bidirectional override makes "rm -rf /" read as something else.  So
 * every `warden: ...` line, every text listing and every human-readable
 * rendering of a log passes through here, and what comes out shows each
 * such byte instead of sending it:
 *
 *   \\          a backslash (so that every escape below is unambiguous)
 *   \n \t \r    newline, tab, carriage return
 *   \xNN        any other C0 control (ESC is \x1b), DEL, and every byte
 *               that is not part of valid UTF-8 (overlong forms,
 *               surrogates and code points above U+10FFFF included)
 *   \u{XXXX}    C1 controls (U+0080-U+009F) and the characters that move or
 *               reorder text: zero-width characters and marks
 *               (U+200B-U+200F), line and paragraph separators and the
 *               bidirectional embeddings and overrides (U+2028-U+202E),
 *               word joiners and bidirectional isolates (U+2060-U+2069),
 *               the byte order mark (U+FEFF)
 *
 * Every other character, printable ASCII and valid UTF-8, is kept as is.
 * The tty answerer shows its prompt's fields in the same dialect.
 */
#ifndef WARDEN_TEXT_H
#define WARDEN_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Flags. */
enum {
	/* Leave backslashes alone: for text that is already escaped JSON
	 * (session show), whose backslashes are its own escapes. */
	WARDEN_TEXT_KEEP_BACKSLASH = 1,
};

/*
 * Writes the escaped form of s into out (outlen bytes, always
 * NUL-terminated when outlen > 0).  What does not fit is left out whole:
 * an escape or a UTF-8 character is never cut.  Returns the length the
 * whole escaped text needs (without the NUL), so a result >= outlen means
 * it was cut.
 */
size_t warden_text_escape(const char *s, int flags, char *out, size_t outlen);

/* The escaped form of s in a new string (free it), or NULL when out of
 * memory. */
char *warden_text_escape_dup(const char *s, int flags);

/*
 * Formats one line, escapes all of it and writes it to f with a newline.
 * The format itself is plain text without a newline (the line gets its
 * own; one inside would be shown as \n).  0, or -1 when the write failed.
 * Out of memory, what a fixed buffer holds is still written.
 */
int warden_text_line(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same without the newline: a part of a line. */
int warden_text_printf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Both, with flags; newline: 1 to end the line. */
int warden_text_vprint(FILE *f, int flags, int newline, const char *fmt,
                       va_list ap)
	__attribute__((format(printf, 4, 0)));

#endif
