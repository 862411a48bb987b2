/*
 * allowtool.c — a template answerer: allows the tools its section names,
 * once per request, and delegates everything else to the next answerer.
 *
 *   [answerer read-tools]
 *   plugin = /usr/local/lib/warden/plugins/allowtool.so
 *   tool = read
 *   tool = grep
 *
 * Build it against an installed warden, with nothing else:
 *
 *   cc -shared -fPIC $(pkg-config --cflags warden-plugin) \
 *      -o allowtool.so allowtool.c
 *
 * What it shows: one exported descriptor; open() that reads its keys,
 * refuses unknown ones with file:line, and keeps everything in its own
 * state (no globals: two sections may open it at once); decide() that
 * answers only what it is sure of and delegates the rest.  Note that it
 * trusts the tool name alone: allowing `bash` this way would allow every
 * command.  Decide on the subject too for anything that runs code.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#define MAX_TOOLS 32

struct allowtool {
	char *tools[MAX_TOOLS];
	size_t n;
};

static void allowtool_close(void *state)
{
	struct allowtool *a = state;
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++)
		free(a->tools[i]);
	free(a);
}

static void *allowtool_open(const struct warden_open_args *args, char *err,
                            size_t errlen)
{
	struct allowtool *a = calloc(1, sizeof(*a));
	size_t i;

	if (a == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "allowtool: out of memory");
		return NULL;
	}
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "tool") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] unknown "
			                  "key '%s' (allowed: tool)", args->config_file,
			                  kv->line, args->instance, kv->key);
			goto fail;
		}
		if (a->n == MAX_TOOLS) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] more than "
			                  "%d tool lines", args->config_file, kv->line,
			                  args->instance, MAX_TOOLS);
			goto fail;
		}
		if ((a->tools[a->n] = strdup(kv->value)) == NULL) {
			WARDEN_PLUGIN_ERR(err, errlen, "allowtool: out of memory");
			goto fail;
		}
		a->n++;
	}
	if (a->n == 0) {
		/* An answerer that can never decide is a configuration mistake. */
		WARDEN_PLUGIN_ERR(err, errlen, "%s: [answerer %s] names no tool "
		                  "(add `tool = NAME`)", args->config_file,
		                  args->instance);
		goto fail;
	}
	return a;
fail:
	allowtool_close(a);
	return NULL;
}

static int allowtool_decide(void *state, const struct warden_request *req,
                            char *err, size_t errlen)
{
	const struct allowtool *a = state;
	size_t i;

	(void)err;
	(void)errlen;
	for (i = 0; i < a->n; i++)
		if (strcmp(req->tool, a->tools[i]) == 0)
			return WARDEN_DECISION_ALLOWED_ONCE;
	return WARDEN_DECISION_DELEGATE;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "allowtool",
	.version = "1.0",
	.description = "allows the configured tools, delegates the rest",
	.open = allowtool_open,
	.close = allowtool_close,
	.decide = allowtool_decide,
};
