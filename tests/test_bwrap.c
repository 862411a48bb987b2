/*
 * test_bwrap.c — the bwrap backend's side of the plugin ABI 1.1 policy,
 * through the plugin itself (dlopen of the built bwrap.so) and the real
 * bwrap, as root: the root bound by the descriptor the host checked
 * (root_fd, push_fd), the read-only paths of the policy held by every
 * route or refused by name, and read_only_held.  The sink here passes
 * descriptors as a host does: each one at the number push_fd answered.
 * Every case checks the files on the host afterwards.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <warden/plugin.h>

#define MAX_ARGS 2048
#define MAX_FDS 256
#define FIRST_AT 20

static char plugin[PATH_MAX];   /* the built bwrap.so */
static char launcher[PATH_MAX]; /* the built warden-bwrap-exec */
static char scratch[PATH_MAX];
static char ws[PATH_MAX];       /* scratch/ws: the workspace root */
static void *dl;
static const struct warden_plugin *desc;
static void *inst;

static void xsnprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void xsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < len);
}

/* The file's content ("" when missing). */
static const char *read_file(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (f == NULL)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The content of ws/rel ("" when missing). */
static const char *ws_read(const char *rel)
{
	char p[PATH_MAX];

	xsnprintf(p, sizeof(p), "%s/%s", ws, rel);
	return read_file(p);
}

static int exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	xsnprintf(p, sizeof(p), "%s/%s", ws, rel);
	return lstat(p, &st) == 0;
}

static void sh(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------- sink */

struct sink {
	char *argv[MAX_ARGS];
	size_t n;
	int fds[MAX_FDS], at[MAX_FDS];
	size_t n_fds;
	int pass;       /* 0: a caller that cannot pass descriptors */
	char *env[MAX_ARGS];    /* what push_env gave (spawn_env) */
	size_t n_env;
};

/* Appends a copy of str to v (*n entries, NULL-terminated). */
static int push_str(char **v, size_t *n, const char *str)
{
	if (*n + 1 >= MAX_ARGS || (v[*n] = strdup(str)) == NULL)
		return -1;
	v[++*n] = NULL;
	return 0;
}

static int push_env(void *s, const char *entry)
{
	struct sink *k = s;

	return push_str(k->env, &k->n_env, entry);
}

static int push_arg(void *s, const char *arg)
{
	struct sink *k = s;

	return push_str(k->argv, &k->n, arg);
}

static int push_root(void *s, const char *path)
{
	(void)s;
	(void)path;
	return 0;
}

/* Takes fd over, as the host does, whatever it answers. */
static int push_fd(void *s, int fd)
{
	struct sink *k = s;

	if (!k->pass || k->n_fds >= MAX_FDS) {
		close(fd);
		return -1;
	}
	k->fds[k->n_fds] = fd;
	k->at[k->n_fds] = FIRST_AT + (int)k->n_fds;
	return k->at[k->n_fds++];
}

static void sink_free(struct sink *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->argv[i]);
	for (i = 0; i < k->n_fds; i++)
		close(k->fds[i]);
	for (i = 0; i < k->n_env; i++)
		free(k->env[i]);
	memset(k, 0, sizeof(*k));
}

/* ------------------------------------------------------------ plugin */

static int setup(void **state)
{
	const char *top = getenv("top_builddir");
	struct warden_kv kv[2];
	struct warden_open_args args;
	struct warden_probe probe;
	char err[256];

	(void)state;
	if (top == NULL || top[0] != '/') {
		fprintf(stderr, "test_bwrap: top_builddir must be set (run by make check)\n");
		return -1;
	}
	if (geteuid() != 0 || access("/usr/bin/bwrap", X_OK) != 0) {
		fprintf(stderr, "test_bwrap: needs root and /usr/bin/bwrap, as CI has\n");
		return -1;
	}
	xsnprintf(plugin, sizeof(plugin), "%s/plugins/bwrap/.libs/bwrap.so", top);
	xsnprintf(launcher, sizeof(launcher), "%s/plugins/bwrap/warden-bwrap-exec", top);
	xsnprintf(scratch, sizeof(scratch), "%s/tests/bwrap-XXXXXX", top);
	if (mkdtemp(scratch) == NULL || chmod(scratch, 0755) < 0)
		return -1;
	dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		fprintf(stderr, "test_bwrap: %s\n", dlerror());
		return -1;
	}
	desc = dlsym(dl, WARDEN_PLUGIN_SYMBOL);
	if (desc == NULL)
		return -1;
	kv[0] = (struct warden_kv){ "path", "/usr/bin/bwrap", 1 };
	kv[1] = (struct warden_kv){ "launcher", launcher, 2 };
	memset(&args, 0, sizeof(args));
	args.struct_size = sizeof(args);
	args.instance = "bwrap";
	args.config_file = "<test>";
	args.config_dir = "/";
	args.kv = kv;
	args.kv_count = 2;
	args.libexec_dir = "/nonexistent";
	inst = desc->open(&args, err, sizeof(err));
	if (inst == NULL) {
		fprintf(stderr, "test_bwrap: open: %s\n", err);
		return -1;
	}
	if (desc->probe(inst, WARDEN_MODE_WORKSPACE_WRITE, &probe) != 0 ||
	    !probe.usable || probe.enforcement != WARDEN_ENFORCEMENT_FULL ||
	    desc->probe(inst, WARDEN_MODE_READ_ONLY, &probe) != 0 || !probe.usable) {
		fprintf(stderr, "test_bwrap: probe: %s\n", probe.detail);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	if (inst != NULL)
		desc->close(inst);
	if (dl != NULL)
		dlclose(dl);
	if (scratch[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

/* A fresh workspace: a repository with .git/hooks and .git/config, and
 * conf/warden.ini. */
static int fresh(void **state)
{
	char cmd[3 * PATH_MAX];

	(void)state;
	xsnprintf(ws, sizeof(ws), "%s/ws", scratch);
	xsnprintf(cmd, sizeof(cmd),
	          "rm -rf '%s' '%s/other' && mkdir -p '%s/.git/hooks' '%s/conf' '%s/other' && "
	          "echo '[core]' > '%s/.git/config' && echo orig > '%s/conf/warden.ini'",
	          ws, scratch, ws, ws, scratch, ws, ws);
	return system(cmd) == 0 ? 0 : -1;
}

static void policy_init(struct warden_policy *p, int mode)
{
	memset(p, 0, sizeof(*p));
	p->struct_size = sizeof(*p);
	p->mode = mode;
	p->workspace_root = ws;
	p->session_id = "";
	p->status_fd = -1;
	p->root_fd = -1;
	p->network = WARDEN_NETWORK_ENABLED;
}

/* out as a host sets it; hosted: one that spawns bwrap itself
 * (push_env). */
static void out_init(struct warden_confine_out *out, struct sink *k, int hosted)
{
	memset(out, 0, sizeof(*out));
	out->struct_size = sizeof(*out);
	out->sink = k;
	out->push_arg = push_arg;
	out->push_writable_root = push_root;
	out->push_fd = push_fd;
	out->push_env = hosted ? push_env : NULL;
}

static int confine(const struct warden_policy *p, struct sink *k,
                   struct warden_confine_out *out, const char *script,
                   char *err, size_t errlen)
{
	const char *argv[] = { "/bin/sh", "-c", script };

	out_init(out, k, 0);
	err[0] = '\0';
	return desc->confine(inst, argv, 3, p, out, err, errlen);
}

static int run_env(struct sink *k, char *const *envp);

/* Runs what confine made, each descriptor at its number; the exit
 * status. */
static int run(struct sink *k)
{
	return run_env(k, NULL);
}

/* run() with envp as the whole environment (NULL: this one's). */
static int run_env(struct sink *k, char *const *envp)
{
	pid_t pid;
	int status, tmp[MAX_FDS];
	size_t i;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul < 0 || dup2(nul, 0) < 0)
			_exit(127);
		for (i = 0; i < k->n_fds; i++)
			if ((tmp[i] = fcntl(k->fds[i], F_DUPFD_CLOEXEC, 1000)) < 0)
				_exit(127);
		for (i = 0; i < k->n_fds; i++)
			if (dup2(tmp[i], k->at[i]) < 0)
				_exit(127);
		if (envp != NULL) {
			/* As a host that spawns bwrap itself: nothing else
			 * open (there is no launcher to close the rest). */
			if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOEXEC */) < 0)
				_exit(127);
			for (i = 0; i < k->n_fds; i++)
				if (fcntl(k->at[i], F_SETFD, 0) < 0)
					_exit(127);
			execve(k->argv[0], k->argv, envp);
		}
		else
			execv(k->argv[0], k->argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether argv holds OPT, then a number, then VALUE. */
static int has_fd_bind(const struct sink *k, const char *opt, const char *value)
{
	size_t i;

	for (i = 0; i + 2 < k->n; i++)
		if (strcmp(k->argv[i], opt) == 0 &&
		    atoi(k->argv[i + 1]) >= FIRST_AT &&
		    strcmp(k->argv[i + 2], value) == 0)
			return 1;
	return 0;
}

static int has_arg(const struct sink *k, const char *value)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->argv[i], value) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------- tests */

static void test_root_and_every_bind_by_the_descriptor_checked(void **state)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512], script[4 * PATH_MAX], want[PATH_MAX];

	(void)state;
	memset(&k, 0, sizeof(k));
	k.pass = 1;
	policy_init(&p, WARDEN_MODE_WORKSPACE_WRITE);
	p.root_fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(p.root_fd >= 0);
	xsnprintf(script, sizeof(script),
	          "echo new > %s/new; ls /proc/self/fd > %s/fds; echo evil >> %s/.git/config; "
	          "mv %s/.git %s/gx; true",
	          ws, ws, ws, ws, ws);
	assert_int_equal(confine(&p, &k, &out, script, err, sizeof(err)), 0);
	close(p.root_fd);
	assert_true(has_fd_bind(&k, "--bind-fd", ws));
	xsnprintf(want, sizeof(want), "%s/.git", ws);
	assert_true(has_fd_bind(&k, "--bind-fd", want));
	xsnprintf(want, sizeof(want), "%s/.git/config", ws);
	assert_true(has_fd_bind(&k, "--ro-bind-fd", want));
	assert_int_equal(out.enforcement, WARDEN_ENFORCEMENT_FULL);
	assert_int_equal(out.read_only_held, 1);
	assert_int_equal(run(&k), 0);
	sink_free(&k);
	/* The root is writable through the descriptor's bind... */
	xsnprintf(want, sizeof(want), "%s/new", ws);
	assert_string_equal(read_file(want), "new\n");
	/* ...no descriptor reached the command (ls has its own 3)... */
	xsnprintf(want, sizeof(want), "%s/fds", ws);
	assert_string_equal(read_file(want), "0\n1\n2\n3\n");
	/* ...and the protected paths held. */
	xsnprintf(want, sizeof(want), "%s/.git/config", ws);
	assert_string_equal(read_file(want), "[core]\n");
	assert_false(exists("gx"));
}

static void test_a_root_swapped_after_the_check_is_refused(void **state)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512], other[PATH_MAX];

	(void)state;
	memset(&k, 0, sizeof(k));
	k.pass = 1;
	policy_init(&p, WARDEN_MODE_WORKSPACE_WRITE);
	xsnprintf(other, sizeof(other), "%s/other", scratch);
	p.root_fd = open(other, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(p.root_fd >= 0);
	assert_int_equal(confine(&p, &k, &out, "true", err, sizeof(err)), -1);
	close(p.root_fd);
	assert_non_null(strstr(err, "is no longer the directory that was checked"));
	sink_free(&k);
}

/* The read-only paths of the policy under the root: an existing file, a
 * missing directory, a missing file below a missing directory; every
 * route tried; pass: whether descriptors can be passed. */
static void read_only_paths_held(int pass)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512], script[8 * PATH_MAX], ini[PATH_MAX], state_dir[PATH_MAX],
	     so[PATH_MAX];
	const char *ro[3];

	memset(&k, 0, sizeof(k));
	k.pass = pass;
	policy_init(&p, WARDEN_MODE_WORKSPACE_WRITE);
	p.root_fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	xsnprintf(ini, sizeof(ini), "%s/conf/warden.ini", ws);
	xsnprintf(state_dir, sizeof(state_dir), "%s/state", ws);
	xsnprintf(so, sizeof(so), "%s/plugins/evil.so", ws);
	ro[0] = ini;
	ro[1] = state_dir;
	ro[2] = so;
	p.read_only_paths = ro;
	p.n_read_only_paths = 3;
	xsnprintf(script, sizeof(script),
	          "cd %s || exit 9; echo evil > conf/warden.ini; rm -f conf/warden.ini; "
	          "mv conf c2; rm -rf conf; mkdir -p conf; echo evil > conf/warden.ini; "
	          "mkdir -p state; echo evil > state/s.jsonl; rmdir state; mv state s2; "
	          "mkdir -p plugins; echo evil > plugins/evil.so; mv plugins p2; "
	          "echo ok > ok; true", ws);
	assert_int_equal(confine(&p, &k, &out, script, err, sizeof(err)), 0);
	close(p.root_fd);
	assert_int_equal(out.read_only_held, 1);
	assert_int_equal(out.enforcement, WARDEN_ENFORCEMENT_FULL);
	assert_int_equal(has_arg(&k, "--bind-fd"), pass);
	assert_int_equal(run(&k), 0);
	sink_free(&k);
	assert_true(exists("ok"));  /* the script ran to its end */
	assert_string_equal(read_file(ini), "orig\n");
	assert_false(exists("c2"));
	/* The pins of what did not exist are gone again, nothing planted. */
	assert_false(exists("state"));
	assert_false(exists("s2"));
	assert_false(exists("plugins"));
	assert_false(exists("p2"));
}

static void test_read_only_paths_held_by_every_route_bound_by_descriptor(void **state)
{
	(void)state;
	read_only_paths_held(1);
}

static void test_read_only_paths_held_by_every_route_bound_by_path(void **state)
{
	(void)state;
	read_only_paths_held(0);
}

/* A workspace-write policy whose one read-only path, path, lies behind a
 * symbolic link in the root (lnk -> real). */
static void ro_behind_link(struct warden_policy *p, char *path, size_t len,
                           const char **ro)
{
	char cmd[3 * PATH_MAX];

	xsnprintf(cmd, sizeof(cmd), "mkdir '%s/real' && ln -s real '%s/lnk'", ws, ws);
	sh(cmd);
	policy_init(p, WARDEN_MODE_WORKSPACE_WRITE);
	xsnprintf(path, len, "%s/lnk/warden.ini", ws);
	ro[0] = path;
	p->read_only_paths = ro;
	p->n_read_only_paths = 1;
}

static void test_read_only_path_behind_a_symlink_is_refused_by_name(void **state)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512], path[PATH_MAX];
	const char *ro[1];

	(void)state;
	memset(&k, 0, sizeof(k));
	k.pass = 1;
	ro_behind_link(&p, path, sizeof(path), ro);
	assert_int_equal(confine(&p, &k, &out, "true", err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "lnk in the workspace root is a symbolic link"));
	sink_free(&k);
}

static void test_read_only_path_holding_the_root_is_refused(void **state)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512];
	const char *ro[1] = { scratch };

	(void)state;
	memset(&k, 0, sizeof(k));
	policy_init(&p, WARDEN_MODE_WORKSPACE_WRITE);
	p.read_only_paths = ro;
	p.n_read_only_paths = 1;
	assert_int_equal(confine(&p, &k, &out, "true", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "holds the writable workspace root"));
	sink_free(&k);
	/* read-only: nothing is writable, so it holds. */
	policy_init(&p, WARDEN_MODE_READ_ONLY);
	p.read_only_paths = ro;
	p.n_read_only_paths = 1;
	assert_int_equal(confine(&p, &k, &out, "true", err, sizeof(err)), 0);
	assert_int_equal(out.read_only_held, 1);
	assert_false(has_arg(&k, "--bind"));
	assert_false(has_arg(&k, "--bind-fd"));
	sink_free(&k);
}

/*
 * A host that spawns bwrap itself (spawn_env, finish): no launcher in the
 * argv; the loader's variables leave bwrap's environment for --setenv;
 * a missing protected file is an empty file read from a /dev/null
 * descriptor handed over; git's commondir is made holding "." before the
 * run; the host is asked for the parent-death signal and a session
 * keyring; the root's lock is held by the backend, not handed to bwrap;
 * and finish() removes the pins once the run has ended — unless another
 * run holds the lock (other_holder).
 */
static void hosted(int other_holder, int ended)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512], script[8 * PATH_MAX];
	const char *env[] = { "PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=/nonexistent/lib",
	                      "KEEP=a b", "TMPDIR=/nonexistent/tmp", NULL };
	size_t i;
	int other = -1, saw_null = 0;

	memset(&k, 0, sizeof(k));
	k.pass = 1;
	policy_init(&p, WARDEN_MODE_WORKSPACE_WRITE);
	p.root_fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(p.root_fd >= 0);
	p.spawn_env = env;
	xsnprintf(script, sizeof(script),
	          "cd %s || exit 9; printf '%%s|%%s|%%s' \"$LD_LIBRARY_PATH\" \"$TMPDIR\" \"$KEEP\" > got; "
	          "ls /proc/self/fd > fds; echo evil > .git/commondir; echo evil > .git/config.worktree; "
	          "mkdir .git/modules/m; true", ws);
	out_init(&out, &k, 1);
	{
		const char *argv[] = { "/bin/sh", "-c", script };

		assert_int_equal(desc->confine(inst, argv, 3, &p, &out, err, sizeof(err)), 0);
	}
	close(p.root_fd);
	assert_string_equal(k.argv[0], "/usr/bin/bwrap");
	assert_false(has_arg(&k, launcher));
	assert_false(has_arg(&k, "--lock-fd"));
	assert_false(has_arg(&k, "--unpin"));
	assert_int_equal(out.env_set, 1);
	assert_int_equal(out.spawn_flags,
	                 WARDEN_SPAWN_DIE_WITH_HOST | WARDEN_SPAWN_OWN_SESSION_KEYRING);
	assert_non_null(out.run);
	assert_int_equal(out.enforcement, WARDEN_ENFORCEMENT_FULL);
	/* bwrap's environment: the rest, in order. */
	assert_int_equal(k.n_env, 2);
	assert_string_equal(k.env[0], "PATH=/usr/bin:/bin");
	assert_string_equal(k.env[1], "KEEP=a b");
	for (i = 0; i + 2 < k.n; i++) {
		if (strcmp(k.argv[i], "--ro-bind-data") == 0) {
			char link[64], to[PATH_MAX];
			ssize_t n;
			size_t j;

			assert_true(atoi(k.argv[i + 1]) >= FIRST_AT);
			for (j = 0; j < k.n_fds; j++)
				if (k.at[j] == atoi(k.argv[i + 1]))
					break;
			assert_true(j < k.n_fds);
			xsnprintf(link, sizeof(link), "/proc/self/fd/%d", k.fds[j]);
			n = readlink(link, to, sizeof(to) - 1);
			assert_true(n > 0);
			to[n] = '\0';
			assert_string_equal(to, "/dev/null");
			saw_null = 1;
		}
		if (strcmp(k.argv[i], "--") == 0)
			break;
	}
	assert_true(saw_null);
	/* commondir is made now, holding "." (the lock is held). */
	assert_string_equal(ws_read(".git/commondir"), ".");
	assert_int_equal(run_env(&k, k.env), 0);
	assert_string_equal(ws_read("got"), "/nonexistent/lib|/nonexistent/tmp|a b");
	/* No descriptor reached the command (ls has its own 3). */
	assert_string_equal(ws_read("fds"), "0\n1\n2\n3\n");
	assert_string_equal(ws_read(".git/commondir"), ".");
	/* bwrap's mount points are on the host until finish(). */
	assert_true(exists(".git/config.worktree"));
	assert_true(exists(".git/modules"));
	assert_false(exists(".git/modules/m"));
	if (other_holder) {
		other = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(other >= 0);
		assert_int_equal(flock(other, LOCK_SH | LOCK_NB), 0);
	}
	desc->finish(inst, out.run, ended);
	sink_free(&k);
	if (other_holder || !ended) {
		/* Another run may have bound them, or something of this one
		 * may still be running there: they stay... */
		assert_true(exists(".git/config.worktree"));
		assert_true(exists(".git/commondir"));
		assert_true(exists(".git/modules"));
		if (other >= 0)
			close(other);
		/* ...and the lock is released all the same. */
		other = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
		close(other);
		return;
	}
	assert_false(exists(".git/config.worktree"));
	assert_false(exists(".git/commondir"));
	assert_false(exists(".git/modules"));
	assert_true(exists(".git/hooks"));
	assert_true(exists(".git/config"));
	/* And the lock is released: an exclusive one is free. */
	other = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
}

static void test_hosted_run_moves_the_loader_variables_and_finish_unpins(void **state)
{
	(void)state;
	hosted(0, 1);
}

static void test_hosted_finish_leaves_pins_another_run_may_hold(void **state)
{
	(void)state;
	hosted(1, 1);
}

/* The host could not tell that every process of the run has ended: the
 * pins stay, the lock goes. */
static void test_hosted_finish_leaves_pins_of_a_run_not_known_ended(void **state)
{
	(void)state;
	hosted(0, 0);
}

/* A confine that fails after the lock was taken and the commondir made
 * leaves neither behind, and says why. */
static void test_hosted_failure_leaves_nothing(void **state)
{
	struct warden_policy p;
	struct warden_confine_out out;
	struct sink k;
	char err[512], path[PATH_MAX];
	const char *env[] = { "PATH=/bin", NULL };
	const char *ro[1];
	const char *argv[] = { "/bin/true" };
	int fd;

	(void)state;
	memset(&k, 0, sizeof(k));
	k.pass = 1;
	ro_behind_link(&p, path, sizeof(path), ro);
	p.spawn_env = env;
	out_init(&out, &k, 1);
	assert_int_equal(desc->confine(inst, argv, 1, &p, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lnk in the workspace root is a symbolic link"));
	assert_null(out.run);
	assert_false(exists(".git/commondir"));
	fd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	close(fd);
	sink_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_root_and_every_bind_by_the_descriptor_checked, fresh),
		cmocka_unit_test_setup(test_a_root_swapped_after_the_check_is_refused, fresh),
		cmocka_unit_test_setup(test_read_only_paths_held_by_every_route_bound_by_descriptor, fresh),
		cmocka_unit_test_setup(test_read_only_paths_held_by_every_route_bound_by_path, fresh),
		cmocka_unit_test_setup(test_read_only_path_behind_a_symlink_is_refused_by_name, fresh),
		cmocka_unit_test_setup(test_read_only_path_holding_the_root_is_refused, fresh),
		cmocka_unit_test_setup(test_hosted_run_moves_the_loader_variables_and_finish_unpins, fresh),
		cmocka_unit_test_setup(test_hosted_finish_leaves_pins_another_run_may_hold, fresh),
		cmocka_unit_test_setup(test_hosted_finish_leaves_pins_of_a_run_not_known_ended, fresh),
		cmocka_unit_test_setup(test_hosted_failure_leaves_nothing, fresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
