/*
 * test_loader.c — the loader against the broken-plugin zoo: real .so files
 * (tests/zoo/), real dlopen, each asserted for its exact status and reason;
 * then the filesystem trust rules on real files, directories and symlinks.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "wconfig.h"

/* snprintf that fails the test on truncation (and keeps -Wformat-truncation
 * quiet about paths it cannot size). */
static void xsnprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void xsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < len);
}

static char zoo[PATH_MAX];      /* the built zoo: tests/zoo/.libs */
static char scratch[PATH_MAX];  /* a private dir in the build tree */

static int setup(void **state)
{
	const char *top = getenv("top_builddir");

	(void)state;
	if (top == NULL || top[0] != '/') {
		fprintf(stderr, "test_loader: top_builddir must be set (run by make check)\n");
		return -1;
	}
	xsnprintf(zoo, sizeof(zoo), "%s/tests/zoo/.libs", top);
	/* Not under /tmp: a world-writable directory on the way is refused. */
	xsnprintf(scratch, sizeof(scratch), "%s/tests/zoo/scratch-XXXXXX", top);
	if (mkdtemp(scratch) == NULL || chmod(scratch, 0755) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	xsnprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

/* A config whose plugin_dir is the zoo, with `sections` appended. */
static struct warden_config *zoo_config(const char *plugin_dir, const char *sections)
{
	struct warden_config *cfg = NULL;
	struct warden_error err = { 0, "" };
	char text[4096], file[PATH_MAX + 16];

	xsnprintf(text, sizeof(text), "[warden]\nplugin_dir = %s\n%s", plugin_dir, sections);
	xsnprintf(file, sizeof(file), "%s/test.ini", scratch);
	if (warden_config_parse(text, file, &cfg, &err) != 0)
		fail_msg("test config: %s", err.msg);
	return cfg;
}

static const struct warden_config_plugin *section(const struct warden_config *cfg,
                                                  const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_answerers; i++)
		if (strcmp(cfg->answerers[i].name, name) == 0)
			return &cfg->answerers[i];
	for (i = 0; i < cfg->n_backends; i++)
		if (strcmp(cfg->backends[i].name, name) == 0)
			return &cfg->backends[i];
	fail_msg("no section %s", name);
	return NULL;
}

static void expect(const struct warden_config *cfg, const char *name, int open_it,
                   int status, const char *reason)
{
	struct warden_loaded lp;
	int rc = warden_loader_load(cfg, section(cfg, name), open_it, &lp);

	if (lp.status != status || strcmp(lp.reason, reason) != 0)
		fail_msg("[%s]: got %s '%s', want %s '%s'", name,
		         warden_load_status_name(lp.status), lp.reason,
		         warden_load_status_name(status), reason);
	assert_int_equal(rc, status == WARDEN_LOAD_LOADED ? 0 : -status);
	if (status == WARDEN_LOAD_MALFORMED || status == WARDEN_LOAD_MISSING)
		assert_null(lp.handle);
	warden_loader_unload(&lp);
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(fchmod(out, mode), 0);
	close(in);
	close(out);
}

/* ----------------------------------------------------------- the zoo */

static void test_valid_answerer_loads_opens_and_gets_its_keys(void **state)
{
	struct warden_config *cfg;
	struct warden_loaded lp;
	struct warden_request req = { .struct_size = sizeof(req), .session_id = "",
	                              .request_id = "r1", .tool = "bash",
	                              .subject = "ls", .call_id = "", .reason = "",
	                              .requested_mode = "", .cwd = "" };
	char want[PATH_MAX], reason[PATH_MAX], err[64];

	(void)state;
	cfg = zoo_config(zoo, "[answerer good]\nplugin = zoo_answerer\nisolation = process\n"
	                      "timeout_ms = 100\ndecision = rejected\n");
	assert_int_equal(warden_loader_load(cfg, &cfg->answerers[0], 1, &lp), 0);
	assert_int_equal(lp.status, WARDEN_LOAD_LOADED);
	assert_string_equal(warden_load_status_name(lp.status), "loaded");
	assert_string_equal(lp.reason, "");
	xsnprintf(reason, sizeof(reason), "%s/zoo_answerer.so", zoo);
	assert_non_null(realpath(reason, want));
	assert_string_equal(lp.path, want);
	assert_string_equal(lp.desc.name, "zoo-answerer");
	assert_string_equal(lp.desc.version, "1.0");
	assert_int_equal(lp.desc.abi_major, 1);
	assert_int_equal(lp.desc.abi_minor, WARDEN_PLUGIN_ABI_MINOR);
	assert_non_null(lp.state);
	/* The host's keys (plugin, isolation, timeout_ms) are not the plugin's. */
	assert_int_equal(lp.desc.decide(lp.state, &req, err, sizeof(err)), WARDEN_DECISION_REJECTED);
	warden_loader_unload(&lp);
	assert_null(lp.handle);
	assert_null(lp.state);
	warden_config_free(cfg);
}

static void test_valid_backend_loads_and_probes(void **state)
{
	struct warden_config *cfg;
	struct warden_loaded lp;
	struct warden_probe probe;

	(void)state;
	cfg = zoo_config(zoo, "[backend zb]\nplugin = zoo_backend\n");
	assert_int_equal(warden_loader_load(cfg, &cfg->backends[0], 1, &lp), 0);
	assert_string_equal(lp.desc.name, "zoo-backend");
	assert_int_equal(lp.desc.probe(lp.state, WARDEN_MODE_READ_ONLY, &probe), 0);
	assert_int_equal(probe.usable, 0);
	assert_int_equal(lp.desc.n_denial_signatures, 1);
	warden_loader_unload(&lp);
	warden_config_free(cfg);
}

static void test_every_broken_plugin_gets_its_exact_status_and_reason(void **state)
{
	struct warden_config *cfg;
	char sections[2048], reason[PATH_MAX + 64], small[128];

	(void)state;
	xsnprintf(sections, sizeof(sections),
	         "[answerer missing]\nplugin = zoo_nonexistent\n"
	         "[answerer nosym]\nplugin = zoo_no_symbol\n"
	         "[answerer major]\nplugin = zoo_abi_major\n"
	         "[answerer small]\nplugin = zoo_small_struct\n"
	         "[answerer nullop]\nplugin = zoo_null_op\n"
	         "[answerer wrongkind]\nplugin = zoo_backend\n"
	         "[backend wrongkind]\nplugin = zoo_answerer\n"
	         "[answerer noname]\nplugin = zoo_empty_name\n"
	         "[answerer openerr]\nplugin = zoo_open_error\n"
	         "[answerer badkey]\nplugin = zoo_answerer\nverdict = rejected\n");
	cfg = zoo_config(zoo, sections);

	xsnprintf(reason, sizeof(reason), "no such file: %s/zoo_nonexistent.so", zoo);
	expect(cfg, "missing", 1, WARDEN_LOAD_MISSING, reason);
	expect(cfg, "nosym", 1, WARDEN_LOAD_MALFORMED,
	       "no descriptor: the object exports no symbol 'warden_plugin'");
	expect(cfg, "major", 1, WARDEN_LOAD_MALFORMED, "abi 2.0, host speaks 1.x");
	xsnprintf(small, sizeof(small), "descriptor is %zu bytes, smaller than abi 1.0's %zu",
	         offsetof(struct warden_plugin, decide),
	         offsetof(struct warden_plugin, runner_rule_size));  /* the 1.0 descriptor */
	expect(cfg, "small", 1, WARDEN_LOAD_MALFORMED, small);
	expect(cfg, "nullop", 1, WARDEN_LOAD_MALFORMED, "required op decide is NULL");
	expect(cfg, "noname", 1, WARDEN_LOAD_MALFORMED, "invalid name: empty");
	expect(cfg, "openerr", 1, WARDEN_LOAD_FAILED,
	       "cannot reach the policy service of openerr");
	expect(cfg, "openerr", 0, WARDEN_LOAD_LOADED, "");
	expect(cfg, "badkey", 1, WARDEN_LOAD_FAILED,
	       "line 23: unknown key 'verdict' (allowed: decision, reason, reason_repeat, umask, exit)");
	{
		struct warden_loaded lp;

		assert_int_equal(warden_loader_load(cfg, &cfg->answerers[5], 1, &lp),
		                 -WARDEN_LOAD_MALFORMED);
		assert_string_equal(lp.reason, "kind backend does not match its section [answerer wrongkind]");
		assert_int_equal(warden_loader_load(cfg, &cfg->backends[0], 1, &lp),
		                 -WARDEN_LOAD_MALFORMED);
		assert_string_equal(lp.reason, "kind answerer does not match its section [backend wrongkind]");
	}
	warden_config_free(cfg);
}

static void test_not_an_elf_file_is_malformed(void **state)
{
	static const char text[] =
		"This is a text file named like a plugin; dlopen must refuse it\n"
		"and the loader must say so in one line, without loading anything.\n";
	struct warden_config *cfg;
	char path[PATH_MAX], sections[PATH_MAX + 64];
	int fd;

	(void)state;
	xsnprintf(path, sizeof(path), "%s/not-elf.so", scratch);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	xsnprintf(sections, sizeof(sections), "[answerer text]\nplugin = %s\n", path);
	cfg = zoo_config(zoo, sections);
	expect(cfg, "text", 1, WARDEN_LOAD_MALFORMED,
	       "not a loadable shared object: invalid ELF header");
	warden_config_free(cfg);
}

static void test_newer_minor_abi_loads_and_its_tail_is_ignored(void **state)
{
	struct warden_config *cfg;
	struct warden_loaded lp;

	(void)state;
	cfg = zoo_config(zoo, "[answerer minor]\nplugin = zoo_abi_minor\n");
	assert_int_equal(warden_loader_load(cfg, &cfg->answerers[0], 1, &lp), 0);
	assert_int_equal(lp.desc.abi_major, 1);
	assert_int_equal(lp.desc.abi_minor, WARDEN_PLUGIN_ABI_MINOR + 1);
	assert_true(lp.desc.struct_size > sizeof(struct warden_plugin));
	assert_string_equal(lp.desc.name, "abi-minor");
	assert_string_equal(lp.desc.version, "1.1");
	warden_loader_unload(&lp);
	warden_config_free(cfg);
}

static void test_open_crash_kills_an_inproc_host_with_the_signal(void **state)
{
	struct warden_config *cfg;
	struct warden_loaded lp;
	pid_t pid;
	int status;

	(void)state;
	cfg = zoo_config(zoo, "[answerer crash]\nplugin = zoo_open_crash\n");
	/* Validation alone runs none of its code: it loads. */
	assert_int_equal(warden_loader_load(cfg, &cfg->answerers[0], 0, &lp), 0);
	warden_loader_unload(&lp);
	/* open() in process takes the process down: contained only by
	 * `isolation = process`, which runs it in a worker. */
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A host has no cmocka handler that would catch the fault. */
		signal(SIGSEGV, SIG_DFL);
		warden_loader_load(cfg, &cfg->answerers[0], 1, &lp);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
	warden_config_free(cfg);
}

/* ---------------------------------------------------------- trust */

static void test_group_or_other_writable_or_foreign_plugin_file_is_refused(void **state)
{
	struct warden_config *cfg;
	char src[PATH_MAX], dst[PATH_MAX], dir[PATH_MAX], reason[2 * PATH_MAX];

	(void)state;
	xsnprintf(dir, sizeof(dir), "%s/files", scratch);
	assert_int_equal(mkdir(dir, 0755), 0);
	xsnprintf(src, sizeof(src), "%s/zoo_answerer.so", zoo);
	xsnprintf(dst, sizeof(dst), "%s/zoo_answerer.so", dir);
	cfg = zoo_config(dir, "[answerer a]\nplugin = zoo_answerer\n");

	copy_file(src, dst, 0664);
	xsnprintf(reason, sizeof(reason), "refused: file %s is writable by its group "
	         "(mode 0664; fix: chmod go-w %s)", dst, dst);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);

	assert_int_equal(chmod(dst, 0646), 0);
	xsnprintf(reason, sizeof(reason), "refused: file %s is writable by others "
	         "(mode 0646; fix: chmod go-w %s)", dst, dst);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);

	assert_int_equal(chmod(dst, 0644), 0);
	expect(cfg, "a", 1, WARDEN_LOAD_LOADED, "");

	if (geteuid() != 0)
		fail_msg("this test needs root to chown (CI runs as root)");
	assert_int_equal(chown(dst, 4242, 4242), 0);
	xsnprintf(reason, sizeof(reason), "refused: file %s is owned by uid 4242, "
	         "neither root nor you", dst);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);
	warden_config_free(cfg);
}

static void test_writable_plugin_dir_is_refused_even_sticky(void **state)
{
	struct warden_config *cfg;
	char src[PATH_MAX], dst[PATH_MAX], dir[PATH_MAX], reason[2 * PATH_MAX];

	(void)state;
	xsnprintf(dir, sizeof(dir), "%s/opendir", scratch);
	assert_int_equal(mkdir(dir, 0755), 0);
	xsnprintf(src, sizeof(src), "%s/zoo_answerer.so", zoo);
	xsnprintf(dst, sizeof(dst), "%s/zoo_answerer.so", dir);
	copy_file(src, dst, 0644);
	cfg = zoo_config(dir, "[answerer a]\nplugin = zoo_answerer\n");

	assert_int_equal(chmod(dir, 0775), 0);
	xsnprintf(reason, sizeof(reason), "refused: directory %s is writable by its "
	         "group (mode 0775; fix: chmod go-w %s)", dir, dir);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);

	assert_int_equal(chmod(dir, 01777), 0);
	xsnprintf(reason, sizeof(reason), "refused: directory %s is writable by "
	         "others (mode 1777; fix: chmod go-w %s)", dir, dir);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);
	warden_config_free(cfg);
}

static void test_sticky_ancestor_is_excused_but_its_child_is_checked(void **state)
{
	struct warden_config *cfg;
	struct warden_loaded lp;
	char sticky[PATH_MAX], dir[PATH_MAX], dst[PATH_MAX], src[PATH_MAX];
	char reason[2 * PATH_MAX];

	(void)state;
	xsnprintf(sticky, sizeof(sticky), "%s/sticky", scratch);
	xsnprintf(dir, sizeof(dir), "%s/plugins", sticky);
	assert_int_equal(mkdir(sticky, 0755), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	xsnprintf(src, sizeof(src), "%s/zoo_answerer.so", zoo);
	xsnprintf(dst, sizeof(dst), "%s/zoo_answerer.so", dir);
	copy_file(src, dst, 0644);
	cfg = zoo_config(dir, "[answerer a]\nplugin = zoo_answerer\n");

	/* Like /tmp: others may write the sticky ancestor, not replace dir. */
	assert_int_equal(warden_loader_load(cfg, &cfg->answerers[0], 0, &lp), 0);
	assert_int_equal(lp.status, WARDEN_LOAD_LOADED);
	warden_loader_unload(&lp);

	/* A stranger's directory below the sticky one is still refused. */
	assert_int_equal(chown(dir, 4242, 4242), 0);
	xsnprintf(reason, sizeof(reason), "refused: directory %s is owned by "
	         "uid 4242, neither root nor you", dir);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);

	/* A stranger's symlink in the sticky directory is theirs to repoint,
	 * even when it points somewhere trusted today. */
	{
		char link[PATH_MAX];
		struct warden_config *via;

		xsnprintf(link, sizeof(link), "%s/link", sticky);
		assert_int_equal(chown(dir, 0, 0), 0);
		assert_int_equal(symlink(dir, link), 0);
		via = zoo_config(link, "[answerer a]\nplugin = zoo_answerer\n");
		expect(via, "a", 0, WARDEN_LOAD_LOADED, "");
		assert_int_equal(lchown(link, 4242, 4242), 0);
		xsnprintf(reason, sizeof(reason), "refused: symlink %s in a sticky "
		          "directory is owned by uid 4242, neither root nor you", link);
		expect(via, "a", 0, WARDEN_LOAD_MALFORMED, reason);
		warden_config_free(via);
	}

	/* Without the sticky bit the ancestor itself is refused. */
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(chmod(sticky, 0777), 0);
	xsnprintf(reason, sizeof(reason), "refused: directory %s is writable by "
	         "others (mode 0777; fix: chmod go-w %s)", sticky, sticky);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);
	warden_config_free(cfg);
}

static void test_symlinks_load_the_checked_target_and_untrusted_links_are_refused(void **state)
{
	struct warden_config *cfg;
	struct warden_loaded lp;
	char target[PATH_MAX], dir[PATH_MAX], link[PATH_MAX], reason[2 * PATH_MAX];

	(void)state;
	xsnprintf(link, sizeof(link), "%s/zoo_answerer.so", zoo);
	assert_non_null(realpath(link, target));

	/* A link in a trusted directory: the resolved file is checked and loaded. */
	xsnprintf(dir, sizeof(dir), "%s/links", scratch);
	assert_int_equal(mkdir(dir, 0755), 0);
	xsnprintf(link, sizeof(link), "%s/linked.so", dir);
	assert_int_equal(symlink(target, link), 0);
	cfg = zoo_config(dir, "[answerer a]\nplugin = linked\n");
	assert_int_equal(warden_loader_load(cfg, &cfg->answerers[0], 1, &lp), 0);
	assert_string_equal(lp.path, target);
	warden_loader_unload(&lp);

	/* The same link in a directory anyone may write: whoever can swap the
	 * link chooses the code, so the configured path is refused too. */
	assert_int_equal(chmod(dir, 0777), 0);
	xsnprintf(reason, sizeof(reason), "refused: directory %s is writable by "
	         "others (mode 0777; fix: chmod go-w %s)", dir, dir);
	expect(cfg, "a", 1, WARDEN_LOAD_MALFORMED, reason);
	assert_int_equal(chmod(dir, 0755), 0);
	warden_config_free(cfg);

	/* A dangling link is a missing plugin. */
	xsnprintf(link, sizeof(link), "%s/dangling.so", dir);
	assert_int_equal(symlink("/nonexistent/zoo.so", link), 0);
	cfg = zoo_config(dir, "[answerer a]\nplugin = dangling\n");
	xsnprintf(reason, sizeof(reason), "no such file: %s", link);
	expect(cfg, "a", 1, WARDEN_LOAD_MISSING, reason);
	warden_config_free(cfg);
}

static void test_bare_name_never_searches_cwd_or_library_path(void **state)
{
	struct warden_config *cfg;
	char cwd[PATH_MAX], dir[PATH_MAX], reason[2 * PATH_MAX];

	(void)state;
	xsnprintf(dir, sizeof(dir), "%s/empty", scratch);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(zoo), 0);
	setenv("LD_LIBRARY_PATH", zoo, 1);
	cfg = zoo_config(dir, "[answerer a]\nplugin = zoo_answerer\n");
	xsnprintf(reason, sizeof(reason), "no such file: %s/zoo_answerer.so", dir);
	expect(cfg, "a", 1, WARDEN_LOAD_MISSING, reason);
	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(chdir(cwd), 0);
	warden_config_free(cfg);
}

static void test_relative_path_with_slash_is_refused(void **state)
{
	struct warden_config *cfg;
	struct warden_config_plugin rel;
	struct warden_loaded lp;

	(void)state;
	cfg = zoo_config(zoo, "");
	memset(&rel, 0, sizeof(rel));
	rel.kind = WARDEN_PLUGIN_ANSWERER;
	rel.name = "rel";
	rel.plugin = "zoo/.libs/zoo_answerer.so";
	assert_int_equal(warden_loader_load(cfg, &rel, 1, &lp), -WARDEN_LOAD_MALFORMED);
	assert_string_equal(lp.reason, "plugin 'zoo/.libs/zoo_answerer.so' is a relative "
	                    "path (a name with '/' must be absolute)");
	warden_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_answerer_loads_opens_and_gets_its_keys),
		cmocka_unit_test(test_valid_backend_loads_and_probes),
		cmocka_unit_test(test_every_broken_plugin_gets_its_exact_status_and_reason),
		cmocka_unit_test(test_not_an_elf_file_is_malformed),
		cmocka_unit_test(test_newer_minor_abi_loads_and_its_tail_is_ignored),
		cmocka_unit_test(test_open_crash_kills_an_inproc_host_with_the_signal),
		cmocka_unit_test(test_group_or_other_writable_or_foreign_plugin_file_is_refused),
		cmocka_unit_test(test_writable_plugin_dir_is_refused_even_sticky),
		cmocka_unit_test(test_sticky_ancestor_is_excused_but_its_child_is_checked),
		cmocka_unit_test(test_symlinks_load_the_checked_target_and_untrusted_links_are_refused),
		cmocka_unit_test(test_bare_name_never_searches_cwd_or_library_path),
		cmocka_unit_test(test_relative_path_with_slash_is_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
