/*
 * session.c — the session log: create, open, check, append, replay.
 * The format, the locking and what is validated where are in session.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "random.h"
#include "session.h"
#include "wjson.h"
#include "vocab.h"

#define LOG_SUFFIX ".jsonl"
#define BLOCK 4096
/* Enough for the last complete line, the line before it and a torn tail. */
#define WINDOW_MAX (3 * (off_t)WARDEN_SESSION_LINE_MAX)

static const char *const event_names[] = {
	[WARDEN_EVENT_SESSION_START] = "session/start",
	[WARDEN_EVENT_SANDBOX_MODE] = "sandbox/mode",
	[WARDEN_EVENT_APPROVAL_POLICY] = "approval/policy",
	[WARDEN_EVENT_PERMISSION_PRESET] = "permission/preset",
	[WARDEN_EVENT_APPROVAL_ASKED] = "approval/asked",
	[WARDEN_EVENT_APPROVAL_DECIDED] = "approval/decided",
	[WARDEN_EVENT_SANDBOX_RUN] = "sandbox/run",
	[WARDEN_EVENT_SANDBOX_NETWORK] = "sandbox/network",
	[WARDEN_EVENT_SANDBOX_ROOTS] = "sandbox/roots",
	[WARDEN_EVENT_APPROVAL_GRANT] = "approval/grant",
	[WARDEN_EVENT_APPROVAL_REVOKE] = "approval/revoke",
	[WARDEN_EVENT_NETWORK_CONNECT] = "network/connect",
};
#define N_EVENTS ((int)(sizeof(event_names) / sizeof(event_names[0])))

struct warden_session {
	char id[WARDEN_SESSION_ID_MAX + 1];
	char *path;
	int fd;
	int durability;
	char *cwd;
	struct warden_knobs knobs;
	uint64_t last_seq;
	/* The file as this handle last saw it after checking or writing it;
	 * while size, mtime and ctime are unchanged, nobody else wrote. */
	struct stat seen;
	int seen_valid;
	/* Inside warden_session_transaction: lines waiting for the write. */
	int in_txn;
	char *pending;
	size_t pending_len, pending_cap;
};

/* One parsed and validated line. */
struct event {
	uint64_t seq;
	int type;
	struct warden_knobs knobs;
	json_t *json;
};

int warden_event_type_parse(const char *s)
{
	int i;

	if (s == NULL)
		return -1;
	for (i = 1; i < N_EVENTS; i++)
		if (strcmp(event_names[i], s) == 0)
			return i;
	return -1;
}

const char *warden_event_type_name(int type)
{
	return type >= 1 && type < N_EVENTS ? event_names[type] : NULL;
}

int warden_session_id_check(const char *id, struct warden_error *err)
{
	size_t i, n;

	if (id == NULL || id[0] == '\0')
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "empty session id (ids match [A-Za-z0-9._-]{1,128})");
	n = strnlen(id, WARDEN_SESSION_ID_MAX + 1);
	if (n > WARDEN_SESSION_ID_MAX)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "session id longer than %d characters (ids match [A-Za-z0-9._-]{1,128})",
		                        WARDEN_SESSION_ID_MAX);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "session id has a character outside [A-Za-z0-9._-] at position %zu (ids are names, not paths)",
			                        i + 1);
	}
	if (strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "session id cannot be \".\" or \"..\" (ids are names, not paths)");
	return 0;
}

/* ---- validation of one line ------------------------------------------ */

static int preset_name_ok(const json_t *v)
{
	size_t n;

	if (!json_is_string(v))
		return 0;
	n = json_string_length(v);
	return n >= 1 && n <= WARDEN_PRESET_NAME_MAX &&
	       strlen(json_string_value(v)) == n;
}

/* "YYYY-MM-DDTHH:MM:SS[.fraction]Z" */
static int time_ok(const char *t)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; shape[i] != '\0'; i++) {
		if (shape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != shape[i])
			return 0;
	}
	if (t[i] == '.') {
		i++;
		if (t[i] < '0' || t[i] > '9')
			return 0;
		while (t[i] >= '0' && t[i] <= '9')
			i++;
	}
	return t[i] == 'Z' && t[i + 1] == '\0';
}

/* An absolute, lexically normal path without NUL: "/", or "/" and
 * segments that are neither empty, "." nor "..". */
static int root_path_ok(const json_t *v)
{
	const char *p = json_string_value(v), *seg;
	size_t n;

	if (p == NULL || strlen(p) != json_string_length(v) || p[0] != '/')
		return 0;
	if (strcmp(p, "/") == 0)
		return 1;
	for (seg = p + 1;; seg += n + 1) {
		n = strcspn(seg, "/");
		if (n == 0 || (n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return 0;
		if (seg[n] == '\0')
			return 1;
	}
}

/* A sandbox/roots list into k: 0, or -1 with why. */
static int roots_parse(const json_t *a, struct warden_knobs *k, char *why,
                       size_t whylen)
{
	size_t i, used = 0, n;
	json_t *v;

	if (!json_is_array(a)) {
		snprintf(why, whylen, "\"roots\" is missing or not an array");
		return -1;
	}
	if (json_array_size(a) > WARDEN_ROOTS_MAX) {
		snprintf(why, whylen, "\"roots\" lists more than %d roots", WARDEN_ROOTS_MAX);
		return -1;
	}
	json_array_foreach(a, i, v) {
		if (!root_path_ok(v)) {
			snprintf(why, whylen, "\"roots\" holds a path that is not absolute and normal");
			return -1;
		}
		n = json_string_length(v) + 1;
		if (used + n > sizeof(k->roots)) {
			snprintf(why, whylen, "\"roots\" is longer than %d bytes", WARDEN_ROOTS_TEXT_MAX);
			return -1;
		}
		memcpy(k->roots + used, json_string_value(v), n);
		used += n;
	}
	k->roots_set = 1;
	k->n_roots = json_array_size(a);
	memset(k->roots + used, 0, sizeof(k->roots) - used);
	return 0;
}

size_t warden_knobs_roots(const struct warden_knobs *k,
                          const char *out[WARDEN_ROOTS_MAX])
{
	const char *p = k->roots;
	size_t i;

	for (i = 0; i < k->n_roots && i < WARDEN_ROOTS_MAX; i++) {
		out[i] = p;
		p += strlen(p) + 1;
	}
	return i;
}

static int key_ok(const char *key)
{
	size_t i;

	if (key == NULL || strlen(key) != WARDEN_GRANT_KEY_LEN)
		return 0;
	for (i = 0; i < WARDEN_GRANT_KEY_LEN; i++)
		if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f')))
			return 0;
	return 1;
}

static ssize_t grant_find(const struct warden_knobs *k, const char *id)
{
	size_t i;

	for (i = 0; id != NULL && i < k->n_grants; i++)
		if (strcmp(k->grants[i].id, id) == 0)
			return (ssize_t)i;
	return -1;
}

/* knobs.grants into k: 0 or -1. */
static int grants_parse(const json_t *a, struct warden_knobs *k)
{
	const char *id, *key;
	size_t i;
	json_t *v;

	if (!json_is_array(a) || json_array_size(a) < 1 ||
	    json_array_size(a) > WARDEN_GRANTS_MAX)
		return -1;
	json_array_foreach(a, i, v) {
		id = json_string_value(json_object_get(v, "id"));
		key = json_string_value(json_object_get(v, "key"));
		if (json_object_size(v) != 2 || !warden_grant_id_ok(id) || !key_ok(key) ||
		    grant_find(k, id) >= 0)
			return -1;
		memcpy(k->grants[k->n_grants].id, id, WARDEN_GRANT_ID_LEN + 1);
		memcpy(k->grants[k->n_grants].key, key, WARDEN_GRANT_KEY_LEN + 1);
		k->n_grants++;
	}
	return 0;
}

static int knobs_parse(const json_t *o, struct warden_knobs *k, char *why,
                       size_t whylen)
{
	const char *key;
	json_t *v;

	memset(k, 0, sizeof(*k));
	if (!json_is_object(o)) {
		snprintf(why, whylen, "\"knobs\" is missing or not an object");
		return -1;
	}
	json_object_foreach((json_t *)o, key, v) {
		if (strcmp(key, "mode") == 0) {
			k->mode = warden_mode_parse(json_string_value(v));
			if (k->mode < 0) {
				snprintf(why, whylen, "knobs.mode is not a sandbox mode");
				return -1;
			}
		} else if (strcmp(key, "policy") == 0) {
			k->policy = warden_policy_parse(json_string_value(v));
			if (k->policy < 0) {
				snprintf(why, whylen, "knobs.policy is not an approval policy");
				return -1;
			}
		} else if (strcmp(key, "preset") == 0) {
			if (!preset_name_ok(v)) {
				snprintf(why, whylen, "knobs.preset is not a preset name");
				return -1;
			}
			memcpy(k->preset, json_string_value(v), json_string_length(v) + 1);
		} else if (strcmp(key, "network") == 0) {
			k->network = warden_network_parse(json_string_value(v));
			if (k->network < 0) {
				snprintf(why, whylen, "knobs.network is not a network setting");
				return -1;
			}
		} else if (strcmp(key, "roots") == 0) {
			if (roots_parse(v, k, why, whylen) < 0) {
				snprintf(why, whylen, "knobs.roots is not a list of writable roots");
				return -1;
			}
		} else if (strcmp(key, "grants") == 0) {
			if (grants_parse(v, k) < 0) {
				snprintf(why, whylen, "knobs.grants is not a list of grants ({\"id\", \"key\"}, at most %d)",
				         WARDEN_GRANTS_MAX);
				return -1;
			}
		} else {
			snprintf(why, whylen, "unknown key in knobs");
			return -1;
		}
	}
	return 0;
}

static void knobs_apply(struct warden_knobs *k, int type, const json_t *ev)
{
	switch (type) {
	case WARDEN_EVENT_SANDBOX_MODE:
		k->mode = warden_mode_parse(json_string_value(json_object_get(ev, "mode")));
		break;
	case WARDEN_EVENT_APPROVAL_POLICY:
		k->policy = warden_policy_parse(json_string_value(json_object_get(ev, "policy")));
		break;
	case WARDEN_EVENT_PERMISSION_PRESET:
		snprintf(k->preset, sizeof(k->preset), "%s",
		         json_string_value(json_object_get(ev, "preset")));
		break;
	case WARDEN_EVENT_SANDBOX_NETWORK:
		k->network = warden_network_parse(json_string_value(json_object_get(ev, "network")));
		break;
	case WARDEN_EVENT_SANDBOX_ROOTS: {
		char why[128];

		/* Checked by event_check; a list it refused changes nothing. */
		struct warden_knobs t = *k;

		if (roots_parse(json_object_get(ev, "roots"), &t, why, sizeof(why)) == 0) {
			k->roots_set = t.roots_set;
			k->n_roots = t.n_roots;
			memcpy(k->roots, t.roots, sizeof(k->roots));
		}
		break;
	}
	case WARDEN_EVENT_APPROVAL_GRANT: {
		/* Checked by event_check and event_follows; a grant in force
		 * already, or one too many, changes nothing. */
		const char *id = json_string_value(json_object_get(ev, "grant"));
		const char *key = json_string_value(json_object_get(ev, "key"));

		if (warden_grant_id_ok(id) && key_ok(key) && grant_find(k, id) < 0 &&
		    k->n_grants < WARDEN_GRANTS_MAX) {
			memcpy(k->grants[k->n_grants].id, id, WARDEN_GRANT_ID_LEN + 1);
			memcpy(k->grants[k->n_grants].key, key, WARDEN_GRANT_KEY_LEN + 1);
			k->n_grants++;
		}
		break;
	}
	case WARDEN_EVENT_APPROVAL_REVOKE: {
		ssize_t at = grant_find(k, json_string_value(json_object_get(ev, "grant")));

		if (at >= 0) {
			memmove(&k->grants[at], &k->grants[at + 1],
			        (k->n_grants - (size_t)at - 1) * sizeof(k->grants[0]));
			k->n_grants--;
			memset(&k->grants[k->n_grants], 0, sizeof(k->grants[0]));
		}
		break;
	}
	default:
		break;
	}
}

static int knobs_equal(const struct warden_knobs *a, const struct warden_knobs *b)
{
	return a->mode == b->mode && a->policy == b->policy &&
	       a->network == b->network && strcmp(a->preset, b->preset) == 0 &&
	       a->roots_set == b->roots_set && a->n_roots == b->n_roots &&
	       memcmp(a->roots, b->roots, sizeof(a->roots)) == 0 &&
	       a->n_grants == b->n_grants &&
	       memcmp(a->grants, b->grants, a->n_grants * sizeof(a->grants[0])) == 0;
}

/* Checks one event object on its own (not against its neighbours). */
static int event_check(json_t *o, struct event *ev, char *why, size_t whylen)
{
	json_t *seq, *tm, *type, *v;
	struct warden_knobs own;
	const char *cwd;

	memset(ev, 0, sizeof(*ev));
	if (!json_is_object(o)) {
		snprintf(why, whylen, "not a JSON object");
		return -1;
	}
	seq = json_object_get(o, "seq");
	if (!json_is_integer(seq) || json_integer_value(seq) < 1) {
		snprintf(why, whylen, "\"seq\" is missing or not a positive integer");
		return -1;
	}
	tm = json_object_get(o, "time");
	if (!json_is_string(tm) || !time_ok(json_string_value(tm))) {
		snprintf(why, whylen, "\"time\" is missing or not RFC 3339 UTC");
		return -1;
	}
	type = json_object_get(o, "type");
	ev->type = warden_event_type_parse(json_string_value(type));
	if (ev->type < 0) {
		snprintf(why, whylen, "\"type\" is missing or not an event type");
		return -1;
	}
	if (knobs_parse(json_object_get(o, "knobs"), &ev->knobs, why, whylen) < 0)
		return -1;
	ev->seq = (uint64_t)json_integer_value(seq);
	ev->json = o;

	switch (ev->type) {
	case WARDEN_EVENT_SESSION_START:
		v = json_object_get(o, "cwd");
		cwd = json_string_value(v);
		if (cwd == NULL || cwd[0] != '/' ||
		    strlen(cwd) != json_string_length(v)) {
			snprintf(why, whylen, "session/start has no absolute \"cwd\"");
			return -1;
		}
		if (ev->knobs.mode || ev->knobs.policy || ev->knobs.preset[0] ||
		    ev->knobs.network || ev->knobs.roots_set || ev->knobs.n_grants) {
			snprintf(why, whylen, "session/start carries knobs");
			return -1;
		}
		return 0;
	case WARDEN_EVENT_SANDBOX_MODE:
		if (warden_mode_parse(json_string_value(json_object_get(o, "mode"))) < 0) {
			snprintf(why, whylen, "sandbox/mode has no valid \"mode\"");
			return -1;
		}
		break;
	case WARDEN_EVENT_APPROVAL_POLICY:
		if (warden_policy_parse(json_string_value(json_object_get(o, "policy"))) < 0) {
			snprintf(why, whylen, "approval/policy has no valid \"policy\"");
			return -1;
		}
		break;
	case WARDEN_EVENT_PERMISSION_PRESET:
		if (!preset_name_ok(json_object_get(o, "preset"))) {
			snprintf(why, whylen, "permission/preset has no valid \"preset\"");
			return -1;
		}
		break;
	case WARDEN_EVENT_SANDBOX_NETWORK:
		if (warden_network_parse(json_string_value(json_object_get(o, "network"))) < 0) {
			snprintf(why, whylen, "sandbox/network has no valid \"network\" (restricted, allowlist or enabled)");
			return -1;
		}
		break;
	case WARDEN_EVENT_SANDBOX_ROOTS: {
		struct warden_knobs t;
		char rwhy[128];

		if (roots_parse(json_object_get(o, "roots"), &t, rwhy, sizeof(rwhy)) < 0) {
			snprintf(why, whylen, "sandbox/roots: %s", rwhy);
			return -1;
		}
		break;
	}
	case WARDEN_EVENT_APPROVAL_GRANT: {
		char key[WARDEN_GRANT_KEY_LEN + 1], gwhy[160];
		ssize_t at;
		const char *k = json_string_value(json_object_get(o, "key"));

		if (!warden_grant_id_ok(json_string_value(json_object_get(o, "grant")))) {
			snprintf(why, whylen, "approval/grant has no valid \"grant\" id (grant- and 16 hex digits)");
			return -1;
		}
		if (warden_grant_scope_check(json_object_get(o, "scope"), key, gwhy, sizeof(gwhy)) < 0) {
			snprintf(why, whylen, "approval/grant: %s", gwhy);
			return -1;
		}
		if (k == NULL || strcmp(k, key) != 0) {
			snprintf(why, whylen, "approval/grant: \"key\" is not the key of its scope (the scope was changed)");
			return -1;
		}
		/* In force on its own line: the grant is in its knobs, with
		 * its key. */
		at = grant_find(&ev->knobs, json_string_value(json_object_get(o, "grant")));
		if (at < 0 || strcmp(ev->knobs.grants[at].key, key) != 0) {
			snprintf(why, whylen, "knobs do not carry the event's own value");
			return -1;
		}
		return 0;
	}
	case WARDEN_EVENT_APPROVAL_REVOKE:
		if (!warden_grant_id_ok(json_string_value(json_object_get(o, "grant")))) {
			snprintf(why, whylen, "approval/revoke has no valid \"grant\" id");
			return -1;
		}
		if (grant_find(&ev->knobs, json_string_value(json_object_get(o, "grant"))) >= 0) {
			snprintf(why, whylen, "knobs do not carry the event's own value");
			return -1;
		}
		return 0;
	default:
		return 0;
	}
	/* A knob event's own value must be in its knobs. */
	own = ev->knobs;
	knobs_apply(&own, ev->type, o);
	if (!knobs_equal(&own, &ev->knobs)) {
		snprintf(why, whylen, "knobs do not carry the event's own value");
		return -1;
	}
	return 0;
}

/* Checks `next` against the line before it. */
static int event_follows(const struct event *prev, const struct event *next,
                         char *why, size_t whylen)
{
	struct warden_knobs want = prev->knobs;

	if (next->seq != prev->seq + 1) {
		snprintf(why, whylen, "seq %llu does not follow seq %llu",
		         (unsigned long long)next->seq, (unsigned long long)prev->seq);
		return -1;
	}
	if (next->type == WARDEN_EVENT_SESSION_START) {
		snprintf(why, whylen, "a second session/start (the cwd is immutable)");
		return -1;
	}
	if (next->type == WARDEN_EVENT_APPROVAL_GRANT &&
	    (grant_find(&prev->knobs, json_string_value(json_object_get(next->json, "grant"))) >= 0 ||
	     prev->knobs.n_grants >= WARDEN_GRANTS_MAX)) {
		snprintf(why, whylen, "approval/grant: its id is already in force, or %d grants are",
		         WARDEN_GRANTS_MAX);
		return -1;
	}
	if (next->type == WARDEN_EVENT_APPROVAL_REVOKE &&
	    grant_find(&prev->knobs, json_string_value(json_object_get(next->json, "grant"))) < 0) {
		snprintf(why, whylen, "approval/revoke of a grant that is not in force");
		return -1;
	}
	knobs_apply(&want, next->type, next->json);
	if (!knobs_equal(&want, &next->knobs)) {
		snprintf(why, whylen, "knobs do not match the events before");
		return -1;
	}
	return 0;
}

/* line_parse() could not tell: memory ran out while parsing. */
#define LP_OOM (-2)

/* Parses one line (without its newline).  Returns 0, -1 with why set, or
 * LP_OOM; *cut says whether the JSON merely ended too early (a torn
 * write) and is never set when memory ran out. */
static int line_parse(const char *text, size_t len, struct event *ev,
                      int *cut, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *o;
	unsigned long failures;

	*cut = 0;
	warden_json_init();
	failures = warden_json_failures();
	o = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (warden_json_failures() != failures ||
	    (o == NULL && json_error_code(&jerr) == json_error_out_of_memory)) {
		json_decref(o);
		ev->json = NULL;
		snprintf(why, whylen, "out of memory");
		return LP_OOM;
	}
	if (o == NULL) {
		*cut = json_error_code(&jerr) == json_error_premature_end_of_input;
		snprintf(why, whylen, "bad JSON: %s", jerr.text);
		return -1;
	}
	if (event_check(o, ev, why, whylen) < 0) {
		json_decref(o);
		ev->json = NULL;
		return -1;
	}
	return 0;
}

static int oom_error(struct warden_error *err, const struct warden_session *s)
{
	return warden_error_set(err, WARDEN_EOS,
	                        "out of memory while reading %s (the log is not damaged)",
	                        s->path);
}

static void event_release(struct event *ev)
{
	json_decref(ev->json);
	ev->json = NULL;
}

/* ---- files ------------------------------------------------------------ */

static int read_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank under a lock: impossible */
		done += (size_t)n;
	}
	return 0;
}

/* Set by warden_session_cancel_on(): once raised, taking a lock fails
 * (-ECANCELED), also while another holds it. */
static const volatile sig_atomic_t *cancel_flag;

void warden_session_cancel_on(const volatile sig_atomic_t *flag)
{
	cancel_flag = flag;
}

static int lock_fd(int fd, int op)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (op == LOCK_UN || cancel_flag == NULL) {
		while (flock(fd, op) < 0)
			if (errno != EINTR)
				return -errno;
		return 0;
	}
	/* A cancel may come at any moment, even before a blocking flock
	 * would begin (its signal then spent): the lock is tried, and the
	 * flag looked at, every 10 ms while another holds it. */
	for (;;) {
		if (*cancel_flag)
			return -ECANCELED;
		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		nanosleep(&tick, NULL);
	}
}

/* The error of a lock_fd() that failed with r. */
static int lock_error(const struct warden_session *s, int r,
                      struct warden_error *err)
{
	if (r == -ECANCELED)
		return warden_error_set(err, WARDEN_EREFUSED, "cancelled: nothing was written");
	return warden_error_errno(err, WARDEN_EIO, -r, "cannot lock %s", s->path);
}

static int damage(struct warden_error *err, const struct warden_session *s,
                  const char *where, const char *why)
{
	return warden_error_set(err, WARDEN_EDATA,
	                        "session %s: damaged log %s: %s (the session cannot be used; start a new one with session new)",
	                        s->id, where, why);
}

static void torn_warning(const struct warden_session *s, off_t off, off_t len,
                         int cutting)
{
	fprintf(stderr,
	        "warden: warning: session %s: %s a torn final line (%lld bytes at byte %lld, an interrupted write)\n",
	        s->id, cutting ? "cutting off" : "ignoring", (long long)len,
	        (long long)off);
}

/* mkdir -p with 0700 for every directory it creates. */
static int mkdirs(const char *path, struct warden_error *err)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return warden_error_set(err, WARDEN_ECONFIG, "state_dir is too long");
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "cannot create state directory %s", buf);
		buf[i] = path[i];
	}
	return 0;
}

/* Opens state_dir (creating it when asked); refuses one that others may
 * write, since they could swap a session's log. */
static int state_dir_open(const struct warden_config *cfg, int create,
                          struct warden_error *err)
{
	struct stat st;
	int fd, r;

	if (cfg->state_dir == NULL || cfg->state_dir[0] != '/')
		return warden_error_set(err, WARDEN_ECONFIG,
		                        "no absolute state_dir configured (set state_dir in [warden])");
	if (create && (r = mkdirs(cfg->state_dir, err)) < 0)
		return r;
	fd = open(cfg->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && !create)
		return -ENOENT;
	if (fd < 0)
		return warden_error_errno(err, WARDEN_EIO, errno,
		                          "cannot open state directory %s", cfg->state_dir);
	if (fstat(fd, &st) < 0 || (st.st_mode & 022) != 0) {
		close(fd);
		return warden_error_set(err, WARDEN_EREFUSED,
		                        "state directory %s is writable by group or others (chmod 700 it)",
		                        cfg->state_dir);
	}
	return fd;
}

static struct warden_session *session_new(const struct warden_config *cfg,
                                          const char *id)
{
	struct warden_session *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	snprintf(s->id, sizeof(s->id), "%s", id);
	if (asprintf(&s->path, "%s/%s" LOG_SUFFIX, cfg->state_dir, id) < 0) {
		free(s);
		return NULL;
	}
	s->fd = -1;
	s->durability = cfg->durability;
	return s;
}

void warden_session_close(struct warden_session *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s->cwd);
	free(s->pending);
	free(s);
}

const char *warden_session_id(const struct warden_session *s) { return s->id; }
const char *warden_session_path(const struct warden_session *s) { return s->path; }
const char *warden_session_cwd(const struct warden_session *s) { return s->cwd; }
const struct warden_knobs *warden_session_knobs(const struct warden_session *s) { return &s->knobs; }
uint64_t warden_session_last_seq(const struct warden_session *s) { return s->last_seq; }

/* ---- the bounded check ------------------------------------------------ */

/* Reads and checks the first line: seq 1, session/start, its cwd. */
static int head_check(struct warden_session *s, off_t size,
                      struct warden_error *err)
{
	char why[256];
	char *buf = NULL, *nl;
	size_t want = BLOCK, len;
	struct event ev;
	int r, cut;

	if (size == 0)
		return damage(err, s, "at line 1", "the log is empty (no session/start)");
	for (;;) {
		len = (off_t)want < size ? want : (size_t)size;
		free(buf);
		buf = malloc(len ? len : 1);
		if (buf == NULL)
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		if ((r = read_full(s->fd, buf, len, 0)) < 0) {
			free(buf);
			return warden_error_errno(err, WARDEN_EIO, -r, "cannot read %s", s->path);
		}
		nl = memchr(buf, '\n', len);
		if (nl != NULL || (off_t)len == size || want > WARDEN_SESSION_LINE_MAX)
			break;
		want *= 2;
	}
	if (nl == NULL) {
		free(buf);
		return damage(err, s, "at line 1", "no complete session/start line");
	}
	if ((r = line_parse(buf, (size_t)(nl - buf), &ev, &cut, why, sizeof(why))) < 0) {
		free(buf);
		return r == LP_OOM ? oom_error(err, s) : damage(err, s, "at line 1", why);
	}
	free(buf);
	if (ev.seq != 1 || ev.type != WARDEN_EVENT_SESSION_START) {
		event_release(&ev);
		return damage(err, s, "at line 1", "the first line is not session/start with seq 1");
	}
	free(s->cwd);
	s->cwd = strdup(json_string_value(json_object_get(ev.json, "cwd")));
	event_release(&ev);
	return s->cwd ? 0 : warden_error_set(err, WARDEN_EOS, "out of memory");
}

struct span { off_t off; size_t len; };

/*
 * Reads blocks from the end until it holds the last check + 1 (at most
 * TAIL_CHECK + 1) complete lines or the whole file, then checks them.  Sets last_seq and
 * knobs from the last valid line and *good_end to the byte after it.  A
 * torn final line is reported and, when `repair` (LOCK_EX held), cut off.
 */
static int tail_check(struct warden_session *s, int repair, size_t check,
                      off_t *good_end, struct warden_error *err)
{
	enum { NEED = WARDEN_SESSION_TAIL_CHECK + 1 };
	struct span lines[NEED];
	struct event evs[WARDEN_SESSION_TAIL_CHECK];
	char why[256], where[96];
	struct stat st;
	char *buf = NULL;
	off_t size, start = 0, window = BLOCK, end, torn_off = -1;
	size_t len = 0, i, nlines, first, nev = 0;
	int r, cut, oom = 0;

	if (fstat(s->fd, &st) < 0)
		return warden_error_errno(err, WARDEN_EIO, errno, "cannot stat %s", s->path);
	size = st.st_size;
	if (size == 0)
		return damage(err, s, "at line 1", "the log is empty (no session/start)");

	for (;;) {
		start = size > window ? size - window : 0;
		len = (size_t)(size - start);
		free(buf);
		buf = malloc(len);
		if (buf == NULL)
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		if ((r = read_full(s->fd, buf, len, start)) < 0) {
			free(buf);
			return warden_error_errno(err, WARDEN_EIO, -r, "cannot read %s", s->path);
		}
		/* Collect complete lines backwards from the last newline. */
		nlines = 0;
		end = (off_t)len;
		while (end > 0 && buf[end - 1] != '\n')
			end--;
		if (end < (off_t)len)
			torn_off = start + end;
		while (end > 0 && nlines < check + 1) {
			off_t b = end - 1;

			while (b > 0 && buf[b - 1] != '\n')
				b--;
			if (b == 0 && start > 0)
				break; /* this line starts before the window */
			lines[nlines].off = start + b;
			lines[nlines].len = (size_t)(end - 1 - b);
			nlines++;
			end = b;
		}
		if (nlines == check + 1 || start == 0 || window >= WINDOW_MAX)
			break;
		window *= 2;
	}

	if (torn_off < 0 && nlines > 0) {
		/* A complete final line whose JSON is cut short is torn too. */
		struct event ev;

		int lp = line_parse(buf + (lines[0].off - start), lines[0].len, &ev,
		                    &cut, why, sizeof(why));

		if (lp == 0)
			event_release(&ev);
		else if (lp == LP_OOM) {
			free(buf);
			return oom_error(err, s);
		} else if (cut) {
			torn_off = lines[0].off;
			memmove(lines, lines + 1, (nlines - 1) * sizeof(lines[0]));
			nlines--;
		}
	}
	if (nlines == 0) {
		free(buf);
		if (start == 0)
			return damage(err, s, "at line 1", "no complete session/start line");
		return damage(err, s, "at its end", "the last line is longer than the longest event");
	}
	if (nlines > check)
		nlines = check;

	/* Check oldest first, each against the one before. */
	for (i = nlines; i-- > 0;) {
		first = nev == 0;
		if (lines[i].off == 0)
			snprintf(where, sizeof(where), "at line 1");
		else if (first)
			snprintf(where, sizeof(where), "at byte %lld", (long long)lines[i].off);
		else
			snprintf(where, sizeof(where), "at line %llu (byte %lld)",
			         (unsigned long long)evs[nev - 1].seq + 1,
			         (long long)lines[i].off);
		if ((oom = line_parse(buf + (lines[i].off - start), lines[i].len,
		                      &evs[nev], &cut, why, sizeof(why))) < 0)
			goto bad;
		nev++;
		if (lines[i].off == 0 && (evs[nev - 1].seq != 1 ||
		                          evs[nev - 1].type != WARDEN_EVENT_SESSION_START)) {
			snprintf(why, sizeof(why), "the first line is not session/start with seq 1");
			goto bad;
		}
		if (!first && event_follows(&evs[nev - 2], &evs[nev - 1], why, sizeof(why)) < 0)
			goto bad;
	}
	s->last_seq = evs[nev - 1].seq;
	s->knobs = evs[nev - 1].knobs;
	*good_end = lines[0].off + (off_t)lines[0].len + 1;
	for (i = 0; i < nev; i++)
		event_release(&evs[i]);
	free(buf);

	if (torn_off >= 0) {
		torn_warning(s, torn_off, size - torn_off, repair);
		if (!repair)
			return 0; /* the tail is not what this handle could build on */
		if (ftruncate(s->fd, *good_end) < 0 || fstat(s->fd, &st) < 0)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "cannot cut the torn tail of %s", s->path);
	}
	s->seen = st;
	s->seen_valid = 1;
	return 0;
bad:
	for (i = 0; i < nev; i++)
		event_release(&evs[i]);
	free(buf);
	return oom == LP_OOM ? oom_error(err, s) : damage(err, s, where, why);
}

/*
 * The file is as this handle left it right after its own last check or
 * write: writers only ever grow it past what they saw, or cut it back to
 * that, and any write moves mtime and ctime, so nothing changed.
 */
static int unchanged(const struct warden_session *s, const struct stat *st)
{
	return s->seen_valid && st->st_size == s->seen.st_size &&
	       st->st_mtim.tv_sec == s->seen.st_mtim.tv_sec &&
	       st->st_mtim.tv_nsec == s->seen.st_mtim.tv_nsec &&
	       st->st_ctim.tv_sec == s->seen.st_ctim.tv_sec &&
	       st->st_ctim.tv_nsec == s->seen.st_ctim.tv_nsec;
}

/*
 * Under LOCK_EX: the last line to build on.  When the file is unchanged
 * since this handle's last check or write, the cached seq and knobs
 * stand; otherwise the last line is read and checked, and a torn tail
 * cut off.
 */
static int tail_fresh(struct warden_session *s, off_t *good_end,
                      struct warden_error *err)
{
	struct stat st;

	if (fstat(s->fd, &st) < 0)
		return warden_error_errno(err, WARDEN_EIO, errno, "cannot stat %s", s->path);
	if (unchanged(s, &st)) {
		*good_end = st.st_size;
		return 0;
	}
	return tail_check(s, 1, 1, good_end, err);
}

int warden_session_refresh(struct warden_session *s, struct warden_error *err)
{
	struct stat st;
	off_t good_end;
	int r;

	if ((r = lock_fd(s->fd, LOCK_SH)) < 0)
		return lock_error(s, r, err);
	r = fstat(s->fd, &st) < 0 ? warden_error_errno(err, WARDEN_EIO, errno, "cannot stat %s", s->path) : 0;
	if (r == 0 && s->cwd == NULL)
		r = head_check(s, st.st_size, err);
	/* Unchanged since this handle checked or wrote it: every line of the
	 * window was checked or written by this handle, the knobs stand. */
	if (r == 0 && !unchanged(s, &st))
		r = tail_check(s, 0, WARDEN_SESSION_TAIL_CHECK, &good_end, err);
	lock_fd(s->fd, LOCK_UN);
	return r;
}

int warden_session_reopen(struct warden_session *s, struct warden_error *err)
{
	struct stat a, b;
	int flags, fd;

	if (fstat(s->fd, &a) < 0 || (flags = fcntl(s->fd, F_GETFL)) < 0)
		return warden_error_errno(err, WARDEN_EIO, errno, "cannot stat %s", s->path);
	fd = open(s->path, ((flags & O_ACCMODE) == O_RDONLY ? O_RDONLY : O_RDWR | O_APPEND) |
	          O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return warden_error_errno(err, WARDEN_EIO, errno, "cannot open %s again", s->path);
	if (fstat(fd, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return warden_error_set(err, WARDEN_EDATA,
		                        "session %s: %s is no longer the log this session opened",
		                        s->id, s->path);
	}
	close(s->fd);
	s->fd = fd;
	return 0;
}

static int open_log(struct warden_session *s, int dirfd, const char *id,
                    struct warden_error *err)
{
	char name[WARDEN_SESSION_ID_MAX + sizeof(LOG_SUFFIX)];
	struct stat st;
	int e;

	snprintf(name, sizeof(name), "%s" LOG_SUFFIX, id);
	s->fd = openat(dirfd, name, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd < 0 && (errno == EACCES || errno == EROFS))
		s->fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd < 0) {
		e = errno;
		if (e == ENOENT)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "no session %s (start one with session new)", id);
		if (e == ELOOP)
			return warden_error_set(err, WARDEN_EREFUSED,
			                        "session log %s is a symbolic link (refused)", s->path);
		return warden_error_errno(err, WARDEN_EIO, e, "cannot open session log %s", s->path);
	}
	if (fstat(s->fd, &st) < 0)
		return warden_error_errno(err, WARDEN_EIO, errno, "cannot stat %s", s->path);
	if (!S_ISREG(st.st_mode))
		return warden_error_set(err, WARDEN_EDATA,
		                        "session log %s is not a regular file", s->path);
	if ((st.st_mode & 022) != 0)
		return warden_error_set(err, WARDEN_EREFUSED,
		                        "session log %s is writable by group or others (chmod 600 it)",
		                        s->path);
	return 0;
}

int warden_session_open(const struct warden_config *cfg, const char *id,
                        struct warden_session **out, struct warden_error *err)
{
	struct warden_session *s;
	int dirfd, r;

	*out = NULL;
	if ((r = warden_session_id_check(id, err)) < 0)
		return r;
	dirfd = state_dir_open(cfg, 0, err);
	if (dirfd == -ENOENT)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "no session %s (start one with session new)", id);
	if (dirfd < 0)
		return dirfd;
	s = session_new(cfg, id);
	if (s == NULL) {
		close(dirfd);
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	r = open_log(s, dirfd, id, err);
	close(dirfd);
	if (r == 0)
		r = warden_session_refresh(s, err);
	if (r < 0) {
		warden_session_close(s);
		return r;
	}
	*out = s;
	return 0;
}

/* ---- appending -------------------------------------------------------- */

static void format_time(char out[64])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(out, 64, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + 19, 64 - 19, ".%06ldZ", ts.tv_nsec / 1000);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* json_object_set_new() that reports a failed allocation of the value or
 * of the slot: a key silently dropped would write a wrong line. */
static int set_new(json_t *o, const char *key, json_t *v)
{
	return v == NULL ? -1 : json_object_set_new(o, key, v);
}

static json_t *roots_json(const struct warden_knobs *k)
{
	const char *v[WARDEN_ROOTS_MAX];
	size_t i, n = warden_knobs_roots(k, v);
	json_t *a = json_array();

	for (i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *grants_json(const struct warden_knobs *k)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < k->n_grants; i++)
		if (json_array_append_new(a, json_pack("{s:s,s:s}", "id", k->grants[i].id,
		                                       "key", k->grants[i].key)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *knobs_json(const struct warden_knobs *k)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	if ((k->mode && set_new(o, "mode", json_string(warden_mode_name(k->mode))) < 0) ||
	    (k->policy && set_new(o, "policy", json_string(warden_policy_name(k->policy))) < 0) ||
	    (k->preset[0] && set_new(o, "preset", json_string(k->preset)) < 0) ||
	    (k->network && set_new(o, "network", json_string(warden_network_name(k->network))) < 0) ||
	    (k->roots_set && set_new(o, "roots", roots_json(k)) < 0) ||
	    (k->n_grants && set_new(o, "grants", grants_json(k)) < 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Builds the next line into the pending buffer and advances the
 * session's seq and knobs as if it were written. */
static int queue_event(struct warden_session *s, int type, json_t *fields,
                       struct warden_error *err)
{
	const char **keys = NULL;
	const char *key;
	char tbuf[64], why[256];
	size_t n = 0, i, len;
	json_t *o, *v;
	struct event ev;
	struct warden_knobs knobs;
	char *text;

	if (fields != NULL && !json_is_object(fields))
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "%s: event fields must be a JSON object",
		                        warden_event_type_name(type));
	o = json_object();
	if (o == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	format_time(tbuf);
	if (set_new(o, "seq", json_integer((json_int_t)(s->last_seq + 1))) < 0 ||
	    set_new(o, "time", json_string(tbuf)) < 0 ||
	    set_new(o, "type", json_string(warden_event_type_name(type))) < 0) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	if (fields != NULL && json_object_size(fields) > 0) {
		keys = malloc(json_object_size(fields) * sizeof(*keys));
		if (keys == NULL) {
			json_decref(o);
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		}
		json_object_foreach(fields, key, v)
			keys[n++] = key;
		qsort(keys, n, sizeof(*keys), key_cmp);
		for (i = 0; i < n; i++) {
			if (strcmp(keys[i], "seq") == 0 || strcmp(keys[i], "time") == 0 ||
			    strcmp(keys[i], "type") == 0 || strcmp(keys[i], "knobs") == 0) {
				warden_error_set(err, WARDEN_EINTERNAL,
				                 "%s: field \"%s\" is reserved by the session log",
				                 warden_event_type_name(type), keys[i]);
				free(keys);
				json_decref(o);
				return -WARDEN_EINTERNAL;
			}
			if (json_object_set(o, keys[i], json_object_get(fields, keys[i])) < 0) {
				free(keys);
				json_decref(o);
				return warden_error_set(err, WARDEN_EOS, "out of memory");
			}
		}
		free(keys);
	}
	knobs = s->knobs;
	knobs_apply(&knobs, type, o);
	if (set_new(o, "knobs", knobs_json(&knobs)) < 0) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	/* What replay would refuse is never written: the line must parse
	 * back to exactly the seq and knobs it was built with. */
	if (event_check(o, &ev, why, sizeof(why)) < 0) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EINTERNAL, "%s: bad event: %s",
		                        warden_event_type_name(type), why);
	}
	if (ev.seq != s->last_seq + 1 || !knobs_equal(&ev.knobs, &knobs)) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "%s: the event does not read back as built",
		                        warden_event_type_name(type));
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text == NULL) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "%s: event cannot be encoded (out of memory?)",
		                        warden_event_type_name(type));
	}
	len = strlen(text);
	/* The encoder can lose bytes when an allocation fails inside it and
	 * still return text: the line is read back as replay will read it and
	 * must equal what was built, or it is not written. */
	{
		struct event back;
		int cut, same;

		if (line_parse(text, len, &back, &cut, why, sizeof(why)) < 0) {
			free(text);
			json_decref(o);
			return warden_error_set(err, WARDEN_EOS,
			                        "%s: event could not be encoded (out of memory?)",
			                        warden_event_type_name(type));
		}
		same = json_equal(back.json, o) && back.seq == ev.seq &&
		       knobs_equal(&back.knobs, &knobs);
		event_release(&back);
		if (!same) {
			free(text);
			json_decref(o);
			return warden_error_set(err, WARDEN_EOS,
			                        "%s: event could not be encoded (out of memory?)",
			                        warden_event_type_name(type));
		}
	}
	if (len + 1 > WARDEN_SESSION_LINE_MAX) {
		free(text);
		json_decref(o);
		return warden_error_set(err, WARDEN_EDATA,
		                        "%s: event of %zu bytes is larger than the %d-byte limit",
		                        warden_event_type_name(type), len + 1,
		                        WARDEN_SESSION_LINE_MAX);
	}
	if (s->pending_len + len + 1 > s->pending_cap) {
		size_t cap = (s->pending_len + len + 1) * 2;
		char *p = realloc(s->pending, cap);

		if (p == NULL) {
			free(text);
			json_decref(o);
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		}
		s->pending = p;
		s->pending_cap = cap;
	}
	memcpy(s->pending + s->pending_len, text, len);
	s->pending[s->pending_len + len] = '\n';
	s->pending_len += len + 1;
	s->last_seq = ev.seq;
	s->knobs = ev.knobs;
	free(text);
	json_decref(o);
	return 0;
}

/* One write(2) of every pending line, then fsync; any failure truncates
 * back to good_end so that no partial line stays behind. */
static int commit(struct warden_session *s, off_t good_end,
                  struct warden_error *err)
{
	ssize_t n;
	int e;

	do
		n = write(s->fd, s->pending, s->pending_len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)s->pending_len) {
		e = n < 0 ? errno : ENOSPC;
		if (ftruncate(s->fd, good_end) < 0)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "append to %s failed and could not be undone", s->path);
		return warden_error_errno(err, WARDEN_EIO, e, "cannot append to %s", s->path);
	}
	if (s->durability != WARDEN_DURABILITY_NONE && fsync(s->fd) < 0) {
		e = errno;
		if (ftruncate(s->fd, good_end) < 0)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "fsync of %s failed and could not be undone", s->path);
		return warden_error_errno(err, WARDEN_EIO, e, "cannot fsync %s", s->path);
	}
	s->seen_valid = fstat(s->fd, &s->seen) == 0;
	return 0;
}

/*
 * Under LOCK_EX: the last line to build on.  When the file is as this
 * handle left it (writers only ever grow it past what they saw, or cut
 * back to it), the cached seq and knobs stand; otherwise the last line is
 * read and checked, and a torn tail cut off.
 */

int warden_session_transaction(struct warden_session *s,
                               warden_session_txn_fn fn, void *ud,
                               struct warden_error *err)
{
	struct warden_knobs now;
	uint64_t seq;
	off_t good_end;
	int r;

	if (s->in_txn)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "session %s: nested transaction", s->id);
	if ((r = lock_fd(s->fd, LOCK_EX)) < 0)
		return lock_error(s, r, err);
	r = tail_fresh(s, &good_end, err);
	if (r == 0) {
		now = s->knobs;
		seq = s->last_seq;
		s->in_txn = 1;
		s->pending_len = 0;
		r = fn(s, &now, ud, err);
		s->in_txn = 0;
		if (r == 0 && s->pending_len > 0) {
			s->seen_valid = 0;
			r = commit(s, good_end, err);
		}
		if (r != 0) {
			s->knobs = now;
			s->last_seq = seq;
		}
		s->pending_len = 0;
	}
	lock_fd(s->fd, LOCK_UN);
	return r;
}

struct one_event { int type; json_t *fields; };

static int one_event_txn(struct warden_session *s, const struct warden_knobs *now,
                         void *ud, struct warden_error *err)
{
	struct one_event *o = ud;

	return queue_event(s, o->type, o->fields, err);
}

static int write_event(struct warden_session *s, int type, json_t *fields,
                       struct warden_error *err)
{
	struct one_event o = { type, fields };

	if (s->in_txn)
		return queue_event(s, type, fields, err);
	return warden_session_transaction(s, one_event_txn, &o, err);
}

int warden_session_append(struct warden_session *s, const char *type,
                          json_t *fields, struct warden_error *err)
{
	int t = warden_event_type_parse(type);

	if (t != WARDEN_EVENT_APPROVAL_ASKED && t != WARDEN_EVENT_APPROVAL_DECIDED &&
	    t != WARDEN_EVENT_SANDBOX_RUN && t != WARDEN_EVENT_NETWORK_CONNECT)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "session %s: \"%s\" is not an audit event type (knobs have their own setters)",
		                        s->id, type ? type : "(null)");
	return write_event(s, t, fields, err);
}

static int grant_txn(struct warden_session *s, const struct warden_knobs *now,
                     void *ud, struct warden_error *err)
{
	json_t *fields = ud;

	if (grant_find(now, json_string_value(json_object_get(fields, "grant"))) >= 0)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "session %s: the grant id is already in force", s->id);
	if (now->n_grants >= WARDEN_GRANTS_MAX)
		return warden_error_set(err, WARDEN_EREFUSED,
		                        "session %s: %d grants are in force (revoke one first: grant revoke ID)",
		                        s->id, WARDEN_GRANTS_MAX);
	return queue_event(s, WARDEN_EVENT_APPROVAL_GRANT, fields, err);
}

int warden_session_grant(struct warden_session *s, json_t *fields,
                         struct warden_error *err)
{
	if (s->in_txn)
		return grant_txn(s, &s->knobs, fields, err);
	return warden_session_transaction(s, grant_txn, fields, err);
}

static int revoke_txn(struct warden_session *s, const struct warden_knobs *now,
                      void *ud, struct warden_error *err)
{
	json_t *fields;
	int r;

	if (grant_find(now, ud) < 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "session %s: no grant %s is in force (the grant list shows them)",
		                        s->id, (const char *)ud);
	fields = json_pack("{s:s}", "grant", (const char *)ud);
	if (fields == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	r = queue_event(s, WARDEN_EVENT_APPROVAL_REVOKE, fields, err);
	json_decref(fields);
	return r;
}

int warden_session_revoke(struct warden_session *s, const char *id,
                          struct warden_error *err)
{
	if (!warden_grant_id_ok(id))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "not a grant id (grant- and 16 hex digits, as the grant list shows)");
	if (s->in_txn)
		return revoke_txn(s, &s->knobs, (void *)id, err);
	return warden_session_transaction(s, revoke_txn, (void *)id, err);
}

struct knob_change { int type; const char *key; json_t *value; int changed; };

static int knob_txn(struct warden_session *s, const struct warden_knobs *now,
                    void *ud, struct warden_error *err)
{
	struct knob_change *c = ud;
	struct warden_knobs want = s->knobs;
	json_t *fields;
	int r;

	fields = json_object();
	if (fields == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	json_object_set(fields, c->key, c->value);
	knobs_apply(&want, c->type, fields);
	if (c->type != WARDEN_EVENT_PERMISSION_PRESET && knobs_equal(&want, &s->knobs)) {
		json_decref(fields);
		return 0;
	}
	r = queue_event(s, c->type, fields, err);
	json_decref(fields);
	if (r == 0)
		c->changed = 1;
	return r;
}

static int set_knob(struct warden_session *s, int type, const char *key,
                    json_t *value, int *changed, struct warden_error *err)
{
	struct knob_change c = { type, key, value, 0 };
	int r;

	if (changed != NULL)
		*changed = 0;
	if (value == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	if (s->in_txn)
		r = knob_txn(s, &s->knobs, &c, err);
	else
		r = warden_session_transaction(s, knob_txn, &c, err);
	json_decref(value);
	if (r == 0 && changed != NULL)
		*changed = c.changed;
	return r;
}

int warden_session_set_mode(struct warden_session *s, int mode, int *changed,
                            struct warden_error *err)
{
	const char *name = warden_mode_name(mode);

	if (name == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "not a sandbox mode: %d", mode);
	return set_knob(s, WARDEN_EVENT_SANDBOX_MODE, "mode", json_string(name),
	                changed, err);
}

int warden_session_set_policy(struct warden_session *s, int policy, int *changed,
                              struct warden_error *err)
{
	const char *name = warden_policy_name(policy);

	if (name == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "not an approval policy: %d", policy);
	return set_knob(s, WARDEN_EVENT_APPROVAL_POLICY, "policy", json_string(name),
	                changed, err);
}

int warden_session_set_network(struct warden_session *s, int network,
                               int *changed, struct warden_error *err)
{
	const char *name = warden_network_name(network);

	if (name == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "not a network setting: %d", network);
	return set_knob(s, WARDEN_EVENT_SANDBOX_NETWORK, "network", json_string(name),
	                changed, err);
}

int warden_session_set_roots(struct warden_session *s, const char *const *roots,
                             size_t n, int *changed, struct warden_error *err)
{
	json_t *a;
	size_t i;

	if (n > WARDEN_ROOTS_MAX)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "more than %d writable roots (remove one first: roots remove DIR)",
		                        WARDEN_ROOTS_MAX);
	a = json_array();
	for (i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_string(roots[i])) < 0) {
			json_decref(a);
			a = NULL;
		}
	if (a == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	return set_knob(s, WARDEN_EVENT_SANDBOX_ROOTS, "roots", a, changed, err);
}

int warden_session_set_preset(struct warden_session *s, const char *name,
                              int *changed, struct warden_error *err)
{
	if (name == NULL || name[0] == '\0' || strlen(name) > WARDEN_PRESET_NAME_MAX)
		return warden_error_set(err, WARDEN_EINTERNAL, "not a preset name");
	return set_knob(s, WARDEN_EVENT_PERMISSION_PRESET, "preset", json_string(name),
	                changed, err);
}

/* ---- creating --------------------------------------------------------- */

static int new_id(char out[64], struct warden_error *err)
{
	struct tm tm;
	time_t now = time(NULL);

	gmtime_r(&now, &tm);
	strftime(out, 64, "%Y%m%dT%H%M%SZ-", &tm);
	if (warden_random_hex(out + 17, 8) < 0)
		return warden_error_errno(err, WARDEN_EOS, errno,
		                          "cannot get random bytes for a session id");
	return 0;
}

struct start_ctx { const char *cwd; };

static int start_txn(struct warden_session *s, const struct warden_knobs *now,
                     void *ud, struct warden_error *err)
{
	json_t *fields = json_pack("{s:s}", "cwd", ((struct start_ctx *)ud)->cwd);
	int r;

	if (fields == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	r = queue_event(s, WARDEN_EVENT_SESSION_START, fields, err);
	json_decref(fields);
	return r;
}

/* Gives the first name to fd, an unnamed file (O_TMPFILE) holding the
 * whole first line: the session appears complete or not at all. */
static int link_tmpfile(int fd, int dirfd, const char *name)
{
	char proc[64];

	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
}

static int set_id(struct warden_session *s, const struct warden_config *cfg,
                  const char *id)
{
	char *path;

	if (asprintf(&path, "%s/%s" LOG_SUFFIX, cfg->state_dir, id) < 0)
		return -1;
	free(s->path);
	s->path = path;
	snprintf(s->id, sizeof(s->id), "%s", id);
	return 0;
}

/*
 * The first line is written into an unnamed file, made durable, and only
 * then linked under a fresh id, so that a creation cut short anywhere (an
 * error, no memory, a kill) leaves no session behind, not even an empty
 * one.  Where the file system has no O_TMPFILE, the log is created under
 * its name (O_EXCL) and removed again on an error.
 */
int warden_session_create(const struct warden_config *cfg, const char *cwd,
                          char **id_out, struct warden_error *err)
{
	char dir[PATH_MAX], id[64], name[64 + sizeof(LOG_SUFFIX)];
	struct start_ctx ctx = { dir };
	struct warden_session *s = NULL;
	struct stat st;
	off_t good_end = 0;
	int dirfd, fd, tries, r, named = 0;

	*id_out = NULL;
	if (realpath(cwd ? cwd : ".", dir) == NULL)
		return warden_error_errno(err, WARDEN_EUSAGE, errno,
		                          "cannot resolve the session's cwd %s", cwd ? cwd : ".");
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "the session's cwd %s is not a directory", dir);
	if (warden_path_in_proc(dir))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "the session's cwd %s is in /proc, whose entries belong to processes that come and go (start the session in a directory of a file system)",
		                        dir);
	dirfd = state_dir_open(cfg, 1, err);
	if (dirfd < 0)
		return dirfd;
	if ((r = new_id(id, err)) < 0) {
		close(dirfd);
		return r;
	}
	snprintf(name, sizeof(name), "%s" LOG_SUFFIX, id);
	if ((s = session_new(cfg, id)) == NULL) {
		close(dirfd);
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	for (tries = 0; fd < 0 && tries < 16; tries++) {
		/* No O_TMPFILE here: create the log under its name. */
		if (tries > 0) {
			if ((r = new_id(id, err)) < 0)
				goto fail;
			snprintf(name, sizeof(name), "%s" LOG_SUFFIX, id);
			if (set_id(s, cfg, id) < 0) {
				r = warden_error_set(err, WARDEN_EOS, "out of memory");
				goto fail;
			}
		}
		fd = openat(dirfd, name, O_RDWR | O_APPEND | O_CREAT | O_EXCL |
		            O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			named = 1;
		else if (errno != EEXIST) {
			r = warden_error_errno(err, WARDEN_EIO, errno,
			                       "cannot create a session log in %s", cfg->state_dir);
			goto fail;
		}
	}
	if (fd < 0) {
		r = warden_error_set(err, WARDEN_EOS, "no fresh session id after %d tries", tries);
		goto fail;
	}
	s->fd = fd;
	if (named && (r = lock_fd(fd, LOCK_EX)) < 0) {
		r = warden_error_errno(err, WARDEN_EIO, -r, "cannot lock %s", s->path);
		goto fail;
	}
	s->in_txn = 1;
	r = start_txn(s, &s->knobs, &ctx, err);
	s->in_txn = 0;
	if (r == 0)
		r = commit(s, good_end, err);
	/* Unnamed, the line is made durable before the name exists. */
	if (r == 0 && !named && s->durability != WARDEN_DURABILITY_NONE && fsync(fd) < 0)
		r = warden_error_errno(err, WARDEN_EIO, errno, "cannot fsync %s", s->path);
	for (tries = 0; r == 0 && !named; tries++) {
		if (link_tmpfile(fd, dirfd, name) == 0)
			break;
		if (errno != EEXIST || tries >= 16) {
			r = warden_error_errno(err, WARDEN_EIO, errno,
			                       "cannot name the session log %s", s->path);
			break;
		}
		if ((r = new_id(id, err)) < 0)
			break;
		snprintf(name, sizeof(name), "%s" LOG_SUFFIX, id);
		if (set_id(s, cfg, id) < 0)
			r = warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	if (r == 0 && !named)
		named = 2; /* linked: remove it again if what follows fails */
	/* The new name must survive a crash as well as the line. */
	if (r == 0 && s->durability != WARDEN_DURABILITY_NONE && fsync(dirfd) < 0)
		r = warden_error_errno(err, WARDEN_EIO, errno, "cannot fsync %s", cfg->state_dir);
	if (r < 0)
		goto fail;
	*id_out = strdup(id);
	if (*id_out == NULL) {
		r = warden_error_set(err, WARDEN_EOS, "out of memory");
		goto fail;
	}
	warden_session_close(s);
	close(dirfd);
	return 0;
fail:
	if (named)
		unlinkat(dirfd, name, 0);
	warden_session_close(s);
	close(dirfd);
	return r;
}

/* ---- full replay ------------------------------------------------------ */

int warden_session_replay(struct warden_session *s, warden_session_event_fn fn,
                          void *ud, struct warden_knobs *knobs,
                          struct warden_error *err)
{
	enum { CHUNK = 1 << 20 };
	struct event prev = { 0 }, ev;
	struct stat st;
	char why[256], where[64];
	char *buf;
	size_t have = 0, cap = 2 * (size_t)WARDEN_SESSION_LINE_MAX + CHUNK, pos, n;
	off_t off = 0, line_off = 0, size;
	uint64_t line_no = 0;
	int r = 0, cut, done = 0;

	if ((r = lock_fd(s->fd, LOCK_SH)) < 0)
		return lock_error(s, r, err);
	if (fstat(s->fd, &st) < 0) {
		lock_fd(s->fd, LOCK_UN);
		return warden_error_errno(err, WARDEN_EIO, errno, "cannot stat %s", s->path);
	}
	size = st.st_size;
	buf = malloc(cap);
	if (buf == NULL) {
		lock_fd(s->fd, LOCK_UN);
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	while (!done && r == 0) {
		n = (size_t)(size - off) < cap - have ? (size_t)(size - off) : cap - have;
		if (n > 0 && (r = read_full(s->fd, buf + have, n, off)) < 0) {
			r = warden_error_errno(err, WARDEN_EIO, -r, "cannot read %s", s->path);
			break;
		}
		off += (off_t)n;
		have += n;
		pos = 0;
		for (;;) {
			char *nl = memchr(buf + pos, '\n', have - pos);

			if (nl == NULL)
				break;
			line_no++;
			snprintf(where, sizeof(where), "at line %llu", (unsigned long long)line_no);
			if ((r = line_parse(buf + pos, (size_t)(nl - (buf + pos)), &ev, &cut,
			                    why, sizeof(why))) < 0) {
				if (r == LP_OOM) {
					r = oom_error(err, s);
					break;
				}
				r = 0;
				if (cut && line_off + (off_t)(nl - (buf + pos)) + 1 == size) {
					torn_warning(s, line_off, size - line_off, 0);
					pos = have;
					done = 1;
					break;
				}
				r = damage(err, s, where, why);
				break;
			}
			if (line_no == 1 && (ev.seq != 1 || ev.type != WARDEN_EVENT_SESSION_START)) {
				event_release(&ev);
				r = damage(err, s, where, "the first line is not session/start with seq 1");
				break;
			}
			if (line_no > 1 && event_follows(&prev, &ev, why, sizeof(why)) < 0) {
				event_release(&ev);
				r = damage(err, s, where, why);
				break;
			}
			event_release(&prev);
			prev = ev;
			line_off += nl + 1 - (buf + pos);
			pos = (size_t)(nl + 1 - buf);
			if (fn != NULL && (r = fn(line_no, prev.json, ud)) != 0)
				break;
		}
		if (r != 0 || done)
			break;
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		if (off == size) {
			if (have > 0)
				torn_warning(s, line_off, (off_t)have, 0);
			done = 1;
		} else if (have > 2 * (size_t)WARDEN_SESSION_LINE_MAX) {
			snprintf(where, sizeof(where), "at line %llu", (unsigned long long)line_no + 1);
			r = damage(err, s, where, "a line longer than the longest event");
		}
	}
	if (r == 0 && prev.json == NULL)
		r = damage(err, s, "at line 1", "no complete session/start line");
	if (r == 0 && knobs != NULL)
		*knobs = prev.knobs;
	event_release(&prev);
	free(buf);
	lock_fd(s->fd, LOCK_UN);
	return r;
}

/* ---- grants in force ---------------------------------------------------- */

static int grant_collect(uint64_t line_no, json_t *event, void *ud)
{
	json_t *seen = ud;
	const char *type = json_string_value(json_object_get(event, "type"));

	(void)line_no;
	if (type != NULL && strcmp(type, "approval/grant") == 0 &&
	    json_object_set(seen, json_string_value(json_object_get(event, "grant")), event) < 0)
		return -1;
	return 0;
}

int warden_session_grants(struct warden_session *s, json_t **out,
                          struct warden_error *err)
{
	struct warden_knobs k;
	json_t *seen = json_object(), *list = json_array(), *ev, *o;
	char *text;
	size_t i;
	int r;

	*out = NULL;
	if (seen == NULL || list == NULL) {
		json_decref(seen);
		json_decref(list);
		return oom_error(err, s);
	}
	r = warden_session_replay(s, grant_collect, seen, &k, err);
	if (r > 0 || r == -1)
		r = oom_error(err, s);
	for (i = 0; r == 0 && i < k.n_grants; i++) {
		ev = json_object_get(seen, k.grants[i].id);
		text = ev != NULL ? warden_grant_scope_text(json_object_get(ev, "scope")) : NULL;
		o = text == NULL ? NULL
		    : json_pack("{s:s,s:O,s:s,s:O,s:O,s:O,s:O,s:O}", "id", k.grants[i].id,
		                "name", json_object_get(ev, "name") ? json_object_get(ev, "name") : json_null(),
		                "text", text, "scope", json_object_get(ev, "scope"),
		                "seq", json_object_get(ev, "seq"), "time", json_object_get(ev, "time"),
		                "answerer", json_object_get(ev, "answerer") ? json_object_get(ev, "answerer") : json_null(),
		                "request_id", json_object_get(ev, "request_id") ? json_object_get(ev, "request_id") : json_null());
		free(text);
		if (o == NULL || json_array_append_new(list, o) < 0)
			r = oom_error(err, s);
	}
	json_decref(seen);
	if (r < 0) {
		json_decref(list);
		return r;
	}
	*out = list;
	return 0;
}
