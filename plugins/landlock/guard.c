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
#include "bpf.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/fiemap.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Syscalls newer than the build headers (unified numbers); io_uring's
 * are in bpf.h. */
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
#ifndef FS_IOC32_GETFLAGS
#define FS_IOC32_GETFLAGS _IOR('f', 1, int)
#endif
#ifndef FS_IOC32_GETVERSION
#define FS_IOC32_GETVERSION _IOR('v', 1, int)
#endif
#ifndef FS_IOC32_SETVERSION
#define FS_IOC32_SETVERSION _IOW('v', 2, int)
#endif
/* ext4's own spelling of the inode generation calls (fs/ext4/ext4.h). */
#define GUARD_EXT4_IOC_GETVERSION _IOR('f', 3, long)
#define GUARD_EXT4_IOC32_GETVERSION _IOR('f', 3, int)
#define GUARD_EXT4_IOC_SETVERSION _IOW('f', 4, long)
#define GUARD_EXT4_IOC32_SETVERSION _IOW('f', 4, int)
#ifndef FICLONERANGE
#define FICLONERANGE _IOW(0x94, 13, struct file_clone_range)
#endif
#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#ifndef FIOQSIZE
#define FIOQSIZE 0x5460
#endif
/* The termios2 calls newer C libraries use; struct termios2 is 44 bytes
 * on every architecture this file builds for, and its header clashes with
 * <termios.h>-based ones. */
#define GUARD_TERMIOS2_SIZE 44
#define GUARD_TCGETS2 _IOC(_IOC_READ, 'T', 0x2A, GUARD_TERMIOS2_SIZE)
#define GUARD_TCSETS2 _IOC(_IOC_WRITE, 'T', 0x2B, GUARD_TERMIOS2_SIZE)
#define GUARD_TCSETSW2 _IOC(_IOC_WRITE, 'T', 0x2C, GUARD_TERMIOS2_SIZE)
#define GUARD_TCSETSF2 _IOC(_IOC_WRITE, 'T', 0x2D, GUARD_TERMIOS2_SIZE)

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

/* The kernel's keyrings: not namespaced here (the command shares the
 * caller's user), so a key added, changed or unlinked would outlive the
 * run in the caller's user and session keyrings.  Always refused. */
static const unsigned native_keys[] = {
	__NR_add_key, __NR_request_key, __NR_keyctl,
};

/* SysV IPC and POSIX message queues: refused only when the runner could
 * not give the command an IPC namespace of its own (WARDEN_GUARD_NO_IPC). */
static const unsigned native_ipc[] = {
#ifdef __NR_ipc
	__NR_ipc,
#endif
	__NR_shmget, __NR_shmat, __NR_shmctl, __NR_shmdt,
	__NR_semget, __NR_semop, __NR_semctl,
#ifdef __NR_semtimedop
	__NR_semtimedop,
#endif
#ifdef __NR_semtimedop_time64
	__NR_semtimedop_time64,
#endif
	__NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl,
	__NR_mq_open, __NR_mq_unlink, __NR_mq_timedsend, __NR_mq_timedreceive,
	__NR_mq_notify, __NR_mq_getsetattr,
#ifdef __NR_mq_timedsend_time64
	__NR_mq_timedsend_time64, __NR_mq_timedreceive_time64,
#endif
};

#ifdef WARDEN_BPF_HAS_I386
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
static const unsigned i386_keys[] = { 286 /* add_key */, 287 /* request_key */,
                                      288 /* keyctl */ };
static const unsigned i386_ipc[] = {
	117 /* ipc, the multiplexer */,
	393 /* semget */, 394 /* semctl */, 395 /* shmget */, 396 /* shmctl */,
	397 /* shmat */, 398 /* shmdt */, 399 /* msgget */, 400 /* msgsnd */,
	401 /* msgrcv */, 402 /* msgctl */, 420 /* semtimedop_time64 */,
	277 /* mq_open */, 278 /* mq_unlink */, 279 /* mq_timedsend */,
	280 /* mq_timedreceive */, 281 /* mq_notify */, 282 /* mq_getsetattr */,
	418 /* mq_timedsend_time64 */, 419 /* mq_timedreceive_time64 */,
};
#define I386_IOCTL 54u
#define I386_UNSHARE 310u
#define I386_CLONE 120u
#endif

/*
 * ioctl(2) is governed by an allowlist on its request argument.  The
 * kernel reads the request as an unsigned int, so only the low 32 bits
 * are compared (WARDEN_BPF_OFF_ARG_LO): a request with junk in the high word is the
 * request in its low word.  Both the native and the 32-bit spellings of
 * the size-encoded requests are listed, for the i386 ABI.
 *
 * Allowed: what terminals, pipes, sockets and files are ordinarily asked
 * by shells, editors, pagers, compilers, language runtimes and cp, none of
 * which changes a file: terminal attributes and window size, job control
 * on the command's own terminal, pty set-up, non-blocking and close-on-exec
 * flags, bytes pending, reading inode flags, version, fsxattr, extent map
 * and block size, interface queries, and clones into a file the command
 * opened for writing (FICLONE: Landlock already decided that open).
 */
static const uint32_t ioctl_allowed[] = {
	/* terminals */
	TCGETS, TCSETS, TCSETSW, TCSETSF, TCGETA, TCSETA, TCSETAW, TCSETAF,
	GUARD_TCGETS2, GUARD_TCSETS2, GUARD_TCSETSW2, GUARD_TCSETSF2,
	TCSBRK, TCSBRKP, TCXONC, TCFLSH, TIOCGWINSZ, TIOCSWINSZ,
	TIOCGPGRP, TIOCSPGRP, TIOCGSID, TIOCOUTQ, TIOCSCTTY, TIOCNOTTY,
	TIOCGETD, TIOCGPTN, TIOCSPTLCK, TIOCGPTLCK, TIOCGPTPEER, TIOCPKT,
	TIOCGPKT,
	/* every descriptor */
	FIONREAD, FIONBIO, FIOASYNC, FIOCLEX, FIONCLEX, FIOQSIZE,
	/* files: read-only queries, and clones into a writable file */
	(uint32_t)FS_IOC_GETFLAGS, (uint32_t)FS_IOC32_GETFLAGS,
	(uint32_t)FS_IOC_GETVERSION, (uint32_t)FS_IOC32_GETVERSION,
	(uint32_t)GUARD_EXT4_IOC_GETVERSION, (uint32_t)GUARD_EXT4_IOC32_GETVERSION,
	(uint32_t)FS_IOC_FSGETXATTR, (uint32_t)FS_IOC_FIEMAP, FIGETBSZ,
	(uint32_t)FICLONE, (uint32_t)FICLONERANGE,
	/* sockets: interface queries */
	SIOCGIFNAME, SIOCGIFCONF, SIOCGIFFLAGS, SIOCGIFADDR, SIOCGIFDSTADDR,
	SIOCGIFBRDADDR, SIOCGIFNETMASK, SIOCGIFMTU, SIOCGIFHWADDR,
	SIOCGIFINDEX, SIOCATMARK,
};

/* Requests that change a file's metadata are refused in Landlock's own
 * words (EACCES, "Permission denied") so that a run they stop is seen as
 * denied; every other request not allowed above gets ENOTTY, the answer
 * of a descriptor that does not know it, which callers handle. */
static const uint32_t ioctl_metadata[] = {
	(uint32_t)FS_IOC_SETFLAGS, (uint32_t)FS_IOC32_SETFLAGS,
	(uint32_t)FS_IOC_SETVERSION, (uint32_t)FS_IOC32_SETVERSION,
	(uint32_t)GUARD_EXT4_IOC_SETVERSION, (uint32_t)GUARD_EXT4_IOC32_SETVERSION,
	(uint32_t)FS_IOC_FSSETXATTR,
};

/* Offsets into struct seccomp_data; a 32-bit argument is the low word. */
#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_EPERM (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
/* Metadata refusals speak Landlock's dialect, "Permission denied". */
#define RET_EACCES (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define RET_ENOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
#define RET_ENOTTY (SECCOMP_RET_ERRNO | (ENOTTY & SECCOMP_RET_DATA))

#define GUARD_MAX_INSNS 1024

/* if (nr == k) { load the flags argument; refuse CLONE_NEWUSER; allow } */
static void guard_newuser(struct bpf_prog *p, uint32_t nr)
{
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
	bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(0));
	bpf_ret_if_set(p, CLONE_NEWUSER, RET_EPERM);
	bpf_ret(p, RET_ALLOW);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * if (nr == k) {
 *     request = low 32 bits of the second argument;
 *     TIOCSTI: EPERM; a metadata request: EACCES;
 *     an allowed request: allow; anything else: ENOTTY
 * }
 */
static void guard_ioctl(struct bpf_prog *p, uint32_t nr)
{
	const size_t n_allowed = N(ioctl_allowed);
	const size_t body = 1 + 2 + 2 * N(ioctl_metadata) + n_allowed + 2;

	_Static_assert(1 + 2 + 2 * N(ioctl_metadata) + N(ioctl_allowed) + 2 <= UINT8_MAX,
	               "the ioctl block must fit an 8-bit jump");

	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0,
	                                     (uint8_t)body));
	bpf_ld(p, WARDEN_BPF_OFF_ARG_LO(1));
	bpf_ret_if_eq(p, TIOCSTI, RET_EPERM);
	for (size_t i = 0; i < N(ioctl_metadata); i++)
		bpf_ret_if_eq(p, ioctl_metadata[i], RET_EACCES);
	/* Each allowed request jumps over the rest of the list and the
	 * ENOTTY to the allow. */
	for (size_t i = 0; i < n_allowed; i++)
		bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		                                     ioctl_allowed[i],
		                                     (uint8_t)(n_allowed - i), 0));
	bpf_ret(p, RET_ENOTTY);
	bpf_ret(p, RET_ALLOW);
}

/* The body for one ABI; A holds the syscall number on entry. */
struct abi_tables {
	const unsigned *metadata;
	size_t n_metadata;
	const unsigned *enosys;
	size_t n_enosys;
	const unsigned *ipc;
	size_t n_ipc;
	const unsigned *keys;
	size_t n_keys;
	uint32_t nr_ioctl, nr_unshare, nr_clone;
};

static void guard_abi(struct bpf_prog *p, unsigned flags, const struct abi_tables *t)
{
	if (flags & WARDEN_GUARD_READ_ONLY)
		for (size_t i = 0; i < t->n_metadata; i++)
			bpf_ret_if_eq(p, t->metadata[i], RET_EACCES);
	if (flags & WARDEN_GUARD_NO_IPC)
		for (size_t i = 0; i < t->n_ipc; i++)
			bpf_ret_if_eq(p, t->ipc[i], RET_EPERM);
	for (size_t i = 0; i < t->n_keys; i++)
		bpf_ret_if_eq(p, t->keys[i], RET_EPERM);
	for (size_t i = 0; i < t->n_enosys; i++)
		bpf_ret_if_eq(p, t->enosys[i], RET_ENOSYS);
	bpf_ret_if_ge(p, GUARD_FIRST_UNKNOWN, RET_ENOSYS);
	guard_ioctl(p, t->nr_ioctl);
	guard_newuser(p, t->nr_unshare);
	guard_newuser(p, t->nr_clone);
	bpf_ret(p, RET_ALLOW);
}

static void guard_build(struct bpf_prog *p, unsigned flags)
{
	static const struct abi_tables native = {
		native_metadata, N(native_metadata),
		native_enosys, N(native_enosys),
		native_ipc, N(native_ipc),
		native_keys, N(native_keys),
		__NR_ioctl, __NR_unshare, __NR_clone,
	};

	bpf_ld(p, WARDEN_BPF_OFF_ARCH);
#ifdef WARDEN_BPF_HAS_I386
	static const struct abi_tables i386 = {
		i386_metadata, N(i386_metadata),
		i386_enosys, N(i386_enosys),
		i386_ipc, N(i386_ipc),
		i386_keys, N(i386_keys),
		I386_IOCTL, I386_UNSHARE, I386_CLONE,
	};
	/* i386 jumps (32-bit offset, patched below) to its own block. */
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                     AUDIT_ARCH_I386, 0, 1));
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0));
	size_t i386_jump = p->len - 1;
#endif
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                     WARDEN_BPF_NATIVE_ARCH, 1, 0));
	bpf_ret(p, RET_ENOSYS);
	bpf_ld(p, WARDEN_BPF_OFF_NR);
#ifdef WARDEN_BPF_X32_BIT
	bpf_ret_if_set(p, WARDEN_BPF_X32_BIT, RET_ENOSYS);
#endif
	guard_abi(p, flags, &native);
#ifdef WARDEN_BPF_HAS_I386
	if (!p->overflow)
		p->insn[i386_jump].k = (uint32_t)(p->len - i386_jump - 1);
	bpf_ld(p, WARDEN_BPF_OFF_NR);
	guard_abi(p, flags, &i386);
#endif
}

int warden_guard_install(unsigned flags)
{
	static struct sock_filter insn[GUARD_MAX_INSNS];
	struct bpf_prog p = { insn, 0, GUARD_MAX_INSNS, 0 };

	guard_build(&p, flags);
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
