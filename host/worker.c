/*
 * worker.c — an answerer in its own process (worker.h).
 *
 * The worker is forked, not exec'd: it inherits the parsed config and the
 * loader, and it needs nothing else.  Before it touches the plugin it
 * drops every descriptor but the socket and stdio, sends its stdout to
 * stderr (a plugin must not write into the caller's output), ignores
 * SIGINT and SIGTERM (withdrawal is the host's business: the host kills
 * the worker) and asks to die with the host.  Everything it sends back is
 * treated as untrusted: bounded, checked field by field.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "worker.h"

#define REASON_MAX 512

struct warden_worker {
	const struct warden_config *cfg;
	const struct warden_config_plugin *pl;
	pid_t pid;                  /* 0: not running */
	int fd;                     /* host end of the socketpair */
	uint32_t seq;               /* of the last request sent */
};

long long warden_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int warden_wait_fd(int fd, short events, const struct warden_wait *w)
{
	struct pollfd p[2];
	long long now, until;
	int n, timeout, which;

	for (;;) {
		now = warden_now_ms();
		until = 0;
		which = 0;
		if (w->timeout_at > 0) {
			until = w->timeout_at;
			which = WARDEN_WAIT_TIMEOUT;
		}
		if (w->deadline_at > 0 && (until == 0 || w->deadline_at < until)) {
			until = w->deadline_at;
			which = WARDEN_WAIT_DEADLINE;
		}
		timeout = -1;
		if (until > 0)
			timeout = until <= now ? 0
			        : until - now > 1000000 ? 1000000 : (int)(until - now);
		p[0].fd = w->cancel_fd;
		p[0].events = POLLIN;
		p[1].fd = fd;
		p[1].events = events;
		p[0].revents = p[1].revents = 0;
		n = poll(p, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;  /* a withdrawal signal shows up on cancel_fd */
		if (n < 0)
			return WARDEN_WAIT_ERROR;
		if (w->cancel_fd >= 0 && (p[0].revents & POLLIN))
			return WARDEN_WAIT_SIGNAL;
		if (p[1].revents != 0)
			return WARDEN_WAIT_READY;
		if (until > 0 && warden_now_ms() >= until)
			return which;
	}
}

/* ------------------------------------------------------ framing helpers */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Blocking, for the worker side. 1 = done, 0 = EOF at the start, -1 error. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return got == 0 ? 0 : -1;
		got += (size_t)n;
	}
	return 1;
}

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_put(struct buf *b, const void *data, size_t len)
{
	char *grown;
	size_t cap;

	if (b->len + len > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + len)
			cap *= 2;
		grown = realloc(b->p, cap);
		if (grown == NULL)
			return -1;
		b->p = grown;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static int buf_u32(struct buf *b, uint32_t v)
{
	return buf_put(b, &v, sizeof(v));
}

static int buf_str(struct buf *b, const char *s)
{
	size_t len = s != NULL ? strlen(s) : 0;

	if (len > UINT32_MAX)
		return -1;
	return buf_u32(b, (uint32_t)len) < 0 ? -1 : buf_put(b, s, len);
}

/* A reply or hello frame: [len][type][int32 value][u32 seq][u32 n][n
 * bytes]; seq is the request's (0 for the hello). */
#define REPLY_HEAD 17

static int send_reply(int fd, char type, int32_t value, uint32_t seq,
                      uint32_t choice, const char *text)
{
	char frame[4 + REPLY_HEAD + REASON_MAX];
	uint32_t len, n;

	n = (uint32_t)strnlen(text, REASON_MAX);
	len = REPLY_HEAD + n;
	memcpy(frame, &len, 4);
	frame[4] = type;
	memcpy(frame + 5, &value, 4);
	memcpy(frame + 9, &seq, 4);
	memcpy(frame + 13, &n, 4);
	memcpy(frame + 17, &choice, 4);
	memcpy(frame + 21, text, n);
	return write_all(fd, frame, 4 + len);
}

/* ------------------------------------------------------------ requests */

static const char *opt_str(const char *s)
{
	return s != NULL ? s : "";
}

/* The request's strings and lists in the order of worker.h. */
static void req_fields(const struct warden_request *r,
                       const char *str[WARDEN_REQUEST_NSTR],
                       const char *const *list[WARDEN_REQUEST_NLIST],
                       size_t n[WARDEN_REQUEST_NLIST], int *writable)
{
	int v11 = WARDEN_REQUEST_HAS(r, path);
	int v14 = WARDEN_REQUEST_HAS(r, grant_choice);

	str[0] = r->session_id;
	str[1] = r->request_id;
	str[2] = r->tool;
	str[3] = r->subject;
	str[4] = r->call_id;
	str[5] = r->reason;
	str[6] = r->requested_mode;
	str[7] = r->cwd;
	str[8] = v11 ? r->program : NULL;
	str[9] = v11 ? r->interpreter : NULL;
	str[10] = v11 ? r->path : NULL;
	str[11] = WARDEN_REQUEST_HAS(r, requested_network) ? r->requested_network : NULL;
	list[0] = v11 ? r->argv : NULL;
	n[0] = v11 && r->argv != NULL ? r->argc : 0;
	list[1] = v11 ? r->env_removed : NULL;
	n[1] = v11 && r->env_removed != NULL ? r->n_env_removed : 0;
	list[2] = v11 ? r->path_dropped : NULL;
	n[2] = v11 && r->path_dropped != NULL ? r->n_path_dropped : 0;
	list[3] = WARDEN_REQUEST_HAS(r, n_env_config) ? r->env_config : NULL;
	n[3] = list[3] != NULL ? r->n_env_config : 0;
	list[4] = v14 ? r->grant_scopes : NULL;
	list[5] = v14 ? r->grant_texts : NULL;
	n[4] = n[5] = v14 && r->grant_scopes != NULL && r->grant_texts != NULL
	              ? r->n_grant_scopes : 0;
	*writable = v11 ? r->program_writable : 0;
}

/* Points c->req at c's fields. */
static void req_assign(struct warden_request_copy *c, int writable)
{
	struct warden_request *r = &c->req;

	memset(r, 0, sizeof(*r));
	r->struct_size = sizeof(*r);
	r->session_id = c->str[0];
	r->request_id = c->str[1];
	r->tool = c->str[2];
	r->subject = c->str[3];
	r->call_id = c->str[4];
	r->reason = c->str[5];
	r->requested_mode = c->str[6];
	r->cwd = c->str[7];
	r->program = c->str[8];
	r->interpreter = c->str[9];
	r->path = c->str[10];
	r->requested_network = c->str[11];
	r->argv = c->n[0] > 0 ? (const char *const *)c->list[0] : NULL;
	r->argc = c->n[0];
	r->env_removed = c->n[1] > 0 ? (const char *const *)c->list[1] : NULL;
	r->n_env_removed = c->n[1];
	r->path_dropped = c->n[2] > 0 ? (const char *const *)c->list[2] : NULL;
	r->n_path_dropped = c->n[2];
	r->env_config = c->n[3] > 0 ? (const char *const *)c->list[3] : NULL;
	r->n_env_config = c->n[3];
	r->program_writable = writable;
	if (c->n[4] > 0 && c->n[4] == c->n[5]) {
		r->grant_scopes = (const char *const *)c->list[4];
		r->grant_texts = (const char *const *)c->list[5];
		r->n_grant_scopes = c->n[4];
		r->grant_choice = &c->choice;
	}
	c->choice = 0;
}

void warden_request_copy_free(struct warden_request_copy *c)
{
	size_t i, j;

	for (i = 0; i < WARDEN_REQUEST_NSTR; i++)
		free(c->str[i]);
	for (i = 0; i < WARDEN_REQUEST_NLIST; i++) {
		for (j = 0; c->list[i] != NULL && j < c->n[i]; j++)
			free(c->list[i][j]);
		free(c->list[i]);
	}
	memset(c, 0, sizeof(*c));
}

int warden_request_copy(struct warden_request_copy *c,
                        const struct warden_request *req)
{
	const char *str[WARDEN_REQUEST_NSTR];
	const char *const *list[WARDEN_REQUEST_NLIST];
	size_t n[WARDEN_REQUEST_NLIST], i, j;
	int writable;

	memset(c, 0, sizeof(*c));
	req_fields(req, str, list, n, &writable);
	for (i = 0; i < WARDEN_REQUEST_NSTR; i++)
		if ((c->str[i] = strdup(opt_str(str[i]))) == NULL)
			return -1;
	for (i = 0; i < WARDEN_REQUEST_NLIST; i++) {
		if ((c->list[i] = calloc(n[i] + 1, sizeof(char *))) == NULL)
			return -1;
		for (j = 0; j < n[i]; j++) {
			if ((c->list[i][j] = strdup(opt_str(list[i][j]))) == NULL)
				return -1;
			c->n[i] = j + 1;
		}
	}
	req_assign(c, writable);
	return 0;
}

/* Decodes a list: a count, then that many strings.  -1 on a bad frame. */
static char *take_str(const char **p, const char *end);

static int take_list(const char **p, const char *end, char ***out, size_t *n)
{
	uint32_t count, i;

	if ((size_t)(end - *p) < 4)
		return -1;
	memcpy(&count, *p, 4);
	*p += 4;
	/* Each string takes at least its 4-byte length. */
	if (count > (size_t)(end - *p) / 4)
		return -1;
	if ((*out = calloc((size_t)count + 1, sizeof(char *))) == NULL)
		return -1;
	for (i = 0; i < count; i++) {
		if (((*out)[i] = take_str(p, end)) == NULL)
			return -1;
		*n = i + 1;
	}
	return 0;
}

/* ---------------------------------------------------------- the worker */

static char *take_str(const char **p, const char *end)
{
	uint32_t n;
	char *s;

	if ((size_t)(end - *p) < 4)
		return NULL;
	memcpy(&n, *p, 4);
	*p += 4;
	if ((size_t)(end - *p) < n)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s == NULL)
		return NULL;
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n;
	return s;
}

static void worker_serve(int fd, struct warden_loaded *lp)
{
	struct warden_request_copy c;
	char *frame, err[REASON_MAX];
	const char *p, *end;
	uint32_t len, seq, writable = 0, choice;
	int rc, decision, i, ok;

	for (;;) {
		rc = read_all(fd, &len, 4);
		if (rc <= 0 || len < 1 || len > WARDEN_WORKER_FRAME_MAX)
			return;
		frame = malloc(len);
		if (frame == NULL || len < 5 || read_all(fd, frame, len) != 1 ||
		    frame[0] != 'R') {
			free(frame);
			return;
		}
		memcpy(&seq, frame + 1, 4);
		p = frame + 5;
		end = frame + len;
		memset(&c, 0, sizeof(c));
		writable = 0;
		ok = 1;
		for (i = 0; ok && i < WARDEN_REQUEST_NSTR; i++)
			ok = (c.str[i] = take_str(&p, end)) != NULL;
		for (i = 0; ok && i < WARDEN_REQUEST_NLIST; i++)
			ok = take_list(&p, end, &c.list[i], &c.n[i]) == 0;
		if (ok && (size_t)(end - p) == 4) {
			memcpy(&writable, p, 4);
			p += 4;
		}
		ok = ok && p == end && writable <= 1;
		free(frame);
		if (!ok) {
			warden_request_copy_free(&c);
			return;
		}
		req_assign(&c, (int)writable);
		err[0] = '\0';
		decision = lp->desc.decide(lp->state, &c.req, err, sizeof(err));
		err[sizeof(err) - 1] = '\0';
		if (decision == WARDEN_DECISION_ALLOWED_FOR_SESSION &&
		    lp->desc.abi_minor < 4) {
			/* A value its ABI does not have: garbage, never a grant. */
			decision = WARDEN_DECISION_ERROR;
			snprintf(err, sizeof(err), "returned 5, which ABI 1.%u (the "
			         "plugin's) does not define: allowed-for-session is "
			         "ABI 1.4's", lp->desc.abi_minor);
		}
		choice = c.choice > UINT32_MAX ? UINT32_MAX : (uint32_t)c.choice;
		warden_request_copy_free(&c);
		if (send_reply(fd, 'D', decision, seq, choice, err) < 0)
			return;
	}
}

static void __attribute__((noreturn))
worker_main(int fd, pid_t host, const struct warden_config *cfg,
            const struct warden_config_plugin *pl)
{
	struct warden_loaded lp;
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGINT && sig != SIGTERM && sig != SIGPIPE &&
		    sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != host)
		_exit(0);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || dup2(fd, 3) < 0)
		_exit(0);
	fd = 3;
	if (close_range(4, ~0U, 0) < 0)
		_exit(0);

	if (warden_loader_load(cfg, pl, 1, &lp) < 0) {
		send_reply(fd, 'H', lp.status, 0, 0, lp.reason);
		_exit(0);
	}
	if (send_reply(fd, 'H', WARDEN_LOAD_LOADED, 0, 0, "") == 0)
		worker_serve(fd, &lp);
	warden_loader_unload(&lp);
	_exit(0);
}

/* ------------------------------------------------------------ the host */

int warden_worker_new(const struct warden_config *cfg,
                      const struct warden_config_plugin *pl,
                      struct warden_worker **out)
{
	struct warden_worker *wk = calloc(1, sizeof(*wk));

	if (wk == NULL)
		return -1;
	wk->cfg = cfg;
	wk->pl = pl;
	wk->fd = -1;
	*out = wk;
	return 0;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
		         strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "ended");
}

/*
 * Ends the worker.  `grace`: it is expected to be dying by itself (its
 * socket closed): give it a moment so that its own death (a signal, an
 * exit status) can be reported, then kill it.  The death is appended to
 * reason when reason is given.
 */
static void stop(struct warden_worker *wk, int grace, char *reason, size_t len)
{
	char how[128];
	size_t used;
	int status = 0, i;
	pid_t r = 0;

	if (wk->fd >= 0)
		close(wk->fd);
	wk->fd = -1;
	if (wk->pid <= 0)
		return;
	for (i = 0; grace && i < 100; i++) {
		r = waitpid(wk->pid, &status, WNOHANG);
		if (r != 0)
			break;
		usleep(5000);
	}
	if (r == 0) {
		kill(wk->pid, SIGKILL);
		while ((r = waitpid(wk->pid, &status, 0)) < 0 && errno == EINTR)
			;
	}
	if (reason != NULL && r == wk->pid && grace) {
		describe_status(status, how, sizeof(how));
		used = strlen(reason);
		if (used < len)
			snprintf(reason + used, len - used, " (worker %s)", how);
	}
	wk->pid = 0;
}

static int wait_result(int r)
{
	switch (r) {
	case WARDEN_WAIT_TIMEOUT: return WARDEN_WORKER_TIMEOUT;
	case WARDEN_WAIT_DEADLINE: return WARDEN_WORKER_DEADLINE;
	case WARDEN_WAIT_SIGNAL: return WARDEN_WORKER_SIGNAL;
	default: return WARDEN_WORKER_FAILED;
	}
}

static int fail(struct warden_worker *wk, int result, int grace, char *reason,
                size_t len, const char *msg)
{
	snprintf(reason, len, "%s", msg);
	stop(wk, grace, reason, len);
	return result;
}

/* Sends a whole frame without blocking past w. */
static int send_frame(struct warden_worker *wk, const struct buf *b,
                      const struct warden_wait *w)
{
	size_t off = 0;
	ssize_t n;
	int r;

	while (off < b->len) {
		r = warden_wait_fd(wk->fd, POLLOUT, w);
		if (r != WARDEN_WAIT_READY)
			return r == WARDEN_WAIT_ERROR ? -1 : r;
		n = send(wk->fd, b->p + off, b->len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* Reads exactly len bytes under w.  0 done, -1 EOF/error, else a wait
 * result. */
static int recv_exact(struct warden_worker *wk, void *dst, size_t len,
                      const struct warden_wait *w)
{
	char *p = dst;
	size_t got = 0;
	ssize_t n;
	int r;

	while (got < len) {
		r = warden_wait_fd(wk->fd, POLLIN, w);
		if (r != WARDEN_WAIT_READY)
			return r == WARDEN_WAIT_ERROR ? -1 : r;
		n = recv(wk->fd, p + got, len - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/*
 * Receives one hello or decision frame and checks it: the expected type,
 * the sequence number of the request it answers, a length within bounds
 * that matches its content exactly, and nothing after it (a worker speaks only when asked).  Returns 0 with
 * *value and reason filled, -1 for EOF or garbage (reason says which), or
 * a wait result.
 */
static int recv_reply(struct warden_worker *wk, char type, uint32_t seq,
                      const struct warden_wait *w, int32_t *value,
                      uint32_t *choice, char *reason, size_t reasonlen)
{
	unsigned char frame[WARDEN_WORKER_REPLY_MAX];
	uint32_t len, n, i, got_seq;
	char extra;
	int r;

	r = recv_exact(wk, &len, 4, w);
	if (r != 0) {
		if (r < 0)
			snprintf(reason, reasonlen, "the answerer's worker closed "
			         "the connection");
		return r;
	}
	if (len < REPLY_HEAD || len > sizeof(frame)) {
		snprintf(reason, reasonlen, "the answerer's worker sent garbage "
		         "(a frame of %u bytes)", len);
		return -1;
	}
	r = recv_exact(wk, frame, len, w);
	if (r != 0) {
		if (r < 0)
			snprintf(reason, reasonlen, "the answerer's worker closed "
			         "the connection mid-frame");
		return r;
	}
	memcpy(value, frame + 1, 4);
	memcpy(&got_seq, frame + 5, 4);
	memcpy(&n, frame + 9, 4);
	memcpy(choice, frame + 13, 4);
	if (frame[0] != (unsigned char)type || got_seq != seq ||
	    n != len - REPLY_HEAD || n >= reasonlen || n > REASON_MAX ||
	    recv(wk->fd, &extra, 1, MSG_PEEK | MSG_DONTWAIT) > 0) {
		snprintf(reason, reasonlen, "the answerer's worker sent garbage "
		         "(a malformed frame)");
		return -1;
	}
	/* The plugin's bytes as they are, up to a NUL: the approval service
	 * escapes them, as it does an inproc answerer's. */
	for (i = 0; i < n && frame[REPLY_HEAD + i] != '\0'; i++)
		reason[i] = (char)frame[REPLY_HEAD + i];
	reason[i] = '\0';
	return 0;
}

static int start(struct warden_worker *wk, const struct warden_wait *w,
                 char *reason, size_t len)
{
	int sv[2], r;
	int32_t status;
	uint32_t choice;
	pid_t host = getpid(), pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(reason, len, "cannot start the answerer's worker: "
		         "socketpair: %s", strerror(errno));
		return WARDEN_WORKER_FAILED;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(reason, len, "cannot start the answerer's worker: "
		         "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return WARDEN_WORKER_FAILED;
	}
	if (pid == 0) {
		close(sv[0]);
		worker_main(sv[1], host, wk->cfg, wk->pl);
	}
	close(sv[1]);
	wk->pid = pid;
	wk->fd = sv[0];
	r = recv_reply(wk, 'H', 0, w, &status, &choice, reason, len);
	if (r > 0) {
		stop(wk, 0, NULL, 0);
		return wait_result(r);
	}
	if (r < 0) {
		stop(wk, 1, reason, len);
		return WARDEN_WORKER_FAILED;
	}
	if (status != WARDEN_LOAD_LOADED) {
		char why[REASON_MAX];

		snprintf(why, sizeof(why), "%s", reason);
		snprintf(reason, len, "plugin %s: %s",
		         warden_load_status_name(status) ? warden_load_status_name(status)
		                                         : "not loaded", why);
		stop(wk, 1, NULL, 0);
		return WARDEN_WORKER_FAILED;
	}
	return WARDEN_WORKER_ANSWERED;
}

int warden_worker_decide(struct warden_worker *wk,
                         const struct warden_request *req,
                         const struct warden_wait *w, int *decision,
                         char *reason, size_t reasonlen)
{
	struct buf b = { NULL, 0, 0 };
	const char *str[WARDEN_REQUEST_NSTR];
	const char *const *list[WARDEN_REQUEST_NLIST];
	size_t n[WARDEN_REQUEST_NLIST], j;
	int32_t value;
	uint32_t len, choice = 0;
	int r, i, ok = 1, writable;

	reason[0] = '\0';
	/* A worker that died while idle (killed from outside, say) has cost
	 * no request: reap it and start afresh. */
	if (wk->pid > 0 && waitpid(wk->pid, NULL, WNOHANG) == wk->pid) {
		wk->pid = 0;
		close(wk->fd);
		wk->fd = -1;
	}
	if (wk->pid == 0) {
		r = start(wk, w, reason, reasonlen);
		if (r != WARDEN_WORKER_ANSWERED)
			return r;
	}
	req_fields(req, str, list, n, &writable);
	/* Never 0, the hello's. */
	wk->seq = wk->seq == UINT32_MAX ? 1 : wk->seq + 1;
	ok = buf_u32(&b, 0) == 0 && buf_put(&b, "R", 1) == 0 &&
	     buf_u32(&b, wk->seq) == 0;
	for (i = 0; ok && i < WARDEN_REQUEST_NSTR; i++)
		ok = buf_str(&b, str[i]) == 0;
	for (i = 0; ok && i < WARDEN_REQUEST_NLIST; i++) {
		ok = n[i] <= UINT32_MAX && buf_u32(&b, (uint32_t)n[i]) == 0;
		for (j = 0; ok && j < n[i]; j++)
			ok = buf_str(&b, list[i][j]) == 0;
	}
	ok = ok && buf_u32(&b, writable ? 1 : 0) == 0;
	if (!ok || b.len - 4 > WARDEN_WORKER_FRAME_MAX) {
		free(b.p);
		return fail(wk, WARDEN_WORKER_FAILED, 0, reason, reasonlen,
		            "the request is too large for the worker");
	}
	len = (uint32_t)(b.len - 4);
	memcpy(b.p, &len, 4);
	r = send_frame(wk, &b, w);
	free(b.p);
	if (r > 0) {
		stop(wk, 0, NULL, 0);
		return wait_result(r);
	}
	if (r < 0)
		return fail(wk, WARDEN_WORKER_FAILED, 1, reason, reasonlen,
		            "the answerer's worker stopped reading");
	r = recv_reply(wk, 'D', wk->seq, w, &value, &choice, reason, reasonlen);
	if (r > 0) {
		stop(wk, 0, NULL, 0);
		return wait_result(r);
	}
	if (r < 0) {
		stop(wk, 1, reason, reasonlen);
		return WARDEN_WORKER_FAILED;
	}
	*decision = value;
	if (value == WARDEN_DECISION_ALLOWED_FOR_SESSION &&
	    WARDEN_REQUEST_HAS(req, grant_choice) && req->grant_choice != NULL)
		*req->grant_choice = choice;
	return WARDEN_WORKER_ANSWERED;
}

void warden_worker_free(struct warden_worker *wk)
{
	if (wk == NULL)
		return;
	stop(wk, 0, NULL, 0);
	free(wk);
}
