/*
 * util.h — for the answerer tests: load a built answerer plugin with a
 * real dlopen, open an instance from key = value pairs, and a request.
 */
#ifndef WARDEN_TEST_ANSWERERS_UTIL_H
#define WARDEN_TEST_ANSWERERS_UTIL_H

#include <stddef.h>

#include <warden/plugin.h>

/* The descriptor of $top_builddir/plugins/NAME/.libs/NAME.so; exits on
 * failure (the build is broken, not the test). */
const struct warden_plugin *answerer_load(const char *name);

/* The path of a built test library, tests/answerers/.libs/NAME.so. */
const char *answerer_test_lib(const char *name);

/* open() with keys given as "key=value" strings (line numbers 1, 2, ...).
 * NULL on failure with err filled. */
void *answerer_open(const struct warden_plugin *p, const char *config_dir,
                    long timeout_ms, const char *const *kvs, size_t n,
                    char *err, size_t errlen);

/* A request with every field set (session s1, request r1, cwd /w), about
 * no command (argc 0, the v1.1 strings ""). */
struct warden_request answerer_request(const char *tool, const char *subject);

#endif
