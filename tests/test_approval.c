/*
 * test_approval.c — the approval service (DESIGN §3, §6) with real plugins:
 * the zoo's answerers and the rules answerer, real .so files dlopen()ed
 * in the host (inproc) or in a worker process (process), a real session
 * log for the audit.  Every rule of §3 is its own test; the ones a
 * misbehaving answerer can survive run under both isolations.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"
#include "worker.h"

static char zoo[PATH_MAX];      /* tests/zoo/.libs */
static char rules_so[PATH_MAX]; /* plugins/rules/.libs/rules.so */
static char scratch[PATH_MAX];  /* a private directory in the build tree */

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

static int group_setup(void **state)
{
	const char *top = getenv("top_builddir");

	(void)state;
	if (top == NULL || top[0] != '/') {
		fprintf(stderr, "test_approval: top_builddir must be set (run by make check)\n");
		return -1;
	}
	xsnprintf(zoo, sizeof(zoo), "%s/tests/zoo/.libs", top);
	xsnprintf(rules_so, sizeof(rules_so), "%s/plugins/rules/.libs/rules.so", top);
	/* Not under /tmp: a world-writable directory on the way is refused. */
	xsnprintf(scratch, sizeof(scratch), "%s/tests/approval-scratch-XXXXXX", top);
	if (mkdtemp(scratch) == NULL || chmod(scratch, 0755) < 0)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	xsnprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ fixture */

struct fx {
	struct warden_config *cfg;
	struct warden_session *s;
	struct warden_approval *a;
	char *sid;
	char log[PATH_MAX];
};

/* Copies `in` to out with every @ISO@ replaced by iso and every @RULES@
 * by the path of the rules plugin. */
static void expand(char *out, size_t len, const char *in, const char *iso)
{
	size_t n = 0, k;
	const char *v;

	while (*in) {
		v = NULL;
		if (strncmp(in, "@ISO@", 5) == 0) {
			v = iso;
			in += 5;
		} else if (strncmp(in, "@RULES@", 7) == 0) {
			v = rules_so;
			in += 7;
		}
		k = v != NULL ? strlen(v) : 1;
		assert_true(n + k < len);
		memcpy(out + n, v != NULL ? v : in++, k);
		n += k;
	}
	out[n] = '\0';
}

/* A service over `sections` (where @ISO@ stands for the isolation under
 * test and @RULES@ for the rules plugin), with a fresh session. */
static void fx_open(struct fx *f, const char *policy, const char *iso,
                    const char *sections)
{
	struct warden_error err = { 0, "" };
	char text[8192], body[4096], file[PATH_MAX + 16];

	memset(f, 0, sizeof(*f));
	expand(body, sizeof(body), sections, iso);
	xsnprintf(text, sizeof(text), "[warden]\nplugin_dir = %s\nstate_dir = %s/state\n"
	          "durability = none\napproval_policy = %s\n%s",
	          zoo, scratch, policy, body);
	xsnprintf(file, sizeof(file), "%s/test.ini", scratch);
	if (warden_config_parse(text, file, &f->cfg, &err) < 0)
		fail_msg("config: %s", err.msg);
	if (warden_session_create(f->cfg, scratch, &f->sid, &err) < 0 ||
	    warden_session_open(f->cfg, f->sid, &f->s, &err) < 0 ||
	    warden_approval_new(f->cfg, &f->a, &err) < 0)
		fail_msg("fixture: %s", err.msg);
	xsnprintf(f->log, sizeof(f->log), "%s", warden_session_path(f->s));
}

static void fx_close(struct fx *f)
{
	warden_approval_free(f->a);
	warden_session_close(f->s);
	warden_config_free(f->cfg);
	free(f->sid);
}

static int ask_full(struct fx *f, const char *tool, long deadline_ms,
                    struct warden_approval_result *res)
{
	struct warden_approval_request req = { 0 };
	struct warden_error err = { 0, "" };

	req.tool = tool;
	req.subject = "rm -rf build";
	req.reason = "clean";
	req.deadline_ms = deadline_ms;
	if (warden_approval_ask(f->a, f->s, &req, res, &err) < 0)
		fail_msg("ask: %s", err.msg);
	return res->outcome;
}

static int ask(struct fx *f, const char *tool, struct warden_approval_result *res)
{
	return ask_full(f, tool, 0, res);
}

static size_t count_lines(const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t n = 0;
	int c;

	assert_non_null(fp);
	while ((c = fgetc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

static void append_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "a");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* An embedder's answerer that counts its calls and says `decision`. */
struct probe {
	int calls;
	int decision;
	const char *damage;   /* a file to damage while deciding, or NULL */
};

static int probe_decide(void *ud, const struct warden_request *req, char *err,
                        size_t errlen)
{
	struct probe *p = ud;

	(void)req;
	(void)err;
	(void)errlen;
	p->calls++;
	if (p->damage != NULL)
		append_text(p->damage, "this line is not an event\n");
	return p->decision;
}

#define ISO(state) ((const char *)*(state))

/* ------------------------------------------------------ policy never */

static void test_never_policy_rejects_before_any_answerer(void **state)
{
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct probe p = { 0, WARDEN_DECISION_ALLOWED_ONCE, NULL };
	struct fx f;

	fx_open(&f, "never", ISO(state),
	        "[answerer yes]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = allowed-once\n");
	/* An allow-all answerer added later, at the very front. */
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_PREPEND,
	                 "front", probe_decide, &p, 0, &err), 0);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_int_equal(p.calls, 0);
	assert_string_equal(res.answerer, "");
	assert_non_null(strstr(res.reason, "policy is never"));
	fx_close(&f);
}

static void test_session_never_outranks_config_ask(void **state)
{
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct probe p = { 0, WARDEN_DECISION_ALLOWED_ONCE, NULL };
	struct fx f;

	(void)state;
	fx_open(&f, "ask", "process", "");
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_PREPEND,
	                 "front", probe_decide, &p, 0, &err), 0);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	assert_int_equal(p.calls, 1);
	assert_int_equal(warden_session_set_policy(f.s, WARDEN_POLICY_NEVER, NULL, &err), 0);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_int_equal(p.calls, 1);
	fx_close(&f);
}

/* The last event of f's log (a new reference). */
static json_t *last_event(struct fx *f)
{
	char line[16384], last[16384] = "";
	FILE *fp = fopen(f->log, "r");
	json_t *ev;

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL)
		snprintf(last, sizeof(last), "%s", line);
	fclose(fp);
	ev = json_loads(last, 0, NULL);
	assert_non_null(ev);
	return ev;
}

/* --------------------------------------------------------- waterfall */

/* ABI 1.1: the deciding answerer's reason is returned and recorded,
 * escaped to one line and bounded; the answerers that delegated are
 * named in order. */
static void test_a_decisions_reason_is_escaped_bounded_and_recorded(void **state)
{
	struct warden_approval_result res;
	json_t *ev, *del;
	struct fx f;
	size_t n;

	fx_open(&f, "ask", ISO(state),
	        "[answerer first]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "reason = not my business\n"
	        "[answerer second]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = delegate\n"
	        "[answerer third]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = rejected\nreason = no\\nway \\e[2J\\x9b \\\\;\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_string_equal(res.answerer, "third");
	/* One line: the newline, ESC and a byte that is not UTF-8 escaped,
	 * a backslash kept. */
	assert_string_equal(res.reason, "no\\nway \\x1b[2J\\x9b \\;");
	assert_int_equal(res.n_delegated, 2);
	assert_string_equal(res.delegated[0], "first");
	assert_string_equal(res.delegated[1], "second");
	ev = last_event(&f);
	assert_string_equal(json_string_value(json_object_get(ev, "type")), "approval/decided");
	assert_string_equal(json_string_value(json_object_get(ev, "reason")), res.reason);
	del = json_object_get(ev, "delegated");
	assert_int_equal(json_array_size(del), 2);
	assert_string_equal(json_string_value(json_array_get(del, 0)), "first");
	assert_string_equal(json_string_value(json_array_get(del, 1)), "second");
	json_decref(ev);
	fx_close(&f);

	/* A long reason is cut, and the cut is marked. */
	fx_open(&f, "ask", ISO(state),
	        "[answerer long]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = allowed-once\nreason = 0123456789\nreason_repeat = 60\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	n = strlen(res.reason);
	assert_int_equal(n, WARDEN_APPROVAL_REASON_MAX);
	assert_string_equal(res.reason + n - 3, "...");
	assert_memory_equal(res.reason, "0123456789012", 13);
	assert_int_equal(res.n_delegated, 0);
	ev = last_event(&f);
	assert_string_equal(json_string_value(json_object_get(ev, "reason")), res.reason);
	assert_int_equal(json_array_size(json_object_get(ev, "delegated")), 0);
	json_decref(ev);
	fx_close(&f);

	/* No reason given: none recorded. */
	fx_open(&f, "ask", ISO(state),
	        "[answerer quiet]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = cancelled\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_CANCELLED);
	assert_string_equal(res.reason, "");
	ev = last_event(&f);
	assert_null(json_object_get(ev, "reason"));
	json_decref(ev);
	fx_close(&f);
}

static void test_each_decision_is_returned_with_its_answerer(void **state)
{
	static const struct { const char *name; int outcome; } d[] = {
		{ "allowed-once", WARDEN_OUTCOME_ALLOWED_ONCE },
		{ "rejected", WARDEN_OUTCOME_REJECTED },
		{ "cancelled", WARDEN_OUTCOME_CANCELLED },
	};
	struct warden_approval_result res;
	char sections[256];
	struct fx f;
	size_t i;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		xsnprintf(sections, sizeof(sections), "[answerer z]\nplugin = "
		          "zoo_answerer\nisolation = @ISO@\ndecision = %s\n", d[i].name);
		fx_open(&f, "ask", ISO(state), sections);
		assert_int_equal(ask(&f, "bash", &res), d[i].outcome);
		assert_string_equal(res.answerer, "z");
		assert_int_equal(strncmp(res.request_id, "req-", 4), 0);
		assert_int_equal(strlen(res.request_id), 36);
		fx_close(&f);
	}
}

/* An answerer that changes the umask changes nothing after it. */
static void test_an_answerers_umask_does_not_stay(void **state)
{
	struct warden_approval_result res;
	struct fx f;
	mode_t before = umask(027), after;

	fx_open(&f, "ask", ISO(state),
	        "[answerer z]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = allowed-once\numask = 0\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	after = umask(before);
	assert_int_equal(after, 027);
	fx_close(&f);
}

static void test_delegate_passes_to_the_next_answerer(void **state)
{
	struct warden_approval_result res;
	struct fx f;

	fx_open(&f, "ask", ISO(state),
	        "[answerer pass]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = delegate\n"
	        "[answerer no]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = rejected\n"
	        "[answerer yes]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "decision = allowed-once\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_string_equal(res.answerer, "no");
	fx_close(&f);
}

static void test_end_of_chain_without_decision_is_unavailable(void **state)
{
	struct warden_approval_result res;
	struct fx f;

	fx_open(&f, "ask", ISO(state),
	        "[answerer a]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	        "[answerer b]\nplugin = zoo_answerer\nisolation = @ISO@\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_UNAVAILABLE);
	assert_string_equal(res.answerer, "");
	assert_non_null(strstr(res.reason, "no answerer decided"));
	fx_close(&f);
}

static void test_empty_chain_is_unavailable(void **state)
{
	struct warden_approval_result res;
	struct fx f;

	(void)state;
	fx_open(&f, "ask", "process", "");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_UNAVAILABLE);
	assert_non_null(strstr(res.reason, "no answerer is configured"));
	fx_close(&f);
}

static void test_append_registers_behind_the_config(void **state)
{
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct probe p = { 0, WARDEN_DECISION_ALLOWED_ONCE, NULL };
	struct fx f;

	fx_open(&f, "ask", ISO(state),
	        "[answerer pass]\nplugin = zoo_answerer\nisolation = @ISO@\n");
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_APPEND,
	                 "behind", probe_decide, &p, 0, &err), 0);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	assert_string_equal(res.answerer, "behind");
	assert_int_equal(p.calls, 1);
	fx_close(&f);
}

static void test_register_refuses_bad_and_duplicate_names(void **state)
{
	struct warden_error err = { 0, "" };
	struct probe p = { 0, WARDEN_DECISION_ALLOWED_ONCE, NULL };
	struct fx f;

	(void)state;
	fx_open(&f, "ask", "process", "[answerer pass]\nplugin = zoo_answerer\n");
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_APPEND,
	                 "pass", probe_decide, &p, 0, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "already in the chain"));
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_APPEND,
	                 "Bad Name", probe_decide, &p, 0, &err), -WARDEN_EUSAGE);
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_APPEND,
	                 "ok", NULL, &p, 0, &err), -WARDEN_EUSAGE);
	fx_close(&f);
}

/* ------------------------------------- broken answerers: unavailable */

/* [broken, allow-all]: the request is unavailable, answered by `broken`
 * with a reason containing `why` — never allowed by the one behind. */
static void expect_unavailable_not_fallthrough(const char *iso,
                                               const char *broken_section,
                                               const char *why)
{
	struct warden_approval_result res;
	char sections[1024];
	struct fx f;

	xsnprintf(sections, sizeof(sections), "%s[answerer yes]\nplugin = "
	          "zoo_answerer\nisolation = @ISO@\ndecision = allowed-once\n",
	          broken_section);
	fx_open(&f, "ask", iso, sections);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_UNAVAILABLE);
	assert_string_equal(res.answerer, "broken");
	if (strstr(res.reason, why) == NULL)
		fail_msg("reason '%s' lacks '%s'", res.reason, why);
	fx_close(&f);
}

static void test_missing_plugin_is_unavailable_in_its_slot(void **state)
{
	expect_unavailable_not_fallthrough(ISO(state),
		"[answerer broken]\nplugin = zoo_gone\nisolation = @ISO@\n",
		"missing: no such file");
}

static void test_malformed_plugin_is_unavailable_in_its_slot(void **state)
{
	expect_unavailable_not_fallthrough(ISO(state),
		"[answerer broken]\nplugin = zoo_abi_major\nisolation = @ISO@\n",
		"malformed: abi 2.0, host speaks 1.x");
}

static void test_failed_open_is_unavailable_in_its_slot(void **state)
{
	expect_unavailable_not_fallthrough(ISO(state),
		"[answerer broken]\nplugin = zoo_open_error\nisolation = @ISO@\n",
		"failed: cannot reach the policy service");
}

static void test_error_is_unavailable_not_a_fallthrough(void **state)
{
	expect_unavailable_not_fallthrough(ISO(state),
		"[answerer broken]\nplugin = zoo_decide_error\nisolation = @ISO@\n",
		"failed: the policy service is unreachable");
}

static void test_value_outside_the_closed_set_is_unavailable(void **state)
{
	expect_unavailable_not_fallthrough(ISO(state),
		"[answerer broken]\nplugin = zoo_decide_42\nisolation = @ISO@\n",
		"returned 42, outside the closed set");
}

/*
 * [rules: allow ok:*, broken]: tool "x" reaches the broken answerer and is
 * unavailable, tool "ok" is decided by rules; alternating proves that
 * each failure costs exactly its one request and the service goes on
 * (the broken worker restarted each time, and failing again).
 */
static void expect_survives(const char *iso, const char *plugin,
                            long timeout_ms, const char *why)
{
	struct warden_approval_result res;
	char sections[1024];
	struct fx f;
	long long t0;
	int round;

	xsnprintf(sections, sizeof(sections),
	          "[answerer rules]\nplugin = @RULES@\nisolation = @ISO@\n"
	          "allow = ok:*\n"
	          "[answerer broken]\nplugin = %s\nisolation = @ISO@\n"
	          "timeout_ms = %ld\n"
	          "[answerer yes]\nplugin = zoo_answerer\nisolation = @ISO@\n"
	          "decision = allowed-once\n", plugin, timeout_ms);
	fx_open(&f, "ask", iso, sections);
	for (round = 0; round < 2; round++) {
		t0 = warden_now_ms();
		assert_int_equal(ask(&f, "x", &res), WARDEN_OUTCOME_UNAVAILABLE);
		assert_string_equal(res.answerer, "broken");
		if (strstr(res.reason, why) == NULL)
			fail_msg("round %d: reason '%s' lacks '%s'", round, res.reason, why);
		/* Promptly: the timeout plus the grace for a dying worker. */
		assert_true(warden_now_ms() - t0 < 5000);
		assert_int_equal(ask(&f, "ok", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
		assert_string_equal(res.answerer, "rules");
	}
	fx_close(&f);
}

static void test_open_crash_costs_one_request(void **state)
{
	(void)state;
	expect_survives("process", "zoo_open_crash", 0, "Segmentation fault");
}

static void test_decide_crash_costs_one_request(void **state)
{
	(void)state;
	expect_survives("process", "zoo_decide_crash", 0,
	                "killed by signal 11 (Segmentation fault)");
}

static void test_decide_abort_costs_one_request(void **state)
{
	(void)state;
	expect_survives("process", "zoo_decide_abort", 0,
	                "killed by signal 6 (Aborted)");
}

static void test_cxx_exception_costs_one_request(void **state)
{
	(void)state;
	expect_survives("process", "zoo_decide_throw", 0,
	                "killed by signal 6 (Aborted)");
}

static void test_wire_garbage_costs_one_request(void **state)
{
	(void)state;
	expect_survives("process", "zoo_decide_garbage", 0, "sent garbage");
}

static void test_frame_for_another_request_costs_one_request(void **state)
{
	(void)state;
	expect_survives("process", "zoo_decide_forge", 0, "sent garbage");
}

static void test_hang_times_out_and_the_worker_is_killed(void **state)
{
	(void)state;
	expect_survives("process", "zoo_decide_hang", 300, "timed out after 300 ms");
}

static void test_instance_is_opened_once_and_reused(void **state)
{
	struct warden_approval_result res;
	struct fx f;

	fx_open(&f, "ask", ISO(state),
	        "[answerer once]\nplugin = zoo_decide_once\nisolation = @ISO@\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	fx_close(&f);
}

/* The state letter of a process ('Z' zombie), from /proc/PID/stat;
 * *ppid gets its parent.  0 when it cannot be read. */
static char proc_state(pid_t pid, int *ppid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	char st;

	xsnprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	/* "pid (comm) state ppid ...": comm may hold spaces. */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %d", &st, ppid) != 2)
		return 0;
	return st;
}

/* The one live child process of this one. */
static pid_t only_child(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t pid, found = 0;
	int ppid, n = 0;
	char st;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		pid = (pid_t)atoi(e->d_name);
		if (pid <= 0)
			continue;
		st = proc_state(pid, &ppid);
		if (st != 0 && st != 'Z' && ppid == getpid()) {
			found = pid;
			n++;
		}
	}
	closedir(d);
	assert_int_equal(n, 1);
	return found;
}

static void test_worker_killed_while_idle_is_restarted_at_no_cost(void **state)
{
	struct warden_approval_result res;
	struct fx f;
	pid_t worker;
	int i, ppid;

	(void)state;
	fx_open(&f, "ask", "process",
	        "[answerer once]\nplugin = zoo_decide_once\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	worker = only_child();
	assert_int_equal(kill(worker, SIGKILL), 0);
	for (i = 0; i < 200 && proc_state(worker, &ppid) != 'Z'; i++)
		usleep(10000);
	assert_int_equal(proc_state(worker, &ppid), 'Z');
	/* A fresh worker, a fresh instance: its first request again. */
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_true(only_child() != worker);
	fx_close(&f);
}

/* An answerer that applies its own timeout_ms (as tty and exec do) gets
 * to give its own outcome: the host's backstop comes after a grace. */
static void test_own_timeout_answers_before_the_hosts(void **state)
{
	struct warden_approval_result res;
	struct fx f;

	fx_open(&f, "ask", ISO(state),
	        "[answerer late]\nplugin = zoo_decide_late\nisolation = @ISO@\n"
	        "timeout_ms = 300\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_REJECTED);
	assert_string_equal(res.answerer, "late");
	fx_close(&f);
}

/* In process a hung call cannot be killed: it is abandoned, and the
 * instance stays unavailable while it runs; the rest of the chain goes on. */
static void test_inproc_hang_times_out_then_stays_busy(void **state)
{
	struct warden_approval_result res;
	struct fx f;
	long long t0;

	(void)state;
	fx_open(&f, "ask", "inproc",
	        "[answerer rules]\nplugin = @RULES@\nisolation = @ISO@\nallow = ok:*\n"
	        "[answerer broken]\nplugin = zoo_decide_hang\nisolation = @ISO@\n"
	        "timeout_ms = 300\n");
	t0 = warden_now_ms();
	assert_int_equal(ask(&f, "x", &res), WARDEN_OUTCOME_UNAVAILABLE);
	assert_true(warden_now_ms() - t0 < 3000);
	assert_non_null(strstr(res.reason, "timed out after 300 ms"));
	assert_int_equal(ask(&f, "x", &res), WARDEN_OUTCOME_UNAVAILABLE);
	assert_non_null(strstr(res.reason, "still busy"));
	assert_int_equal(ask(&f, "ok", &res), WARDEN_OUTCOME_ALLOWED_ONCE);
	fx_close(&f);
}

/* -------------------------------------------------------- withdrawal */

static void test_caller_deadline_cancels_at_once(void **state)
{
	struct warden_approval_result res;
	struct fx f;
	long long t0;

	fx_open(&f, "ask", ISO(state),
	        "[answerer broken]\nplugin = zoo_decide_hang\nisolation = @ISO@\n");
	t0 = warden_now_ms();
	assert_int_equal(ask_full(&f, "bash", 200, &res), WARDEN_OUTCOME_CANCELLED);
	assert_true(warden_now_ms() - t0 < 2000);
	assert_int_equal(res.signal, 0);
	assert_non_null(strstr(res.reason, "deadline"));
	fx_close(&f);
}

static void test_sigint_while_waiting_cancels_at_once(void **state)
{
	struct warden_approval_result res;
	struct sigaction after;
	struct fx f;
	long long t0;
	pid_t kid, host = getpid();
	int status;

	/* The test may inherit SIGINT ignored (a background job, nohup):
	 * start from the default so that the handler is what saves it. */
	signal(SIGINT, SIG_DFL);
	fx_open(&f, "ask", ISO(state),
	        "[answerer broken]\nplugin = zoo_decide_hang\nisolation = @ISO@\n");
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		usleep(300000);
		kill(host, SIGINT);
		_exit(0);
	}
	t0 = warden_now_ms();
	/* Without the service's handler, this SIGINT would end the test; the
	 * deadline only bounds the test: the signal must come first. */
	assert_int_equal(ask_full(&f, "bash", 10000, &res), WARDEN_OUTCOME_CANCELLED);
	assert_true(warden_now_ms() - t0 < 3000);
	assert_int_equal(res.signal, SIGINT);
	assert_string_equal(res.answerer, "");
	assert_int_equal(waitpid(kid, &status, 0), kid);
	/* The caller's disposition is back. */
	assert_int_equal(sigaction(SIGINT, NULL, &after), 0);
	assert_true(after.sa_handler == SIG_DFL);
	fx_close(&f);
}

static void test_sigterm_withdraws_even_when_the_caller_blocks_it(void **state)
{
	struct warden_approval_result res;
	struct fx f;
	sigset_t term, old, after;
	pid_t kid, host = getpid();
	int status;

	(void)state;
	fx_open(&f, "ask", "process",
	        "[answerer broken]\nplugin = zoo_decide_hang\n");
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	assert_int_equal(sigprocmask(SIG_BLOCK, &term, &old), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		usleep(300000);
		kill(host, SIGTERM);
		_exit(0);
	}
	/* The deadline only bounds the test: the signal must come first. */
	assert_int_equal(ask_full(&f, "bash", 5000, &res), WARDEN_OUTCOME_CANCELLED);
	assert_int_equal(res.signal, SIGTERM);
	assert_int_equal(waitpid(kid, &status, 0), kid);
	/* The caller's mask is back, and the signal was consumed. */
	assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &after), 0);
	assert_true(sigismember(&after, SIGTERM));
	assert_int_equal(sigpending(&after), 0);
	assert_false(sigismember(&after, SIGTERM));
	assert_int_equal(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	fx_close(&f);
}

/* ------------------------------------------------------------- audit */

struct pair {
	int asked, decided;
	char outcome[32];
};

static void test_every_request_has_a_matching_asked_decided_pair(void **state)
{
	struct warden_approval_result res[4];
	struct warden_error err = { 0, "" };
	struct pair pr[4];
	struct fx f;
	json_t *ev;
	FILE *fp;
	char line[8192];
	const char *type, *id;
	size_t i;

	(void)state;
	fx_open(&f, "ask", "process",
	        "[answerer rules]\nplugin = @RULES@\ndeny = bash:*\nallow = read:*\n"
	        "[answerer broken]\nplugin = zoo_decide_42\n");
	ask(&f, "read", &res[0]);
	ask(&f, "bash", &res[1]);
	ask(&f, "other", &res[2]);
	assert_int_equal(warden_session_set_policy(f.s, WARDEN_POLICY_NEVER, NULL, &err), 0);
	ask(&f, "read", &res[3]);
	memset(pr, 0, sizeof(pr));

	fp = fopen(f.log, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL) {
		ev = json_loads(line, 0, NULL);
		assert_non_null(ev);
		type = json_string_value(json_object_get(ev, "type"));
		id = json_string_value(json_object_get(ev, "request_id"));
		for (i = 0; id != NULL && i < 4; i++) {
			if (strcmp(id, res[i].request_id) != 0)
				continue;
			if (strcmp(type, "approval/asked") == 0) {
				assert_int_equal(pr[i].decided, 0); /* asked first */
				pr[i].asked++;
			} else {
				assert_string_equal(type, "approval/decided");
				pr[i].decided++;
				xsnprintf(pr[i].outcome, sizeof(pr[i].outcome), "%s",
				          json_string_value(json_object_get(ev, "outcome")));
			}
		}
		json_decref(ev);
	}
	fclose(fp);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pr[i].asked, 1);
		assert_int_equal(pr[i].decided, 1);
		assert_string_equal(pr[i].outcome, warden_outcome_name(res[i].outcome));
	}
	assert_int_equal(res[0].outcome, WARDEN_OUTCOME_ALLOWED_ONCE);
	assert_int_equal(res[1].outcome, WARDEN_OUTCOME_REJECTED);
	assert_int_equal(res[2].outcome, WARDEN_OUTCOME_UNAVAILABLE);
	assert_int_equal(res[3].outcome, WARDEN_OUTCOME_REJECTED);
	fx_close(&f);
}

static void test_asked_append_failure_refuses_without_asking(void **state)
{
	struct warden_approval_request req = { .tool = "bash", .subject = "ls" };
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct probe p = { 0, WARDEN_DECISION_ALLOWED_ONCE, NULL };
	struct fx f;

	(void)state;
	fx_open(&f, "ask", "process", "");
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_PREPEND,
	                 "front", probe_decide, &p, 0, &err), 0);
	append_text(f.log, "this line is not an event\n");
	assert_true(warden_approval_ask(f.a, f.s, &req, &res, &err) < 0);
	assert_int_equal(res.outcome, 0);
	assert_int_equal(p.calls, 0);
	fx_close(&f);
}

static void test_decided_append_failure_returns_no_decision(void **state)
{
	struct warden_approval_request req = { .tool = "bash", .subject = "ls" };
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct probe p = { 0, WARDEN_DECISION_ALLOWED_ONCE, NULL };
	struct fx f;

	(void)state;
	fx_open(&f, "ask", "process", "");
	p.damage = f.log;
	assert_int_equal(warden_approval_register(f.a, WARDEN_APPROVAL_PREPEND,
	                 "front", probe_decide, &p, 0, &err), 0);
	assert_true(warden_approval_ask(f.a, f.s, &req, &res, &err) < 0);
	assert_int_equal(p.calls, 1);
	assert_int_equal(res.outcome, 0);
	assert_string_equal(res.request_id, "");
	fx_close(&f);
}

static void test_bad_request_is_refused_and_writes_nothing(void **state)
{
	struct warden_approval_request req = { .tool = "bash", .subject = "ls" };
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	struct fx f;
	size_t before;

	(void)state;
	fx_open(&f, "ask", "process", "");
	before = count_lines(f.log);
	req.tool = "";
	assert_int_equal(warden_approval_ask(f.a, f.s, &req, &res, &err), -WARDEN_EUSAGE);
	req.tool = "bash";
	req.requested_mode = "god-mode";
	assert_int_equal(warden_approval_ask(f.a, f.s, &req, &res, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "god-mode"));
	req.requested_mode = NULL;
	assert_int_equal(warden_approval_ask(f.a, NULL, &req, &res, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "session"));
	assert_int_equal(count_lines(f.log), before);
	fx_close(&f);
}

/* ------------------------------------------------------------- rules */

static void test_rules_first_match_in_file_order_decides(void **state)
{
	struct warden_approval_request req = { .tool = "bash" };
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	static const struct { const char *tool, *subject; int outcome; } c[] = {
		{ "bash", "rm -rf /", WARDEN_OUTCOME_REJECTED },
		{ "bash", "git status", WARDEN_OUTCOME_ALLOWED_ONCE },
		{ "bash", "git push", WARDEN_OUTCOME_REJECTED },
		{ "python", "ls /etc/x", WARDEN_OUTCOME_ALLOWED_ONCE },
		{ "python", "cat", WARDEN_OUTCOME_UNAVAILABLE }, /* no match */
		{ "read", "/etc/shadow", WARDEN_OUTCOME_REJECTED },
	};
	struct fx f;
	size_t i;

	fx_open(&f, "ask", ISO(state),
	        "[answerer rules]\nplugin = @RULES@\nisolation = @ISO@\n"
	        "deny = bash:rm *\n"
	        "allow = bash:git status\n"
	        "deny = bash:*\n"
	        "allow = bash:git *\n"
	        "allow = *:ls *\n"
	        "deny = re*:*shadow\n");
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		req.tool = c[i].tool;
		req.subject = c[i].subject;
		assert_int_equal(warden_approval_ask(f.a, f.s, &req, &res, &err), 0);
		if (res.outcome != c[i].outcome)
			fail_msg("%s:%s gave %s", c[i].tool, c[i].subject,
			         warden_outcome_name(res.outcome));
		if (res.outcome != WARDEN_OUTCOME_UNAVAILABLE)
			assert_string_equal(res.answerer, "rules");
	}
	fx_close(&f);
}

static void test_rules_bad_entry_makes_its_slot_unavailable(void **state)
{
	struct warden_approval_result res;
	struct fx f;

	fx_open(&f, "ask", ISO(state),
	        "[answerer rules]\nplugin = @RULES@\nisolation = @ISO@\n"
	        "allow = bash:ls\nallow = nocolon\n");
	assert_int_equal(ask(&f, "bash", &res), WARDEN_OUTCOME_UNAVAILABLE);
	if (strstr(res.reason, "test.ini:10: [answerer rules] allow = nocolon: "
	           "allowed: TOOL:GLOB") == NULL)
		fail_msg("reason: %s", res.reason);
	fx_close(&f);
}

#define BOTH(fn) \
	cmocka_unit_test_prestate(fn, (void *)"inproc"), \
	cmocka_unit_test_prestate(fn, (void *)"process")

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_never_policy_rejects_before_any_answerer),
		cmocka_unit_test(test_session_never_outranks_config_ask),
		BOTH(test_a_decisions_reason_is_escaped_bounded_and_recorded),
		BOTH(test_each_decision_is_returned_with_its_answerer),
		BOTH(test_delegate_passes_to_the_next_answerer),
		BOTH(test_an_answerers_umask_does_not_stay),
		BOTH(test_end_of_chain_without_decision_is_unavailable),
		cmocka_unit_test(test_empty_chain_is_unavailable),
		BOTH(test_append_registers_behind_the_config),
		cmocka_unit_test(test_register_refuses_bad_and_duplicate_names),
		BOTH(test_missing_plugin_is_unavailable_in_its_slot),
		BOTH(test_malformed_plugin_is_unavailable_in_its_slot),
		BOTH(test_failed_open_is_unavailable_in_its_slot),
		BOTH(test_error_is_unavailable_not_a_fallthrough),
		BOTH(test_value_outside_the_closed_set_is_unavailable),
		cmocka_unit_test(test_open_crash_costs_one_request),
		cmocka_unit_test(test_decide_crash_costs_one_request),
		cmocka_unit_test(test_decide_abort_costs_one_request),
		cmocka_unit_test(test_cxx_exception_costs_one_request),
		cmocka_unit_test(test_wire_garbage_costs_one_request),
		cmocka_unit_test(test_frame_for_another_request_costs_one_request),
		cmocka_unit_test(test_hang_times_out_and_the_worker_is_killed),
		BOTH(test_instance_is_opened_once_and_reused),
		cmocka_unit_test(test_worker_killed_while_idle_is_restarted_at_no_cost),
		BOTH(test_own_timeout_answers_before_the_hosts),
		BOTH(test_caller_deadline_cancels_at_once),
		BOTH(test_sigint_while_waiting_cancels_at_once),
		cmocka_unit_test(test_sigterm_withdraws_even_when_the_caller_blocks_it),
		cmocka_unit_test(test_every_request_has_a_matching_asked_decided_pair),
		cmocka_unit_test(test_asked_append_failure_refuses_without_asking),
		cmocka_unit_test(test_decided_append_failure_returns_no_decision),
		cmocka_unit_test(test_bad_request_is_refused_and_writes_nothing),
		BOTH(test_rules_first_match_in_file_order_decides),
		BOTH(test_rules_bad_entry_makes_its_slot_unavailable),
		/* Last: it leaves a hung thread behind in this process. */
		cmocka_unit_test(test_inproc_hang_times_out_then_stays_busy),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
