/*
 * test_exec.c — the exec answerer (plugins/exec/.libs/exec.so, real
 * dlopen) running real programs: each answer word, every kind of garbage,
 * a nonzero exit, a signal, the deadline, huge output, a background child
 * that keeps stdout open; what the program receives (the JSON request, a
 * minimal environment, descriptors 0-2 only); and that no process is left
 * behind.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "answerers/util.h"

static const struct warden_plugin *ex;
static char dir[] = "/tmp/warden-exec-XXXXXX";

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes a /bin/sh script `body` as DIR/name, mode 0755; returns its path. */
static const char *script(const char *name, const char *body)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* No child of this process is left, running or unreaped. */
static void assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Opens exec on `body` with the given timeout, decides one request with
 * subject `subject`, closes.  Returns the decision; err gets the reason. */
static int run_req(const char *body, long timeout_ms,
                   const struct warden_request *req, char *err, size_t errlen)
{
	char cmd[PATH_MAX + 16];
	const char *kv[] = { cmd };
	void *st;
	int d;

	snprintf(cmd, sizeof(cmd), "command=%s", script("answer", body));
	st = answerer_open(ex, dir, timeout_ms, kv, 1, err, errlen);
	if (st == NULL)
		fail_msg("open: %s", err);
	err[0] = '\0';
	d = ex->decide(st, req, err, errlen);
	ex->close(st);
	assert_no_children();
	return d;
}

static int run(const char *body, long timeout_ms, char *err, size_t errlen)
{
	struct warden_request r = answerer_request("bash", "ls -l");

	return run_req(body, timeout_ms, &r, err, errlen);
}

static void expect(const char *body, int want, const char *reason)
{
	char err[512];
	int d = run(body, 5000, err, sizeof(err));

	if (d != want || (reason != NULL && strstr(err, reason) == NULL))
		fail_msg("script '%s': decision %d (want %d), reason '%s' "
		         "(want '%s')", body, d, want, err, reason ? reason : "");
}

/* The process pid of the file is gone: dead, or a zombie its new parent
 * has not reaped yet.  Waits up to 2 s. */
static void assert_gone(const char *pidfile)
{
	char stat[64], buf[256];
	FILE *f = fopen(pidfile, "r");
	int pid = 0, i;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	fclose(f);
	for (i = 0; i < 200; i++) {
		snprintf(stat, sizeof(stat), "/proc/%d/stat", pid);
		f = fopen(stat, "r");
		if (f == NULL)
			return;
		buf[0] = '\0';
		if (fgets(buf, sizeof(buf), f) == NULL)
			buf[0] = '\0';
		fclose(f);
		if (strstr(buf, ") Z ") != NULL)
			return;
		usleep(10000);
	}
	fail_msg("process %d still runs", pid);
}

static void test_each_answer_word_decides(void **unused)
{
	expect("cat >/dev/null; echo allowed-once", WARDEN_DECISION_ALLOWED_ONCE, NULL);
	expect("cat >/dev/null; echo rejected", WARDEN_DECISION_REJECTED, NULL);
	expect("cat >/dev/null; echo cancelled", WARDEN_DECISION_CANCELLED, NULL);
	expect("cat >/dev/null; echo next", WARDEN_DECISION_DELEGATE, NULL);
	/* Only the first line counts; a last line may lack its newline. */
	expect("echo rejected; echo allowed-once", WARDEN_DECISION_REJECTED, NULL);
	expect("printf allowed-once", WARDEN_DECISION_ALLOWED_ONCE, NULL);
}

/* ABI 1.1: the second line is the decision's reason, passed as written
 * (the host escapes what it records). */
static void expect_reason(const char *body, int want, const char *reason)
{
	char err[512];
	int d = run(body, 5000, err, sizeof(err));

	if (d != want || strcmp(err, reason) != 0)
		fail_msg("script '%s': decision %d (want %d), reason '%s' "
		         "(want '%s')", body, d, want, err, reason);
}

static void test_the_second_line_is_the_decisions_reason(void **unused)
{
	expect_reason("cat >/dev/null; printf 'rejected\\nthe policy service says no\\n'",
	              WARDEN_DECISION_REJECTED, "the policy service says no");
	expect_reason("printf 'allowed-once\\nreviewed by alice'",
	              WARDEN_DECISION_ALLOWED_ONCE, "reviewed by alice");
	expect_reason("printf 'next\\nnot mine\\nthird line\\n'",
	              WARDEN_DECISION_DELEGATE, "not mine");
	expect_reason("echo cancelled", WARDEN_DECISION_CANCELLED, "");
	expect_reason("printf 'rejected\\n\\033[2Jno\\n'", WARDEN_DECISION_REJECTED,
	              "\033[2Jno");
}

static void test_anything_but_an_exact_word_is_unavailable(void **unused)
{
	const int E = WARDEN_DECISION_ERROR;

	expect("echo 'allowed-once '", E, "it answered 'allowed-once '");
	expect("echo ' allowed-once'", E, "it answered");
	expect("echo Allowed-Once", E, "it answered 'Allowed-Once'");
	expect("printf 'allowed-once\\r\\n'", E, "it answered 'allowed-once?'");
	expect("echo allowed", E, "allowed: allowed-once, allowed-for-session [SCOPE], rejected, cancelled, next");
	expect("echo unavailable", E, "it answered 'unavailable'");
	expect("true", E, "it printed nothing");
	expect("echo; echo allowed-once", E, "the first line of its output is empty");
	expect("printf 'allowed-once\\000\\n'", E, "contains a NUL byte");
	expect("printf '\\033[2Jallowed-once\\n'", E, "it answered '?[2Jallowed-once'");
}

/* ABI 1.4: `allowed-for-session` grants the first scope offered,
 * `allowed-for-session NAME` the one named; a name not offered, or
 * almost a name, is an error; the offer reaches the program. */
static void test_allowed_for_session_picks_an_offered_scope(void **unused)
{
	const char *names[] = { "exact", "prefix:2", "prefix:1" };
	const char *texts[] = { "exactly `git status -s`", "`git status ...`", "`git ...`" };
	struct warden_request r = answerer_request("bash", "git status -s");
	char err[512], path[PATH_MAX + 32], body[PATH_MAX + 64], line[4096];
	size_t choice = 7;
	json_t *o, *sc;
	FILE *f;

	(void)unused;
	r.grant_scopes = names;
	r.grant_texts = texts;
	r.n_grant_scopes = 3;
	r.grant_choice = &choice;
	assert_int_equal(run_req("echo allowed-for-session", 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_FOR_SESSION);
	assert_int_equal(choice, 0);
	assert_int_equal(run_req("printf 'allowed-for-session prefix:2\nok\n'", 5000, &r,
	                         err, sizeof(err)), WARDEN_DECISION_ALLOWED_FOR_SESSION);
	assert_int_equal(choice, 1);
	assert_string_equal(err, "ok");
	assert_int_equal(run_req("echo 'allowed-for-session prefix:3'", 5000, &r, err,
	                         sizeof(err)), WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "scope 'prefix:3', which the request does not offer"));
	assert_int_equal(run_req("echo 'allowed-for-session prefix:2 '", 5000, &r, err,
	                         sizeof(err)), WARDEN_DECISION_ERROR);
	assert_int_equal(run_req("echo 'allowed-for-sessionx'", 5000, &r, err,
	                         sizeof(err)), WARDEN_DECISION_ERROR);
	/* Nothing offered: either form is an error, never a grant. */
	r.n_grant_scopes = 0;
	assert_int_equal(run_req("echo allowed-for-session", 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "offers no grant scope"));
	assert_int_equal(run_req("echo 'allowed-for-session exact'", 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	r.n_grant_scopes = 3;
	snprintf(path, sizeof(path), "%s/offer.json", dir);
	snprintf(body, sizeof(body), "cat >%s; echo next", path);
	assert_int_equal(run_req(body, 5000, &r, err, sizeof(err)), WARDEN_DECISION_DELEGATE);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	o = json_loads(line, 0, NULL);
	assert_non_null(o);
	sc = json_object_get(o, "grant_scopes");
	assert_int_equal(json_array_size(sc), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sc, 1), "name")),
	                    "prefix:2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sc, 1), "text")),
	                    "`git status ...`");
	json_decref(o);
}

static void test_overlong_or_huge_output_is_unavailable(void **unused)
{
	char err[512];
	long t0 = now_ms();

	/* 4096 bytes is the longest line; one more is refused. */
	expect("head -c 4096 /dev/zero | tr '\\0' a; echo", WARDEN_DECISION_ERROR,
	       "it answered 'aaaa");
	expect("head -c 4097 /dev/zero | tr '\\0' a; echo", WARDEN_DECISION_ERROR,
	       "longer than 4096 bytes");
	/* Endless output: refused at once, not at the deadline. */
	assert_int_equal(run("exec tr '\\0' a </dev/zero", 20000, err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "longer than 4096 bytes"));
	assert_int_equal(run("exec yes allowed-once", 20000, err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "more than 65536 bytes"));
	assert_true(now_ms() - t0 < 10000);
}

static void test_failed_program_is_unavailable(void **unused)
{
	expect("echo allowed-once; exit 1", WARDEN_DECISION_ERROR,
	       "exited with status 1");
	expect("echo allowed-once; kill -SEGV $$", WARDEN_DECISION_ERROR,
	       "was killed by signal 11");
	expect("echo allowed-once; kill -KILL $$", WARDEN_DECISION_ERROR,
	       "was killed by signal 9");
}

static void test_deadline_kills_the_program(void **unused)
{
	char err[512], pidfile[PATH_MAX + 32], body[PATH_MAX + 128];
	long t0 = now_ms(), took;

	snprintf(pidfile, sizeof(pidfile), "%s/sleeper.pid", dir);
	snprintf(body, sizeof(body), "sleep 30 & echo $! >%s; wait", pidfile);
	assert_int_equal(run(body, 300, err, sizeof(err)), WARDEN_DECISION_ERROR);
	took = now_ms() - t0;
	/* A tenth early: it answers before the host's own timeout. */
	assert_non_null(strstr(err, "no answer within 270 ms (killed)"));
	assert_true(took >= 270 && took < 3000);
	/* The whole process group went: the program's own child too. */
	assert_gone(pidfile);

	/* An answer is not enough: the program must also end. */
	expect("echo allowed-once; exec sleep 30", WARDEN_DECISION_ERROR, NULL);
}

static void test_background_child_holding_stdout_does_not_hold_the_answer(void **unused)
{
	char err[512], pidfile[PATH_MAX + 32], body[PATH_MAX + 128];
	long t0 = now_ms();

	snprintf(pidfile, sizeof(pidfile), "%s/bg.pid", dir);
	snprintf(body, sizeof(body), "sleep 30 & echo $! >%s; echo allowed-once",
	         pidfile);
	assert_int_equal(run(body, 20000, err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_ONCE);
	assert_true(now_ms() - t0 < 3000);
	/* Killed with its group. */
	assert_gone(pidfile);
}

static void test_program_gets_the_request_as_one_json_line(void **unused)
{
	char err[512], body[PATH_MAX + 64], path[PATH_MAX + 16], line[4096];
	struct warden_request r = answerer_request("bash", "echo \"hi\"\n\tthere");
	static const char *const argv[] = { "bash", "-c", "echo \"hi\"\n\tthere", NULL };
	static const char *const removed[] = { "BASH_ENV", "LD_PRELOAD" };
	static const char *const dropped[] = { "/w/.venv/bin", "." };
	static const char *const config[] = { "HOME=/home/u", "CARGO_HOME=/opt/c" };
	json_error_t jerr;
	json_t *o;
	FILE *f;

	r.call_id = "c7";
	r.reason = "why";
	r.requested_mode = "danger-full-access";
	r.argv = argv;
	r.argc = 3;
	r.program = "/usr/bin/bash";
	r.interpreter = "";
	r.program_writable = 1;
	r.env_removed = removed;
	r.n_env_removed = 2;
	r.path_dropped = dropped;
	r.n_path_dropped = 2;
	r.path = "/usr/bin:/bin";
	r.requested_network = "enabled";
	r.env_config = config;
	r.n_env_config = 2;
	snprintf(path, sizeof(path), "%s/request.json", dir);
	snprintf(body, sizeof(body), "cat >%s; echo next", path);
	assert_int_equal(run_req(body, 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_DELEGATE);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_null(fgets(line + strlen(line), 8, f));   /* one line only */
	fclose(f);
	assert_true(strlen(line) > 0 && line[strlen(line) - 1] == '\n');
	o = json_loads(line, 0, &jerr);
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 18);
	assert_int_equal(json_array_size(json_object_get(o, "grant_scopes")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "session")), "s1");
	assert_string_equal(json_string_value(json_object_get(o, "request_id")), "r1");
	assert_string_equal(json_string_value(json_object_get(o, "tool")), "bash");
	assert_string_equal(json_string_value(json_object_get(o, "subject")),
	                    "echo \"hi\"\n\tthere");
	assert_string_equal(json_string_value(json_object_get(o, "call_id")), "c7");
	assert_string_equal(json_string_value(json_object_get(o, "reason")), "why");
	assert_string_equal(json_string_value(json_object_get(o, "mode")),
	                    "danger-full-access");
	assert_string_equal(json_string_value(json_object_get(o, "cwd")), "/w");
	/* The command the request is about (v1.1). */
	assert_int_equal(json_array_size(json_object_get(o, "argv")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "argv"), 2)),
	                    "echo \"hi\"\n\tthere");
	assert_string_equal(json_string_value(json_object_get(o, "program")), "/usr/bin/bash");
	assert_string_equal(json_string_value(json_object_get(o, "interpreter")), "");
	assert_true(json_is_true(json_object_get(o, "program_writable")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "env_removed"), 1)),
	                    "LD_PRELOAD");
	assert_int_equal(json_array_size(json_object_get(o, "path_dropped")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "path_dropped"), 0)),
	                    "/w/.venv/bin");
	assert_string_equal(json_string_value(json_object_get(o, "path")), "/usr/bin:/bin");
	assert_string_equal(json_string_value(json_object_get(o, "network")), "enabled");
	/* Where its programs read configuration from (v1.4). */
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "env_config"), 1)),
	                    "CARGO_HOME=/opt/c");
	json_decref(o);
}

/* A host of ABI 1.0 passes a shorter struct: the fields it does not have
 * are never read, and the program gets them empty. */
static void test_request_of_a_v10_host_has_empty_command_fields(void **unused)
{
	char err[512], body[PATH_MAX + 64], path[PATH_MAX + 16], line[4096];
	struct warden_request r = answerer_request("bash", "ls");
	json_t *o;
	FILE *f;

	(void)unused;
	r.struct_size = offsetof(struct warden_request, cwd) + sizeof(r.cwd);
	/* Garbage beyond the 1.0 size must not be read. */
	r.argc = 99;
	r.program = (const char *)1;
	snprintf(path, sizeof(path), "%s/request10.json", dir);
	snprintf(body, sizeof(body), "cat >%s; echo next", path);
	assert_int_equal(run_req(body, 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_DELEGATE);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	o = json_loads(line, 0, NULL);
	assert_non_null(o);
	assert_int_equal(json_array_size(json_object_get(o, "argv")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "program")), "");
	assert_true(json_is_false(json_object_get(o, "program_writable")));
	json_decref(o);
}

static void test_program_gets_minimal_environment_and_only_fds_0_to_2(void **unused)
{
	char err[512], cmd[PATH_MAX + 16], arg[PATH_MAX + 16], buf[1024];
	const char *kv[] = { cmd, arg };
	struct warden_request r = answerer_request("bash", "ls");
	size_t n;
	void *st;
	FILE *f;
	int leak;

	/* tests/answerers/show-inherited writes its descriptors and its
	 * environment to the file named by its argument. */
	snprintf(cmd, sizeof(cmd), "command=%s/tests/answerers/show-inherited",
	         getenv("top_builddir"));
	snprintf(arg, sizeof(arg), "arg=%s/inherited", dir);
	/* Something the host holds open without close-on-exec, and a
	 * variable of its own. */
	leak = open("/dev/null", O_RDONLY);
	assert_true(leak > 2);
	setenv("WARDEN_TEST_SECRET", "must-not-pass", 1);
	st = answerer_open(ex, dir, 5000, kv, 2, err, sizeof(err));
	if (st == NULL)
		fail_msg("open: %s", err);
	assert_int_equal(ex->decide(st, &r, err, sizeof(err)),
	                 WARDEN_DECISION_DELEGATE);
	ex->close(st);
	close(leak);
	unsetenv("WARDEN_TEST_SECRET");

	f = fopen(arg + 4, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "0 1 2 \nPATH=/usr/bin:/bin\nLANG=C\n");
}

static void test_program_that_ignores_a_large_request_still_answers(void **unused)
{
	size_t n = 1024 * 1024;
	char *big = malloc(n + 1), err[512];
	struct warden_request r;

	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	r = answerer_request("bash", big);
	assert_int_equal(run_req("echo rejected", 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_REJECTED);
	/* And one that reads it all sees all of it. */
	assert_int_equal(run_req("test \"$(wc -c)\" -gt 1048576 && echo allowed-once",
	                         5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_ONCE);
	free(big);
}

static void test_request_that_is_not_utf8_is_unavailable(void **unused)
{
	struct warden_request r = answerer_request("bash", "ls \xff\xfe");
	char err[512];

	assert_int_equal(run_req("echo allowed-once", 5000, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "subject is not valid UTF-8"));
}

static void test_program_dies_with_the_process_that_runs_it(void **unused)
{
	char err[512], cmd[PATH_MAX + 16], pidfile[PATH_MAX + 32];
	char body[4 * PATH_MAX];
	const char *kv[] = { cmd };
	struct warden_request r = answerer_request("bash", "ls");
	pid_t worker;
	int status, i;
	void *st;

	/* As when the host kills a worker at its own timeout: the answering
	 * program must not run on as an orphan. */
	snprintf(pidfile, sizeof(pidfile), "%s/orphan.pid", dir);
	unlink(pidfile);
	snprintf(body, sizeof(body), "echo $$ >%s.tmp; mv %s.tmp %s; exec sleep 30",
	         pidfile, pidfile, pidfile);
	snprintf(cmd, sizeof(cmd), "command=%s", script("orphan", body));
	st = answerer_open(ex, dir, 20000, kv, 1, err, sizeof(err));
	assert_non_null(st);
	worker = fork();
	assert_true(worker >= 0);
	if (worker == 0)
		_exit(ex->decide(st, &r, err, sizeof(err)) + 10);
	for (i = 0; i < 500 && access(pidfile, F_OK) != 0; i++)
		usleep(10000);
	assert_int_equal(access(pidfile, F_OK), 0);
	assert_int_equal(kill(worker, SIGKILL), 0);
	assert_int_equal(waitpid(worker, &status, 0), worker);
	assert_true(WIFSIGNALED(status));
	assert_gone(pidfile);
	ex->close(st);
}

static void test_program_that_cannot_run_is_unavailable(void **unused)
{
	char cmd[PATH_MAX + 16], err[512];
	const char *kv[] = { cmd };
	struct warden_request r = answerer_request("bash", "ls");
	const char *path = script("gone", "echo allowed-once");
	void *st;

	snprintf(cmd, sizeof(cmd), "command=%s", path);
	st = answerer_open(ex, dir, 5000, kv, 1, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(ex->decide(st, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ERROR);
	assert_non_null(strstr(err, "cannot run"));
	assert_non_null(strstr(err, "No such file or directory"));
	ex->close(st);
	assert_no_children();
}

static void test_arguments_are_an_argv_not_a_shell_string(void **unused)
{
	const char *kv[] = { "command=/bin/sh", "arg=-c",
	                     "arg=test \"$1\" = 'a b;c' && echo \"$0\"",
	                     "arg=allowed-once", "arg=a b;c" };
	struct warden_request r = answerer_request("bash", "ls");
	char err[512];
	void *st = answerer_open(ex, dir, 5000, kv, 5, err, sizeof(err));

	assert_non_null(st);
	assert_int_equal(ex->decide(st, &r, err, sizeof(err)),
	                 WARDEN_DECISION_ALLOWED_ONCE);
	ex->close(st);
}

static void test_example_answer_by_tool_program(void **unused)
{
	char cmd[PATH_MAX + 16], err[512];
	const char *src = getenv("top_srcdir");
	const char *kv[] = { cmd, "arg=--allow", "arg=read", "arg=--deny",
	                     "arg=bash" };
	const struct {
		const char *tool, *subject;
		int want;
	} cases[] = {
		{ "read", "README.md", WARDEN_DECISION_ALLOWED_ONCE },
		{ "bash", "ls", WARDEN_DECISION_REJECTED },
		{ "write", "x", WARDEN_DECISION_DELEGATE },
		/* The subject spells another tool: still bash's answer. */
		{ "bash", "x\",\"tool\":\"read\",\"y\":\"", WARDEN_DECISION_REJECTED },
		{ "bash", "{\"tool\":\"read\"}\n\"tool\":\"read\"", WARDEN_DECISION_REJECTED },
		{ "r\"ead", "x", WARDEN_DECISION_DELEGATE },
	};
	size_t i;
	void *st;

	assert_non_null(src);
	snprintf(cmd, sizeof(cmd), "command=%s/plugin-api/examples/answer-by-tool.sh",
	         src);
	st = answerer_open(ex, dir, 5000, kv, 5, err, sizeof(err));
	if (st == NULL)
		fail_msg("open: %s", err);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct warden_request r = answerer_request(cases[i].tool,
		                                           cases[i].subject);
		int d = ex->decide(st, &r, err, sizeof(err));

		if (d != cases[i].want)
			fail_msg("tool '%s' subject '%s': %d (%s), want %d",
			         cases[i].tool, cases[i].subject, d, err,
			         cases[i].want);
	}
	ex->close(st);
	assert_no_children();
}

static void refused(const char *const *kv, size_t n, const char *want)
{
	char err[512];
	void *st = answerer_open(ex, dir, 0, kv, n, err, sizeof(err));

	if (st != NULL || strstr(err, want) == NULL)
		fail_msg("open gave %p, error '%s'; want '%s'", st, err, want);
}

static void test_bad_config_is_refused(void **unused)
{
	char rel[PATH_MAX], ww[PATH_MAX + 16], plain[PATH_MAX + 16];
	const char *none[] = { "arg=x" };
	const char *unknown[] = { "command=/bin/true", "shell=/bin/sh" };
	const char *twice[] = { "command=/bin/true", "command=/bin/false" };
	const char *bare[] = { "command=python3" };
	const char *empty[] = { "command=" };
	const char *notexec[] = { plain };
	const char *writable[] = { ww };
	const char *dirc[] = { "command=/tmp" };
	const char *many[66];
	void *st;
	char err[512];

	refused(none, 1, "no `command`");
	refused(unknown, 2, "line 2: unknown key 'shell' (exec knows: command, arg)");
	refused(twice, 2, "line 2: command: given twice");
	refused(bare, 1, "line 1: command: ");
	refused(bare, 1, "PATH is not searched");
	refused(empty, 1, "line 1: command: empty");
	refused(dirc, 1, "/tmp is not an executable file");
	snprintf(plain, sizeof(plain), "command=%s", script("plain", "echo next"));
	chmod(plain + 8, 0644);
	refused(notexec, 1, "is not an executable file");
	snprintf(ww, sizeof(ww), "command=%s", script("ww", "echo next"));
	chmod(ww + 8, 0777);
	refused(writable, 1, "is writable by group or others");
	many[0] = "command=/bin/true";
	for (int i = 1; i < 66; i++)
		many[i] = "arg=x";
	refused(many, 66, "line 66: arg: more than 64 arguments");
	many[64] = "command=/bin/true";
	refused(many, 65, "line 65: command: given twice");

	/* A relative command is found beside the config file, not in PATH. */
	script("rel.sh", "echo next");
	snprintf(rel, sizeof(rel), "command=rel.sh");
	{
		const char *kv[] = { rel };

		st = answerer_open(ex, dir, 0, kv, 1, err, sizeof(err));
		assert_non_null(st);
		ex->close(st);
	}
}

static int setup(void **unused)
{
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **unused)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_answer_word_decides),
		cmocka_unit_test(test_the_second_line_is_the_decisions_reason),
		cmocka_unit_test(test_anything_but_an_exact_word_is_unavailable),
		cmocka_unit_test(test_allowed_for_session_picks_an_offered_scope),
		cmocka_unit_test(test_overlong_or_huge_output_is_unavailable),
		cmocka_unit_test(test_failed_program_is_unavailable),
		cmocka_unit_test(test_deadline_kills_the_program),
		cmocka_unit_test(test_background_child_holding_stdout_does_not_hold_the_answer),
		cmocka_unit_test(test_program_gets_the_request_as_one_json_line),
		cmocka_unit_test(test_request_of_a_v10_host_has_empty_command_fields),
		cmocka_unit_test(test_program_gets_minimal_environment_and_only_fds_0_to_2),
		cmocka_unit_test(test_program_that_ignores_a_large_request_still_answers),
		cmocka_unit_test(test_request_that_is_not_utf8_is_unavailable),
		cmocka_unit_test(test_program_dies_with_the_process_that_runs_it),
		cmocka_unit_test(test_program_that_cannot_run_is_unavailable),
		cmocka_unit_test(test_arguments_are_an_argv_not_a_shell_string),
		cmocka_unit_test(test_example_answer_by_tool_program),
		cmocka_unit_test(test_bad_config_is_refused),
	};

	ex = answerer_load("exec");
	return cmocka_run_group_tests(tests, setup, teardown);
}
