/*
 * test_policy.c — policy resolution (host/policy.c): precedence and
 * sources of mode and policy, and the workspace root resolved with
 * realpath first, lexical normalisation second.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy.h"
#include "session.h"
#include "session_util.h"
#include "vocab.h"

static char *new_session_in(struct sfix *f, const char *cwd)
{
	struct warden_error err;
	char *id = NULL;

	if (warden_session_create(&f->cfg, cwd, &id, &err) != 0)
		fail_msg("create: %s", err.msg);
	return id;
}

static void sub(const struct sfix *f, char *out, size_t n, const char *rel)
{
	snprintf(out, n, "%s/%s", f->dir, rel);
}

static void test_explicit_mode_beats_session_beats_config(void **state)
{
	struct sfix *f = *state;
	struct warden_session *s;
	struct warden_resolved r;
	struct warden_error err;
	char *id = new_session_in(f, f->dir);

	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &r, &err), 0);
	assert_int_equal(r.mode, WARDEN_SANDBOX_WORKSPACE_WRITE);
	assert_string_equal(warden_source_name(r.mode_source), "config");
	assert_int_equal(r.policy, WARDEN_POLICY_ASK);
	assert_string_equal(warden_source_name(r.policy_source), "config");
	assert_string_equal(r.preset, "workspace-write");
	assert_string_equal(warden_source_name(r.preset_source), "derived");
	assert_string_equal(warden_source_name(r.root_source), "session");
	assert_string_equal(r.session_id, id);

	assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), 0);
	assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
	assert_int_equal(warden_session_set_policy(s, WARDEN_POLICY_NEVER, NULL, &err), 0);
	assert_int_equal(warden_policy_resolve_session(&f->cfg, s, 0, &r, &err), 0);
	assert_int_equal(r.mode, WARDEN_SANDBOX_READ_ONLY);
	assert_string_equal(warden_source_name(r.mode_source), "session");
	assert_int_equal(r.policy, WARDEN_POLICY_NEVER);
	assert_string_equal(warden_source_name(r.policy_source), "session");
	assert_string_equal(r.preset, "custom");

	assert_int_equal(warden_policy_resolve(&f->cfg, id, WARDEN_SANDBOX_DANGER_FULL_ACCESS,
	                                       &r, &err), 0);
	assert_int_equal(r.mode, WARDEN_SANDBOX_DANGER_FULL_ACCESS);
	assert_string_equal(warden_source_name(r.mode_source), "explicit");
	/* The escalation is one call's: the session keeps its mode. */
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &r, &err), 0);
	assert_int_equal(r.mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 99, &r, &err), -WARDEN_EINTERNAL);
	warden_session_close(s);
	free(id);
}

static void test_a_selection_that_still_matches_is_the_session_preset(void **state)
{
	struct sfix *f = *state;
	struct warden_session *s;
	struct warden_resolved r;
	struct warden_error err;
	char *id = new_session_in(f, f->dir);

	assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), 0);
	assert_int_equal(warden_session_set_preset(s, "workspace-write", NULL, &err), 0);
	assert_int_equal(warden_policy_resolve_session(&f->cfg, s, 0, &r, &err), 0);
	assert_string_equal(r.preset, "workspace-write");
	assert_string_equal(warden_source_name(r.preset_source), "session");
	warden_session_close(s);
	free(id);
}

static void test_no_session_uses_the_configured_root(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char root[PATH_MAX + 16], want[PATH_MAX];

	sub(f, root, sizeof(root), "ws");
	assert_int_equal(mkdir(root, 0700), 0);
	assert_non_null(realpath(root, want));
	f->cfg.workspace_root = root;
	assert_int_equal(warden_policy_resolve(&f->cfg, NULL, 0, &r, &err), 0);
	assert_string_equal(r.root, want);
	assert_string_equal(warden_source_name(r.root_source), "config");
	assert_string_equal(r.session_id, "");
	assert_string_equal(warden_source_name(r.mode_source), "config");
}

static void test_no_session_and_no_configured_root_uses_the_cwd(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char old[PATH_MAX], want[PATH_MAX];

	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(f->dir), 0);
	assert_non_null(realpath(".", want));
	assert_int_equal(warden_policy_resolve(&f->cfg, NULL, 0, &r, &err), 0);
	assert_int_equal(chdir(old), 0);
	assert_string_equal(r.root, want);
	assert_string_equal(warden_source_name(r.root_source), "cwd");
}

static void test_a_session_cwd_given_as_link_dotdot_is_where_the_kernel_goes(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char a[PATH_MAX + 16], ab[PATH_MAX + 16], link[PATH_MAX + 16];
	char via[PATH_MAX + 32], want[PATH_MAX];
	char *id;

	sub(f, a, sizeof(a), "a");
	sub(f, ab, sizeof(ab), "a/b");
	sub(f, link, sizeof(link), "link");
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(ab, 0700), 0);
	assert_int_equal(symlink(ab, link), 0);
	assert_non_null(realpath(a, want));
	snprintf(via, sizeof(via), "%s/link/..", f->dir);
	id = new_session_in(f, via);
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &r, &err), 0);
	assert_string_equal(r.root, want);
	free(id);
	/* The same through a configured root. */
	f->cfg.workspace_root = via;
	assert_int_equal(warden_policy_resolve(&f->cfg, NULL, 0, &r, &err), 0);
	assert_string_equal(r.root, want);
}

static void test_slashes_and_dot_segments_name_the_same_root(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char a[PATH_MAX + 16], want[PATH_MAX], spelled[PATH_MAX + 64];
	static const char *const forms[] = { "/a/", "//a///", "/./a/.", "/a/../a" };
	size_t i;

	sub(f, a, sizeof(a), "a");
	assert_int_equal(mkdir(a, 0700), 0);
	assert_non_null(realpath(a, want));
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(spelled, sizeof(spelled), "%s%s", f->dir, forms[i]);
		f->cfg.workspace_root = spelled;
		assert_int_equal(warden_policy_resolve(&f->cfg, NULL, 0, &r, &err), 0);
		assert_string_equal(r.root, want);
	}
}

static void test_a_root_that_is_a_file_is_an_error(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char file[PATH_MAX + 16];

	sub(f, file, sizeof(file), "file");
	sfix_write(file, "x", 1);
	f->cfg.workspace_root = file;
	assert_int_equal(warden_policy_resolve(&f->cfg, NULL, 0, &r, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "not a directory"));
}

static void test_a_root_deleted_after_the_session_started_is_an_error(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char gone[PATH_MAX + 16];
	char *id;

	sub(f, gone, sizeof(gone), "gone");
	assert_int_equal(mkdir(gone, 0700), 0);
	id = new_session_in(f, gone);
	assert_int_equal(rmdir(gone), 0);
	/* Not a fallback to the configured root or the cwd. */
	f->cfg.workspace_root = f->dir;
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &r, &err), -WARDEN_EDATA);
	assert_non_null(strstr(err.msg, "does not resolve"));
	assert_non_null(strstr(err.msg, "gone"));
	/* Recreated, it resolves again (the path is what was recorded). */
	assert_int_equal(mkdir(gone, 0700), 0);
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &r, &err), 0);
	free(id);
}

static void test_a_missing_configured_root_is_a_config_error(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;
	char missing[PATH_MAX + 16];

	sub(f, missing, sizeof(missing), "missing");
	f->cfg.workspace_root = missing;
	assert_int_equal(warden_policy_resolve(&f->cfg, NULL, 0, &r, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "does not resolve"));
}

static void test_unknown_or_hostile_session_is_an_error_not_a_default(void **state)
{
	struct sfix *f = *state;
	struct warden_resolved r;
	struct warden_error err;

	assert_int_equal(warden_policy_resolve(&f->cfg, "nope", 0, &r, &err), -WARDEN_EUSAGE);
	assert_int_equal(r.mode, 0);
	assert_int_equal(warden_policy_resolve(&f->cfg, "../nope", 0, &r, &err), -WARDEN_EUSAGE);
	assert_int_equal(r.root[0], '\0');
}

static void test_lexical_normalisation(void **state)
{
	static const char *const cases[][2] = {
		{ "/", "/" },
		{ "//", "/" },
		{ "/a//b/", "/a/b" },
		{ "/a/./b/.", "/a/b" },
		{ "/a/b/../c", "/a/c" },
		{ "/../..", "/" },
		{ "/a/..", "/" },
		{ "/a/.../b", "/a/.../b" },
		{ "/.a/..b", "/.a/..b" },
	};
	struct warden_error err;
	char out[PATH_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(warden_path_normalise(cases[i][0], out, &err), 0);
		assert_string_equal(out, cases[i][1]);
	}
	assert_int_equal(warden_path_normalise("a/b", out, &err), -WARDEN_EDATA);
	assert_int_equal(warden_path_normalise("", out, &err), -WARDEN_EDATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, sfix_setup, sfix_teardown)
		T(test_explicit_mode_beats_session_beats_config),
		T(test_a_selection_that_still_matches_is_the_session_preset),
		T(test_no_session_uses_the_configured_root),
		T(test_no_session_and_no_configured_root_uses_the_cwd),
		T(test_a_session_cwd_given_as_link_dotdot_is_where_the_kernel_goes),
		T(test_slashes_and_dot_segments_name_the_same_root),
		T(test_a_root_that_is_a_file_is_an_error),
		T(test_a_root_deleted_after_the_session_started_is_an_error),
		T(test_a_missing_configured_root_is_a_config_error),
		T(test_unknown_or_hostile_session_is_an_error_not_a_default),
		T(test_lexical_normalisation),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
