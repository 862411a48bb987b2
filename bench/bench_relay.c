/*
 * bench_relay — the least a relaying proxy can do, as a baseline.
 *
 *   bench_relay PORT
 *
 * listens on 127.0.0.1 (a port of the kernel's choosing, printed on
 * stdout as one line), and relays each connection to 127.0.0.1:PORT:
 * two threads per connection, each moving one direction by splice(2)
 * through a pipe, blocking, with no parsing, no policy and no
 * accounting.  It runs until it is killed.
 *
 * `make bench` downloads the same file through it as through warden's
 * proxy: whatever a relay costs on this machine (the bytes cross the
 * loopback twice, a third process shares the CPUs) is in its figure, and
 * what the proxy costs beyond it is the proxy's own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* One connection: the client's socket and the server's; the second of
 * its two directions to end closes both. */
struct conn {
	int fd[2];
	int left;
};

struct way {
	struct conn *c;
	int from, to;
};

static void *pump(void *arg)
{
	struct way *w = arg;
	struct conn *c = w->c;
	int pp[2];
	ssize_t n, m;

	if (pipe(pp) < 0)
		goto out;
	for (;;) {
		n = splice(w->from, NULL, pp[1], NULL, 1 << 20, SPLICE_F_MOVE);
		if (n <= 0)
			break;
		while (n > 0) {
			m = splice(pp[0], NULL, w->to, NULL, (size_t)n, SPLICE_F_MOVE);
			if (m <= 0)
				goto closed;
			n -= m;
		}
	}
closed:
	close(pp[0]);
	close(pp[1]);
out:
	shutdown(w->to, SHUT_WR);
	free(w);
	if (__atomic_sub_fetch(&c->left, 1, __ATOMIC_ACQ_REL) == 0) {
		close(c->fd[0]);
		close(c->fd[1]);
		free(c);
	}
	return NULL;
}

static int start(struct conn *c, int from, int to)
{
	struct way *w = malloc(sizeof(*w));
	pthread_t t;

	if (w == NULL)
		return -1;
	w->c = c;
	w->from = from;
	w->to = to;
	if (pthread_create(&t, NULL, pump, w) != 0) {
		free(w);
		return -1;
	}
	pthread_detach(t);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	struct conn *conn;
	int l, c, s, one = 1;
	long port;

	if (argc != 2 || (port = strtol(argv[1], NULL, 10)) < 1 || port > 65535) {
		fprintf(stderr, "usage: bench_relay PORT\n");
		return 2;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 16) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0) {
		perror("bench_relay: listen");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	a.sin_port = htons((unsigned short)port);
	for (;;) {
		if ((c = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
			continue;
		s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		conn = malloc(sizeof(*conn));
		if (s < 0 || conn == NULL || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
			/* A relay that cannot relay says so by closing. */
			perror("bench_relay: connect");
			close(c);
			if (s >= 0)
				close(s);
			free(conn);
			continue;
		}
		conn->fd[0] = c;
		conn->fd[1] = s;
		conn->left = 2;
		if (start(conn, c, s) < 0) {
			close(c);
			close(s);
			free(conn);
		} else if (start(conn, s, c) < 0) {
			/* The running direction ends, and the last one closes. */
			shutdown(c, SHUT_RDWR);
			shutdown(s, SHUT_RDWR);
			if (__atomic_sub_fetch(&conn->left, 1, __ATOMIC_ACQ_REL) == 0) {
				close(c);
				close(s);
				free(conn);
			}
		}
	}
}
