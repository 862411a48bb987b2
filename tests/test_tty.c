/*
 * test_tty.c — the tty answerer (plugins/tty/.libs/tty.so, real dlopen)
 * on a real pseudo-terminal: decide() runs in a child that made the pty
 * its controlling terminal (setsid + TIOCSCTTY); the test types on the
 * master side and reads what the person would see.  y, n, the deadline and
 * each on_timeout, Ctrl-C, Ctrl-D, a hang-up, no terminal at all, input
 * typed before the prompt, and a subject full of escape sequences; the
 * terminal's settings are the same afterwards on every path.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "answerers/util.h"

static const struct warden_plugin *tty;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct session {
	const char *on_timeout;         /* NULL: the default */
	long timeout_ms;
	const char *typeahead;          /* typed before decide() starts */
	const char *input;              /* typed once the prompt shows */
	int hangup;                     /* close the master after the prompt */
	int controlling;                /* 0: setsid() but no TIOCSCTTY */
	int background;                 /* decide in a background group */
	struct warden_request req;
	/* results */
	char screen[16384];
	size_t screen_len;
	int decision;
	char reason[256];               /* what decide() wrote into err */
	long took_ms;
	struct termios before, after;
};

/* In the child: become a session leader with the pty slave as controlling
 * terminal (unless s->controlling is 0), decide, report the decision as
 * the exit status (decision + 10). */
static void child(struct session *s, int master, int slave, int ready, int why)
{
	char err[256] = "";
	const char *kv[1];
	size_t n = 0;
	void *st;
	int d;

	close(master);
	/* A hang-up must reach decide() as end of input, not kill it. */
	if (s->hangup)
		signal(SIGHUP, SIG_IGN);
	if (setsid() < 0)
		_exit(2);
	if (s->controlling && ioctl(slave, TIOCSCTTY, 0) < 0)
		_exit(3);
	close(slave);
	if (s->on_timeout != NULL)
		kv[n++] = s->on_timeout;
	st = answerer_open(tty, NULL, s->timeout_ms, kv, n, err, sizeof(err));
	if (st == NULL)
		_exit(4);
	(void)!write(ready, "r", 1);
	close(ready);
	if (s->background) {
		pid_t bg = fork();
		int status;

		if (bg < 0)
			_exit(5);
		if (bg == 0) {
			/* A process group of its own: not the foreground one. */
			if (setpgid(0, 0) < 0)
				_exit(6);
			_exit(tty->decide(st, &s->req, err, sizeof(err)) + 10);
		}
		if (waitpid(bg, &status, 0) != bg || !WIFEXITED(status))
			_exit(7);
		_exit(WEXITSTATUS(status));
	}
	d = tty->decide(st, &s->req, err, sizeof(err));
	tty->close(st);
	err[sizeof(err) - 1] = '\0';
	if (d == WARDEN_DECISION_ALLOWED_FOR_SESSION && s->req.grant_choice != NULL)
		snprintf(err + strlen(err), sizeof(err) - strlen(err), " [choice %zu]",
		         *s->req.grant_choice);
	(void)!write(why, err, strlen(err));
	_exit(d + 10);
}

static void drain(struct session *s, int master, int wait_ms)
{
	struct pollfd p = { .fd = master, .events = POLLIN };
	ssize_t got;

	while (poll(&p, 1, wait_ms) > 0) {
		got = read(master, s->screen + s->screen_len,
		           sizeof(s->screen) - 1 - s->screen_len);
		if (got <= 0)
			break;
		s->screen_len += (size_t)got;
		s->screen[s->screen_len] = '\0';
		wait_ms = 0;
	}
}

static void converse(struct session *s)
{
	int master, slave, ready[2], why[2], status;
	long t0, deadline;
	ssize_t got;
	pid_t pid;
	char c;

	assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
	assert_int_equal(tcgetattr(slave, &s->before), 0);
	if (s->typeahead != NULL) {
		struct pollfd pfd = { .fd = slave, .events = POLLIN };

		assert_int_equal(write(master, s->typeahead, strlen(s->typeahead)),
		                 (ssize_t)strlen(s->typeahead));
		/* The pty hands input to the line discipline asynchronously:
		 * wait until the slave has it, so it is truly typed before the
		 * prompt (else it could land after the flush, and answer). */
		assert_int_equal(poll(&pfd, 1, 5000), 1);
	}
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(why), 0);
	t0 = now_ms();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(why[0]);
		child(s, master, slave, ready[1], why[1]);
	}
	close(ready[1]);
	close(why[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);

	/* Wait for the prompt (or for the child to finish without one). */
	deadline = now_ms() + 5000;
	while (strstr(s->screen, "[y/n]") == NULL && now_ms() < deadline &&
	       waitpid(pid, &status, WNOHANG) == 0)
		drain(s, master, 20);
	if (strstr(s->screen, "[y/n]") != NULL) {
		if (s->input != NULL)
			assert_int_equal(write(master, s->input, strlen(s->input)),
			                 (ssize_t)strlen(s->input));
		if (s->hangup) {
			close(slave);
			slave = -1;
			drain(s, master, 50);
			close(master);
			master = -1;
		}
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (master >= 0)
			drain(s, master, 20);
		else
			usleep(20000);
		if (now_ms() - t0 > 10000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("decide() did not return; screen:\n%s", s->screen);
		}
	}
	s->took_ms = now_ms() - t0;
	if (master >= 0)
		drain(s, master, 0);
	if (!WIFEXITED(status))
		fail_msg("the deciding child died: status %#x", status);
	s->decision = WEXITSTATUS(status) - 10;
	got = read(why[0], s->reason, sizeof(s->reason) - 1);
	s->reason[got > 0 ? got : 0] = '\0';
	close(why[0]);
	if (slave >= 0) {
		assert_int_equal(tcgetattr(slave, &s->after), 0);
		close(slave);
	}
	if (master >= 0)
		close(master);
}

static void assert_terminal_restored(const struct session *s)
{
	assert_int_equal(s->after.c_lflag, s->before.c_lflag);
	assert_int_equal(s->after.c_iflag, s->before.c_iflag);
	assert_int_equal(s->after.c_oflag, s->before.c_oflag);
	assert_int_equal(s->after.c_cflag, s->before.c_cflag);
	assert_memory_equal(s->after.c_cc, s->before.c_cc, sizeof(s->before.c_cc));
}

static struct session *session_new(const char *input)
{
	struct session *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->input = input;
	s->controlling = 1;
	s->req = answerer_request("bash", "rm -rf build");
	return s;
}

static char last_reason[256];

static int answer(const char *input)
{
	struct session *s = session_new(input);
	int d;

	converse(s);
	assert_terminal_restored(s);
	d = s->decision;
	snprintf(last_reason, sizeof(last_reason), "%s", s->reason);
	free(s);
	return d;
}

static void test_prompt_shows_the_request(void **unused)
{
	struct session *s = session_new("y\r");

	s->req.reason = "clean before the release";
	s->req.requested_mode = "danger-full-access";
	s->req.requested_network = "enabled";
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_ALLOWED_ONCE);
	assert_non_null(strstr(s->screen, "warden: approval requested"));
	assert_non_null(strstr(s->screen, "tool:    bash\r\n"));
	assert_non_null(strstr(s->screen, "subject: rm -rf build\r\n"));
	assert_non_null(strstr(s->screen, "cwd:     /w\r\n"));
	assert_non_null(strstr(s->screen, "reason:  clean before the release\r\n"));
	assert_non_null(strstr(s->screen, "mode:    danger-full-access\r\n"));
	assert_non_null(strstr(s->screen, "network: enabled\r\n"));
	assert_non_null(strstr(s->screen, "allow once? [y/n] "));
	assert_non_null(strstr(s->screen, "allowed once"));
	assert_terminal_restored(s);
	free(s);
}

/* A request about a command (v1.1): what will run, exactly. */
static void test_prompt_shows_the_command_that_will_run(void **unused)
{
	static const char *const argv[] = { "bash", "-c", "git status; echo 'a b'", NULL };
	static const char *const removed[] = { "BASH_ENV", "LD_PRELOAD" };
	static const char *const dropped[] = { "/w/.venv/bin", "" };
	struct session *s = session_new("n\r");

	s->req.argv = argv;
	s->req.argc = 3;
	s->req.program = "/usr/bin/bash";
	s->req.env_removed = removed;
	s->req.n_env_removed = 2;
	s->req.path_dropped = dropped;
	s->req.n_path_dropped = 2;
	s->req.path = "/usr/bin:/bin";
	s->req.call_id = "toolu_9";
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_REJECTED);
	assert_non_null(strstr(s->screen, "program: /usr/bin/bash\r\n"));
	/* Shell-quoted, then escaped like every field: a backslash shows doubled. */
	assert_non_null(strstr(s->screen,
	                       "argv:    bash -c 'git status; echo '\\\\''a b'\\\\'''\r\n"));
	assert_non_null(strstr(s->screen, "removed: BASH_ENV LD_PRELOAD\r\n"));
	assert_non_null(strstr(s->screen, "PATH:    /usr/bin:/bin\r\n"));
	assert_non_null(strstr(s->screen, "dropped: /w/.venv/bin:''\r\n"));
	assert_non_null(strstr(s->screen, "call:    toolu_9\r\n"));
	assert_null(strstr(s->screen, "WARNING"));
	assert_terminal_restored(s);
	free(s);

	/* A program the sandboxed command could have written, a script. */
	s = session_new("n\r");
	s->req.argv = argv;
	s->req.argc = 1;
	s->req.program = "/w/tool.sh";
	s->req.interpreter = "/usr/bin/dash";
	s->req.program_writable = 1;
	s->req.path = "/usr/bin";
	converse(s);
	assert_non_null(strstr(s->screen,
	                       "program: /w/tool.sh (a script run by /usr/bin/dash)\r\n"));
	assert_non_null(strstr(s->screen, "WARNING: the program lies under a writable root"));
	assert_null(strstr(s->screen, "removed:"));
	assert_null(strstr(s->screen, "dropped:"));
	assert_terminal_restored(s);
	free(s);
}

/* A request about no command shows none of it. */
static void test_prompt_without_a_command_shows_no_program(void **unused)
{
	struct session *s = session_new("n\r");

	converse(s);
	assert_null(strstr(s->screen, "program:"));
	assert_null(strstr(s->screen, "argv:"));
	assert_null(strstr(s->screen, "PATH:"));
	assert_terminal_restored(s);
	free(s);
}

static void test_yes_allows_once_and_no_rejects(void **unused)
{
	/* Each with its reason (ABI 1.1): the answer as typed. */
	assert_int_equal(answer("y\r"), WARDEN_DECISION_ALLOWED_ONCE);
	assert_string_equal(last_reason, "the user answered 'y'");
	assert_int_equal(answer("YES\n"), WARDEN_DECISION_ALLOWED_ONCE);
	assert_string_equal(last_reason, "the user answered 'YES'");
	assert_int_equal(answer("n\r"), WARDEN_DECISION_REJECTED);
	assert_string_equal(last_reason, "the user answered 'n'");
	assert_int_equal(answer("No\r"), WARDEN_DECISION_REJECTED);
	assert_string_equal(last_reason, "the user answered 'No'");
	/* Anything else asks again; backspace edits the answer. */
	assert_int_equal(answer("maybe\ryx\x7f\r"), WARDEN_DECISION_ALLOWED_ONCE);
	assert_int_equal(answer("yy\rn\r"), WARDEN_DECISION_REJECTED);
}

/* ABI 1.4: the grants offered are shown numbered; s or sN allows for
 * the session under the first or the N-th; a number past them asks again;
 * y stays allowed-once. */
static struct session *scoped(const char *input, const char *const *names,
                              const char *const *texts, size_t *choice)
{
	struct session *s = session_new(input);

	s->req.grant_scopes = names;
	s->req.grant_texts = texts;
	s->req.n_grant_scopes = 2;
	s->req.grant_choice = choice;
	converse(s);
	assert_terminal_restored(s);
	return s;
}

static void test_session_answers_pick_an_offered_grant(void **unused)
{
	static const char *const names[] = { "exact", "prefix:1" };
	static const char *const texts[] = { "exactly `rm -rf build`", "`rm ...` \033[2J" };
	size_t choice = 0;
	struct session *s;

	(void)unused;
	s = scoped("s2\r", names, texts, &choice);
	assert_int_equal(s->decision, WARDEN_DECISION_ALLOWED_FOR_SESSION);
	assert_string_equal(s->reason, "the user answered 's2' [choice 1]");
	assert_non_null(strstr(s->screen, "grants:  s1 exact: exactly `rm -rf build`\r\n"));
	assert_non_null(strstr(s->screen, "s2 prefix:1: `rm ...` \\x1b[2J\r\n"));
	assert_non_null(strstr(s->screen, "allow once? [y/n] for the session? [s1-s2] "));
	assert_non_null(strstr(s->screen, "allowed for the session"));
	free(s);
	s = scoped("s3\rS\r", names, texts, &choice);
	assert_int_equal(s->decision, WARDEN_DECISION_ALLOWED_FOR_SESSION);
	assert_string_equal(s->reason, "the user answered 'S' [choice 0]");
	assert_non_null(strstr(s->screen, "answer y, n, s or s1 to s2: "));
	free(s);
	s = scoped("y\r", names, texts, &choice);
	assert_int_equal(s->decision, WARDEN_DECISION_ALLOWED_ONCE);
	free(s);
	/* Without an offer, s is no answer. */
	assert_int_equal(answer("s\rn\r"), WARDEN_DECISION_REJECTED);
}

static void test_ctrl_c_ctrl_d_and_hangup_cancel(void **unused)
{
	struct session *s;

	assert_int_equal(answer("\x03"), WARDEN_DECISION_CANCELLED);
	assert_string_equal(last_reason, "the user pressed the interrupt key");
	assert_int_equal(answer("y\x03"), WARDEN_DECISION_CANCELLED);
	assert_int_equal(answer("\x04"), WARDEN_DECISION_CANCELLED);
	assert_string_equal(last_reason, "the user ended the input");
	s = session_new(NULL);
	s->hangup = 1;
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_CANCELLED);
	assert_string_equal(s->reason, "the terminal hung up");
	free(s);
}

static void test_input_typed_before_the_prompt_is_discarded(void **unused)
{
	struct session *s = session_new("n\r");

	s->typeahead = "y\r";
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_REJECTED);
	assert_terminal_restored(s);
	free(s);
}

static void timeout_gives(const char *on_timeout, int want, const char *shown)
{
	struct session *s = session_new(NULL);

	s->on_timeout = on_timeout;
	s->timeout_ms = 300;
	converse(s);
	assert_int_equal(s->decision, want);
	assert_non_null(strstr(s->reason, "no answer within 270 ms (on_timeout = "));
	/* A tenth early: it answers before the host's own timeout. */
	assert_true(s->took_ms >= 270 && s->took_ms < 5000);
	assert_non_null(strstr(s->screen, shown));
	assert_terminal_restored(s);
	free(s);
}

static void test_timeout_gives_on_timeout(void **unused)
{
	timeout_gives(NULL, WARDEN_DECISION_REJECTED, "(1 s, then rejected)");
	timeout_gives("on_timeout=rejected", WARDEN_DECISION_REJECTED, "rejected");
	timeout_gives("on_timeout=cancelled", WARDEN_DECISION_CANCELLED,
	              "then cancelled");
	timeout_gives("on_timeout=next", WARDEN_DECISION_DELEGATE,
	              "then the next answerer");
}

static void test_no_terminal_delegates(void **unused)
{
	struct session *s = session_new("y\r");

	s->controlling = 0;
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_DELEGATE);
	assert_null(strstr(s->screen, "[y/n]"));
	free(s);
}

static void test_background_process_group_delegates(void **unused)
{
	struct session *s = session_new("y\r");

	s->background = 1;
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_DELEGATE);
	assert_null(strstr(s->screen, "[y/n]"));
	assert_terminal_restored(s);
	free(s);
}

static void test_escape_sequences_in_fields_are_shown_escaped(void **unused)
{
	struct session *s = session_new("n\r");

	/* A subject that clears the screen, draws a harmless request and a
	 * prompt of its own, then hides in C1 and bidi controls. */
	s->req.subject = "rm -rf ~\x1b[2J\x1b[H\rsubject: ls\nallow once? [y/n] "
	                 "\xc2\x9b" "31m\xe2\x80\xae" "txt.exe\x07\xff\\";
	s->req.tool = "bash\x1b]0;title\x07";
	s->req.cwd = "/w\tx";
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_REJECTED);
	/* No byte of the fields reached the terminal as a control. */
	assert_null(memchr(s->screen, 0x1b, s->screen_len));
	assert_null(memchr(s->screen, 0x07, s->screen_len));
	assert_null(strstr(s->screen, "\xc2\x9b"));
	assert_null(strstr(s->screen, "\xe2\x80\xae"));
	assert_non_null(strstr(s->screen, "subject: rm -rf ~\\x1b[2J\\x1b[H\\rsubject: "
	                                  "ls\\nallow once? [y/n] \\u{009b}31m"
	                                  "\\u{202e}txt.exe\\x07\\xff\\\\\r\n"));
	assert_non_null(strstr(s->screen, "tool:    bash\\x1b]0;title\\x07\r\n"));
	assert_non_null(strstr(s->screen, "cwd:     /w\\tx\r\n"));
	assert_terminal_restored(s);
	free(s);
}

static void test_long_subject_is_cut_and_says_so(void **unused)
{
	struct session *s = session_new("n\r");
	char *big = malloc(5001);

	assert_non_null(big);
	memset(big, 'a', 5000);
	big[5000] = '\0';
	s->req.subject = big;
	converse(s);
	assert_int_equal(s->decision, WARDEN_DECISION_REJECTED);
	assert_non_null(strstr(s->screen, "aaaa [3976 more bytes]\r\n"));
	free(big);
	free(s);
}

static void test_bad_config_is_refused(void **unused)
{
	const char *bad[] = { "on_timeout=allowed-once" };
	const char *unknown[] = { "on_timeout=next", "timeout=5" };
	char err[256];

	assert_null(answerer_open(tty, NULL, 0, bad, 1, err, sizeof(err)));
	assert_string_equal(err, "line 1: on_timeout = allowed-once: allowed: "
	                         "rejected, cancelled, next");
	assert_null(answerer_open(tty, NULL, 0, unknown, 2, err, sizeof(err)));
	assert_non_null(strstr(err, "line 2: unknown key 'timeout' (tty knows: "
	                            "on_timeout"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prompt_shows_the_request),
		cmocka_unit_test(test_prompt_shows_the_command_that_will_run),
		cmocka_unit_test(test_prompt_without_a_command_shows_no_program),
		cmocka_unit_test(test_yes_allows_once_and_no_rejects),
		cmocka_unit_test(test_session_answers_pick_an_offered_grant),
		cmocka_unit_test(test_ctrl_c_ctrl_d_and_hangup_cancel),
		cmocka_unit_test(test_input_typed_before_the_prompt_is_discarded),
		cmocka_unit_test(test_timeout_gives_on_timeout),
		cmocka_unit_test(test_no_terminal_delegates),
		cmocka_unit_test(test_background_process_group_delegates),
		cmocka_unit_test(test_escape_sequences_in_fields_are_shown_escaped),
		cmocka_unit_test(test_long_subject_is_cut_and_says_so),
		cmocka_unit_test(test_bad_config_is_refused),
	};

	tty = answerer_load("tty");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
