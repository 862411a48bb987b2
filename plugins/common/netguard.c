/*
 * netguard.c — the restricted network's seccomp program, as classic BPF;
 * see netguard.h for what it refuses and why.
 *
 * Written by hand for the reasons guard.c gives (numbers the build's
 * libseccomp may not know, the i386 ABI of an x86-64 process), and because
 * the bwrap launcher that uses it is a static program with no other
 * dependency.  The program is linear: check the ABI, compare the syscall
 * number, and for socket() and socketpair() look at the family, type and
 * protocol arguments (plain integers a filter can read).
 */
#include "config.h"

#include "netguard.h"
#include "bpf.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The socket type without SOCK_NONBLOCK / SOCK_CLOEXEC. */
#define NG_TYPE_MASK 0xfu

#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_EACCES (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define RET_ENOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
#define RET_NOTIFY SECCOMP_RET_USER_NOTIF

/* The syscall numbers one ABI uses for what the program looks at. */
struct abi {
	uint32_t socket, socketpair, socketcall; /* socketcall: 0 when none */
	uint32_t io_uring[3];
	uint32_t connect, bind, listen;
	int native;  /* the ABI the gate's supervisor reads addresses of */
};

/* socket(domain, type, protocol): A is free on entry. */
static void socket_block(struct bpf_prog *p, int flags)
{
	size_t blk;

	bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(0));
	if (flags & WARDEN_NETGUARD_UNIX_GATED) {
		/* Stream and seqpacket sockets only: their connect() is the
		 * gate's, and their sendto() names no address (a datagram's
		 * would). */
		blk = bpf_begin_block_if_eq(p, AF_UNIX);
		bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(1));
		bpf_and_k(p, NG_TYPE_MASK);
		bpf_ret_if_eq(p, SOCK_STREAM, RET_ALLOW);
		bpf_ret_if_eq(p, SOCK_SEQPACKET, RET_ALLOW);
		bpf_ret(p, RET_EACCES);
		bpf_end_block(p, blk);
	} else {
		bpf_ret_if_eq(p, AF_UNIX, RET_EACCES);
	}
	blk = bpf_begin_block_if_eq(p, AF_NETLINK);
	bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(2));
	bpf_ret_if_eq(p, NETLINK_ROUTE, RET_ALLOW);
	bpf_ret(p, RET_EACCES);
	bpf_end_block(p, blk);
	if (flags & WARDEN_NETGUARD_INET_ANY) {
		bpf_ret_if_eq(p, AF_INET, RET_ALLOW);
		bpf_ret_if_eq(p, AF_INET6, RET_ALLOW);
		bpf_ret(p, RET_EACCES);
		return;
	}
	if (flags & WARDEN_NETGUARD_INET_TCP) {
		size_t not_ip, not_stream;

		/* AF_INET or AF_INET6 goes on to the type, the rest is out. */
		bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0));
		not_ip = bpf_begin_block_if_eq(p, AF_INET6);
		bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(1));
		bpf_and_k(p, NG_TYPE_MASK);
		not_stream = bpf_begin_block_if_eq(p, SOCK_STREAM);
		bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(2));
		bpf_ret_if_eq(p, 0, RET_ALLOW);
		bpf_ret_if_eq(p, IPPROTO_TCP, RET_ALLOW);
		/* Both jumps land on the refusal below. */
		bpf_end_block(p, not_stream);
		bpf_end_block(p, not_ip);
	}
	bpf_ret(p, RET_EACCES);
}

/* socketpair(domain, type, protocol, sv): A is free on entry. */
static void socketpair_block(struct bpf_prog *p)
{
	bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(0));
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0));
	bpf_ret(p, RET_EACCES);
	bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(1));
	bpf_and_k(p, NG_TYPE_MASK);
	bpf_ret_if_eq(p, SOCK_DGRAM, RET_EACCES);
	bpf_ret(p, RET_ALLOW);
}

/* The body for one ABI; A holds the syscall number on entry. */
static void abi_block(struct bpf_prog *p, const struct abi *a, int flags)
{
	size_t blk, i;

	for (i = 0; i < 3; i++)
		bpf_ret_if_eq(p, a->io_uring[i], RET_ENOSYS);
	if (a->socketcall != 0)
		bpf_ret_if_eq(p, a->socketcall, RET_ENOSYS);
	if (flags & WARDEN_NETGUARD_UNIX_GATED) {
		/* The supervisor answers for every connect(), bind() and
		 * listen() of the native ABI; it reads the address the native
		 * way only. */
		uint32_t own = (flags & WARDEN_NETGUARD_INET_ANY) ? RET_ALLOW : RET_NOTIFY;

		bpf_ret_if_eq(p, a->connect, a->native ? RET_NOTIFY : RET_EACCES);
		/* In a network namespace of its own every bind and listen is
		 * the command's own business (its abstract namespace, its
		 * loopback, files where its mounts let it write). */
		bpf_ret_if_eq(p, a->bind, a->native ? own : RET_EACCES);
		bpf_ret_if_eq(p, a->listen, a->native ? own : RET_EACCES);
	} else if (flags & WARDEN_NETGUARD_INET_TCP) {
		/* Landlock refuses TCP bind but not the bind listen() makes
		 * itself on an unbound socket: an ephemeral port on every
		 * address of the host, which anyone could connect to. */
		bpf_ret_if_eq(p, a->listen, RET_EACCES);
	}
	blk = bpf_begin_block_if_eq(p, a->socket);
	socket_block(p, flags);
	bpf_end_block(p, blk);
	blk = bpf_begin_block_if_eq(p, a->socketpair);
	socketpair_block(p);
	bpf_end_block(p, blk);
	bpf_ret(p, RET_ALLOW);
}

int warden_netguard_build(int flags, struct sock_filter *insn, size_t cap)
{
	static const struct abi native = {
		__NR_socket, __NR_socketpair,
#ifdef __NR_socketcall
		__NR_socketcall,
#else
		0,
#endif
		{ __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register },
		__NR_connect, __NR_bind, __NR_listen, 1,
	};
#ifdef WARDEN_BPF_HAS_I386
	/* arch/x86/entry/syscalls/syscall_32.tbl */
	static const struct abi i386 = { 359, 360, 102, { 425, 426, 427 }, 362, 361, 363, 0 };
	size_t i386_jump;
#endif
	struct bpf_prog p = { insn, 0, cap, 0 };

	bpf_ld(&p, WARDEN_BPF_OFF_ARCH);
#ifdef WARDEN_BPF_HAS_I386
	bpf_emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      WARDEN_BPF_NATIVE_ARCH, 2, 0));
	bpf_emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      AUDIT_ARCH_I386, 0, 0));
	i386_jump = p.len - 1;
#else
	bpf_emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      WARDEN_BPF_NATIVE_ARCH, 1, 0));
#endif
	bpf_ret(&p, RET_ENOSYS);
	bpf_ld(&p, WARDEN_BPF_OFF_NR);
#ifdef WARDEN_BPF_X32_BIT
	bpf_emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WARDEN_BPF_X32_BIT, 0, 1));
	bpf_ret(&p, RET_ENOSYS);
#endif
	abi_block(&p, &native, flags);
#ifdef WARDEN_BPF_HAS_I386
	if (!p.overflow) {
		if (p.len - i386_jump - 1 > UINT8_MAX)
			p.overflow = 1;
		else
			p.insn[i386_jump].jt = (uint8_t)(p.len - i386_jump - 1);
	}
	bpf_ld(&p, WARDEN_BPF_OFF_NR);
	abi_block(&p, &i386, flags);
#endif
	if (p.overflow) {
		errno = E2BIG;
		return -1;
	}
	return (int)p.len;
}

int warden_netguard_install(int flags)
{
	struct sock_filter insn[WARDEN_NETGUARD_MAX_INSNS];
	struct sock_fprog fprog;
	int n = warden_netguard_build(flags, insn, WARDEN_NETGUARD_MAX_INSNS);

	if (n < 0)
		return -1;
	fprog.len = (unsigned short)n;
	fprog.filter = insn;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}
