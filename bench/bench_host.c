/*
 * bench_host — the in-process figures of BENCHMARKS.md.
 *
 *   bench_host TOP_BUILDDIR [OUT.tsv]
 *
 * Every figure is measured REPEAT times; the table gives the median and the
 * spread (min..max) and the ratio against a baseline measured in the same
 * run, so that a loaded or slow machine moves both sides alike:
 *
 *   session-resolve-N    open + resolve the knobs of a session holding N
 *                        events (10, 10^4, 10^6); baseline: the 10 case
 *   session-append-*     appends per second, 1 and 8 writer processes,
 *                        durability none and fsync; baseline: the same
 *                        writers doing a bare O_APPEND write(2) (+ fsync)
 *                        of a line of the same size, no lock, no JSON
 *   startup              parse a config naming every plugin built here
 *                        (bwrap, landlock, rules, tty, exec, ffi) and load
 *                        + open each; baseline: dlopen + dlclose of one
 *                        shipped plugin
 *   confine              warden_sandbox_confine() after the probe is
 *                        cached; baseline: one stat(2) of the root
 *   approval-inproc-8    one warden_approval_ask() through 8 inproc
 *                        `rules` answerers (7 delegate, the 8th allows),
 *                        both audit appends, durability none; baseline:
 *                        the same 8 fnmatch(3) decisions through function
 *                        pointers plus two O_APPEND write(2)s of a line
 *                        of the same size
 *   approval-inproc-1    the same with one inproc answerer that allows
 *                        (the fixed cost of a request: id, refresh,
 *                        audit); baseline: 1 fnmatch + the two writes
 *   approval-process-1   one ask through one `rules` answerer in its
 *                        worker process (started by a first request, then
 *                        reused); baseline: a request-sized round trip
 *                        over a socketpair to a forked echo process plus
 *                        the two writes
 *
 * Each line of output: name, median, min, max, unit, baseline median,
 * ratio, target.  Nothing here asserts a time: `make bench` reports.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fnmatch.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "approval.h"
#include "loader.h"
#include "policy.h"
#include "sandbox.h"
#include "session.h"
#include "vocab.h"
#include "wconfig.h"
#include "bench.h"

static const char *top;
static char scratch[PATH_MAX];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench_host: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static struct warden_config *config_text(const char *text)
{
	struct warden_config *cfg;
	struct warden_error err = { 0 };
	char file[PATH_MAX + 16];

	snprintf(file, sizeof(file), "%s/bench.ini", scratch);
	if (warden_config_parse(text, file, &cfg, &err) != 0)
		die("config: %s", err.msg);
	return cfg;
}

/* ------------------------------------------------------------ sessions */

static struct warden_config *session_config(const char *durability)
{
	char text[2 * PATH_MAX];

	snprintf(text, sizeof(text),
	         "[warden]\nstate_dir = %s/state\ndurability = %s\n",
	         scratch, durability);
	return config_text(text);
}

/*
 * A session of n events: session/start by the real code, then n - 1
 * sandbox/mode events written as the real appender writes them (the
 * format of tests/test_session.c), alternating the two confining modes so
 * that every line changes the knobs.  The real open then checks the tail.
 */
static char *make_session(struct warden_config *cfg, long n)
{
	struct warden_error err = { 0 };
	struct warden_session *s;
	char *id;
	char path[PATH_MAX];
	FILE *f;

	if (warden_session_create(cfg, scratch, &id, &err) != 0)
		die("session create: %s", err.msg);
	if (warden_session_open(cfg, id, &s, &err) != 0)
		die("session open: %s", err.msg);
	snprintf(path, sizeof(path), "%s", warden_session_path(s));
	warden_session_close(s);
	if ((f = fopen(path, "a")) == NULL)
		die("%s: %s", path, strerror(errno));
	for (long seq = 2; seq <= n; seq++) {
		const char *m = seq % 2 ? "workspace-write" : "read-only";
		fprintf(f, "{\"seq\":%ld,\"time\":\"2026-01-01T00:00:00.000000Z\","
		        "\"type\":\"sandbox/mode\",\"mode\":\"%s\","
		        "\"knobs\":{\"mode\":\"%s\"}}\n", seq, m, m);
	}
	if (fclose(f) != 0)
		die("%s: %s", path, strerror(errno));
	if (warden_session_open(cfg, id, &s, &err) != 0)
		die("session of %ld events refused: %s", n, err.msg);
	if (warden_session_last_seq(s) != (uint64_t)n)
		die("session of %ld events reads as %llu", n,
		    (unsigned long long)warden_session_last_seq(s));
	warden_session_close(s);
	return id;
}

static void bench_resolve(void)
{
	static const long sizes[] = { 10, 10000, 1000000 };
	struct warden_config *cfg = session_config("none");
	struct bench_series base = { 0 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct bench_series s = { 0 };
		char *id = make_session(cfg, sizes[i]);
		char name[64];

		for (int r = 0; r < BENCH_REPEAT; r++) {
			struct warden_resolved res;
			struct warden_error err = { 0 };
			int iters = 200;
			double t0 = bench_now();

			for (int k = 0; k < iters; k++)
				if (warden_policy_resolve(cfg, id, 0, &res, &err) != 0)
					die("resolve: %s", err.msg);
			bench_add(&s, (bench_now() - t0) / iters * 1e6);
		}
		if (i == 0)
			base = s;
		snprintf(name, sizeof(name), "session-resolve-%ld", sizes[i]);
		bench_report(name, &s, "us", &base, "<= 2x the 10-event case");
		free(id);
	}
	warden_config_free(cfg);
}

/* One writer process: `count` appends; returns through its exit status. */
static void writer(struct warden_config *cfg, const char *id, int bare,
                   const char *bare_path, int fsync_too, int count)
{
	struct warden_error err = { 0 };
	struct warden_session *s;
	char line[200];
	int fd;

	if (!bare) {
		if (warden_session_open(cfg, id, &s, &err) != 0)
			_exit(2);
		for (int i = 0; i < count; i++) {
			json_t *f = json_pack("{s:s}", "note", "bench");
			if (warden_session_append(s, "approval/asked", f, &err) != 0)
				_exit(3);
			json_decref(f);
		}
		warden_session_close(s);
		_exit(0);
	}
	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	if ((fd = open(bare_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0)
		_exit(4);
	for (int i = 0; i < count; i++) {
		if (write(fd, line, sizeof(line)) != (ssize_t)sizeof(line))
			_exit(5);
		if (fsync_too && fsync(fd) != 0)
			_exit(6);
	}
	close(fd);
	_exit(0);
}

/* Appends per second with `writers` processes. */
static double append_rate(struct warden_config *cfg, const char *id, int bare,
                          int fsync_too, int writers, int per_writer)
{
	char bare_path[PATH_MAX + 16];
	double t0;

	snprintf(bare_path, sizeof(bare_path), "%s/bare.log", scratch);
	unlink(bare_path);
	t0 = bench_now();
	for (int w = 0; w < writers; w++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0)
			writer(cfg, id, bare, bare_path, fsync_too, per_writer);
	}
	for (int w = 0; w < writers; w++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			die("append writer failed (status %d)", st);
	}
	return writers * per_writer / (bench_now() - t0);
}

static void bench_append(void)
{
	static const struct {
		const char *durability;
		int writers, per_writer;
	} cases[] = {
		{ "none", 1, 4000 }, { "none", 8, 500 },
		{ "fsync", 1, 100 }, { "fsync", 8, 25 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct warden_config *cfg = session_config(cases[i].durability);
		int fs = strcmp(cases[i].durability, "fsync") == 0;
		struct bench_series s = { 0 }, base = { 0 };
		char name[64], *id = make_session(cfg, 1);

		for (int r = 0; r < BENCH_REPEAT; r++) {
			bench_add(&base, append_rate(cfg, id, 1, fs, cases[i].writers,
			                             cases[i].per_writer));
			bench_add(&s, append_rate(cfg, id, 0, fs, cases[i].writers,
			                          cases[i].per_writer));
		}
		snprintf(name, sizeof(name), "session-append-%s-%dw",
		         cases[i].durability, cases[i].writers);
		bench_report(name, &s, "events/s", &base, "report");
		free(id);
		warden_config_free(cfg);
	}
}

/* ------------------------------------------------------ plugins, confine */

/* A library the ffi answerer can open by absolute path: the C library,
 * wherever strcmp lives. */
static const char *ffi_library(void)
{
	Dl_info info;

	if (dladdr((void *)strcmp, &info) == 0 || info.dli_fname == NULL ||
	    info.dli_fname[0] != '/')
		die("cannot find the C library's path for the ffi answerer");
	return info.dli_fname;
}

static void shipped_config(char *text, size_t len)
{
	snprintf(text, len,
	         "[warden]\nstate_dir = %s/state\ndurability = none\n"
	         "[backend bwrap]\nplugin = %s/plugins/bwrap/.libs/bwrap.so\n"
	         "launcher = %s/plugins/bwrap/warden-bwrap-exec\n"
	         "[backend landlock]\nplugin = %s/plugins/landlock/.libs/landlock.so\n"
	         "runner = %s/plugins/landlock/warden-landlock-run\n"
	         "[answerer rules]\nplugin = %s/plugins/rules/.libs/rules.so\n"
	         "allow = bash:git status*\ndeny = bash:rm *\n"
	         "[answerer tty]\nplugin = %s/plugins/tty/.libs/tty.so\n"
	         "[answerer exec]\nplugin = %s/plugins/exec/.libs/exec.so\n"
	         "command = /bin/true\n"
	         "[answerer ffi]\nplugin = %s/plugins/ffi/.libs/ffi.so\n"
	         "library = %s\nsymbol = strcmp\nargs = tool subject\n"
	         "returns = int\nmap = 0:allowed-once\n",
	         scratch, top, top, top, top, top, top, top, top, ffi_library());
}

/* Loads and opens every configured plugin; returns how many loaded. */
static size_t load_all(const struct warden_config *cfg, struct warden_loaded *lp,
                       size_t max)
{
	size_t n = 0, ok = 0;

	for (size_t i = 0; i < cfg->n_backends && n < max; i++, n++)
		ok += warden_loader_load(cfg, &cfg->backends[i], 1, &lp[n]) == 0;
	for (size_t i = 0; i < cfg->n_answerers && n < max; i++, n++)
		ok += warden_loader_load(cfg, &cfg->answerers[i], 1, &lp[n]) == 0;
	if (ok != n)
		for (size_t i = 0; i < n; i++)
			if (lp[i].status != WARDEN_LOAD_LOADED)
				die("plugin %s: %s", lp[i].cfg->name, lp[i].reason);
	return n;
}

static void bench_startup(void)
{
	char text[12 * PATH_MAX], one[PATH_MAX];
	struct bench_series s = { 0 }, base = { 0 };

	shipped_config(text, sizeof(text));
	snprintf(one, sizeof(one), "%s/plugins/bwrap/.libs/bwrap.so", top);
	for (int r = 0; r < BENCH_REPEAT; r++) {
		int iters = 50;
		double t0 = bench_now();

		for (int k = 0; k < iters; k++) {
			void *h = dlopen(one, RTLD_NOW | RTLD_LOCAL);

			if (h == NULL)
				die("dlopen %s: %s", one, dlerror());
			dlclose(h);
		}
		bench_add(&base, (bench_now() - t0) / iters * 1e6);
		t0 = bench_now();
		for (int k = 0; k < iters; k++) {
			struct warden_config *cfg = config_text(text);
			struct warden_loaded lp[16];
			size_t n = load_all(cfg, lp, 16);

			for (size_t i = 0; i < n; i++)
				warden_loader_unload(&lp[i]);
			warden_config_free(cfg);
		}
		bench_add(&s, (bench_now() - t0) / iters * 1e6);
	}
	bench_report("startup", &s, "us", &base, "<= 1000 us");
}

static void bench_confine(void)
{
	char text[12 * PATH_MAX];
	struct warden_config *cfg;
	struct warden_loaded lp[16];
	struct warden_sandbox *svc;
	struct warden_error err = { 0 };
	struct bench_series s = { 0 }, base = { 0 };
	const char *argv[] = { "/bin/true" };
	size_t n;

	shipped_config(text, sizeof(text));
	cfg = config_text(text);
	n = load_all(cfg, lp, 16);
	/* load_all() puts the backends first. */
	if (warden_sandbox_new(lp, cfg->n_backends, &svc, &err) != 0)
		die("sandbox: %s", err.msg);
	for (size_t b = 0; b < warden_sandbox_count(svc); b++) {
		const char *name = warden_sandbox_backend(svc, b)->cfg->name;
		struct warden_policy pol;
		struct warden_confined *c;
		char label[64];

		warden_policy_init(&pol);
		pol.mode = WARDEN_MODE_WORKSPACE_WRITE;
		pol.workspace_root = scratch;
		/* The first call probes (a real bwrap run); the rest are cached. */
		if (warden_sandbox_confine_with(svc, name, argv, 1, &pol, &c, &err) != 0)
			die("confine with %s: %s", name, err.msg);
		warden_confined_free(c);
		s.n = base.n = 0;
		for (int r = 0; r < BENCH_REPEAT; r++) {
			int iters = 2000;
			struct stat st;
			double t0 = bench_now();

			for (int k = 0; k < iters; k++)
				if (stat(scratch, &st) != 0)
					die("stat: %s", strerror(errno));
			bench_add(&base, (bench_now() - t0) / iters * 1e6);
			t0 = bench_now();
			for (int k = 0; k < iters; k++) {
				if (warden_sandbox_confine_with(svc, name, argv, 1, &pol,
				                                &c, &err) != 0)
					die("confine: %s", err.msg);
				warden_confined_free(c);
			}
			bench_add(&s, (bench_now() - t0) / iters * 1e6);
		}
		snprintf(label, sizeof(label), "confine-%s", name);
		bench_report(label, &s, "us", &base, "<= 5 us");
	}
	warden_sandbox_free(svc);
	for (size_t i = 0; i < n; i++)
		warden_loader_unload(&lp[i]);
	warden_config_free(cfg);
}

/* ------------------------------------------------------------- approval */

/* A config of n `rules` answerers, all with `isolation`: the first n - 1
 * match nothing (delegate), the last allows bash. */
static struct warden_config *approval_config(int n, const char *isolation)
{
	char text[16 * PATH_MAX];
	size_t len;

	len = (size_t)snprintf(text, sizeof(text),
	                       "[warden]\nstate_dir = %s/state\ndurability = none\n"
	                       "approval_policy = ask\n", scratch);
	for (int i = 1; i <= n && len < sizeof(text); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		                        "[answerer r%d]\nplugin = %s/plugins/rules/.libs/rules.so\n"
		                        "isolation = %s\ntimeout_ms = 5000\n%s\n",
		                        i, top, isolation,
		                        i < n ? "deny = nosuchtool:*" : "allow = bash:*");
	if (len >= sizeof(text))
		die("approval config too long");
	return config_text(text);
}

/* The baseline's answerers: what a rules answerer decides, nothing else. */
static int bare_delegate(const char *tool, const char *subject)
{
	return fnmatch("nosuchtool", tool, 0) == 0 && fnmatch("*", subject, 0) == 0;
}

static int bare_allow(const char *tool, const char *subject)
{
	return fnmatch("bash", tool, 0) == 0 && fnmatch("*", subject, 0) == 0;
}

/* Two O_APPEND writes of an audit-sized line: the appends' bare cost. */
static void bare_appends(int fd)
{
	static char line[260];

	if (line[0] == '\0') {
		memset(line, 'x', sizeof(line));
		line[sizeof(line) - 1] = '\n';
	}
	for (int i = 0; i < 2; i++)
		if (write(fd, line, sizeof(line)) != (ssize_t)sizeof(line))
			die("bare append: %s", strerror(errno));
}

static double bare_chain(int n, int fd, int iters)
{
	int (*volatile chain[8])(const char *, const char *);
	volatile int allowed = 0;
	double t0;

	for (int i = 0; i < n; i++)
		chain[i] = i < n - 1 ? bare_delegate : bare_allow;
	t0 = bench_now();
	for (int k = 0; k < iters; k++) {
		for (int i = 0; i < n; i++)
			if (chain[i]("bash", "git status"))
				break;
		allowed++;
		bare_appends(fd);
	}
	return (bench_now() - t0) / iters * 1e6;
}

/* The socketpair round trip: a 512-byte request, a 64-byte reply. */
static double bare_roundtrip(int fd, int iters)
{
	char req[512], rep[64];
	int sv[2];
	pid_t pid;
	double t0, us;
	int st;

	memset(req, 'r', sizeof(req));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
	if ((pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(sv[0]);
		memset(rep, 'a', sizeof(rep));
		while (read(sv[1], req, sizeof(req)) > 0)
			if (write(sv[1], rep, sizeof(rep)) != (ssize_t)sizeof(rep))
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	t0 = bench_now();
	for (int k = 0; k < iters; k++) {
		size_t got = 0;

		if (write(sv[0], req, sizeof(req)) != (ssize_t)sizeof(req))
			die("roundtrip write: %s", strerror(errno));
		while (got < sizeof(rep)) {
			ssize_t r = read(sv[0], rep + got, sizeof(rep) - got);

			if (r <= 0)
				die("roundtrip read: %s", r < 0 ? strerror(errno) : "EOF");
			got += (size_t)r;
		}
		bare_appends(fd);
	}
	us = (bench_now() - t0) / iters * 1e6;
	close(sv[0]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("roundtrip echo process failed");
	return us;
}

static void bench_approval_case(const char *label, int n, const char *isolation,
                                int iters)
{
	struct warden_config *cfg = approval_config(n, isolation);
	struct warden_approval *a;
	struct warden_session *s;
	struct warden_error err = { 0 };
	struct bench_series fig = { 0 }, base = { 0 };
	struct warden_approval_request req = { .tool = "bash", .subject = "git status" };
	struct warden_approval_result res;
	char bare_path[PATH_MAX + 32], *id;
	int fd;

	if (warden_session_create(cfg, scratch, &id, &err) != 0)
		die("session create: %s", err.msg);
	if (warden_session_open(cfg, id, &s, &err) != 0)
		die("session open: %s", err.msg);
	if (warden_approval_new(cfg, &a, &err) != 0)
		die("approval: %s", err.msg);
	snprintf(bare_path, sizeof(bare_path), "%s/bare-approval.log", scratch);
	if ((fd = open(bare_path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC,
	               0600)) < 0)
		die("%s: %s", bare_path, strerror(errno));
	/* The first request loads the plugins (and starts the worker). */
	for (int k = 0; k < 3; k++)
		if (warden_approval_ask(a, s, &req, &res, &err) != 0 ||
		    res.outcome != WARDEN_OUTCOME_ALLOWED_ONCE)
			die("%s: approval did not allow (%s%s)", label, err.msg, res.reason);
	for (int r = 0; r < BENCH_REPEAT; r++) {
		double t0;

		bench_add(&base, strcmp(isolation, "process") == 0
		                 ? bare_roundtrip(fd, iters) : bare_chain(n, fd, iters));
		t0 = bench_now();
		for (int k = 0; k < iters; k++)
			if (warden_approval_ask(a, s, &req, &res, &err) != 0 ||
			    res.outcome != WARDEN_OUTCOME_ALLOWED_ONCE)
				die("%s: approval did not allow (%s%s)", label, err.msg,
				    res.reason);
		bench_add(&fig, (bench_now() - t0) / iters * 1e6);
	}
	bench_report(label, &fig, "us", &base,
	             strcmp(isolation, "process") == 0 ? "<= 50 us" :
	             n == 8 ? "<= 10 us" : "report");
	close(fd);
	warden_approval_free(a);
	warden_session_close(s);
	free(id);
	warden_config_free(cfg);
}

static void bench_approval(void)
{
	bench_approval_case("approval-inproc-8", 8, "inproc", 500);
	bench_approval_case("approval-inproc-1", 1, "inproc", 500);
	bench_approval_case("approval-process-1", 1, "process", 500);
}

int main(int argc, char **argv)
{
	const char *only = argc > 2 ? argv[2] : NULL;
	char cmd[PATH_MAX + 16];

	if (argc < 2) {
		fprintf(stderr, "usage: bench_host TOP_BUILDDIR [session|startup|confine|approval]\n");
		return 64;
	}
	top = argv[1];
	/* In the build tree, not /tmp: the loader refuses world-writable
	 * directories and the sandbox needs a real root. */
	snprintf(scratch, sizeof(scratch), "%s/bench/scratch-XXXXXX", top);
	if (mkdtemp(scratch) == NULL)
		die("mkdtemp %s: %s", scratch, strerror(errno));
	if (only == NULL || strcmp(only, "session") == 0) {
		bench_resolve();
		bench_append();
	}
	if (only == NULL || strcmp(only, "startup") == 0)
		bench_startup();
	if (only == NULL || strcmp(only, "confine") == 0)
		bench_confine();
	if (only == NULL || strcmp(only, "approval") == 0)
		bench_approval();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : 1;
}
