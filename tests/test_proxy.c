/*
 * test_proxy.c — the allowlist proxy (host/proxy.h) as a real forked
 * process on loopback, with a real server behind it: each way of asking
 * (CONNECT, absolute-URI HTTP, SOCKS5 by name and by address), deny wins,
 * a private address refused unless listed exactly, an unknown destination
 * refused without a session to ask in, an accepted socket handed over the
 * backends' socket pair.  (Questions and the log: tests/run/allowlist.sh.)
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "proxy.h"
#include "wconfig.h"

static char dir[] = "/tmp/warden-test-proxy-XXXXXX";
static int server_port;
static pid_t server_pid;
static struct warden_config *cfg;
static struct warden_proxy *px;

/* A server that answers every connection with "hello <what it read>". */
static void server(int lfd)
{
	for (;;) {
		char buf[512], out[600];
		ssize_t n;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		/* "ECHO...": everything read goes back, to the end. */
		if (n >= 4 && memcmp(buf, "ECHO", 4) == 0) {
			static char big[65536];

			memcpy(big, buf, (size_t)n);
			do {
				ssize_t off = 0, w;

				while (off < n && (w = write(fd, big + off, (size_t)(n - off))) > 0)
					off += w;
			} while ((n = read(fd, big, sizeof(big))) > 0);
			close(fd);
			continue;
		}
		buf[n > 0 ? n : 0] = '\0';
		n = snprintf(out, sizeof(out), "hello %s", buf);
		if (write(fd, out, (size_t)n) < 0)
			_exit(1);
		close(fd);
	}
}

static int setup(void **state)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	struct warden_error err = { 0, "" };
	char path[256], text[512];
	static struct warden_proxy_opts o;
	FILE *f;
	int lfd;

	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/hosts", dir);
	f = fopen(path, "w");
	fprintf(f, "127.0.0.1 good.test bad.test sub.good.test\n");
	fclose(f);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len) < 0)
		return -1;
	server_port = ntohs(sin.sin_port);
	if ((server_pid = fork()) == 0)
		server(lfd);
	close(lfd);
	snprintf(text, sizeof(text),
	         "[warden]\nallowed_domains = good.test *.good.test 127.0.0.1\n"
	         "denied_domains = bad.test\nhosts_file = %s\n", path);
	if (warden_config_parse(text, "/etc/w.ini", &cfg, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	o.cfg = cfg;
	if (warden_proxy_start(&o, &px, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char **refused = NULL;
	char cmd[300];

	(void)state;
	warden_proxy_stop(px, &refused);
	if (refused != NULL) {
		for (size_t i = 0; refused[i] != NULL; i++)
			free(refused[i]);
		free(refused);
	}
	kill(server_pid, SIGKILL);
	waitpid(server_pid, NULL, 0);
	warden_config_free(cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static int dial(void)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)px->port);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* Sends req (len bytes), then reads everything until EOF. */
static char *exchange(int fd, const void *req, size_t len)
{
	static char buf[8192];
	size_t have = 0;
	ssize_t n;

	assert_int_equal(write(fd, req, len), (ssize_t)len);
	shutdown(fd, SHUT_WR);
	while (have < sizeof(buf) - 1 && (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += (size_t)n;
	buf[have] = '\0';
	close(fd);
	return buf;
}

static void test_connect_to_an_allowed_name_relays_both_ways(void **state)
{
	char req[256], *r;

	(void)state;
	snprintf(req, sizeof(req), "CONNECT good.test:%d HTTP/1.1\r\nHost: good.test\r\n\r\nping", server_port);
	r = exchange(dial(), req, strlen(req));
	assert_non_null(strstr(r, "HTTP/1.1 200"));
	assert_non_null(strstr(r, "hello ping"));
}

/* 8 MiB each way through CONNECT, arriving whole and in order: the head's
 * leftover goes through the buffer, the rest by splice through a pipe. */
static void test_a_large_transfer_arrives_whole_both_ways(void **state)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	size_t total = 8u << 20, have = 0, i;
	unsigned char *data = malloc(total), *got = malloc(total + 256);
	char req[256];
	int fd = dial(), st;
	ssize_t n;
	pid_t w;

	(void)state;
	assert_non_null(data);
	assert_non_null(got);
	for (i = 0; i < total; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	memcpy(data, "ECHO", 4);
	n = snprintf(req, sizeof(req), "CONNECT good.test:%d HTTP/1.1\r\nHost: good.test\r\n\r\n",
	             server_port);
	assert_int_equal(write(fd, req, (size_t)n), n);
	w = fork();
	assert_true(w >= 0);
	if (w == 0) {
		size_t off = 0;

		while (off < total && (n = write(fd, data + off, total - off)) > 0)
			off += (size_t)n;
		shutdown(fd, SHUT_WR);
		_exit(off == total ? 0 : 1);
	}
	while (have < total + 256 && (n = read(fd, got + have, total + 256 - have)) > 0)
		have += (size_t)n;
	assert_int_equal(waitpid(w, &st, 0), w);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd);
	assert_int_equal(have, sizeof(ok) - 1 + total);
	assert_memory_equal(got, ok, sizeof(ok) - 1);
	assert_memory_equal(got + sizeof(ok) - 1, data, total);
	free(data);
	free(got);
}

static void test_absolute_uri_is_sent_in_origin_form(void **state)
{
	char req[256], *r;

	(void)state;
	snprintf(req, sizeof(req), "GET http://good.test:%d/x?y HTTP/1.1\r\nHost: good.test\r\n"
	         "Proxy-Connection: keep-alive\r\n\r\n", server_port);
	r = exchange(dial(), req, strlen(req));
	assert_non_null(strstr(r, "hello GET /x?y HTTP/1.1\r\nHost: good.test\r\nConnection: close\r\n\r\n"));
	assert_null(strstr(r, "Proxy-Connection"));
}

static void test_socks5_by_name_and_by_listed_address(void **state)
{
	unsigned char req[64];
	size_t n = 0;
	char *r;

	(void)state;
	memcpy(req, "\x05\x01\x00" "\x05\x01\x00\x03\x09" "good.test", 3 + 5 + 9);
	n = 17;
	req[n++] = (unsigned char)(server_port >> 8);
	req[n++] = (unsigned char)server_port;
	memcpy(req + n, "ping", 4);
	r = exchange(dial(), req, n + 4);
	assert_int_equal((unsigned char)r[0], 5);
	assert_int_equal(r[1], 0);     /* no authentication */
	assert_int_equal(r[3], 0);     /* succeeded */
	assert_non_null(strstr(r + 12, "hello ping"));

	memcpy(req, "\x05\x01\x00" "\x05\x01\x00\x01" "\x7f\x00\x00\x01", 11);
	req[11] = (unsigned char)(server_port >> 8);
	req[12] = (unsigned char)server_port;
	r = exchange(dial(), req, 13);
	assert_int_equal(r[3], 0);
}

static void test_deny_wins_over_allow(void **state)
{
	char req[256], *r;

	(void)state;
	snprintf(req, sizeof(req), "CONNECT bad.test:%d HTTP/1.1\r\n\r\n", server_port);
	r = exchange(dial(), req, strlen(req));
	assert_non_null(strstr(r, "HTTP/1.1 403"));
	assert_non_null(strstr(r, "denied_domains = bad.test"));
	assert_null(strstr(r, "hello"));
}

static void test_a_private_address_needs_the_destination_listed(void **state)
{
	char req[256], *r;

	(void)state;
	/* sub.good.test is allowed through *.good.test only; its address
	 * comes from hosts_file, the operator's word, so it is reached. */
	snprintf(req, sizeof(req), "CONNECT sub.good.test:%d HTTP/1.1\r\n\r\nx", server_port);
	r = exchange(dial(), req, strlen(req));
	assert_non_null(strstr(r, "hello x"));
	/* 127.0.0.2 is not listed: unknown, and nobody to ask. */
	snprintf(req, sizeof(req), "CONNECT 127.0.0.2:%d HTTP/1.1\r\n\r\n", server_port);
	r = exchange(dial(), req, strlen(req));
	assert_non_null(strstr(r, "HTTP/1.1 403"));
	assert_non_null(strstr(r, "--escalate-network"));
}

static void test_unknown_without_a_session_is_refused_with_how_to_ask(void **state)
{
	unsigned char req[64];
	char h[256], *r;

	(void)state;
	snprintf(h, sizeof(h), "GET http://unknown.example:%d/ HTTP/1.1\r\n\r\n", server_port);
	r = exchange(dial(), h, strlen(h));
	assert_non_null(strstr(r, "HTTP/1.1 403"));
	assert_non_null(strstr(r, "add unknown.example to [warden] allowed_domains"));
	memcpy(req, "\x05\x01\x00" "\x05\x01\x00\x03\x0f" "unknown.example\x00\x50", 3 + 5 + 15 + 2);
	r = exchange(dial(), req, 25);
	assert_int_equal(r[3], 2);     /* not allowed by ruleset */
}

static void test_garbage_and_other_commands_are_refused(void **state)
{
	char *r;

	(void)state;
	r = exchange(dial(), "hello\r\n\r\n", 9);
	assert_non_null(strstr(r, "HTTP/1.1 403"));
	r = exchange(dial(), "\x05\x01\x00\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50", 13);
	assert_int_equal(r[3], 7);     /* BIND: command not supported */
	r = exchange(dial(), "\x04\x01\x00\x50\x7f\x00\x00\x01\x00", 9);
	assert_non_null(strstr(r, "HTTP/1.1 403"));
	/* A bare LF would end a header line for the server only (found by
	 * fuzz_proxyreq, fuzz/corpus/proxyreq/bare-lf). */
	r = exchange(dial(), "GET http://good.test/ HTTP/1.1\r\nA: b\nProxy-X: y\r\n\r\n", 51);
	assert_non_null(strstr(r, "bare CR or LF"));
}

static void test_a_socket_handed_over_the_pair_is_served(void **state)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { "x", 1 };
	struct msghdr m;
	char req[256], *r;
	int sp[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &sp[1], sizeof(int));
	assert_int_equal(sendmsg(px->pass_fd, &m, 0), 1);
	close(sp[1]);
	snprintf(req, sizeof(req), "CONNECT good.test:%d HTTP/1.1\r\n\r\nvia pair", server_port);
	r = exchange(sp[0], req, strlen(req));
	assert_non_null(strstr(r, "hello via pair"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_to_an_allowed_name_relays_both_ways),
		cmocka_unit_test(test_a_large_transfer_arrives_whole_both_ways),
		cmocka_unit_test(test_absolute_uri_is_sent_in_origin_form),
		cmocka_unit_test(test_socks5_by_name_and_by_listed_address),
		cmocka_unit_test(test_deny_wins_over_allow),
		cmocka_unit_test(test_a_private_address_needs_the_destination_listed),
		cmocka_unit_test(test_unknown_without_a_session_is_refused_with_how_to_ask),
		cmocka_unit_test(test_garbage_and_other_commands_are_refused),
		cmocka_unit_test(test_a_socket_handed_over_the_pair_is_served),
	};
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
