/*
 * gate-probe ACTION... — run inside a sandbox by tests/run/gate.sh against
 * the allow_unix_socket gate.  Each ACTION prints one line
 * "ACTION: reached" or "ACTION: refused: WHY" (exit status 0 whatever
 * happened):
 *
 *   connect:PATH      a stream socket connected to PATH, which must answer
 *                     "ok" (the servers of tests/run/net-servers.py do)
 *   abstract:NAME     the same to the abstract address NAME
 *   dgram:PATH        a datagram sent to PATH from a socket of its own
 *   bind:PATH         a stream socket bound to PATH
 *   bindabs:NAME      a stream socket bound to the abstract address NAME
 *   race:OK:BAD:N     N connects to an address whose bytes another thread
 *                     flips between OK and BAD all the while; "reached"
 *                     when at least one connect got an answer (which of the
 *                     servers answered, their markers tell)
 *   ptrace-parent     PTRACE_ATTACH to the parent, the gate's supervisor
 *   peek-parent       process_vm_readv of the parent's memory
 *   i386:PATH         connect(2) through the i386 ABI (int 0x80) on
 *                     x86-64, in a child; elsewhere "skipped"; where
 *                     int 0x80 faults, "refused" saying so
 *   swap:PATH:OTHER   puts a link to OTHER in PATH's place (PATH's
 *                     directory renamed to DIR.moved, a new DIR holding
 *                     the link; a line "swapped: yes" or "swapped: no:
 *                     WHY" first), then connect:PATH
 *   autobind:PATH     a stream socket with SO_PASSCRED connected to PATH,
 *                     whose connect fails (a socket nobody listens on);
 *                     the kernel gave it an abstract name anyway (a line
 *                     "autobound: @NAME" or "autobound: no"); then
 *                     listen() on it, which would make the command a
 *                     server host clients can reach: "reached" when
 *                     listen() succeeds
 *   thread:PATH       connect:PATH from a second thread ("skipped" on a
 *                     kernel that has no pidfd of a thread, before 6.9)
 *   own-listener      a seccomp filter of its own with a listener, whose
 *                     answers would come before the supervisor's
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static socklen_t fill(struct sockaddr_un *sun, const char *path, int abstract)
{
	size_t n = strlen(path);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (n + 2 > sizeof(sun->sun_path))
		n = sizeof(sun->sun_path) - 2;
	memcpy(sun->sun_path + (abstract ? 1 : 0), path, n);
	/* A path and its NUL, or the NUL and a name. */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

static int answered(int s)
{
	char buf[2];
	struct timeval tv = { 3, 0 };

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (recv(s, buf, 2, MSG_WAITALL) != 2 || memcmp(buf, "ok", 2) != 0) {
		errno = errno ? errno : EPROTO;
		return -1;
	}
	return 0;
}

static int stream_to(const char *path, int abstract)
{
	struct sockaddr_un sun;
	socklen_t len = fill(&sun, path, abstract);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (s < 0)
		return -1;
	r = connect(s, (struct sockaddr *)&sun, len);
	if (r == 0)
		r = answered(s);
	int e = errno;
	close(s);
	errno = e;
	return r;
}

static int dgram_to(const char *path)
{
	struct sockaddr_un sun;
	socklen_t len = fill(&sun, path, 0);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (s < 0)
		return -1;
	r = sendto(s, "hello", 5, 0, (struct sockaddr *)&sun, len) == 5 ? 0 : -1;
	int e = errno;
	close(s);
	errno = e;
	return r;
}

static int bind_to(const char *path, int abstract)
{
	struct sockaddr_un sun;
	socklen_t len = fill(&sun, path, abstract);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (s < 0)
		return -1;
	r = bind(s, (struct sockaddr *)&sun, len);
	int e = errno;
	close(s);
	if (r == 0 && !abstract)
		unlink(path);
	errno = e;
	return r;
}

/* race: the address another thread keeps rewriting. */
static struct sockaddr_un race_addr;
static struct sockaddr_un race_ok, race_bad;
static atomic_int race_stop;

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load(&race_stop)) {
		memcpy((void *)&race_addr, &race_bad, sizeof(race_addr));
		memcpy((void *)&race_addr, &race_ok, sizeof(race_addr));
	}
	return NULL;
}

static int race(const char *spec)
{
	char *copy = strdup(spec), *ok, *bad, *n;
	pthread_t t;
	long i, count, reached = 0;

	if (copy == NULL || (ok = strtok(copy, ":")) == NULL ||
	    (bad = strtok(NULL, ":")) == NULL || (n = strtok(NULL, ":")) == NULL) {
		errno = EINVAL;
		return -1;
	}
	count = atol(n);
	fill(&race_ok, ok, 0);
	fill(&race_bad, bad, 0);
	memcpy(&race_addr, &race_ok, sizeof(race_addr));
	if (pthread_create(&t, NULL, flipper, NULL) != 0) {
		errno = EAGAIN;
		return -1;
	}
	for (i = 0; i < count; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s < 0)
			break;
		if (connect(s, (struct sockaddr *)&race_addr, sizeof(race_addr)) == 0 &&
		    answered(s) == 0)
			reached++;
		close(s);
	}
	atomic_store(&race_stop, 1);
	pthread_join(t, NULL);
	printf("race: %ld of %ld connects answered\n", reached, count);
	free(copy);
	if (reached == 0) {
		errno = ECONNREFUSED;
		return -1;
	}
	return 0;
}

static int ptrace_parent(void)
{
	pid_t parent = getppid();

	if (ptrace(PTRACE_ATTACH, parent, NULL, NULL) < 0)
		return -1;
	ptrace(PTRACE_DETACH, parent, NULL, NULL);
	return 0;
}

static int peek_parent(void)
{
	char buf[16];
	static char here;
	struct iovec local = { buf, sizeof(buf) };
	/* Permission is checked before the address: EPERM says the memory
	 * was not reachable, EFAULT that it was but not at this address. */
	struct iovec remote = { &here, 1 };

	return process_vm_readv(getppid(), &local, 1, &remote, 1, 0) < 0 ? -1 : 0;
}

static int swap(const char *spec)
{
	char *copy = strdup(spec), *path, *other, *slash, moved[4200];

	if (copy == NULL || (path = strtok(copy, ":")) == NULL ||
	    (other = strtok(NULL, ":")) == NULL ||
	    (slash = strrchr(path, '/')) == NULL || slash == path) {
		errno = EINVAL;
		return -1;
	}
	*slash = '\0';
	snprintf(moved, sizeof(moved), "%s.moved", path);
	if (rename(path, moved) < 0)
		printf("swapped: no: rename %s: %s\n", path, strerror(errno));
	else if (mkdir(path, 0755) < 0)
		printf("swapped: no: mkdir %s: %s\n", path, strerror(errno));
	else if (*slash = '/', symlink(other, path) < 0)
		printf("swapped: no: symlink %s: %s\n", path, strerror(errno));
	else
		printf("swapped: yes\n");
	*slash = '/';
	fflush(stdout);
	int r = stream_to(path, 0), e = errno;
	free(copy);
	errno = e;
	return r;
}

static int autobind(const char *path)
{
	struct sockaddr_un sun, name;
	socklen_t len = fill(&sun, path, 0), nlen = sizeof(name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, r, e;

	if (s < 0)
		return -1;
	if (setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    connect(s, (struct sockaddr *)&sun, len) == 0) {
		e = errno != 0 ? errno : EISCONN;
		close(s);
		errno = e;
		return -1;
	}
	memset(&name, 0, sizeof(name));
	if (getsockname(s, (struct sockaddr *)&name, &nlen) == 0 &&
	    nlen > sizeof(sa_family_t) && name.sun_path[0] == '\0')
		printf("autobound: @%.*s\n", (int)(nlen - sizeof(sa_family_t) - 1),
		       name.sun_path + 1);
	else
		printf("autobound: no\n");
	r = listen(s, 4);
	e = errno;
	close(s);
	errno = e;
	return r;
}

static const char *thread_path;
static int thread_r, thread_e;

static void *thread_connect(void *arg)
{
	(void)arg;
	thread_r = stream_to(thread_path, 0);
	thread_e = errno;
	return NULL;
}

static int in_thread(const char *path)
{
	pthread_t t;
	int fd = (int)syscall(SYS_pidfd_open, getpid(), O_EXCL /* PIDFD_THREAD */);

	if (fd < 0 && errno == EINVAL)
		return -4;
	if (fd >= 0)
		close(fd);
	thread_path = path;
	if (pthread_create(&t, NULL, thread_connect, NULL) != 0) {
		errno = EAGAIN;
		return -1;
	}
	pthread_join(t, NULL);
	errno = thread_e;
	return thread_r;
}

static int own_listener(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	long fd;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	             SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		return -1;
	close((int)fd);
	return 0;
}

/* In a child: a kernel without the i386 ABI (or a machine that refuses
 * int 0x80) kills it with SIGSEGV, which is said as such. */
static int i386_connect_child(const char *path);

static int i386_connect(const char *path)
{
#if defined(__x86_64__)
	int status, p[2], e = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(p) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		e = i386_connect_child(path) < 0 ? errno : 0;
		(void)!write(p[1], &e, sizeof(e));
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = -1;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (e == -1) {
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
			return -3;
		errno = EPROTO;
		return -1;
	}
	errno = e;
	return e == 0 ? 0 : -1;
#else
	(void)path;
	return -2;
#endif
}

static int i386_connect_child(const char *path)
{
#if defined(__x86_64__)
	struct sockaddr_un *sun = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	socklen_t len;
	long r;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (sun == MAP_FAILED || s < 0)
		return -1;
	len = fill(sun, path, 0);
	__asm__ volatile("int $0x80"
	                 : "=a"(r)
	                 : "a"(362L), "b"((long)s), "c"((long)(uintptr_t)sun), "d"((long)len)
	                 : "memory");
	if (r == 0)
		r = answered(s) == 0 ? 0 : -errno;
	close(s);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
#else
	(void)path;
	errno = ENOTSUP;
	return -1;
#endif
}

int main(int argc, char **argv)
{
	int i;

	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *arg = strchr(a, ':');
		int r;

		errno = 0;
		arg = arg != NULL ? arg + 1 : "";
		if (strncmp(a, "connect:", 8) == 0)
			r = stream_to(arg, 0);
		else if (strncmp(a, "abstract:", 9) == 0)
			r = stream_to(arg, 1);
		else if (strncmp(a, "dgram:", 6) == 0)
			r = dgram_to(arg);
		else if (strncmp(a, "bind:", 5) == 0)
			r = bind_to(arg, 0);
		else if (strncmp(a, "bindabs:", 8) == 0)
			r = bind_to(arg, 1);
		else if (strncmp(a, "race:", 5) == 0)
			r = race(arg);
		else if (strcmp(a, "ptrace-parent") == 0)
			r = ptrace_parent();
		else if (strcmp(a, "peek-parent") == 0)
			r = peek_parent();
		else if (strncmp(a, "i386:", 5) == 0)
			r = i386_connect(arg);
		else if (strncmp(a, "swap:", 5) == 0)
			r = swap(arg);
		else if (strncmp(a, "autobind:", 9) == 0)
			r = autobind(arg);
		else if (strncmp(a, "thread:", 7) == 0)
			r = in_thread(arg);
		else if (strcmp(a, "own-listener") == 0)
			r = own_listener();
		else {
			fprintf(stderr, "gate-probe: unknown action %s\n", a);
			return 2;
		}
		if (r == -2)
			printf("%s: skipped: not an x86-64 build\n", a);
		else if (r == -4)
			printf("%s: skipped: no pidfd of a thread here (Linux < 6.9)\n", a);
		else if (r == -3)
			printf("%s: refused: int 0x80 faults here (SIGSEGV): no i386 ABI to reach\n", a);
		else if (r == 0)
			printf("%s: reached\n", a);
		else
			printf("%s: refused: %s\n", a, strerror(errno));
		fflush(stdout);
	}
	return 0;
}
