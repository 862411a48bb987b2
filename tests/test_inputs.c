/* test_inputs.c — warden's own inputs are found from the config alone:
 * the config, state_dir, plugin_dir, plugins by name and by path (and the
 * symlink in front of one), runners, the exec answerer's program, its
 * interpreter and its script, the ffi library; relative values from the
 * config's directory, paths that do not exist yet resolved as far as they
 * do. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs.h"
#include "wconfig.h"

static char dir[] = "/tmp/warden-test-inputs-XXXXXX";
static char real[256];

static void put(const char *name, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%.200s", real, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
}

/* The `what` of path among in, or NULL. */
static const char *find(const struct warden_inputs *in, const char *base, const char *name)
{
	char p[PATH_MAX];
	size_t i;

	snprintf(p, sizeof(p), "%s%s", base, name);
	for (i = 0; i < in->n; i++)
		if (strcmp(in->v[i].path, p) == 0)
			return in->v[i].what;
	return NULL;
}

static void test_every_input_of_a_config_is_named(void **s)
{
	struct warden_config *cfg = NULL;
	struct warden_inputs *in = NULL;
	struct warden_error err = { 0, "" };
	char text[8192], file[PATH_MAX], p[PATH_MAX];
	size_t i, j;

	(void)s;
	put("script.py", "#!/opt/interp/python3 -u\nprint('allowed-once')\n", 0755);
	put("libpolicy.so", "", 0644);
	assert_int_equal(mkdir(strcat(strcpy(p, real), "/plugins"), 0755), 0);
	put("plugins/real.so", "", 0644);
	snprintf(file, sizeof(file), "%s/plugins/real.so", real);
	snprintf(p, sizeof(p), "%s/plugins/linked.so", real);
	assert_int_equal(symlink(file, p), 0);
	snprintf(text, sizeof(text),
	         "[warden]\n"
	         "state_dir = state/not/yet\n"
	         "plugin_dir = plugins\n"
	         "[backend b]\n"
	         "plugin = linked\n"
	         "launcher = %s/launcher\n"
	         "[backend l]\n"
	         "plugin = /nonexistent/landlock.so\n"
	         "runner = bin/run\n"
	         "[answerer e]\n"
	         "plugin = exec\n"
	         "command = script.py\n"
	         "arg = script.py\n"
	         "arg = --not-a-file\n"
	         "[answerer f]\n"
	         "plugin = ffi\n"
	         "library = libpolicy.so\n",
	         real);
	snprintf(file, sizeof(file), "%s/warden.ini", real);
	assert_int_equal(warden_config_parse(text, file, &cfg, &err), 0);
	assert_int_equal(warden_inputs_collect(cfg, &in, &err), 0);

	assert_string_equal(find(in, real, "/warden.ini"), "the config file");
	assert_string_equal(find(in, real, "/state/not/yet"), "state_dir (the session logs)");
	assert_string_equal(find(in, real, "/plugins"), "plugin_dir");
	/* The link as written and the file it resolves to. */
	assert_string_equal(find(in, real, "/plugins/linked.so"), "[backend b] plugin");
	assert_string_equal(find(in, real, "/plugins/real.so"), "[backend b] plugin");
	assert_non_null(find(in, real, "/launcher"));
	assert_non_null(find(in, "", "/nonexistent/landlock.so"));
	assert_non_null(strstr(find(in, real, "/bin/run"), "[backend l] runner"));
	assert_non_null(find(in, real, "/plugins/exec.so"));
	assert_non_null(strstr(find(in, real, "/script.py"), "[answerer e] command"));
	assert_non_null(strstr(find(in, "", "/opt/interp/python3"), "the interpreter of script.py"));
	assert_non_null(strstr(find(in, real, "/libpolicy.so"), "[answerer f] library"));
	assert_null(find(in, real, "/--not-a-file"));
	assert_non_null(find(in, "", WARDEN_LIBEXEC_DIR));
	/* No duplicates; paths for the policy match the list. */
	for (i = 0; i < in->n; i++) {
		assert_ptr_equal(in->paths[i], in->v[i].path);
		assert_true(in->v[i].path[0] == '/');
		for (j = i + 1; j < in->n; j++)
			assert_string_not_equal(in->v[i].path, in->v[j].path);
	}
	assert_null(in->paths[in->n]);
	assert_true(warden_inputs_under(file, real));
	assert_false(warden_inputs_under("/tmp/warden-test-inputs-XXXXXXother", real));
	warden_inputs_free(in);
	warden_config_free(cfg);
	unlink(p);
	snprintf(p, sizeof(p), "%s/plugins/real.so", real);
	unlink(p);
	snprintf(p, sizeof(p), "%s/plugins", real);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/script.py", real);
	unlink(p);
	snprintf(p, sizeof(p), "%s/libpolicy.so", real);
	unlink(p);
}

static void test_the_built_in_config_names_the_files_that_would_replace_it(void **s)
{
	struct warden_config *cfg = NULL;
	struct warden_inputs *in = NULL;
	struct warden_error err = { 0, "" };
	char xdg[PATH_MAX];

	(void)s;
	unsetenv("WARDEN_CONFIG");
	snprintf(xdg, sizeof(xdg), "%s/xdg", real);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	assert_int_equal(warden_config_load(NULL, &cfg, &err), 0);
	assert_int_equal(warden_inputs_collect(cfg, &in, &err), 0);
	/* Not there yet, and creating it would change the next command's
	 * config. */
	assert_non_null(find(in, real, "/xdg/warden/warden.ini"));
	warden_inputs_free(in);
	warden_config_free(cfg);
}

static int setup(void **s)
{
	(void)s;
	if (mkdtemp(dir) == NULL || realpath(dir, real) == NULL)
		return -1;
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	return rmdir(real);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_input_of_a_config_is_named),
		cmocka_unit_test(test_the_built_in_config_names_the_files_that_would_replace_it),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
