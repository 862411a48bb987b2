/* test_env.c — which environment names reach a command of `warden run`. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "env.h"

static size_t n_default(void)
{
	size_t n = 0;

	while (warden_env_scrub_default[n] != NULL)
		n++;
	return n;
}

static int scrubbed(const char *name)
{
	return warden_env_name_matches(name, warden_env_scrub_default,
	                               n_default());
}

static void test_default_patterns_scrub_credentials_case_insensitively(void **state)
{
	(void)state;
	assert_true(scrubbed("GITHUB_TOKEN"));
	assert_true(scrubbed("github_token"));
	assert_true(scrubbed("OPENAI_API_KEY"));
	assert_true(scrubbed("Client_Secret"));
	assert_true(scrubbed("PGPASSWORD"));
	assert_true(scrubbed("MYSQL_PWD_PASSWD"));
	assert_true(scrubbed("AWS_SECRET_ACCESS_KEY"));
	assert_true(scrubbed("AWS_PROFILE"));
	assert_true(scrubbed("STRIPE_KEY"));
	assert_true(scrubbed("SSH_AUTH_SOCK"));
}

static void test_ordinary_names_pass(void **state)
{
	(void)state;
	assert_false(scrubbed("PATH"));
	assert_false(scrubbed("HOME"));
	assert_false(scrubbed("LANG"));
	assert_false(scrubbed("KEYBOARD_LAYOUT"));
	assert_false(scrubbed("WARDEN_SESSION"));
	assert_false(scrubbed("LD_PRELOAD"));
}

static void test_runner_environment_loses_loader_variables_only(void **state)
{
	char *env[] = { "LD_PRELOAD=/x.so", "ld_library_path=/y", "LD_AUDIT=/z",
	                "GCONV_PATH=/g", "GLIBC_TUNABLES=glibc.x=1", "PATH=/bin",
	                "BASH_ENV=/e", NULL };
	struct warden_error err;
	char **out;

	(void)state;
	assert_int_equal(warden_env_build(env, NULL, 0, 1, &out, &err), 0);
	assert_string_equal(out[0], "PATH=/bin");
	assert_string_equal(out[1], "BASH_ENV=/e");
	assert_null(out[2]);
	free(out);
	assert_int_equal(warden_env_build(env, NULL, 0, 0, &out, &err), 0);
	assert_string_equal(out[0], "LD_PRELOAD=/x.so");
	assert_string_equal(out[6], "BASH_ENV=/e");
	assert_null(out[7]);
	free(out);
}

static void test_configured_patterns_replace_the_default(void **state)
{
	static const char *const mine[] = { "FOO_*" };
	char *env[] = { "FOO_BAR=1", "GITHUB_TOKEN=t", "noequals", "=x", NULL };
	struct warden_error err;
	char **out;

	(void)state;
	assert_int_equal(warden_env_build(env, mine, 1, 0, &out, &err), 0);
	assert_string_equal(out[0], "GITHUB_TOKEN=t");
	assert_null(out[1]);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_patterns_scrub_credentials_case_insensitively),
		cmocka_unit_test(test_ordinary_names_pass),
		cmocka_unit_test(test_runner_environment_loses_loader_variables_only),
		cmocka_unit_test(test_configured_patterns_replace_the_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
