/* Tests of the command's temp area (host/scratch.c): a session's area kept,
 * a run's area removed without following links, and a base directory that
 * is not the user's alone refused. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"

#define DEEP 100

static char tbase[64];          /* the test's own base, like /tmp */
static char base[96];           /* tbase/warden-UID */

static void make_base_name(void)
{
	snprintf(base, sizeof(base), "%s/warden-%lu", tbase,
	         (unsigned long)geteuid());
}

/* A session id of this process: "test-scratch-PID-tag". */
static const char *session_id(const char *tag)
{
	static char id[4][64];
	static int next;
	char *p = id[next++ % 4];

	snprintf(p, sizeof(id[0]), "test-scratch-%ld-%s", (long)getpid(), tag);
	return p;
}

/* Removes name in the base (a session's area this test made). */
static void remove_area(const char *name)
{
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		(void)warden_scratch_remove_tree(fd, name, DEEP * 2);
		close(fd);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void assert_file_holds(const char *path, const char *text)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, text);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* A directory outside the base, with a file in it, for links to point at. */
static void make_outside(char dir[PATH_MAX], char file[PATH_MAX])
{
	snprintf(dir, PATH_MAX, "%s/test-scratch-outside-XXXXXX", tbase);
	assert_non_null(mkdtemp(dir));
	snprintf(file, PATH_MAX, "%s/keep", dir);
	write_file(file, "kept\n");
}

static void remove_outside(const char *dir, const char *file)
{
	(void)unlink(file);
	(void)rmdir(dir);
}

/* A chain of depth directories "d/d/d/..." below the open directory fd. */
static void make_chain(int fd, int depth)
{
	int i, next;

	fd = dup(fd);
	assert_true(fd >= 0);
	for (i = 0; i < depth; i++) {
		assert_int_equal(mkdirat(fd, "d", 0700), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		assert_true(next >= 0);
		close(fd);
		fd = next;
	}
	assert_int_equal(close(fd), 0);
}

static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* ------------------------------------------------------------ sessions */

static void test_session_area_is_its_id_in_the_users_base_with_mode_0700(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	const char *id = session_id("a");
	char want[PATH_MAX];
	struct stat st;

	(void)unused;
	assert_int_equal(warden_scratch_open(&s, id, &err), 0);
	snprintf(want, sizeof(want), "%s/%s", base, id);
	assert_string_equal(s.dir, want);
	assert_string_equal(s.parent, base);
	assert_true(s.fd >= 0);
	assert_int_equal(s.per_run, 0);
	assert_int_equal(lstat(s.dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(lstat(base, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	warden_scratch_close(&s);
	assert_int_equal(s.fd, -1);
	assert_string_equal(s.dir, "");
	/* a session's area outlives the run */
	assert_int_equal(lstat(want, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	remove_area(id);
	assert_false(exists(want));
}

static void test_session_area_opened_again_is_the_same_directory(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	const char *id = session_id("b");
	char dir[PATH_MAX], file[PATH_MAX + 8];
	struct stat first, again;

	(void)unused;
	assert_int_equal(warden_scratch_open(&s, id, &err), 0);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	assert_int_equal(fstat(s.fd, &first), 0);
	snprintf(file, sizeof(file), "%s/note", dir);
	write_file(file, "from the first run\n");
	warden_scratch_close(&s);

	assert_int_equal(warden_scratch_open(&s, id, &err), 0);
	assert_string_equal(s.dir, dir);
	assert_int_equal(fstat(s.fd, &again), 0);
	assert_int_equal(first.st_dev, again.st_dev);
	assert_int_equal(first.st_ino, again.st_ino);
	assert_file_holds(file, "from the first run\n");
	warden_scratch_close(&s);
	/* closing twice, and closing what was never opened, is harmless */
	warden_scratch_close(&s);
	warden_scratch_init(&s);
	warden_scratch_close(&s);
	assert_file_holds(file, "from the first run\n");
	remove_area(id);
	assert_false(exists(dir));
}

/* ---------------------------------------------------------------- runs */

static void test_run_area_is_fresh_mode_0700_and_removed_by_close(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	char dir[PATH_MAX], file[PATH_MAX + 8], prefix[PATH_MAX + 8];
	struct stat st;

	(void)unused;
	assert_int_equal(warden_scratch_open(&s, NULL, &err), 0);
	assert_int_equal(s.per_run, 1);
	assert_true(s.fd >= 0);
	assert_string_equal(s.parent, base);
	snprintf(prefix, sizeof(prefix), "%s/run+", base);
	assert_memory_equal(s.dir, prefix, strlen(prefix));
	assert_int_equal(strlen(s.dir), strlen(prefix) + 8);
	assert_int_equal(lstat(s.dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	snprintf(file, sizeof(file), "%s/out", dir);
	write_file(file, "x");
	warden_scratch_close(&s);
	assert_int_equal(s.fd, -1);
	assert_int_equal(s.per_run, 0);
	assert_false(exists(dir));

	/* an empty session id is a run without a session */
	assert_int_equal(warden_scratch_open(&s, "", &err), 0);
	assert_int_equal(s.per_run, 1);
	assert_memory_equal(s.dir, prefix, strlen(prefix));
	snprintf(dir, sizeof(dir), "%s", s.dir);
	warden_scratch_close(&s);
	assert_false(exists(dir));
}

static void test_two_run_areas_differ(void **unused)
{
	struct warden_scratch a, b;
	struct warden_error err = { 0 };
	char da[PATH_MAX], db[PATH_MAX];

	(void)unused;
	assert_int_equal(warden_scratch_open(&a, NULL, &err), 0);
	assert_int_equal(warden_scratch_open(&b, NULL, &err), 0);
	assert_string_not_equal(a.dir, b.dir);
	snprintf(da, sizeof(da), "%s", a.dir);
	snprintf(db, sizeof(db), "%s", b.dir);
	/* closing one leaves the other */
	warden_scratch_close(&a);
	assert_false(exists(da));
	assert_true(exists(db));
	warden_scratch_close(&b);
	assert_false(exists(db));
}

static void test_run_area_close_removes_links_without_following_them(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	char dir[PATH_MAX], outside[PATH_MAX], keep[PATH_MAX], sub[PATH_MAX + 8];
	int fd, subfd;

	(void)unused;
	make_outside(outside, keep);
	assert_int_equal(warden_scratch_open(&s, NULL, &err), 0);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	fd = open_dir(dir);
	/* links to the outside directory, to its file, and a dangling one,
	 * at the top and inside a subdirectory */
	assert_int_equal(symlinkat(outside, fd, "dirlink"), 0);
	assert_int_equal(symlinkat(keep, fd, "filelink"), 0);
	assert_int_equal(symlinkat("/nonexistent/warden", fd, "dangling"), 0);
	assert_int_equal(mkdirat(fd, "sub", 0700), 0);
	subfd = openat(fd, "sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(subfd >= 0);
	assert_int_equal(symlinkat(outside, subfd, "up"), 0);
	assert_int_equal(symlinkat("..", subfd, "parent"), 0);
	close(subfd);
	close(fd);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_true(exists(sub));

	warden_scratch_close(&s);
	assert_false(exists(dir));
	/* what the links pointed at is untouched */
	assert_true(exists(outside));
	assert_file_holds(keep, "kept\n");
	remove_outside(outside, keep);
}

static void test_run_area_close_removes_a_directory_of_mode_000(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	char dir[PATH_MAX];
	int fd, lockfd;

	(void)unused;
	assert_int_equal(warden_scratch_open(&s, NULL, &err), 0);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	fd = open_dir(dir);
	assert_int_equal(mkdirat(fd, "locked", 0700), 0);
	lockfd = openat(fd, "locked", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(lockfd >= 0);
	assert_int_equal(mkdirat(lockfd, "inner", 0700), 0);
	close(openat(lockfd, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	close(lockfd);
	assert_int_equal(fchmodat(fd, "locked", 0, 0), 0);
	/* and a run area the command made read-only itself */
	assert_int_equal(mkdirat(fd, "empty-locked", 0), 0);
	close(fd);
	warden_scratch_close(&s);
	assert_false(exists(dir));
}

/* The same as an unprivileged user, for whom mode 000 really locks: run in
 * a child as nobody when the tests run as root. */
static void test_run_area_close_removes_a_directory_of_mode_000_unprivileged(void **unused)
{
	char other[PATH_MAX];
	int existed, status;
	pid_t pid;

	(void)unused;
	if (geteuid() != 0) {
		print_message("skipped: not root, so no child as nobody; "
		              "test_run_area_close_removes_a_directory_of_mode_000 "
		              "has just run unprivileged\n");
		skip();
	}
	snprintf(other, sizeof(other), "%s/warden-65534", tbase);
	existed = exists(other);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct warden_scratch s;
		struct warden_error err = { 0 };
		char dir[PATH_MAX];
		int fd;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		if (warden_scratch_open(&s, NULL, &err) < 0 || s.dir[0] == '\0')
			_exit(4);
		snprintf(dir, sizeof(dir), "%s", s.dir);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || mkdirat(fd, "locked", 0700) < 0 ||
		    mkdirat(fd, "locked/inner", 0700) < 0 ||
		    fchmodat(fd, "locked", 0, 0) < 0)
			_exit(5);
		close(fd);
		warden_scratch_close(&s);
		_exit(exists(dir) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!existed) {
		int fd = open(tbase, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		assert_true(fd >= 0);
		(void)warden_scratch_remove_tree(fd, other + strlen(tbase) + 1, 8);
		close(fd);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Known to fail: warden_scratch_close() removes with max_depth 64, so a
 * chain of 64 directories or more in a run's area leaves the whole area. */
static void test_run_area_close_removes_a_100_deep_chain(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	char dir[PATH_MAX];
	int fd, left;

	(void)unused;
	assert_int_equal(warden_scratch_open(&s, NULL, &err), 0);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	fd = open_dir(dir);
	make_chain(fd, DEEP);
	close(fd);
	warden_scratch_close(&s);
	left = exists(dir);
	if (left)
		remove_area(strrchr(dir, '/') + 1);
	assert_false(left);
}

/* ------------------------------------------------------------- removal */

static void test_remove_tree_of_a_missing_name_is_success(void **unused)
{
	char name[64];
	int fd;

	(void)unused;
	snprintf(name, sizeof(name), "test-scratch-%ld-absent", (long)getpid());
	fd = open_dir(tbase);
	assert_int_equal(warden_scratch_remove_tree(fd, name, 8), 0);
	assert_int_equal(warden_scratch_remove_tree(fd, name, 0), 0);
	close(fd);
}

static void test_remove_tree_removes_a_link_and_never_its_target(void **unused)
{
	char outside[PATH_MAX], keep[PATH_MAX], name[64], link[PATH_MAX + 64];
	int fd;

	(void)unused;
	make_outside(outside, keep);
	snprintf(name, sizeof(name), "test-scratch-%ld-link", (long)getpid());
	snprintf(link, sizeof(link), "%s/%s", tbase, name);
	assert_int_equal(symlink(outside, link), 0);
	fd = open_dir(tbase);
	assert_int_equal(warden_scratch_remove_tree(fd, name, 8), 0);
	close(fd);
	assert_false(exists(link));
	assert_file_holds(keep, "kept\n");
	remove_outside(outside, keep);
}

static void test_remove_tree_leaves_what_lies_deeper_than_max_depth(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	int fd;

	(void)unused;
	assert_int_equal(warden_scratch_open(&s, session_id("deep"), &err), 0);
	fd = open_dir(s.dir);
	make_chain(fd, 5);
	errno = 0;
	assert_int_equal(warden_scratch_remove_tree(fd, "d", 2), -1);
	assert_int_not_equal(errno, 0);
	assert_int_equal(faccessat(fd, "d/d/d/d/d", F_OK, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(warden_scratch_remove_tree(fd, "d", 5), 0);
	assert_int_equal(faccessat(fd, "d", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(errno, ENOENT);
	/* a plain file needs no depth at all */
	close(openat(fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	assert_int_equal(warden_scratch_remove_tree(fd, "f", 0), 0);
	close(fd);
	warden_scratch_close(&s);
	remove_area(session_id("deep"));
}

/* ------------------------------------------------------- a base not ours */

static mode_t saved_mode;

/* Opens the real base to others; the teardown always puts the mode back. */
static int open_base_to_others(void **unused)
{
	struct stat st;

	(void)unused;
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return -1;
	if (lstat(base, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	saved_mode = st.st_mode & 07777;
	return chmod(base, 0777);
}

static int restore_base_mode(void **unused)
{
	(void)unused;
	return chmod(base, saved_mode);
}

static void test_base_open_to_others_is_refused_and_nothing_is_made(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	const char *id = session_id("open");
	char want[PATH_MAX];
	int rc;

	(void)unused;
	rc = warden_scratch_open(&s, id, &err);
	assert_int_equal(rc, -WARDEN_EREFUSED);
	assert_int_equal(err.code, WARDEN_EREFUSED);
	assert_non_null(strstr(err.msg, base));
	assert_non_null(strstr(err.msg, "777"));
	assert_int_equal(s.fd, -1);
	assert_string_equal(s.dir, "");
	snprintf(want, sizeof(want), "%s/%s", base, id);
	assert_false(exists(want));
	warden_scratch_close(&s);

	memset(&err, 0, sizeof(err));
	rc = warden_scratch_open(&s, NULL, &err);
	assert_int_equal(rc, -WARDEN_EREFUSED);
	assert_non_null(strstr(err.msg, base));
	assert_int_equal(s.fd, -1);
	assert_string_equal(s.dir, "");
	assert_int_equal(s.per_run, 0);
	warden_scratch_close(&s);
}

static char aside[256];         /* the real base, while a link stands in */
static char target[PATH_MAX];   /* where the link points */
static int swapped;

/* Puts a link to an empty directory in place of the real base, in one
 * atomic exchange (no moment without a base for other runs); the
 * teardown always exchanges them back. */
static int replace_base_by_link(void **unused)
{
	(void)unused;
	swapped = 0;
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return -1;
	snprintf(target, sizeof(target), "%s/test-scratch-target-XXXXXX",
	         tbase);
	if (mkdtemp(target) == NULL)
		return -1;
	snprintf(aside, sizeof(aside), "%s.aside-%ld", base, (long)getpid());
	if (symlink(target, aside) < 0)
		return -1;
	if (renameat2(AT_FDCWD, aside, AT_FDCWD, base, RENAME_EXCHANGE) < 0) {
		(void)unlink(aside);
		return -1;
	}
	swapped = 1;
	return 0;
}

static int restore_base(void **unused)
{
	struct stat st;
	int rc = 0;

	(void)unused;
	if (swapped) {
		if (renameat2(AT_FDCWD, aside, AT_FDCWD, base, RENAME_EXCHANGE) < 0)
			rc = -1;
		else
			swapped = 0;
	}
	if (lstat(aside, &st) == 0 && S_ISLNK(st.st_mode))
		(void)unlink(aside);
	(void)rmdir(target);
	return rc;
}

static void test_base_that_is_a_link_is_refused_and_nothing_is_made(void **unused)
{
	struct warden_scratch s;
	struct warden_error err = { 0 };
	const char *id = session_id("link");
	struct stat st;
	int rc, fd;

	(void)unused;
	assert_int_equal(lstat(base, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	rc = warden_scratch_open(&s, id, &err);
	assert_true(rc < 0);
	assert_int_equal(rc, -err.code);
	assert_non_null(strstr(err.msg, base));
	assert_int_equal(s.fd, -1);
	assert_string_equal(s.dir, "");
	warden_scratch_close(&s);

	memset(&err, 0, sizeof(err));
	rc = warden_scratch_open(&s, NULL, &err);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, base));
	assert_int_equal(s.per_run, 0);
	warden_scratch_close(&s);

	/* nothing was made through the link */
	fd = open_dir(target);
	assert_int_equal(faccessat(fd, id, F_OK, AT_SYMLINK_NOFOLLOW), -1);
	close(fd);
	assert_int_equal(rmdir(target), 0); /* fails when not empty */
	assert_int_equal(mkdir(target, 0700), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_area_is_its_id_in_the_users_base_with_mode_0700),
		cmocka_unit_test(test_session_area_opened_again_is_the_same_directory),
		cmocka_unit_test(test_run_area_is_fresh_mode_0700_and_removed_by_close),
		cmocka_unit_test(test_two_run_areas_differ),
		cmocka_unit_test(test_run_area_close_removes_links_without_following_them),
		cmocka_unit_test(test_run_area_close_removes_a_directory_of_mode_000),
		cmocka_unit_test(test_run_area_close_removes_a_directory_of_mode_000_unprivileged),
		cmocka_unit_test(test_run_area_close_removes_a_100_deep_chain),
		cmocka_unit_test(test_remove_tree_of_a_missing_name_is_success),
		cmocka_unit_test(test_remove_tree_removes_a_link_and_never_its_target),
		cmocka_unit_test(test_remove_tree_leaves_what_lies_deeper_than_max_depth),
		cmocka_unit_test_setup_teardown(test_base_open_to_others_is_refused_and_nothing_is_made,
		                                open_base_to_others, restore_base_mode),
		cmocka_unit_test_setup_teardown(test_base_that_is_a_link_is_refused_and_nothing_is_made,
		                                replace_base_by_link, restore_base),
	};

	int rc, fd;

	/* A base of the test's own (sticky and open to all, as /tmp is):
	 * what these tests do to warden-UID never meets a real run's. */
	snprintf(tbase, sizeof(tbase), "/tmp/test-scratch-base-XXXXXX");
	if (mkdtemp(tbase) == NULL || chmod(tbase, 01777) < 0)
		return 1;
	warden_scratch_base = tbase;
	make_base_name();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if ((fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)warden_scratch_remove_tree(fd, tbase + strlen("/tmp/"), 64);
		close(fd);
	}
	return rc;
}
