/*
 * util.c — see util.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *top(void)
{
	const char *t = getenv("top_builddir");

	if (t == NULL || t[0] == '\0') {
		fprintf(stderr, "top_builddir must be set (run by make check)\n");
		exit(1);
	}
	return t;
}

const struct warden_plugin *answerer_load(const char *name)
{
	char path[PATH_MAX];
	const struct warden_plugin *p;
	void *d;

	snprintf(path, sizeof(path), "%s/plugins/%s/.libs/%s.so", top(), name,
	         name);
	d = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (d == NULL) {
		fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
		exit(1);
	}
	p = dlsym(d, WARDEN_PLUGIN_SYMBOL);
	if (p == NULL || p->kind != WARDEN_PLUGIN_ANSWERER ||
	    p->decide == NULL) {
		fprintf(stderr, "%s: no answerer descriptor\n", path);
		exit(1);
	}
	return p;
}

const char *answerer_test_lib(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/tests/answerers/.libs/%s.so", top(),
	         name);
	return path;
}

void *answerer_open(const struct warden_plugin *p, const char *config_dir,
                    long timeout_ms, const char *const *kvs, size_t n,
                    char *err, size_t errlen)
{
	struct warden_kv kv[80];
	char keys[80][64];
	struct warden_open_args args;
	size_t i, k;

	if (n > 80)
		abort();
	for (i = 0; i < n; i++) {
		k = strcspn(kvs[i], "=");
		if (kvs[i][k] != '=' || k >= sizeof(keys[i]))
			abort();
		memcpy(keys[i], kvs[i], k);
		keys[i][k] = '\0';
		kv[i].key = keys[i];
		kv[i].value = kvs[i] + k + 1;
		kv[i].line = (unsigned)i + 1;
	}
	memset(&args, 0, sizeof(args));
	args.struct_size = sizeof(args);
	args.instance = "test";
	args.config_file = "/nonexistent/warden.ini";
	args.config_dir = config_dir != NULL ? config_dir : "/nonexistent";
	args.kv = kv;
	args.kv_count = n;
	args.libexec_dir = "/nonexistent";
	args.timeout_ms = timeout_ms;
	err[0] = '\0';
	return p->open(&args, err, errlen);
}

struct warden_request answerer_request(const char *tool, const char *subject)
{
	struct warden_request r;

	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	r.session_id = "s1";
	r.request_id = "r1";
	r.tool = tool;
	r.subject = subject;
	r.call_id = "";
	r.reason = "";
	r.requested_mode = "";
	r.cwd = "/w";
	r.program = "";
	r.interpreter = "";
	r.path = "";
	r.requested_network = "";
	return r;
}
