/*
 * tty.c — the tty answerer: the person at the controlling terminal decides
 * (DESIGN §3, §8).
 *
 * decide() opens /dev/tty (O_RDWR | O_NOCTTY | O_CLOEXEC) and shows
 *
 *   warden: approval requested
 *     tool:    bash
 *     subject: rm -rf build
 *     cwd:     /home/me/project
 *     program: /usr/bin/bash
 *     argv:    bash -c 'rm -rf build'
 *     removed: BASH_ENV LD_PRELOAD
 *     PATH:    /usr/local/bin:/usr/bin:/bin
 *     dropped: /home/me/project/.venv/bin
 *     reason:  clean the build
 *     mode:    danger-full-access
 *     call:    toolu_01
 *   allow once? [y/n]
 *
 * (reason, mode and call only when given; program, argv and PATH when the
 * request describes a command (plugin.h, v1.1), removed when a variable
 * was removed, dropped when a PATH entry was; a script's program line
 * names its interpreter).  A program that lies under a writable root of
 * the session gets a line of its own:
 *
 *     WARNING: the program lies under a writable root: the sandboxed
 *              command could have written it
 *
 * The argv is shown shell-quoted, one word per quoted word.  Every field is shown escaped: control
 * characters as \n, \t, \r or \xNN, a backslash as \\, bytes that are not
 * UTF-8 as \xNN, and the characters that move or reorder text (C1 controls,
 * bidirectional overrides and isolates, zero-width and line separators) as
 * \u{XXXX}, so that a subject cannot draw a prompt of its own.  A field is
 * shown up to 1024 bytes, then the count of what was left out.
 *
 * The terminal is put in non-canonical mode without echo or signals, and
 * input typed before the prompt was shown is discarded (a keystroke meant
 * for something else must not answer it).  The answer is a line: y or yes
 * allows this one operation, n or no rejects it (any case); when the
 * request offers grants (ABI 1.4: shown numbered under `grants:`), s or
 * sN allows it for the session under the first or the N-th of them;
 * anything else asks again.  The interrupt character (Ctrl-C), the end-of-file character
 * on an empty line (Ctrl-D) and a hang-up cancel.  The terminal's settings
 * are restored on every path out of decide().
 *
 * Every decision carries its reason (ABI 1.1): the person's answer as
 * typed ("the user answered 'y'"), the key that cancelled, a hang-up, or
 * the timeout and its on_timeout.
 *
 * No controlling terminal (open fails with ENXIO or ENOENT), or a process
 * that is not in the terminal's foreground process group (reading would
 * stop it): the request goes to the next answerer.  Any other failure is an
 * error: unavailable.
 *
 * Timeout: the section's timeout_ms less a tenth (at most 500 ms less);
 * 0, the default, waits for the person as long as it takes.  At the
 * deadline the outcome is `on_timeout`.  The host's timeout of the full
 * value is the backstop: this one comes first, so the prompt ends with
 * its own outcome and the terminal restored, not with a killed worker.
 *
 * Config keys ([answerer NAME] with plugin = tty):
 *   on_timeout  rejected (default), cancelled, or next (ask the next
 *               answerer).  The default refuses: nobody said yes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <warden/plugin.h>

#include "words.h"

#define FIELD_SHOWN_MAX 1024
#define ANSWER_MAX 16

struct tty {
	long timeout_ms;
	int on_timeout;         /* enum warden_decision */
	char on_timeout_word[16];
};

static void tty_close(void *state)
{
	free(state);
}

static void *tty_open(const struct warden_open_args *args, char *err,
                      size_t errlen)
{
	struct tty *t = calloc(1, sizeof(*t));
	size_t i;

	if (t == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	t->on_timeout = WARDEN_DECISION_REJECTED;
	snprintf(t->on_timeout_word, sizeof(t->on_timeout_word), "rejected");
	t->timeout_ms = WARDEN_OPEN_ARGS_HAS(args, timeout_ms)
	                ? args->timeout_ms : 0;
	t->timeout_ms -= t->timeout_ms / 10 < 500 ? t->timeout_ms / 10 : 500;
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "on_timeout") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: unknown key '%s' "
			                  "(tty knows: on_timeout; timeout_ms is "
			                  "the section's own)", kv->line, kv->key);
			goto fail;
		}
		snprintf(t->on_timeout_word, sizeof(t->on_timeout_word), "%.15s",
		         kv->value);
		if (strcmp(kv->value, "rejected") == 0)
			t->on_timeout = WARDEN_DECISION_REJECTED;
		else if (strcmp(kv->value, "cancelled") == 0)
			t->on_timeout = WARDEN_DECISION_CANCELLED;
		else if (strcmp(kv->value, "next") == 0)
			t->on_timeout = WARDEN_DECISION_DELEGATE;
		else {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: on_timeout = %s: "
			                  "allowed: rejected, cancelled, next",
			                  kv->line, kv->value);
			goto fail;
		}
	}
	return t;
fail:
	free(t);
	return NULL;
}

/* ------------------------------------------------------------- display */

/* The code point of the UTF-8 sequence at s (n bytes left), and its
 * length in *len; -1 when it is not well-formed UTF-8. */
static long utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
	long cp, min;
	size_t k, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		k = 2; cp = s[0] & 0x1f; min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		k = 3; cp = s[0] & 0x0f; min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		k = 4; cp = s[0] & 0x07; min = 0x10000;
	} else {
		return -1;
	}
	if (n < k)
		return -1;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = k;
	return cp;
}

/* Characters that are valid text but move the cursor, reorder what
 * follows or hide: shown as \u{XXXX}. */
static int deceptive(long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||            /* C1 controls */
	       (cp >= 0x200b && cp <= 0x200f) ||        /* zero-width, marks */
	       (cp >= 0x2028 && cp <= 0x202e) ||        /* separators, bidi */
	       (cp >= 0x2060 && cp <= 0x2069) ||        /* joiners, isolates */
	       cp == 0xfeff;
}

/* Append the escaped form of s to out (size at least 8 * FIELD_SHOWN_MAX
 * + 64): what the terminal will show literally. */
static void escape(const char *s, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0, k;
	long cp;

	while (i < n && i < FIELD_SHOWN_MAX && o + 16 < size) {
		unsigned char c = p[i];

		if (c == '\\') {
			o += (size_t)snprintf(out + o, size - o, "\\\\");
		} else if (c == '\n') {
			o += (size_t)snprintf(out + o, size - o, "\\n");
		} else if (c == '\t') {
			o += (size_t)snprintf(out + o, size - o, "\\t");
		} else if (c == '\r') {
			o += (size_t)snprintf(out + o, size - o, "\\r");
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		} else if (c < 0x80) {
			out[o++] = (char)c;
		} else if ((cp = utf8_decode(p + i, n - i, &k)) < 0) {
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		} else if (deceptive(cp)) {
			o += (size_t)snprintf(out + o, size - o, "\\u{%04lx}", cp);
			i += k - 1;
		} else {
			memcpy(out + o, p + i, k);
			o += k;
			i += k - 1;
		}
		i++;
	}
	out[o] = '\0';
	if (i < n)
		snprintf(out + o, size - o, " [%zu more bytes]", n - i);
}

static int write_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int put(int fd, const char *s)
{
	return write_all(fd, s, strlen(s));
}

static int show_field(int fd, const char *label, const char *value)
{
	char shown[8 * FIELD_SHOWN_MAX + 64];

	escape(value != NULL ? value : "", shown, sizeof(shown));
	return put(fd, label) < 0 || put(fd, shown) < 0 || put(fd, "\n") < 0
	       ? -1 : 0;
}

/* A list shown shell-quoted, joined by sep; "" when empty. */
static int show_list(int fd, const char *label, const char *const *list,
                     size_t n, const char *sep)
{
	char *text;
	int r;

	if (list == NULL || n == 0)
		return 0;
	if ((text = words_join(list, n, sep, 1)) == NULL)
		return -1;
	r = show_field(fd, label, text);
	free(text);
	return r;
}

/* The command a request describes (v1.1): program, argv, environment. */
static int show_command(int fd, const struct warden_request *req)
{
	char *path;
	size_t n;
	int r;

	if (!WARDEN_REQUEST_HAS(req, path) || req->argv == NULL || req->argc == 0)
		return 0;
	if (req->interpreter != NULL && req->interpreter[0] != '\0') {
		n = strlen(req->program) + strlen(req->interpreter) + 32;
		if ((path = malloc(n)) == NULL)
			return -1;
		snprintf(path, n, "%s (a script run by %s)", req->program,
		         req->interpreter);
		r = show_field(fd, "  program: ", path);
		free(path);
	} else {
		r = show_field(fd, "  program: ", req->program);
	}
	if (r < 0 || (req->program_writable &&
	    put(fd, "  WARNING: the program lies under a writable root: the "
	            "sandboxed\n           command could have written it\n") < 0) ||
	    show_list(fd, "  argv:    ", req->argv, req->argc, " ") < 0 ||
	    show_list(fd, "  removed: ", req->env_removed, req->n_env_removed,
	              " ") < 0 ||
	    (WARDEN_REQUEST_HAS(req, n_env_config) &&
	     show_list(fd, "  config:  ", req->env_config, req->n_env_config,
	               " ") < 0) ||
	    show_field(fd, "  PATH:    ", req->path) < 0 ||
	    show_list(fd, "  dropped: ", req->path_dropped, req->n_path_dropped,
	              ":") < 0)
		return -1;
	return 0;
}

/* The grants the request offers (ABI 1.4), 0 when none. */
static size_t n_scopes(const struct warden_request *req)
{
	if (!WARDEN_REQUEST_HAS(req, grant_choice) || req->grant_scopes == NULL ||
	    req->grant_texts == NULL || req->grant_choice == NULL)
		return 0;
	return req->n_grant_scopes;
}

/* Each offered grant, numbered from 1 as the answer sN names it. */
static int show_scopes(int fd, const struct warden_request *req)
{
	char label[64], *both;
	size_t i, n;
	int r;

	for (i = 0; i < n_scopes(req); i++) {
		snprintf(label, sizeof(label), i == 0 ? "  grants:  s%zu " : "           s%zu ",
		         i + 1);
		n = strlen(req->grant_scopes[i]) + strlen(req->grant_texts[i]) + 3;
		if ((both = malloc(n)) == NULL)
			return -1;
		snprintf(both, n, "%s: %s", req->grant_scopes[i], req->grant_texts[i]);
		r = show_field(fd, label, both);
		free(both);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* "s" or "sN" (1 <= N <= the scopes offered): the index into *choice. */
static int session_answer(const char *line, const struct warden_request *req,
                          size_t *choice)
{
	char *end;
	unsigned long k;

	if (n_scopes(req) == 0 || (line[0] != 's' && line[0] != 'S'))
		return 0;
	if (line[1] == '\0') {
		*choice = 0;
		return 1;
	}
	if (line[1] < '1' || line[1] > '9')
		return 0;
	k = strtoul(line + 1, &end, 10);
	if (*end != '\0' || k < 1 || k > n_scopes(req))
		return 0;
	*choice = k - 1;
	return 1;
}

static int show_request(int fd, const struct tty *t,
                        const struct warden_request *req)
{
	char line[192], session[64] = "";

	if (put(fd, "\nwarden: approval requested\n") < 0 ||
	    show_field(fd, "  tool:    ", req->tool) < 0 ||
	    show_field(fd, "  subject: ", req->subject) < 0 ||
	    show_field(fd, "  cwd:     ", req->cwd) < 0 ||
	    show_command(fd, req) < 0)
		return -1;
	if (req->reason != NULL && req->reason[0] != '\0' &&
	    show_field(fd, "  reason:  ", req->reason) < 0)
		return -1;
	if (req->requested_mode != NULL && req->requested_mode[0] != '\0' &&
	    show_field(fd, "  mode:    ", req->requested_mode) < 0)
		return -1;
	if (WARDEN_REQUEST_HAS(req, requested_network) &&
	    req->requested_network != NULL && req->requested_network[0] != '\0' &&
	    show_field(fd, "  network: ", req->requested_network) < 0)
		return -1;
	if (req->call_id != NULL && req->call_id[0] != '\0' &&
	    show_field(fd, "  call:    ", req->call_id) < 0)
		return -1;
	if (n_scopes(req) > 0 && show_scopes(fd, req) < 0)
		return -1;
	if (n_scopes(req) > 1)
		snprintf(session, sizeof(session), " for the session? [s1-s%zu]", n_scopes(req));
	else if (n_scopes(req) == 1)
		snprintf(session, sizeof(session), " for the session? [s]");
	if (t->timeout_ms > 0)
		snprintf(line, sizeof(line), "allow once? [y/n]%s (%ld s, then %s) ",
		         session, (t->timeout_ms + 999) / 1000,
		         t->on_timeout == WARDEN_DECISION_REJECTED ? "rejected"
		         : t->on_timeout == WARDEN_DECISION_CANCELLED ? "cancelled"
		         : "the next answerer");
	else
		snprintf(line, sizeof(line), "allow once? [y/n]%s ", session);
	return put(fd, line);
}

/* -------------------------------------------------------------- answer */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int is_char(const struct termios *tio, int idx, unsigned char c,
                   unsigned char fallback)
{
	if (tio->c_cc[idx] != _POSIX_VDISABLE && c == tio->c_cc[idx])
		return 1;
	return c == fallback;
}

static int word_is(const char *line, const char *a, const char *b)
{
	return strcasecmp(line, a) == 0 || strcasecmp(line, b) == 0;
}

/* Read one answer.  Returns a WARDEN_DECISION_* value, or 0 on the
 * deadline. */
static int read_answer(int fd, const struct tty *t, const struct termios *tio,
                       const struct warden_request *req, char *err, size_t errlen)
{
	size_t choice;
	char again[64];
	long deadline = t->timeout_ms > 0 ? now_ms() + t->timeout_ms : 0;
	char line[ANSWER_MAX + 1];
	size_t len = 0;
	struct pollfd pfd;
	unsigned char c;
	ssize_t got;
	long left;
	int rc;

	for (;;) {
		left = -1;
		if (deadline != 0) {
			left = deadline - now_ms();
			if (left <= 0)
				return 0;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "poll /dev/tty: %s",
			                  strerror(errno));
			return WARDEN_DECISION_ERROR;
		}
		if (rc == 0)
			continue;
		got = read(fd, &c, 1);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* End of input or a hang-up: the person is gone. */
		if (got == 0 || (got < 0 && errno == EIO)) {
			WARDEN_PLUGIN_ERR(err, errlen, "the terminal hung up");
			return WARDEN_DECISION_CANCELLED;
		}
		if (got < 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "read /dev/tty: %s",
			                  strerror(errno));
			return WARDEN_DECISION_ERROR;
		}
		if (is_char(tio, VINTR, c, 0x03)) {
			WARDEN_PLUGIN_ERR(err, errlen, "the user pressed the "
			                  "interrupt key");
			return WARDEN_DECISION_CANCELLED;
		}
		if (is_char(tio, VEOF, c, 0x04)) {
			if (len == 0) {
				WARDEN_PLUGIN_ERR(err, errlen, "the user ended the "
				                  "input");
				return WARDEN_DECISION_CANCELLED;
			}
			continue;
		}
		if (c == '\r' || c == '\n') {
			line[len] = '\0';
			/* The answer as typed: printable ASCII, a short word. */
			if (word_is(line, "y", "yes")) {
				WARDEN_PLUGIN_ERR(err, errlen, "the user answered "
				                  "'%s'", line);
				return WARDEN_DECISION_ALLOWED_ONCE;
			}
			if (word_is(line, "n", "no")) {
				WARDEN_PLUGIN_ERR(err, errlen, "the user answered "
				                  "'%s'", line);
				return WARDEN_DECISION_REJECTED;
			}
			if (session_answer(line, req, &choice)) {
				*req->grant_choice = choice;
				WARDEN_PLUGIN_ERR(err, errlen, "the user answered "
				                  "'%s'", line);
				return WARDEN_DECISION_ALLOWED_FOR_SESSION;
			}
			len = 0;
			snprintf(again, sizeof(again), n_scopes(req) > 1
			         ? "\nanswer y, n, s or s1 to s%zu: "
			         : n_scopes(req) == 1 ? "\nanswer y, n or s: "
			         : "\nanswer y or n: ", n_scopes(req));
			if (put(fd, again) < 0)
				goto write_failed;
			continue;
		}
		if (is_char(tio, VERASE, c, 0x7f) || c == 0x08) {
			if (len > 0) {
				len--;
				if (put(fd, "\b \b") < 0)
					goto write_failed;
			}
			continue;
		}
		if (c >= 0x20 && c < 0x7f && len < ANSWER_MAX) {
			line[len++] = (char)c;
			if (write_all(fd, (const char *)&c, 1) < 0)
				goto write_failed;
		}
	}
write_failed:
	WARDEN_PLUGIN_ERR(err, errlen, "write /dev/tty: %s", strerror(errno));
	return WARDEN_DECISION_ERROR;
}

static const char *said(int decision)
{
	switch (decision) {
	case WARDEN_DECISION_ALLOWED_ONCE: return "\nallowed once\n";
	case WARDEN_DECISION_ALLOWED_FOR_SESSION: return "\nallowed for the session\n";
	case WARDEN_DECISION_REJECTED: return "\nrejected\n";
	case WARDEN_DECISION_CANCELLED: return "\ncancelled\n";
	case WARDEN_DECISION_DELEGATE: return "\nno answer: asking the next answerer\n";
	default: return "\n";
	}
}

static int tty_decide(void *state, const struct warden_request *req,
                      char *err, size_t errlen)
{
	const struct tty *t = state;
	struct termios saved, raw;
	int fd, decision;

	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && (errno == ENXIO || errno == ENOENT)) {
		WARDEN_PLUGIN_ERR(err, errlen, "no terminal (warden has no "
		                  "controlling terminal to ask on)");
		return WARDEN_DECISION_DELEGATE;
	}
	if (fd < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "open /dev/tty: %s",
		                  strerror(errno));
		return WARDEN_DECISION_ERROR;
	}
	if (tcgetpgrp(fd) != getpgrp()) {
		close(fd);
		WARDEN_PLUGIN_ERR(err, errlen, "the terminal is not warden's to "
		                  "use (warden runs in the background)");
		return WARDEN_DECISION_DELEGATE;
	}
	if (tcgetattr(fd, &saved) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "tcgetattr /dev/tty: %s",
		                  strerror(errno));
		close(fd);
		return WARDEN_DECISION_ERROR;
	}
	raw = saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	/* TCSAFLUSH: what was typed before the prompt does not answer it. */
	if (tcsetattr(fd, TCSAFLUSH, &raw) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "tcsetattr /dev/tty: %s",
		                  strerror(errno));
		close(fd);
		return WARDEN_DECISION_ERROR;
	}
	if (show_request(fd, t, req) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "write /dev/tty: %s",
		                  strerror(errno));
		decision = WARDEN_DECISION_ERROR;
	} else {
		decision = read_answer(fd, t, &saved, req, err, errlen);
		if (decision == 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "no answer within %ld ms "
			                  "(on_timeout = %s)", t->timeout_ms,
			                  t->on_timeout_word);
			decision = t->on_timeout;
		}
		(void)put(fd, said(decision));
	}
	/* EIO: the terminal hung up, and has no settings left to restore. */
	if (tcsetattr(fd, TCSANOW, &saved) < 0 && errno != EIO &&
	    decision != WARDEN_DECISION_ERROR) {
		WARDEN_PLUGIN_ERR(err, errlen, "cannot restore the terminal's "
		                  "settings: %s", strerror(errno));
		decision = WARDEN_DECISION_ERROR;
	}
	close(fd);
	return decision;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "tty",
	.version = PACKAGE_VERSION,
	.description = "asks the person at the controlling terminal",
	.open = tty_open,
	.close = tty_close,
	.decide = tty_decide,
};
