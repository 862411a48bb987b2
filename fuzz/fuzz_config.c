/*
 * fuzz_config.c — libFuzzer target for the config parser
 * (warden_config_parse, host/config.c).
 *
 * The input is the text of a warden.ini.  Beyond "no crash, no leak, no
 * undefined behaviour" it checks the parser's contract: an error has a
 * status and exactly one line without control characters (it goes to a
 * terminal as is); a
 * success yields a model whose closed enums hold known values, whose
 * paths are absolute and whose sections are named.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "wconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const struct warden_error *err)
{
	const unsigned char *m = (const unsigned char *)err->msg;

	if (rc >= 0 || err->code != -rc || m[0] == '\0')
		abort();
	/* The parser refuses control characters before it quotes a line, so
	 * nothing it echoes can move a terminal's cursor (a tab may pass). */
	for (; *m != '\0'; m++)
		if ((*m < 0x20 && *m != '\t') || *m == 0x7f)
			abort();
}

static void check_plugins(const struct warden_config_plugin *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i].name == NULL || p[i].name[0] == '\0')
			abort();
		if (p[i].plugin == NULL || p[i].plugin[0] == '\0')
			abort();
		if (p[i].kv_count > 0 && p[i].kv == NULL)
			abort();
		if (p[i].timeout_ms < 0)
			abort();
	}
}

static void check_config(const struct warden_config *c)
{
	size_t i;

	if (warden_mode_name(c->default_mode) == NULL ||
	    warden_policy_name(c->approval_policy) == NULL)
		abort();
	if (c->state_dir == NULL || c->state_dir[0] != '/' ||
	    c->plugin_dir == NULL || c->plugin_dir[0] != '/')
		abort();
	if (c->workspace_root != NULL && c->workspace_root[0] != '/')
		abort();
	if (c->require_full != 0 && c->require_full != 1)
		abort();
	check_plugins(c->backends, c->n_backends);
	check_plugins(c->answerers, c->n_answerers);
	if (c->n_presets == 0)
		abort();
	for (i = 0; i < c->n_presets; i++) {
		if (c->presets[i].name == NULL ||
		    strcmp(c->presets[i].name, "custom") == 0 ||
		    warden_mode_name(c->presets[i].mode) == NULL ||
		    warden_policy_name(c->presets[i].policy) == NULL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct warden_config *cfg = NULL;
	struct warden_error err;
	char *text;
	int rc;

	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&err, 0, sizeof(err));
	rc = warden_config_parse(text, "/etc/warden/fuzz.ini", &cfg, &err);
	if (rc == 0) {
		if (cfg == NULL)
			abort();
		check_config(cfg);
		warden_config_free(cfg);
	} else {
		if (cfg != NULL)
			abort();
		check_error(rc, &err);
	}
	free(text);
	return 0;
}
