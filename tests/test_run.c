/* test_run.c — the consumer's own parsing: which path a denied run's
 * stderr line names (the agent's denial text is built from it), with the
 * lines real programs print and hostile ones. */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run.h"

static void expect_path(const char *line, const char *want)
{
	char out[PATH_MAX];

	assert_int_equal(warden_run_denied_path(line, out), 0);
	assert_string_equal(out, want);
}

static void expect_none(const char *line)
{
	char out[PATH_MAX];

	assert_int_equal(warden_run_denied_path(line, out), -1);
}

static void test_paths_of_the_lines_programs_print(void **state)
{
	(void)state;
	expect_path("bash: line 1: /srv/p/file: Read-only file system", "/srv/p/file");
	expect_path("sh: 1: cannot create /etc/motd: Read-only file system", "/etc/motd");
	expect_path("touch: cannot touch '/a b/c': Permission denied", "/a b/c");
	expect_path("mkdir: cannot create directory \xe2\x80\x98/x/y\xe2\x80\x99: Read-only file system",
	            "/x/y");
	expect_path("cp: cannot create regular file \"/q\": Permission denied", "/q");
	expect_path("rm: cannot remove `/old': Permission denied", "/old");
	expect_path("sed: couldn't open temporary file /etc/sedXYZ: Read-only file system",
	            "/etc/sedXYZ");
}

static void test_paths_are_normalised_and_relative_ones_anchored(void **state)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];

	(void)state;
	expect_path("bash: /srv//p/./a/../b: Read-only file system", "/srv/p/b");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/rel/x", strcmp(cwd, "/") == 0 ? "" : cwd);
	expect_path("touch: cannot touch 'rel/x': Read-only file system", want);
}

static void test_lines_without_a_path_name_none(void **state)
{
	char big[PATH_MAX * 2];

	(void)state;
	expect_none("");
	expect_none("Read-only file system");
	expect_none("error: Permission denied");
	expect_none("touch: cannot touch '': Read-only file system");
	expect_none("quote never closed '/a/b: Read-only file system");
	expect_none("x: \xe2\x80\x98/never closed: Permission denied");
	/* A path longer than PATH_MAX is none, never a cut one. */
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	expect_none(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_of_the_lines_programs_print),
		cmocka_unit_test(test_paths_are_normalised_and_relative_ones_anchored),
		cmocka_unit_test(test_lines_without_a_path_name_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
