/*
 * unixgate.c — the supervisor of allow_unix_socket; see unixgate.h for
 * what it lets through and why.
 */
#include "config.h"

#include "unixgate.h"

#include "netguard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of any thread */
#endif

#if defined(__x86_64__)
#define UG_NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define UG_NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define UG_NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__i386__)
#define UG_NATIVE_ARCH AUDIT_ARCH_I386
#else
#error "unixgate: add this architecture's AUDIT_ARCH to unixgate.c"
#endif

int warden_unixgate_install(int netguard_flags)
{
	struct sock_filter insn[WARDEN_NETGUARD_MAX_INSNS];
	struct sock_fprog fprog;
	int n = warden_netguard_build(netguard_flags | WARDEN_NETGUARD_UNIX_GATED,
	                              insn, WARDEN_NETGUARD_MAX_INSNS);

	if (n < 0)
		return -1;
	fprog.len = (unsigned short)n;
	fprog.filter = insn;
	/* The listener the kernel returns is close-on-exec. */
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
	                    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
}

int warden_unixgate_send(int chan, int fd)
{
	char byte = 'L';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg;
	struct cmsghdr *c;
	ssize_t n;

	memset(&u, 0, sizeof u);
	memset(&msg, 0, sizeof msg);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof u.buf;
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		n = sendmsg(chan, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

int warden_unixgate_recv(int chan)
{
	char byte;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg;
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	memset(&msg, 0, sizeof msg);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof u.buf;
	do
		n = recvmsg(chan, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (n != 1 || c == NULL || c->cmsg_level != SOL_SOCKET ||
	    c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)) ||
	    (msg.msg_flags & MSG_CTRUNC)) {
		errno = EPIPE;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

int warden_unixgate_pin(struct warden_unixgate *g)
{
	size_t i;

	g->pinned = malloc((g->n_allow > 0 ? g->n_allow : 1) * sizeof(*g->pinned));
	if (g->pinned == NULL)
		return -1;
	for (i = 0; i < g->n_allow; i++) {
		struct stat st;
		int fd = open(g->allow[i], O_PATH | O_CLOEXEC);

		if (fd < 0) {
			g->pinned[i] = -(errno != 0 ? errno : ENOENT);
		} else if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
			close(fd);
			g->pinned[i] = -ECONNREFUSED; /* what connect() says */
		} else {
			g->pinned[i] = fd;
		}
	}
	return 0;
}

/* The index of the listed name the address names exactly, or -1. */
static long listed(const struct warden_unixgate *g,
                   const struct sockaddr_un *sun, size_t len)
{
	size_t room = len - offsetof(struct sockaddr_un, sun_path);
	size_t n = strnlen(sun->sun_path, room), i;

	for (i = 0; i < g->n_allow; i++)
		if (strlen(g->allow[i]) == n &&
		    memcmp(g->allow[i], sun->sun_path, n) == 0)
			return (long)i;
	return -1;
}

/* A pidfd of the calling thread (any thread since Linux 6.9; a process's
 * first thread before). */
static int pidfd_of(pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_pidfd_open, tid, 0);
	return fd;
}

/* listen() on the caller's socket: never on a unix one (the command
 * binds none; one it has is the kernel's autobind, see unixgate.h), on
 * an IP one only inside a network namespace of the command's own (on an
 * unbound socket listen() binds an ephemeral port itself). */
static int decide_listen(int pidfd, const struct seccomp_notif *req,
                         const struct warden_unixgate *g)
{
	int sock = (int)syscall(SYS_pidfd_getfd, pidfd,
	                        (int)(uint32_t)req->data.args[0], 0), e, domain;
	socklen_t dlen = sizeof(domain);

	e = errno;
	if (sock < 0)
		return e == EBADF ? EBADF : EACCES;
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) < 0)
		e = errno == ENOTSOCK ? ENOTSOCK : EACCES;
	else if (domain == AF_UNIX || !g->inet)
		e = EACCES;
	else
		e = listen(sock, (int)req->data.args[1]) < 0 ? errno : 0;
	close(sock);
	return e;
}

static int still_waiting(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The errno the caller gets (0: the call succeeded). */
static int decide(int listener, const struct seccomp_notif *req,
                  const struct warden_unixgate *g)
{
	union {
		struct sockaddr sa;
		struct sockaddr_un sun;
		struct sockaddr_storage ss;
	} addr, own;
	const struct sockaddr *call_addr;
	socklen_t call_len;
	size_t len = (size_t)req->data.args[2];
	int connecting = req->data.nr == __NR_connect;
	int pidfd, sock, rc, e;
	struct iovec local, remote;

	if (req->data.arch != UG_NATIVE_ARCH ||
	    (!connecting && req->data.nr != __NR_bind &&
	     req->data.nr != __NR_listen))
		return EACCES;
	pidfd = pidfd_of((pid_t)req->pid);
	if (pidfd < 0)
		return EACCES;
	/* Still waiting: the pid was not reused, the pidfd is the caller's. */
	if (!still_waiting(listener, req->id)) {
		close(pidfd);
		return EACCES;
	}
	if (req->data.nr == __NR_listen) {
		e = decide_listen(pidfd, req, g);
		close(pidfd);
		return e;
	}
	if (len < sizeof(sa_family_t) || len > sizeof addr.ss) {
		close(pidfd);
		return EINVAL;
	}
	memset(&addr, 0, sizeof addr);
	local.iov_base = &addr;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)req->data.args[1];
	remote.iov_len = len;
	if (process_vm_readv((pid_t)req->pid, &local, 1, &remote, 1, 0) != (ssize_t)len) {
		e = errno == EFAULT ? EFAULT : EACCES;
		close(pidfd);
		return e;
	}
	/* The memory read was the caller's, not a successor's. */
	if (!still_waiting(listener, req->id)) {
		close(pidfd);
		return EACCES;
	}
	if (addr.sa.sa_family == AF_UNIX) {
		long k;
		int n;

		if (!connecting || len == sizeof(sa_family_t) ||
		    addr.sun.sun_path[0] == '\0' ||
		    (k = listed(g, &addr.sun, len)) < 0) {
			close(pidfd);
			return len == sizeof(sa_family_t) ? EINVAL : EACCES;
		}
		if (g->pinned[k] < 0) {
			close(pidfd);
			return -g->pinned[k];
		}
		/* The socket the name led to at the start, not the bytes read
		 * nor what the name leads to now: nothing the caller writes
		 * after the check, nor a link or another socket it put in
		 * the name's place, is what gets connected. */
		memset(&own, 0, sizeof own);
		own.sun.sun_family = AF_UNIX;
		n = snprintf(own.sun.sun_path, sizeof own.sun.sun_path,
		             "/proc/self/fd/%d", g->pinned[k]);
		call_addr = &own.sa;
		call_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		                       (size_t)n + 1);
	} else if (g->inet) {
		call_addr = &addr.sa;
		call_len = (socklen_t)len;
	} else {
		close(pidfd);
		return EACCES;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd,
	                    (int)(uint32_t)req->data.args[0], 0);
	e = errno;
	close(pidfd);
	if (sock < 0)
		return e == EBADF ? EBADF : EACCES;
	rc = connecting ? connect(sock, call_addr, call_len)
	                : bind(sock, call_addr, call_len);
	e = rc < 0 ? errno : 0;
	close(sock);
	return e;
}

int warden_unixgate_answer(int listener, const struct warden_unixgate *g)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof req);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -1;
	memset(&resp, 0, sizeof resp);
	resp.id = req.id;
	resp.error = -decide(listener, &req, g);
	resp.val = 0;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 &&
	    errno != ENOENT && errno != EINTR)
		return -1;
	return 0;
}
