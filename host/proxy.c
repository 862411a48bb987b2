/*
 * proxy.c — the allowlist network's proxy (proxy.h): a forked process with
 * one poll(2) loop over its listeners, its connections and the children
 * that resolve names and ask questions for it.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "grant.h"
#include "netlist.h"
#include "proxy.h"
#include "proxyreq.h"
#include "session.h"
#include "vocab.h"

#define ADDRS_MAX 8
#define RESOLVE_MS 10000
#define CONNECT_MS 15000
#define HEAD_MS 30000

enum state {
	S_HEAD = 1,     /* reading the first request head */
	S_SOCKS_REQ,    /* greeting answered, reading the SOCKS request */
	S_ASK_WAIT,     /* waiting for its turn to be asked */
	S_ASKING,       /* the question is out */
	S_RESOLVING,    /* a resolver child is out */
	S_CONNECTING,   /* a non-blocking connect is out */
	S_RELAY,        /* bytes flow both ways */
	S_REFUSING,     /* the refusal is being written, then close */
};

struct conn {
	int state;
	int cfd, sfd;
	int via;                        /* enum warden_proxyreq_kind, 0 unknown */
	unsigned char head[WARDEN_PROXYREQ_HEAD_MAX];
	size_t head_len;
	struct warden_proxyreq req;
	char listed_exactly;            /* the destination is listed as it is */
	char decided[512];              /* what let it through or refused it */
	char refusal[512];              /* the reason given to the client */
	struct sockaddr_storage addrs[ADDRS_MAX];
	socklen_t addrlen[ADDRS_MAX];
	int n_addrs, next_addr;
	char peer[INET6_ADDRSTRLEN + 8];
	pid_t job;                      /* resolver or asker child */
	int job_fd;
	unsigned char jobbuf[2048];
	size_t job_len;
	long long deadline;             /* ms, CLOCK_MONOTONIC; 0 none */
	unsigned char *c2s, *s2c;       /* relay buffers */
	size_t c2s_len, s2c_len;
	/* Once its buffer is empty, each direction moves through a pipe by
	 * splice(2) (the bytes never enter the proxy); -1: buffers only. */
	int c2s_pipe[2], s2c_pipe[2];
	size_t c2s_piped, s2c_piped;
	int c_eof, s_eof, c_shut, s_shut;
	unsigned long long up, down;
	long long seq;                  /* arrival, for the question queue */
};

struct proxy {
	const struct warden_proxy_opts *o;
	struct warden_hosts hosts;
	int lfd, pfd, report_fd;
	struct conn *c[WARDEN_PROXY_CONNS_MAX];
	long long next_seq;
	int asking;                     /* a question is out */
	char refused[WARDEN_PROXY_REFUSED_MAX][300];
	size_t n_refused;
};

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* host:port, an IPv6 address in brackets. */
static void dest_text(const struct conn *c, char *buf, size_t len)
{
	snprintf(buf, len, strchr(c->req.host, ':') ? "[%s]:%d" : "%s:%d",
	         c->req.host, c->req.port);
}

static void report_refused(struct proxy *p, const struct conn *c)
{
	char d[300];
	size_t i;

	dest_text(c, d, sizeof(d));
	for (i = 0; i < p->n_refused; i++)
		if (strcmp(p->refused[i], d) == 0)
			return;
	if (p->n_refused < WARDEN_PROXY_REFUSED_MAX)
		snprintf(p->refused[p->n_refused++], sizeof(p->refused[0]), "%s", d);
}

static void log_conn(struct proxy *p, struct conn *c, const char *decision)
{
	struct warden_error err = { 0, "" };
	char d[300];
	json_t *o;

	if (p->o->session == NULL || c->req.port == 0)
		return;
	dest_text(c, d, sizeof(d));
	o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:I, s:I}",
	              "destination", d, "host", c->req.host, "port", c->req.port,
	              "via", c->via == WARDEN_PROXYREQ_CONNECT ? "connect"
	                     : c->via == WARDEN_PROXYREQ_HTTP ? "http" : "socks5",
	              "decision", decision, "by", c->decided,
	              "bytes_up", (json_int_t)c->up, "bytes_down", (json_int_t)c->down);
	if (o == NULL)
		return;
	if (c->peer[0])
		json_object_set_new(o, "address", json_string(c->peer));
	if (p->o->call_id != NULL && p->o->call_id[0])
		json_object_set_new(o, "call_id", json_string(p->o->call_id));
	if (warden_session_append(p->o->session, "network/connect", o, &err) < 0)
		fprintf(stderr, "warden: proxy: %s\n", err.msg);
	json_decref(o);
}

static void conn_free(struct proxy *p, int i, const char *decision)
{
	struct conn *c = p->c[i];
	int k;

	if (decision != NULL)
		log_conn(p, c, decision);
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->sfd >= 0)
		close(c->sfd);
	if (c->job > 0) {
		kill(c->job, SIGKILL);
		waitpid(c->job, NULL, 0);
		if (c->state == S_ASKING)
			p->asking = 0;
	}
	if (c->job_fd >= 0)
		close(c->job_fd);
	for (k = 0; k < 2; k++) {
		if (c->c2s_pipe[k] >= 0)
			close(c->c2s_pipe[k]);
		if (c->s2c_pipe[k] >= 0)
			close(c->s2c_pipe[k]);
	}
	free(c->c2s);
	free(c->s2c);
	free(c);
	p->c[i] = NULL;
}

/* Starts the refusal: an HTTP 403 or a SOCKS5 reply, then close. */
static void refuse(struct proxy *p, struct conn *c, int socks_code)
{
	char d[300], body[1100];
	int n;

	dest_text(c, d, sizeof(d));
	if (c->req.port != 0)
		report_refused(p, c);
	if (c->s2c == NULL && (c->s2c = malloc(WARDEN_PROXY_BUF)) == NULL) {
		c->state = S_REFUSING;
		return;
	}
	if (c->via == WARDEN_PROXYREQ_SOCKS5 || c->state == S_SOCKS_REQ) {
		unsigned char r[10] = { 5, (unsigned char)socks_code, 0, 1, 0, 0, 0, 0, 0, 0 };
		/* After the greeting's answer, if it is still unsent. */
		memcpy(c->s2c + c->s2c_len, r, sizeof(r));
		c->s2c_len += sizeof(r);
	} else {
		n = snprintf(body, sizeof(body), "warden: %s refused: %s\n",
		             c->req.port ? d : "the request", c->refusal);
		if (n < 0 || (size_t)n >= sizeof(body))
			n = (int)strlen(body);
		c->s2c_len = (size_t)snprintf((char *)c->s2c, WARDEN_PROXY_BUF,
		                              "HTTP/1.1 403 Forbidden\r\n"
		                              "Content-Type: text/plain\r\n"
		                              "Content-Length: %d\r\n"
		                              "Connection: close\r\n\r\n%s", n, body);
	}
	c->state = S_REFUSING;
}

static void how_to_ask(struct conn *c, const char *what)
{
	snprintf(c->refusal, sizeof(c->refusal),
	         "%s; to let it through add %s to [warden] allowed_domains, or "
	         "ask for the whole network once with warden run "
	         "--escalate-network", what, c->req.host);
}

/* ---------------------------------------------------------------- jobs */

/* Forks a child that runs fn and writes its result to a pipe. */
static int job_start(struct conn *c, void (*fn)(struct proxy *, struct conn *, int),
                     struct proxy *p, long long ms)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		fn(p, c, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	set_nonblock(fds[0]);
	c->job = pid;
	c->job_fd = fds[0];
	c->job_len = 0;
	c->deadline = now_ms() + ms;
	return 0;
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;
	ssize_t w;

	while (len > 0) {
		w = write(fd, b, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		b += w;
		len -= (size_t)w;
	}
}

/* In the resolver child: the addresses, as (socklen_t, sockaddr_storage)
 * records. */
static void resolve_child(struct proxy *p, struct conn *c, int fd)
{
	struct addrinfo hints, *res = NULL, *ai;
	int n = 0;

	(void)p;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(c->req.host, NULL, &hints, &res) != 0)
		return;
	for (ai = res; ai != NULL && n < ADDRS_MAX; ai = ai->ai_next) {
		struct sockaddr_storage ss;
		socklen_t len = ai->ai_addrlen;

		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    len > sizeof(ss))
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, ai->ai_addr, len);
		write_all(fd, &len, sizeof(len));
		write_all(fd, &ss, sizeof(ss));
		n++;
	}
	freeaddrinfo(res);
}

/* In the asker child: one question through the waterfall; writes
 * "OUTCOME\tREQUEST_ID\tANSWERER\tREASON". */
static void ask_child(struct proxy *p, struct conn *c, int fd)
{
	struct warden_approval_request req;
	struct warden_approval_result res;
	struct warden_error err = { 0, "" };
	char subject[300], line[1400];
	int n;

	/* A serve or mcp client's connection belongs to the host process,
	 * not to this one: the `client` answerer delegates here. */
	warden_approval_set_client(NULL, NULL);
	/* The proxy goes on logging connections while this asks: each
	 * needs its own lock on the log. */
	if (warden_session_reopen(p->o->session, &err) < 0) {
		n = snprintf(line, sizeof(line), "0\t\t\t%s", err.msg);
		if (n > 0)
			write_all(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		return;
	}
	dest_text(c, subject, sizeof(subject));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	req.tool = "network";
	req.subject = subject;
	req.call_id = p->o->call_id;
	req.reason = "a connection through warden's allowlist proxy to a destination in neither allowed_domains nor denied_domains";
	req.deadline_ms = WARDEN_PROXY_ASK_MS;
	req.argv = p->o->argv;
	req.argc = p->o->argc;
	req.program = p->o->program;
	if (warden_approval_ask(p->o->approval, p->o->session, &req, &res, &err) < 0)
		n = snprintf(line, sizeof(line), "0\t\t\t%s", err.msg);
	else if (res.outcome == WARDEN_OUTCOME_ALLOWED_FOR_SESSION)
		n = snprintf(line, sizeof(line), "%d\t%s\t%s\t%s", res.outcome,
		             res.request_id, res.answerer, res.grant);
	else
		n = snprintf(line, sizeof(line), "%d\t%s\t%s\t%s", res.outcome,
		             res.request_id, res.answerer, res.reason);
	if (n > 0)
		write_all(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* ------------------------------------------------------------ deciding */

static void start_connect(struct proxy *p, struct conn *c);

/* The addresses of an allowed destination are known: drop the private
 * ones unless the destination is listed exactly, then connect. */
static void addresses_known(struct proxy *p, struct conn *c)
{
	int i, j = 0, dropped = 0;

	for (i = 0; i < c->n_addrs; i++) {
		((struct sockaddr_in *)&c->addrs[i])->sin_port = htons((uint16_t)c->req.port);
		if (!c->listed_exactly &&
		    warden_netlist_addr_private((struct sockaddr *)&c->addrs[i])) {
			dropped++;
			continue;
		}
		c->addrs[j] = c->addrs[i];
		c->addrlen[j++] = c->addrlen[i];
	}
	c->n_addrs = j;
	c->next_addr = 0;
	if (j == 0) {
		if (dropped)
			how_to_ask(c, "it resolves only to private, loopback or link-local addresses, which are reached only when the name itself is listed");
		else
			snprintf(c->refusal, sizeof(c->refusal), "%s did not resolve", c->req.host);
		strncat(c->decided, dropped ? "; private address" : "; no address",
		        sizeof(c->decided) - strlen(c->decided) - 1);
		refuse(p, c, dropped ? 2 : 4);
		return;
	}
	start_connect(p, c);
}

/* An allowed destination: find its addresses. */
static void resolve(struct proxy *p, struct conn *c)
{
	size_t i;
	int fam;

	c->n_addrs = 0;
	fam = warden_netlist_is_literal(c->req.host);
	if (fam) {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&c->addrs[0];
		struct sockaddr_in *v4 = (struct sockaddr_in *)&c->addrs[0];

		memset(&c->addrs[0], 0, sizeof(c->addrs[0]));
		if (inet_pton(AF_INET, c->req.host, &v4->sin_addr) == 1) {
			v4->sin_family = AF_INET;
			c->addrlen[0] = sizeof(*v4);
		} else {
			inet_pton(AF_INET6, c->req.host, &v6->sin6_addr);
			v6->sin6_family = AF_INET6;
			c->addrlen[0] = sizeof(*v6);
		}
		c->n_addrs = 1;
		addresses_known(p, c);
		return;
	}
	for (i = 0; i < p->hosts.n && c->n_addrs < ADDRS_MAX; i++)
		if (strcmp(p->hosts.e[i].name, c->req.host) == 0) {
			c->addrs[c->n_addrs] = p->hosts.e[i].addr;
			c->addrlen[c->n_addrs++] = p->hosts.e[i].addrlen;
		}
	if (c->n_addrs > 0) {
		/* The operator's own mapping: its addresses are as listed. */
		c->listed_exactly = 1;
		addresses_known(p, c);
		return;
	}
	c->state = S_RESOLVING;
	if (job_start(c, resolve_child, p, RESOLVE_MS) < 0) {
		snprintf(c->refusal, sizeof(c->refusal), "the proxy could not resolve it: %s",
		         strerror(errno));
		refuse(p, c, 1);
	}
}

/* Whether a destination grant of the session (read fresh: a grant made
 * a moment ago by another connection's answer counts) covers host:port;
 * its id in id.  A log that cannot be read covers nothing. */
static int granted(struct proxy *p, const char *host, int port, char *id, size_t idlen)
{
	const struct warden_knobs *kn;
	const struct warden_grant_ref *g;
	struct warden_error err = { 0, "" };

	if (p->o->session == NULL || warden_session_refresh(p->o->session, &err) < 0)
		return 0;
	kn = warden_session_knobs(p->o->session);
	g = warden_grant_covers_destination(host, (unsigned)port, kn->grants, kn->n_grants);
	if (g == NULL)
		return 0;
	snprintf(id, idlen, "%s", g->id);
	return 1;
}

/* A parsed request: decide by the lists. */
static void decide(struct proxy *p, struct conn *c)
{
	const struct warden_config *cfg = p->o->cfg;
	char host[WARDEN_NETLIST_NAME_MAX + 8], grant[128];
	size_t i;
	int m;

	if (warden_netlist_normalize(c->req.host, host, sizeof(c->req.host)) < 0) {
		snprintf(c->refusal, sizeof(c->refusal), "a destination name too long");
		refuse(p, c, 1);
		return;
	}
	memcpy(c->req.host, host, strlen(host) + 1);
	for (i = 0; i < cfg->n_denied_domains; i++)
		if (warden_netlist_match(cfg->denied_domains[i], host)) {
			snprintf(c->decided, sizeof(c->decided), "denied_domains = %s",
			         cfg->denied_domains[i]);
			snprintf(c->refusal, sizeof(c->refusal),
			         "[warden] denied_domains = %s refuses it (deny wins over every other rule)",
			         cfg->denied_domains[i]);
			refuse(p, c, 2);
			return;
		}
	for (i = 0, m = 0; i < cfg->n_allowed_domains; i++)
		if ((m = warden_netlist_match(cfg->allowed_domains[i], host)) != 0)
			break;
	if (m != 0) {
		c->listed_exactly = m == 2;
		snprintf(c->decided, sizeof(c->decided), "allowed_domains = %s",
		         cfg->allowed_domains[i]);
		resolve(p, c);
		return;
	}
	if (granted(p, host, c->req.port, grant, sizeof(grant))) {
		snprintf(c->decided, sizeof(c->decided), "grant %s", grant);
		resolve(p, c);
		return;
	}
	if (p->o->session == NULL || p->o->approval == NULL) {
		snprintf(c->decided, sizeof(c->decided), "not listed; no session to ask in");
		how_to_ask(c, "it is in neither allowed_domains nor denied_domains, and a run without a session asks no one");
		refuse(p, c, 2);
		return;
	}
	c->state = S_ASK_WAIT;
	c->deadline = now_ms() + WARDEN_PROXY_ASK_MS;
}

/* The next waiting question, one at a time (the approval service is
 * asked once at a time per process, and by the same token one
 * destination is never asked twice at once). */
static void next_question(struct proxy *p)
{
	struct conn *best = NULL;
	int i;

	if (p->asking)
		return;
	for (i = 0; i < WARDEN_PROXY_CONNS_MAX; i++)
		if (p->c[i] != NULL && p->c[i]->state == S_ASK_WAIT &&
		    (best == NULL || p->c[i]->seq < best->seq))
			best = p->c[i];
	if (best == NULL)
		return;
	best->state = S_ASKING;
	if (job_start(best, ask_child, p, WARDEN_PROXY_ASK_MS + 5000) < 0) {
		snprintf(best->decided, sizeof(best->decided), "the question could not be asked");
		how_to_ask(best, "the approval question could not be asked");
		refuse(p, best, 2);
		return;
	}
	p->asking = 1;
}

/* The asker child ended: its line says the outcome. */
static void answered(struct proxy *p, struct conn *c)
{
	char *f[4] = { NULL, NULL, NULL, NULL }, *s;
	int k = 0, outcome;

	p->asking = 0;
	c->jobbuf[c->job_len < sizeof(c->jobbuf) ? c->job_len : sizeof(c->jobbuf) - 1] = '\0';
	for (s = (char *)c->jobbuf; k < 4; k++) {
		f[k] = s;
		if (k < 3 && (s = strchr(s, '\t')) == NULL)
			break;
		if (k < 3)
			*s++ = '\0';
	}
	outcome = f[0] != NULL ? atoi(f[0]) : 0;
	if (outcome == WARDEN_OUTCOME_ALLOWED_ONCE) {
		snprintf(c->decided, sizeof(c->decided), "approval %s allowed-once (answerer %s)",
		         f[1] ? f[1] : "", f[2] ? f[2] : "");
		resolve(p, c);
		return;
	}
	/* A destination grant made by this answer, or one that covered it
	 * while the question waited its turn. */
	if (outcome == WARDEN_OUTCOME_ALLOWED_FOR_SESSION && f[3] != NULL && f[3][0]) {
		snprintf(c->decided, sizeof(c->decided),
		         "approval %s allowed-for-session (answerer %s), grant %s",
		         f[1] ? f[1] : "", f[2] && f[2][0] ? f[2] : "none", f[3]);
		resolve(p, c);
		return;
	}
	if (outcome == 0)
		snprintf(c->decided, sizeof(c->decided), "the question failed: %.400s",
		         f[3] ? f[3] : (c->job_len ? "" : "the asker ended without an answer"));
	else
		snprintf(c->decided, sizeof(c->decided), "approval %s %s (answerer %s%s%.300s)",
		         f[1] ? f[1] : "", warden_outcome_name(outcome) ? warden_outcome_name(outcome) : "?",
		         f[2] && f[2][0] ? f[2] : "none", f[3] && f[3][0] ? ": " : "",
		         f[3] ? f[3] : "");
	how_to_ask(c, outcome ? "the approval answered no" : "the approval question failed");
	if (outcome) {
		char what[64];
		snprintf(what, sizeof(what), "the approval answered %s",
		         warden_outcome_name(outcome) ? warden_outcome_name(outcome) : "?");
		how_to_ask(c, what);
	}
	refuse(p, c, 2);
}

static void resolved(struct proxy *p, struct conn *c)
{
	size_t rec = sizeof(socklen_t) + sizeof(struct sockaddr_storage), i;

	c->n_addrs = 0;
	for (i = 0; i + rec <= c->job_len && c->n_addrs < ADDRS_MAX; i += rec) {
		memcpy(&c->addrlen[c->n_addrs], c->jobbuf + i, sizeof(socklen_t));
		memcpy(&c->addrs[c->n_addrs], c->jobbuf + i + sizeof(socklen_t),
		       sizeof(struct sockaddr_storage));
		c->n_addrs++;
	}
	addresses_known(p, c);
}

/* ----------------------------------------------------------- connecting */

/* A relay direction's pipe (both ends -1 when none can be made: the
 * buffer carries everything then). */
static void relay_pipe(int pp[2])
{
	if (pipe2(pp, O_NONBLOCK | O_CLOEXEC) < 0) {
		pp[0] = pp[1] = -1;
		return;
	}
	fcntl(pp[1], F_SETPIPE_SZ, WARDEN_PROXY_PIPE);
}

static void start_relay(struct proxy *p, struct conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	size_t rest = c->head_len - c->req.consumed;

	if ((c->c2s == NULL && (c->c2s = malloc(WARDEN_PROXY_BUF)) == NULL) ||
	    (c->s2c == NULL && (c->s2c = malloc(WARDEN_PROXY_BUF)) == NULL)) {
		snprintf(c->refusal, sizeof(c->refusal), "out of memory");
		refuse(p, c, 1);
		return;
	}
	/* s2c may still hold the SOCKS greeting's answer. */
	c->c2s_len = 0;
	if (c->via == WARDEN_PROXYREQ_CONNECT) {
		memcpy(c->s2c + c->s2c_len, ok, sizeof(ok) - 1);
		c->s2c_len += sizeof(ok) - 1;
	} else if (c->via == WARDEN_PROXYREQ_SOCKS5) {
		unsigned char r[22] = { 5, 0, 0, 1 };
		size_t n = 10;
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		if (getsockname(c->sfd, (struct sockaddr *)&ss, &len) == 0 &&
		    ss.ss_family == AF_INET6) {
			r[3] = 4;
			memcpy(r + 4, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
			memcpy(r + 20, &((struct sockaddr_in6 *)&ss)->sin6_port, 2);
			n = 22;
		} else if (ss.ss_family == AF_INET) {
			memcpy(r + 4, &((struct sockaddr_in *)&ss)->sin_addr, 4);
			memcpy(r + 8, &((struct sockaddr_in *)&ss)->sin_port, 2);
		}
		memcpy(c->s2c + c->s2c_len, r, n);
		c->s2c_len += n;
	} else {
		memcpy(c->c2s, c->req.rewritten, c->req.rewritten_len);
		c->c2s_len = c->req.rewritten_len;
	}
	/* What the client sent after its head goes on. */
	if (rest > WARDEN_PROXY_BUF - c->c2s_len)
		rest = WARDEN_PROXY_BUF - c->c2s_len;
	memcpy(c->c2s + c->c2s_len, c->head + c->req.consumed, rest);
	c->c2s_len += rest;
	c->up += c->c2s_len;
	relay_pipe(c->c2s_pipe);
	relay_pipe(c->s2c_pipe);
	c->state = S_RELAY;
	c->deadline = 0;
}

static void start_connect(struct proxy *p, struct conn *c)
{
	struct sockaddr_storage *a;
	int fd;

	for (; c->next_addr < c->n_addrs; c->next_addr++) {
		a = &c->addrs[c->next_addr];
		fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, (struct sockaddr *)a, c->addrlen[c->next_addr]) == 0 ||
		    errno == EINPROGRESS) {
			if (c->sfd >= 0)
				close(c->sfd);
			c->sfd = fd;
			c->state = S_CONNECTING;
			c->deadline = now_ms() + CONNECT_MS;
			if (a->ss_family == AF_INET)
				inet_ntop(AF_INET, &((struct sockaddr_in *)a)->sin_addr, c->peer, sizeof(c->peer));
			else
				inet_ntop(AF_INET6, &((struct sockaddr_in6 *)a)->sin6_addr, c->peer, sizeof(c->peer));
			return;
		}
		close(fd);
	}
	snprintf(c->refusal, sizeof(c->refusal), "no address of %s accepted the connection",
	         c->req.host);
	strncat(c->decided, "; unreachable", sizeof(c->decided) - strlen(c->decided) - 1);
	c->peer[0] = '\0';
	refuse(p, c, 5);
}

static void connected(struct proxy *p, struct conn *c)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 || e != 0) {
		close(c->sfd);
		c->sfd = -1;
		c->next_addr++;
		start_connect(p, c);
		return;
	}
	start_relay(p, c);
}

/* --------------------------------------------------------------- heads */

/* Bytes arrived before the destination is known. */
static void head_input(struct proxy *p, struct conn *c)
{
	char why[256];
	size_t used;
	int r, code;
	ssize_t n;

	n = read(c->cfd, c->head + c->head_len, sizeof(c->head) - c->head_len);
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		c->c_eof = 1;
		c->state = S_REFUSING;  /* nothing to answer: close */
		c->s2c_len = 0;
		return;
	}
	c->head_len += (size_t)n;
	if (c->state == S_HEAD && c->head[0] == 5) {
		r = warden_proxyreq_socks_greeting(c->head, c->head_len, &used, why, sizeof(why));
		if (r == WARDEN_PROXYREQ_MORE)
			return;
		if ((c->s2c = malloc(WARDEN_PROXY_BUF)) == NULL)
			r = WARDEN_PROXYREQ_BAD;
		if (r == WARDEN_PROXYREQ_BAD) {
			snprintf(c->refusal, sizeof(c->refusal), "%s", why);
			c->via = WARDEN_PROXYREQ_SOCKS5;
			if (c->s2c != NULL) {
				c->s2c[0] = 5;
				c->s2c[1] = 0xff;
				c->s2c_len = 2;
			}
			c->state = S_REFUSING;
			return;
		}
		c->s2c[0] = 5;
		c->s2c[1] = 0;
		c->s2c_len = 2;
		memmove(c->head, c->head + used, c->head_len - used);
		c->head_len -= used;
		c->state = S_SOCKS_REQ;
		c->via = WARDEN_PROXYREQ_SOCKS5;
	}
	if (c->state == S_SOCKS_REQ) {
		r = warden_proxyreq_socks_request(c->head, c->head_len, &c->req, &code,
		                                  why, sizeof(why));
		if (r == WARDEN_PROXYREQ_MORE)
			return;
		if (r == WARDEN_PROXYREQ_BAD) {
			snprintf(c->refusal, sizeof(c->refusal), "%s", why);
			c->req.port = 0;
			refuse(p, c, code);
			return;
		}
		decide(p, c);
		return;
	}
	if (c->head[0] < 'A' || c->head[0] > 'Z') {
		r = WARDEN_PROXYREQ_BAD;
		snprintf(why, sizeof(why), "neither an HTTP request nor SOCKS5 (first byte 0x%02x)",
		         c->head[0]);
	} else {
		r = warden_proxyreq_http((const char *)c->head, c->head_len, &c->req, why,
		                         sizeof(why));
	}
	if (r == WARDEN_PROXYREQ_MORE)
		return;
	if (r == WARDEN_PROXYREQ_BAD) {
		snprintf(c->refusal, sizeof(c->refusal), "%s (warden's proxy speaks HTTP CONNECT, absolute-URI HTTP and SOCKS5)", why);
		c->req.port = 0;
		c->via = WARDEN_PROXYREQ_HTTP;
		refuse(p, c, 1);
		return;
	}
	c->via = c->req.kind;
	decide(p, c);
}

/* --------------------------------------------------------------- relay */

/* Whether a direction wants input: room in its buffer while that holds
 * bytes (or there is no pipe), else an empty pipe.  (A pipe is refilled
 * only once emptied: its room is counted in pages, not bytes, so a
 * half-full pipe may take nothing and the loop would spin.) */
static int want_in(int eof, size_t len, const int pp[2], size_t piped)
{
	if (eof)
		return 0;
	if (len > 0 || pp[1] < 0)
		return len < WARDEN_PROXY_BUF;
	return piped == 0;
}

/* Moves bytes from fd into buf (room permitting), or, the buffer empty,
 * into the pipe. */
static int fill(int fd, unsigned char *buf, size_t *len, int *eof,
                unsigned long long *count, const int pp[2], size_t *piped)
{
	ssize_t n;

	if (!want_in(*eof, *len, pp, *piped))
		return 0;
	if (*len == 0 && pp[1] >= 0) {
		n = splice(fd, NULL, pp[1], NULL, WARDEN_PROXY_PIPE,
		           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			*piped += (size_t)n;
			*count += (unsigned long long)n;
			return 0;
		}
		if (n == 0) {
			*eof = 1;
			return 0;
		}
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
	n = read(fd, buf + *len, WARDEN_PROXY_BUF - *len);
	if (n > 0) {
		*len += (size_t)n;
		*count += (unsigned long long)n;
		return 0;
	}
	if (n == 0) {
		*eof = 1;
		return 0;
	}
	return errno == EAGAIN || errno == EINTR ? 0 : -1;
}

/* Sends what the buffer holds, then (the buffer empty) what the pipe
 * holds: the buffer's bytes came first. */
static int drain(int fd, unsigned char *buf, size_t *len, const int pp[2], size_t *piped)
{
	ssize_t n;

	if (*len == 0 && piped != NULL && *piped > 0) {
		n = splice(pp[0], NULL, fd, NULL, *piped, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			*piped -= (size_t)n;
			return 0;
		}
		return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
	}
	if (*len == 0)
		return 0;
	n = send(fd, buf, *len, MSG_NOSIGNAL);
	if (n > 0) {
		memmove(buf, buf + n, *len - (size_t)n);
		*len -= (size_t)n;
		return 0;
	}
	return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
}

/* ---------------------------------------------------------------- loop */

static void add_conn(struct proxy *p, int fd)
{
	struct conn *c;
	int i;

	for (i = 0; i < WARDEN_PROXY_CONNS_MAX && p->c[i] != NULL; i++)
		;
	if (i == WARDEN_PROXY_CONNS_MAX || (c = calloc(1, sizeof(*c))) == NULL) {
		close(fd);
		return;
	}
	set_nonblock(fd);
	c->cfd = fd;
	c->sfd = -1;
	c->job_fd = -1;
	c->c2s_pipe[0] = c->c2s_pipe[1] = c->s2c_pipe[0] = c->s2c_pipe[1] = -1;
	c->state = S_HEAD;
	c->seq = p->next_seq++;
	c->deadline = now_ms() + HEAD_MS;
	p->c[i] = c;
}

static int n_conns(const struct proxy *p)
{
	int i, n = 0;

	for (i = 0; i < WARDEN_PROXY_CONNS_MAX; i++)
		n += p->c[i] != NULL;
	return n;
}

/* Accepted sockets handed over a backend's forwarder. */
static void receive_fds(struct proxy *p)
{
	char data[16];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} u;
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m;
	struct cmsghdr *cm;
	ssize_t n;
	size_t k;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	n = recvmsg(p->pfd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n == 0) {
		close(p->pfd);      /* the forwarder is gone */
		p->pfd = -1;
		return;
	}
	if (n < 0)
		return;
	for (cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (k = 0; (k + 1) * sizeof(int) <= cm->cmsg_len - CMSG_LEN(0); k++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
			add_conn(p, fd);
		}
	}
}

static void job_input(struct proxy *p, struct conn *c)
{
	ssize_t n;

	n = read(c->job_fd, c->jobbuf + c->job_len, sizeof(c->jobbuf) - 1 - c->job_len);
	if (n > 0) {
		c->job_len += (size_t)n;
		if (c->job_len < sizeof(c->jobbuf) - 1)
			return;
	} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	close(c->job_fd);
	c->job_fd = -1;
	waitpid(c->job, NULL, 0);
	c->job = 0;
	if (c->state == S_ASKING)
		answered(p, c);
	else
		resolved(p, c);
}

static void timed_out(struct proxy *p, struct conn *c)
{
	if (c->job > 0) {
		kill(c->job, SIGKILL);
		waitpid(c->job, NULL, 0);
		c->job = 0;
		close(c->job_fd);
		c->job_fd = -1;
	}
	switch (c->state) {
	case S_ASK_WAIT:
	case S_ASKING:
		if (c->state == S_ASKING)
			p->asking = 0;
		snprintf(c->decided, sizeof(c->decided), "no answer in %d s",
		         WARDEN_PROXY_ASK_MS / 1000);
		how_to_ask(c, "no answer came in time");
		refuse(p, c, 2);
		break;
	case S_RESOLVING:
		snprintf(c->refusal, sizeof(c->refusal), "resolving %s took too long", c->req.host);
		strncat(c->decided, "; no address in time", sizeof(c->decided) - strlen(c->decided) - 1);
		refuse(p, c, 4);
		break;
	case S_CONNECTING:
		close(c->sfd);
		c->sfd = -1;
		c->next_addr++;
		start_connect(p, c);
		break;
	default:
		c->c_eof = c->s_eof = 1;
		c->state = S_REFUSING;
		c->s2c_len = 0;
		break;
	}
}

/* One connection's share of the poll set. */
static void conn_events(struct conn *c, struct pollfd *pf, int *n)
{
	pf[0].fd = -1;
	pf[1].fd = -1;
	pf[2].fd = -1;
	pf[0].events = pf[1].events = pf[2].events = 0;
	switch (c->state) {
	case S_HEAD:
	case S_SOCKS_REQ:
		pf[0].fd = c->cfd;
		pf[0].events = POLLIN | (c->s2c_len ? POLLOUT : 0);
		break;
	case S_RESOLVING:
	case S_ASKING:
		pf[2].fd = c->job_fd;
		pf[2].events = POLLIN;
		break;
	case S_CONNECTING:
		pf[1].fd = c->sfd;
		pf[1].events = POLLOUT;
		break;
	case S_RELAY:
		pf[0].fd = c->cfd;
		pf[0].events = (want_in(c->c_eof, c->c2s_len, c->c2s_pipe, c->c2s_piped) ? POLLIN : 0) |
		               (c->s2c_len || c->s2c_piped ? POLLOUT : 0);
		pf[1].fd = c->sfd;
		pf[1].events = (want_in(c->s_eof, c->s2c_len, c->s2c_pipe, c->s2c_piped) ? POLLIN : 0) |
		               (c->c2s_len || c->c2s_piped ? POLLOUT : 0);
		break;
	case S_REFUSING:
		pf[0].fd = c->cfd;
		pf[0].events = POLLOUT;
		break;
	default:
		break;
	}
	/* Nothing wanted: out of the set, or a hung-up peer would wake the
	 * loop for ever. */
	if (pf[0].events == 0)
		pf[0].fd = -1;
	if (pf[1].events == 0)
		pf[1].fd = -1;
	*n += 3;
}

/* After poll: 1 when the connection is over. */
static int conn_step(struct proxy *p, struct conn *c, const struct pollfd *pf)
{
	switch (c->state) {
	case S_HEAD:
	case S_SOCKS_REQ:
		if (pf[0].revents & POLLOUT && drain(c->cfd, c->s2c, &c->s2c_len, NULL, NULL) < 0)
			return 1;
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR))
			head_input(p, c);
		return 0;
	case S_RESOLVING:
	case S_ASKING:
		if (pf[2].revents)
			job_input(p, c);
		return 0;
	case S_CONNECTING:
		if (pf[1].revents)
			connected(p, c);
		return 0;
	case S_RELAY:
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR) &&
		    fill(c->cfd, c->c2s, &c->c2s_len, &c->c_eof, &c->up, c->c2s_pipe, &c->c2s_piped) < 0)
			return 1;
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR) &&
		    fill(c->sfd, c->s2c, &c->s2c_len, &c->s_eof, &c->down, c->s2c_pipe, &c->s2c_piped) < 0)
			return 1;
		if (drain(c->sfd, c->c2s, &c->c2s_len, c->c2s_pipe, &c->c2s_piped) < 0 ||
		    drain(c->cfd, c->s2c, &c->s2c_len, c->s2c_pipe, &c->s2c_piped) < 0)
			return 1;
		if (c->c_eof && c->c2s_len == 0 && c->c2s_piped == 0 && !c->s_shut) {
			shutdown(c->sfd, SHUT_WR);
			c->s_shut = 1;
		}
		if (c->s_eof && c->s2c_len == 0 && c->s2c_piped == 0 && !c->c_shut) {
			shutdown(c->cfd, SHUT_WR);
			c->c_shut = 1;
		}
		return c->c_shut && c->s_shut;
	case S_REFUSING:
		if (c->s2c_len == 0 || drain(c->cfd, c->s2c, &c->s2c_len, NULL, NULL) < 0)
			return 1;
		return c->s2c_len == 0;
	default:
		return 0;
	}
}

static void serve(struct proxy *p)
{
	struct pollfd *pf;
	sigset_t block, old;
	long long t, first;
	int i, n, timeout;

	pf = calloc(2 + 3 * WARDEN_PROXY_CONNS_MAX, sizeof(*pf));
	if (pf == NULL)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!stopping) {
		next_question(p);
		n = 2;
		pf[0].fd = n_conns(p) < WARDEN_PROXY_CONNS_MAX ? p->lfd : -1;
		pf[0].events = POLLIN;
		pf[1].fd = n_conns(p) < WARDEN_PROXY_CONNS_MAX ? p->pfd : -1;
		pf[1].events = POLLIN;
		first = 0;
		for (i = 0; i < WARDEN_PROXY_CONNS_MAX; i++) {
			if (p->c[i] == NULL) {
				pf[2 + 3 * i].fd = pf[3 + 3 * i].fd = pf[4 + 3 * i].fd = -1;
				continue;
			}
			conn_events(p->c[i], &pf[2 + 3 * i], &n);
			if (p->c[i]->deadline && (first == 0 || p->c[i]->deadline < first))
				first = p->c[i]->deadline;
		}
		t = now_ms();
		timeout = first == 0 ? -1 : first <= t ? 0 : (int)(first - t > 60000 ? 60000 : first - t);
		{
			struct timespec ts, *tsp = NULL;
			if (timeout >= 0) {
				ts.tv_sec = timeout / 1000;
				ts.tv_nsec = (long)(timeout % 1000) * 1000000L;
				tsp = &ts;
			}
			if (ppoll(pf, 2 + 3 * WARDEN_PROXY_CONNS_MAX, tsp, &old) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
		}
		if (pf[0].fd >= 0 && pf[0].revents & POLLIN) {
			int fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0)
				add_conn(p, fd);
		}
		if (pf[1].fd >= 0 && pf[1].revents)
			receive_fds(p);
		t = now_ms();
		for (i = 0; i < WARDEN_PROXY_CONNS_MAX; i++) {
			struct conn *c = p->c[i];
			const struct pollfd *cp = &pf[2 + 3 * i];

			if (c == NULL || (cp[0].fd == -1 && cp[1].fd == -1 && cp[2].fd == -1 &&
			                  !(c->deadline && c->deadline <= t)))
				continue;
			if (c->deadline && c->deadline <= t && c->state != S_RELAY &&
			    c->state != S_REFUSING) {
				timed_out(p, c);
				continue;
			}
			if (conn_step(p, c, cp))
				conn_free(p, i, c->state == S_RELAY ? "allowed" : "refused");
		}
	}
	/* The run is over: what is still open ends now, and is logged. */
	for (i = 0; i < WARDEN_PROXY_CONNS_MAX; i++)
		if (p->c[i] != NULL)
			conn_free(p, i, p->c[i]->state == S_RELAY ? "allowed"
			                : p->c[i]->req.port ? "refused" : NULL);
	free(pf);
}

/* ---------------------------------------------------------------- host */

int warden_proxy_start(const struct warden_proxy_opts *o,
                       struct warden_proxy **out, struct warden_error *err)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	struct warden_proxy *wp;
	struct proxy p;
	char why[512];
	int sp[2] = { -1, -1 }, rp[2] = { -1, -1 }, lfd, i;
	pid_t pid;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	if (o->cfg->hosts_file != NULL &&
	    warden_hosts_load(o->cfg->hosts_file, &p.hosts, why, sizeof(why)) < 0)
		return warden_error_set(err, WARDEN_EUNAVAILABLE,
		                        "the allowlist proxy cannot start: %s (fix [warden] hosts_file in %s)",
		                        why, o->cfg->file);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(lfd, 64) < 0 || getsockname(lfd, (struct sockaddr *)&sin, &len) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0 ||
	    pipe2(rp, O_CLOEXEC) < 0) {
		int e = errno;
		if (lfd >= 0)
			close(lfd);
		for (i = 0; i < 2; i++) {
			if (sp[i] >= 0)
				close(sp[i]);
			if (rp[i] >= 0)
				close(rp[i]);
		}
		warden_hosts_free(&p.hosts);
		return warden_error_set(err, WARDEN_EUNAVAILABLE,
		                        "the allowlist proxy cannot start: %s", strerror(e));
	}
	if ((wp = calloc(1, sizeof(*wp))) == NULL ||
	    (pid = fork()) < 0) {
		int e = errno;
		free(wp);
		close(lfd);
		close(sp[0]);
		close(sp[1]);
		close(rp[0]);
		close(rp[1]);
		warden_hosts_free(&p.hosts);
		return warden_error_set(err, WARDEN_EUNAVAILABLE,
		                        "the allowlist proxy cannot start: %s", strerror(e));
	}
	if (pid == 0) {
		struct warden_error e2 = { 0, "" };
		struct sigaction sa;
		size_t k;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		signal(SIGINT, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		close(sp[0]);
		close(rp[0]);
		/* Its own lock on the log, apart from the host's (which goes
		 * on appending, e.g. while serve answers other calls). */
		if (o->session != NULL &&
		    warden_session_reopen(o->session, &e2) < 0) {
			fprintf(stderr, "warden: the allowlist proxy: %s\n", e2.msg);
			_exit(1);
		}
		p.o = o;
		p.lfd = lfd;
		p.pfd = sp[1];
		p.report_fd = rp[1];
		set_nonblock(lfd);
		serve(&p);
		for (k = 0; k < p.n_refused; k++) {
			write_all(rp[1], p.refused[k], strlen(p.refused[k]));
			write_all(rp[1], "\n", 1);
		}
		_exit(0);
	}
	close(lfd);
	close(sp[1]);
	close(rp[1]);
	warden_hosts_free(&p.hosts);
	wp->pid = pid;
	wp->port = ntohs(sin.sin_port);
	wp->pass_fd = sp[0];
	wp->report_fd = rp[0];
	*out = wp;
	return 0;
}

void warden_proxy_stop(struct warden_proxy *p, char ***refused)
{
	char buf[WARDEN_PROXY_REFUSED_MAX * 301], *line, *save = NULL;
	size_t have = 0, n = 0;
	ssize_t got;
	char **list = NULL;

	if (refused != NULL)
		*refused = NULL;
	if (p == NULL)
		return;
	if (p->pass_fd >= 0)
		close(p->pass_fd);
	kill(p->pid, SIGTERM);
	while (have < sizeof(buf) - 1 &&
	       ((got = read(p->report_fd, buf + have, sizeof(buf) - 1 - have)) > 0 ||
	        (got < 0 && errno == EINTR)))
		if (got > 0)
			have += (size_t)got;
	buf[have] = '\0';
	close(p->report_fd);
	while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (refused != NULL && have > 0 &&
	    (list = calloc(WARDEN_PROXY_REFUSED_MAX + 1, sizeof(*list))) != NULL) {
		for (line = strtok_r(buf, "\n", &save); line != NULL && n < WARDEN_PROXY_REFUSED_MAX;
		     line = strtok_r(NULL, "\n", &save))
			if ((list[n] = strdup(line)) != NULL)
				n++;
		*refused = list;
	}
	free(p);
}

int warden_proxy_env(int port, char **out, size_t cap)
{
	static const char *const names[] = {
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
		"ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
	};
	size_t i;

	if (cap < WARDEN_PROXY_ENV_N)
		return -1;
	for (i = 0; i < WARDEN_PROXY_ENV_N; i++) {
		char v[96];

		if (strncmp(names[i], "NO", 2) == 0 || strncmp(names[i], "no", 2) == 0)
			v[0] = '\0';
		else if (strncmp(names[i], "ALL", 3) == 0 || strncmp(names[i], "all", 3) == 0)
			snprintf(v, sizeof(v), "socks5h://127.0.0.1:%d", port);
		else
			snprintf(v, sizeof(v), "http://127.0.0.1:%d", port);
		if ((out[i] = malloc(strlen(names[i]) + strlen(v) + 2)) == NULL) {
			while (i > 0)
				free(out[--i]);
			return -1;
		}
		sprintf(out[i], "%s=%s", names[i], v);
	}
	return WARDEN_PROXY_ENV_N;
}
