/*
 * test_seatbelt_profile.c — the exact SBPL text of each mode, its escapes,
 * and the paths it refuses.  Runs on every platform: the generator is
 * plain C; only the backend that hands it to sandbox-exec is macOS-only.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#include "../plugins/seatbelt/seatbelt_profile.h"

static char err[256];

static char *profile(int mode, const char *root, const char *user_tmp)
{
	char *p = NULL;

	err[0] = '\0';
	if (warden_seatbelt_profile(mode, root, user_tmp, &p, err, sizeof(err)) != 0) {
		assert_null(p);
		return NULL;
	}
	assert_non_null(p);
	return p;
}

static void test_read_only_allows_writes_to_dev_null_only(void **state)
{
	char *p = profile(WARDEN_MODE_READ_ONLY, "/Users/me/ws", "/private/var/folders/x/T");

	(void)state;
	assert_string_equal(p,
		"(version 1)\n"
		"(allow default)\n"
		"(deny file-write*)\n"
		"(allow file-write*\n"
		"  (literal \"/dev/null\"))\n");
	free(p);
}

static void test_workspace_write_adds_root_private_tmp_and_user_tmp(void **state)
{
	char *p = profile(WARDEN_MODE_WORKSPACE_WRITE, "/Users/me/ws",
	                  "/private/var/folders/ab/cd/T");

	(void)state;
	assert_string_equal(p,
		"(version 1)\n"
		"(allow default)\n"
		"(deny file-write*)\n"
		"(allow file-write*\n"
		"  (literal \"/dev/null\")\n"
		"  (subpath \"/Users/me/ws\")\n"
		"  (subpath \"/private/tmp\")\n"
		"  (subpath \"/private/var/folders/ab/cd/T\"))\n");
	free(p);
}

static void test_workspace_write_without_user_tmp_omits_it(void **state)
{
	char *p = profile(WARDEN_MODE_WORKSPACE_WRITE, "/w", NULL);

	(void)state;
	assert_null(strstr(p, "folders"));
	assert_non_null(strstr(p, "  (subpath \"/w\")\n  (subpath \"/private/tmp\"))\n"));
	free(p);
}

static void test_quote_and_backslash_are_escaped(void **state)
{
	char *p = profile(WARDEN_MODE_WORKSPACE_WRITE, "/w/a\"b\\c) (allow file-write* (subpath \"x",
	                  NULL);

	(void)state;
	/* The whole hostile name stays inside one string literal. */
	assert_non_null(strstr(p,
		"  (subpath \"/w/a\\\"b\\\\c) (allow file-write* (subpath \\\"x\")\n"));
	free(p);
}

static void test_utf8_and_spaces_pass_unchanged(void **state)
{
	char *p = profile(WARDEN_MODE_WORKSPACE_WRITE, "/Users/me/My Projects/caf\xc3\xa9", NULL);

	(void)state;
	assert_non_null(strstr(p, "(subpath \"/Users/me/My Projects/caf\xc3\xa9\")"));
	free(p);
}

static void test_control_characters_are_refused(void **state)
{
	(void)state;
	assert_null(profile(WARDEN_MODE_WORKSPACE_WRITE, "/w/a\nb", NULL));
	assert_non_null(strstr(err, "control character (byte 0x0a)"));
	assert_null(profile(WARDEN_MODE_WORKSPACE_WRITE, "/w/a\tb", NULL));
	assert_null(profile(WARDEN_MODE_WORKSPACE_WRITE, "/w", "/t/\x7f"));
	assert_non_null(strstr(err, "user temp dir"));
}

static void test_non_canonical_or_relative_paths_are_refused(void **state)
{
	const char *bad[] = { "w", "", "/w/", "//w", "/w//x", "/w/./x", "/w/..",
	                      "/w/../x", "/.", "./w" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_null(profile(WARDEN_MODE_WORKSPACE_WRITE, bad[i], NULL));
		assert_non_null(strstr(err, "workspace root"));
	}
	assert_null(profile(WARDEN_MODE_WORKSPACE_WRITE, NULL, NULL));
	/* Names that merely start with dots are ordinary. */
	char *p = profile(WARDEN_MODE_WORKSPACE_WRITE, "/w/.../..x/.git", NULL);
	free(p);
}

static void test_danger_full_access_and_unknown_modes_are_refused(void **state)
{
	(void)state;
	assert_null(profile(0, "/w", NULL));
	assert_null(profile(3, "/w", NULL));
	assert_non_null(strstr(err, "not a confining mode"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_only_allows_writes_to_dev_null_only),
		cmocka_unit_test(test_workspace_write_adds_root_private_tmp_and_user_tmp),
		cmocka_unit_test(test_workspace_write_without_user_tmp_omits_it),
		cmocka_unit_test(test_quote_and_backslash_are_escaped),
		cmocka_unit_test(test_utf8_and_spaces_pass_unchanged),
		cmocka_unit_test(test_control_characters_are_refused),
		cmocka_unit_test(test_non_canonical_or_relative_paths_are_refused),
		cmocka_unit_test(test_danger_full_access_and_unknown_modes_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
