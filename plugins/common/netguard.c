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

#if defined(__x86_64__)
#define NG_NATIVE_ARCH AUDIT_ARCH_X86_64
#define NG_HAS_I386 1
#define NG_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define NG_NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NG_NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__i386__)
#define NG_NATIVE_ARCH AUDIT_ARCH_I386
#else
#error "netguard: add this architecture's AUDIT_ARCH to netguard.c"
#endif

/* Unified numbers (the same on every architecture since Linux 5.1). */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register 427
#endif

/* The socket type without SOCK_NONBLOCK / SOCK_CLOEXEC. */
#define NG_TYPE_MASK 0xfu

#define OFF_NR offsetof(struct seccomp_data, nr)
#define OFF_ARCH offsetof(struct seccomp_data, arch)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_EACCES (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define RET_ENOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
#define RET_NOTIFY SECCOMP_RET_USER_NOTIF

struct prog {
	struct sock_filter *insn;
	size_t len, cap;
	int overflow;
};

/* The syscall numbers one ABI uses for what the program looks at. */
struct abi {
	uint32_t socket, socketpair, socketcall; /* socketcall: 0 when none */
	uint32_t io_uring[3];
	uint32_t connect, bind, listen;
	int native;  /* the ABI the gate's supervisor reads addresses of */
};

static void emit(struct prog *p, struct sock_filter f)
{
	if (p->len >= p->cap) {
		p->overflow = 1;
		return;
	}
	p->insn[p->len++] = f;
}

static void ld(struct prog *p, uint32_t off)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off));
}

static void and_k(struct prog *p, uint32_t k)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, k));
}

static void ret(struct prog *p, uint32_t action)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* if (A == k) return action; */
static void ret_if_eq(struct prog *p, uint32_t k, uint32_t action)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
	ret(p, action);
}

/* if (A != k) goto the end of the block that follows: returns the index of
 * the jump, for end_block() once the block (which must end in a return)
 * has been emitted. */
static size_t begin_block_if_eq(struct prog *p, uint32_t k)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0));
	return p->len - 1;
}

static void end_block(struct prog *p, size_t jump)
{
	size_t skip = p->len - jump - 1;

	if (p->overflow)
		return;
	if (skip > UINT8_MAX) {
		p->overflow = 1;
		return;
	}
	p->insn[jump].jf = (uint8_t)skip;
}

/* socket(domain, type, protocol): A is free on entry. */
static void socket_block(struct prog *p, int flags)
{
	size_t blk;

	ld(p, OFF_ARG_LO(0));
	if (flags & WARDEN_NETGUARD_UNIX_GATED) {
		/* Stream and seqpacket sockets only: their connect() is the
		 * gate's, and their sendto() names no address (a datagram's
		 * would). */
		blk = begin_block_if_eq(p, AF_UNIX);
		ld(p, OFF_ARG_LO(1));
		and_k(p, NG_TYPE_MASK);
		ret_if_eq(p, SOCK_STREAM, RET_ALLOW);
		ret_if_eq(p, SOCK_SEQPACKET, RET_ALLOW);
		ret(p, RET_EACCES);
		end_block(p, blk);
	} else {
		ret_if_eq(p, AF_UNIX, RET_EACCES);
	}
	blk = begin_block_if_eq(p, AF_NETLINK);
	ld(p, OFF_ARG_LO(2));
	ret_if_eq(p, NETLINK_ROUTE, RET_ALLOW);
	ret(p, RET_EACCES);
	end_block(p, blk);
	if (flags & WARDEN_NETGUARD_INET_ANY) {
		ret_if_eq(p, AF_INET, RET_ALLOW);
		ret_if_eq(p, AF_INET6, RET_ALLOW);
		ret(p, RET_EACCES);
		return;
	}
	if (flags & WARDEN_NETGUARD_INET_TCP) {
		size_t not_ip, not_stream;

		/* AF_INET or AF_INET6 goes on to the type, the rest is out. */
		emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0));
		not_ip = begin_block_if_eq(p, AF_INET6);
		ld(p, OFF_ARG_LO(1));
		and_k(p, NG_TYPE_MASK);
		not_stream = begin_block_if_eq(p, SOCK_STREAM);
		ld(p, OFF_ARG_LO(2));
		ret_if_eq(p, 0, RET_ALLOW);
		ret_if_eq(p, IPPROTO_TCP, RET_ALLOW);
		/* Both jumps land on the refusal below. */
		end_block(p, not_stream);
		end_block(p, not_ip);
	}
	ret(p, RET_EACCES);
}

/* socketpair(domain, type, protocol, sv): A is free on entry. */
static void socketpair_block(struct prog *p)
{
	ld(p, OFF_ARG_LO(0));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0));
	ret(p, RET_EACCES);
	ld(p, OFF_ARG_LO(1));
	and_k(p, NG_TYPE_MASK);
	ret_if_eq(p, SOCK_DGRAM, RET_EACCES);
	ret(p, RET_ALLOW);
}

/* The body for one ABI; A holds the syscall number on entry. */
static void abi_block(struct prog *p, const struct abi *a, int flags)
{
	size_t blk, i;

	for (i = 0; i < 3; i++)
		ret_if_eq(p, a->io_uring[i], RET_ENOSYS);
	if (a->socketcall != 0)
		ret_if_eq(p, a->socketcall, RET_ENOSYS);
	if (flags & WARDEN_NETGUARD_UNIX_GATED) {
		/* The supervisor answers for every connect(), bind() and
		 * listen() of the native ABI; it reads the address the native
		 * way only. */
		uint32_t own = (flags & WARDEN_NETGUARD_INET_ANY) ? RET_ALLOW : RET_NOTIFY;

		ret_if_eq(p, a->connect, a->native ? RET_NOTIFY : RET_EACCES);
		/* In a network namespace of its own every bind and listen is
		 * the command's own business (its abstract namespace, its
		 * loopback, files where its mounts let it write). */
		ret_if_eq(p, a->bind, a->native ? own : RET_EACCES);
		ret_if_eq(p, a->listen, a->native ? own : RET_EACCES);
	} else if (flags & WARDEN_NETGUARD_INET_TCP) {
		/* Landlock refuses TCP bind but not the bind listen() makes
		 * itself on an unbound socket: an ephemeral port on every
		 * address of the host, which anyone could connect to. */
		ret_if_eq(p, a->listen, RET_EACCES);
	}
	blk = begin_block_if_eq(p, a->socket);
	socket_block(p, flags);
	end_block(p, blk);
	blk = begin_block_if_eq(p, a->socketpair);
	socketpair_block(p);
	end_block(p, blk);
	ret(p, RET_ALLOW);
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
#ifdef NG_HAS_I386
	/* arch/x86/entry/syscalls/syscall_32.tbl */
	static const struct abi i386 = { 359, 360, 102, { 425, 426, 427 }, 362, 361, 363, 0 };
	size_t i386_jump;
#endif
	struct prog p = { insn, 0, cap, 0 };

	ld(&p, OFF_ARCH);
#ifdef NG_HAS_I386
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      NG_NATIVE_ARCH, 2, 0));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      AUDIT_ARCH_I386, 0, 0));
	i386_jump = p.len - 1;
#else
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      NG_NATIVE_ARCH, 1, 0));
#endif
	ret(&p, RET_ENOSYS);
	ld(&p, OFF_NR);
#ifdef NG_X32_BIT
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NG_X32_BIT, 0, 1));
	ret(&p, RET_ENOSYS);
#endif
	abi_block(&p, &native, flags);
#ifdef NG_HAS_I386
	if (!p.overflow) {
		if (p.len - i386_jump - 1 > UINT8_MAX)
			p.overflow = 1;
		else
			p.insn[i386_jump].jt = (uint8_t)(p.len - i386_jump - 1);
	}
	ld(&p, OFF_NR);
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
