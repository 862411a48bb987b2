/*
 * bpf.h — what warden's seccomp programs share: the network guard
 * (netguard.c), the Landlock runner's guard (plugins/landlock/guard.c) and
 * the unix-socket gate's supervisor (unixgate.c).
 *
 *   - the native architecture as seccomp names it (WARDEN_BPF_NATIVE_ARCH),
 *     whether the kernel also takes the i386 ABI from such a process
 *     (WARDEN_BPF_HAS_I386) and the x32 bit (WARDEN_BPF_X32_BIT);
 *   - the syscall numbers newer than some build headers (unified numbers);
 *   - the offsets of struct seccomp_data's fields (the low half of an
 *     argument, whatever the byte order);
 *   - a bounded emitter of classic BPF: every helper writes into the
 *     caller's buffer and sets `overflow` instead of writing past it, so a
 *     program that did not fit is never installed half-built.
 */
#ifndef WARDEN_BPF_H
#define WARDEN_BPF_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define WARDEN_BPF_NATIVE_ARCH AUDIT_ARCH_X86_64
#define WARDEN_BPF_HAS_I386 1
#define WARDEN_BPF_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define WARDEN_BPF_NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define WARDEN_BPF_NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__i386__)
#define WARDEN_BPF_NATIVE_ARCH AUDIT_ARCH_I386
#else
#error "warden: add this architecture's AUDIT_ARCH to plugins/common/bpf.h"
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

#define WARDEN_BPF_OFF_NR offsetof(struct seccomp_data, nr)
#define WARDEN_BPF_OFF_ARCH offsetof(struct seccomp_data, arch)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WARDEN_BPF_OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define WARDEN_BPF_OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

#define WARDEN_BPF_RET_ALLOW SECCOMP_RET_ALLOW
#define WARDEN_BPF_RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

/* A program being built: cap instructions at insn. */
struct bpf_prog {
	struct sock_filter *insn;
	size_t len, cap;
	int overflow;
};

static inline void bpf_emit(struct bpf_prog *p, struct sock_filter f)
{
	if (p->len >= p->cap) {
		p->overflow = 1;
		return;
	}
	p->insn[p->len++] = f;
}

/* A = the 32-bit word at off of struct seccomp_data. */
static inline void bpf_ld(struct bpf_prog *p, uint32_t off)
{
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off));
}

static inline void bpf_and_k(struct bpf_prog *p, uint32_t k)
{
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, k));
}

static inline void bpf_ret(struct bpf_prog *p, uint32_t action)
{
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* if (A == k) return action; */
static inline void bpf_ret_if_eq(struct bpf_prog *p, uint32_t k, uint32_t action)
{
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
	bpf_ret(p, action);
}

/* if (A & k) return action; */
static inline void bpf_ret_if_set(struct bpf_prog *p, uint32_t k, uint32_t action)
{
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, k, 0, 1));
	bpf_ret(p, action);
}

/* if (A >= k) return action; */
static inline void bpf_ret_if_ge(struct bpf_prog *p, uint32_t k, uint32_t action)
{
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, k, 0, 1));
	bpf_ret(p, action);
}

/* if (A != k) goto the end of the block that follows: returns the index
 * of the jump, for bpf_end_block() once the block (which must end in a
 * return) has been emitted. */
static inline size_t bpf_begin_block_if_eq(struct bpf_prog *p, uint32_t k)
{
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0));
	return p->len - 1;
}

static inline void bpf_end_block(struct bpf_prog *p, size_t jump)
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

#endif
