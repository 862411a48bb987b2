/*
 * netguard.h — the seccomp program that holds a restricted network (DESIGN
 * §2 "Network knob"), shared by the bwrap launcher (which hands it to
 * bubblewrap with --seccomp FD) and the Landlock runner (which installs it
 * beside its metadata guard).
 *
 * A filter sees syscall numbers and argument values, never what a pointer
 * points to: it cannot read the address a connect() names.  So it governs
 * what sockets exist, and the rest is the namespace's or Landlock's:
 *
 *   socket(AF_UNIX, ...)        EACCES: a pathname socket is a file, and a
 *                               read-only view of the host still lets
 *                               connect() reach it; an abstract one ignores
 *                               the file system.  Without a socket of its
 *                               own the command reaches neither.
 *   socketpair(AF_UNIX, ...)    allowed for SOCK_STREAM and SOCK_SEQPACKET
 *                               (born connected, they cannot be pointed
 *                               elsewhere); SOCK_DGRAM gets EACCES, since
 *                               sendto() on it may name any host socket.
 *   socket(AF_INET/AF_INET6)    WARDEN_NETGUARD_INET_ANY: allowed (the
 *                               command has a network namespace of its
 *                               own); WARDEN_NETGUARD_INET_TCP: only TCP
 *                               (SOCK_STREAM, protocol 0 or IPPROTO_TCP),
 *                               whose bind and connect Landlock refuses;
 *                               neither: EACCES.
 *   listen()                    WARDEN_NETGUARD_INET_TCP: EACCES (on an
 *                               unbound TCP socket listen() binds an
 *                               ephemeral port itself, which Landlock does
 *                               not see: a server on the host's addresses
 *                               anyone could reach; no other socket of the
 *                               command's can listen).
 *   socket(AF_NETLINK, ...)     only NETLINK_ROUTE (the resolver asks it
 *                               which address families exist; it changes
 *                               nothing without a capability).
 *   socket(any other family)    EACCES (packet, vsock, bluetooth, ...).
 *   io_uring_setup/enter/...    ENOSYS: its socket and connect operations
 *                               would bypass this filter.
 *   socketcall (i386)           ENOSYS: its arguments sit behind a pointer.
 *   a foreign ABI (x32, or any  ENOSYS for every syscall: its numbers are
 *   but native and i386)        not the ones checked here.
 *
 * Everything else is allowed: the program only ever narrows.
 *
 * WARDEN_NETGUARD_UNIX_GATED (allow_unix_socket; see unixgate.h) changes
 * two lines: socket(AF_UNIX) is allowed for SOCK_STREAM and SOCK_SEQPACKET
 * (datagrams stay refused), and every connect(), bind() and listen() of
 * the native ABI goes to a supervisor (SECCOMP_RET_USER_NOTIF), which
 * reads the address and the socket and makes the call itself or refuses
 * it; the i386 ABI's get EACCES.  With WARDEN_NETGUARD_INET_ANY as well (a
 * network namespace of the command's own) bind() and listen() are allowed
 * instead: its abstract names and its loopback are its own.  With no
 * supervisor listening the kernel answers ENOSYS.
 */
#ifndef WARDEN_NETGUARD_H
#define WARDEN_NETGUARD_H

#include <stddef.h>

#include <linux/filter.h>

enum warden_netguard_flags {
	WARDEN_NETGUARD_INET_ANY = 1,  /* IP sockets of every kind stay open */
	WARDEN_NETGUARD_INET_TCP = 2,  /* TCP sockets stay open */
	WARDEN_NETGUARD_UNIX_GATED = 4, /* unix stream sockets, connect/bind supervised */
};

/* Room for the longest program warden_netguard_build() makes. */
#define WARDEN_NETGUARD_MAX_INSNS 160

/* Builds the program into insn (cap entries).  Returns its length, or -1
 * (errno E2BIG) when cap is too small. */
int warden_netguard_build(int flags, struct sock_filter *insn, size_t cap);

/* Installs the program on the calling thread (no_new_privs must be set).
 * 0, or -1 with errno set. */
int warden_netguard_install(int flags);

#endif
