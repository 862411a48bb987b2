/* test_classify.c — run classification and out-of-band evidence, with
 * hostile stderr (huge lines, NUL bytes, CRLF, forged runner lines). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classify.h"

/* The rule tables of the two shipped runners, as their plugins declare
 * them: the Landlock runner's fatal line and partial-ABI notice, and
 * bubblewrap's "bwrap: " lines. */
#define LANDLOCK_NOTICE \
	"warden-landlock-run: notice: kernel Landlock ABI is older than warden's; enforcement is partial"
static const int ll_codes[] = { 125 };
static const char *const ll_fatal[] = { "warden-landlock-run: fatal:" };
static const char *const ll_info[] = { LANDLOCK_NOTICE };
static const struct warden_runner_rule ll_rules[] = {
	{ ll_codes, 1, ll_fatal, 1, ll_info, 1 },
};
static const char *const ll_denial[] = { "Permission denied" };
static const struct warden_classify_facts landlock = {
	ll_rules, 1, ll_denial, 1,
};

static const int bw_codes[] = { 1 };
static const char *const bw_fatal[] = { "bwrap: " };
static const struct warden_runner_rule bw_rules[] = {
	{ bw_codes, 1, bw_fatal, 1, NULL, 0 },
};
static const char *const bw_denial[] = { "Read-only file system" };
static const struct warden_classify_facts bwrap = {
	bw_rules, 1, bw_denial, 1,
};

static int exited(int code)
{
	return (code & 0xff) << 8; /* the wait status of exit(code) */
}

static int signalled(int sig)
{
	return sig & 0x7f;
}

static int classify_bytes(const struct warden_classify_facts *f, int status,
                          const char *err, size_t len, int evidence)
{
	struct warden_run_facts run = { status, err, len, evidence };
	struct warden_classification c;

	memset(&c, 0xa5, sizeof(c));
	warden_classify(f, &run, &c);
	assert_non_null(memchr(c.reason, '\0', sizeof(c.reason)));
	assert_non_null(warden_class_name(c.cls));
	return c.cls;
}

static int classify(const struct warden_classify_facts *f, int status,
                    const char *err, int evidence)
{
	return classify_bytes(f, status, err, err ? strlen(err) : 0, evidence);
}

static void test_class_names_are_the_design_strings(void **s)
{
	(void)s;
	assert_string_equal(warden_class_name(WARDEN_CLASS_OK), "ok");
	assert_string_equal(warden_class_name(WARDEN_CLASS_FAILED), "failed");
	assert_string_equal(warden_class_name(WARDEN_CLASS_DENIED), "denied");
	assert_string_equal(warden_class_name(WARDEN_CLASS_SANDBOX_ERROR), "sandbox-error");
	assert_null(warden_class_name(0));
	assert_null(warden_class_name(5));
}

static void test_exit_zero_is_ok_and_nonzero_is_failed(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(0), "", WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_OK);
	assert_int_equal(classify(&bwrap, exited(3), "boom\n", WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, exited(3), NULL, WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
	assert_int_equal(classify(NULL, exited(3), "x", WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
}

static void test_signal_death_is_failed_never_runner_failure(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, signalled(SIGKILL), "bwrap: oops\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, signalled(SIGSEGV), "", WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_FAILED);
}

static void test_runner_fatal_line_with_its_exit_code_is_sandbox_error(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "bwrap: Can't find source path /x: No such file\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_SANDBOX_ERROR);
	assert_int_equal(classify(&landlock, exited(125),
	                          "warden-landlock-run: fatal: landlock_restrict_self: EPERM\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_fatal_signature_is_case_insensitive_substring(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "xx BWRAP: bad\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	assert_int_equal(classify(&landlock, exited(125),
	                          "WARDEN-LANDLOCK-RUN: FATAL: x", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_exit_status_alone_never_proves_runner_failure(void **s)
{
	(void)s;
	assert_int_equal(classify(&landlock, exited(125), "", WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, exited(1), "some error\n", WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
}

static void test_fatal_line_with_exit_zero_is_ok(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(0), "bwrap: something\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_OK);
}

static void test_fatal_line_outside_the_rule_exit_codes_is_the_command_failure(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(2), "bwrap: forged\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&landlock, exited(1), "warden-landlock-run: fatal: forged\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
}

static void test_rule_without_exit_codes_accepts_any_nonzero_exit(void **s)
{
	static const char *const fatal[] = { "sandbox-exec: " };
	static const struct warden_runner_rule rules[] = { { NULL, 0, fatal, 1, NULL, 0 } };
	static const struct warden_classify_facts f = { rules, 1, NULL, 0 };

	(void)s;
	assert_int_equal(classify(&f, exited(71), "sandbox-exec: bad profile\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	assert_int_equal(classify(&f, exited(0), "sandbox-exec: x\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_OK);
}

static void test_rule_without_fatal_signatures_never_matches(void **s)
{
	static const int codes[] = { 1 };
	static const struct warden_runner_rule rules[] = { { codes, 1, NULL, 0, NULL, 0 } };
	static const struct warden_classify_facts f = { rules, 1, NULL, 0 };

	(void)s;
	assert_int_equal(classify(&f, exited(1), "anything\n", WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
}

static void test_partial_abi_notice_then_child_exits_are_child_outcomes(void **s)
{
	static const int codes[] = { 1, 2, 125 };
	size_t i;

	(void)s;
	for (i = 0; i < 3; i++) {
		/* Without evidence the notice alone must not count ... */
		assert_int_equal(classify(&landlock, exited(codes[i]), LANDLOCK_NOTICE "\n",
		                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
		/* ... and with evidence that exec happened, nothing in stderr can. */
		assert_int_equal(classify(&landlock, exited(codes[i]), LANDLOCK_NOTICE "\n",
		                          WARDEN_EXEC_HAPPENED), WARDEN_CLASS_FAILED);
	}
	assert_int_equal(classify(&landlock, exited(0), LANDLOCK_NOTICE "\n",
	                          WARDEN_EXEC_HAPPENED), WARDEN_CLASS_OK);
}

static void test_informational_line_matches_whole_line_case_insensitively(void **s)
{
	(void)s;
	/* Upper case and CRLF: still the notice, removed. */
	assert_int_equal(classify(&landlock, exited(125),
	                          "WARDEN-LANDLOCK-RUN: NOTICE: KERNEL LANDLOCK ABI IS OLDER THAN WARDEN'S; ENFORCEMENT IS PARTIAL\r\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
}

static void test_informational_removal_is_exact_not_a_prefix(void **s)
{
	static const char *const fatal[] = { "runner: " };
	static const char *const info[] = { "runner: note" };
	static const int codes[] = { 125 };
	static const struct warden_runner_rule rules[] = { { codes, 1, fatal, 1, info, 1 } };
	static const struct warden_classify_facts f = { rules, 1, NULL, 0 };

	(void)s;
	assert_int_equal(classify(&f, exited(125), "runner: note\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	/* The notice with anything appended is not the notice. */
	assert_int_equal(classify(&f, exited(125), "runner: note and more\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	assert_int_equal(classify(&f, exited(125), " runner: note\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_notice_does_not_hide_a_real_fatal_line(void **s)
{
	(void)s;
	assert_int_equal(classify(&landlock, exited(125),
	                          LANDLOCK_NOTICE "\nwarden-landlock-run: fatal: exec: No such file\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_child_printing_the_fatal_line_is_a_child_outcome_when_exec_happened(void **s)
{
	(void)s;
	assert_int_equal(classify(&landlock, exited(125),
	                          "warden-landlock-run: fatal: forged by the command\n",
	                          WARDEN_EXEC_HAPPENED), WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, exited(1), "bwrap: forged\n", WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_FAILED);
}

static void test_evidence_not_happened_is_sandbox_error_whatever_stderr_says(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "", WARDEN_EXEC_NOT_HAPPENED),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	assert_int_equal(classify(&bwrap, exited(1), "Read-only file system\n", WARDEN_EXEC_NOT_HAPPENED),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	assert_int_equal(classify(&landlock, exited(2), "", WARDEN_EXEC_NOT_HAPPENED),
	                 WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_denial_signature_on_failed_run_is_denied(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "sh: 1: cannot create /x: Read-only file system\n",
	                          WARDEN_EXEC_HAPPENED), WARDEN_CLASS_DENIED);
	assert_int_equal(classify(&landlock, exited(2), "touch: cannot touch '/x': PERMISSION DENIED\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_DENIED);
}

static void test_denial_signature_on_successful_run_is_not_a_denial(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(0), "cannot create /x: Read-only file system\n",
	                          WARDEN_EXEC_HAPPENED), WARDEN_CLASS_OK);
	assert_int_equal(classify(&landlock, exited(0), "Permission denied\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_OK);
}

static void test_denial_uses_only_the_backends_own_dialect(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "Permission denied\n", WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&landlock, exited(1), "Read-only file system\n", WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_FAILED);
}

static void test_runner_failure_outranks_denial(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "bwrap: Read-only file system\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_signature_split_across_lines_does_not_match(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "bwr\nap: x\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, exited(1), "Read-only\nfile system\n", WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_FAILED);
}

static void test_nul_bytes_are_ordinary_bytes(void **s)
{
	static const char fatal_after_nul[] = "noise\0bwrap: x\n";
	static const char split_by_nul[] = "bwr\0ap: x\n";
	static const char denial_after_nul[] = "\0\0Read-only file system";

	(void)s;
	/* A NUL neither ends the buffer nor hides what follows it ... */
	assert_int_equal(classify_bytes(&bwrap, exited(1), fatal_after_nul,
	                                sizeof(fatal_after_nul) - 1, WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	/* ... nor joins what it separates. */
	assert_int_equal(classify_bytes(&bwrap, exited(1), split_by_nul,
	                                sizeof(split_by_nul) - 1, WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	assert_int_equal(classify_bytes(&bwrap, exited(1), denial_after_nul,
	                                sizeof(denial_after_nul) - 1, WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_DENIED);
}

static void test_nul_inside_the_notice_makes_it_another_line(void **s)
{
	char buf[256];
	size_t n = strlen(LANDLOCK_NOTICE);

	(void)s;
	memcpy(buf, LANDLOCK_NOTICE, n);
	buf[5] = '\0';
	/* Not the notice any more, but no fatal signature either. */
	assert_int_equal(classify_bytes(&landlock, exited(125), buf, n, WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
}

static void test_crlf_and_lone_cr_line_ends(void **s)
{
	(void)s;
	assert_int_equal(classify(&landlock, exited(125), LANDLOCK_NOTICE "\r\n" LANDLOCK_NOTICE "\r\n",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
	/* A lone CR in the middle is part of the line: not the notice. */
	assert_int_equal(classify(&landlock, exited(125), "warden-landlock-run: notice\rfatal",
	                          WARDEN_EXEC_UNKNOWN), WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, exited(1), "\r\n\r\nbwrap: x\r\n", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
}

static void test_huge_lines_are_matched_without_limits(void **s)
{
	size_t n = 8 * 1024 * 1024, i;
	char *buf = malloc(n);

	(void)s;
	assert_non_null(buf);
	for (i = 0; i < n; i++)
		buf[i] = (char)('a' + i % 26);
	assert_int_equal(classify_bytes(&bwrap, exited(1), buf, n, WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	memcpy(buf + n - 7, "bwrap: ", 7);
	assert_int_equal(classify_bytes(&bwrap, exited(1), buf, n, WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_SANDBOX_ERROR);
	memset(buf, '\n', n);
	assert_int_equal(classify_bytes(&bwrap, exited(1), buf, n, WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	free(buf);
}

static void test_tail_ending_inside_a_signature_does_not_match(void **s)
{
	(void)s;
	assert_int_equal(classify(&bwrap, exited(1), "bwrap:", WARDEN_EXEC_UNKNOWN),
	                 WARDEN_CLASS_FAILED);
	assert_int_equal(classify(&bwrap, exited(1), "Read-only file syst", WARDEN_EXEC_HAPPENED),
	                 WARDEN_CLASS_FAILED);
}

static void test_runner_failed_reports_the_matching_rule(void **s)
{
	static const char *const f1[] = { "one: " };
	static const char *const f2[] = { "two: " };
	static const struct warden_runner_rule rules[] = {
		{ NULL, 0, f1, 1, NULL, 0 }, { NULL, 0, f2, 1, NULL, 0 },
	};
	static const struct warden_classify_facts f = { rules, 2, NULL, 0 };
	size_t idx = 99;

	(void)s;
	assert_int_equal(warden_classify_runner_failed(&f, exited(3), "two: x", 6, &idx), 1);
	assert_int_equal(idx, 1);
	assert_int_equal(warden_classify_runner_failed(&f, exited(3), "three", 5, &idx), 0);
}

/* ------------------------------------------------------------ evidence */

static int evidence(int kind, const char *buf, int status, char *why)
{
	int exec = -1;

	warden_evidence_parse(kind, buf, buf ? strlen(buf) : 0, status, &exec, why, 128);
	return exec;
}

static void test_bwrap_exit_code_object_means_exec_happened(void **s)
{
	char why[128];

	(void)s;
	assert_int_equal(evidence(WARDEN_EVIDENCE_BWRAP_JSON,
	                          "{ \"child-pid\": 12, \"mnt-namespace\": 4026532178 }\n{ \"exit-code\": 1 }",
	                          exited(1), why), WARDEN_EXEC_HAPPENED);
	/* Even when the command exits as bwrap would on failure. */
	assert_int_equal(evidence(WARDEN_EVIDENCE_BWRAP_JSON,
	                          "{\"child-pid\":12}{\"exit-code\":137}", exited(137), why),
	                 WARDEN_EXEC_HAPPENED);
}

static void test_bwrap_child_pid_only_and_failed_exit_means_not_happened(void **s)
{
	char why[128];

	(void)s;
	assert_int_equal(evidence(WARDEN_EVIDENCE_BWRAP_JSON,
	                          "{ \"child-pid\": 8282, \"mnt-namespace\": 4026532178 }\n",
	                          exited(1), why), WARDEN_EXEC_NOT_HAPPENED);
	assert_true(why[0] != '\0');
	assert_int_equal(evidence(WARDEN_EVIDENCE_BWRAP_JSON, "", exited(1), why),
	                 WARDEN_EXEC_NOT_HAPPENED);
}

static void test_bwrap_killed_from_outside_proves_nothing(void **s)
{
	char why[128];

	(void)s;
	assert_int_equal(evidence(WARDEN_EVIDENCE_BWRAP_JSON, "{ \"child-pid\": 8 }",
	                          signalled(SIGKILL), why), WARDEN_EXEC_UNKNOWN);
}

static void test_bwrap_malformed_or_hostile_json_never_proves_exec(void **s)
{
	static const char *const bad[] = {
		"{ \"exit-code\": \"0\" }",          /* not an integer */
		"{ \"exit-code\": 1.5 }",
		"[ { \"exit-code\": 1 } ]",          /* not an object */
		"{ \"child-pid\": 1 } garbage { \"exit-code\": 1 }",
		"{ \"exit-code\": 1, \"exit-code\": 2 }", /* duplicate key */
		"{ \"exit-code\"",
		"\"exit-code\"",
	};
	char why[128];
	size_t i;

	(void)s;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_not_equal(evidence(WARDEN_EVIDENCE_BWRAP_JSON, bad[i], exited(1), why),
		                     WARDEN_EXEC_HAPPENED);
}

static void test_bwrap_evidence_with_nul_bytes(void **s)
{
	static const char buf[] = "{\"child-pid\":1}\0{\"exit-code\":0}";
	int exec;

	(void)s;
	warden_evidence_parse(WARDEN_EVIDENCE_BWRAP_JSON, buf, sizeof(buf) - 1, exited(1),
	                      &exec, NULL, 0);
	assert_int_not_equal(exec, WARDEN_EXEC_HAPPENED);
}

static void test_exec_pipe_only_started_then_eof_is_happened(void **s)
{
	char why[128];

	(void)s;
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "started\n", exited(3), why),
	                 WARDEN_EXEC_HAPPENED);
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "started\n", exited(125), why),
	                 WARDEN_EXEC_HAPPENED);
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "started\nfatal: exec: x: No such file or directory\n",
	                          exited(125), why), WARDEN_EXEC_NOT_HAPPENED);
	assert_string_equal(why, "exec: x: No such file or directory");
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "fatal: execve: No such file or directory\n",
	                          exited(125), why), WARDEN_EXEC_NOT_HAPPENED);
	assert_string_equal(why, "execve: No such file or directory");
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "x", exited(0), why), WARDEN_EXEC_NOT_HAPPENED);
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "started", exited(0), why),
	                 WARDEN_EXEC_NOT_HAPPENED);
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "started\nstarted\n", exited(0), why),
	                 WARDEN_EXEC_NOT_HAPPENED);
}

/* Regression: a runner that died before it took the status fd (a bad
 * argument parsed first, or a runner that could not be executed at all)
 * leaves the pipe empty; that once read as "exec happened". */
static void test_exec_pipe_empty_is_never_started_not_happened(void **s)
{
	char why[128];

	(void)s;
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "", exited(125), why),
	                 WARDEN_EXEC_NOT_HAPPENED);
	assert_non_null(strstr(why, "never started"));
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, NULL, exited(127), why),
	                 WARDEN_EXEC_NOT_HAPPENED);
	assert_int_equal(evidence(WARDEN_EVIDENCE_EXEC_PIPE, "", exited(0), why),
	                 WARDEN_EXEC_NOT_HAPPENED);
}

static void test_exec_pipe_reason_is_one_printable_line(void **s)
{
	static const char buf[] = "fatal: a\x01\x7f" "b\0c\nsecond line";
	char why[128];
	int exec;

	(void)s;
	warden_evidence_parse(WARDEN_EVIDENCE_EXEC_PIPE, buf, sizeof(buf) - 1, exited(125),
	                      &exec, why, sizeof(why));
	assert_int_equal(exec, WARDEN_EXEC_NOT_HAPPENED);
	assert_string_equal(why, "a??b?c");
	/* A tiny buffer is still terminated. */
	warden_evidence_parse(WARDEN_EVIDENCE_EXEC_PIPE, buf, sizeof(buf) - 1, exited(125),
	                      &exec, why, 2);
	assert_string_equal(why, "a");
}

static void test_no_evidence_kind_is_unknown(void **s)
{
	char why[128];

	(void)s;
	assert_int_equal(evidence(WARDEN_EVIDENCE_NONE, "{\"exit-code\":0}", exited(0), why),
	                 WARDEN_EXEC_UNKNOWN);
	assert_int_equal(evidence(99, "", exited(0), why), WARDEN_EXEC_UNKNOWN);
}

static void test_evidence_read_keeps_the_start_and_drains_to_eof(void **s)
{
	char *buf = malloc(WARDEN_EVIDENCE_MAX);
	struct warden_error err = { 0, "" };
	size_t len = 0, total = 3 * WARDEN_EVIDENCE_MAX, done = 0;
	int fds[2];
	pid_t pid;

	(void)s;
	assert_non_null(buf);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char block[512];

		close(fds[0]);
		memset(block, 'z', sizeof(block));
		memcpy(block, "fatal: x", 8);
		while (done < total) {
			if (write(fds[1], block, sizeof(block)) != (ssize_t)sizeof(block))
				_exit(1);
			memset(block, 'z', 8);
			done += sizeof(block);
		}
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(warden_evidence_read(fds[0], buf, &len, &err), 0);
	assert_int_equal(len, WARDEN_EVIDENCE_MAX);
	assert_memory_equal(buf, "fatal: x", 8);
	close(fds[0]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	free(buf);
}

static void test_evidence_read_error_is_reported(void **s)
{
	char buf[WARDEN_EVIDENCE_MAX];
	struct warden_error err = { 0, "" };
	size_t len = 7;

	(void)s;
	assert_int_equal(warden_evidence_read(-1, buf, &len, &err), -WARDEN_EIO);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err.msg, "status channel"));
}

static int net(const char *tail, char *line, size_t len)
{
	return warden_classify_network_denied(tail, strlen(tail), line, len);
}

static void test_network_denials_are_told_from_other_failures(void **unused)
{
	char line[64];

	(void)unused;
	/* bash's /dev/tcp, the netguard's EACCES */
	assert_int_equal(net("bash: connect: Permission denied\n"
	                     "bash: /dev/tcp/127.0.0.1/80: Permission denied\n",
	                     line, sizeof(line)), 1);
	assert_string_equal(line, "bash: connect: Permission denied");
	/* a Python traceback: the call two lines above the error */
	assert_int_equal(net("Traceback (most recent call last):\n"
	                     "  File \"c.py\", line 3, in <module>\n"
	                     "    s.connect((\"127.0.0.1\", 80))\n"
	                     "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
	                     "PermissionError: [Errno 13] Permission denied\r\n",
	                     line, sizeof(line)), 1);
	assert_string_equal(line, "PermissionError: [Errno 13] Permission denied");
	/* the gate's supervisor says so itself (a C-level connect() in a
	 * traceback names no call) */
	assert_int_equal(net("warden: connect to /run/x.sock refused by the restricted network (allow_unix_socket lists the host sockets it lets through)\n"
	                     "Traceback (most recent call last):\n"
	                     "  File \"<string>\", line 1, in <module>\n"
	                     "PermissionError: [Errno 13] Permission denied\n",
	                     line, sizeof(line)), 1);
	/* a network namespace of its own, a lookup, curl */
	assert_int_equal(net("ping: connect: Network is unreachable\n", line, sizeof(line)), 1);
	assert_int_equal(net("git: Temporary failure in name resolution\n", line, sizeof(line)), 1);
	assert_int_equal(net("curl: (6) Could not resolve host: example.org\n", line, sizeof(line)), 1);
	assert_int_equal(net("curl: (7) Failed to connect to 127.0.0.1 port 80: Connection refused\n",
	                     line, sizeof(line)), 1);
	assert_int_equal(net("curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server\n",
	                     line, sizeof(line)), 1);
	/* cut to fit */
	assert_int_equal(net("nc: socket: Operation not permitted, and a very long tail after it\n",
	                     line, 16), 1);
	assert_string_equal(line, "nc: socket: Ope");
	/* file denials and other failures are not network denials */
	assert_int_equal(net("touch: cannot touch '/etc/x': Permission denied\n", line, sizeof(line)), 0);
	assert_string_equal(line, "");
	assert_int_equal(net("bash: /w/network-tools/f: Permission denied\n", line, sizeof(line)), 0);
	assert_int_equal(net("sh: 1: cannot create /x: Read-only file system\n"
	                     "make: *** [all] Error 1\n", line, sizeof(line)), 0);
	/* a network word more than three lines above does not count */
	assert_int_equal(net("connecting\na\nb\nc\nrm: Permission denied\n", line, sizeof(line)), 0);
	assert_int_equal(net("connecting\na\nb\nrm: Permission denied\n", line, sizeof(line)), 1);
	assert_int_equal(warden_classify_network_denied(NULL, 0, line, sizeof(line)), 0);
}

/* ------------------------------------------------------- held refusals */

static const char *const git_config[] = { "/ws/.git/config" };

/* held_refusal() over a C string, with line and path filled with junk
 * first: every call must leave both terminated. */
static int held_in(const char *tail, size_t len, const char *dir,
                   const char *const *held, size_t n_held, char path[4096],
                   char *line, size_t linelen)
{
	int r;

	memset(path, 0xa5, 4096);
	if (linelen > 0)
		memset(line, 0xa5, linelen);
	r = warden_classify_held_refusal(tail, len, dir, held, n_held, path,
	                                 line, linelen);
	assert_non_null(memchr(path, '\0', 4096));
	if (linelen > 0)
		assert_non_null(memchr(line, '\0', linelen));
	if (r == 0) {
		assert_string_equal(path, "");
		if (linelen > 0)
			assert_string_equal(line, "");
	}
	return r;
}

static int held1(const char *tail, const char *dir, const char *pattern,
                 char path[4096], char *line, size_t linelen)
{
	const char *const held[] = { pattern };

	return held_in(tail, strlen(tail), dir, held, 1, path, line, linelen);
}

static void test_ebusy_on_pinned_git_config_is_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("error: could not write config file .git/config: Device or resource busy\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_string_equal(line, "error: could not write config file .git/config: Device or resource busy");
	/* the same, absolute, and without a directory to resolve against */
	assert_int_equal(held1("sed: couldn't edit /ws/.git/config: Device or resource busy",
	                       NULL, "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_string_equal(line, "sed: couldn't edit /ws/.git/config: Device or resource busy");
}

static void test_erofs_below_a_held_directory_is_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("touch: cannot touch '/ws/.git/hooks/x': Read-only file system\n",
	                       "/ws", "/ws/.git/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/x");
	assert_string_equal(line, "touch: cannot touch '/ws/.git/hooks/x': Read-only file system");
	/* deeper below it, and the held directory itself */
	assert_int_equal(held1("cp: cannot create regular file '/ws/.git/hooks/a/b/c': Read-only file system",
	                       "/ws", "/ws/.git/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/a/b/c");
	assert_int_equal(held1("rmdir: failed to remove '/ws/.git/hooks': Read-only file system",
	                       "/ws", "/ws/.git/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks");
}

static void test_eacces_and_eperm_on_a_held_path_are_held_refusals(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("bash: .git/config: Permission denied", "/ws",
	                       "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_string_equal(line, "bash: .git/config: Permission denied");
	assert_int_equal(held1("chmod: changing permissions of '/ws/.git/config': Operation not permitted",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_string_equal(line, "chmod: changing permissions of '/ws/.git/config': Operation not permitted");
}

static void test_ebusy_on_a_directory_on_the_way_to_a_held_path_is_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("mv: cannot move '.git' to 'x': Device or resource busy\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git");
	assert_string_equal(line, "mv: cannot move '.git' to 'x': Device or resource busy");
	/* the workspace itself is on the way too */
	assert_int_equal(held1("rm: cannot remove '/ws': Device or resource busy",
	                       "/", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws");
}

static void test_erofs_eacces_eperm_on_a_directory_on_the_way_are_not_held_refusals(void **s)
{
	char path[4096], line[256];

	(void)s;
	/* Only EBUSY tells that a directory is pinned by what it holds. */
	assert_int_equal(held1("mv: cannot move '.git' to 'x': Read-only file system\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("mv: cannot move '.git' to 'x': Permission denied\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("mv: cannot move '.git' to 'x': Operation not permitted\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_ebusy_on_a_name_sharing_a_prefix_is_not_on_the_way(void **s)
{
	char path[4096], line[256];

	(void)s;
	/* "/ws/.gi" and "/ws/.git/conf" are prefixes of the held string but
	 * not directories on the way to it; "/ws/.git/configx" is a sibling */
	assert_int_equal(held1("mv: cannot move '/ws/.gi' to 'x': Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("mv: cannot move '/ws/.git/conf' to 'x': Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("cannot write '/ws/.git/configx': Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("cannot write '/ws/.gitx/config': Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_glob_component_of_a_held_path_matches_one_component(void **s)
{
	const char *pattern = "/ws/.git/modules/*/hooks";
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("cp: cannot create regular file '/ws/.git/modules/sub/hooks/pre-commit': Read-only file system",
	                       "/ws", pattern, path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/modules/sub/hooks/pre-commit");
	/* a relative name, from the workspace */
	assert_int_equal(held1("touch: cannot touch '.git/modules/lib/hooks/post-checkout': Permission denied",
	                       "/ws", pattern, path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/modules/lib/hooks/post-checkout");
	/* '*' never crosses a '/' */
	assert_int_equal(held1("cp: cannot create '/ws/.git/modules/a/b/hooks/x': Read-only file system",
	                       "/ws", pattern, path, line, sizeof(line)), 0);
	/* another directory of the submodule */
	assert_int_equal(held1("cp: cannot create '/ws/.git/modules/sub/info/x': Read-only file system",
	                       "/ws", pattern, path, line, sizeof(line)), 0);
	/* EBUSY on the fixed part above the glob: on the way */
	assert_int_equal(held1("mv: cannot move '/ws/.git/modules' to '/ws/m': Device or resource busy",
	                       "/ws", pattern, path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/modules");
}

static void test_gnu_curly_quotes_around_the_path_are_removed(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("touch: cannot touch \xe2\x80\x98/ws/.git/hooks/x\xe2\x80\x99: Read-only file system\n",
	                       "/ws", "/ws/.git/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/x");
	assert_string_equal(line, "touch: cannot touch \xe2\x80\x98/ws/.git/hooks/x\xe2\x80\x99: Read-only file system");
	/* relative, in curly quotes */
	assert_int_equal(held1("mv: cannot move \xe2\x80\x98.git\xe2\x80\x99 to \xe2\x80\x98y\xe2\x80\x99: Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git");
	/* a lone or cut UTF-8 quote is no path */
	assert_int_equal(held1("x \xe2\x80\x98 \xe2\x80\x99 \xe2\x80 \xe2: Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_quoted_path_with_a_space_is_one_word(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("touch: cannot touch '/home/a b/.git/config': Permission denied",
	                       "/ws", "/home/a b/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/home/a b/.git/config");
	assert_int_equal(held1("python: can't open \"my repo/.git/config\": Read-only file system",
	                       "/home", "/home/my repo/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/home/my repo/.git/config");
	/* old GNU quoting: `...' */
	assert_int_equal(held1("mv: cannot move `/home/a b/.git' to `x': Device or resource busy",
	                       "/ws", "/home/a b/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/home/a b/.git");
	/* unquoted, the words are separate: neither half is held */
	assert_int_equal(held1("touch: cannot touch /home/a b/.git/config: Permission denied",
	                       "/ws", "/home/a b/.git/config", path, line, sizeof(line)), 0);
}

static void test_relative_path_with_dotdot_normalises_into_a_held_path(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("error: could not lock config file ../ws/.git/config: Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_int_equal(held1("touch: cannot touch './.git/../.git//hooks/./x': Read-only file system",
	                       "/ws/", "/ws/.git/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/x");
	/* ".." above the root stays at the root */
	assert_int_equal(held1("touch: cannot touch '/../../ws/.git/config': Permission denied",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
}

static void test_relative_path_normalising_outside_a_held_path_is_not_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("error: could not lock config file ../other/.git/config: Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("touch: cannot touch '.git/config/../../x': Permission denied",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("touch: cannot touch '/ws/.git/hooks/../x': Read-only file system",
	                       "/ws", "/ws/.git/hooks", path, line, sizeof(line)), 0);
}

static void test_held_path_without_a_refusal_error_is_not_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("write '/ws/.git/config': Success", "/ws",
	                       "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("cat: /ws/.git/config: No such file or directory\n"
	                       "mkdir: cannot create directory '/ws/.git/config': File exists\n"
	                       "mv: cannot move '.git' to 'x': Directory not empty\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	/* the refusal words split over two lines */
	assert_int_equal(held1("cannot write /ws/.git/config: Device or\nresource busy\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_refusal_error_naming_only_paths_not_held_is_not_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("touch: cannot touch '/ws/src/a.c': Permission denied\n"
	                       "rm: cannot remove '/etc/passwd': Read-only file system\n"
	                       "umount: /mnt: Device or resource busy\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	/* the held path in a line of its own that refuses nothing */
	assert_int_equal(held1("editing /ws/.git/config\n"
	                       "touch: cannot touch '/ws/x': Read-only file system\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_every_held_entry_is_tried_and_null_entries_are_skipped(void **s)
{
	const char *const held[] = { NULL, "/ws/.git/config", NULL, "/ws/.git/hooks" };
	const char *tail = "touch: cannot touch '/ws/.git/hooks/x': Read-only file system";
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held_in(tail, strlen(tail), "/ws", held, 4, path, line,
	                         sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/x");
	/* n_held bounds the list */
	assert_int_equal(held_in(tail, strlen(tail), "/ws", held, 2, path, line,
	                         sizeof(line)), 0);
	assert_int_equal(held_in(tail, strlen(tail), "/ws", held, 1, path, line,
	                         sizeof(line)), 0);
}

static void test_trailing_colon_and_comma_are_not_part_of_the_path(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("open /ws/.git/config:: Permission denied", "/ws",
	                       "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_int_equal(held1("OSError: [Errno 30] Read-only file system: '/ws/.git/config',",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
}

static void test_nul_bytes_in_the_tail_neither_hide_nor_join(void **s)
{
	static const char after_nul[] =
		"noise\0noise\nmv: cannot move '.git' to 'x': Device or resource busy\n";
	static const char inside_path[] =
		"cannot write '/ws/.git/con\0fig': Device or resource busy\n";
	static const char inside_error[] =
		"cannot write '/ws/.git/config': Device or\0resource busy\n";
	static const char before_path[] =
		"x\0y '/ws/.git/config': Device or resource busy\n";
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held_in(after_nul, sizeof(after_nul) - 1, "/ws", git_config, 1,
	                         path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git");
	assert_string_equal(line, "mv: cannot move '.git' to 'x': Device or resource busy");
	assert_int_equal(held_in(inside_path, sizeof(inside_path) - 1, "/ws", git_config, 1,
	                         path, line, sizeof(line)), 0);
	assert_int_equal(held_in(inside_error, sizeof(inside_error) - 1, "/ws", git_config, 1,
	                         path, line, sizeof(line)), 0);
	/* the line is a C string: its copy ends at the NUL */
	assert_int_equal(held_in(before_path, sizeof(before_path) - 1, "/ws", git_config, 1,
	                         path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_string_equal(line, "x");
	/* len bounds the tail: the refusal after it is not read */
	assert_int_equal(held_in(after_nul, 12, "/ws", git_config, 1, path, line,
	                         sizeof(line)), 0);
}

static void test_crlf_ends_a_line_and_a_lone_cr_is_part_of_it(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("\r\n\r\nmv: cannot move '.git' to 'x': Device or resource busy\r\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(line, "mv: cannot move '.git' to 'x': Device or resource busy");
	/* progress output redrawn with CR before the error */
	assert_int_equal(held1("Writing 50%\rtouch: cannot touch '/ws/.git/hooks/x': Read-only file system",
	                       "/ws", "/ws/.git/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/x");
	assert_string_equal(line, "Writing 50%\rtouch: cannot touch '/ws/.git/hooks/x': Read-only file system");
	/* a CR glued to the path makes it another name */
	assert_int_equal(held1("touch: cannot touch /ws/.git/config\r: Read-only file system",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("\r", "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_megabyte_line_is_read_without_limits(void **s)
{
	static const char tail[] = " '/ws/.git/config': Device or resource busy";
	size_t n = 1024 * 1024, i;
	char *buf = malloc(n + sizeof(tail));
	char path[4096], line[64];

	(void)s;
	assert_non_null(buf);
	/* one word of a megabyte, then the refusal: the line is cut */
	memset(buf, 'a', n);
	memcpy(buf + n, tail, sizeof(tail));
	assert_int_equal(held_in(buf, strlen(buf), "/ws", git_config, 1, path, line,
	                         sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_int_equal(strlen(line), sizeof(line) - 1);
	assert_int_equal(strspn(line, "a"), sizeof(line) - 1);
	/* a megabyte of short words with a refusal but no held path */
	for (i = 0; i < n; i += 2)
		memcpy(buf + i, "a ", 2);
	memcpy(buf + n - 24, "Device or resource busy ", 24);
	assert_int_equal(held_in(buf, n, "/ws", git_config, 1, path, line,
	                         sizeof(line)), 0);
	/* a path longer than PATH_MAX below a held directory names no file */
	memcpy(buf, "/ws/.git/config/", 16);
	memset(buf + 16, 'b', n - 16 - 24);
	assert_int_equal(held_in(buf, n, "/ws", git_config, 1, path, line,
	                         sizeof(line)), 0);
	/* a megabyte of newlines */
	memset(buf, '\n', n);
	assert_int_equal(held_in(buf, n, "/ws", git_config, 1, path, line,
	                         sizeof(line)), 0);
	free(buf);
}

static void test_empty_tail_and_no_held_paths_are_never_a_held_refusal(void **s)
{
	static const char tail[] = "mv: cannot move '.git' to 'x': Device or resource busy\n";
	const char *const only_null[] = { NULL };
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held_in(NULL, 0, "/ws", git_config, 1, path, line, sizeof(line)), 0);
	assert_int_equal(held_in(NULL, 100, "/ws", git_config, 1, path, line, sizeof(line)), 0);
	assert_int_equal(held_in("", 0, "/ws", git_config, 1, path, line, sizeof(line)), 0);
	assert_int_equal(held_in(tail, 0, "/ws", git_config, 1, path, line, sizeof(line)), 0);
	assert_int_equal(held_in(tail, strlen(tail), "/ws", NULL, 0, path, line, sizeof(line)), 0);
	assert_int_equal(held_in(tail, strlen(tail), "/ws", NULL, 3, path, line, sizeof(line)), 0);
	assert_int_equal(held_in(tail, strlen(tail), "/ws", git_config, 0, path, line, sizeof(line)), 0);
	assert_int_equal(held_in(tail, strlen(tail), "/ws", only_null, 1, path, line, sizeof(line)), 0);
	assert_int_equal(held1(tail, "/ws", "", path, line, sizeof(line)), 0);
}

static void test_relative_path_without_an_absolute_directory_is_not_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("error: could not write config file .git/config: Device or resource busy",
	                       NULL, "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("error: could not write config file .git/config: Device or resource busy",
	                       "ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("error: could not write config file .git/config: Device or resource busy",
	                       "", "/ws/.git/config", path, line, sizeof(line)), 0);
}

static void test_first_matching_line_wins_and_fills_line(void **s)
{
	const char *const held[] = { "/ws/.git/config", "/ws/.git/hooks" };
	const char *tail =
		"touch: cannot touch '/ws/src/x': Read-only file system\n"
		"cp: cannot create '/ws/.git/hooks/pre-push': Read-only file system\n"
		"error: could not write config file .git/config: Device or resource busy\n";
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held_in(tail, strlen(tail), "/ws", held, 2, path, line,
	                         sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/hooks/pre-push");
	assert_string_equal(line, "cp: cannot create '/ws/.git/hooks/pre-push': Read-only file system");
	/* in a line, the first held word wins */
	assert_int_equal(held1("mv: cannot move '/ws/.git/config' to '/ws/.git/config.bak': Device or resource busy",
	                       "/ws", "/ws/.git/*", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
}

static void test_line_is_cut_to_linelen(void **s)
{
	char path[4096], line[8];

	(void)s;
	assert_int_equal(held1("error: could not write config file .git/config: Device or resource busy\n",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/config");
	assert_string_equal(line, "error: ");
	assert_int_equal(held1("mv: cannot move '.git' to 'x': Device or resource busy\n",
	                       "/ws", "/ws/.git/config", path, line, 1), 1);
	assert_string_equal(line, "");
}

static void test_root_path_and_root_held_edge_cases(void **s)
{
	char path[4096], line[256];

	(void)s;
	/* "/" is never a directory on the way: everything would be held */
	assert_int_equal(held1("rm: cannot remove '/': Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("mv: cannot move '..' to 'x': Device or resource busy",
	                       "/", "/ws/.git/config", path, line, sizeof(line)), 0);
	/* a held root holds every path: the first word of the line is it */
	assert_int_equal(held1("rm: cannot remove '/': Device or resource busy",
	                       "/ws", "/", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/rm");
	assert_int_equal(held1("'//./': Read-only file system",
	                       "/ws", "/", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/");
	/* hostile quoting around nothing */
	assert_int_equal(held1("' \" ` '' \"\" `' : , :: ',: Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
	assert_int_equal(held1("mv: cannot move '/ws/.git/config to x: Device or resource busy",
	                       "/ws", "/ws/.git/config", path, line, sizeof(line)), 0);
}

/* Everything lies below a held "/". */
static void test_every_path_lies_below_a_held_root(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("'/ws/x': Read-only file system",
	                       "/ws", "/", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/x");
}

/* DESIGN: with EBUSY, a directory on the way to a held path counts, and
 * "/ws/.git/modules/sub" is on the way to "/ws/.git/modules/sub/hooks",
 * which the pattern holds; only the part before the first glob is
 * compared. */
static void test_ebusy_on_a_directory_matching_a_glob_on_the_way_is_a_held_refusal(void **s)
{
	char path[4096], line[256];

	(void)s;
	assert_int_equal(held1("mv: cannot move '.git/modules/sub' to 'x': Device or resource busy",
	                       "/ws", "/ws/.git/modules/*/hooks", path, line, sizeof(line)), 1);
	assert_string_equal(path, "/ws/.git/modules/sub");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_names_are_the_design_strings),
		cmocka_unit_test(test_exit_zero_is_ok_and_nonzero_is_failed),
		cmocka_unit_test(test_signal_death_is_failed_never_runner_failure),
		cmocka_unit_test(test_runner_fatal_line_with_its_exit_code_is_sandbox_error),
		cmocka_unit_test(test_fatal_signature_is_case_insensitive_substring),
		cmocka_unit_test(test_exit_status_alone_never_proves_runner_failure),
		cmocka_unit_test(test_fatal_line_with_exit_zero_is_ok),
		cmocka_unit_test(test_fatal_line_outside_the_rule_exit_codes_is_the_command_failure),
		cmocka_unit_test(test_rule_without_exit_codes_accepts_any_nonzero_exit),
		cmocka_unit_test(test_rule_without_fatal_signatures_never_matches),
		cmocka_unit_test(test_partial_abi_notice_then_child_exits_are_child_outcomes),
		cmocka_unit_test(test_informational_line_matches_whole_line_case_insensitively),
		cmocka_unit_test(test_informational_removal_is_exact_not_a_prefix),
		cmocka_unit_test(test_notice_does_not_hide_a_real_fatal_line),
		cmocka_unit_test(test_child_printing_the_fatal_line_is_a_child_outcome_when_exec_happened),
		cmocka_unit_test(test_evidence_not_happened_is_sandbox_error_whatever_stderr_says),
		cmocka_unit_test(test_denial_signature_on_failed_run_is_denied),
		cmocka_unit_test(test_denial_signature_on_successful_run_is_not_a_denial),
		cmocka_unit_test(test_denial_uses_only_the_backends_own_dialect),
		cmocka_unit_test(test_runner_failure_outranks_denial),
		cmocka_unit_test(test_signature_split_across_lines_does_not_match),
		cmocka_unit_test(test_nul_bytes_are_ordinary_bytes),
		cmocka_unit_test(test_nul_inside_the_notice_makes_it_another_line),
		cmocka_unit_test(test_crlf_and_lone_cr_line_ends),
		cmocka_unit_test(test_huge_lines_are_matched_without_limits),
		cmocka_unit_test(test_tail_ending_inside_a_signature_does_not_match),
		cmocka_unit_test(test_runner_failed_reports_the_matching_rule),
		cmocka_unit_test(test_bwrap_exit_code_object_means_exec_happened),
		cmocka_unit_test(test_bwrap_child_pid_only_and_failed_exit_means_not_happened),
		cmocka_unit_test(test_bwrap_killed_from_outside_proves_nothing),
		cmocka_unit_test(test_bwrap_malformed_or_hostile_json_never_proves_exec),
		cmocka_unit_test(test_bwrap_evidence_with_nul_bytes),
		cmocka_unit_test(test_exec_pipe_only_started_then_eof_is_happened),
		cmocka_unit_test(test_exec_pipe_empty_is_never_started_not_happened),
		cmocka_unit_test(test_exec_pipe_reason_is_one_printable_line),
		cmocka_unit_test(test_no_evidence_kind_is_unknown),
		cmocka_unit_test(test_evidence_read_keeps_the_start_and_drains_to_eof),
		cmocka_unit_test(test_evidence_read_error_is_reported),
		cmocka_unit_test(test_network_denials_are_told_from_other_failures),
		cmocka_unit_test(test_ebusy_on_pinned_git_config_is_a_held_refusal),
		cmocka_unit_test(test_erofs_below_a_held_directory_is_a_held_refusal),
		cmocka_unit_test(test_eacces_and_eperm_on_a_held_path_are_held_refusals),
		cmocka_unit_test(test_ebusy_on_a_directory_on_the_way_to_a_held_path_is_a_held_refusal),
		cmocka_unit_test(test_erofs_eacces_eperm_on_a_directory_on_the_way_are_not_held_refusals),
		cmocka_unit_test(test_ebusy_on_a_name_sharing_a_prefix_is_not_on_the_way),
		cmocka_unit_test(test_glob_component_of_a_held_path_matches_one_component),
		cmocka_unit_test(test_gnu_curly_quotes_around_the_path_are_removed),
		cmocka_unit_test(test_quoted_path_with_a_space_is_one_word),
		cmocka_unit_test(test_relative_path_with_dotdot_normalises_into_a_held_path),
		cmocka_unit_test(test_relative_path_normalising_outside_a_held_path_is_not_a_held_refusal),
		cmocka_unit_test(test_held_path_without_a_refusal_error_is_not_a_held_refusal),
		cmocka_unit_test(test_refusal_error_naming_only_paths_not_held_is_not_a_held_refusal),
		cmocka_unit_test(test_every_held_entry_is_tried_and_null_entries_are_skipped),
		cmocka_unit_test(test_trailing_colon_and_comma_are_not_part_of_the_path),
		cmocka_unit_test(test_nul_bytes_in_the_tail_neither_hide_nor_join),
		cmocka_unit_test(test_crlf_ends_a_line_and_a_lone_cr_is_part_of_it),
		cmocka_unit_test(test_megabyte_line_is_read_without_limits),
		cmocka_unit_test(test_empty_tail_and_no_held_paths_are_never_a_held_refusal),
		cmocka_unit_test(test_relative_path_without_an_absolute_directory_is_not_a_held_refusal),
		cmocka_unit_test(test_first_matching_line_wins_and_fills_line),
		cmocka_unit_test(test_line_is_cut_to_linelen),
		cmocka_unit_test(test_root_path_and_root_held_edge_cases),
		cmocka_unit_test(test_every_path_lies_below_a_held_root),
		cmocka_unit_test(test_ebusy_on_a_directory_matching_a_glob_on_the_way_is_a_held_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
