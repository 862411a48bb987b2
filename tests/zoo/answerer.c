/*
 * answerer.c — the zoo's valid answerer: the smallest plugin that loads.
 *
 * `decision = allowed-once|allowed-for-session|rejected|cancelled|delegate`
 * (default delegate; allowed-for-session grants the first scope offered)
 * is its main key; `reason = TEXT` (ABI 1.1) is what it gives with the
 * decision, with C escapes decoded (\n \t \e \\ \xHH) so that a test can
 * hand the host a reason with any byte in it, and `reason_repeat = N`
 * repeats it N times; `umask = OCTAL` makes decide() set the process's
 * umask first, and `exit = N` makes it call exit(N) instead of deciding
 * (what an in-process answerer may do to its host).  Any other
 * key is refused with its line, as every plugin's open() must.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/stat.h>

#include <warden/plugin.h>

struct zoo_answerer {
	int decision;
	int umask;              /* -1: leave it */
	int exit;               /* -1: decide */
	char reason[4096];
};

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes the escapes of s into out (len bytes). */
static void unescape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	while (*s && n + 1 < len) {
		if (s[0] == '\\' && s[1] == 'n') { out[n++] = '\n'; s += 2; }
		else if (s[0] == '\\' && s[1] == 't') { out[n++] = '\t'; s += 2; }
		else if (s[0] == '\\' && s[1] == 'e') { out[n++] = 0x1b; s += 2; }
		else if (s[0] == '\\' && s[1] == '\\') { out[n++] = '\\'; s += 2; }
		else if (s[0] == '\\' && s[1] == 'x' && hex(s[2]) >= 0 && hex(s[3]) >= 0) {
			out[n++] = (char)(hex(s[2]) * 16 + hex(s[3]));
			s += 4;
		} else
			out[n++] = *s++;
	}
	out[n] = '\0';
}

static void *zoo_open(const struct warden_open_args *args, char *err, size_t errlen)
{
	static const struct { const char *name; int value; } decisions[] = {
		{ "allowed-once", WARDEN_DECISION_ALLOWED_ONCE },
		{ "rejected", WARDEN_DECISION_REJECTED },
		{ "cancelled", WARDEN_DECISION_CANCELLED },
		{ "delegate", WARDEN_DECISION_DELEGATE },
		{ "allowed-for-session", WARDEN_DECISION_ALLOWED_FOR_SESSION },
	};
	struct zoo_answerer *z;
	size_t i, j;

	z = calloc(1, sizeof(*z));
	if (z == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	z->decision = WARDEN_DECISION_DELEGATE;
	z->umask = -1;
	z->exit = -1;
	for (i = 0; i < args->kv_count; i++) {
		if (strcmp(args->kv[i].key, "exit") == 0) {
			z->exit = atoi(args->kv[i].value) & 0xff;
			continue;
		}
		if (strcmp(args->kv[i].key, "umask") == 0) {
			z->umask = (int)strtol(args->kv[i].value, NULL, 8) & 0777;
			continue;
		}
		if (strcmp(args->kv[i].key, "reason") == 0) {
			unescape(args->kv[i].value, z->reason, sizeof(z->reason));
			continue;
		}
		if (strcmp(args->kv[i].key, "reason_repeat") == 0) {
			char one[sizeof(z->reason)];
			int k = atoi(args->kv[i].value);

			snprintf(one, sizeof(one), "%s", z->reason);
			while (--k > 0 && strlen(z->reason) + strlen(one) < sizeof(z->reason))
				strcat(z->reason, one);
			continue;
		}
		if (strcmp(args->kv[i].key, "decision") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: unknown key '%s' "
			                  "(allowed: decision, reason, "
			                  "reason_repeat, umask, exit)", args->kv[i].line,
			                  args->kv[i].key);
			free(z);
			return NULL;
		}
		for (j = 0; j < sizeof(decisions) / sizeof(decisions[0]); j++)
			if (strcmp(args->kv[i].value, decisions[j].name) == 0)
				break;
		if (j == sizeof(decisions) / sizeof(decisions[0])) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: decision = %s: "
			                  "allowed: allowed-once, rejected, "
			                  "cancelled, delegate", args->kv[i].line,
			                  args->kv[i].value);
			free(z);
			return NULL;
		}
		z->decision = decisions[j].value;
	}
	return z;
}

static void zoo_close(void *state)
{
	free(state);
}

static int zoo_decide(void *state, const struct warden_request *req,
                      char *err, size_t errlen)
{
	const struct zoo_answerer *z = state;

	(void)req;
	if (z->umask >= 0)
		umask((mode_t)z->umask);
	if (z->exit >= 0)
		exit(z->exit);
	if (z->reason[0] != '\0')
		WARDEN_PLUGIN_ERR(err, errlen, "%s", z->reason);
	return z->decision;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "zoo-answerer",
	.version = "1.0",
	.description = "answers what its config says",
	.open = zoo_open,
	.close = zoo_close,
	.decide = zoo_decide,
};
