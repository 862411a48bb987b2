/*
 * test_session_stress.c — the session log under real concurrent writer
 * processes, and writers killed with SIGKILL in the middle of appends.
 */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "session.h"
#include "session_util.h"

static char *new_session(struct sfix *f)
{
	struct warden_error err;
	char *id = NULL;

	if (warden_session_create(&f->cfg, f->dir, &id, &err) != 0)
		fail_msg("create: %s", err.msg);
	return id;
}

/* Child: appends `count` events tagged with its writer number. */
static void writer(struct sfix *f, const char *id, int w, int count)
{
	struct warden_session *s = NULL;
	struct warden_error err;
	int i;

	if (warden_session_open(&f->cfg, id, &s, &err) != 0) {
		fprintf(stderr, "writer %d: %s\n", w, err.msg);
		_exit(2);
	}
	for (i = 0; i < count; i++) {
		json_t *fields = json_pack("{s:i,s:i}", "writer", w, "n", i);

		if (warden_session_append(s, "sandbox/run", fields, &err) != 0) {
			fprintf(stderr, "writer %d: %s\n", w, err.msg);
			_exit(3);
		}
		json_decref(fields);
	}
	warden_session_close(s);
	_exit(0);
}

/* Every line parses, seq is 1..n without gaps or duplicates, and each
 * writer's events are in its own order. */
static void check_log(struct sfix *f, const char *id, int writers, int count)
{
	size_t len, pos = 0;
	char *buf = sfix_read(sfix_log_path(f, id), &len), *nl;
	int next[64] = { 0 };
	uint64_t seq = 0;

	assert_non_null(buf);
	while (pos < len) {
		json_error_t jerr;
		json_t *o;
		int w;

		nl = memchr(buf + pos, '\n', len - pos);
		assert_non_null(nl);
		o = json_loadb(buf + pos, (size_t)(nl - (buf + pos)), 0, &jerr);
		if (o == NULL)
			fail_msg("line %llu: %s", (unsigned long long)seq + 1, jerr.text);
		assert_int_equal(json_integer_value(json_object_get(o, "seq")), ++seq);
		if (seq > 1) {
			w = (int)json_integer_value(json_object_get(o, "writer"));
			assert_true(w >= 0 && w < writers);
			assert_int_equal(json_integer_value(json_object_get(o, "n")), next[w]);
			next[w]++;
		}
		json_decref(o);
		pos = (size_t)(nl - buf) + 1;
	}
	assert_int_equal(seq, (uint64_t)writers * (uint64_t)count + 1);
	free(buf);
}

static void run_writers(struct sfix *f, int writers, int count)
{
	struct warden_session *s;
	struct warden_error err;
	pid_t pids[64];
	char *id = new_session(f);
	int i, status;

	for (i = 0; i < writers; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			writer(f, id, i, count);
	}
	for (i = 0; i < writers; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	check_log(f, id, writers, count);
	assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), 0);
	assert_int_equal(warden_session_replay(s, NULL, NULL, NULL, &err), 0);
	assert_int_equal(warden_session_last_seq(s), (uint64_t)writers * (uint64_t)count + 1);
	warden_session_close(s);
	free(id);
}

static void test_eight_writers_append_40000_events_without_gaps_or_duplicates(void **state)
{
	run_writers(*state, 8, 5000);
}

static void test_four_fsync_writers_append_without_gaps_or_duplicates(void **state)
{
	struct sfix *f = *state;

	f->cfg.durability = WARDEN_DURABILITY_FSYNC;
	run_writers(f, 4, 100);
}

/* Children append large events (so that a kill often lands inside a
 * write) until killed; whatever is left must replay, with at most a torn
 * tail, and the next append continues from the last complete event. */
static void test_a_writer_killed_mid_append_leaves_a_log_that_replays(void **state)
{
	struct sfix *f = *state;
	char *id = new_session(f), *big;
	int round;

	big = malloc(64 * 1024);
	assert_non_null(big);
	memset(big, 'x', 64 * 1024 - 1);
	big[64 * 1024 - 1] = '\0';
	for (round = 0; round < 8; round++) {
		struct warden_session *s;
		struct warden_error err;
		struct stat st0, st;
		uint64_t before;
		pid_t pid;
		int status;

		assert_int_equal(stat(sfix_log_path(f, id), &st0), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct warden_session *c = NULL;
			json_t *fields = json_pack("{s:s}", "stderr_tail", big);

			if (warden_session_open(&f->cfg, id, &c, &err) != 0)
				_exit(2);
			for (;;)
				if (warden_session_append(c, "sandbox/run", fields, &err) != 0)
					_exit(3);
		}
		/* Wait for some progress (more each round), then kill. */
		do {
			assert_int_equal(stat(sfix_log_path(f, id), &st), 0);
			assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
			usleep(1000);
		} while (st.st_size < st0.st_size + 200000);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));

		assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), 0);
		assert_int_equal(warden_session_replay(s, NULL, NULL, NULL, &err), 0);
		before = warden_session_last_seq(s);
		assert_true(before > 1);
		{
			json_t *fields = json_pack("{s:i}", "round", round);

			assert_int_equal(warden_session_append(s, "sandbox/run", fields, &err), 0);
			json_decref(fields);
		}
		assert_int_equal(warden_session_last_seq(s), before + 1);
		/* After the append the log is whole again: no torn tail. */
		assert_int_equal(warden_session_replay(s, NULL, NULL, NULL, &err), 0);
		assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), before + 1);
		warden_session_close(s);
	}
	free(big);
	free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, sfix_setup, sfix_teardown)
		T(test_eight_writers_append_40000_events_without_gaps_or_duplicates),
		T(test_four_fsync_writers_append_without_gaps_or_duplicates),
		T(test_a_writer_killed_mid_append_leaves_a_log_that_replays),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
