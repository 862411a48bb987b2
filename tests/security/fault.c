/*
 * fault.so — fault injection by LD_PRELOAD, for tests/security/fault_sweep.sh.
 *
 *   WARDEN_FAULT_ALLOC=N     the Nth allocation of the process (malloc,
 *                            calloc, realloc, strdup, strndup,
 *                            posix_memalign, aligned_alloc; counted from
 *                            start-up) fails with ENOMEM; only that one
 *   WARDEN_FAULT_COUNT=FILE  at exit, append the number of allocations
 *                            made to FILE (to size a sweep)
 *   WARDEN_FAULT_SITES=FILE  at exit, write to FILE the numbers N of the
 *                            allocations made from a call stack not seen
 *                            before in this process, one per line: the
 *                            sweep fails each of those.  An allocation
 *                            whose whole stack (up to 32 frames) equals
 *                            an earlier one's is the same code path met
 *                            again (a loop's next turn), with the same
 *                            failure handling; sweeping every N is
 *                            fault_sweep.sh's FAULT_EVERY=1.  More sites
 *                            than the table holds: the file says "all".
 *   WARDEN_FAULT_LOG=MODE    writes and fsyncs to a session log (a file
 *                            whose name ends in .jsonl) fail: `enospc`
 *                            (a short write, then ENOSPC), `eio` (write
 *                            fails EIO), `fsync-eio` (fsync fails EIO)
 *
 * The constructor removes LD_PRELOAD from the environment, so only the
 * process under test is affected, never what it spawns.  glibc only: it
 * reaches the real allocator through the __libc_* entry points.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static unsigned long fail_at, count;
static const char *count_file;
static const char *sites_file;
/* Distinct stacks: an open-addressing set of their hashes, and the
 * allocation numbers that met each first.  Static: no allocation here. */
#define SITES_MAX 32768
static uint64_t site_hash[2 * SITES_MAX];
static unsigned long site_first[SITES_MAX];
static size_t n_sites;
static int sites_overflow;
static __thread int in_backtrace;
static pid_t main_pid;           /* a forked child does not write the sites */
static const char *log_mode;
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);

__attribute__((constructor)) static void fault_init(void)
{
	const char *a = getenv("WARDEN_FAULT_ALLOC");
	void *frames[4];

	/* The unwinder's own set-up (it loads libgcc_s) happens here, in
	 * every mode and before counting: the numbers of a counting run and
	 * of a faulted run stay the same. */
	in_backtrace = 1;
	backtrace(frames, 4);
	in_backtrace = 0;
	fail_at = a ? strtoul(a, NULL, 10) : 0;
	count_file = getenv("WARDEN_FAULT_COUNT");
	sites_file = getenv("WARDEN_FAULT_SITES");
	main_pid = getpid();
	log_mode = getenv("WARDEN_FAULT_LOG");
	real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	unsetenv("LD_PRELOAD");
}

static void write_sites(void)
{
	int fd = open(sites_file, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0600);
	char buf[4096];
	size_t i, len = 0;

	if (fd < 0 || real_write == NULL)
		goto out;
	if (sites_overflow) {
		real_write(fd, "all\n", 4);
		goto out;
	}
	for (i = 0; i < n_sites; i++) {
		if (len + 24 > sizeof(buf)) {
			real_write(fd, buf, len);
			len = 0;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%lu\n", site_first[i]);
	}
	real_write(fd, buf, len);
out:
	if (fd >= 0)
		close(fd);
}

__attribute__((destructor)) static void fault_fini(void)
{
	if (sites_file != NULL && getpid() == main_pid)
		write_sites();
	if (count_file != NULL) {
		int fd = open(count_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%lu\n", count);

		if (fd >= 0) {
			if (real_write != NULL)
				real_write(fd, buf, (size_t)n);
			close(fd);
		}
	}
}

/* Records allocation number n's stack; FNV-1a over the return addresses
 * (one process: the addresses are comparable within it). */
static void note_site(unsigned long n)
{
	void *frames[32];
	uint64_t h = 1469598103934665603ULL;
	int k, i;
	size_t j;

	in_backtrace = 1;
	k = backtrace(frames, 32);
	in_backtrace = 0;
	for (i = 2; i < k; i++) {     /* past note_site and fail_now */
		uintptr_t a = (uintptr_t)frames[i];
		size_t b;

		for (b = 0; b < sizeof(a); b++) {
			h ^= (a >> (8 * b)) & 0xff;
			h *= 1099511628211ULL;
		}
	}
	h |= 1;                       /* 0 marks an empty slot */
	for (j = h % (2 * SITES_MAX); site_hash[j] != 0; j = (j + 1) % (2 * SITES_MAX))
		if (site_hash[j] == h)
			return;
	if (n_sites == SITES_MAX) {
		sites_overflow = 1;
		return;
	}
	site_hash[j] = h;
	site_first[n_sites++] = n;
}

static int fail_now(void)
{
	if (in_backtrace)
		return 0;
	++count;
	if (sites_file != NULL)
		note_site(count);
	return count == fail_at;
}

void *malloc(size_t n)
{
	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = malloc(n + 1);

	if (d == NULL)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (fail_now())
		return ENOMEM;
	if ((p = __libc_memalign(align, n)) == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, n);
}

/* Is fd a session log? */
static int is_log(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	if (log_mode == NULL || fd < 3)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) < 6)
		return 0;
	path[n] = '\0';
	return strcmp(path + n - 6, ".jsonl") == 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	if (is_log(fd)) {
		if (strcmp(log_mode, "eio") == 0) {
			errno = EIO;
			return -1;
		}
		if (strcmp(log_mode, "enospc") == 0) {
			/* A full disk takes part of the line, then refuses. */
			if (len > 1)
				return real_write(fd, buf, len / 2);
			errno = ENOSPC;
			return -1;
		}
	}
	return real_write(fd, buf, len);
}

int fsync(int fd)
{
	if (is_log(fd) && strcmp(log_mode, "fsync-eio") == 0) {
		errno = EIO;
		return -1;
	}
	return real_fsync(fd);
}
