/*
 * test_session.c — the session log: ids, creation, appends, the fold,
 * torn tails and damage, transactions (host/session.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "preset.h"
#include "session.h"
#include "session_util.h"
#include "vocab.h"

static char *new_session(struct sfix *f)
{
	struct warden_error err;
	char *id = NULL;

	warden_error_clear(&err);
	if (warden_session_create(&f->cfg, f->dir, &id, &err) != 0)
		fail_msg("create: %s", err.msg);
	return id;
}

static struct warden_session *open_ok(struct sfix *f, const char *id)
{
	struct warden_session *s = NULL;
	struct warden_error err;

	if (warden_session_open(&f->cfg, id, &s, &err) != 0)
		fail_msg("open: %s", err.msg);
	return s;
}

static void append_run(struct warden_session *s, int i)
{
	struct warden_error err;
	json_t *fields = json_pack("{s:i,s:s}", "exit", i, "class", "ok");

	if (warden_session_append(s, "sandbox/run", fields, &err) != 0)
		fail_msg("append: %s", err.msg);
	json_decref(fields);
}

/* Line n (1-based) of a file, without its newline, malloc'd. */
static char *line_of(const char *path, size_t n)
{
	char *buf = sfix_read(path, NULL), *p = buf, *nl, *out;

	assert_non_null(buf);
	while (--n > 0) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	nl = strchr(p, '\n');
	out = strndup(p, nl ? (size_t)(nl - p) : strlen(p));
	free(buf);
	return out;
}

/* Replaces line n with text (no newline). */
static void rewrite_line(const char *path, size_t n, const char *text)
{
	char *buf = sfix_read(path, NULL), *p = buf, *nl, *out;
	size_t i;

	assert_non_null(buf);
	for (i = 1; i < n; i++)
		p = strchr(p, '\n') + 1;
	nl = strchr(p, '\n');
	assert_true(asprintf(&out, "%.*s%s%s", (int)(p - buf), buf, text, nl) > 0);
	sfix_write(path, out, strlen(out));
	free(out);
	free(buf);
}

/* Line n with one key replaced by a JSON value given as text. */
static char *line_with(const char *path, size_t n, const char *key,
                       const char *value_json)
{
	char *line = line_of(path, n), *out;
	json_t *o = json_loads(line, 0, NULL);
	json_t *v = json_loads(value_json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);

	/* A value that does not parse would leave the line as it was. */
	assert_non_null(o);
	assert_non_null(v);
	json_object_set_new(o, key, v);
	out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	free(line);
	return out;
}

/* ---- ids ----------------------------------------------------------------- */

static void test_hostile_session_ids_are_usage_errors(void **state)
{
	static const char *bad[] = {
		"", ".", "..", "../x", "a/b", "/etc/passwd", "a b", "a\nb",
		"a\x01", "\xc3\xa9t\xc3\xa9", "x\x1b[31m", "a:b", "~", "a*",
	};
	struct sfix *f = *state;
	struct warden_session *s = NULL;
	struct warden_error err;
	char longid[WARDEN_SESSION_ID_MAX + 2];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(warden_session_id_check(bad[i], &err), -WARDEN_EUSAGE);
		assert_int_equal(warden_session_open(&f->cfg, bad[i], &s, &err), -WARDEN_EUSAGE);
		assert_null(s);
		assert_null(strchr(err.msg, '\n'));
		assert_null(strchr(err.msg, '\x1b'));
	}
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(warden_session_id_check(longid, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "longer than 128"));
	assert_int_equal(warden_session_id_check(NULL, &err), -WARDEN_EUSAGE);
	longid[WARDEN_SESSION_ID_MAX] = '\0';
	assert_int_equal(warden_session_id_check(longid, &err), 0);
	assert_int_equal(warden_session_id_check("...", &err), 0);
	assert_int_equal(warden_session_id_check(".x", &err), 0);
	assert_int_equal(warden_session_id_check("A-z_0.9", &err), 0);
	/* Nothing was created while refusing them. */
	assert_int_equal(access(f->cfg.state_dir, F_OK), -1);
}

static void test_unknown_session_is_a_usage_error(void **state)
{
	struct sfix *f = *state;
	struct warden_session *s = NULL;
	struct warden_error err;
	char *id = new_session(f);

	assert_int_equal(warden_session_open(&f->cfg, "nope", &s, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "no session nope"));
	free(id);
}

/* ---- create -------------------------------------------------------------- */

static void test_create_makes_private_dirs_and_a_private_log(void **state)
{
	struct sfix *f = *state;
	struct stat st;
	char parent[PATH_MAX + 16];
	char *id = new_session(f), *line;

	assert_int_equal(warden_session_id_check(id, NULL), 0);
	assert_int_equal(stat(f->state, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(parent, sizeof(parent), "%s/state", f->dir);
	assert_int_equal(stat(parent, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(sfix_log_path(f, id), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 1);
	line = line_of(sfix_log_path(f, id), 1);
	/* The keys in their fixed order. */
	assert_memory_equal(line, "{\"seq\":1,\"time\":\"", 17);
	assert_non_null(strstr(line, "\",\"type\":\"session/start\",\"cwd\":\""));
	assert_non_null(strstr(line, "\",\"knobs\":{}}"));
	free(line);
	free(id);
}

static void test_two_creates_give_two_ids(void **state)
{
	struct sfix *f = *state;
	char *a = new_session(f), *b = new_session(f);

	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

static void test_create_records_the_resolved_cwd(void **state)
{
	struct sfix *f = *state;
	struct warden_session *s;
	struct warden_error err;
	char sub[PATH_MAX + 16], link[PATH_MAX + 16], via[PATH_MAX + 32];
	char want[PATH_MAX], *id;

	snprintf(sub, sizeof(sub), "%s/a", f->dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/a/b", f->dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(sub, link), 0);
	/* link/.. is a/, as the kernel sees it — not the fixture dir. */
	snprintf(via, sizeof(via), "%s/link/..", f->dir);
	snprintf(sub, sizeof(sub), "%s/a", f->dir);
	assert_non_null(realpath(sub, want));
	assert_int_equal(warden_session_create(&f->cfg, via, &id, &err), 0);
	s = open_ok(f, id);
	assert_string_equal(warden_session_cwd(s), want);
	warden_session_close(s);
	free(id);
}

static void test_create_refuses_a_cwd_that_is_not_a_directory(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char file[PATH_MAX + 16], missing[PATH_MAX + 16];
	char *id = NULL;

	snprintf(file, sizeof(file), "%s/file", f->dir);
	sfix_write(file, "x", 1);
	assert_int_equal(warden_session_create(&f->cfg, file, &id, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "not a directory"));
	snprintf(missing, sizeof(missing), "%s/missing", f->dir);
	assert_int_equal(warden_session_create(&f->cfg, missing, &id, &err), -WARDEN_EUSAGE);
	assert_null(id);
}

static void test_state_dir_writable_by_others_is_refused(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), *id2 = NULL;
	struct warden_session *s = NULL;

	assert_int_equal(chmod(f->state, 0777), 0);
	assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), -WARDEN_EREFUSED);
	assert_int_equal(warden_session_create(&f->cfg, f->dir, &id2, &err), -WARDEN_EREFUSED);
	assert_non_null(strstr(err.msg, "chmod 700"));
	free(id);
}

static void test_a_symlinked_log_is_refused(void **state)
{
	struct sfix *f = *state;
	struct warden_session *s = NULL;
	struct warden_error err;
	char *id = new_session(f);
	char target[PATH_MAX + 300];

	snprintf(target, sizeof(target), "%s", sfix_log_path(f, id));
	assert_int_equal(symlink(target, sfix_log_path(f, "other")), 0);
	assert_int_equal(warden_session_open(&f->cfg, "other", &s, &err), -WARDEN_EREFUSED);
	assert_non_null(strstr(err.msg, "symbolic link"));
	free(id);
}

/* ---- append -------------------------------------------------------------- */

static void test_append_writes_fields_in_a_stable_order(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), *line;
	struct warden_session *s = open_ok(f, id);
	json_t *fields = json_object();

	json_object_set_new(fields, "zeta", json_integer(1));
	json_object_set_new(fields, "alpha", json_string("a\nb"));
	json_object_set_new(fields, "mid", json_pack("{s:b}", "x", 1));
	assert_int_equal(warden_session_append(s, "approval/asked", fields, &err), 0);
	json_decref(fields);
	line = line_of(sfix_log_path(f, id), 2);
	assert_memory_equal(line, "{\"seq\":2,\"time\":\"", 17);
	assert_non_null(strstr(line, "\",\"type\":\"approval/asked\",\"alpha\":\"a\\nb\",\"mid\":{\"x\":true},\"zeta\":1,\"knobs\":{}}"));
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 2);
	assert_int_equal(warden_session_last_seq(s), 2);
	free(line);
	warden_session_close(s);
	free(id);
}

static void test_append_refuses_knob_types_reserved_keys_and_non_objects(void **state)
{
	static const char *types[] = {
		"session/start", "sandbox/mode", "approval/policy",
		"permission/preset", "sandbox/other", "",
	};
	static const char *reserved[] = { "seq", "time", "type", "knobs" };
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), *before, *after;
	struct warden_session *s = open_ok(f, id);
	json_t *fields;
	size_t i;

	before = sfix_read(sfix_log_path(f, id), NULL);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		assert_int_equal(warden_session_append(s, types[i], NULL, &err), -WARDEN_EINTERNAL);
	assert_int_equal(warden_session_append(s, NULL, NULL, &err), -WARDEN_EINTERNAL);
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		fields = json_pack("{s:i}", reserved[i], 7);
		assert_int_equal(warden_session_append(s, "sandbox/run", fields, &err),
		                 -WARDEN_EINTERNAL);
		assert_non_null(strstr(err.msg, reserved[i]));
		json_decref(fields);
	}
	fields = json_array();
	assert_int_equal(warden_session_append(s, "sandbox/run", fields, &err), -WARDEN_EINTERNAL);
	json_decref(fields);
	after = sfix_read(sfix_log_path(f, id), NULL);
	assert_string_equal(before, after);
	assert_int_equal(warden_session_last_seq(s), 1);
	free(before);
	free(after);
	warden_session_close(s);
	free(id);
}

static void test_two_handles_interleave_without_gaps(void **state)
{
	struct sfix *f = *state;
	char *id = new_session(f);
	struct warden_session *a = open_ok(f, id), *b = open_ok(f, id), *c;
	struct warden_error err;
	struct warden_knobs k;
	int i;

	for (i = 0; i < 10; i++) {
		append_run(i % 2 ? a : b, i);
		if (i == 4)
			assert_int_equal(warden_session_set_mode(a, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
	}
	/* b's cached view is stale; its next append must see a's writes. */
	assert_int_equal(warden_session_set_policy(b, WARDEN_POLICY_NEVER, NULL, &err), 0);
	assert_int_equal(warden_session_knobs(b)->mode, WARDEN_SANDBOX_READ_ONLY);
	c = open_ok(f, id);
	assert_int_equal(warden_session_last_seq(c), 13);
	assert_int_equal(warden_session_replay(c, NULL, NULL, &k, &err), 0);
	assert_int_equal(k.mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(k.policy, WARDEN_POLICY_NEVER);
	warden_session_close(a);
	warden_session_close(b);
	warden_session_close(c);
	free(id);
}

/* A parent and a forked child appending at once: after
 * warden_session_reopen in the child, each holds its own lock, and the
 * log stays one unbroken sequence.  Without it the fork shares the open
 * file description and so the lock, and lines with one seq follow
 * (this test fails then: checked by leaving the reopen out). */
static void fork_appends(struct warden_session *s, int reopen)
{
	struct warden_error err;
	pid_t pid;
	int i, st;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (reopen && warden_session_reopen(s, &err) < 0)
			_exit(3);
		for (i = 0; i < 300; i++) {
			json_t *fields = json_pack("{s:i,s:s}", "exit", i, "class", "ok");
			if (warden_session_append(s, "sandbox/run", fields, &err) != 0)
				_exit(4);
			json_decref(fields);
		}
		_exit(0);
	}
	for (i = 0; i < 300; i++)
		append_run(s, i);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_a_reopened_child_and_its_parent_append_in_turn(void **state)
{
	struct sfix *f = *state;
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id), *c;
	struct warden_error err;
	struct warden_knobs k;

	fork_appends(s, 1);
	c = open_ok(f, id);
	assert_int_equal(warden_session_replay(c, NULL, NULL, &k, &err), 0);
	assert_int_equal(warden_session_last_seq(c), 601);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 601);
	warden_session_close(c);
	warden_session_close(s);
	free(id);
}

static void test_reopen_refuses_a_log_replaced_under_it(void **state)
{
	struct sfix *f = *state;
	char *id = new_session(f), *other = new_session(f);
	struct warden_session *s = open_ok(f, id);
	struct warden_error err;
	char path[4096];

	snprintf(path, sizeof(path), "%s", sfix_log_path(f, id));
	assert_int_equal(rename(sfix_log_path(f, other), path), 0);
	assert_int_equal(warden_session_reopen(s, &err), -WARDEN_EDATA);
	assert_non_null(strstr(err.msg, "no longer the log"));
	/* Its descriptor is the one it had: it still appends to the
	 * unlinked original, not to the file put in its place. */
	append_run(s, 1);
	assert_int_equal(sfix_count_lines(path), 1);
	warden_session_close(s);
	free(id);
	free(other);
}

static void test_setters_append_only_when_the_recorded_value_changes(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id);
	int changed;

	assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, &changed, &err), 0);
	assert_int_equal(changed, 0);
	/* Pinning the config's value is a change: it outlives a config edit. */
	assert_int_equal(warden_session_set_policy(s, WARDEN_POLICY_ASK, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(warden_session_set_mode(s, 42, &changed, &err), -WARDEN_EINTERNAL);
	assert_int_equal(warden_session_set_policy(s, 0, &changed, &err), -WARDEN_EINTERNAL);
	/* The network knob: restricted is the default, and pinning it is a
	 * change too. */
	assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_RESTRICTED, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_RESTRICTED, &changed, &err), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_ENABLED, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_ALLOWLIST, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(warden_session_set_network(s, 4, &changed, &err), -WARDEN_EINTERNAL);
	assert_int_equal(warden_session_set_network(s, 0, &changed, &err), -WARDEN_EINTERNAL);
	assert_int_equal(warden_session_knobs(s)->network, WARDEN_NETWORK_ALLOWLIST);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 6);
	warden_session_close(s);
	free(id);
}

/* A destination scope's key is the SHA-256 of its canonical encoding
 * (the expected digests are Python's hashlib over the same bytes: one
 * text of 59 bytes, padded over two blocks, one of 258). */
static void test_grant_keys_are_sha256_of_the_canonical_scope(void **state)
{
	char key[WARDEN_GRANT_KEY_LEN + 1], why[160], host[201];
	json_t *o;

	(void)state;
	o = json_pack("{s:s,s:s,s:s,s:i}", "tool", "network", "kind", "destination",
	              "host", "a", "port", 1);
	assert_int_equal(warden_grant_scope_check(o, key, why, sizeof(why)), 0);
	assert_string_equal(key, "f4b73d9dac6e7bd9f1916914307119fee0884d7a4177138137e03ad392c107f1");
	json_decref(o);
	memset(host, 'x', 200);
	host[200] = '\0';
	o = json_pack("{s:s,s:s,s:s,s:i}", "tool", "network", "kind", "destination",
	              "host", host, "port", 1);
	assert_int_equal(warden_grant_scope_check(o, key, why, sizeof(why)), 0);
	assert_string_equal(key, "a7e3ced14833ee95d501ea51dea31ba21090d7ea1130a535600db2c2f6f56ad4");
	/* One field more, a bad port, another kind: refused. */
	json_object_set_new(o, "extra", json_true());
	assert_int_equal(warden_grant_scope_check(o, key, why, sizeof(why)), -1);
	json_object_del(o, "extra");
	json_object_set_new(o, "port", json_integer(70000));
	assert_int_equal(warden_grant_scope_check(o, key, why, sizeof(why)), -1);
	json_object_set_new(o, "port", json_integer(1));
	json_object_set_new(o, "kind", json_string("everything"));
	assert_int_equal(warden_grant_scope_check(o, key, why, sizeof(why)), -1);
	json_decref(o);
}

static json_t *grant_fields(const char *id, const char *host)
{
	char key[WARDEN_GRANT_KEY_LEN + 1], why[160];
	json_t *scope = json_pack("{s:s,s:s,s:s,s:i}", "kind", "destination", "tool",
	                          "network", "host", host, "port", 443);

	assert_int_equal(warden_grant_scope_check(scope, key, why, sizeof(why)), 0);
	return json_pack("{s:s,s:s,s:o,s:s,s:s,s:s}", "grant", id, "key", key,
	                 "scope", scope, "name", "destination", "request_id", "req-1",
	                 "answerer", "t");
}

/* Grants fold into the knobs, survive a reopen and a replay, and are
 * revoked; what replay would refuse is never written. */
static void test_grants_fold_revoke_and_refuse_what_replay_would(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), gid[WARDEN_GRANT_ID_LEN + 1], first[WARDEN_GRANT_ID_LEN + 1];
	struct warden_session *s = open_ok(f, id);
	struct warden_knobs k;
	json_t *g, *list;
	int i;

	assert_int_equal(warden_grant_id_new(first), 0);
	assert_true(warden_grant_id_ok(first));
	g = grant_fields(first, "example.org");
	assert_int_equal(warden_session_grant(s, g, &err), 0);
	/* The same id again is refused, nothing written. */
	assert_int_equal(warden_session_grant(s, g, &err), -WARDEN_EINTERNAL);
	json_decref(g);
	/* A key that is not its scope's is never written. */
	g = grant_fields("grant-00000000000000aa", "example.org");
	json_object_set_new(g, "key", json_string("0000000000000000000000000000000000000000000000000000000000000000"));
	assert_int_equal(warden_session_grant(s, g, &err), -WARDEN_EINTERNAL);
	json_decref(g);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 2);
	assert_int_equal(warden_session_knobs(s)->n_grants, 1);
	assert_non_null(warden_grant_covers_destination("Example.ORG", 443,
	                warden_session_knobs(s)->grants, warden_session_knobs(s)->n_grants));
	assert_null(warden_grant_covers_destination("example.org", 80,
	            warden_session_knobs(s)->grants, warden_session_knobs(s)->n_grants));
	warden_session_close(s);

	s = open_ok(f, id);
	assert_int_equal(warden_session_knobs(s)->n_grants, 1);
	assert_string_equal(warden_session_knobs(s)->grants[0].id, first);
	/* Up to the limit, then refused. */
	for (i = 1; i < WARDEN_GRANTS_MAX; i++) {
		snprintf(gid, sizeof(gid), "grant-%016x", i);
		g = grant_fields(gid, "example.org");
		assert_int_equal(warden_session_grant(s, g, &err), 0);
		json_decref(g);
	}
	g = grant_fields("grant-ffffffffffffffff", "example.org");
	assert_int_equal(warden_session_grant(s, g, &err), -WARDEN_EREFUSED);
	json_decref(g);
	assert_int_equal(warden_session_revoke(s, first, &err), 0);
	assert_int_equal(warden_session_revoke(s, first, &err), -WARDEN_EUSAGE);
	assert_int_equal(warden_session_revoke(s, "grant-x", &err), -WARDEN_EUSAGE);
	assert_int_equal(warden_session_knobs(s)->n_grants, WARDEN_GRANTS_MAX - 1);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_int_equal(k.n_grants, WARDEN_GRANTS_MAX - 1);
	assert_int_equal(warden_session_grants(s, &list, &err), 0);
	assert_int_equal(json_array_size(list), WARDEN_GRANTS_MAX - 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "text")),
	                    "network connections to example.org:443");
	json_decref(list);
	warden_session_close(s);
	free(id);
}

static int failing_txn(struct warden_session *s, const struct warden_knobs *now,
                       void *ud, struct warden_error *err)
{
	int r = warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, err);

	assert_int_equal(r, 0);
	append_run(s, 1);
	return warden_error_set(err, WARDEN_EREFUSED, "changed my mind");
}

static void test_a_failed_transaction_writes_nothing(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), *before, *after;
	struct warden_session *s = open_ok(f, id);

	before = sfix_read(sfix_log_path(f, id), NULL);
	assert_int_equal(warden_session_transaction(s, failing_txn, NULL, &err), -WARDEN_EREFUSED);
	after = sfix_read(sfix_log_path(f, id), NULL);
	assert_string_equal(before, after);
	assert_int_equal(warden_session_knobs(s)->mode, 0);
	assert_int_equal(warden_session_last_seq(s), 1);
	append_run(s, 2);
	assert_int_equal(warden_session_last_seq(s), 2);
	free(before);
	free(after);
	warden_session_close(s);
	free(id);
}

/* A write cut short by the file size limit is rolled back. */
static void test_a_short_write_is_rolled_back(void **state)
{
	struct sfix *f = *state;
	char *id = new_session(f), *before, *after;
	struct stat st;
	pid_t pid;
	int status;

	before = sfix_read(sfix_log_path(f, id), NULL);
	assert_int_equal(stat(sfix_log_path(f, id), &st), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)st.st_size + 10, (rlim_t)st.st_size + 10 };
		struct warden_session *s = NULL;
		struct warden_error err;
		json_t *fields = json_pack("{s:s}", "subject", "a long enough subject");

		signal(SIGXFSZ, SIG_IGN);
		if (warden_session_open(&f->cfg, id, &s, &err) != 0)
			_exit(2);
		int r;

		setrlimit(RLIMIT_FSIZE, &rl);
		r = warden_session_append(s, "sandbox/run", fields, &err) == -WARDEN_EIO ? 0 : 1;
		/* Nothing left allocated: under memcheck a leak is an error. */
		json_decref(fields);
		warden_session_close(s);
		free(id);
		free(before);
		_exit(r);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	after = sfix_read(sfix_log_path(f, id), NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(id);
}

static void test_durability_fsync_appends_and_replays(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	struct warden_knobs k;
	char *id;
	struct warden_session *s;

	f->cfg.durability = WARDEN_DURABILITY_FSYNC;
	id = new_session(f);
	s = open_ok(f, id);
	append_run(s, 0);
	assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_int_equal(k.mode, WARDEN_SANDBOX_READ_ONLY);
	warden_session_close(s);
	free(id);
}

/* ---- the fold ------------------------------------------------------------ */

/* The config's network, restricted when it says none. */
static int model_default_network(const struct warden_config *cfg)
{
	return cfg->default_network ? cfg->default_network : WARDEN_NETWORK_RESTRICTED;
}

/* An independent statement of DESIGN §4's current(), over three knobs:
 * danger-full-access always has the network enabled, and a preset without
 * a network matches any. */
static const char *model_current(const struct warden_config *cfg, int mode,
                                 int policy, int network, const char *selected)
{
	const struct warden_preset *t;
	size_t i, n;

	t = warden_preset_table(cfg, &n);
	if (mode == 0)
		mode = cfg->default_mode;
	if (policy == 0)
		policy = cfg->approval_policy;
	if (network == 0)
		network = model_default_network(cfg);
	if (mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
		network = WARDEN_NETWORK_ENABLED;
	for (i = 0; i < n && selected[0]; i++)
		if (strcmp(t[i].name, selected) == 0 && t[i].mode == mode &&
		    t[i].policy == policy && (!t[i].network || t[i].network == network))
			return t[i].name;
	for (i = 0; i < n; i++)
		if (t[i].mode == mode && t[i].policy == policy &&
		    (!t[i].network || t[i].network == network))
			return t[i].name;
	return "custom";
}

struct model {
	int mode, policy;
	char preset[256];
	uint64_t events;
	int network;
};

static void check_against_model(struct sfix *f, const char *id,
                                const struct model *m)
{
	struct warden_session *s = open_ok(f, id);
	const struct warden_knobs *k = warden_session_knobs(s);
	struct warden_resolved res;
	struct warden_knobs full;
	struct warden_error err;
	const char *want = model_current(&f->cfg, m->mode, m->policy, m->network, m->preset);

	/* The bounded fold (open) ... */
	assert_int_equal(k->mode, m->mode);
	assert_int_equal(k->policy, m->policy);
	assert_string_equal(k->preset, m->preset);
	assert_int_equal(k->network, m->network);
	assert_int_equal(warden_session_last_seq(s), m->events);
	/* ... the full replay ... */
	assert_int_equal(warden_session_replay(s, NULL, NULL, &full, &err), 0);
	assert_int_equal(full.mode, m->mode);
	assert_int_equal(full.policy, m->policy);
	assert_string_equal(full.preset, m->preset);
	assert_int_equal(full.network, m->network);
	/* ... and the resolution agree with the state built step by step. */
	assert_string_equal(warden_preset_current(&f->cfg, k, NULL), want);
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &res, &err), 0);
	assert_int_equal(res.mode, m->mode ? m->mode : f->cfg.default_mode);
	assert_int_equal(res.mode_source, m->mode ? WARDEN_SOURCE_SESSION : WARDEN_SOURCE_CONFIG);
	assert_int_equal(res.policy, m->policy ? m->policy : f->cfg.approval_policy);
	if (res.mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS) {
		assert_int_equal(res.network, WARDEN_NETWORK_ENABLED);
		assert_int_equal(res.network_source, WARDEN_SOURCE_MODE);
	} else {
		assert_int_equal(res.network, m->network ? m->network
		                                         : model_default_network(&f->cfg));
		assert_int_equal(res.network_source, m->network ? WARDEN_SOURCE_SESSION
		                                                : WARDEN_SOURCE_CONFIG);
	}
	assert_string_equal(res.preset, want);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), m->events);
	warden_session_close(s);
}

static void random_walk(struct sfix *f, unsigned seed, int steps)
{
	static const int modes[] = {
		WARDEN_SANDBOX_READ_ONLY, WARDEN_SANDBOX_WORKSPACE_WRITE,
		WARDEN_SANDBOX_DANGER_FULL_ACCESS,
	};
	struct model m = { 0, 0, "", 1, 0 };
	struct warden_error err;
	const struct warden_preset *t;
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id);
	size_t n;
	int step, changed, v;

	srand(seed);
	t = warden_preset_table(&f->cfg, &n);
	check_against_model(f, id, &m);
	for (step = 0; step < steps; step++) {
		switch (rand() % 6) {
		case 0:
			v = modes[rand() % 3];
			assert_int_equal(warden_session_set_mode(s, v, &changed, &err), 0);
			assert_int_equal(changed, m.mode != v);
			m.events += m.mode != v;
			m.mode = v;
			break;
		case 1:
			v = rand() % 2 ? WARDEN_POLICY_ASK : WARDEN_POLICY_NEVER;
			assert_int_equal(warden_session_set_policy(s, v, &changed, &err), 0);
			assert_int_equal(changed, m.policy != v);
			m.events += m.policy != v;
			m.policy = v;
			break;
		case 5:
			v = rand() % 2 ? WARDEN_NETWORK_RESTRICTED : WARDEN_NETWORK_ENABLED;
			assert_int_equal(warden_session_set_network(s, v, &changed, &err), 0);
			assert_int_equal(changed, m.network != v);
			m.events += m.network != v;
			m.network = v;
			break;
		case 2:
		case 3: {
			const struct warden_preset *p = &t[(size_t)rand() % n];
			int em = m.mode ? m.mode : f->cfg.default_mode;
			int ep = m.policy ? m.policy : f->cfg.approval_policy;
			int en = m.network ? m.network : model_default_network(&f->cfg);

			assert_int_equal(warden_preset_select(&f->cfg, s, p->name, &changed, &err), 0);
			if (strcmp(model_current(&f->cfg, m.mode, m.policy, m.network, m.preset),
			           p->name) == 0) {
				assert_int_equal(changed, 0);
				break;
			}
			assert_int_equal(changed, 1);
			snprintf(m.preset, sizeof(m.preset), "%s", p->name);
			m.events++;
			if (em != p->mode) {
				m.mode = p->mode;
				m.events++;
			}
			if (ep != p->policy) {
				m.policy = p->policy;
				m.events++;
			}
			if (p->network && en != p->network) {
				m.network = p->network;
				m.events++;
			}
			break;
		}
		default:
			append_run(s, step);
			m.events++;
			break;
		}
		check_against_model(f, id, &m);
	}
	warden_session_close(s);
	free(id);
}

static void test_fold_after_every_step_equals_the_state_built_step_by_step(void **state)
{
	struct sfix *f = *state;
	unsigned seed;

	for (seed = 1; seed <= 4; seed++)
		random_walk(f, seed, 60);
}

/* Presets that share bundles, and a default that matches none; some
 * leave the network alone, some name it. */
static struct warden_preset shared[] = {
	{ (char *)"review", WARDEN_SANDBOX_READ_ONLY, WARDEN_POLICY_ASK, NULL, NULL, 1, 0 },
	{ (char *)"build", WARDEN_SANDBOX_WORKSPACE_WRITE, WARDEN_POLICY_ASK, NULL, NULL, 2,
	  WARDEN_NETWORK_ENABLED },
	{ (char *)"edit", WARDEN_SANDBOX_WORKSPACE_WRITE, WARDEN_POLICY_ASK, NULL, NULL, 3, 0 },
	{ (char *)"look", WARDEN_SANDBOX_READ_ONLY, WARDEN_POLICY_ASK, NULL, NULL, 4,
	  WARDEN_NETWORK_RESTRICTED },
	{ (char *)"yolo", WARDEN_SANDBOX_DANGER_FULL_ACCESS, WARDEN_POLICY_NEVER, NULL, NULL, 5,
	  WARDEN_NETWORK_ENABLED },
	{ (char *)"auto", WARDEN_SANDBOX_WORKSPACE_WRITE, WARDEN_POLICY_NEVER, NULL, NULL, 6, 0 },
	{ (char *)"sealed", WARDEN_SANDBOX_WORKSPACE_WRITE, WARDEN_POLICY_ASK, NULL, NULL, 7,
	  WARDEN_NETWORK_RESTRICTED },
};

static void test_current_with_shared_bundles_follows_random_sequences(void **state)
{
	struct sfix *f = *state;
	unsigned seed;

	f->cfg.presets = shared;
	f->cfg.n_presets = sizeof(shared) / sizeof(shared[0]);
	for (seed = 10; seed < 20; seed++) {
		f->cfg.default_mode = seed % 2 ? WARDEN_SANDBOX_READ_ONLY
		                               : WARDEN_SANDBOX_DANGER_FULL_ACCESS;
		f->cfg.default_network = seed % 4 < 2 ? 0 : WARDEN_NETWORK_ENABLED;
		random_walk(f, seed, 50);
	}
}

static void test_current_tie_rule(void **state)
{
	struct sfix *f = *state;
	struct warden_knobs k = { .mode = 0 };
	int sel;

	f->cfg.presets = shared;
	f->cfg.n_presets = sizeof(shared) / sizeof(shared[0]);
	/* No selection: the first declared match ("build" wants the network
	 * enabled; the default is restricted, which "edit" leaves alone). */
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "edit");
	assert_int_equal(sel, 0);
	k.network = WARDEN_NETWORK_ENABLED;
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "build");
	assert_int_equal(sel, 0);
	/* A selection that names no network matches whatever the knob says. */
	snprintf(k.preset, sizeof(k.preset), "edit");
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "edit");
	assert_int_equal(sel, 1);
	/* One that names the other network does not. */
	snprintf(k.preset, sizeof(k.preset), "sealed");
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "build");
	assert_int_equal(sel, 0);
	k.network = 0;
	k.preset[0] = '\0';
	/* A still-matching selection wins the tie. */
	snprintf(k.preset, sizeof(k.preset), "edit");
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "edit");
	assert_int_equal(sel, 1);
	/* A selection that stopped matching loses to the first match. */
	k.mode = WARDEN_SANDBOX_READ_ONLY;
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "review");
	assert_int_equal(sel, 0);
	/* A selection no longer declared is ignored. */
	snprintf(k.preset, sizeof(k.preset), "gone");
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "review");
	/* No match at all: custom. */
	k.policy = WARDEN_POLICY_NEVER;
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "custom");
	assert_int_equal(sel, 0);
	/* danger-full-access has the network enabled whatever the knob says:
	 * a preset that wants it enabled matches a restricted knob. */
	k.mode = WARDEN_SANDBOX_DANGER_FULL_ACCESS;
	k.network = WARDEN_NETWORK_RESTRICTED;
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "yolo");
	/* Custom over the network alone: workspace-write, ask, enabled
	 * matches build; with build gone from the table, nothing matches. */
	f->cfg.n_presets = 1;
	k.mode = WARDEN_SANDBOX_WORKSPACE_WRITE;
	k.policy = WARDEN_POLICY_ASK;
	k.network = WARDEN_NETWORK_ENABLED;
	f->cfg.presets = &shared[6];
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "custom");
	k.network = WARDEN_NETWORK_RESTRICTED;
	assert_string_equal(warden_preset_current(&f->cfg, &k, &sel), "sealed");
}

static void test_select_writes_only_what_changes_in_one_write(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), *line;
	struct warden_session *s = open_ok(f, id);
	int changed;

	/* The default knobs already are workspace-write: nothing to write. */
	assert_int_equal(warden_preset_select(&f->cfg, s, "workspace-write", &changed, &err), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 1);
	/* All three knobs change. */
	assert_int_equal(warden_preset_select(&f->cfg, s, "danger-full-access", &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 5);
	line = line_of(sfix_log_path(f, id), 2);
	assert_non_null(strstr(line, "\"type\":\"permission/preset\",\"preset\":\"danger-full-access\""));
	free(line);
	line = line_of(sfix_log_path(f, id), 5);
	assert_non_null(strstr(line, "\"type\":\"sandbox/network\",\"network\":\"enabled\""));
	assert_non_null(strstr(line, "\"knobs\":{\"mode\":\"danger-full-access\",\"policy\":\"never\",\"preset\":\"danger-full-access\",\"network\":\"enabled\"}"));
	free(line);
	/* Re-selecting the current preset appends nothing. */
	assert_int_equal(warden_preset_select(&f->cfg, s, "danger-full-access", &changed, &err), 0);
	assert_int_equal(changed, 0);
	/* The policy and the network differ from workspace-write after this. */
	assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_WORKSPACE_WRITE, NULL, &err), 0);
	assert_int_equal(warden_preset_select(&f->cfg, s, "workspace-write", &changed, &err), 0);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 9);
	line = line_of(sfix_log_path(f, id), 8);
	assert_non_null(strstr(line, "\"type\":\"approval/policy\""));
	free(line);
	line = line_of(sfix_log_path(f, id), 9);
	assert_non_null(strstr(line, "\"type\":\"sandbox/network\",\"network\":\"restricted\""));
	free(line);
	/* Only the network differs: one event besides the selection. */
	assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_ENABLED, NULL, &err), 0);
	assert_int_equal(warden_preset_select(&f->cfg, s, "workspace-write", &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 12);
	warden_session_close(s);
	free(id);
}

static void test_select_refuses_unknown_and_custom_and_writes_nothing(void **state)
{
	struct sfix *f = *state;
	struct warden_error err;
	char *id = new_session(f), *before, *after;
	struct warden_session *s = open_ok(f, id);

	before = sfix_read(sfix_log_path(f, id), NULL);
	assert_int_equal(warden_preset_select(&f->cfg, s, "nope", NULL, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "unknown preset"));
	assert_int_equal(warden_preset_select(&f->cfg, s, "custom", NULL, &err), -WARDEN_EUSAGE);
	assert_int_equal(warden_preset_select(&f->cfg, s, NULL, NULL, &err), -WARDEN_EUSAGE);
	after = sfix_read(sfix_log_path(f, id), NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	warden_session_close(s);
	free(id);
}

/* ---- torn tails ---------------------------------------------------------- */

static char *session_with_events(struct sfix *f, int n)
{
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id);
	struct warden_error err;
	int i;

	for (i = 0; i < n; i++) {
		if (i == 1)
			assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
		else
			append_run(s, i);
	}
	warden_session_close(s);
	return id;
}

static void torn_tail_is_ignored_then_cut(struct sfix *f, const char *tail)
{
	struct warden_error err;
	struct warden_knobs k;
	char *id = session_with_events(f, 4), *line;
	struct warden_session *s;
	struct warden_resolved res;

	sfix_append(sfix_log_path(f, id), tail);
	s = open_ok(f, id);
	assert_int_equal(warden_session_last_seq(s), 5);
	assert_int_equal(warden_session_knobs(s)->mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_int_equal(k.mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &res, &err), 0);
	/* The next append cuts the torn bytes off and continues the log. */
	append_run(s, 9);
	assert_int_equal(warden_session_last_seq(s), 6);
	line = line_of(sfix_log_path(f, id), 6);
	assert_memory_equal(line, "{\"seq\":6,", 9);
	free(line);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 6);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	warden_session_close(s);
	free(id);
}

static void test_torn_final_line_without_newline_is_ignored(void **state)
{
	torn_tail_is_ignored_then_cut(*state, "{\"seq\":6,\"time\":\"2026-");
}

static void test_torn_final_line_with_cut_json_is_ignored(void **state)
{
	torn_tail_is_ignored_then_cut(*state, "{\"seq\":6,\"time\":\"2026-01-01T00:00:00Z\",\"type\":\n");
}

static void test_a_log_with_only_a_torn_start_is_damaged(void **state)
{
	struct sfix *f = *state;
	struct warden_session *s = NULL;
	struct warden_error err;
	char *id = new_session(f);

	sfix_write(sfix_log_path(f, id), "{\"seq\":1,\"ti", 12);
	assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), -WARDEN_EDATA);
	assert_non_null(strstr(err.msg, "session/start"));
	sfix_write(sfix_log_path(f, id), "", 0);
	assert_int_equal(warden_session_open(&f->cfg, id, &s, &err), -WARDEN_EDATA);
	assert_non_null(strstr(err.msg, "empty"));
	free(id);
}

/* ---- damage -------------------------------------------------------------- */

struct damage_case {
	const char *name;
	const char *key;   /* NULL: replace the whole line with value */
	const char *value;
	const char *why;   /* a substring of the error */
};

static const struct damage_case damages[] = {
	{ "bad json", NULL, "{\"seq\":3,\"time\"::}", "bad JSON" },
	{ "not an object", NULL, "[1,2,3]", "not a JSON object" },
	{ "seq not increasing", "seq", "2", "does not follow" },
	{ "seq gap", "seq", "9", "does not follow" },
	{ "seq wrong type", "seq", "\"3\"", "seq" },
	{ "unknown type", "type", "\"sandbox/other\"", "event type" },
	{ "bad time", "time", "\"yesterday\"", "RFC 3339" },
	{ "second start", "type", "\"session/start\"", "session/start" },
	{ "knobs drift", "knobs", "{\"mode\":\"danger-full-access\"}", "knobs" },
	{ "knobs bad mode", "knobs", "{\"mode\":\"read-write\"}", "sandbox mode" },
	{ "knobs bad network", "knobs", "{\"mode\":\"read-only\",\"network\":\"open\"}", "network setting" },
	{ "knobs network drift", "knobs", "{\"mode\":\"read-only\",\"network\":\"enabled\"}", "knobs" },
	{ "knobs missing", "knobs", "null", "knobs" },
};

static const struct damage_case mode_damages[] = {
	{ "mode wrong type", "mode", "5", "sandbox/mode" },
	{ "bad mode string", "mode", "\"read-write\"", "sandbox/mode" },
	{ "mode missing", "mode", "null", "sandbox/mode" },
};

/* Damage to a sandbox/network line (line 3 of session_with_network). */
static const struct damage_case network_damages[] = {
	{ "network wrong type", "network", "1", "sandbox/network" },
	{ "bad network string", "network", "\"open\"", "sandbox/network" },
	{ "network missing", "network", "null", "sandbox/network" },
	{ "network not in knobs", "knobs", "{\"mode\":\"read-only\"}", "knobs" },
	{ "network knob of the other value", "knobs",
	  "{\"mode\":\"read-only\",\"network\":\"restricted\"}", "knobs" },
};

static void expect_damage(struct sfix *f, const char *id, size_t line_no,
                          const char *why, int in_tail)
{
	struct warden_session *s = NULL;
	struct warden_resolved res;
	struct warden_error err;
	char want[64];
	int r;

	snprintf(want, sizeof(want), "at line %zu", line_no);
	r = warden_session_open(&f->cfg, id, &s, &err);
	if (in_tail) {
		assert_int_equal(r, -WARDEN_EDATA);
		assert_null(s);
		assert_non_null(strstr(err.msg, want));
		assert_non_null(strstr(err.msg, why));
		assert_null(strchr(err.msg, '\n'));
		/* Every caller refuses: resolution does not fall back. */
		assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &res, &err), -WARDEN_EDATA);
		assert_int_equal(res.mode, 0);
		assert_int_equal(res.root[0], '\0');
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(warden_session_replay(s, NULL, NULL, NULL, &err), -WARDEN_EDATA);
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, why));
	warden_session_close(s);
}

static void damage_at(struct sfix *f, const struct damage_case *d, int events,
                      size_t line_no, int in_tail)
{
	char *id = session_with_events(f, events), *text;

	if (d->key == NULL)
		text = strdup(d->value);
	else
		text = line_with(sfix_log_path(f, id), line_no, d->key, d->value);
	rewrite_line(sfix_log_path(f, id), line_no, text);
	free(text);
	expect_damage(f, id, line_no, d->why, in_tail);
	free(id);
}

/* n events: a run, sandbox/mode read-only, sandbox/network enabled, runs. */
static char *session_with_network(struct sfix *f, int n)
{
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id);
	struct warden_error err;
	int i;

	for (i = 0; i < n; i++) {
		if (i == 1)
			assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
		else if (i == 2)
			assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_ENABLED, NULL, &err), 0);
		else
			append_run(s, i);
	}
	warden_session_close(s);
	return id;
}

static void network_damage_at(struct sfix *f, const struct damage_case *d, int events,
                              int in_tail)
{
	char *id = session_with_network(f, events), *text;

	text = line_with(sfix_log_path(f, id), 4, d->key, d->value);
	rewrite_line(sfix_log_path(f, id), 4, text);
	free(text);
	expect_damage(f, id, 4, d->why, in_tail);
	free(id);
}

static void test_a_damaged_network_event_is_an_error_and_resolves_nothing(void **state)
{
	struct sfix *f = *state;
	size_t i;

	for (i = 0; i < sizeof(network_damages) / sizeof(network_damages[0]); i++) {
		network_damage_at(f, &network_damages[i], 5, 1);
		network_damage_at(f, &network_damages[i], 30, 0);
	}
}

static void test_network_is_rebuilt_by_replay_and_by_the_bounded_fold(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_network(f, 40);
	struct warden_session *s = open_ok(f, id);
	struct warden_resolved res;
	struct warden_knobs k;
	struct warden_error err;

	/* Set once, early, before 37 runs: both reads still find it. */
	assert_int_equal(warden_session_knobs(s)->network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_int_equal(k.network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(warden_policy_resolve(&f->cfg, id, 0, &res, &err), 0);
	assert_int_equal(res.network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(res.network_source, WARDEN_SOURCE_SESSION);
	/* An approved escalation outranks the session; danger-full-access
	 * outranks it too. */
	assert_int_equal(warden_session_set_network(s, WARDEN_NETWORK_RESTRICTED, NULL, &err), 0);
	assert_int_equal(warden_policy_resolve_escalated(&f->cfg, s, 0, WARDEN_NETWORK_ENABLED,
	                                                 &res, &err), 0);
	assert_int_equal(res.network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(res.network_source, WARDEN_SOURCE_EXPLICIT);
	assert_int_equal(warden_policy_resolve_escalated(&f->cfg, s, WARDEN_SANDBOX_DANGER_FULL_ACCESS,
	                                                 0, &res, &err), 0);
	assert_int_equal(res.network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(res.network_source, WARDEN_SOURCE_MODE);
	assert_int_equal(warden_policy_resolve_session(&f->cfg, s, 0, &res, &err), 0);
	assert_int_equal(res.network, WARDEN_NETWORK_RESTRICTED);
	assert_int_equal(res.network_source, WARDEN_SOURCE_SESSION);
	assert_int_equal(warden_policy_resolve_escalated(&f->cfg, s, 0, 7, &res, &err),
	                 -WARDEN_EINTERNAL);
	warden_session_close(s);
	free(id);
}

/* ---- sandbox/roots ------------------------------------------------------- */

static const char *const two_roots[] = { "/srv/warden-a", "/srv/warden-b/sub" };

/* n events: a run, sandbox/mode read-only, sandbox/roots two_roots, runs. */
static char *session_with_roots(struct sfix *f, int n)
{
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id);
	struct warden_error err;
	int i, changed = -1;

	for (i = 0; i < n; i++) {
		if (i == 1) {
			assert_int_equal(warden_session_set_mode(s, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
		} else if (i == 2) {
			assert_int_equal(warden_session_set_roots(s, two_roots, 2, &changed, &err), 0);
			assert_int_equal(changed, 1);
		} else {
			append_run(s, i);
		}
	}
	warden_session_close(s);
	return id;
}

/* k holds exactly the n roots of want. */
static void assert_roots(const struct warden_knobs *k, const char *const *want, size_t n)
{
	const char *got[WARDEN_ROOTS_MAX];
	size_t i;

	assert_int_equal(k->roots_set, 1);
	assert_int_equal(k->n_roots, n);
	assert_int_equal(warden_knobs_roots(k, got), n);
	for (i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
}

static void test_roots_are_rebuilt_by_replay_and_by_the_bounded_fold(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_roots(f, 40), *line;
	struct warden_session *s = open_ok(f, id);
	struct warden_knobs k;
	struct warden_error err;
	int changed = -1;

	/* The event as written: the whole list, and in the knobs. */
	line = line_of(sfix_log_path(f, id), 4);
	assert_non_null(strstr(line, "\"type\":\"sandbox/roots\",\"roots\":[\"/srv/warden-a\",\"/srv/warden-b/sub\"]"));
	assert_non_null(strstr(line, "\"knobs\":{\"mode\":\"read-only\",\"roots\":[\"/srv/warden-a\",\"/srv/warden-b/sub\"]}"));
	free(line);
	/* Set once, early, before 37 runs: both reads still find it. */
	assert_roots(warden_session_knobs(s), two_roots, 2);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_roots(&k, two_roots, 2);
	/* The same list again writes nothing. */
	assert_int_equal(warden_session_set_roots(s, two_roots, 2, &changed, &err), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 41);
	/* An empty list is a list: set, with nothing in it (the config's
	 * writable_roots no longer apply). */
	assert_int_equal(warden_session_set_roots(s, NULL, 0, &changed, &err), 0);
	assert_int_equal(changed, 1);
	warden_session_close(s);
	s = open_ok(f, id);
	assert_roots(warden_session_knobs(s), NULL, 0);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_roots(&k, NULL, 0);
	/* The last list wins, and the mode set before is kept. */
	assert_int_equal(warden_session_set_roots(s, two_roots + 1, 1, &changed, &err), 0);
	warden_session_close(s);
	s = open_ok(f, id);
	assert_roots(warden_session_knobs(s), two_roots + 1, 1);
	assert_int_equal(warden_session_knobs(s)->mode, WARDEN_SANDBOX_READ_ONLY);
	warden_session_close(s);
	free(id);
}

static void test_a_session_without_roots_has_none_set(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_network(f, 4);
	struct warden_session *s = open_ok(f, id);
	struct warden_knobs k;
	struct warden_error err;

	/* A log from before sandbox/roots replays as before. */
	assert_int_equal(warden_session_knobs(s)->roots_set, 0);
	assert_int_equal(warden_session_replay(s, NULL, NULL, &k, &err), 0);
	assert_int_equal(k.roots_set, 0);
	assert_int_equal(k.n_roots, 0);
	warden_session_close(s);
	free(id);
}

static void test_set_roots_refuses_too_many_and_writes_nothing(void **state)
{
	struct sfix *f = *state;
	char *id = new_session(f);
	struct warden_session *s = open_ok(f, id);
	const char *nine[WARDEN_ROOTS_MAX + 1];
	struct warden_error err;
	int changed = -1;
	size_t i;

	for (i = 0; i < WARDEN_ROOTS_MAX + 1; i++)
		nine[i] = "/srv/warden-a";
	assert_true(warden_session_set_roots(s, nine, WARDEN_ROOTS_MAX + 1, &changed, &err) < 0);
	assert_non_null(strstr(err.msg, "roots remove DIR"));
	assert_int_equal(sfix_count_lines(sfix_log_path(f, id)), 1);
	warden_session_close(s);
	free(id);
}

/* Damage to a sandbox/roots line (line 4 of session_with_roots). */
static char long_roots[WARDEN_ROOTS_TEXT_MAX + 64];
static char long_knobs[WARDEN_ROOTS_TEXT_MAX + 96];

static const struct damage_case roots_damages[] = {
	{ "roots wrong type", "roots", "\"/srv/warden-a\"", "sandbox/roots" },
	{ "roots missing", "roots", "null", "sandbox/roots" },
	{ "a root not a string", "roots", "[\"/srv/warden-a\",1]", "sandbox/roots" },
	{ "a relative root", "roots", "[\"srv/warden-a\"]", "sandbox/roots" },
	{ "a root with ..", "roots", "[\"/srv/../etc\"]", "sandbox/roots" },
	{ "a root with //", "roots", "[\"/srv//warden-a\"]", "sandbox/roots" },
	{ "a root with a trailing /", "roots", "[\"/srv/warden-a/\"]", "sandbox/roots" },
	{ "an empty root", "roots", "[\"\"]", "sandbox/roots" },
	{ "a root with a NUL", "roots", "[\"/srv/a\\u0000b\"]", "sandbox/roots" },
	{ "more than the most roots", "roots",
	  "[\"/a\",\"/b\",\"/c\",\"/d\",\"/e\",\"/f\",\"/g\",\"/h\",\"/i\"]", "sandbox/roots" },
	{ "roots longer than the most bytes", "roots", long_roots, "sandbox/roots" },
	{ "roots not in knobs", "knobs", "{\"mode\":\"read-only\"}", "knobs" },
	{ "knobs with another list", "knobs",
	  "{\"mode\":\"read-only\",\"roots\":[\"/srv/warden-a\"]}", "knobs" },
	{ "knobs roots damaged", "knobs", long_knobs, "knobs" },
};

static void roots_damage_at(struct sfix *f, const struct damage_case *d, int events,
                            int in_tail)
{
	char *id = session_with_roots(f, events), *text;

	text = line_with(sfix_log_path(f, id), 4, d->key, d->value);
	rewrite_line(sfix_log_path(f, id), 4, text);
	free(text);
	expect_damage(f, id, 4, d->why, in_tail);
	free(id);
}

static void test_a_damaged_roots_event_is_an_error_and_resolves_nothing(void **state)
{
	struct sfix *f = *state;
	size_t i, used;

	/* Two roots of 4100 bytes each: more than WARDEN_ROOTS_TEXT_MAX. */
	used = (size_t)snprintf(long_roots, sizeof(long_roots), "[");
	for (i = 0; i < 2; i++) {
		used += (size_t)snprintf(long_roots + used, sizeof(long_roots) - used, "%s\"/", i ? "," : "");
		memset(long_roots + used, 'a' + (int)i, 4100);
		used += 4100;
		used += (size_t)snprintf(long_roots + used, sizeof(long_roots) - used, "\"");
	}
	snprintf(long_roots + used, sizeof(long_roots) - used, "]");
	snprintf(long_knobs, sizeof(long_knobs), "{\"mode\":\"read-only\",\"roots\":%s}", long_roots);
	for (i = 0; i < sizeof(roots_damages) / sizeof(roots_damages[0]); i++) {
		roots_damage_at(f, &roots_damages[i], 5, 1);
		roots_damage_at(f, &roots_damages[i], 30, 0);
	}
}

static void test_damage_in_the_lines_read_is_an_error_naming_the_line(void **state)
{
	struct sfix *f = *state;
	size_t i;

	for (i = 0; i < sizeof(damages) / sizeof(damages[0]); i++)
		damage_at(f, &damages[i], 5, 4, 1);
	for (i = 0; i < sizeof(mode_damages) / sizeof(mode_damages[0]); i++)
		damage_at(f, &mode_damages[i], 5, 3, 1);
}

static void test_damage_before_the_tail_is_found_by_replay(void **state)
{
	struct sfix *f = *state;
	size_t i;

	for (i = 0; i < sizeof(damages) / sizeof(damages[0]); i++)
		damage_at(f, &damages[i], 30, 5, 0);
	for (i = 0; i < sizeof(mode_damages) / sizeof(mode_damages[0]); i++)
		damage_at(f, &mode_damages[i], 30, 3, 0);
}

static void test_a_torn_line_before_the_end_is_damage(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_events(f, 3);

	rewrite_line(sfix_log_path(f, id), 3, "{\"seq\":3,\"time\":\"20");
	expect_damage(f, id, 3, "bad JSON", 1);
	free(id);
}

static void test_a_first_line_that_is_not_session_start_is_damage(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_events(f, 30), *text;

	text = line_with(sfix_log_path(f, id), 1, "type", "\"sandbox/run\"");
	rewrite_line(sfix_log_path(f, id), 1, text);
	free(text);
	expect_damage(f, id, 1, "session/start", 1);
	free(id);
}

static void test_append_refuses_to_build_on_a_damaged_last_line(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_events(f, 3), *text, *before, *after;
	struct warden_session *s = open_ok(f, id);
	struct warden_error err;
	json_t *fields = json_object();

	text = line_with(sfix_log_path(f, id), 4, "knobs", "{\"mode\":\"nope\"}");
	rewrite_line(sfix_log_path(f, id), 4, text);
	free(text);
	before = sfix_read(sfix_log_path(f, id), NULL);
	assert_int_equal(warden_session_append(s, "sandbox/run", fields, &err), -WARDEN_EDATA);
	after = sfix_read(sfix_log_path(f, id), NULL);
	assert_string_equal(before, after);
	json_decref(fields);
	free(before);
	free(after);
	warden_session_close(s);
	free(id);
}

/* A refresh may trust what this handle itself checked or wrote, never what
 * another writer changed since: the other handle's append moves the
 * knobs, and damage written after this handle's own append is found. */
static void test_refresh_after_its_own_append_sees_other_writers(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_events(f, 3), *text;
	struct warden_session *a = open_ok(f, id), *b = open_ok(f, id);
	struct warden_error err;

	append_run(a, 1);
	assert_int_equal(warden_session_refresh(a, &err), 0);
	assert_int_equal(warden_session_set_mode(b, WARDEN_SANDBOX_READ_ONLY, NULL, &err), 0);
	assert_int_equal(warden_session_refresh(a, &err), 0);
	assert_int_equal(warden_session_knobs(a)->mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(warden_session_last_seq(a), warden_session_last_seq(b));

	append_run(a, 2);
	assert_int_equal(warden_session_refresh(a, &err), 0);
	text = line_with(sfix_log_path(f, id), 4, "knobs", "{\"mode\":\"nope\"}");
	rewrite_line(sfix_log_path(f, id), 4, text);
	free(text);
	assert_int_equal(warden_session_refresh(a, &err), -WARDEN_EDATA);
	warden_session_close(a);
	warden_session_close(b);
	free(id);
}

struct count { uint64_t lines; uint64_t last; };

static int count_event(uint64_t line_no, json_t *event, void *ud)
{
	struct count *c = ud;

	c->lines++;
	c->last = (uint64_t)json_integer_value(json_object_get(event, "seq"));
	assert_int_equal(c->last, line_no);
	return 0;
}

static void test_replay_visits_every_event_in_order(void **state)
{
	struct sfix *f = *state;
	char *id = session_with_events(f, 40);
	struct warden_session *s = open_ok(f, id);
	struct warden_error err;
	struct count c = { 0, 0 };

	assert_int_equal(warden_session_replay(s, count_event, &c, NULL, &err), 0);
	assert_int_equal(c.lines, 41);
	assert_int_equal(c.last, 41);
	warden_session_close(s);
	free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, sfix_setup, sfix_teardown)
		T(test_hostile_session_ids_are_usage_errors),
		T(test_unknown_session_is_a_usage_error),
		T(test_create_makes_private_dirs_and_a_private_log),
		T(test_two_creates_give_two_ids),
		T(test_create_records_the_resolved_cwd),
		T(test_create_refuses_a_cwd_that_is_not_a_directory),
		T(test_state_dir_writable_by_others_is_refused),
		T(test_a_symlinked_log_is_refused),
		T(test_append_writes_fields_in_a_stable_order),
		T(test_append_refuses_knob_types_reserved_keys_and_non_objects),
		T(test_two_handles_interleave_without_gaps),
		T(test_a_reopened_child_and_its_parent_append_in_turn),
		T(test_reopen_refuses_a_log_replaced_under_it),
		cmocka_unit_test(test_grant_keys_are_sha256_of_the_canonical_scope),
		T(test_grants_fold_revoke_and_refuse_what_replay_would),
		T(test_setters_append_only_when_the_recorded_value_changes),
		T(test_a_failed_transaction_writes_nothing),
		T(test_a_short_write_is_rolled_back),
		T(test_durability_fsync_appends_and_replays),
		T(test_fold_after_every_step_equals_the_state_built_step_by_step),
		T(test_current_with_shared_bundles_follows_random_sequences),
		T(test_current_tie_rule),
		T(test_select_writes_only_what_changes_in_one_write),
		T(test_select_refuses_unknown_and_custom_and_writes_nothing),
		T(test_torn_final_line_without_newline_is_ignored),
		T(test_torn_final_line_with_cut_json_is_ignored),
		T(test_a_log_with_only_a_torn_start_is_damaged),
		T(test_damage_in_the_lines_read_is_an_error_naming_the_line),
		T(test_damage_before_the_tail_is_found_by_replay),
		T(test_a_torn_line_before_the_end_is_damage),
		T(test_a_first_line_that_is_not_session_start_is_damage),
		T(test_append_refuses_to_build_on_a_damaged_last_line),
		T(test_refresh_after_its_own_append_sees_other_writers),
		T(test_replay_visits_every_event_in_order),
		T(test_a_damaged_network_event_is_an_error_and_resolves_nothing),
		T(test_network_is_rebuilt_by_replay_and_by_the_bounded_fold),
		T(test_roots_are_rebuilt_by_replay_and_by_the_bounded_fold),
		T(test_a_session_without_roots_has_none_set),
		T(test_set_roots_refuses_too_many_and_writes_nothing),
		T(test_a_damaged_roots_event_is_an_error_and_resolves_nothing),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
