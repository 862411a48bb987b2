/* test_program.c — what an approved command runs, settled before asking
 * (host/program.h): the directory, the PATH and environment, the program,
 * on a real file tree with a workspace root, symbolic links into it, and
 * programs swapped after they were opened. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "program.h"

static char base[256];          /* resolved scratch directory */
static char root[300];          /* base/ws: the writable root */
static const char *roots[1];

/* base/rel into out (PATH_MAX); rel is short. */
static void path_of(char *out, const char *rel)
{
	assert_true(strlen(base) + 1 + strlen(rel) < PATH_MAX);
	strcpy(out, base);
	strcat(out, "/");
	strcat(out, rel);
}

static void write_file(const char *rel, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	FILE *f;

	path_of(p, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
}

static void make_dir(const char *rel)
{
	char p[PATH_MAX];

	path_of(p, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/warden-program-XXXXXX", p[PATH_MAX], q[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, p));
	assert_true(strlen(p) < sizeof(base));
	strcpy(base, p);
	snprintf(root, sizeof(root), "%s/ws", base);
	roots[0] = root;
	make_dir("ws");
	make_dir("ws/.venv");
	make_dir("ws/.venv/bin");
	make_dir("ws/sub");
	make_dir("out");
	make_dir("out/bin");
	write_file("ws/.venv/bin/tool", "#!/bin/sh\necho planted\n", 0755);
	write_file("out/bin/tool", "#!/bin/sh\necho outside\n", 0755);
	write_file("out/bin/plain", "not executable\n", 0644);
	write_file("ws/script", "#!./interp -x\necho hi\n", 0755);
	write_file("ws/interp", "", 0755);
	write_file("out/bin/byroot", "#!../../ws/interp\n", 0755);
	/* base/link -> ws: a PATH entry through it lies in the root. */
	path_of(p, "link");
	assert_int_equal(symlink(root, p), 0);
	/* base/out/bin/alias -> out/bin/tool */
	path_of(p, "out/bin/alias");
	path_of(q, "out/bin/tool");
	assert_int_equal(symlink(q, p), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[sizeof(base) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* A description in `dir` (relative to base) with this PATH. */
static int describe(struct warden_program *p, const char *dir, const char *path,
                    struct warden_error *err)
{
	char d[PATH_MAX], pathvar[4 * PATH_MAX];
	char *env[2] = { pathvar, NULL };

	path_of(d, dir);
	warden_program_init(p);
	assert_int_equal(warden_program_dir(p, d, root, -1, err), 0);
	snprintf(pathvar, sizeof(pathvar), "PATH=%s", path);
	/* p keeps no pointer into env but its own PATH entry. */
	return warden_program_env(p, env, NULL, 0, roots, 1, err);
}

static void test_directory_is_opened_and_named_resolved(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char want[PATH_MAX], d[PATH_MAX];

	(void)state;
	warden_program_init(&p);
	assert_int_equal(warden_program_dir(&p, NULL, root, -1, &err), 0);
	assert_string_equal(p.dir, root);
	assert_true(p.dir_fd >= 3);
	path_of(d, "link/sub/..");
	assert_int_equal(warden_program_dir(&p, d, root, -1, &err), 0);
	assert_string_equal(p.dir, root);
	path_of(d, "link/sub");
	assert_int_equal(warden_program_dir(&p, d, root, -1, &err), 0);
	snprintf(want, sizeof(want), "%s/sub", root);
	assert_string_equal(p.dir, want);
	path_of(d, "nope");
	assert_int_equal(warden_program_dir(&p, d, root, -1, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "nope"));
	path_of(d, "out/bin/tool");
	assert_int_equal(warden_program_dir(&p, d, root, -1, &err), -WARDEN_EUSAGE);
	warden_program_free(&p);
}

static void test_path_loses_empty_relative_and_root_entries(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char path[4 * PATH_MAX], want[4 * PATH_MAX];

	(void)state;
	/* kept: out/bin, /usr/bin, and a path that leaves the root lexically;
	 * dropped: the root's .venv/bin, "", ".", a relative one, one through
	 * the link into the root (existing or not), one not there yet under
	 * the root. */
	snprintf(path, sizeof(path),
	         "%s/.venv/bin::%s/out/bin:.:bin:%s/link/sub:%s/link/later/bin:%s/new/bin:/usr/bin:%s/../out",
	         root, base, base, base, root, root);
	assert_int_equal(describe(&p, "ws", path, &err), 0);
	snprintf(want, sizeof(want), "%s/out/bin:/usr/bin:%s/../out", base, root);
	assert_string_equal(warden_program_path_value(&p), want);
	assert_int_equal(p.n_path_dropped, 7);
	snprintf(want, sizeof(want), "%s/.venv/bin", root);
	assert_string_equal(p.path_dropped[0], want);
	assert_string_equal(p.path_dropped[1], "");
	assert_string_equal(p.path_dropped[2], ".");
	assert_string_equal(p.path_dropped[3], "bin");
	snprintf(want, sizeof(want), "%s/link/later/bin", base);
	assert_string_equal(p.path_dropped[5], want);
	warden_program_free(&p);
}

static void test_no_path_entry_left_is_refused(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/.venv/bin:.", root);
	assert_int_equal(describe(&p, "ws", path, &err), -WARDEN_EREFUSED);
	assert_non_null(strstr(err.msg, "no PATH entry is left"));
	warden_program_free(&p);
}

static void test_environment_loses_startup_names_and_lists_them(void **state)
{
	static char *env[] = { "PATH=/usr/bin", "BASH_ENV=/x", "HOME=/root",
	                       "BASH_FUNC_git%%=() { :; }", "LD_AUDIT=/a.so",
	                       "PYTHONPATH=/p", "GITHUB_TOKEN=t", "PWD=/elsewhere",
	                       NULL };
	static const char *const scrub[] = { "*TOKEN*" };
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char want[PATH_MAX + 8];
	size_t i;
	int saw_home = 0, saw_path = 0, saw_pwd = 0;

	(void)state;
	warden_program_init(&p);
	path_of(want, "ws/sub");
	assert_int_equal(warden_program_dir(&p, want, root, -1, &err), 0);
	assert_int_equal(warden_program_env(&p, env, scrub, 1, roots, 1, &err), 0);
	assert_int_equal(p.n_env_removed, 4);
	assert_string_equal(p.env_removed[0], "BASH_ENV");
	assert_string_equal(p.env_removed[1], "BASH_FUNC_git%%");
	assert_string_equal(p.env_removed[2], "LD_AUDIT");
	assert_string_equal(p.env_removed[3], "PYTHONPATH");
	snprintf(want, sizeof(want), "PWD=%s/sub", root);
	for (i = 0; p.envp[i] != NULL; i++) {
		assert_null(strstr(p.envp[i], "TOKEN"));
		assert_null(strstr(p.envp[i], "BASH_ENV"));
		saw_home += strcmp(p.envp[i], "HOME=/root") == 0;
		saw_path += strcmp(p.envp[i], "PATH=/usr/bin") == 0;
		saw_pwd += strcmp(p.envp[i], want) == 0;
		assert_true(strncmp(p.envp[i], "PWD=", 4) != 0 || strcmp(p.envp[i], want) == 0);
	}
	assert_int_equal(saw_home, 1);
	assert_int_equal(saw_path, 1);
	assert_int_equal(saw_pwd, 1);
	warden_program_free(&p);
}

static void test_program_is_found_outside_the_root_and_resolved(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char path[2 * PATH_MAX], want[PATH_MAX], why[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/.venv/bin:%s/out/bin", root, base);
	assert_int_equal(describe(&p, "ws", path, &err), 0);
	assert_int_equal(warden_program_open(&p, "tool", roots, 1, why, sizeof(why), &err), 0);
	path_of(want, "out/bin/tool");
	assert_string_equal(p.path, want);
	assert_int_equal(p.writable, 0);
	assert_true(p.exec_fd >= 3);
	assert_int_equal(p.script, 1);
	assert_non_null(realpath("/bin/sh", want));
	assert_string_equal(p.interpreter, want);
	path_of(want, "out/bin/tool");
	warden_program_free(&p);

	/* Through a symbolic link: the file it leads to. */
	assert_int_equal(describe(&p, "ws", path, &err), 0);
	assert_int_equal(warden_program_open(&p, "alias", roots, 1, why, sizeof(why), &err), 0);
	assert_string_equal(p.path, want);
	warden_program_free(&p);
}

static void test_missing_and_unexecutable_programs_are_127_and_126(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char path[PATH_MAX], why[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/out/bin", base);
	assert_int_equal(describe(&p, "ws", path, &err), 0);
	assert_int_equal(warden_program_open(&p, "nothing", roots, 1, why, sizeof(why), &err),
	                 WARDEN_PROGRAM_NOT_FOUND);
	assert_non_null(strstr(why, "nothing: command not found"));
	assert_int_equal(warden_program_open(&p, "plain", roots, 1, why, sizeof(why), &err),
	                 WARDEN_PROGRAM_CANNOT_EXEC);
	assert_int_equal(warden_program_open(&p, "./sub", roots, 1, why, sizeof(why), &err),
	                 WARDEN_PROGRAM_CANNOT_EXEC);
	assert_int_equal(warden_program_open(&p, "./none", roots, 1, why, sizeof(why), &err),
	                 WARDEN_PROGRAM_NOT_FOUND);
	assert_int_equal(p.exec_fd, -1);
	warden_program_free(&p);
}

static void test_program_in_the_root_is_flagged_and_runs_from_a_sealed_copy(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char want[PATH_MAX], link[64], name[PATH_MAX], buf[64], why[512];
	ssize_t n;

	(void)state;
	assert_int_equal(describe(&p, "ws/sub", "/usr/bin", &err), 0);
	assert_int_equal(warden_program_open(&p, "../script", roots, 1, why, sizeof(why), &err), 0);
	snprintf(want, sizeof(want), "%s/script", root);
	assert_string_equal(p.path, want);
	assert_int_equal(p.writable, 1);
	/* A relative interpreter is the kernel's: relative to the directory
	 * the command runs in (ws/sub has none: named, not resolved). */
	snprintf(want, sizeof(want), "%s/sub/interp", root);
	assert_string_equal(p.interpreter, want);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", p.exec_fd);
	n = readlink(link, name, sizeof(name) - 1);
	assert_true(n > 0);
	name[n] = '\0';
	assert_non_null(strstr(name, "memfd:"));
	/* Rewriting the file changes nothing in the copy, and the copy cannot
	 * be written. */
	write_file("ws/script", "#!/bin/sh\necho swapped\n", 0755);
	n = pread(p.exec_fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "#!./interp -x\necho hi\n");
	assert_int_equal(fcntl(p.exec_fd, F_GET_SEALS) & F_SEAL_WRITE, F_SEAL_WRITE);
	write_file("ws/script", "#!./interp -x\necho hi\n", 0755);
	warden_program_free(&p);
}

static void test_interpreter_under_the_root_flags_a_program_outside(void **state)
{
	struct warden_program p;
	struct warden_error err = { 0, "" };
	char path[PATH_MAX], want[PATH_MAX], why[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/out/bin", base);
	assert_int_equal(describe(&p, "out/bin", path, &err), 0);
	assert_int_equal(warden_program_open(&p, "byroot", roots, 1, why, sizeof(why), &err), 0);
	snprintf(want, sizeof(want), "%s/interp", root);
	assert_string_equal(p.interpreter, want);
	assert_int_equal(p.writable, 1);
	/* The program itself is outside: run by its descriptor, not copied. */
	path_of(want, "out/bin/byroot");
	assert_string_equal(p.path, want);
	warden_program_free(&p);
}

static void test_path_under(void **state)
{
	(void)state;
	assert_true(warden_path_under("/srv/ws", "/srv/ws"));
	assert_true(warden_path_under("/srv/ws/a", "/srv/ws"));
	assert_false(warden_path_under("/srv/wsx", "/srv/ws"));
	assert_false(warden_path_under("/srv", "/srv/ws"));
	assert_true(warden_path_under("/anything", "/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_directory_is_opened_and_named_resolved),
		cmocka_unit_test(test_path_loses_empty_relative_and_root_entries),
		cmocka_unit_test(test_no_path_entry_left_is_refused),
		cmocka_unit_test(test_environment_loses_startup_names_and_lists_them),
		cmocka_unit_test(test_program_is_found_outside_the_root_and_resolved),
		cmocka_unit_test(test_missing_and_unexecutable_programs_are_127_and_126),
		cmocka_unit_test(test_program_in_the_root_is_flagged_and_runs_from_a_sealed_copy),
		cmocka_unit_test(test_interpreter_under_the_root_flags_a_program_outside),
		cmocka_unit_test(test_path_under),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
