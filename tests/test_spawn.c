/* test_spawn.c — the spawner of `warden run` with real processes: exact
 * argv, live stderr and its tail, descriptor hygiene, the status channel,
 * group kills on timeout and on the host's signals, nothing left behind. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <warden/plugin.h>

#include "env.h"
#include "spawn.h"

extern char **environ;

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/warden-spawn-XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in_tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* Points descriptor fd at a fresh file while a run happens. */
struct capture {
	int fd, saved;
	char path[128];
};

static void capture_begin(struct capture *c, int fd, const char *name)
{
	int f;

	c->fd = fd;
	path_in_tmp(c->path, sizeof(c->path), name);
	f = open(c->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(f >= 0);
	fflush(NULL);
	c->saved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	assert_true(c->saved >= 0);
	assert_int_equal(dup2(f, fd), fd);
	close(f);
}

/* Restores the descriptor; returns what was written (malloc'd). */
static char *capture_end(struct capture *c, size_t *len)
{
	char *buf;
	FILE *f;
	long n;

	fflush(NULL);
	assert_int_equal(dup2(c->saved, c->fd), c->fd);
	close(c->saved);
	f = fopen(c->path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

static struct warden_spawn_result *run_argv(const char *const *argv,
                                            int status_fd, long timeout_ms,
                                            long grace_ms)
{
	struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = status_fd,
	                               .timeout_ms = timeout_ms, .grace_ms = grace_ms };
	struct warden_spawn_result *r = malloc(sizeof(*r));
	struct warden_error err = { 0, "" };

	assert_non_null(r);
	assert_int_equal(warden_spawn_run(&o, r, &err), 0);
	return r;
}

/* Runs argv with stdout captured; returns stdout (malloc'd). */
static char *run_stdout(const char *const *argv, int status_fd,
                        struct warden_spawn_result **rp)
{
	struct capture c;
	struct warden_spawn_result *r;
	char *out;

	capture_begin(&c, STDOUT_FILENO, "stdout");
	r = run_argv(argv, status_fd, 0, 0);
	out = capture_end(&c, NULL);
	if (rp != NULL)
		*rp = r;
	else
		free(r);
	return out;
}

static pid_t read_pid(const char *file)
{
	char path[128];
	FILE *f;
	int pid = -1;

	path_in_tmp(path, sizeof(path), file);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	fclose(f);
	return (pid_t)pid;
}

static void assert_gone(pid_t pid)
{
	assert_true(pid > 1);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

/* Reads fd until `want` has been seen (or EOF); returns what was read. */
static char *read_until(int fd, const char *want)
{
	static char buf[4096];
	size_t len = 0;
	ssize_t n;

	buf[0] = '\0';
	while (len < sizeof(buf) - 1 &&
	       (want == NULL || strstr(buf, want) == NULL)) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return buf;
}

/* ------------------------------------------------- directory, descriptor */

static void test_cwd_fd_is_where_the_command_starts(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "pwd -P", NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = -1 };
	struct warden_spawn_result r;
	struct warden_error err = { 0, "" };
	struct capture c;
	char want[PATH_MAX + 2], *out;
	int fd;

	(void)state;
	fd = open(tmpdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 3);
	o.cwd_fd = fd;
	capture_begin(&c, STDOUT_FILENO, "pwd");
	assert_int_equal(warden_spawn_run(&o, &r, &err), 0);
	out = capture_end(&c, NULL);
	assert_non_null(realpath(tmpdir, want));
	strcat(want, "\n");
	assert_string_equal(out, want);
	free(out);
	close(fd);
}

static void test_exec_fd_runs_that_file_whatever_the_path_holds(void **state)
{
	/* argv[0] names nothing: the descriptor is what runs. */
	const char *argv[] = { "no-such-name", "-c", "echo by-descriptor", NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = -1 };
	struct warden_spawn_result r;
	struct warden_error err = { 0, "" };
	struct capture c;
	char path[128], *out;
	FILE *f;
	int fd;

	(void)state;
	o.exec_fd = fd = open("/bin/sh", O_PATH | O_CLOEXEC);
	assert_true(fd >= 3);
	capture_begin(&c, STDOUT_FILENO, "byfd");
	assert_int_equal(warden_spawn_run(&o, &r, &err), 0);
	out = capture_end(&c, NULL);
	assert_int_equal(r.exec_errno, 0);
	assert_string_equal(out, "by-descriptor\n");
	free(out);
	close(fd);

	/* A script by descriptor: it stays open for its interpreter, and a
	 * file renamed over its path afterwards does not run. */
	path_in_tmp(path, sizeof(path), "script");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho original\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	o.exec_fd = fd = open(path, O_PATH | O_CLOEXEC);
	assert_true(fd >= 3);
	assert_int_equal(unlink(path), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho swapped\n", f);
	fclose(f);
	argv[0] = path;
	argv[1] = NULL;
	o.exec_keep = 1;
	capture_begin(&c, STDOUT_FILENO, "script-out");
	assert_int_equal(warden_spawn_run(&o, &r, &err), 0);
	out = capture_end(&c, NULL);
	assert_int_equal(r.exec_errno, 0);
	assert_string_equal(out, "original\n");
	free(out);
	close(fd);
}

/* ------------------------------------------------------------ program */

static void test_exit_status_of_the_program_is_returned(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	struct warden_spawn_result *r = run_argv(argv, -1, 0, 0);

	(void)state;
	assert_int_equal(r->exec_errno, 0);
	assert_true(WIFEXITED(r->wait_status));
	assert_int_equal(WEXITSTATUS(r->wait_status), 3);
	assert_int_equal(r->timed_out, 0);
	assert_int_equal(r->host_signal, 0);
	free(r);
}

static void test_bare_name_is_found_on_path_and_arguments_stay_verbatim(void **state)
{
	const char *argv[] = { "printf", "%s|", "a  b", "$HOME;`x`*", NULL };
	char *out = run_stdout(argv, -1, NULL);

	(void)state;
	assert_string_equal(out, "a  b|$HOME;`x`*|");
	free(out);
}

static void test_missing_program_is_an_exec_error_and_nothing_runs(void **state)
{
	const char *bare[] = { "warden-no-such-program", NULL };
	const char *abs[] = { "/nonexistent/warden-no-such-program", NULL };
	struct warden_spawn_result *r;

	(void)state;
	r = run_argv(bare, -1, 0, 0);
	assert_int_equal(r->exec_errno, ENOENT);
	free(r);
	r = run_argv(abs, -1, 0, 0);
	assert_int_equal(r->exec_errno, ENOENT);
	free(r);
}

static void test_file_without_interpreter_line_is_not_given_to_a_shell(void **state)
{
	char script[128], marker[128], body[300];
	const char *argv[] = { script, NULL };
	struct warden_spawn_result *r;
	FILE *f;

	(void)state;
	path_in_tmp(script, sizeof(script), "no-shebang");
	path_in_tmp(marker, sizeof(marker), "no-shebang-ran");
	f = fopen(script, "w");
	assert_non_null(f);
	snprintf(body, sizeof(body), "touch '%s'\n", marker);
	fputs(body, f);
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);
	r = run_argv(argv, -1, 0, 0);
	assert_int_equal(r->exec_errno, ENOEXEC);
	assert_int_equal(access(marker, F_OK), -1);
	free(r);
}

static void test_environment_is_exactly_the_one_given(void **state)
{
	char *envp[] = { "A=1", "PATH=/usr/bin:/bin", NULL };
	const char *argv[] = { "/usr/bin/env", NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = envp, .status_fd = -1,
	                               .timeout_ms = 0, .grace_ms = 0 };
	struct warden_spawn_result r;
	struct warden_error err = { 0, "" };
	struct capture c;
	char *out;

	(void)state;
	capture_begin(&c, STDOUT_FILENO, "env");
	assert_int_equal(warden_spawn_run(&o, &r, &err), 0);
	out = capture_end(&c, NULL);
	assert_string_equal(out, "A=1\nPATH=/usr/bin:/bin\n");
	free(out);
}

/* Runs python3 -c CODE with flags; its stdout (malloc'd), *r filled. */
static char *run_flags(int flags, const char *code, struct warden_spawn_result *r)
{
	const char *argv[] = { "/usr/bin/python3", "-c", code, NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = -1,
	                               .flags = flags };
	struct warden_error err = { 0, "" };
	struct capture c;

	capture_begin(&c, STDOUT_FILENO, "flags");
	assert_int_equal(warden_spawn_run(&o, r, &err), 0);
	return capture_end(&c, NULL);
}

#define PY_PDEATHSIG                                                       \
	"import ctypes; l = ctypes.CDLL(None, use_errno=True); s = ctypes.c_int(-1); " \
	"assert l.prctl(2, ctypes.byref(s)) == 0; print(s.value)"
#define PY_SESSION_KEYRING                                                 \
	"import ctypes; l = ctypes.CDLL(None, use_errno=True); "             \
	"print(l.syscall(250, 0, -3, 0))"  /* keyctl(GET_KEYRING_ID, @s) */

/* What a backend asks of the child (plugin.h, enum warden_spawn_flag). */
static void test_spawn_flags_die_with_the_host_and_own_session_keyring(void **state)
{
	struct warden_spawn_result r;
	char *out, want[32];
	long ours = syscall(SYS_keyctl, 0, -3, 0);

	(void)state;
	out = run_flags(0, PY_PDEATHSIG, &r);
	assert_string_equal(out, "0\n");
	free(out);
	out = run_flags(WARDEN_SPAWN_DIE_WITH_HOST, PY_PDEATHSIG, &r);
	snprintf(want, sizeof(want), "%d\n", SIGKILL);
	assert_string_equal(out, want);
	free(out);
	/* The host's own session keyring, unless asked for a new one. */
	out = run_flags(0, PY_SESSION_KEYRING, &r);
	snprintf(want, sizeof(want), "%ld\n", ours);
	if (ours >= 0)
		assert_string_equal(out, want);
	free(out);
	out = run_flags(WARDEN_SPAWN_OWN_SESSION_KEYRING, PY_SESSION_KEYRING, &r);
	assert_int_equal(r.exec_errno, 0);
	if (ours >= 0) {
		/* A fresh one: another serial. */
		assert_true(atol(out) > 0);
		assert_string_not_equal(out, want);
	} else {
		print_message("keyrings refused here (%s): only the exec is checked\n",
		              strerror(errno));
	}
	free(out);
	/* A flag this host does not know: nothing runs. */
	out = run_flags(0x100, "print('ran')", &r);
	assert_int_equal(r.exec_errno, EINVAL);
	assert_string_equal(out, "");
	free(out);
}

static void test_runner_environment_reaches_the_command_scrubbed(void **state)
{
	char *given[] = { "GITHUB_TOKEN=t", "HOME=/root", "db_password=p",
	                  "LD_PRELOAD=/x.so", "AWS_ACCESS_KEY_ID=k", NULL };
	const char *argv[] = { "/usr/bin/env", NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = NULL, .status_fd = -1,
	                               .timeout_ms = 0, .grace_ms = 0 };
	struct warden_spawn_result r;
	struct warden_error err = { 0, "" };
	struct capture c;
	char **envp;
	char *out;
	size_t n = 0;

	(void)state;
	while (warden_env_scrub_default[n] != NULL)
		n++;
	assert_int_equal(warden_env_build(given, warden_env_scrub_default, n,
	                                  1, &envp, &err), 0);
	o.envp = envp;
	capture_begin(&c, STDOUT_FILENO, "env-scrubbed");
	assert_int_equal(warden_spawn_run(&o, &r, &err), 0);
	out = capture_end(&c, NULL);
	assert_string_equal(out, "HOME=/root\n");
	free(out);
	free(envp);
}

/* ------------------------------------------------------------- stderr */

static void test_stderr_reaches_the_caller_while_the_command_runs(void **state)
{
	char fifo[128], script[400];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	int p[2], status, w;
	pid_t pid;
	char *got;

	(void)state;
	path_in_tmp(fifo, sizeof(fifo), "gate");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* The command waits on the gate after its first line: the caller can
	 * only open the gate if that line already reached it. */
	snprintf(script, sizeof(script),
	         "echo first >&2; read x < '%s'; echo second >&2", fifo);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = -1,
		                               .timeout_ms = 0, .grace_ms = 0 };
		struct warden_spawn_result r;
		struct warden_error err;

		close(p[0]);
		dup2(p[1], STDERR_FILENO);
		close(p[1]);
		if (warden_spawn_run(&o, &r, &err) != 0)
			_exit(2);
		_exit(WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0 &&
		      r.tail_len == 13 && memcmp(r.tail, "first\nsecond\n", 13) == 0
		      ? 0 : 1);
	}
	close(p[1]);
	got = read_until(p[0], "first\n");
	assert_string_equal(got, "first\n");
	w = open(fifo, O_WRONLY);
	assert_true(w >= 0);
	assert_int_equal(write(w, "go\n", 3), 3);
	close(w);
	got = read_until(p[0], NULL);
	assert_string_equal(got, "second\n");
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_stderr_is_copied_whole_and_the_tail_keeps_the_last_bytes(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
	                       "head -c 20000 /dev/zero | tr '\\0' a >&2; printf END >&2",
	                       NULL };
	struct warden_spawn_result *r;
	struct capture c;
	char *copied;
	size_t len;

	(void)state;
	capture_begin(&c, STDERR_FILENO, "stderr");
	r = run_argv(argv, -1, 0, 0);
	copied = capture_end(&c, &len);
	assert_int_equal(len, 20003);
	assert_int_equal(r->stderr_total, 20003);
	assert_int_equal(r->tail_len, WARDEN_SPAWN_TAIL);
	assert_memory_equal(r->tail + WARDEN_SPAWN_TAIL - 4, "aEND", 4);
	assert_memory_equal(copied + len - 4, "aEND", 4);
	free(copied);
	free(r);
}

static void test_piped_stdout_is_copied_whole_and_its_last_byte_known(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "echo one; printf two", NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = -1,
	                               .timeout_ms = 0, .grace_ms = 0, .pipe_stdout = 1 };
	struct warden_spawn_result r;
	struct warden_error err = { 0, "" };
	struct capture c;
	char *out;

	(void)state;
	capture_begin(&c, STDOUT_FILENO, "piped");
	assert_int_equal(warden_spawn_run(&o, &r, &err), 0);
	out = capture_end(&c, NULL);
	assert_string_equal(out, "one\ntwo");
	assert_int_equal(r.stdout_total, 7);
	assert_int_equal(r.stdout_last, 'o');
	free(out);
}

/* -------------------------------------------------------- descriptors */

static void test_only_stdio_reaches_the_command(void **state)
{
	/* ls lists the shell's descriptors, not its own; ':' keeps the shell
	 * from becoming ls. */
	const char *argv[] = { "/bin/sh", "-c", "ls /proc/$$/fd; :", NULL };
	int leaked = open("/dev/null", O_RDONLY);  /* no O_CLOEXEC on purpose */
	int high = dup2(leaked, 200);
	char *out;

	(void)state;
	assert_true(leaked >= 3);
	assert_int_equal(high, 200);
	out = run_stdout(argv, -1, NULL);
	assert_string_equal(out, "0\n1\n2\n");
	free(out);
	close(leaked);
	close(high);
}

static void test_status_fd_reaches_the_command_at_its_number_and_is_read(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
	                       "ls /proc/$$/fd; echo evidence >&7", NULL };
	int leaked = open("/dev/null", O_RDONLY);
	struct warden_spawn_result *r;
	char *out;

	(void)state;
	assert_true(leaked >= 3);
	out = run_stdout(argv, 7, &r);
	assert_string_equal(out, "0\n1\n2\n7\n");
	assert_int_equal(r->evidence_len, 9);
	assert_memory_equal(r->evidence, "evidence\n", 9);
	free(out);
	free(r);
	close(leaked);
}

static void test_status_fd_below_three_is_refused(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = 2,
	                               .timeout_ms = 0, .grace_ms = 0 };
	struct warden_spawn_result r;
	struct warden_error err = { 0, "" };

	(void)state;
	assert_int_equal(warden_spawn_run(&o, &r, &err), -WARDEN_EINTERNAL);
}

/* ------------------------------------------------------ group, signals */

static void test_timeout_kills_the_whole_group_including_a_grandchild(void **state)
{
	char script[300], pidfile[128];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct warden_spawn_result *r;

	(void)state;
	path_in_tmp(pidfile, sizeof(pidfile), "grandchild");
	snprintf(script, sizeof(script),
	         "sleep 1000 & echo $! > '%s'; wait", pidfile);
	r = run_argv(argv, -1, 300, 200);
	assert_int_equal(r->timed_out, 1);
	assert_true(WIFSIGNALED(r->wait_status));
	assert_gone(read_pid("grandchild"));
	free(r);
}

static void test_command_ignoring_sigterm_is_killed_after_the_grace(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "trap '' TERM; sleep 1000", NULL };
	/* The timeout must leave sh time to install its trap, even on a
	 * loaded machine or under valgrind; else SIGTERM kills it first. */
	struct warden_spawn_result *r = run_argv(argv, -1, 1500, 200);

	(void)state;
	assert_int_equal(r->timed_out, 1);
	assert_true(WIFSIGNALED(r->wait_status));
	assert_int_equal(WTERMSIG(r->wait_status), SIGKILL);
	free(r);
}

/* Runs `script` under a spawner in a child process whose stderr is a pipe;
 * sends `sig` to the spawner once the command printed "ready"; returns
 * the spawner's exit status, which encodes what it observed. */
static int signal_spawner(const char *script, int sig, int want_signal,
                          int want_status, int want_termsig)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	int p[2], status;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct warden_spawn_opts o = { .argv = argv, .envp = environ, .status_fd = -1,
		                               .timeout_ms = 0, .grace_ms = 200 };
		struct warden_spawn_result r;
		struct warden_error err;

		close(p[0]);
		dup2(p[1], STDERR_FILENO);
		close(p[1]);
		if (warden_spawn_run(&o, &r, &err) != 0)
			_exit(2);
		if (r.host_signal != want_signal)
			_exit(3);
		if (want_termsig)
			_exit(WIFSIGNALED(r.wait_status) &&
			      WTERMSIG(r.wait_status) == want_termsig ? 0 : 4);
		_exit(WIFEXITED(r.wait_status) &&
		      WEXITSTATUS(r.wait_status) == want_status ? 0 : 5);
	}
	close(p[1]);
	read_until(p[0], "ready");
	assert_int_equal(kill(pid, sig), 0);
	read_until(p[0], NULL);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_sigterm_to_the_host_is_forwarded_to_the_command(void **state)
{
	(void)state;
	assert_int_equal(signal_spawner("trap 'exit 7' TERM; echo ready >&2; "
	                                "sleep 1000 & wait",
	                                SIGTERM, SIGTERM, 7, 0), 0);
}

static void test_sigint_to_the_host_is_forwarded_to_the_command(void **state)
{
	(void)state;
	assert_int_equal(signal_spawner("echo ready >&2; exec sleep 1000",
	                                SIGINT, SIGINT, 0, SIGINT), 0);
}

static void test_forwarded_signal_the_command_ignores_is_followed_by_sigkill(void **state)
{
	(void)state;
	assert_int_equal(signal_spawner("trap '' TERM; echo ready >&2; sleep 1000",
	                                SIGTERM, SIGTERM, 0, SIGKILL), 0);
}

static void test_background_leftover_is_killed_when_the_command_exits(void **state)
{
	char script[300], pidfile[128];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct warden_spawn_result *r;

	(void)state;
	path_in_tmp(pidfile, sizeof(pidfile), "leftover");
	snprintf(script, sizeof(script),
	         "sleep 1000 & echo $! > '%s'; exit 0", pidfile);
	r = run_argv(argv, -1, 0, 0);
	assert_true(WIFEXITED(r->wait_status));
	assert_int_equal(WEXITSTATUS(r->wait_status), 0);
	assert_gone(read_pid("leftover"));
	/* Swept as a subreaper: known to have ended, all of it. */
	assert_int_equal(r->all_ended, 1);
	free(r);
}

static void test_descendant_that_left_the_group_is_killed_too(void **state)
{
	char script[400], pidfile[128];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct warden_spawn_result *r;

	(void)state;
	path_in_tmp(pidfile, sizeof(pidfile), "escaped");
	snprintf(script, sizeof(script),
	         "setsid sleep 1000 </dev/null >/dev/null 2>&1 & "
	         "echo $! > '%s'; exit 0", pidfile);
	r = run_argv(argv, -1, 0, 0);
	assert_true(WIFEXITED(r->wait_status));
	assert_gone(read_pid("escaped"));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_of_the_program_is_returned),
		cmocka_unit_test(test_cwd_fd_is_where_the_command_starts),
		cmocka_unit_test(test_exec_fd_runs_that_file_whatever_the_path_holds),
		cmocka_unit_test(test_bare_name_is_found_on_path_and_arguments_stay_verbatim),
		cmocka_unit_test(test_missing_program_is_an_exec_error_and_nothing_runs),
		cmocka_unit_test(test_file_without_interpreter_line_is_not_given_to_a_shell),
		cmocka_unit_test(test_environment_is_exactly_the_one_given),
		cmocka_unit_test(test_spawn_flags_die_with_the_host_and_own_session_keyring),
		cmocka_unit_test(test_runner_environment_reaches_the_command_scrubbed),
		cmocka_unit_test(test_stderr_reaches_the_caller_while_the_command_runs),
		cmocka_unit_test(test_stderr_is_copied_whole_and_the_tail_keeps_the_last_bytes),
		cmocka_unit_test(test_piped_stdout_is_copied_whole_and_its_last_byte_known),
		cmocka_unit_test(test_only_stdio_reaches_the_command),
		cmocka_unit_test(test_status_fd_reaches_the_command_at_its_number_and_is_read),
		cmocka_unit_test(test_status_fd_below_three_is_refused),
		cmocka_unit_test(test_timeout_kills_the_whole_group_including_a_grandchild),
		cmocka_unit_test(test_command_ignoring_sigterm_is_killed_after_the_grace),
		cmocka_unit_test(test_sigterm_to_the_host_is_forwarded_to_the_command),
		cmocka_unit_test(test_sigint_to_the_host_is_forwarded_to_the_command),
		cmocka_unit_test(test_forwarded_signal_the_command_ignores_is_followed_by_sigkill),
		cmocka_unit_test(test_background_leftover_is_killed_when_the_command_exits),
		cmocka_unit_test(test_descendant_that_left_the_group_is_killed_too),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
