/*
 * sandbox.c — see sandbox.h.
 *
 * The service trusts nothing a backend returns: probe and confine results
 * are checked against the contract of plugin.h, strings are copied, and
 * a backend that breaks the contract is skipped like an unusable one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "denyread.h"
#include "sandbox.h"
#include "spawn.h"
#include "vocab.h"

/* A backend may not hand back more than this (a runaway plugin). */
#define MAX_ITEMS 4096

/* The host's runner rule is the layout of every minor so far; a minor
 * that grows it must read an older plugin's table with its own stride
 * (rules_copy() does) and zero what that table lacks. */
_Static_assert(sizeof(struct warden_runner_rule) == WARDEN_RUNNER_RULE_SIZE_1_0,
               "warden_runner_rule grew: copy each rule's known prefix");

struct probe_cache {
	int done;
	int disproven;          /* facts only: a run judged by them failed
	                           before exec (warden_sandbox_disprove) */
	struct warden_probe probe;
	/* From probe2 (v1.1): enum warden_enforcement of a restricted
	 * network in this mode, 0 when the backend did not say. */
	int network_enforcement;
	char network_detail[256];
	/* From probe2 (v1.3): 1 when confine() hides deny_read paths. */
	int deny_read_held;
};

struct warden_sandbox {
	struct warden_loaded *backends;
	size_t n;
	struct probe_cache *cache;  /* n * 2: [i * 2 + mode - 1] */
	struct probe_cache *facts;  /* the same, judged by facts() */
	int owned;                  /* backends belong to the service (open()) */
	/* open()'s: the config whose [backend] sections these are, and per
	 * backend whether the loader has run for it.  A backend is loaded
	 * and opened the first time it is needed (a run that the first
	 * backend confines never loads the others). */
	const struct warden_config *cfg;
	unsigned char *loaded;
	/* The caller's home directories ($HOME and the password entry's),
	 * resolved once: workspace-write refuses them and their ancestors. */
	char homes[2][PATH_MAX];
	size_t n_homes;
};

/* ------------------------------------------------------------ strings */

/*
 * String vectors: NULL-terminated char ** whose strings live in one block,
 * v[0] at its start (one allocation for the strings, one for the
 * pointers, whatever the count).  While a vector is built, v[] holds
 * offsets into the growing block; strvec_finish() turns them into
 * pointers.
 */
struct strvec {
	char **v;
	size_t n, cap;
	char *buf;
	size_t len, bcap;
	int failed;
};

static int strvec_push(struct strvec *sv, const char *s)
{
	size_t l;

	if (sv->failed || s == NULL || sv->n >= MAX_ITEMS) {
		sv->failed = 1;
		return -1;
	}
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 32;
		char **nv = realloc(sv->v, cap * sizeof(*nv));

		if (nv == NULL) {
			sv->failed = 1;
			return -1;
		}
		sv->v = nv;
		sv->cap = cap;
	}
	l = strlen(s) + 1;
	if (sv->len + l > sv->bcap) {
		size_t cap = (sv->len + l) * 2 > 512 ? (sv->len + l) * 2 : 512;
		char *nb = realloc(sv->buf, cap);

		if (nb == NULL) {
			sv->failed = 1;
			return -1;
		}
		sv->buf = nb;
		sv->bcap = cap;
	}
	memcpy(sv->buf + sv->len, s, l);
	sv->v[sv->n++] = (char *)(uintptr_t)sv->len;
	sv->len += l;
	return 0;
}

/* The finished vector (owned by the caller, free with strv_free), or NULL
 * when building failed or out of memory; sv is left empty. */
static char **strvec_finish(struct strvec *sv)
{
	char **v = sv->v;
	size_t i;

	if (!sv->failed && v == NULL && (v = malloc(sizeof(*v))) == NULL)
		sv->failed = 1;
	if (sv->failed) {
		free(sv->v);
		free(sv->buf);
		memset(sv, 0, sizeof(*sv));
		return NULL;
	}
	for (i = 0; i < sv->n; i++)
		v[i] = sv->buf + (uintptr_t)v[i];
	v[sv->n] = NULL;
	if (sv->n == 0)
		free(sv->buf);
	memset(sv, 0, sizeof(*sv));
	return v;
}

static void strvec_discard(struct strvec *sv)
{
	free(sv->v);
	free(sv->buf);
	memset(sv, 0, sizeof(*sv));
}

static void strv_free(char **v)
{
	if (v != NULL)
		free(v[0]);
	free(v);
}

/* A NULL-terminated copy of n strings, or NULL (out of memory, or a NULL
 * entry: a broken table). */
static char **strv_copy(const char *const *src, size_t n, int *ok)
{
	struct strvec sv = { 0 };
	char **v;
	size_t i;

	for (i = 0; i < n; i++)
		if (strvec_push(&sv, src[i]) < 0)
			break;
	v = strvec_finish(&sv);
	*ok = v != NULL;
	return v;
}

/* -------------------------------------------------------------- sinks */

struct sink {
	struct strvec argv;
	struct strvec roots;
	struct strvec env;
	struct strvec held;
	int pass_fds;           /* WARDEN_CONFINE_PASS_FDS: keep what is pushed */
	int status_fd;          /* the number the status channel takes */
	int status_copy_at;     /* and its copy's (push_status_copy), or -1 */
	int fds[WARDEN_HELD_FD_MAX];
	int at[WARDEN_HELD_FD_MAX];
	size_t n_fds;
};

/* Takes fd over; returns the number the spawned process will find it at
 * (>= 3, never the status channel's), or -1 (fd closed) when the caller
 * cannot pass descriptors, too many were pushed, or it cannot be moved. */
static int sink_push_fd(void *s, int fd)
{
	struct sink *k = s;
	int at;

	if (fd < 0)
		return -1;
	if (!k->pass_fds || k->n_fds >= WARDEN_HELD_FD_MAX ||
	    fd <= 2 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		if (fd > 2)
			close(fd);
		return -1;
	}
	at = k->n_fds > 0 ? k->at[k->n_fds - 1] + 1 : 3;
	while (at == k->status_fd || at == k->status_copy_at)
		at++;
	k->fds[k->n_fds] = fd;
	k->at[k->n_fds] = at;
	k->n_fds++;
	return at;
}

/* The number a copy of the status channel takes: above every number
 * pushed so far, which the next ones then step over. */
static int sink_push_status_copy(void *s)
{
	struct sink *k = s;
	int at;

	if (!k->pass_fds || k->status_fd < 0 || k->status_copy_at >= 0)
		return k->status_copy_at >= 0 ? k->status_copy_at : -1;
	at = k->n_fds > 0 ? k->at[k->n_fds - 1] + 1 : 3;
	if (at <= k->status_fd)
		at = k->status_fd + 1;
	k->status_copy_at = at;
	return at;
}

static void sink_close_fds(struct sink *k)
{
	size_t i;

	for (i = 0; i < k->n_fds; i++)
		close(k->fds[i]);
	k->n_fds = 0;
}

static int sink_push_arg(void *s, const char *arg)
{
	return strvec_push(&((struct sink *)s)->argv, arg);
}

static int sink_push_root(void *s, const char *path)
{
	return strvec_push(&((struct sink *)s)->roots, path);
}

static int sink_push_held(void *s, const char *path)
{
	if (path == NULL || path[0] != '/')
		return -1;
	return strvec_push(&((struct sink *)s)->held, path);
}

static int sink_push_env(void *s, const char *entry)
{
	return strvec_push(&((struct sink *)s)->env, entry);
}

/* ------------------------------------------------------------ confined */

struct warden_classify_facts warden_confined_facts(const struct warden_confined *c)
{
	struct warden_classify_facts f;

	f.runner_rules = c->runner_rules;
	f.n_runner_rules = c->n_runner_rules;
	f.denial_signatures = (const char *const *)c->denial_signatures;
	f.n_denial_signatures = c->n_denial_signatures;
	return f;
}

static void rules_free(struct warden_runner_rule *r, size_t n)
{
	size_t i;

	for (i = 0; r != NULL && i < n; i++) {
		free((void *)r[i].exit_codes);
		strv_free((char **)r[i].fatal_signatures);
		strv_free((char **)r[i].informational_lines);
	}
	free(r);
}

/* Appends "name: why" to the list of skipped backends and to reasons. */
static int skip(struct warden_skipped **list, size_t *n, const char *name,
                const char *why, char *reasons, size_t *used, size_t cap)
{
	struct warden_skipped *grown;

	*used += (size_t)snprintf(reasons + *used, cap - *used, "%s%s: %s",
	                          *used ? "; " : "", name, why);
	if (*used >= cap)
		*used = cap - 1;
	grown = realloc(*list, (*n + 1) * sizeof(*grown));
	if (grown == NULL)
		return -1;
	*list = grown;
	grown[*n].backend = strdup(name);
	grown[*n].reason = strdup(why);
	if (grown[*n].backend == NULL || grown[*n].reason == NULL) {
		free(grown[*n].backend);
		free(grown[*n].reason);
		return -1;
	}
	(*n)++;
	return 0;
}

void warden_skipped_free(struct warden_skipped *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(list[i].backend);
		free(list[i].reason);
	}
	free(list);
}

void warden_confined_finish(struct warden_confined *c, int ended)
{
	void (*finish)(void *, void *, int);

	if (c == NULL || c->finish == NULL)
		return;
	finish = c->finish;
	c->finish = NULL;
	finish(c->finish_state, c->run, ended != 0);
	c->run = NULL;
}

void warden_confined_free(struct warden_confined *c)
{
	size_t i;

	if (c == NULL)
		return;
	warden_confined_finish(c, 1);
	strv_free(c->envp);
	for (i = 0; i < c->n_held; i++)
		close(c->held_fds[i]);
	strv_free(c->argv);
	free(c->backend);
	strv_free(c->writable_roots);
	strv_free(c->held_paths);
	warden_skipped_free(c->skipped, c->n_skipped);
	strv_free(c->denial_signatures);
	rules_free(c->runner_rules, c->n_runner_rules);
	free(c);
}

/* Deep copy of a backend's rule table; 0, or -1 when out of memory or
 * the table is broken (NULL where entries are promised). */
static int rules_copy(const struct warden_plugin *d, struct warden_confined *c)
{
	size_t i, n = d->n_runner_rules, stride = WARDEN_RUNNER_RULE_STRIDE(d);
	int ok;

	if (n > MAX_ITEMS || (n > 0 && d->runner_rules == NULL))
		return -1;
	/* The table's elements are the plugin's size (runner_rule_size):
	 * a newer minor's are longer, and only their prefix is read. */
	c->runner_rules = calloc(n + 1, sizeof(*c->runner_rules));
	if (c->runner_rules == NULL)
		return -1;
	c->n_runner_rules = n;
	for (i = 0; i < n; i++) {
		const struct warden_runner_rule *s = (const struct warden_runner_rule *)
			(const void *)((const char *)d->runner_rules + i * stride);
		struct warden_runner_rule *t = &c->runner_rules[i];
		int *codes;

		if (s->n_exit_codes > MAX_ITEMS ||
		    (s->n_exit_codes > 0 && s->exit_codes == NULL) ||
		    s->n_fatal_signatures > MAX_ITEMS ||
		    (s->n_fatal_signatures > 0 && s->fatal_signatures == NULL) ||
		    s->n_informational_lines > MAX_ITEMS ||
		    (s->n_informational_lines > 0 && s->informational_lines == NULL))
			return -1;
		codes = calloc(s->n_exit_codes + 1, sizeof(*codes));
		if (codes == NULL)
			return -1;
		if (s->n_exit_codes > 0)
			memcpy(codes, s->exit_codes, s->n_exit_codes * sizeof(*codes));
		t->exit_codes = codes;
		t->n_exit_codes = s->n_exit_codes;
		t->fatal_signatures = (const char *const *)strv_copy(
			s->fatal_signatures, s->n_fatal_signatures, &ok);
		if (!ok)
			return -1;
		t->n_fatal_signatures = s->n_fatal_signatures;
		t->informational_lines = (const char *const *)strv_copy(
			s->informational_lines, s->n_informational_lines, &ok);
		if (!ok)
			return -1;
		t->n_informational_lines = s->n_informational_lines;
	}
	return 0;
}

/* Whether a process of c keeps descriptor n. */
static int kept(const struct warden_confined *c, long n)
{
	size_t i;

	if (n == c->status_fd || (c->status_copy_at > 2 && n == c->status_copy_at))
		return 1;
	for (i = 0; i < c->n_held; i++)
		if (n == c->held_at[i])
			return 1;
	return 0;
}

int warden_confined_exec(const struct warden_confined *c, int status_write)
{
	int fd = c->status_fd, top, sw = -1;
	struct rlimit rl;
	long i, max;
	size_t k;

	if ((fd >= 0 && fd <= 2) || c->envp != NULL || c->spawn_flags != 0) {
		/* What a backend asked of the spawner (spawn_env) is
		 * warden_spawn_run()'s to give: never exec without it. */
		errno = EINVAL;
		return -1;
	}
	if ((fd >= 0) != (status_write >= 0)) {
		/* A status channel promised but not given (or the reverse). */
		errno = EBADF;
		return -1;
	}
	top = fd;
	if (fd >= 0 && c->status_copy_at > top)
		top = c->status_copy_at;
	for (k = 0; k < c->n_held; k++)
		if (c->held_at[k] > top)
			top = c->held_at[k];
	/* The status channel's write end may sit at a held descriptor's
	 * number, or a held one at the channel's: everything goes above top
	 * first, then to its place. */
	if (fd >= 0 && (sw = fcntl(status_write, F_DUPFD_CLOEXEC, top + 1)) < 0)
		return -1;
	if (warden_fds_place(c->held_fds, c->held_at, c->n_held, top) < 0 ||
	    (fd >= 0 && dup2(sw, fd) < 0) ||
	    (fd >= 0 && c->status_copy_at > 2 && dup2(sw, c->status_copy_at) < 0))
		return -1;
	/* Nothing of the caller but stdio, the status channel and what the
	 * backend holds. */
	for (i = 3; i <= top; i++)
		if (!kept(c, i))
			close((int)i);
	if (close_range((unsigned)(top < 3 ? 3 : top + 1), ~0U, 0) == 0)
		goto run;
	max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY
		? (long)rl.rlim_max : 65536;
	for (i = top < 3 ? 3 : top + 1; i < max; i++)
		close((int)i);
run:
	execv(c->argv[0], c->argv);
	return -1;
}

/* ------------------------------------------------------------- service */

static void homes_add(struct warden_sandbox *svc, const char *dir)
{
	char r[PATH_MAX];

	if (dir == NULL || dir[0] != '/' || realpath(dir, r) == NULL)
		return;
	for (size_t i = 0; i < svc->n_homes; i++)
		if (strcmp(svc->homes[i], r) == 0)
			return;
	memcpy(svc->homes[svc->n_homes++], r, sizeof(r));
}

/* The home directory of uid (denyread.h): a lookup failure here only
 * means one check fewer (nothing is granted by it). */
static void passwd_home(struct warden_sandbox *svc, uid_t uid)
{
	char home[PATH_MAX];

	if (warden_passwd_home(uid, home) == 1)
		homes_add(svc, home);
}

static void homes_init(struct warden_sandbox *svc)
{
	homes_add(svc, getenv("HOME"));
	passwd_home(svc, getuid());
}

/* Is root a home directory of the caller, or above one? */
static const char *home_under(const struct warden_sandbox *svc, const char *root)
{
	size_t n = strlen(root);

	for (size_t i = 0; i < svc->n_homes; i++)
		if (strncmp(svc->homes[i], root, n) == 0 &&
		    (svc->homes[i][n] == '\0' || svc->homes[i][n] == '/'))
			return svc->homes[i];
	return NULL;
}

int warden_sandbox_new(struct warden_loaded *backends, size_t n,
                       struct warden_sandbox **out, struct warden_error *err)
{
	struct warden_sandbox *svc = calloc(1, sizeof(*svc));

	if (svc == NULL || (svc->cache = calloc(n * 2 + 1, sizeof(*svc->cache))) == NULL ||
	    (svc->facts = calloc(n * 2 + 1, sizeof(*svc->facts))) == NULL) {
		if (svc != NULL)
			free(svc->cache);
		free(svc);
		return warden_error_set(err, WARDEN_EOS, "sandbox: out of memory");
	}
	svc->backends = backends;
	svc->n = n;
	homes_init(svc);
	*out = svc;
	return 0;
}

int warden_sandbox_open(const struct warden_config *cfg,
                        struct warden_sandbox **out, struct warden_error *err)
{
	struct warden_loaded *b;
	unsigned char *loaded;
	size_t i, n = cfg->n_backends;
	int rc;

	*out = NULL;
	b = calloc(n + 1, sizeof(*b));
	loaded = calloc(n + 1, 1);
	if (b == NULL || loaded == NULL) {
		free(b);
		free(loaded);
		return warden_error_set(err, WARDEN_EOS, "sandbox: out of memory");
	}
	/* Named now, loaded when first needed (backend_at()). */
	for (i = 0; i < n; i++)
		b[i].cfg = &cfg->backends[i];
	rc = warden_sandbox_new(b, n, out, err);
	if (rc < 0) {
		free(b);
		free(loaded);
		return rc;
	}
	(*out)->owned = 1;
	(*out)->cfg = cfg;
	(*out)->loaded = loaded;
	return 0;
}

/* Backend i, loaded and opened first when open() has not yet done it:
 * the loader runs at most once per backend, and its answer (a status
 * and a reason when it did not load) stays for the life of svc. */
static struct warden_loaded *backend_at(struct warden_sandbox *svc, size_t i)
{
	if (svc->loaded != NULL && !svc->loaded[i]) {
		warden_loader_load(svc->cfg, &svc->cfg->backends[i], 1,
		                   &svc->backends[i]);
		svc->loaded[i] = 1;
	}
	return &svc->backends[i];
}

void warden_sandbox_free(struct warden_sandbox *svc)
{
	size_t i;

	if (svc == NULL)
		return;
	if (svc->owned) {
		for (i = 0; i < svc->n; i++)
			if (svc->loaded[i])
				warden_loader_unload(&svc->backends[i]);
		free(svc->backends);
		free(svc->loaded);
	}
	free(svc->cache);
	free(svc->facts);
	free(svc);
}

size_t warden_sandbox_count(const struct warden_sandbox *svc)
{
	return svc->n;
}

const struct warden_loaded *warden_sandbox_backend(struct warden_sandbox *svc,
                                                   size_t i)
{
	return i < svc->n ? backend_at(svc, i) : NULL;
}

static const char *backend_name(const struct warden_loaded *b)
{
	if (b->cfg != NULL && b->cfg->name != NULL)
		return b->cfg->name;
	return b->desc.name != NULL ? b->desc.name : "?";
}

/* The loader's status words (DESIGN §6), for reasons. */
static const char *load_word(int status)
{
	switch (status) {
	case WARDEN_LOAD_MISSING:
		return "missing";
	case WARDEN_LOAD_MALFORMED:
		return "malformed";
	case WARDEN_LOAD_FAILED:
		return "failed";
	default:
		return "not loaded";
	}
}

static void unusable(struct warden_probe *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void unusable(struct warden_probe *p, const char *fmt, ...)
{
	va_list ap;

	p->usable = 0;
	p->enforcement = 0;
	p->privilege_dropped = 0;
	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
	va_end(ap);
}

static int has_facts(const struct warden_loaded *b)
{
	return b->status == WARDEN_LOAD_LOADED &&
	       WARDEN_PLUGIN_HAS(&b->desc, facts) && b->desc.facts != NULL;
}

/* Calls probe2 when the backend has it (v1.1), else probe, or with
 * use_facts its facts(); fills got (the answer in probe's terms) and
 * pc's network facts. */
static int call_probe(struct warden_loaded *b, int mode, struct warden_probe *got,
                      struct probe_cache *pc, int use_facts)
{
	struct warden_probe2 p2;
	int rc;

	memset(got, 0, sizeof(*got));
	if (b->desc.probe2 == NULL && !use_facts)
		return b->desc.probe(b->state, mode, got);
	memset(&p2, 0, sizeof(p2));
	p2.struct_size = sizeof(p2);
	rc = use_facts ? b->desc.facts(b->state, mode, &p2)
	               : b->desc.probe2(b->state, mode, &p2);
	got->usable = p2.usable;
	got->enforcement = p2.enforcement;
	got->privilege_dropped = p2.privilege_dropped;
	memcpy(got->detail, p2.detail, sizeof(got->detail));
	p2.network_detail[sizeof(p2.network_detail) - 1] = '\0';
	if (rc == 0 && p2.usable == 1 &&
	    (p2.network_enforcement == WARDEN_ENFORCEMENT_FULL ||
	     p2.network_enforcement == WARDEN_ENFORCEMENT_PARTIAL)) {
		pc->network_enforcement = p2.network_enforcement;
		snprintf(pc->network_detail, sizeof(pc->network_detail), "%s",
		         p2.network_detail);
	}
	pc->deny_read_held = rc == 0 && p2.usable == 1 && p2.deny_read_held == 1;
	return rc;
}

static void run_probe(struct warden_loaded *b, int mode, struct warden_probe *p,
                      struct probe_cache *pc, int use_facts)
{
	struct warden_probe got;
	int rc;

	if (b->status != WARDEN_LOAD_LOADED ||
	    (b->desc.probe == NULL && b->desc.probe2 == NULL) ||
	    b->desc.confine == NULL || b->state == NULL) {
		unusable(p, "%s: %s", load_word(b->status),
		         b->reason[0] ? b->reason : "not loaded");
		return;
	}
	rc = call_probe(b, mode, &got, pc, use_facts);
	got.detail[sizeof(got.detail) - 1] = '\0';
	if (rc != 0) {
		/* Fail closed: a probe that failed proves nothing. */
		unusable(p, "%s failed: %s", use_facts ? "facts" : "probe",
		         got.detail[0] ? got.detail : "no reason given");
		return;
	}
	if (got.usable != 1) {
		unusable(p, "%s", got.usable == 0 && got.detail[0]
		                 ? got.detail : "probe says unusable");
		return;
	}
	if (got.enforcement != WARDEN_ENFORCEMENT_FULL &&
	    got.enforcement != WARDEN_ENFORCEMENT_PARTIAL) {
		unusable(p, "probe broke the plugin contract: enforcement %d",
		         got.enforcement);
		return;
	}
	*p = got;
	p->privilege_dropped = got.privilege_dropped == 1;
	if (!p->privilege_dropped && p->enforcement == WARDEN_ENFORCEMENT_FULL) {
		p->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(p->detail, sizeof(p->detail),
		         "the command keeps its privileges%s%.200s",
		         got.detail[0] ? "; " : "", got.detail);
	}
	if (!p->privilege_dropped &&
	    pc->network_enforcement == WARDEN_ENFORCEMENT_FULL) {
		/* A privileged command can undo what keeps it off the net. */
		pc->network_enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(pc->network_detail, sizeof(pc->network_detail),
		         "the command keeps its privileges");
	}
}

void warden_sandbox_probe(struct warden_sandbox *svc, size_t i, int mode,
                          struct warden_probe *out)
{
	struct probe_cache *pc;

	if (i >= svc->n || (mode != WARDEN_MODE_READ_ONLY &&
	                    mode != WARDEN_MODE_WORKSPACE_WRITE)) {
		memset(out, 0, sizeof(*out));
		unusable(out, "no such backend or mode");
		return;
	}
	pc = &svc->cache[i * 2 + (size_t)(mode - 1)];
	if (!pc->done) {
		memset(pc, 0, sizeof(*pc));
		run_probe(backend_at(svc, i), mode, &pc->probe, pc, 0);
		if (!pc->probe.usable) {
			pc->network_enforcement = 0;
			pc->network_detail[0] = '\0';
		}
		pc->done = 1;
	}
	*out = pc->probe;
}

/* Backend i judged for mode by its facts() when it has the op and no run
 * disproved them (and no probe ran: a probe's answer is the better one),
 * else by its probe.  *by_facts says which. */
static void judge(struct warden_sandbox *svc, size_t i, int mode,
                  struct warden_probe *out, int *by_facts)
{
	size_t k = i * 2 + (size_t)(mode - 1);
	struct probe_cache *fc = &svc->facts[k];

	*by_facts = 0;
	if (fc->disproven || svc->cache[k].done || !has_facts(backend_at(svc, i))) {
		warden_sandbox_probe(svc, i, mode, out);
		return;
	}
	if (!fc->done) {
		memset(fc, 0, sizeof(*fc));
		run_probe(backend_at(svc, i), mode, &fc->probe, fc, 1);
		if (!fc->probe.usable) {
			fc->network_enforcement = 0;
			fc->network_detail[0] = '\0';
		}
		fc->done = 1;
	}
	if (!fc->probe.usable) {
		/* Facts never refuse for good: the probe decides. */
		warden_sandbox_probe(svc, i, mode, out);
		return;
	}
	*out = fc->probe;
	*by_facts = 1;
}

int warden_sandbox_disprove(struct warden_sandbox *svc, const char *backend,
                            int mode)
{
	struct probe_cache *fc;
	size_t i;

	if (mode != WARDEN_MODE_READ_ONLY && mode != WARDEN_MODE_WORKSPACE_WRITE)
		return -1;
	for (i = 0; i < svc->n; i++)
		if (strcmp(backend_name(&svc->backends[i]), backend) == 0)
			break;
	if (i == svc->n)
		return -1;
	fc = &svc->facts[i * 2 + (size_t)(mode - 1)];
	if (fc->disproven || !fc->done || !fc->probe.usable)
		return -1;
	fc->disproven = 1;
	return 0;
}

void warden_sandbox_judge_all(struct warden_sandbox *svc)
{
	struct warden_probe p;
	size_t i;
	int mode, by_facts;

	/* Every backend is loaded here, those without facts() too: a
	 * server's forks inherit them and never load one themselves. */
	for (i = 0; i < svc->n; i++) {
		if (!has_facts(backend_at(svc, i)))
			continue;
		for (mode = WARDEN_MODE_READ_ONLY; mode <= WARDEN_MODE_WORKSPACE_WRITE; mode++)
			judge(svc, i, mode, &p, &by_facts);
	}
}

int warden_sandbox_reprove(struct warden_sandbox *svc, const char *backend,
                           int mode)
{
	struct warden_probe p;
	size_t i;

	if (warden_sandbox_disprove(svc, backend, mode) < 0)
		return -1;
	for (i = 0; i < svc->n; i++)
		if (strcmp(backend_name(&svc->backends[i]), backend) == 0)
			warden_sandbox_probe(svc, i, mode, &p);
	return 0;
}

int warden_sandbox_probe_network(struct warden_sandbox *svc, size_t i, int mode,
                                  char *detail, size_t len)
{
	struct warden_probe ignored;
	const struct probe_cache *pc;

	if (len > 0)
		detail[0] = '\0';
	warden_sandbox_probe(svc, i, mode, &ignored);
	if (i >= svc->n || (mode != WARDEN_MODE_READ_ONLY &&
	                    mode != WARDEN_MODE_WORKSPACE_WRITE))
		return 0;
	pc = &svc->cache[i * 2 + (size_t)(mode - 1)];
	if (len > 0)
		snprintf(detail, len, "%s", pc->network_detail);
	return pc->network_enforcement;
}

int warden_sandbox_probe_deny_read(struct warden_sandbox *svc, size_t i, int mode)
{
	struct warden_probe p;

	warden_sandbox_probe(svc, i, mode, &p);
	if (!p.usable || i >= svc->n)
		return 0;
	return svc->cache[i * 2 + (size_t)(mode - 1)].deny_read_held;
}

void warden_policy_init(struct warden_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->struct_size = sizeof(*p);
	p->session_id = "";
	p->status_fd = -1;
	p->root_fd = -1;
	p->network = WARDEN_NETWORK_ENABLED;
	p->tmp_fd = -1;
	p->proxy_fd = -1;
}

static int path_under(const char *path, const char *root);

/* The writable roots beside the workspace root (root, resolved): each
 * absolute, resolved, a directory, still the one its descriptor holds,
 * of a known kind, neither "/" nor a home directory nor one holding it,
 * and apart from the workspace root and from each other. */
static int check_more_roots(const struct warden_sandbox *svc,
                            const struct warden_policy *policy,
                            const char *root, struct warden_error *err)
{
	char real[PATH_MAX];
	struct stat st, held;
	const char *p, *home;
	size_t i, j;

	if (!WARDEN_POLICY_HAS(policy, n_more_roots) || policy->n_more_roots == 0)
		return 0;
	if (policy->n_more_roots > MAX_ITEMS || policy->more_roots == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called with a broken list of writable roots");
	for (i = 0; i < policy->n_more_roots; i++) {
		p = policy->more_roots[i];
		if (p == NULL || p[0] != '/' || realpath(p, real) == NULL ||
		    strcmp(real, p) != 0 || stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			return warden_error_set(err, WARDEN_EDATA,
			                        "sandbox: writable root '%s' is not a resolved directory (it was moved or replaced since it was checked): nothing is confined",
			                        p != NULL ? p : "(null)");
		if (policy->more_root_fds != NULL && policy->more_root_fds[i] >= 0 &&
		    (fstat(policy->more_root_fds[i], &held) < 0 || !S_ISDIR(held.st_mode) ||
		     held.st_dev != st.st_dev || held.st_ino != st.st_ino))
			return warden_error_set(err, WARDEN_EDATA,
			                        "sandbox: writable root '%s' is no longer the directory that was checked (it was moved or replaced since): nothing is confined under it",
			                        p);
		if (policy->more_root_kinds != NULL &&
		    policy->more_root_kinds[i] != WARDEN_ROOT_PLAIN &&
		    policy->more_root_kinds[i] != WARDEN_ROOT_GIT_COMMON_DIR)
			return warden_error_set(err, WARDEN_EINTERNAL,
			                        "sandbox: writable root '%s' has unknown kind %d",
			                        p, policy->more_root_kinds[i]);
		if (strcmp(p, "/") == 0 || path_under(p, root) || path_under(root, p))
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "sandbox: writable root '%s' is /, or the workspace root %s lies inside it or it inside that root (name a directory beside the root)",
			                        p, root);
		if ((home = home_under(svc, p)) != NULL)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "sandbox: writable root '%s' %s the home directory %s: the command could plant start-up files (.bashrc, .ssh, .config) that run later outside the sandbox (name a directory inside it)",
			                        p, strcmp(home, p) == 0 ? "is" : "contains", home);
		for (j = 0; j < i; j++)
			if (path_under(p, policy->more_roots[j]) ||
			    path_under(policy->more_roots[j], p))
				return warden_error_set(err, WARDEN_EUSAGE,
				                        "sandbox: writable roots '%s' and '%s' overlap (keep one)",
				                        policy->more_roots[j], p);
	}
	return 0;
}

/* Checks the policy and resolves its root into `root`. */
static int check_request(const struct warden_sandbox *svc,
                         const char *const *argv, size_t argc,
                         const struct warden_policy *policy, char *root,
                         struct warden_error *err)
{
	struct stat st, held;
	const char *home;
	size_t i;

	if (policy == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called without a policy");
	if (policy->mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called with danger-full-access: that mode runs the command unconfined and is never confined (the caller must spawn it directly)");
	if (policy->mode != WARDEN_MODE_READ_ONLY &&
	    policy->mode != WARDEN_MODE_WORKSPACE_WRITE)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called with unknown mode %d",
		                        policy->mode);
	if (policy->network == WARDEN_NETWORK_ALLOWLIST &&
	    (policy->proxy_port <= 0 || policy->proxy_port > 65535 || policy->proxy_fd < 0))
		return warden_error_set(err, WARDEN_EUNAVAILABLE,
		                        "sandbox: the allowlist network needs warden's proxy, which this confinement has not (the command is not run with the network open)");
	if (policy->network != WARDEN_NETWORK_RESTRICTED &&
	    policy->network != WARDEN_NETWORK_ENABLED &&
	    policy->network != WARDEN_NETWORK_ALLOWLIST)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called with unknown network setting %d",
		                        policy->network);
	if (policy->n_allow_unix_sockets > MAX_ITEMS ||
	    (policy->n_allow_unix_sockets > 0 && policy->allow_unix_sockets == NULL))
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called with a broken allow_unix_sockets list");
	for (i = 0; i < policy->n_allow_unix_sockets; i++)
		if (policy->allow_unix_sockets[i] == NULL ||
		    policy->allow_unix_sockets[i][0] != '/')
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "sandbox: allow_unix_socket %zu is not an absolute path", i + 1);
	if (argv == NULL || argc == 0 || argv[0] == NULL || argv[0][0] == '\0')
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: empty command: give the program and its arguments");
	for (i = 0; i < argc; i++)
		if (argv[i] == NULL)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "sandbox: argument %zu is missing", i);
	if (policy->status_fd < -1 || (policy->status_fd >= 0 && policy->status_fd <= 2))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: status descriptor %d: must be -1 or above 2 (0-2 are the command's stdio)",
		                        policy->status_fd);
	if (policy->workspace_root == NULL || policy->workspace_root[0] == '\0')
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: no workspace root: set workspace_root in [warden] or pass --root");
	if (policy->workspace_root[0] != '/')
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: workspace root '%s' is relative: give an absolute path",
		                        policy->workspace_root);
	if (realpath(policy->workspace_root, root) == NULL)
		return warden_error_errno(err, WARDEN_EUSAGE, errno,
		                          "sandbox: workspace root '%s' does not resolve",
		                          policy->workspace_root);
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: workspace root '%s' is not a directory",
		                        policy->workspace_root);
	if (WARDEN_POLICY_HAS(policy, root_fd) && policy->root_fd >= 0 &&
	    (fstat(policy->root_fd, &held) < 0 || !S_ISDIR(held.st_mode) ||
	     held.st_dev != st.st_dev || held.st_ino != st.st_ino))
		return warden_error_set(err, WARDEN_EDATA,
		                        "sandbox: workspace root '%s' is no longer the directory that was checked (it was moved or replaced since): nothing is confined under it",
		                        policy->workspace_root);
	if (WARDEN_POLICY_HAS(policy, n_read_only_paths) &&
	    policy->n_read_only_paths > 0 && policy->read_only_paths == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: read-only paths promised but not given");
	for (i = 0; WARDEN_POLICY_HAS(policy, n_read_only_paths) &&
	            i < policy->n_read_only_paths; i++)
		if (policy->read_only_paths[i] == NULL ||
		    policy->read_only_paths[i][0] != '/')
			return warden_error_set(err, WARDEN_EINTERNAL,
			                        "sandbox: read-only path %zu is not absolute", i);
	if (WARDEN_POLICY_HAS(policy, cwd) &&
	    ((policy->tmp_dir != NULL && policy->tmp_dir[0] != '/') ||
	     (policy->tmp_hide != NULL && policy->tmp_hide[0] != '/') ||
	     (policy->cwd != NULL && policy->cwd[0] != '/')))
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: a temp area or working directory that is not absolute");
	if (WARDEN_POLICY_HAS(policy, void_dir) &&
	    (policy->n_deny_read > MAX_ITEMS ||
	     (policy->n_deny_read > 0 && policy->deny_read == NULL)))
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine called with a broken deny_read list");
	for (i = 0; WARDEN_POLICY_HAS(policy, void_dir) && i < policy->n_deny_read; i++)
		if (policy->deny_read[i] == NULL || policy->deny_read[i][0] != '/')
			return warden_error_set(err, WARDEN_EINTERNAL,
			                        "sandbox: deny_read path %zu is not absolute", i + 1);
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE && strcmp(root, "/") == 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: workspace root '%s' is '/': workspace-write would make every file writable (choose the project directory)",
		                        policy->workspace_root);
	if (policy->mode == WARDEN_MODE_WORKSPACE_WRITE && (home = home_under(svc, root)) != NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "sandbox: workspace root '%s' %s the home directory %s: workspace-write would let the command plant start-up files (.bashrc, .ssh, .config) that run later outside the sandbox (choose the project directory)",
		                        policy->workspace_root,
		                        strcmp(home, root) == 0 ? "is" : "contains", home);
	return check_more_roots(svc, policy, root, err);
}

/* Whether `path` is `root` or lies below it (both absolute, normalised). */
static int path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* What the backend said of policy->deny_read (v1.3): held, or the
 * confinement is partial and its detail names the first path left
 * readable (a 1.2 backend knows nothing of the list: not held). */
static int deny_read_facts(const struct warden_policy *policy,
                           const struct warden_confine_out *co,
                           struct warden_confined *c)
{
	size_t used;

	c->deny_read_held = 0;
	if (!WARDEN_POLICY_HAS(policy, n_deny_read) || policy->n_deny_read == 0)
		return 0;
	if (co->deny_read_held == 1) {
		c->deny_read_held = 1;
		return 0;
	}
	c->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
	if (strstr(c->detail, "deny_read") != NULL)
		return 0;
	used = strlen(c->detail);
	snprintf(c->detail + used, sizeof(c->detail) - used,
	         "%sdeny_read is not held: %.120s%s stays readable",
	         used > 0 ? "; " : "", policy->deny_read[0],
	         policy->n_deny_read > 1 ? " and the rest of the list" : "");
	return 0;
}

/*
 * The host's own check of the read-only paths (plugin.h): a backend that
 * did not say it held them (read_only_held) confines only when none lies
 * under a root it made writable, and no writable root lies under one.
 * 0, or -1 with the first such path named in why.
 */
static int unheld_path(const struct warden_policy *policy,
                       const struct warden_confined *c, char *why,
                       size_t whylen)
{
	const char *p;
	size_t i, j;

	for (i = 0; i < policy->n_read_only_paths; i++) {
		p = policy->read_only_paths[i];
		for (j = 0; j < c->n_writable_roots; j++) {
			if (path_under(p, c->writable_roots[j]) ||
			    path_under(c->writable_roots[j], p)) {
				snprintf(why, whylen,
				         "cannot keep %.150s read-only inside the writable root %.150s (it decides how a later command is confined; move it out of the root, or use a backend that holds read-only paths)",
				         p, c->writable_roots[j]);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * Every writable root beside the workspace root must be granted in
 * workspace-write: a backend that does not know them (plugin ABI below
 * 1.3) would leave them read-only while the caller counts on them.  0,
 * or -1 with the first root it left out named in why.
 */
static int ungranted_root(const struct warden_policy *policy,
                          const struct warden_confined *c, char *why,
                          size_t whylen)
{
	size_t i, j;

	if (policy->mode != WARDEN_MODE_WORKSPACE_WRITE ||
	    !WARDEN_POLICY_HAS(policy, n_more_roots))
		return 0;
	for (i = 0; i < policy->n_more_roots; i++) {
		for (j = 0; j < c->n_writable_roots; j++)
			if (strcmp(policy->more_roots[i], c->writable_roots[j]) == 0)
				break;
		if (j == c->n_writable_roots) {
			snprintf(why, whylen,
			         "does not make the writable root %.200s writable (writable roots beside the workspace root came with plugin ABI 1.3)",
			         policy->more_roots[i]);
			return -1;
		}
	}
	return 0;
}

/* The network facts of a confinement, from what the backend said: never
 * full when it said nothing (ABI 1.0) or the command keeps privileges.
 * -1 with why on a contract breach. */
static int network_facts(const struct warden_policy *policy,
                         const struct probe_cache *judged,
                         struct warden_confine_out *co,
                         struct warden_confined *c, char *why, size_t whylen)
{
	c->network = policy->network;
	if (policy->network == WARDEN_NETWORK_ENABLED) {
		/* Nothing to hold: the command has the host's network. */
		c->network_enforcement = WARDEN_ENFORCEMENT_FULL;
		return 0;
	}
	if (co->network_enforcement != 0 &&
	    co->network_enforcement != WARDEN_ENFORCEMENT_FULL &&
	    co->network_enforcement != WARDEN_ENFORCEMENT_PARTIAL) {
		snprintf(why, whylen, "confine broke the plugin contract: network enforcement %d",
		         co->network_enforcement);
		return -1;
	}
	co->network_detail[sizeof(co->network_detail) - 1] = '\0';
	c->network_enforcement = co->network_enforcement == WARDEN_ENFORCEMENT_FULL
		? WARDEN_ENFORCEMENT_FULL : WARDEN_ENFORCEMENT_PARTIAL;
	snprintf(c->network_detail, sizeof(c->network_detail), "%s",
	         co->network_enforcement != 0 ? co->network_detail
	         : "the backend does not say how it restricts the network (plugin ABI 1.0)");
	if (c->network_enforcement == WARDEN_ENFORCEMENT_FULL && judged != NULL &&
	    judged->network_enforcement == WARDEN_ENFORCEMENT_PARTIAL) {
		/* Never more than the probe (or the facts) promised. */
		c->network_enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(c->network_detail, sizeof(c->network_detail), "%s",
		         judged->network_detail);
	}
	if (c->network_enforcement == WARDEN_ENFORCEMENT_FULL && !c->privilege_dropped) {
		c->network_enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(c->network_detail, sizeof(c->network_detail),
		         "the command keeps its privileges");
	}
	return 0;
}

/* Runs backend b's confine(); on success fills *out.  On a contract
 * breach or a failure writes the reason to `why` and returns -1. */
static int try_backend(struct warden_loaded *b, const struct warden_probe *probe,
                       const struct probe_cache *judged,
                       const char *const *argv, size_t argc,
                       const struct warden_policy *policy, int flags,
                       struct warden_confined **out, char *why, size_t whylen)
{
	struct warden_confine_out co;
	struct warden_confined *c;
	struct warden_policy pol = *policy;
	struct sink sink;
	char perr[256];
	size_t i;
	int rc, ok, hosted;

	/* The backend may act for a launcher of its own only when this
	 * caller spawns and reaps the process and the backend can be told
	 * afterwards (plugin.h, spawn_env). */
	hosted = pol.spawn_env != NULL && (flags & WARDEN_CONFINE_PASS_FDS) &&
	         WARDEN_PLUGIN_HAS(&b->desc, finish) && b->desc.finish != NULL;
	if (!hosted)
		pol.spawn_env = NULL;
	memset(&sink, 0, sizeof(sink));
	sink.pass_fds = (flags & WARDEN_CONFINE_PASS_FDS) != 0;
	sink.status_fd = pol.status_fd;
	sink.status_copy_at = -1;
	memset(&co, 0, sizeof(co));
	co.struct_size = sizeof(co);
	co.sink = &sink;
	co.push_arg = sink_push_arg;
	co.push_writable_root = sink_push_root;
	co.push_fd = sink_push_fd;
	co.push_env = hosted ? sink_push_env : NULL;
	co.push_held = sink_push_held;
	co.push_status_copy = sink_push_status_copy;
	perr[0] = '\0';
	rc = b->desc.confine(b->state, argv, argc, &pol, &co, perr, sizeof(perr));
	policy = &pol;
	perr[sizeof(perr) - 1] = '\0';
	co.detail[sizeof(co.detail) - 1] = '\0';

	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		if (rc == 0 && hosted)
			b->desc.finish(b->state, co.run, 1);
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	if (rc != 0) {
		snprintf(why, whylen, "confine failed: %s", perr[0] ? perr : "no reason given");
		goto fail;
	}
	if (hosted) {
		/* From here on every way out tells the backend (free). */
		c->finish = b->desc.finish;
		c->finish_state = b->state;
		c->run = co.run;
		c->spawn_flags = co.spawn_flags;
		if (co.spawn_flags & ~WARDEN_SPAWN_FLAGS_KNOWN) {
			snprintf(why, whylen,
			         "confine asked for spawn flags 0x%x this host does not know: refused",
			         (unsigned)co.spawn_flags);
			goto fail;
		}
		if (co.env_set) {
			c->envp = strvec_finish(&sink.env);
			if (c->envp == NULL) {
				snprintf(why, whylen, "confine: out of memory or too many variables");
				goto fail;
			}
			for (i = 0; c->envp[i] != NULL; i++) {
				const char *eq = strchr(c->envp[i], '=');

				if (eq == NULL || eq == c->envp[i]) {
					snprintf(why, whylen,
					         "confine broke the plugin contract: environment entry '%.100s' is not NAME=VALUE",
					         c->envp[i]);
					goto fail;
				}
			}
		}
	} else if (co.env_set || co.spawn_flags != 0 || co.run != NULL) {
		snprintf(why, whylen,
		         "confine broke the plugin contract: an environment, spawn flags or run state without spawn_env");
		goto fail;
	}
	c->argc = sink.argv.n;
	c->n_writable_roots = sink.roots.n;
	c->argv = strvec_finish(&sink.argv);
	c->writable_roots = strvec_finish(&sink.roots);
	c->n_held_paths = sink.held.n;
	c->held_paths = strvec_finish(&sink.held);
	if (c->argv == NULL || c->writable_roots == NULL || c->held_paths == NULL) {
		snprintf(why, whylen, "confine: out of memory or too many arguments");
		goto fail;
	}
	if (c->argc <= argc || c->argv[0][0] != '/') {
		/* The runner is named by absolute path: never a PATH lookup. */
		snprintf(why, whylen,
		         "confine broke the plugin contract: the runner must be an absolute path before the command");
		goto fail;
	}
	for (i = 0; i < argc; i++) {
		if (strcmp(c->argv[c->argc - argc + i], argv[i]) != 0) {
			/* The command ends the replacement, byte for byte. */
			snprintf(why, whylen,
			         "confine broke the plugin contract: the command's argv must end the replacement unchanged");
			goto fail;
		}
	}
	if (co.enforcement != WARDEN_ENFORCEMENT_FULL &&
	    co.enforcement != WARDEN_ENFORCEMENT_PARTIAL) {
		snprintf(why, whylen, "confine broke the plugin contract: enforcement %d",
		         co.enforcement);
		goto fail;
	}
	if (co.evidence != WARDEN_EVIDENCE_NONE &&
	    co.evidence != WARDEN_EVIDENCE_BWRAP_JSON &&
	    co.evidence != WARDEN_EVIDENCE_EXEC_PIPE) {
		snprintf(why, whylen, "confine broke the plugin contract: evidence %d",
		         co.evidence);
		goto fail;
	}
	if (co.evidence != WARDEN_EVIDENCE_NONE && policy->status_fd < 0) {
		snprintf(why, whylen,
		         "confine broke the plugin contract: evidence without a status descriptor");
		goto fail;
	}
	if (co.tmp_held != 0 && co.tmp_held != 1) {
		snprintf(why, whylen, "confine broke the plugin contract: tmp_held %d",
		         co.tmp_held);
		goto fail;
	}
	/* Held only when there was one to hold. */
	c->tmp_held = co.tmp_held == 1 && policy->tmp_dir != NULL;
	c->backend = strdup(backend_name(b));
	c->mode = policy->mode;
	c->evidence = co.evidence;
	c->status_fd = co.evidence != WARDEN_EVIDENCE_NONE ? policy->status_fd : -1;
	/* Never more than the probe promised, never full with privilege. */
	c->privilege_dropped = co.privilege_dropped == 1 && probe->privilege_dropped;
	c->enforcement = co.enforcement;
	snprintf(c->detail, sizeof(c->detail), "%s", co.detail);
	co.denial_message[sizeof(co.denial_message) - 1] = '\0';
	snprintf(c->denial_message, sizeof(c->denial_message), "%s",
	         co.denial_message);
	if (probe->enforcement == WARDEN_ENFORCEMENT_PARTIAL &&
	    c->enforcement == WARDEN_ENFORCEMENT_FULL) {
		c->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(c->detail, sizeof(c->detail), "%s", probe->detail);
	}
	if (!c->privilege_dropped && c->enforcement == WARDEN_ENFORCEMENT_FULL) {
		c->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		snprintf(c->detail, sizeof(c->detail), "the command keeps its privileges");
	}
	if (co.deny_read_held != 0 && co.deny_read_held != 1) {
		snprintf(why, whylen, "confine broke the plugin contract: deny_read_held %d",
		         co.deny_read_held);
		goto fail;
	}
	if (deny_read_facts(policy, &co, c) < 0) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	if (b->desc.n_denial_signatures > MAX_ITEMS ||
	    (b->desc.n_denial_signatures > 0 && b->desc.denial_signatures == NULL)) {
		snprintf(why, whylen, "broken denial signature table");
		goto fail;
	}
	c->denial_signatures = strv_copy(b->desc.denial_signatures,
	                                 b->desc.n_denial_signatures, &ok);
	c->n_denial_signatures = ok ? b->desc.n_denial_signatures : 0;
	if (!ok || c->backend == NULL || rules_copy(&b->desc, c) < 0) {
		snprintf(why, whylen, "broken signature or rule table, or out of memory");
		goto fail;
	}
	if (network_facts(policy, judged, &co, c, why, whylen) < 0)
		goto fail;
	if (c->writable_roots == NULL) {
		c->writable_roots = calloc(1, sizeof(char *));
		if (c->writable_roots == NULL) {
			snprintf(why, whylen, "out of memory");
			goto fail;
		}
	}
	if (co.read_only_held != 1 &&
	    unheld_path(policy, c, why, whylen) != 0)
		goto fail;
	if (ungranted_root(policy, c, why, whylen) != 0)
		goto fail;
	memcpy(c->held_fds, sink.fds, sink.n_fds * sizeof(*sink.fds));
	memcpy(c->held_at, sink.at, sink.n_fds * sizeof(*sink.at));
	c->n_held = sink.n_fds;
	c->status_copy_at = c->status_fd >= 0 ? sink.status_copy_at : -1;
	sink.n_fds = 0;
	strvec_discard(&sink.env);
	*out = c;
	return 0;
fail:
	strvec_discard(&sink.argv);
	strvec_discard(&sink.roots);
	strvec_discard(&sink.env);
	strvec_discard(&sink.held);
	sink_close_fds(&sink);
	warden_confined_free(c);
	return -1;
}

static int confine(struct warden_sandbox *svc, const char *only,
                   const char *const *argv, size_t argc,
                   const struct warden_policy *policy, int flags,
                   struct warden_confined **out, struct warden_error *err)
{
	char root[PATH_MAX], why[512], reasons[WARDEN_ERROR_MAX];
	struct warden_policy pol;
	struct warden_probe probe;
	struct warden_skipped *skipped = NULL;
	size_t i, used = 0, tried = 0, n_skipped = 0;
	int rc, any_usable = 0, require_full = (flags & WARDEN_CONFINE_REQUIRE_FULL) != 0;
	int by_facts = 0;

	*out = NULL;
	rc = check_request(svc, argv, argc, policy, root, err);
	if (rc < 0)
		return rc;
	pol = *policy;
	pol.struct_size = sizeof(pol);
	pol.workspace_root = root;
	if (pol.session_id == NULL)
		pol.session_id = "";

	if (only != NULL) {
		for (i = 0; i < svc->n; i++)
			if (strcmp(backend_name(&svc->backends[i]), only) == 0)
				break;
		if (i == svc->n)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "sandbox: no backend named '%s' is configured (see warden plugins)",
			                        only);
	}
	reasons[0] = '\0';
	for (i = 0; i < svc->n; i++) {
		struct warden_loaded *b = &svc->backends[i];
		const char *name = backend_name(b);
		int required = b->cfg != NULL && b->cfg->required;

		if (only != NULL && strcmp(name, only) != 0)
			continue;
		/* Loaded only now: a backend the loop never reaches is never
		 * loaded (its name comes from the config). */
		b = backend_at(svc, i);
		name = backend_name(b);
		tried++;
		if (flags & WARDEN_CONFINE_FACTS)
			judge(svc, i, pol.mode, &probe, &by_facts);
		else
			warden_sandbox_probe(svc, i, pol.mode, &probe);
		if (!probe.usable) {
			snprintf(why, sizeof(why), "%s", probe.detail);
		} else {
			any_usable = 1;
			if (require_full && probe.enforcement != WARDEN_ENFORCEMENT_FULL) {
				snprintf(why, sizeof(why), "partial (%s), and require_full is set",
				         probe.detail[0] ? probe.detail : "no detail");
			} else if (try_backend(b, &probe,
			                       (by_facts ? svc->facts : svc->cache) +
			                       i * 2 + (size_t)(pol.mode - 1),
			                       argv, argc, &pol, flags, out,
			                       why, sizeof(why)) == 0) {
				if (!require_full ||
				    ((*out)->enforcement == WARDEN_ENFORCEMENT_FULL &&
				     (*out)->network_enforcement == WARDEN_ENFORCEMENT_FULL)) {
					(*out)->skipped = skipped;
					(*out)->n_skipped = n_skipped;
					(*out)->proven_by_facts = by_facts;
					return 0;
				}
				if ((*out)->enforcement != WARDEN_ENFORCEMENT_FULL)
					snprintf(why, sizeof(why), "partial (%s), and require_full is set",
					         (*out)->detail[0] ? (*out)->detail : "no detail");
				else
					snprintf(why, sizeof(why), "network partial (%s), and require_full is set",
					         (*out)->network_detail[0] ? (*out)->network_detail : "no detail");
				warden_confined_free(*out);
				*out = NULL;
			}
		}
		if (skip(&skipped, &n_skipped, name, why, reasons, &used,
		         sizeof(reasons)) < 0) {
			warden_skipped_free(skipped, n_skipped);
			return warden_error_set(err, WARDEN_EOS, "sandbox: out of memory");
		}
		if (required) {
			/* Its failure is the answer: no fallback to a backend
			 * without the protection it adds. */
			warden_skipped_free(skipped, n_skipped);
			return warden_error_set(err, WARDEN_EUNAVAILABLE,
			                        WARDEN_SANDBOX_UNAVAILABLE ": backend %s is required (required = yes) and cannot confine %s (%s)",
			                        name, warden_mode_name(pol.mode), reasons);
		}
	}
	warden_skipped_free(skipped, n_skipped);
	if (tried == 0)
		return warden_error_set(err, WARDEN_EUNAVAILABLE,
		                        WARDEN_SANDBOX_UNAVAILABLE ": no sandbox backend is configured (add a [backend NAME] section)");
	if (require_full && any_usable)
		return warden_error_set(err, WARDEN_EREFUSED,
		                        "refused: require_full is set and no backend enforces %s fully (%s)",
		                        warden_mode_name(pol.mode), reasons);
	return warden_error_set(err, WARDEN_EUNAVAILABLE,
	                        WARDEN_SANDBOX_UNAVAILABLE ": no backend can enforce %s (%s)",
	                        warden_mode_name(pol.mode), reasons);
}

int warden_sandbox_confine(struct warden_sandbox *svc,
                           const char *const *argv, size_t argc,
                           const struct warden_policy *policy,
                           struct warden_confined **out,
                           struct warden_error *err)
{
	return confine(svc, NULL, argv, argc, policy, 0, out, err);
}

int warden_sandbox_confine_flags(struct warden_sandbox *svc,
                                 const char *const *argv, size_t argc,
                                 const struct warden_policy *policy, int flags,
                                 struct warden_confined **out,
                                 struct warden_error *err)
{
	return confine(svc, NULL, argv, argc, policy, flags, out, err);
}

int warden_sandbox_confine_with(struct warden_sandbox *svc, const char *backend,
                                const char *const *argv, size_t argc,
                                const struct warden_policy *policy,
                                struct warden_confined **out,
                                struct warden_error *err)
{
	if (backend == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "sandbox: confine_with called without a backend name");
	return confine(svc, backend, argv, argc, policy, 0, out, err);
}
