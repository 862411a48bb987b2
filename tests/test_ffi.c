/*
 * test_ffi.c — the ffi answerer (plugins/ffi/.libs/ffi.so, real dlopen)
 * calling real libraries: the shipped legacy policy example
 * (tests/answerers/.libs/legacy_policy.so) and functions of the other
 * supported shapes; every signature or map outside the documented set is
 * refused at open, naming the key and its line.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answerers/util.h"

static const struct warden_plugin *ffi;
static char legacy[PATH_MAX];
static char shapes[PATH_MAX];
static char libkv[PATH_MAX + 16];

static int decide(void *st, const char *tool, const char *subject,
                  char *err, size_t errlen)
{
	struct warden_request r = answerer_request(tool, subject);

	err[0] = '\0';
	return ffi->decide(st, &r, err, errlen);
}

static void *open_legacy(const char *map, char *err, size_t errlen)
{
	const char *kv[] = { libkv, "symbol=legacy_check", "args=tool subject",
	                     "returns=int", map };

	snprintf(libkv, sizeof(libkv), "library=%s", legacy);
	return answerer_open(ffi, NULL, 0, kv, 5, err, errlen);
}

static void test_legacy_function_mapped_to_each_outcome(void **unused)
{
	char err[256];
	void *st = open_legacy("map=0:allowed-once 1:rejected 2:next", err,
	                       sizeof(err));

	assert_non_null(st);
	assert_int_equal(decide(st, "read", "cat x", err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_ONCE);
	assert_int_equal(decide(st, "bash", "rm -rf /", err, sizeof(err)),
	                 WARDEN_DECISION_REJECTED);
	assert_int_equal(decide(st, "bash", "ls", err, sizeof(err)),
	                 WARDEN_DECISION_DELEGATE);
	ffi->close(st);

	st = open_legacy("map=0:cancelled", err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(decide(st, "read", "x", err, sizeof(err)),
	                 WARDEN_DECISION_CANCELLED);
	ffi->close(st);
}

static void test_unmapped_return_value_is_unavailable(void **unused)
{
	char err[256];
	void *st = open_legacy("map=0:allowed-once 1:rejected 2:next", err,
	                       sizeof(err));

	assert_non_null(st);
	/* legacy_check returns 7 for a tool it does not know. */
	assert_int_equal(decide(st, "write", "x", err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "legacy_check returned 7, which map does "
	                            "not name"));
	/* A map that names only some values: the others are unavailable. */
	ffi->close(st);
	st = open_legacy("map=0:allowed-once", err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(decide(st, "bash", "rm -rf /", err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	ffi->close(st);
}

static void test_map_repeated_lines_add_up(void **unused)
{
	const char *kv[] = { libkv, "symbol=legacy_check", "args=tool subject",
	                     "returns=int", "map=0:allowed-once",
	                     "map=  1:rejected\t2:next  " };
	char err[256];
	void *st;

	snprintf(libkv, sizeof(libkv), "library=%s", legacy);
	st = answerer_open(ffi, NULL, 0, kv, 6, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(decide(st, "bash", "ls", err, sizeof(err)),
	                 WARDEN_DECISION_DELEGATE);
	assert_int_equal(decide(st, "bash", "rm -rf x", err, sizeof(err)),
	                 WARDEN_DECISION_REJECTED);
	ffi->close(st);
}

static void test_zero_and_six_argument_functions(void **unused)
{
	const char *none[] = { libkv, "symbol=shape_none", "args=",
	                       "returns=int", "map=-3:rejected" };
	const char *six[] = { libkv, "symbol=shape_six",
	                      "args=session request_id tool subject call_id cwd",
	                      "returns=int", "map=0:allowed-once 1:rejected" };
	char err[256];
	void *st;

	snprintf(libkv, sizeof(libkv), "library=%s", shapes);
	st = answerer_open(ffi, NULL, 0, none, 5, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(decide(st, "bash", "ls -l", err, sizeof(err)),
	                 WARDEN_DECISION_REJECTED);
	ffi->close(st);

	st = answerer_open(ffi, NULL, 0, six, 5, err, sizeof(err));
	assert_non_null(st);
	/* Each field arrives in the declared position (call_id is ""). */
	assert_int_equal(decide(st, "bash", "ls -l", err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_ONCE);
	assert_int_equal(decide(st, "bash", "ls", err, sizeof(err)),
	                 WARDEN_DECISION_REJECTED);
	ffi->close(st);
}

/* The fields of a request about a command (v1.1), as text. */
static void test_command_fields_are_passed_as_text(void **unused)
{
	static const char *const argv[] = { "bash", "-c", "git status; echo 'a b'", NULL };
	static const char *const removed[] = { "BASH_ENV", "LD_PRELOAD" };
	static const char *const dropped[] = { "/w/.venv/bin", "." };
	const char *cmd[] = { libkv, "symbol=shape_command",
	                      "args=argv program interpreter program_writable env_removed path_dropped",
	                      "returns=int", "map=0:allowed-once 1:rejected" };
	const char *path[] = { libkv, "symbol=shape_path", "args=path",
	                       "returns=int", "map=0:allowed-once 1:rejected 2:next" };
	const char *env[] = { libkv, "symbol=shape_env", "args=env_config",
	                      "returns=int", "map=0:allowed-once 1:rejected 2:next" };
	static const char *const config[] = { "HOME=/home/u", "XDG_CONFIG_HOME=/home/u/my config" };
	struct warden_request r = answerer_request("bash", "git status; echo 'a b'");
	char err[256];
	void *st, *sp, *se;

	snprintf(libkv, sizeof(libkv), "library=%s", shapes);
	st = answerer_open(ffi, NULL, 0, cmd, 5, err, sizeof(err));
	assert_non_null(st);
	sp = answerer_open(ffi, NULL, 0, path, 5, err, sizeof(err));
	assert_non_null(sp);
	se = answerer_open(ffi, NULL, 0, env, 5, err, sizeof(err));
	assert_non_null(se);
	assert_int_equal(ffi->decide(se, &r, err, sizeof(err)), WARDEN_DECISION_DELEGATE);
	/* A request about no command: empty text. */
	assert_int_equal(ffi->decide(sp, &r, err, sizeof(err)), WARDEN_DECISION_DELEGATE);
	assert_int_equal(ffi->decide(st, &r, err, sizeof(err)), WARDEN_DECISION_REJECTED);
	r.argv = argv;
	r.argc = 3;
	r.program = "/usr/bin/bash";
	r.program_writable = 1;
	r.env_removed = removed;
	r.n_env_removed = 2;
	r.path_dropped = dropped;
	r.n_path_dropped = 2;
	r.path = "/usr/bin:/bin";
	assert_int_equal(ffi->decide(st, &r, err, sizeof(err)), WARDEN_DECISION_ALLOWED_ONCE);
	assert_int_equal(ffi->decide(sp, &r, err, sizeof(err)), WARDEN_DECISION_ALLOWED_ONCE);
	/* v1.4: where the command's tools read configuration. */
	r.env_config = config;
	r.n_env_config = 2;
	assert_int_equal(ffi->decide(se, &r, err, sizeof(err)), WARDEN_DECISION_ALLOWED_ONCE);
	ffi->close(st);
	ffi->close(sp);
	ffi->close(se);
}

static void test_library_relative_to_the_config_directory(void **unused)
{
	const char *kv[] = { "library=legacy_policy.so", "symbol=legacy_check",
	                     "args=tool subject", "returns=int",
	                     "map=0:allowed-once" };
	char dir[PATH_MAX], err[256];
	void *st;

	snprintf(dir, sizeof(dir), "%s", legacy);
	*strrchr(dir, '/') = '\0';
	st = answerer_open(ffi, dir, 0, kv, 5, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(decide(st, "read", "x", err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_ONCE);
	ffi->close(st);
}

/* open() with the legacy library and `bad` in place of key `which`
 * (library, symbol, args, returns, map); NULL and err containing want. */
static void refused(const char *which, const char *bad, const char *want)
{
	const char *kv[6] = { libkv, "symbol=legacy_check",
	                      "args=tool subject", "returns=int",
	                      "map=0:allowed-once" };
	const char *keys[] = { "library", "symbol", "args", "returns", "map" };
	size_t i, n = 5;
	char err[512];
	void *st;

	snprintf(libkv, sizeof(libkv), "library=%s", legacy);
	for (i = 0; i < 5; i++)
		if (strcmp(keys[i], which) == 0)
			kv[i] = bad;
	if (strcmp(which, "extra") == 0)
		kv[n++] = bad;
	if (bad == NULL) {           /* `which` left out */
		for (i = 0; i < 5 && strcmp(keys[i], which) != 0; i++)
			;
		memmove(&kv[i], &kv[i + 1], (n - i - 1) * sizeof(kv[0]));
		n--;
	}
	st = answerer_open(ffi, "/nonexistent", 0, kv, n, err, sizeof(err));
	if (st != NULL || strstr(err, want) == NULL)
		fail_msg("%s = %s: open gave %p, error '%s'; want '%s'", which,
		         bad ? bad : "(absent)", st, err, want);
}

static void test_signature_outside_the_supported_set_is_refused(void **unused)
{
	refused("returns", "returns=void", "line 4: returns = void: allowed: int");
	refused("returns", "returns=char *", "returns = char *: allowed: int");
	refused("returns", "returns=long", "allowed: int");
	refused("args", "args=tool subject cwd reason mode call_id session",
	        "line 3: args: more than 6 arguments");
	refused("args", "args=tool command", "line 3: args: 'command' is not a "
	        "request field");
	refused("args", "args=int", "'int' is not a request field");
	refused("symbol", "symbol=legacy check", "line 2: symbol = legacy "
	        "check: allowed: the function's name");
	refused("symbol", "symbol=", "symbol = : allowed");
	refused("symbol", "symbol=no_such_function", "symbol: no_such_function "
	        "is not defined in");
}

static void test_bad_map_is_refused(void **unused)
{
	refused("map", "map=", "line 5: map: empty");
	refused("map", "map=0allowed-once", "line 5: map: '0allowed-once' is "
	        "not VALUE:OUTCOME");
	refused("map", "map=x:allowed-once", "'x:allowed-once' is not");
	refused("map", "map=0:maybe", "'0:maybe' is not");
	refused("map", "map=0:unavailable", "'0:unavailable' is not");
	refused("map", "map=:rejected", "':rejected' is not");
	refused("map", "map=99999999999:rejected", "is not VALUE:OUTCOME");
	refused("map", "map=0:allowed-once 0:rejected",
	        "line 5: map: value 0 is mapped twice");
}

static void test_missing_unknown_or_repeated_keys_are_refused(void **unused)
{
	refused("library", NULL, "missing key 'library'");
	refused("symbol", NULL, "missing key 'symbol'");
	refused("args", NULL, "missing key 'args'");
	refused("returns", NULL, "missing key 'returns'");
	refused("map", NULL, "missing key 'map'");
	refused("extra", "timeout=5", "line 6: unknown key 'timeout' (ffi knows");
	refused("extra", "symbol=legacy_check", "line 6: symbol: given twice");
}

static void test_library_that_is_not_usable_is_refused(void **unused)
{
	char dir[] = "/tmp/warden-ffi-XXXXXX", path[PATH_MAX + 16];
	int fd;

	refused("library", "library=", "library: empty");
	refused("library", "library=missing.so",
	        "library: /nonexistent/missing.so: No such file or directory");
	refused("library", "library=/", "library: / is not a regular file");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "library=%s/junk.so", dir);
	fd = open(path + 8, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not ELF\n", 8), 8);
	close(fd);
	refused("library", path, "library: cannot load");
	chmod(path + 8, 0666);
	refused("library", path, "is writable by group or others");
	unlink(path + 8);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_function_mapped_to_each_outcome),
		cmocka_unit_test(test_unmapped_return_value_is_unavailable),
		cmocka_unit_test(test_map_repeated_lines_add_up),
		cmocka_unit_test(test_zero_and_six_argument_functions),
		cmocka_unit_test(test_command_fields_are_passed_as_text),
		cmocka_unit_test(test_library_relative_to_the_config_directory),
		cmocka_unit_test(test_signature_outside_the_supported_set_is_refused),
		cmocka_unit_test(test_bad_map_is_refused),
		cmocka_unit_test(test_missing_unknown_or_repeated_keys_are_refused),
		cmocka_unit_test(test_library_that_is_not_usable_is_refused),
	};

	ffi = answerer_load("ffi");
	snprintf(legacy, sizeof(legacy), "%s", answerer_test_lib("legacy_policy"));
	snprintf(shapes, sizeof(shapes), "%s", answerer_test_lib("ffi_shapes"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
