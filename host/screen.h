/*
 * screen.h — a command's output as a terminal would have shown it, for a
 * model that reads it as text (`warden mcp`).
 *
 * A command's output is written for a terminal: colours and cursor moves
 * (ANSI escape sequences), titles and hyperlinks (OSC), carriage returns
 * that redraw a progress bar in place, backspaces.  Sent raw to a model,
 * each is noise at best, and at worst text that a terminal would have
 * hidden or overwritten reads as if it were there.  What comes out is
 * what a screen would show, as plain text:
 *
 *   - escape sequences are dropped whole: CSI (ESC [ ... final byte, or
 *     the C1 CSI U+009B), OSC, DCS, SOS, PM and APC strings (to BEL or
 *     ESC \, or the end of their line: an unterminated one hides no more
 *     than the rest of its line), and two-byte escapes (ESC and one
 *     character); a sequence cut off by a byte it cannot hold ends there
 *     and that byte is taken as text
 *   - a carriage return goes back to the start of the line: what follows
 *     overwrites it character by character, as on a screen ("10%\r100%"
 *     is "100%", "abcdef\rxy" is "xycdef"); \r\n is a line end
 *   - a backspace takes back the character before it
 *   - every other C0 control but tab and newline, DEL and the other C1
 *     controls are dropped
 *
 *   - a byte that is not part of valid UTF-8 (overlong forms and
 *     surrogates included) is '?'
 *
 * Everything else (tabs, newlines, printable ASCII and the other
 * characters of valid UTF-8) is kept as it came, so what comes out is
 * valid UTF-8.  The work is linear in the input, whatever it holds.  The command line never does this: `warden
 * run` copies the command's bytes exactly.
 */
#ifndef WARDEN_SCREEN_H
#define WARDEN_SCREEN_H

#include <stddef.h>

/* The screen text of the len bytes at in (any bytes): a new
 * NUL-terminated string (free it) that holds no NUL (a C0 control), its
 * length in *outlen (may be NULL), or NULL when out of memory. */
char *warden_screen_text(const char *in, size_t len, size_t *outlen);

#endif
