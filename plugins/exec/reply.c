/*
 * reply.c — the exec answerer's reply: one exact word on the first line.
 *
 * Strict on purpose: an answer that is almost a word ("allowed-once ",
 * "Allowed-Once", "allowed-once\r") is a broken program, not an answer,
 * and a broken answerer makes the request unavailable.
 */
#include <stdio.h>
#include <string.h>

#include <warden/plugin.h>

#include "reply.h"

static const struct {
	const char *word;
	int decision;
} words[] = {
	{ "allowed-once", WARDEN_DECISION_ALLOWED_ONCE },
	{ "rejected", WARDEN_DECISION_REJECTED },
	{ "cancelled", WARDEN_DECISION_CANCELLED },
	{ "next", WARDEN_DECISION_DELEGATE },
};

/* A short, printable copy of what the program said, for the reason: its
 * bytes are not trusted to be text. */
static void shown(const char *s, size_t n, char *buf, size_t size)
{
	size_t i, max = n < size - 1 ? n : size - 1;

	for (i = 0; i < max; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[max] = '\0';
}

/* The second line, the decision's reason: its bytes as the program wrote
 * them (the host escapes what it records), up to a newline, a NUL or the
 * end, cut to fit; "" when there is none. */
static void reason_line(const char *s, size_t n, char *why, size_t whylen)
{
	const char *nl = memchr(s, '\n', n);
	size_t take = nl != NULL ? (size_t)(nl - s) : n;
	const char *nul = memchr(s, '\0', take);

	if (whylen == 0)
		return;
	if (nul != NULL)
		take = (size_t)(nul - s);
	if (take > whylen - 1)
		take = whylen - 1;
	memcpy(why, s, take);
	why[take] = '\0';
}

int exec_reply_parse(const char *out, size_t len, char *why, size_t whylen)
{
	return exec_reply_parse_scoped(out, len, NULL, 0, NULL, why, whylen);
}

#define FOR_SESSION "allowed-for-session"

int exec_reply_parse_scoped(const char *out, size_t len,
                            const char *const *scopes, size_t n_scopes,
                            size_t *choice, char *why, size_t whylen)
{
	char said[65];
	const char *nl = len > 0 ? memchr(out, '\n', len) : NULL;
	size_t n = nl != NULL ? (size_t)(nl - out) : len;
	size_t i;

	if (n > EXEC_REPLY_LINE_MAX) {
		WARDEN_PLUGIN_ERR(why, whylen, "the first line of its output "
		                  "is longer than %d bytes", EXEC_REPLY_LINE_MAX);
		return WARDEN_DECISION_ERROR;
	}
	if (n == 0) {
		WARDEN_PLUGIN_ERR(why, whylen, len == 0 ? "it printed nothing"
		                  : "the first line of its output is empty");
		return WARDEN_DECISION_ERROR;
	}
	if (memchr(out, '\0', n) != NULL) {
		WARDEN_PLUGIN_ERR(why, whylen, "the first line of its output "
		                  "contains a NUL byte");
		return WARDEN_DECISION_ERROR;
	}
	/* `allowed-for-session` (the first scope offered) or
	 * `allowed-for-session SCOPE` (one of the offered names, exactly). */
	if (n >= strlen(FOR_SESSION) && memcmp(out, FOR_SESSION, strlen(FOR_SESSION)) == 0 &&
	    (n == strlen(FOR_SESSION) || out[strlen(FOR_SESSION)] == ' ')) {
		const char *name = out + strlen(FOR_SESSION) + 1;
		size_t nlen = n > strlen(FOR_SESSION) ? n - strlen(FOR_SESSION) - 1 : 0;

		if (choice != NULL)
			*choice = 0;
		if (n_scopes == 0) {
			WARDEN_PLUGIN_ERR(why, whylen, "it answered allowed-for-session, "
			                  "but the request offers no grant scope");
			return WARDEN_DECISION_ERROR;
		}
		if (n > strlen(FOR_SESSION)) {
			for (i = 0; i < n_scopes; i++)
				if (strlen(scopes[i]) == nlen && memcmp(scopes[i], name, nlen) == 0)
					break;
			if (i == n_scopes) {
				shown(name, nlen, said, sizeof(said));
				WARDEN_PLUGIN_ERR(why, whylen, "it answered allowed-for-session "
				                  "with scope '%s%s', which the request does not offer",
				                  said, nlen >= sizeof(said) ? "..." : "");
				return WARDEN_DECISION_ERROR;
			}
			if (choice != NULL)
				*choice = i;
		}
		reason_line(nl != NULL ? nl + 1 : out + len,
		            (size_t)(out + len - (nl != NULL ? nl + 1 : out + len)),
		            why, whylen);
		return WARDEN_DECISION_ALLOWED_FOR_SESSION;
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == n &&
		    memcmp(words[i].word, out, n) == 0) {
			reason_line(nl != NULL ? nl + 1 : out + len,
			            (size_t)(out + len - (nl != NULL ? nl + 1 : out + len)),
			            why, whylen);
			return words[i].decision;
		}
	shown(out, n, said, sizeof(said));
	WARDEN_PLUGIN_ERR(why, whylen, "it answered '%s%s' (allowed: "
	                  "allowed-once, allowed-for-session [SCOPE], rejected, "
	                  "cancelled, next)", said,
	                  n >= sizeof(said) ? "..." : "");
	return WARDEN_DECISION_ERROR;
}
