/*
 * test_netguard.c — the network guard's program (plugins/common/netguard.c),
 * run by a classic-BPF interpreter over seccomp_data the way the kernel
 * would run it, for every flag set: which socket() and socketpair() calls
 * pass, what connect(), bind() and listen() get with the gate (a supervisor's
 * notification on the native ABI, EACCES on i386), and that io_uring,
 * socketcall, x32 and foreign ABIs are shut.  The real kernel runs the
 * same program in tests/run/network.sh and tests/run/gate.sh; this test
 * also reaches the i386 branch, which a machine that refuses int 0x80
 * cannot.
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "netguard.h"

#if defined(__x86_64__)
#define NATIVE AUDIT_ARCH_X86_64
#define HAS_I386 1
#elif defined(__aarch64__)
#define NATIVE AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE AUDIT_ARCH_RISCV64
#elif defined(__i386__)
#define NATIVE AUDIT_ARCH_I386
#endif

#define ALLOW SECCOMP_RET_ALLOW
#define NOTIFY SECCOMP_RET_USER_NOTIF
#define ERR(e) (SECCOMP_RET_ERRNO | (uint32_t)(e))

/* The subset of classic BPF the guard uses, as the kernel runs it. */
static uint32_t run(const struct sock_filter *f, int n, const struct seccomp_data *d)
{
	uint32_t a = 0;
	int pc = 0;

	while (pc < n) {
		const struct sock_filter *i = &f[pc++];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(i->k + 4 <= sizeof(*d) && i->k % 4 == 0);
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & i->k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			fail_msg("instruction %d: code 0x%x this interpreter does not know",
			         pc - 1, i->code);
		}
	}
	fail_msg("the program ran off its end");
	return 0;
}

static uint32_t call(int flags, uint32_t arch, uint32_t nr, uint64_t a0,
                     uint64_t a1, uint64_t a2)
{
	struct sock_filter f[WARDEN_NETGUARD_MAX_INSNS];
	struct seccomp_data d;
	int n = warden_netguard_build(flags, f, WARDEN_NETGUARD_MAX_INSNS);

	assert_true(n > 0);
	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = (int)nr;
	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	return run(f, n, &d);
}

static uint32_t native(int flags, long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	return call(flags, NATIVE, (uint32_t)nr, a0, a1, a2);
}

static void test_plain_refuses_unix_sockets(void **state)
{
	(void)state;
	for (int fl = 0; fl < 4; fl++) {
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_STREAM, 0), ERR(EACCES));
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_DGRAM, 0), ERR(EACCES));
		assert_int_equal(native(fl, __NR_socketpair, AF_UNIX, SOCK_STREAM, 0), ALLOW);
		assert_int_equal(native(fl, __NR_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), ALLOW);
		assert_int_equal(native(fl, __NR_socketpair, AF_UNIX, SOCK_DGRAM, 0), ERR(EACCES));
		/* Without the gate connect() and bind() are the kernel's. */
		assert_int_equal(native(fl, __NR_connect, 3, 0, 16), ALLOW);
		assert_int_equal(native(fl, __NR_bind, 3, 0, 16), ALLOW);
		/* listen() is refused where Landlock holds TCP: it would
		 * bind an ephemeral port of the host's itself. */
		assert_int_equal(native(fl, __NR_listen, 3, 16, 0),
		                 (fl & WARDEN_NETGUARD_INET_TCP) ? ERR(EACCES) : ALLOW);
	}
}

static void test_inet_flags(void **state)
{
	(void)state;
	assert_int_equal(native(0, __NR_socket, AF_INET, SOCK_STREAM, 0), ERR(EACCES));
	assert_int_equal(native(WARDEN_NETGUARD_INET_ANY, __NR_socket, AF_INET6, SOCK_DGRAM, 0), ALLOW);
	assert_int_equal(native(WARDEN_NETGUARD_INET_TCP, __NR_socket, AF_INET, SOCK_STREAM, 0), ALLOW);
	assert_int_equal(native(WARDEN_NETGUARD_INET_TCP, __NR_socket, AF_INET, SOCK_STREAM, IPPROTO_TCP), ALLOW);
	assert_int_equal(native(WARDEN_NETGUARD_INET_TCP, __NR_socket, AF_INET, SOCK_DGRAM, 0), ERR(EACCES));
	assert_int_equal(native(WARDEN_NETGUARD_INET_TCP, __NR_socket, AF_INET, SOCK_RAW, 1), ERR(EACCES));
	for (int fl = 0; fl < 8; fl++) {
		assert_int_equal(native(fl, __NR_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), ALLOW);
		assert_int_equal(native(fl, __NR_socket, AF_NETLINK, SOCK_RAW, 9), ERR(EACCES));
		assert_int_equal(native(fl, __NR_socket, AF_PACKET, SOCK_RAW, 0), ERR(EACCES));
	}
}

static void test_gate(void **state)
{
	const int g = WARDEN_NETGUARD_UNIX_GATED;

	(void)state;
	for (int fl = g; fl < 8; fl++) {
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_STREAM, 0), ALLOW);
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), ALLOW);
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_SEQPACKET, 0), ALLOW);
		/* Datagrams name an address in every sendto(); raw is one. */
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_DGRAM, 0), ERR(EACCES));
		assert_int_equal(native(fl, __NR_socket, AF_UNIX, SOCK_RAW, 0), ERR(EACCES));
		assert_int_equal(native(fl, __NR_socketpair, AF_UNIX, SOCK_DGRAM, 0), ERR(EACCES));
		/* Every connect() is the supervisor's; bind() and listen()
		 * too (listen: a unix socket autobound by a connect must not
		 * become a server host clients can reach), but in a network
		 * namespace of the command's own, where they are its own. */
		assert_int_equal(native(fl, __NR_connect, 3, 0x1000, 110), NOTIFY);
		assert_int_equal(native(fl, __NR_bind, 3, 0x1000, 110),
		                 fl & WARDEN_NETGUARD_INET_ANY ? ALLOW : NOTIFY);
		assert_int_equal(native(fl, __NR_listen, 3, 16, 0),
		                 fl & WARDEN_NETGUARD_INET_ANY ? ALLOW : NOTIFY);
		/* The rest of the program is as without the gate. */
		assert_int_equal(native(fl, __NR_socket, AF_PACKET, SOCK_RAW, 0), ERR(EACCES));
		assert_int_equal(native(fl, __NR_write, 1, 0, 0), ALLOW);
	}
	assert_int_equal(native(g, __NR_socket, AF_INET, SOCK_STREAM, 0), ERR(EACCES));
	assert_int_equal(native(g | WARDEN_NETGUARD_INET_ANY, __NR_socket, AF_INET, SOCK_STREAM, 0), ALLOW);
}

static void test_other_abis(void **state)
{
	(void)state;
	for (int fl = 0; fl < 8; fl++) {
		assert_int_equal(native(fl, 425, 0, 0, 0), ERR(ENOSYS)); /* io_uring_setup */
		assert_int_equal(native(fl, 426, 0, 0, 0), ERR(ENOSYS));
		assert_int_equal(native(fl, 427, 0, 0, 0), ERR(ENOSYS));
		assert_int_equal(call(fl, AUDIT_ARCH_ARM, __NR_socket, AF_UNIX, SOCK_STREAM, 0), ERR(ENOSYS));
#ifdef HAS_I386
		/* x32: the native arch with bit 30 in the number. */
		assert_int_equal(call(fl, NATIVE, 0x40000000u | __NR_socket, AF_INET, SOCK_STREAM, 0), ERR(ENOSYS));
		/* i386: socketcall is shut; socket (359) as the native one. */
		assert_int_equal(call(fl, AUDIT_ARCH_I386, 102, 1, 0, 0), ERR(ENOSYS));
		assert_int_equal(call(fl, AUDIT_ARCH_I386, 359, AF_PACKET, SOCK_RAW, 0), ERR(EACCES));
		if (fl & WARDEN_NETGUARD_UNIX_GATED) {
			/* The supervisor reads native addresses only: i386
			 * connect (362), bind (361) and listen (363) are
			 * refused outright. */
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 362, 3, 0x1000, 110), ERR(EACCES));
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 361, 3, 0x1000, 110), ERR(EACCES));
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 363, 3, 16, 0), ERR(EACCES));
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 359, AF_UNIX, SOCK_STREAM, 0), ALLOW);
		} else {
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 362, 3, 0x1000, 110), ALLOW);
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 363, 3, 16, 0),
			                 (fl & WARDEN_NETGUARD_INET_TCP) ? ERR(EACCES) : ALLOW);
			assert_int_equal(call(fl, AUDIT_ARCH_I386, 359, AF_UNIX, SOCK_STREAM, 0), ERR(EACCES));
		}
#endif
	}
}

static void test_too_small(void **state)
{
	struct sock_filter f[8];

	(void)state;
	errno = 0;
	assert_int_equal(warden_netguard_build(WARDEN_NETGUARD_UNIX_GATED, f, 8), -1);
	assert_int_equal(errno, E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_refuses_unix_sockets),
		cmocka_unit_test(test_inet_flags),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_other_abis),
		cmocka_unit_test(test_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
