/*
 * guard.c — the runner's seccomp filter, written as classic BPF.
 *
 * Why not libseccomp: the filter must know syscalls newer than the
 * libseccomp of the build machine (setxattrat, removexattrat and
 * file_setattr exist on the kernels warden runs on; libseccomp 2.5.4 does
 * not know them and cannot add raw numbers for the i386 ABI), and it must
 * answer ENOSYS for every syscall number beyond what it knows, which
 * libseccomp cannot express.  The program is small and linear: check the
 * ABI, then compare the syscall number against the tables below.
 *
 * The native table comes from <sys/syscall.h> at build time; numbers the
 * build headers may predate are the same on every architecture since
 * Linux 5.1 (unified numbering from 424 on).  The i386 table is written
 * out because an x86-64 process can still make i386 syscalls (int 0x80).
 */
#include "config.h"

#include "guard.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GUARD_NATIVE_ARCH AUDIT_ARCH_X86_64
#define GUARD_HAS_I386 1
#define GUARD_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define GUARD_NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define GUARD_NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__i386__)
#define GUARD_NATIVE_ARCH AUDIT_ARCH_I386
#else
#error "warden-landlock-run: add this architecture's AUDIT_ARCH to guard.c"
#endif

/* Syscalls newer than the build headers (unified numbers). */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register 427
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_file_setattr
#define __NR_file_setattr 469
#endif
/* One past the newest syscall this file knows (file_setattr, Linux 6.17). */
#define GUARD_FIRST_UNKNOWN 470u

#ifndef FS_IOC32_SETFLAGS
#define FS_IOC32_SETFLAGS _IOW('f', 2, int)
#endif

/* The metadata calls of the native ABI that exist on this architecture. */
static const unsigned native_metadata[] = {
#ifdef __NR_chmod
	__NR_chmod,
#endif
	__NR_fchmod, __NR_fchmodat, __NR_fchmodat2,
#ifdef __NR_chown
	__NR_chown,
#endif
#ifdef __NR_lchown
	__NR_lchown,
#endif
	__NR_fchown, __NR_fchownat,
#ifdef __NR_chown32
	__NR_chown32, __NR_lchown32, __NR_fchown32,
#endif
#ifdef __NR_utime
	__NR_utime,
#endif
#ifdef __NR_utimes
	__NR_utimes,
#endif
#ifdef __NR_futimesat
	__NR_futimesat,
#endif
	__NR_utimensat,
#ifdef __NR_utimensat_time64
	__NR_utimensat_time64,
#endif
	__NR_setxattr, __NR_lsetxattr, __NR_fsetxattr,
	__NR_removexattr, __NR_lremovexattr, __NR_fremovexattr,
	__NR_setxattrat, __NR_removexattrat, __NR_file_setattr,
};

static const unsigned native_enosys[] = {
	__NR_clone3, __NR_io_uring_setup, __NR_io_uring_enter,
	__NR_io_uring_register,
};

#ifdef GUARD_HAS_I386
/* The same calls in the i386 ABI (arch/x86/entry/syscalls/syscall_32.tbl). */
static const unsigned i386_metadata[] = {
	15 /* chmod */, 94 /* fchmod */, 306 /* fchmodat */, 452 /* fchmodat2 */,
	182 /* chown */, 16 /* lchown */, 95 /* fchown */, 298 /* fchownat */,
	212 /* chown32 */, 198 /* lchown32 */, 207 /* fchown32 */,
	30 /* utime */, 271 /* utimes */, 299 /* futimesat */,
	320 /* utimensat */, 412 /* utimensat_time64 */,
	226 /* setxattr */, 227 /* lsetxattr */, 228 /* fsetxattr */,
	235 /* removexattr */, 236 /* lremovexattr */, 237 /* fremovexattr */,
	463 /* setxattrat */, 466 /* removexattrat */, 469 /* file_setattr */,
};
static const unsigned i386_enosys[] = { 435, 425, 426, 427 };
#define I386_IOCTL 54u
#define I386_UNSHARE 310u
#define I386_CLONE 120u
#endif

/* Offsets into struct seccomp_data; a 32-bit argument is the low word. */
#define OFF_NR offsetof(struct seccomp_data, nr)
#define OFF_ARCH offsetof(struct seccomp_data, arch)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_EPERM (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
/* Metadata refusals speak Landlock's dialect, "Permission denied". */
#define RET_EACCES (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define RET_ENOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))

#define GUARD_MAX_INSNS 256

struct prog {
	struct sock_filter insn[GUARD_MAX_INSNS];
	size_t len;
	int overflow;
};

static void emit(struct prog *p, struct sock_filter f)
{
	if (p->len >= GUARD_MAX_INSNS) {
		p->overflow = 1;
		return;
	}
	p->insn[p->len++] = f;
}

static void ld(struct prog *p, uint32_t off)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off));
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

/* if (A & k) return action; */
static void ret_if_set(struct prog *p, uint32_t k, uint32_t action)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, k, 0, 1));
	ret(p, action);
}

/* if (A >= k) return action; */
static void ret_if_ge(struct prog *p, uint32_t k, uint32_t action)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, k, 0, 1));
	ret(p, action);
}

/* if (nr == k) { load the flags argument; refuse CLONE_NEWUSER; allow } */
static void guard_newuser(struct prog *p, uint32_t nr)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
	ld(p, OFF_ARG_LO(0));
	ret_if_set(p, CLONE_NEWUSER, RET_EPERM);
	ret(p, RET_ALLOW);
}

/* if (nr == k) { refuse TIOCSTI (and, read-only, the inode-flag ioctls) } */
static void guard_ioctl(struct prog *p, uint32_t nr, int read_only)
{
	static const uint32_t flags_cmds[] = {
		(uint32_t)FS_IOC_SETFLAGS, (uint32_t)FS_IOC32_SETFLAGS,
		(uint32_t)FS_IOC_FSSETXATTR,
	};
	size_t n = read_only ? sizeof flags_cmds / sizeof flags_cmds[0] : 0;

	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0,
	                                     (uint8_t)(3 + 2 * n + 1)));
	ld(p, OFF_ARG_LO(1));
	ret_if_eq(p, TIOCSTI, RET_EPERM);
	for (size_t i = 0; i < n; i++)
		ret_if_eq(p, flags_cmds[i], RET_EACCES);
	ret(p, RET_ALLOW);
}

/* The body for one ABI; A holds the syscall number on entry. */
static void guard_abi(struct prog *p, int read_only,
                      const unsigned *metadata, size_t n_metadata,
                      const unsigned *enosys, size_t n_enosys,
                      uint32_t nr_ioctl, uint32_t nr_unshare, uint32_t nr_clone)
{
	if (read_only)
		for (size_t i = 0; i < n_metadata; i++)
			ret_if_eq(p, metadata[i], RET_EACCES);
	for (size_t i = 0; i < n_enosys; i++)
		ret_if_eq(p, enosys[i], RET_ENOSYS);
	ret_if_ge(p, GUARD_FIRST_UNKNOWN, RET_ENOSYS);
	guard_ioctl(p, nr_ioctl, read_only);
	guard_newuser(p, nr_unshare);
	guard_newuser(p, nr_clone);
	ret(p, RET_ALLOW);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void guard_build(struct prog *p, int read_only)
{
	ld(p, OFF_ARCH);
#ifdef GUARD_HAS_I386
	/* Native ABI continues below; i386 jumps to its own block. */
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                     GUARD_NATIVE_ARCH, 2, 0));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                     AUDIT_ARCH_I386, 0, 0));
	size_t i386_jump = p->len - 1;
#else
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                     GUARD_NATIVE_ARCH, 1, 0));
#endif
	ret(p, RET_ENOSYS);
	ld(p, OFF_NR);
#ifdef GUARD_X32_BIT
	ret_if_set(p, GUARD_X32_BIT, RET_ENOSYS);
#endif
	guard_abi(p, read_only, native_metadata, N(native_metadata),
	          native_enosys, N(native_enosys),
	          __NR_ioctl, __NR_unshare, __NR_clone);
#ifdef GUARD_HAS_I386
	/* Patch the i386 test: equal jumps here, otherwise falls to ENOSYS. */
	if (p->len - i386_jump - 1 > UINT8_MAX)
		p->overflow = 1;
	else if (!p->overflow)
		p->insn[i386_jump].jt = (uint8_t)(p->len - i386_jump - 1);
	ld(p, OFF_NR);
	guard_abi(p, read_only, i386_metadata, N(i386_metadata),
	          i386_enosys, N(i386_enosys),
	          I386_IOCTL, I386_UNSHARE, I386_CLONE);
#endif
}

int warden_guard_install(int read_only)
{
	static struct prog p;

	p.len = 0;
	p.overflow = 0;
	guard_build(&p, read_only);
	if (p.overflow) {
		errno = E2BIG;
		return -1;
	}
	struct sock_fprog fprog = {
		.len = (unsigned short)p.len,
		.filter = p.insn,
	};
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}
