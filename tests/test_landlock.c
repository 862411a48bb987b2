/*
 * test_landlock.c — the Landlock backend through the real host: the real
 * landlock.so loaded by the loader, the real sandbox service, the real
 * runner on the real kernel, spawned as a consumer would (status pipe,
 * stderr tail), classified by the host's classifier.  Each refused write
 * is checked on the file itself.
 *
 * The partial-ABI cases use tests/landlock/fake-partial-runner (this
 * kernel has ABI 7, so the real runner never prints the notice here); the
 * real runner is tested beside it for every class.
 */
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

#include "classify.h"
#include "loader.h"
#include "sandbox.h"
#include "wconfig.h"

static char plugin[PATH_MAX];   /* the built landlock.so */
static char runner[PATH_MAX];   /* the built runner */
static char fake[PATH_MAX];     /* the partial-ABI fake */
static char scratch[PATH_MAX];  /* outside/ and ws/ live here */
static char outside[PATH_MAX];  /* scratch/outside/file */
static char ws[PATH_MAX];       /* scratch/ws: the workspace root */

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

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static int setup(void **state)
{
	const char *top = getenv("top_builddir");
	const char *src = getenv("top_srcdir");

	(void)state;
	if (top == NULL || top[0] != '/' || src == NULL || src[0] != '/') {
		fprintf(stderr, "test_landlock: top_builddir and top_srcdir must be set (run by make check)\n");
		return -1;
	}
	xsnprintf(plugin, sizeof(plugin), "%s/plugins/landlock/.libs/landlock.so", top);
	xsnprintf(runner, sizeof(runner), "%s/plugins/landlock/warden-landlock-run", top);
	xsnprintf(fake, sizeof(fake), "%s/tests/landlock/fake-partial-runner", src);
	xsnprintf(scratch, sizeof(scratch), "/tmp/warden-test-landlock-XXXXXX");
	if (mkdtemp(scratch) == NULL)
		return -1;
	xsnprintf(ws, sizeof(ws), "%s/ws", scratch);
	xsnprintf(outside, sizeof(outside), "%s/outside", scratch);
	if (mkdir(ws, 0755) < 0)
		return -1;
	write_file(outside, "original\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	xsnprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------- fixture */

struct host {
	struct warden_config *cfg;
	struct warden_loaded loaded;
	struct warden_sandbox *svc;
};

/* Loads landlock.so with `keys` (lines of its section) through the real
 * loader; returns the load status. */
static int host_open(struct host *h, const char *keys)
{
	struct warden_error err = { 0, "" };
	char text[4096];

	memset(h, 0, sizeof(*h));
	xsnprintf(text, sizeof(text), "[warden]\n[backend landlock]\nplugin = %s\n%s",
	          plugin, keys);
	assert_int_equal(warden_config_parse(text, "/test/warden.ini", &h->cfg, &err), 0);
	assert_int_equal(h->cfg->n_backends, 1);
	warden_loader_load(h->cfg, &h->cfg->backends[0], 1, &h->loaded);
	if (h->loaded.status == WARDEN_LOAD_LOADED)
		assert_int_equal(warden_sandbox_new(&h->loaded, 1, &h->svc, &err), 0);
	return h->loaded.status;
}

static void host_close(struct host *h)
{
	warden_sandbox_free(h->svc);
	warden_loader_unload(&h->loaded);
	warden_config_free(h->cfg);
}

static void host_with_runner(struct host *h, const char *path)
{
	char keys[PATH_MAX + 16];

	xsnprintf(keys, sizeof(keys), "runner = %s\n", path);
	assert_int_equal(host_open(h, keys), WARDEN_LOAD_LOADED);
}

static struct warden_confined *confine(struct host *h, int mode, int status_fd,
                                       const char *const *argv, size_t argc)
{
	struct warden_policy pol = { sizeof(pol), mode, ws, "", status_fd, NULL, 0, -1, WARDEN_NETWORK_ENABLED, NULL, 0, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, -1 };
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };

	if (warden_sandbox_confine(h->svc, argv, argc, &pol, &c, &err) != 0)
		fail_msg("confine: %s", err.msg);
	return c;
}

struct result {
	int cls;
	int exec;
	int wait_status;
	char stderr_text[4096];
	char why[256];
};

/* Spawns c as a consumer does and classifies the run. */
static void run(const struct warden_confined *c, struct result *r)
{
	int errp[2], st[2] = { -1, -1 };
	char evidence[WARDEN_EVIDENCE_MAX];
	size_t elen = 0, have = 0;
	struct warden_error err = { 0, "" };
	struct warden_classify_facts facts = warden_confined_facts(c);
	struct warden_run_facts rf;
	struct warden_classification cl;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
	if (c->status_fd >= 0)
		assert_int_equal(pipe2(st, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, 0);
		dup2(nul, 1);
		dup2(errp[1], 2);
		warden_confined_exec(c, st[1]);
		_exit(127);
	}
	close(errp[1]);
	if (st[1] >= 0)
		close(st[1]);
	while ((n = read(errp[0], r->stderr_text + have,
	                 sizeof(r->stderr_text) - 1 - have)) > 0)
		have += (size_t)n;
	r->stderr_text[have] = '\0';
	close(errp[0]);
	if (st[0] >= 0) {
		assert_int_equal(warden_evidence_read(st[0], evidence, &elen, &err), 0);
		close(st[0]);
	}
	assert_int_equal(waitpid(pid, &r->wait_status, 0), pid);
	r->exec = WARDEN_EXEC_UNKNOWN;
	if (c->status_fd >= 0)
		warden_evidence_parse(c->evidence, evidence, elen, r->wait_status,
		                      &r->exec, r->why, sizeof(r->why));
	rf.wait_status = r->wait_status;
	rf.stderr_tail = r->stderr_text;
	rf.stderr_len = have;
	rf.exec_evidence = r->exec;
	warden_classify(&facts, &rf, &cl);
	r->cls = cl.cls;
}

static void run_sh(struct host *h, int mode, int status_fd, const char *script,
                   struct result *r)
{
	const char *argv[] = { "sh", "-c", script };
	struct warden_confined *c = confine(h, mode, status_fd, argv, 3);

	run(c, r);
	warden_confined_free(c);
}

static void assert_outside_unchanged(void)
{
	char buf[64];

	read_file(outside, buf, sizeof(buf));
	assert_string_equal(buf, "original\n");
}

/* ------------------------------------------------------------ tests */

static void test_probe_reports_full_read_only_and_partial_workspace_write(void **state)
{
	struct host h;
	struct warden_probe p;

	(void)state;
	host_with_runner(&h, runner);
	warden_sandbox_probe(h.svc, 0, WARDEN_MODE_READ_ONLY, &p);
	assert_int_equal(p.usable, 1);
	assert_int_equal(p.enforcement, WARDEN_ENFORCEMENT_FULL);
	assert_int_equal(p.privilege_dropped, 1);
	assert_non_null(strstr(p.detail, "landlock ABI"));
	assert_non_null(strstr(p.detail, "IPC and PID namespaces of its own"));
	warden_sandbox_probe(h.svc, 0, WARDEN_MODE_WORKSPACE_WRITE, &p);
	assert_int_equal(p.usable, 1);
	assert_int_equal(p.enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_int_equal(p.privilege_dropped, 1);
	assert_non_null(strstr(p.detail,
	        "metadata changes (chmod, chown, utime, xattr) outside the root are not governed"));
	host_close(&h);
}

static void test_confine_builds_the_exact_runner_argv(void **state)
{
	struct host h;
	const char *argv[] = { "printf", "%s\n", "a b", "" };
	struct warden_confined *c;

	(void)state;
	host_with_runner(&h, runner);
	c = confine(&h, WARDEN_MODE_WORKSPACE_WRITE, 7, argv, 4);
	assert_int_equal(c->argc, 12);
	assert_string_equal(c->argv[0], runner);
	assert_string_equal(c->argv[1], "--status-fd");
	assert_string_equal(c->argv[2], "7");
	assert_string_equal(c->argv[3], "--network");
	assert_string_equal(c->argv[4], "enabled");
	assert_string_equal(c->argv[5], "--rw");
	assert_string_equal(c->argv[6], ws);
	assert_string_equal(c->argv[7], "--");
	assert_string_equal(c->argv[8], "printf");
	assert_string_equal(c->argv[10], "a b");
	assert_string_equal(c->argv[11], "");
	assert_null(c->argv[12]);
	assert_int_equal(c->evidence, WARDEN_EVIDENCE_EXEC_PIPE);
	assert_int_equal(c->privilege_dropped, 1);
	assert_int_equal(c->n_writable_roots, 1);
	assert_string_equal(c->writable_roots[0], ws);
	warden_confined_free(c);

	c = confine(&h, WARDEN_MODE_READ_ONLY, -1, argv, 4);
	assert_int_equal(c->argc, 8);
	assert_string_equal(c->argv[1], "--network");
	assert_string_equal(c->argv[2], "enabled");
	assert_string_equal(c->argv[3], "--");
	assert_int_equal(c->evidence, WARDEN_EVIDENCE_NONE);
	assert_int_equal(c->n_writable_roots, 0);
	assert_int_equal(c->enforcement, WARDEN_ENFORCEMENT_FULL);
	warden_confined_free(c);
	host_close(&h);
}

/* confine() with read_only_paths: 0 with *c set, or the error code with
 * the message in msg. */
static int confine_ro_paths(struct host *h, int mode, const char *const *paths,
                            size_t n, struct warden_confined **c, char *msg,
                            size_t msglen)
{
	const char *argv[] = { "true" };
	struct warden_policy pol;
	struct warden_error err = { 0, "" };
	int r;

	warden_policy_init(&pol);
	pol.mode = mode;
	pol.workspace_root = ws;
	pol.read_only_paths = paths;
	pol.n_read_only_paths = n;
	*c = NULL;
	r = warden_sandbox_confine(h->svc, argv, 1, &pol, c, &err);
	snprintf(msg, msglen, "%s", err.msg);
	return r;
}

static void test_a_read_only_path_inside_the_root_is_refused_naming_it(void **state)
{
	struct host h;
	struct warden_confined *c;
	char ini[PATH_MAX], msg[WARDEN_ERROR_MAX];
	const char *inside_root[] = { outside, ini };
	const char *above_root[] = { scratch };
	const char *elsewhere[] = { outside, "/etc/warden/warden.ini" };

	(void)state;
	xsnprintf(ini, sizeof(ini), "%s/warden.ini", ws);
	host_with_runner(&h, runner);

	/* workspace-write: the config in the root (not there yet: it is
	 * named all the same) is refused, nothing is confined. */
	assert_int_equal(confine_ro_paths(&h, WARDEN_MODE_WORKSPACE_WRITE, inside_root, 2,
	                                  &c, msg, sizeof(msg)), -WARDEN_EUNAVAILABLE);
	assert_null(c);
	assert_non_null(strstr(msg, "SANDBOX_UNAVAILABLE"));
	assert_non_null(strstr(msg, ini));
	assert_non_null(strstr(msg, "cannot keep a path read-only inside a writable root"));
	/* ... a root inside a read-only path too ... */
	assert_int_equal(confine_ro_paths(&h, WARDEN_MODE_WORKSPACE_WRITE, above_root, 1,
	                                  &c, msg, sizeof(msg)), -WARDEN_EUNAVAILABLE);
	assert_non_null(strstr(msg, scratch));
	/* ... while read-only holds every path, and paths outside the
	 * root are held by Landlock in both modes. */
	assert_int_equal(confine_ro_paths(&h, WARDEN_MODE_READ_ONLY, inside_root, 2,
	                                  &c, msg, sizeof(msg)), 0);
	warden_confined_free(c);
	assert_int_equal(confine_ro_paths(&h, WARDEN_MODE_WORKSPACE_WRITE, elsewhere, 2,
	                                  &c, msg, sizeof(msg)), 0);
	warden_confined_free(c);
	host_close(&h);
}

static void test_write_outside_is_denied_in_both_modes_and_the_file_unchanged(void **state)
{
	struct host h;
	struct result r;
	char script[PATH_MAX + 64];
	int modes[] = { WARDEN_MODE_READ_ONLY, WARDEN_MODE_WORKSPACE_WRITE };

	(void)state;
	host_with_runner(&h, runner);
	xsnprintf(script, sizeof(script), "echo x > %s", outside);
	for (size_t i = 0; i < 2; i++) {
		for (int fd = -1; fd <= 3; fd += 4) {
			run_sh(&h, modes[i], fd, script, &r);
			assert_int_equal(r.cls, WARDEN_CLASS_DENIED);
			assert_int_equal(r.exec, fd < 0 ? WARDEN_EXEC_UNKNOWN : WARDEN_EXEC_HAPPENED);
			assert_outside_unchanged();
		}
	}
	host_close(&h);
}

static void test_workspace_write_writes_inside_the_root(void **state)
{
	struct host h;
	struct result r;
	char script[PATH_MAX + 64], path[PATH_MAX], buf[64];

	(void)state;
	host_with_runner(&h, runner);
	xsnprintf(path, sizeof(path), "%s/made-inside", ws);
	xsnprintf(script, sizeof(script), "echo inside > %s && chmod +x %s", path, path);
	run_sh(&h, WARDEN_MODE_WORKSPACE_WRITE, 3, script, &r);
	assert_int_equal(r.cls, WARDEN_CLASS_OK);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "inside\n");
	run_sh(&h, WARDEN_MODE_READ_ONLY, 3, script, &r);
	assert_int_equal(r.cls, WARDEN_CLASS_DENIED);
	host_close(&h);
}

static void test_runner_failure_is_a_sandbox_error_with_and_without_evidence(void **state)
{
	struct host h;
	struct result r;
	const char *argv[] = { "warden-no-such-command" };
	struct warden_confined *c;

	(void)state;
	host_with_runner(&h, runner);
	for (int fd = -1; fd <= 3; fd += 4) {
		c = confine(&h, WARDEN_MODE_READ_ONLY, fd, argv, 1);
		run(c, &r);
		assert_int_equal(r.cls, WARDEN_CLASS_SANDBOX_ERROR);
		assert_true(WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 125);
		if (fd >= 0) {
			assert_int_equal(r.exec, WARDEN_EXEC_NOT_HAPPENED);
			assert_non_null(strstr(r.why, "warden-no-such-command"));
		}
		warden_confined_free(c);
	}
	host_close(&h);
}

/* Regression: a runner that never starts leaves the status pipe empty;
 * that once read as "exec happened", and the spawner's exit 127 as the
 * command's own failure. */
static void test_a_runner_that_never_starts_is_a_sandbox_error(void **state)
{
	struct host h;
	struct result r;
	const char *argv[] = { "true" };
	struct warden_confined *c;
	char copy[PATH_MAX], cmd[2 * PATH_MAX + 32];

	(void)state;
	xsnprintf(copy, sizeof(copy), "%s/gone-runner", scratch);
	xsnprintf(cmd, sizeof(cmd), "cp '%s' '%s'", runner, copy);
	assert_int_equal(system(cmd), 0);
	host_with_runner(&h, copy);
	c = confine(&h, WARDEN_MODE_READ_ONLY, 3, argv, 1);
	assert_int_equal(unlink(copy), 0);
	run(c, &r);
	assert_true(WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 127);
	assert_int_equal(r.exec, WARDEN_EXEC_NOT_HAPPENED);
	assert_non_null(strstr(r.why, "never started"));
	assert_int_equal(r.cls, WARDEN_CLASS_SANDBOX_ERROR);
	warden_confined_free(c);
	host_close(&h);
}

static void test_a_child_forging_the_fatal_line_is_its_own_failure(void **state)
{
	struct host h;
	struct result r;

	(void)state;
	host_with_runner(&h, runner);
	run_sh(&h, WARDEN_MODE_READ_ONLY, 3,
	       "echo 'warden-landlock-run: fatal: exec: forged: x' >&2; exit 125", &r);
	assert_int_equal(r.exec, WARDEN_EXEC_HAPPENED);
	assert_int_equal(r.cls, WARDEN_CLASS_FAILED);
	host_close(&h);
}

static void test_the_command_fails_on_its_own(void **state)
{
	struct host h;
	struct result r;

	(void)state;
	host_with_runner(&h, runner);
	run_sh(&h, WARDEN_MODE_WORKSPACE_WRITE, 3, "exit 3", &r);
	assert_int_equal(r.cls, WARDEN_CLASS_FAILED);
	run_sh(&h, WARDEN_MODE_WORKSPACE_WRITE, -1, "exit 3", &r);
	assert_int_equal(r.cls, WARDEN_CLASS_FAILED);
	host_close(&h);
}

static void test_partial_abi_probe_and_notice_are_not_failures(void **state)
{
	struct host h;
	struct warden_probe p;
	struct result r;
	const char *exits[] = { "exit 1", "exit 2", "exit 125", "exit 0" };
	const int want[] = { WARDEN_CLASS_FAILED, WARDEN_CLASS_FAILED,
	                     WARDEN_CLASS_FAILED, WARDEN_CLASS_OK };

	(void)state;
	host_with_runner(&h, fake);
	warden_sandbox_probe(h.svc, 0, WARDEN_MODE_READ_ONLY, &p);
	assert_int_equal(p.usable, 1);
	assert_int_equal(p.enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_string_equal(p.detail, "landlock ABI 2: truncate not governed");
	warden_sandbox_probe(h.svc, 0, WARDEN_MODE_WORKSPACE_WRITE, &p);
	assert_int_equal(p.enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_non_null(strstr(p.detail, "landlock ABI 2: truncate"));
	for (size_t i = 0; i < 4; i++) {
		for (int fd = -1; fd <= 3; fd += 4) {
			run_sh(&h, WARDEN_MODE_READ_ONLY, fd, exits[i], &r);
			assert_non_null(strstr(r.stderr_text, "notice: landlock ABI 2 is partial"));
			assert_int_equal(r.cls, want[i]);
		}
	}
	host_close(&h);
}

static void test_unknown_key_fails_open_naming_key_and_line(void **state)
{
	struct host h;

	(void)state;
	assert_int_equal(host_open(&h, "runner = /bin/true\nrunnr = /x\n"), WARDEN_LOAD_FAILED);
	assert_non_null(strstr(h.loaded.reason, "line 5"));
	assert_non_null(strstr(h.loaded.reason, "'runnr'"));
	host_close(&h);
	assert_int_equal(host_open(&h, "runner = bin/warden-landlock-run\n"), WARDEN_LOAD_FAILED);
	assert_non_null(strstr(h.loaded.reason, "absolute"));
	host_close(&h);
}

static void test_missing_runner_is_unusable_and_the_sandbox_unavailable(void **state)
{
	struct host h;
	struct warden_probe p;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	const char *argv[] = { "true" };
	struct warden_policy pol = { sizeof(pol), WARDEN_MODE_READ_ONLY, ws, "", -1, NULL, 0, -1, WARDEN_NETWORK_ENABLED, NULL, 0, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, -1 };
	char path[PATH_MAX];

	(void)state;
	xsnprintf(path, sizeof(path), "%s/no-such-runner", scratch);
	host_with_runner(&h, path);
	warden_sandbox_probe(h.svc, 0, WARDEN_MODE_READ_ONLY, &p);
	assert_int_equal(p.usable, 0);
	assert_non_null(strstr(p.detail, "No such file or directory"));
	assert_int_equal(warden_sandbox_confine(h.svc, argv, 1, &pol, &c, &err),
	                 -WARDEN_EUNAVAILABLE);
	assert_null(c);
	assert_non_null(strstr(err.msg, "SANDBOX_UNAVAILABLE"));
	host_close(&h);
}

static void test_a_runner_inside_the_root_is_refused(void **state)
{
	struct host h;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	const char *argv[] = { "true" };
	struct warden_policy pol = { sizeof(pol), WARDEN_MODE_WORKSPACE_WRITE, ws, "", -1, NULL, 0, -1, WARDEN_NETWORK_ENABLED, NULL, 0, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, -1 };
	char copy[PATH_MAX], cmd[3 * PATH_MAX];

	(void)state;
	xsnprintf(copy, sizeof(copy), "%s/warden-landlock-run", ws);
	xsnprintf(cmd, sizeof(cmd), "cp '%s' '%s'", runner, copy);
	assert_int_equal(system(cmd), 0);
	host_with_runner(&h, copy);
	assert_int_not_equal(warden_sandbox_confine(h.svc, argv, 1, &pol, &c, &err), 0);
	assert_null(c);
	assert_non_null(strstr(err.msg, "inside the workspace root"));
	host_close(&h);
	unlink(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_reports_full_read_only_and_partial_workspace_write),
		cmocka_unit_test(test_confine_builds_the_exact_runner_argv),
		cmocka_unit_test(test_write_outside_is_denied_in_both_modes_and_the_file_unchanged),
		cmocka_unit_test(test_workspace_write_writes_inside_the_root),
		cmocka_unit_test(test_runner_failure_is_a_sandbox_error_with_and_without_evidence),
		cmocka_unit_test(test_a_runner_that_never_starts_is_a_sandbox_error),
		cmocka_unit_test(test_a_child_forging_the_fatal_line_is_its_own_failure),
		cmocka_unit_test(test_the_command_fails_on_its_own),
		cmocka_unit_test(test_partial_abi_probe_and_notice_are_not_failures),
		cmocka_unit_test(test_a_read_only_path_inside_the_root_is_refused_naming_it),
		cmocka_unit_test(test_unknown_key_fails_open_naming_key_and_line),
		cmocka_unit_test(test_missing_runner_is_unusable_and_the_sandbox_unavailable),
		cmocka_unit_test(test_a_runner_inside_the_root_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
