/* test_env.c — which environment names reach a command of `warden run`. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
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

static void test_warden_own_names_never_reach_a_command(void **state)
{
	char *env[] = { "WARDEN_SESSION=s1", "WARDEN_CONFIG=/ws/warden.ini",
	                "WARDEN_=x", "WARDEN_ANYTHING_ELSE=y", "PATH=/bin",
	                "XWARDEN_SESSION=kept", "warden_session=kept", NULL };
	struct warden_error err;
	char **out;
	int runner;

	(void)state;
	/* Even with scrubbing configured off (no patterns), confined or not. */
	for (runner = 0; runner < 2; runner++) {
		assert_int_equal(warden_env_build(env, NULL, 0, runner, &out, &err), 0);
		assert_string_equal(out[0], "PATH=/bin");
		assert_string_equal(out[1], "XWARDEN_SESSION=kept");
		assert_string_equal(out[2], "warden_session=kept");
		assert_null(out[3]);
		free(out);
	}
}

static void test_approved_environment_loses_startup_names_and_lists_them(void **state)
{
	char *env[] = { "LD_PRELOAD=/x.so", "BASH_ENV=/e", "ENV=/f", "HOME=/h",
	                "PATH=/caller", "NODE_OPTIONS=--require /r.js",
	                "GITHUB_TOKEN=t", "PWD=/old", "bash_func_ls%%=x",
	                "WARDEN_SESSION=s1", "PIP_INDEX_URL=http://x", NULL };
	static const char *const scrub[] = { "*TOKEN*" };
	struct warden_env_approved a = { "PATH=/usr/bin", "PWD=/ws", NULL, NULL, NULL };
	struct warden_env_changes ch;
	struct warden_error err;
	char **out;

	(void)state;
	assert_int_equal(warden_env_build_approved(env, scrub, 1, &a, &ch, &out, &err), 0);
	assert_string_equal(out[0], "HOME=/h");
	assert_string_equal(out[1], "PATH=/usr/bin");
	assert_string_equal(out[2], "PWD=/ws");
	assert_null(out[3]);
	/* The scrubbed credential and warden's own name are not listed: only
	 * what runs code. */
	assert_int_equal(ch.n_removed, 6);
	assert_string_equal(ch.removed[0], "LD_PRELOAD");
	assert_string_equal(ch.removed[1], "BASH_ENV");
	assert_string_equal(ch.removed[2], "ENV");
	assert_string_equal(ch.removed[3], "NODE_OPTIONS");
	assert_string_equal(ch.removed[4], "bash_func_ls%%");
	assert_string_equal(ch.removed[5], "PIP_INDEX_URL");
	/* With no judge, every location name is kept, and shown. */
	assert_int_equal(ch.n_config, 1);
	assert_string_equal(ch.config[0], "HOME=/h");
	free(out);
	warden_env_changes_free(&ch);
}

/* The judge of the test below: nothing under /ws. */
static int outside_ws(const char *value, void *arg)
{
	(void)arg;
	return strstr(value, "/ws") == NULL;
}

static void test_approved_environment_resets_home_and_judges_locations(void **state)
{
	char *env[] = { "HOME=/ws/h", "XDG_CONFIG_HOME=/ws/cfg", "LANG=C",
	                "CARGO_HOME=/opt/cargo", "XDG_DATA_DIRS=/usr/share:/ws/d",
	                "KUBECONFIG_TOKEN=x", NULL };
	static const char *const scrub[] = { "*TOKEN*" };
	struct warden_env_approved a = { "PATH=/usr/bin", NULL, "HOME=/home/u",
	                                 outside_ws, NULL };
	struct warden_env_changes ch;
	struct warden_error err;
	char **out;

	(void)state;
	assert_int_equal(warden_env_build_approved(env, scrub, 1, &a, &ch, &out, &err), 0);
	assert_string_equal(out[0], "LANG=C");
	assert_string_equal(out[1], "CARGO_HOME=/opt/cargo");
	assert_string_equal(out[2], "HOME=/home/u");
	assert_string_equal(out[3], "PATH=/usr/bin");
	assert_null(out[4]);
	assert_int_equal(ch.n_removed, 3);
	assert_string_equal(ch.removed[0], "HOME");
	assert_string_equal(ch.removed[1], "XDG_CONFIG_HOME");
	assert_string_equal(ch.removed[2], "XDG_DATA_DIRS");
	assert_int_equal(ch.n_config, 2);
	assert_string_equal(ch.config[0], "HOME=/home/u");
	assert_string_equal(ch.config[1], "CARGO_HOME=/opt/cargo");
	free(out);
	warden_env_changes_free(&ch);
}

static void test_approved_home_equal_to_the_users_is_no_change(void **state)
{
	char *env[] = { "HOME=/home/u", NULL };
	struct warden_env_approved a = { NULL, NULL, "HOME=/home/u", outside_ws, NULL };
	struct warden_env_changes ch;
	struct warden_error err;
	char **out;

	(void)state;
	assert_int_equal(warden_env_build_approved(env, NULL, 0, &a, &ch, &out, &err), 0);
	assert_string_equal(out[0], "HOME=/home/u");
	assert_null(out[1]);
	assert_int_equal(ch.n_removed, 0);
	assert_int_equal(ch.n_config, 1);
	free(out);
	warden_env_changes_free(&ch);
}

static void test_env_set_replaces_every_entry_of_the_name(void **state)
{
	char *env[] = { "PWD=/a", "HOME=/h", "PWD=/b", NULL };
	struct warden_error err;
	char **out;

	(void)state;
	assert_int_equal(warden_env_build(env, NULL, 0, 0, &out, &err), 0);
	assert_int_equal(warden_env_set(&out, "PWD=/ws", &err), 0);
	assert_string_equal(out[0], "HOME=/h");
	assert_string_equal(out[1], "PWD=/ws");
	assert_null(out[2]);
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

static void test_scrub_env_config_extends_or_replaces_or_disables(void **state)
{
	struct warden_config *cfg;
	struct warden_error err;
	const char **pat;
	size_t n;

	(void)state;
	assert_int_equal(warden_config_parse("[warden]\nscrub_env = default MY_*\n",
	                                     "/tmp/w.ini", &cfg, &err), 0);
	assert_int_equal(warden_env_patterns(cfg, &pat, &n, &err), 0);
	assert_int_equal(n, n_default() + 1);
	assert_true(warden_env_name_matches("GITHUB_TOKEN", pat, n));
	assert_true(warden_env_name_matches("my_thing", pat, n));
	free(pat);
	warden_config_free(cfg);

	assert_int_equal(warden_config_parse("[warden]\nscrub_env = MY_*\n",
	                                     "/tmp/w.ini", &cfg, &err), 0);
	assert_int_equal(warden_env_patterns(cfg, &pat, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_false(warden_env_name_matches("GITHUB_TOKEN", pat, n));
	free(pat);
	warden_config_free(cfg);

	assert_int_equal(warden_config_parse("[warden]\nscrub_env = none\n",
	                                     "/tmp/w.ini", &cfg, &err), 0);
	assert_int_equal(warden_env_patterns(cfg, &pat, &n, &err), 0);
	assert_int_equal(n, 0);
	free(pat);
	warden_config_free(cfg);

	assert_int_equal(warden_config_parse("[warden]\n", "/tmp/w.ini", &cfg,
	                                     &err), 0);
	assert_int_equal(warden_env_patterns(cfg, &pat, &n, &err), 0);
	assert_int_equal(n, n_default());
	free(pat);
	warden_config_free(cfg);
}

static void test_bad_run_keys_are_config_errors_naming_the_line(void **state)
{
	struct warden_config *cfg = NULL;
	struct warden_error err;

	(void)state;
	assert_int_equal(warden_config_parse("[warden]\nscrub_env = none X_*\n",
	                                     "/tmp/w.ini", &cfg, &err),
	                 -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "/tmp/w.ini:2:"));
	assert_int_equal(warden_config_parse("[warden]\nshell = bin/bash\n",
	                                     "/tmp/w.ini", &cfg, &err),
	                 -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "shell"));
	assert_int_equal(warden_config_parse("[warden]\nshell = bash -e\n",
	                                     "/tmp/w.ini", &cfg, &err),
	                 -WARDEN_ECONFIG);
	assert_int_equal(warden_config_parse("[warden]\nshell = /bin/dash\n",
	                                     "/tmp/w.ini", &cfg, &err), 0);
	assert_string_equal(cfg->shell, "/bin/dash");
	warden_config_free(cfg);
}

/* The quick matcher answers exactly as fnmatch(3) with FNM_CASEFOLD, for
 * every pattern shape (its own and the ones it hands to fnmatch), over
 * random names and patterns from an alphabet of the troublesome bytes. */
static void test_matching_is_fnmatch_exactly(void **state)
{
	static const char alpha[] = { 'a', 'A', 'k', 'K', '_', '*', '?', '.',
	                              '/', '[', ']', '\\', (char)0xc3, 'z' };
	unsigned seed = 12345;
	char pat[8], name[10];
	size_t i, j, pl, nl;

	(void)state;
	for (i = 0; i < 200000; i++) {
		const char *one[1];

		seed = seed * 1103515245u + 12345u;
		pl = (seed >> 16) % 7;
		for (j = 0; j < pl; j++) {
			seed = seed * 1103515245u + 12345u;
			pat[j] = alpha[(seed >> 16) % sizeof(alpha)];
		}
		pat[pl] = '\0';
		seed = seed * 1103515245u + 12345u;
		nl = (seed >> 16) % 9;
		for (j = 0; j < nl; j++) {
			seed = seed * 1103515245u + 12345u;
			/* names: no '*' or '?' wildcards matter, but keep them */
			name[j] = alpha[(seed >> 16) % sizeof(alpha)];
		}
		name[nl] = '\0';
		one[0] = pat;
		if (warden_env_name_matches(name, one, 1) !=
		    (fnmatch(pat, name, FNM_CASEFOLD) == 0))
			fail_msg("pattern '%s' name '%s': %d, fnmatch says %d", pat,
			         name, warden_env_name_matches(name, one, 1),
			         fnmatch(pat, name, FNM_CASEFOLD) == 0);
	}
	{
		/* The shapes the defaults use, by hand. */
		const char *sub[] = { "*token*" }, *suf[] = { "*_KEY" },
		           *pre[] = { "aws_*" }, *lit[] = { "SSH_AUTH_SOCK" },
		           *all[] = { "*" }, *none[] = { "" };

		assert_true(warden_env_name_matches("MY_ToKeN_X", sub, 1));
		assert_true(warden_env_name_matches("TOKEN", sub, 1));
		assert_false(warden_env_name_matches("TOKE", sub, 1));
		assert_true(warden_env_name_matches("deploy_key", suf, 1));
		assert_false(warden_env_name_matches("_KEYS", suf, 1));
		assert_true(warden_env_name_matches("AWS_X", pre, 1));
		assert_false(warden_env_name_matches("XAWS_", pre, 1));
		assert_true(warden_env_name_matches("ssh_auth_sock", lit, 1));
		assert_false(warden_env_name_matches("SSH_AUTH_SOCKX", lit, 1));
		assert_true(warden_env_name_matches("", all, 1));
		assert_true(warden_env_name_matches("", none, 1));
		assert_false(warden_env_name_matches("A", none, 1));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_patterns_scrub_credentials_case_insensitively),
		cmocka_unit_test(test_ordinary_names_pass),
		cmocka_unit_test(test_matching_is_fnmatch_exactly),
		cmocka_unit_test(test_runner_environment_loses_loader_variables_only),
		cmocka_unit_test(test_warden_own_names_never_reach_a_command),
		cmocka_unit_test(test_configured_patterns_replace_the_default),
		cmocka_unit_test(test_approved_environment_loses_startup_names_and_lists_them),
		cmocka_unit_test(test_approved_environment_resets_home_and_judges_locations),
		cmocka_unit_test(test_approved_home_equal_to_the_users_is_no_change),
		cmocka_unit_test(test_env_set_replaces_every_entry_of_the_name),
		cmocka_unit_test(test_scrub_env_config_extends_or_replaces_or_disables),
		cmocka_unit_test(test_bad_run_keys_are_config_errors_naming_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
