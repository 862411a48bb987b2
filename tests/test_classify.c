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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
