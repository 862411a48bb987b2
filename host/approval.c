/*
 * approval.c — the waterfall of answerers and its audit (approval.h).
 *
 * One request: check it, resolve the policy, append approval/asked, then
 * (policy ask) consult the chain link by link until one decides, fails or
 * the request is withdrawn, then append approval/decided.  Every path
 * that is not a decision of an answerer ends in a fixed outcome with a
 * reason: the service never guesses and never falls through an error.
 *
 * Waiting.  Each consultation is a wait on one descriptor (a worker's
 * socket, or the pipe an inproc call's thread writes when it returns),
 * next to the self-pipe that the SIGINT/SIGTERM handlers write to, under
 * the answerer's timeout and the caller's deadline.  An inproc call that
 * is given up keeps running on its thread; its answer is dropped when it
 * comes, and its instance is marked busy (unavailable) until then, since
 * a plugin is never called twice at once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "loader.h"
#include "program.h"
#include "random.h"
#include "session.h"
#include "text.h"
#include "worker.h"

/* The longest request field accepted (the subject, usually). */
#define FIELD_MAX (64 * 1024)
/* How long after its timeout_ms an answerer is given up.  The value is
 * also the answerer's own (open args): one that applies its own outcome at
 * that deadline (tty's on_timeout, exec's kill) must get to answer first,
 * and its clock starts after the host's (worker start, the request). */
#define TIMEOUT_GRACE_MS 500
#define NAME_MAX_ 127

enum link_kind { LINK_PLUGIN = 1, LINK_CALLBACK = 2 };

struct link {
	char name[NAME_MAX_ + 1];
	int kind;
	long timeout_ms;
	/* LINK_PLUGIN */
	const struct warden_config_plugin *pl;
	int isolation;
	struct warden_worker *worker;   /* process isolation */
	int load_tried;                 /* inproc: loaded lazily, once */
	struct warden_loaded *lp;
	/* LINK_CALLBACK */
	warden_approval_decide_fn fn;
	void *ud;
	/* 1 while an abandoned inproc call is still running in it. */
	atomic_int busy;
	struct link *next_kept;         /* on `kept`, once the service is gone */
};

/* Links freed while a thread still runs in them: kept, never freed, and
 * reachable from here (they are not leaks: their plugin is still in use). */
static struct link *kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

struct warden_approval {
	const struct warden_config *cfg;
	struct link **links;
	size_t n;
};

/* ------------------------------------------------------------- helpers */

/* snprintf for one-line reasons, where truncation is fine. */
static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;
	size_t i;

	if (j != NULL)
		return j;
	copy = strdup(s);
	if (copy == NULL)
		return NULL;
	for (i = 0; copy[i]; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static const char *opt(const char *s)
{
	return s != NULL ? s : "";
}

/* Text that came from an answerer as one escaped line of at most max
 * bytes (max < outlen, max >= 4); a cut is marked "...".  Control and
 * text-moving characters are escaped; a backslash stays one (a rule's
 * pattern may hold one), and is escaped where the line is shown. */
static void answerer_text(const char *raw, size_t max, char *out, size_t outlen)
{
	if (warden_text_escape(raw, WARDEN_TEXT_KEEP_BACKSLASH, out, max - 2) >= max - 2)
		snprintf(out + strlen(out), outlen - strlen(out), "...");
}

static int valid_name(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0' || strlen(s) > NAME_MAX_)
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

static struct link *link_new(const char *name)
{
	struct link *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	snprintf(l->name, sizeof(l->name), "%s", name);
	atomic_init(&l->busy, 0);
	return l;
}

static void link_free(struct link *l)
{
	if (l == NULL)
		return;
	if (atomic_load(&l->busy)) {
		/* A thread still runs inside it: leave it be. */
		pthread_mutex_lock(&kept_lock);
		l->next_kept = kept;
		kept = l;
		pthread_mutex_unlock(&kept_lock);
		return;
	}
	if (l->lp != NULL) {
		warden_loader_unload(l->lp);
		free(l->lp);
	}
	warden_worker_free(l->worker);
	free(l);
}

/* ------------------------------------------------------------- service */

static warden_approval_client_fn client_fn;
static void *client_ud;

void warden_approval_set_client(warden_approval_client_fn fn, void *ud)
{
	client_fn = fn;
	client_ud = ud;
}

/* The `client` answerer's decide(): ud is its link. */
static int client_decide(void *ud, const struct warden_request *req,
                         char *err, size_t errlen)
{
	const struct link *l = ud;

	if (client_fn == NULL) {
		snprintf(err, errlen, "no client is connected (warden serve or "
		         "warden mcp connects one)");
		return WARDEN_DECISION_DELEGATE;
	}
	return client_fn(client_ud, req, l->timeout_ms, err, errlen);
}

int warden_approval_new(const struct warden_config *cfg,
                        struct warden_approval **out,
                        struct warden_error *err)
{
	struct warden_approval *a;
	const struct warden_config_plugin *pl;
	struct link *l;
	size_t i;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (a == NULL || (cfg->n_answerers > 0 &&
	    (a->links = calloc(cfg->n_answerers, sizeof(*a->links))) == NULL)) {
		free(a);
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	}
	a->cfg = cfg;
	for (i = 0; i < cfg->n_answerers; i++) {
		pl = &cfg->answerers[i];
		l = link_new(pl->name);
		if (l != NULL && strcmp(pl->plugin, WARDEN_APPROVAL_CLIENT) == 0) {
			/* Built in, in this process: the connected client. */
			l->kind = LINK_CALLBACK;
			l->fn = client_decide;
			l->ud = l;
			l->isolation = WARDEN_ISOLATION_INPROC;
			l->timeout_ms = pl->timeout_ms;
			a->links[a->n++] = l;
			continue;
		}
		if (l == NULL ||
		    (pl->isolation == WARDEN_ISOLATION_PROCESS &&
		     warden_worker_new(cfg, pl, &l->worker) < 0)) {
			free(l);
			warden_approval_free(a);
			return warden_error_set(err, WARDEN_EOS,
			                        "approval: out of memory");
		}
		l->kind = LINK_PLUGIN;
		l->pl = pl;
		l->isolation = pl->isolation;
		l->timeout_ms = pl->timeout_ms;
		a->links[a->n++] = l;
	}
	*out = a;
	return 0;
}

void warden_approval_free(struct warden_approval *a)
{
	size_t i;

	if (a == NULL)
		return;
	/* A busy link stays allocated (and its plugin loaded) for the thread
	 * that still runs in it; the thread refers to nothing else here. */
	for (i = 0; i < a->n; i++)
		link_free(a->links[i]);
	free(a->links);
	free(a);
}

int warden_approval_register(struct warden_approval *a,
                             enum warden_approval_where where,
                             const char *name, warden_approval_decide_fn fn,
                             void *ud, long timeout_ms,
                             struct warden_error *err)
{
	struct link **grown, *l;
	size_t i;

	if (!valid_name(name))
		return warden_error_set(err, WARDEN_EUSAGE, "approval: register: "
		                        "bad answerer name (allowed: 1 to %d of "
		                        "a-z 0-9 _ -)", NAME_MAX_);
	if (fn == NULL || timeout_ms < 0 ||
	    (where != WARDEN_APPROVAL_PREPEND && where != WARDEN_APPROVAL_APPEND))
		return warden_error_set(err, WARDEN_EUSAGE, "approval: register "
		                        "%s: needs a decide function, a timeout "
		                        ">= 0 and prepend or append", name);
	for (i = 0; i < a->n; i++)
		if (strcmp(a->links[i]->name, name) == 0)
			return warden_error_set(err, WARDEN_EUSAGE, "approval: "
			                        "register %s: an answerer of that "
			                        "name is already in the chain", name);
	l = link_new(name);
	grown = l != NULL ? realloc(a->links, (a->n + 1) * sizeof(*grown)) : NULL;
	if (grown == NULL) {
		free(l);
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	}
	a->links = grown;
	l->kind = LINK_CALLBACK;
	l->fn = fn;
	l->ud = ud;
	l->timeout_ms = timeout_ms;
	l->isolation = WARDEN_ISOLATION_INPROC;
	if (where == WARDEN_APPROVAL_PREPEND) {
		memmove(a->links + 1, a->links, a->n * sizeof(*a->links));
		a->links[0] = l;
	} else {
		a->links[a->n] = l;
	}
	a->n++;
	return 0;
}

/* ------------------------------------------------------ inproc calls */

enum { CALL_RUNNING = 0, CALL_DONE, CALL_ABANDONED };

struct call {
	atomic_int state;
	atomic_int *busy;
	warden_approval_decide_fn decide;
	void *ud;
	int pipe[2];
	int decision;
	char err[512];
	struct warden_request_copy copy;
};

static void call_free(struct call *c)
{
	warden_request_copy_free(&c->copy);
	close(c->pipe[0]);
	close(c->pipe[1]);
	free(c);
}

/* An in-process answerer that calls exit() while it decides would end the
 * host with a status of its choosing (0 from `warden approve` reads as
 * allowed-once).  exit() runs the host's exit handlers on the thread
 * that called it: while an answerer's thread lives, an exit from any
 * thread but the main one becomes an internal error, nothing decided.
 * (_exit() and a signal are past any handler; process isolation holds
 * against those.) */
static atomic_int answerer_threads;
static pthread_once_t exit_guard_once = PTHREAD_ONCE_INIT;

static void exit_while_deciding(void)
{
	static const char msg[] = "warden: an in-process answerer ended the process "
	                          "while it decided: nothing was decided\n";

	if (atomic_load(&answerer_threads) > 0 && (pid_t)syscall(SYS_gettid) != getpid()) {
		(void)!write(2, msg, sizeof(msg) - 1);
		_exit(WARDEN_EINTERNAL);
	}
}

static void exit_guard_install(void)
{
	(void)atexit(exit_while_deciding);
}

static void *call_run(void *arg)
{
	struct call *c = arg;
	int expected = CALL_RUNNING;

	c->decision = c->decide(c->ud, &c->copy.req, c->err, sizeof(c->err));
	c->err[sizeof(c->err) - 1] = '\0';
	if (atomic_compare_exchange_strong(&c->state, &expected, CALL_DONE)) {
		while (write(c->pipe[1], "x", 1) < 0 && errno == EINTR)
			;
	} else {
		/* Given up by the host: drop the answer, free the instance. */
		atomic_store(c->busy, 0);
		call_free(c);
	}
	atomic_fetch_sub(&answerer_threads, 1);
	return NULL;
}

/*
 * Runs fn on a helper thread (all signals blocked there: they belong to
 * the waiting host) and waits for it under w.  Returns a wait result;
 * with WARDEN_WAIT_READY *decision and err are the call's.
 */
static int inproc_call(struct link *l, warden_approval_decide_fn fn, void *ud,
                       const struct warden_request *req,
                       const struct warden_wait *w, int *decision,
                       char *err, size_t errlen)
{
	struct call *c;
	pthread_attr_t attr;
	pthread_t tid;
	sigset_t all, old;
	int r, expected = CALL_RUNNING;
	char byte;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return WARDEN_WAIT_ERROR;
	c->pipe[0] = c->pipe[1] = -1;
	atomic_init(&c->state, CALL_RUNNING);
	c->busy = &l->busy;
	c->decide = fn;
	c->ud = ud;
	if (warden_request_copy(&c->copy, req) < 0 || pipe2(c->pipe, O_CLOEXEC) < 0) {
		call_free(c);
		return WARDEN_WAIT_ERROR;
	}
	atomic_store(&l->busy, 1);
	pthread_once(&exit_guard_once, exit_guard_install);
	atomic_fetch_add(&answerer_threads, 1);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&tid, &attr, call_run, c);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		atomic_fetch_sub(&answerer_threads, 1);
		atomic_store(&l->busy, 0);
		call_free(c);
		return WARDEN_WAIT_ERROR;
	}

	r = warden_wait_fd(c->pipe[0], POLLIN, w);
	if (r != WARDEN_WAIT_READY &&
	    atomic_compare_exchange_strong(&c->state, &expected, CALL_ABANDONED))
		return r; /* the thread frees c and clears busy when it returns */
	/* Done (maybe just now): its byte is on its way. */
	while (read(c->pipe[0], &byte, 1) < 0 && errno == EINTR)
		;
	*decision = c->decision;
	snprintf(err, errlen, "%s", c->err);
	if (req->grant_choice != NULL)
		*req->grant_choice = c->copy.choice;
	call_free(c);
	atomic_store(&l->busy, 0);
	return r;
}

/* ------------------------------------------------------- consultation */

enum consult_result {
	CONSULT_DECIDED = 0,    /* *decision is allowed-once/rejected/cancelled */
	CONSULT_DELEGATE,
	CONSULT_UNAVAILABLE,    /* reason says why */
	CONSULT_SIGNAL,         /* withdrawn by a signal */
	CONSULT_DEADLINE,       /* withdrawn at the caller's deadline */
};

static void load_inproc(struct warden_approval *a, struct link *l)
{
	if (l->load_tried)
		return;
	l->load_tried = 1;
	l->lp = calloc(1, sizeof(*l->lp));
	if (l->lp != NULL)
		warden_loader_load(a->cfg, l->pl, 1, l->lp);
}

static int consult(struct warden_approval *a, struct link *l,
                   const struct warden_request *req, long long deadline_at,
                   int cancel_fd, int *decision, char *reason, size_t len)
{
	struct warden_wait w;
	char err[512], shown[WARDEN_APPROVAL_REASON_MAX + 1];
	int r, d = 0;

	w.cancel_fd = cancel_fd;
	w.deadline_at = deadline_at;
	w.timeout_at = l->timeout_ms > 0
	             ? warden_now_ms() + l->timeout_ms + TIMEOUT_GRACE_MS : 0;
	err[0] = '\0';

	if (l->kind == LINK_PLUGIN && l->isolation == WARDEN_ISOLATION_PROCESS) {
		r = warden_worker_decide(l->worker, req, &w, &d, err, sizeof(err));
		switch (r) {
		case WARDEN_WORKER_ANSWERED: break;
		case WARDEN_WORKER_SIGNAL: return CONSULT_SIGNAL;
		case WARDEN_WORKER_DEADLINE: return CONSULT_DEADLINE;
		case WARDEN_WORKER_TIMEOUT:
			say(reason, len, "timed out after %ld ms (worker killed)",
			    l->timeout_ms);
			return CONSULT_UNAVAILABLE;
		default:
			/* The worker's own words, or the plugin's at load. */
			answerer_text(err, len - 1, reason, len);
			return CONSULT_UNAVAILABLE;
		}
	} else {
		if (atomic_load(&l->busy)) {
			say(reason, len, "still busy with a request that was "
			    "given up");
			return CONSULT_UNAVAILABLE;
		}
		if (l->kind == LINK_PLUGIN) {
			load_inproc(a, l);
			if (l->lp == NULL || l->lp->status != WARDEN_LOAD_LOADED) {
				say(reason, len, "plugin %s: %s",
				         l->lp == NULL ? "not loaded"
				         : warden_load_status_name(l->lp->status),
				         l->lp == NULL ? "out of memory" : l->lp->reason);
				return CONSULT_UNAVAILABLE;
			}
			r = inproc_call(l, l->lp->desc.decide, l->lp->state, req,
			                &w, &d, err, sizeof(err));
		} else {
			r = inproc_call(l, l->fn, l->ud, req, &w, &d, err,
			                sizeof(err));
		}
		switch (r) {
		case WARDEN_WAIT_READY: break;
		case WARDEN_WAIT_SIGNAL: return CONSULT_SIGNAL;
		case WARDEN_WAIT_DEADLINE: return CONSULT_DEADLINE;
		case WARDEN_WAIT_TIMEOUT:
			say(reason, len, "timed out after %ld ms (its answer "
			    "will be discarded)", l->timeout_ms);
			return CONSULT_UNAVAILABLE;
		default:
			say(reason, len, "cannot call it: %s", strerror(errno));
			return CONSULT_UNAVAILABLE;
		}
	}

	if (d == WARDEN_DECISION_ALLOWED_FOR_SESSION) {
		/* A plugin built before 1.4 cannot mean it (a worker turned
		 * it into an error already); nor can any answerer when no
		 * scope was offered, or name a scope that was not. */
		if (l->kind == LINK_PLUGIN && l->isolation != WARDEN_ISOLATION_PROCESS &&
		    l->lp->desc.abi_minor < 4) {
			say(reason, len, "returned 5, which ABI 1.%u (the plugin's) "
			    "does not define: allowed-for-session is ABI 1.4's",
			    l->lp->desc.abi_minor);
			return CONSULT_UNAVAILABLE;
		}
		if (req->n_grant_scopes == 0) {
			say(reason, len, "answered allowed-for-session, but no grant "
			    "was offered");
			return CONSULT_UNAVAILABLE;
		}
		if (*req->grant_choice >= req->n_grant_scopes) {
			say(reason, len, "answered allowed-for-session with scope %zu, "
			    "but only %zu were offered", *req->grant_choice,
			    req->n_grant_scopes);
			return CONSULT_UNAVAILABLE;
		}
		answerer_text(err, WARDEN_APPROVAL_REASON_MAX, reason, len);
		*decision = d;
		return CONSULT_DECIDED;
	}
	switch (d) {
	case WARDEN_DECISION_ALLOWED_ONCE:
	case WARDEN_DECISION_REJECTED:
	case WARDEN_DECISION_CANCELLED:
		/* Its own reason, if it gave one (ABI 1.1). */
		answerer_text(err, WARDEN_APPROVAL_REASON_MAX, reason, len);
		*decision = d;
		return CONSULT_DECIDED;
	case WARDEN_DECISION_DELEGATE:
		/* Why it could not answer, if it said (ABI 1.1). */
		answerer_text(err, WARDEN_APPROVAL_REASON_MAX, reason, len);
		return CONSULT_DELEGATE;
	case WARDEN_DECISION_ERROR:
		answerer_text(err[0] ? err : "no reason given",
		              WARDEN_APPROVAL_REASON_MAX, shown, sizeof(shown));
		say(reason, len, "failed: %s", shown);
		return CONSULT_UNAVAILABLE;
	default:
		say(reason, len, "returned %d, outside the closed set of "
		    "decisions", d);
		return CONSULT_UNAVAILABLE;
	}
}

/* --------------------------------------------------------- withdrawal */

static volatile sig_atomic_t withdraw_fd = -1;

static void on_withdraw(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	if (withdraw_fd >= 0)
		(void)!write(withdraw_fd, &c, 1);
	errno = saved;
}

struct withdrawal {
	int pipe[2];
	struct sigaction old_int, old_term;
	sigset_t old_mask;
};

static int withdrawal_arm(struct withdrawal *wd)
{
	struct sigaction sa;

	if (pipe2(wd->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	withdraw_fd = wd->pipe[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_withdraw;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &wd->old_int);
	sigaction(SIGTERM, &sa, &wd->old_term);
	/* A caller that blocks them still gets withdrawn. */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &sa.sa_mask, &wd->old_mask);
	return 0;
}

/* Restores the handlers; returns the first withdrawal signal, or 0. */
static int withdrawal_disarm(struct withdrawal *wd)
{
	unsigned char c = 0;

	pthread_sigmask(SIG_SETMASK, &wd->old_mask, NULL);
	sigaction(SIGINT, &wd->old_int, NULL);
	sigaction(SIGTERM, &wd->old_term, NULL);
	withdraw_fd = -1;
	if (read(wd->pipe[0], &c, 1) != 1)
		c = 0;
	close(wd->pipe[0]);
	close(wd->pipe[1]);
	return c;
}

/*
 * The controlling terminal's settings, saved before the answerers run and
 * put back after.  An answerer that prompts (tty) changes them and
 * restores them on its every way out, but a worker killed at a timeout or
 * a withdrawal has no way out: without this the caller's terminal would
 * be left without echo.  Only from the terminal's foreground process
 * group (anything else would be stopped by SIGTTOU).
 */
struct tty_guard {
	int fd;
	struct termios saved;
};

static void tty_save(struct tty_guard *g)
{
	g->fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (g->fd < 0)
		return;
	if (tcgetpgrp(g->fd) != getpgrp() || tcgetattr(g->fd, &g->saved) < 0) {
		close(g->fd);
		g->fd = -1;
	}
}

static void tty_restore(struct tty_guard *g)
{
	struct termios now;

	if (g->fd < 0)
		return;
	if (tcgetpgrp(g->fd) == getpgrp() && tcgetattr(g->fd, &now) == 0 &&
	    memcmp(&now, &g->saved, sizeof(now)) != 0)
		tcsetattr(g->fd, TCSANOW, &g->saved);
	close(g->fd);
	g->fd = -1;
}

/* ----------------------------------------------------------------- ask */

static int check_request(const struct warden_approval_request *req,
                         struct warden_error *err)
{
	const char *f[5] = { req->tool, req->subject, req->call_id, req->reason,
	                     req->requested_mode };
	static const char *const names[5] = { "tool", "subject", "call id",
	                                      "reason", "requested mode" };
	size_t i;

	if (req->tool == NULL || req->tool[0] == '\0')
		return warden_error_set(err, WARDEN_EUSAGE, "approval: the "
		                        "request names no tool");
	if (req->subject == NULL)
		return warden_error_set(err, WARDEN_EUSAGE, "approval: the "
		                        "request has no subject");
	for (i = 0; i < 5; i++)
		if (f[i] != NULL && strlen(f[i]) > FIELD_MAX)
			return warden_error_set(err, WARDEN_EUSAGE, "approval: "
			                        "the %s is longer than %d bytes",
			                        names[i], FIELD_MAX);
	if (req->requested_mode != NULL && req->requested_mode[0] != '\0' &&
	    warden_mode_parse(req->requested_mode) < 0)
		return warden_error_set(err, WARDEN_EUSAGE, "approval: "
		                        "requested mode '%s' is not a mode "
		                        "(read-only, workspace-write, "
		                        "danger-full-access)", req->requested_mode);
	if (req->requested_network != NULL && req->requested_network[0] != '\0' &&
	    warden_network_parse(req->requested_network) < 0)
		return warden_error_set(err, WARDEN_EUSAGE, "approval: "
		                        "requested network '%s' is not a network "
		                        "setting (restricted, allowlist, enabled)",
		                        req->requested_network);
	if (req->deadline_ms < 0)
		return warden_error_set(err, WARDEN_EUSAGE, "approval: a "
		                        "negative deadline");
	return 0;
}

static int new_request_id(char *buf, size_t len, struct warden_error *err)
{
	char hex[33];

	if (warden_random_hex(hex, 16) < 0)
		return warden_error_errno(err, WARDEN_EOS, errno, "approval: no request id");
	snprintf(buf, len, "req-%s", hex);
	return 0;
}

static int set_opt(json_t *o, const char *key, const char *v)
{
	json_t *j;

	if (v == NULL || v[0] == '\0')
		return 0;
	j = jstr(v);
	return j == NULL ? -1 : json_object_set_new(o, key, j);
}

static json_t *jlist(const char *const *list, size_t n)
{
	json_t *a = json_array(), *j;
	size_t i;

	for (i = 0; a != NULL && i < n; i++) {
		j = jstr(list[i]);
		if (j == NULL || json_array_append_new(a, j) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The command the request describes, as approval/asked records it. */
static int set_command(json_t *o, const struct warden_approval_request *req)
{
	const struct warden_program *p = req->program;

	if (req->argc > 0 &&
	    json_object_set_new(o, "argv", jlist(req->argv, req->argc)) < 0)
		return -1;
	if (p == NULL)
		return 0;
	return set_opt(o, "cwd", p->dir) < 0 ||
	       set_opt(o, "program", p->path) < 0 ||
	       set_opt(o, "interpreter", p->interpreter) < 0 ||
	       json_object_set_new(o, "program_writable",
	                           json_boolean(p->writable)) < 0 ||
	       json_object_set_new(o, "env_removed",
	                           jlist((const char *const *)p->env_removed,
	                                 p->n_env_removed)) < 0 ||
	       json_object_set_new(o, "path_dropped",
	                           jlist((const char *const *)p->path_dropped,
	                                 p->n_path_dropped)) < 0 ||
	       json_object_set_new(o, "env_config",
	                           jlist((const char *const *)p->env_config,
	                                 p->n_env_config)) < 0 ||
	       json_object_set_new(o, "path",
	                           jstr(warden_program_path_value(p))) < 0 ? -1 : 0;
}

static int append_asked(struct warden_session *s, const char *id,
                        const struct warden_approval_request *req, int policy,
                        const char *const *offered, size_t n_offered,
                        struct warden_error *err)
{
	json_t *o = json_object();
	int rc;

	if (o != NULL && n_offered > 0 &&
	    json_object_set_new(o, "grant_scopes", jlist(offered, n_offered)) < 0) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	}
	if (o == NULL || set_opt(o, "request_id", id) < 0 ||
	    set_opt(o, "tool", req->tool) < 0 ||
	    json_object_set_new(o, "subject", jstr(req->subject)) < 0 ||
	    set_opt(o, "call_id", req->call_id) < 0 ||
	    set_opt(o, "reason", req->reason) < 0 ||
	    set_opt(o, "requested_mode", req->requested_mode) < 0 ||
	    set_opt(o, "requested_network", req->requested_network) < 0 ||
	    set_command(o, req) < 0 ||
	    set_opt(o, "policy", warden_policy_name(policy)) < 0) {
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	}
	rc = warden_session_append(s, "approval/asked", o, err);
	json_decref(o);
	return rc;
}

static int append_decided(struct warden_session *s,
                          const struct warden_approval_request *req,
                          const struct warden_approval_result *r,
                          struct warden_error *err)
{
	json_t *o = json_object(), *delegated = json_array();
	size_t i;
	int rc, bad = o == NULL || delegated == NULL;

	for (i = 0; !bad && i < r->n_delegated && i < WARDEN_APPROVAL_DELEGATED_MAX; i++)
		bad = json_array_append_new(delegated, jstr(r->delegated[i])) < 0;
	if (bad || set_opt(o, "request_id", r->request_id) < 0 ||
	    set_opt(o, "call_id", req->call_id) < 0 ||
	    set_opt(o, "outcome", warden_outcome_name(r->outcome)) < 0 ||
	    set_opt(o, "answerer", r->answerer) < 0 ||
	    set_opt(o, "reason", r->reason) < 0 ||
	    set_opt(o, "grant", r->grant) < 0 ||
	    set_opt(o, "grant_scope", r->grant_scope) < 0 ||
	    json_object_set(o, "delegated", delegated) < 0) {
		json_decref(delegated);
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	}
	json_decref(delegated);
	rc = warden_session_append(s, "approval/decided", o, err);
	json_decref(o);
	return rc;
}

/* approval/grant and approval/decided, in one write. */
struct grant_write {
	json_t *grant;
	const struct warden_approval_request *req;
	const struct warden_approval_result *res;
};

static int grant_write_txn(struct warden_session *s, const struct warden_knobs *now,
                           void *ud, struct warden_error *err)
{
	struct grant_write *g = ud;
	int rc;

	(void)now;
	if ((rc = warden_session_grant(s, g->grant, err)) < 0)
		return rc;
	return append_decided(s, g->req, g->res, err);
}

static int append_grant_decided(struct warden_session *s,
                                const struct warden_approval_request *req,
                                struct warden_approval_result *res,
                                const struct warden_grant_scopes *sc, size_t i,
                                struct warden_error *err)
{
	struct grant_write g = { NULL, req, res };
	int rc;

	if (warden_grant_id_new(res->grant) < 0)
		return warden_error_errno(err, WARDEN_EOS, errno, "approval: no grant id");
	say(res->grant_scope, sizeof(res->grant_scope), "%s", sc->s[i].name);
	res->grant_new = 1;
	g.grant = json_pack("{s:s,s:s,s:O,s:s,s:s,s:s}", "grant", res->grant,
	                    "key", sc->s[i].key, "scope", sc->s[i].scope,
	                    "name", sc->s[i].name, "request_id", res->request_id,
	                    "answerer", res->answerer);
	if (g.grant == NULL)
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	rc = warden_session_transaction(s, grant_write_txn, &g, err);
	json_decref(g.grant);
	return rc;
}

static void dispatch(struct warden_approval *a, const struct warden_request *wr,
                     long long deadline_at, int cancel_fd,
                     struct warden_approval_result *res)
{
	size_t i, used = 0;
	int r, d = 0;
	/* Why each answerer that delegated could not answer: "name: why",
	 * for the reason when none decided. */
	char why[sizeof(res->reason)] = "";

	for (i = 0; i < a->n; i++) {
		res->reason[0] = '\0';
		r = consult(a, a->links[i], wr, deadline_at, cancel_fd, &d,
		            res->reason, sizeof(res->reason));
		switch (r) {
		case CONSULT_DELEGATE:
			if (res->n_delegated < WARDEN_APPROVAL_DELEGATED_MAX)
				say(res->delegated[res->n_delegated],
				    sizeof(res->delegated[0]), "%s", a->links[i]->name);
			res->n_delegated++;
			if (res->reason[0] != '\0' && used < sizeof(why) - 1) {
				int k = snprintf(why + used, sizeof(why) - used,
				                 "%s%s: %s", used ? "; " : "",
				                 a->links[i]->name, res->reason);

				if (k > 0)
					used = used + (size_t)k >= sizeof(why)
					     ? sizeof(why) - 1 : used + (size_t)k;
			}
			continue;
		case CONSULT_DECIDED:
			res->outcome = d == WARDEN_DECISION_ALLOWED_FOR_SESSION
			             ? WARDEN_OUTCOME_ALLOWED_FOR_SESSION
			             : d == WARDEN_DECISION_ALLOWED_ONCE
			             ? WARDEN_OUTCOME_ALLOWED_ONCE
			             : d == WARDEN_DECISION_REJECTED
			             ? WARDEN_OUTCOME_REJECTED
			             : WARDEN_OUTCOME_CANCELLED;
			say(res->answerer, sizeof(res->answerer), "%s",
			         a->links[i]->name);
			return;
		case CONSULT_UNAVAILABLE:
			res->outcome = WARDEN_OUTCOME_UNAVAILABLE;
			say(res->answerer, sizeof(res->answerer), "%s",
			         a->links[i]->name);
			return;
		case CONSULT_SIGNAL:
			res->outcome = WARDEN_OUTCOME_CANCELLED;
			say(res->reason, sizeof(res->reason), "withdrawn by "
			         "a signal while answerer %s was deciding",
			         a->links[i]->name);
			return;
		default:
			res->outcome = WARDEN_OUTCOME_CANCELLED;
			say(res->reason, sizeof(res->reason), "withdrawn: "
			         "the caller's deadline passed while answerer %s "
			         "was deciding", a->links[i]->name);
			return;
		}
	}
	res->outcome = WARDEN_OUTCOME_UNAVAILABLE;
	if (a->n == 0)
		say(res->reason, sizeof(res->reason), "no answerer is configured");
	else
		say(res->reason, sizeof(res->reason), "no answerer decided (every "
		    "answerer delegated)%s%s", why[0] ? ": " : "", why);
}

int warden_approval_ask(struct warden_approval *a, struct warden_session *s,
                        const struct warden_approval_request *req,
                        struct warden_approval_result *out,
                        struct warden_error *err)
{
	struct warden_approval_result res;
	struct warden_request wr;
	mode_t um;
	struct withdrawal wd;
	struct tty_guard tty;
	const struct warden_knobs *kn;
	const struct warden_program *p;
	const struct warden_grant_ref *covering;
	struct warden_grant_scopes sc;
	const char *offered[WARDEN_GRANT_SCOPES_MAX], *texts[WARDEN_GRANT_SCOPES_MAX];
	size_t offered_at[WARDEN_GRANT_SCOPES_MAX], n_offered = 0, i, which = 0, choice = 0;
	long long deadline_at;
	int policy, rc, sig;

	memset(out, 0, sizeof(*out));
	memset(&res, 0, sizeof(res));
	memset(&sc, 0, sizeof(sc));
	if (s == NULL)
		return warden_error_set(err, WARDEN_EUSAGE, "approval needs a "
		                        "session: every request is audited in a "
		                        "session log (create one with `warden "
		                        "session new`)");
	if ((rc = check_request(req, err)) < 0)
		return rc;
	deadline_at = req->deadline_ms > 0 ? warden_now_ms() + req->deadline_ms : 0;
	if ((rc = warden_session_refresh(s, err)) < 0)
		return rc;
	kn = warden_session_knobs(s);
	policy = kn->policy ? kn->policy : a->cfg->approval_policy;
	if ((rc = new_request_id(res.request_id, sizeof(res.request_id), err)) < 0)
		return rc;
	if (warden_grant_scopes_build(&sc, req->tool, req->subject, req->argv,
	                              req->argc, req->program, req->requested_mode,
	                              req->requested_network) < 0) {
		warden_grant_scopes_free(&sc);
		return warden_error_set(err, WARDEN_EOS, "approval: out of memory");
	}
	covering = warden_grant_covers(&sc, kn->grants, kn->n_grants, &which);
	for (i = 0; covering == NULL && kn->n_grants < WARDEN_GRANTS_MAX && i < sc.n; i++)
		if (sc.s[i].offered) {
			offered_at[n_offered] = i;
			texts[n_offered] = sc.s[i].text;
			offered[n_offered++] = sc.s[i].name;
		}
	rc = append_asked(s, res.request_id, req, policy,
	                  policy == WARDEN_POLICY_NEVER ? NULL : offered,
	                  policy == WARDEN_POLICY_NEVER ? 0 : n_offered, err);
	if (rc < 0) {
		warden_grant_scopes_free(&sc);
		return rc;
	}

	if (policy == WARDEN_POLICY_NEVER) {
		res.outcome = WARDEN_OUTCOME_REJECTED;
		snprintf(res.reason, sizeof(res.reason), "the approval policy "
		         "is never: every request is rejected");
	} else if (covering != NULL) {
		/* The session granted it before: nobody is asked again. */
		res.outcome = WARDEN_OUTCOME_ALLOWED_FOR_SESSION;
		say(res.grant, sizeof(res.grant), "%s", covering->id);
		say(res.grant_scope, sizeof(res.grant_scope), "%s", sc.s[which].name);
		say(res.reason, sizeof(res.reason), "covered by grant %s (%s)",
		    covering->id, sc.s[which].name);
	} else {
		memset(&wr, 0, sizeof(wr));
		wr.struct_size = sizeof(wr);
		wr.program = wr.interpreter = wr.path = "";
		wr.requested_network = opt(req->requested_network);
		wr.session_id = warden_session_id(s);
		wr.request_id = res.request_id;
		wr.tool = req->tool;
		wr.subject = req->subject;
		wr.call_id = opt(req->call_id);
		wr.reason = opt(req->reason);
		wr.requested_mode = opt(req->requested_mode);
		wr.cwd = opt(warden_session_cwd(s));
		if (req->argc > 0) {
			wr.argv = req->argv;
			wr.argc = req->argc;
		}
		if (req->program != NULL) {
			p = req->program;
			wr.cwd = p->dir;
			wr.program = p->path;
			wr.interpreter = p->interpreter;
			wr.program_writable = p->writable;
			wr.env_removed = (const char *const *)p->env_removed;
			wr.n_env_removed = p->n_env_removed;
			wr.path_dropped = (const char *const *)p->path_dropped;
			wr.n_path_dropped = p->n_path_dropped;
			wr.env_config = (const char *const *)p->env_config;
			wr.n_env_config = p->n_env_config;
			wr.path = warden_program_path_value(p);
		}
		if (n_offered > 0) {
			wr.grant_scopes = offered;
			wr.grant_texts = texts;
			wr.n_grant_scopes = n_offered;
			wr.grant_choice = &choice;
		}
		if (withdrawal_arm(&wd) < 0) {
			warden_grant_scopes_free(&sc);
			return warden_error_errno(err, WARDEN_EOS, errno,
			                          "approval: pipe");
		}
		tty_save(&tty);
		/* An in-process answerer shares the process: its umask would
		 * be the approved command's. */
		um = umask(022);
		umask(um);
		dispatch(a, &wr, deadline_at, wd.pipe[0], &res);
		umask(um);
		tty_restore(&tty);
		sig = withdrawal_disarm(&wd);
		if (res.outcome == WARDEN_OUTCOME_CANCELLED && res.answerer[0] == '\0')
			res.signal = sig;
		/* The withdrawal and an answer crossed (the answer was read
		 * before the signal's byte): withdrawn, the answer discarded. */
		if (sig != 0 && res.outcome != WARDEN_OUTCOME_CANCELLED) {
			say(res.reason, sizeof(res.reason), "withdrawn by a signal "
			    "as answerer %s answered %s: the answer is discarded",
			    res.answerer, warden_outcome_name(res.outcome));
			res.outcome = WARDEN_OUTCOME_CANCELLED;
			res.answerer[0] = '\0';
			res.signal = sig;
		}
	}

	if (res.outcome == WARDEN_OUTCOME_ALLOWED_FOR_SESSION && res.grant[0] == '\0')
		rc = append_grant_decided(s, req, &res, &sc, offered_at[choice], err);
	else
		rc = append_decided(s, req, &res, err);
	warden_grant_scopes_free(&sc);
	if (rc < 0)
		return rc;
	*out = res;
	return 0;
}
