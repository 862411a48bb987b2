/*
 * unixgate.c — the supervisor of allow_unix_socket; see unixgate.h for
 * what it lets through and why.
 */
#include "config.h"

#include "unixgate.h"

#include "bpf.h"
#include "netguard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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
	else if (domain == AF_UNIX || !g->own_netns)
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

/* Whether a listening unix socket of this network namespace is bound to
 * the file st describes (sock_diag lists this namespace's sockets only). */
static int listening_here(const struct stat *st)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req;
	union {
		struct nlmsghdr h;
		char buf[16384];
	} u;
	/* sock_diag gives the kernel's dev_t, stat(2) its encoding. */
	uint32_t kdev = ((uint32_t)major(st->st_dev) << 20) | (uint32_t)minor(st->st_dev);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	int found = 0, done = 0;

	if (fd < 0)
		return 0;
	memset(&req, 0, sizeof req);
	req.nlh.nlmsg_len = sizeof req;
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = 1u << 10; /* TCP_LISTEN */
	req.r.udiag_show = UDIAG_SHOW_VFS;
	if (send(fd, &req, sizeof req, 0) != (ssize_t)sizeof req)
		done = 1;
	while (!done) {
		ssize_t n = recv(fd, u.buf, sizeof u.buf, 0);
		const struct nlmsghdr *h;
		int left;

		if (n <= 0)
			break;
		left = (int)n;
		for (h = &u.h; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			const struct unix_diag_msg *m;
			const struct rtattr *a;
			int alen;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				continue;
			m = NLMSG_DATA(h);
			a = (const struct rtattr *)(m + 1);
			alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				struct unix_diag_vfs v;

				if (a->rta_type != UNIX_DIAG_VFS ||
				    RTA_PAYLOAD(a) < sizeof(v))
					continue;
				memcpy(&v, RTA_DATA(a), sizeof(v));
				if (v.udiag_vfs_ino == st->st_ino && v.udiag_vfs_dev == kdev)
					found = 1;
			}
		}
	}
	close(fd);
	return found;
}

/* The file type and mode of fd, or 0. */
static mode_t mode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_mode : 0;
}

/*
 * What the pathname address names, resolved as connect() would resolve it
 * for the caller (from its directory, following links): an O_PATH
 * descriptor of it, or -errno.  The supervisor sees the caller's file
 * system, so this tells the caller nothing a stat() would not.  A
 * relative name is resolved only with own_netns, where the supervisor's
 * /proc is its PID namespace's (bwrap mounts it): without, /proc is the
 * host's, where the caller's pid names another process, and the name is
 * refused (-EACCES).
 */
static int open_for_caller(const struct seccomp_notif *req,
                           const struct warden_unixgate *g,
                           const struct sockaddr_un *sun, size_t len)
{
	size_t room = len - offsetof(struct sockaddr_un, sun_path);
	char path[sizeof(sun->sun_path) + 1], dir[64];
	size_t n = strnlen(sun->sun_path, room);
	int dfd = AT_FDCWD, fd;

	memcpy(path, sun->sun_path, n);
	path[n] = '\0';
	if (path[0] != '/') {
		if (!g->own_netns)
			return -EACCES;
		snprintf(dir, sizeof dir, "/proc/%u/cwd", req->pid);
		dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -EACCES;
	}
	fd = openat(dfd, path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	if (dfd != AT_FDCWD)
		close(dfd);
	return fd;
}

/* Whether fd (open_for_caller's) is the command's own socket: a socket
 * file whose listener lives in this network namespace, opened from the
 * caller's directory and not a successor's. */
static int own_socket(int listener, const struct seccomp_notif *req, int fd)
{
	struct stat st;

	return still_waiting(listener, req->id) && fstat(fd, &st) == 0 &&
	       S_ISSOCK(st.st_mode) && listening_here(&st);
}

/* Names of host services that the C library asks of its own accord and
 * does without when refused (the name-service cache: getpwuid(), which a
 * shell calls when HOME or SHELL is unset, tries it first).  Refused like
 * any other, but not said: the line would blame the network for a command
 * that failed for its own reasons. */
static const char *const unsaid[] = {
	"/var/run/nscd/socket",
	"/run/nscd/socket",
};

static int is_unsaid(const struct sockaddr_un *sun, size_t len)
{
	size_t room = len - offsetof(struct sockaddr_un, sun_path);
	size_t n = strnlen(sun->sun_path, room), i;

	for (i = 0; i < sizeof unsaid / sizeof unsaid[0]; i++)
		if (strlen(unsaid[i]) == n && memcmp(unsaid[i], sun->sun_path, n) == 0)
			return 1;
	return 0;
}

/* Refusals said on stderr (the command's): the first few, then that more
 * went unsaid.  The line is what the host's classifier and the agent read
 * (WARDEN_UNIXGATE_REFUSED). */
#define SAY_AT_MOST 5

static void say_refused(int connecting, const struct sockaddr_un *sun,
                        size_t len)
{
	static unsigned said;
	char what[sizeof(sun->sun_path) + 8];
	size_t k = 0, i, room;

	if (said > SAY_AT_MOST)
		return;
	if (said++ == SAY_AT_MOST) {
		dprintf(2, "warden: (further refusals by the restricted network not shown)\n");
		return;
	}
	if (sun->sun_family != AF_UNIX) {
		snprintf(what, sizeof what, "%s", sun->sun_family == AF_INET ? "an IPv4 address"
		         : sun->sun_family == AF_INET6 ? "an IPv6 address" : "an address");
	} else {
		room = len - offsetof(struct sockaddr_un, sun_path);
		if (room > 0 && sun->sun_path[0] == '\0')
			what[k++] = '@';
		for (i = k; i < room && k + 1 < sizeof what; i++) {
			unsigned char c = (unsigned char)sun->sun_path[i];

			if (c == '\0')
				break;
			what[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
		what[k] = '\0';
	}
	dprintf(2, "warden: %s %s " WARDEN_UNIXGATE_REFUSED " (allow_unix_socket lists the host sockets it lets through)\n",
	        connecting ? "connect to" : "bind to", what);
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
	int pidfd, sock, rc, e, target = -1;
	struct iovec local, remote;

	if (req->data.arch != WARDEN_BPF_NATIVE_ARCH ||
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

		/* A unix bind reaches the supervisor only where it is refused
		 * (with own_netns the filter lets it pass). */
		if (!connecting || len == sizeof(sa_family_t)) {
			close(pidfd);
			if (!connecting)
				say_refused(0, &addr.sun, len);
			return connecting ? EINVAL : EACCES;
		}
		memset(&own, 0, sizeof own);
		own.sun.sun_family = AF_UNIX;
		if (addr.sun.sun_path[0] == '\0') {
			/* Abstract: the network namespace's, so the command's
			 * own only with own_netns. */
			if (!g->own_netns) {
				close(pidfd);
				say_refused(1, &addr.sun, len);
				return EACCES;
			}
			call_addr = &addr.sa;
			call_len = (socklen_t)len;
		} else if ((k = listed(g, &addr.sun, len)) >= 0) {
			if (g->pinned[k] < 0) {
				close(pidfd);
				return -g->pinned[k];
			}
			/* The socket the name led to at the start, not the
			 * bytes read nor what the name leads to now: nothing
			 * the caller writes after the check, nor a link or
			 * another socket it put in the name's place, is what
			 * gets connected. */
			n = snprintf(own.sun.sun_path, sizeof own.sun.sun_path,
			             "/proc/self/fd/%d", g->pinned[k]);
			call_addr = &own.sa;
			call_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			                       (size_t)n + 1);
		} else if ((target = open_for_caller(req, g, &addr.sun, len)) < 0 ||
		           !S_ISSOCK(mode_of(target))) {
			/* Nothing there, or no socket: what connect() itself
			 * says (ENOENT, ENOTDIR, ECONNREFUSED), unsaid — no
			 * host service was kept from the command. */
			close(pidfd);
			e = target == -ENOENT || target == -ENOTDIR ? -target
			    : target >= 0 ? ECONNREFUSED : EACCES;
			if (target >= 0)
				close(target);
			else if (e == EACCES)
				say_refused(1, &addr.sun, len);
			return e;
		} else if (g->own_netns && own_socket(listener, req, target)) {
			/* Through the descriptor checked: the socket found is
			 * the socket reached. */
			n = snprintf(own.sun.sun_path, sizeof own.sun.sun_path,
			             "/proc/self/fd/%d", target);
			call_addr = &own.sa;
			call_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			                       (size_t)n + 1);
		} else {
			close(target);
			close(pidfd);
			if (!is_unsaid(&addr.sun, len))
				say_refused(1, &addr.sun, len);
			return EACCES;
		}
	} else if (g->own_netns) {
		call_addr = &addr.sa;
		call_len = (socklen_t)len;
	} else {
		close(pidfd);
		say_refused(connecting, &addr.sun, len);
		return EACCES;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd,
	                    (int)(uint32_t)req->data.args[0], 0);
	e = errno;
	close(pidfd);
	if (sock < 0) {
		if (target >= 0)
			close(target);
		return e == EBADF ? EBADF : EACCES;
	}
	rc = connecting ? connect(sock, call_addr, call_len)
	                : bind(sock, call_addr, call_len);
	e = rc < 0 ? errno : 0;
	close(sock);
	if (target >= 0)
		close(target);
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
