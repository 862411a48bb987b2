/*
 * robwrap.c — a template sandbox backend: read-only mode with bubblewrap,
 * and nothing else.
 *
 *   [backend robwrap]
 *   plugin = /usr/local/lib/warden/plugins/robwrap.so
 *   path = /usr/bin/bwrap          ; optional, absolute
 *
 * Build it against an installed warden, with nothing else:
 *
 *   cc -shared -fPIC $(pkg-config --cflags warden-plugin) \
 *      -o robwrap.so robwrap.c
 *
 * confine() turns ARGV into
 *
 *   BWRAP --ro-bind / / --dev /dev --proc /proc --unshare-pid
 *         --unshare-user --disable-userns --cap-drop ALL
 *         --new-session --die-with-parent [--json-status-fd N] -- ARGV
 *
 * The whole host is visible and read-only; /dev and /proc are private;
 * the command holds no capability, cannot make a user namespace to get
 * new ones, runs with no_new_privs (bubblewrap always sets it) and in a
 * new session (no TIOCSTI into the caller's terminal).  That is every file
 * effect read-only promises, so it reports `full`, and it says so only
 * after its probe has proved it: it runs exactly those flags for real
 * around a shell that tries to write into a file of the host, and claims
 * the mode only when the shell ran, its write failed, and the file is
 * still empty afterwards.  That bwrap accepts the flags proves nothing.
 *
 * What it does not do, it says: workspace-write is not offered (the probe
 * reports it unusable, and warden tries the next backend).  A template
 * backend must never claim a boundary it does not draw.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <warden/plugin.h>

struct robwrap {
	char path[PATH_MAX];    /* the bwrap binary, absolute */
};

/* The flags of read-only mode, between the binary and the command. */
static const char *const ro_flags[] = {
	"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
	"--unshare-pid", "--unshare-user", "--disable-userns",
	"--cap-drop", "ALL", "--new-session", "--die-with-parent",
};
#define N_RO_FLAGS (sizeof(ro_flags) / sizeof(ro_flags[0]))

static void robwrap_close(void *state)
{
	free(state);
}

static void *robwrap_open(const struct warden_open_args *args, char *err,
                          size_t errlen)
{
	struct robwrap *r = calloc(1, sizeof(*r));
	const char *path = "/usr/bin/bwrap";
	size_t i;

	if (r == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "robwrap: out of memory");
		return NULL;
	}
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "path") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [backend %s] unknown "
			                  "key '%s' (allowed: path)", args->config_file,
			                  kv->line, args->instance, kv->key);
			goto fail;
		}
		/* Absolute: the runner is never looked up in PATH. */
		if (kv->value[0] != '/' || strlen(kv->value) >= sizeof(r->path)) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [backend %s] path = %s: "
			                  "give the absolute path of bwrap",
			                  args->config_file, kv->line, args->instance,
			                  kv->value);
			goto fail;
		}
		path = kv->value;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	return r;
fail:
	free(r);
	return NULL;
}

/* What the confined shell of the probe exits with. */
#define PROBE_WROTE 10          /* its write went through */
#define PROBE_REFUSED 11        /* its write was refused */

/* Runs `BWRAP <ro_flags> -- /bin/sh -c 'try to write FILE'` on a fresh
 * empty file of the host and says whether the write was refused: the
 * only proof that this kernel and this bwrap give what we claim.  0 when
 * proved, 1 when not (detail says why), -1 when the probe itself failed. */
static int probe_ro(const struct robwrap *r, char *detail, size_t len)
{
	static const char script[] =
		"if printf robwrap 2>/dev/null >\"$1\"; then exit 10; fi; exit 11";
	char file[] = "/tmp/robwrap-probe-XXXXXX";
	const char *argv[N_RO_FLAGS + 9];
	size_t n = 0, i;
	struct stat st;
	pid_t pid;
	int status, fd, rc;

	if (stat(r->path, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(detail, len, "no bwrap at %s (install bubblewrap, or set "
		         "path)", r->path);
		return 1;
	}
	/* A runner someone else can rewrite is no runner. */
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		snprintf(detail, len, "%s is writable by others or owned by "
		         "another user: refused", r->path);
		return 1;
	}
	if (access("/bin/sh", X_OK) < 0) {
		snprintf(detail, len, "no /bin/sh to run the probe's write with");
		return 1;
	}
	fd = mkstemp(file);
	if (fd < 0) {
		snprintf(detail, len, "probe: cannot make a file in /tmp: %s",
		         strerror(errno));
		return -1;
	}
	close(fd);
	argv[n++] = r->path;
	for (i = 0; i < N_RO_FLAGS; i++)
		argv[n++] = ro_flags[i];
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "sh";
	argv[n++] = file;
	argv[n] = NULL;

	pid = fork();
	if (pid < 0) {
		unlink(file);
		snprintf(detail, len, "probe: cannot fork");
		return -1;
	}
	if (pid == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(r->path, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			unlink(file);
			snprintf(detail, len, "probe: lost its child");
			return -1;
		}
	}
	rc = stat(file, &st);
	unlink(file);
	if (rc < 0) {
		snprintf(detail, len, "probe: its file %s is gone", file);
		return -1;
	}
	if (!WIFEXITED(status) ||
	    (WEXITSTATUS(status) != PROBE_WROTE && WEXITSTATUS(status) != PROBE_REFUSED)) {
		snprintf(detail, len, "%s did not run the probe with the read-only "
		         "flags (user namespaces or --cap-drop unavailable?)",
		         r->path);
		return 1;
	}
	if (WEXITSTATUS(status) == PROBE_WROTE || st.st_size != 0) {
		/* Never claim a boundary that let a write through. */
		snprintf(detail, len, "a write to the host went through inside "
		         "%s with the read-only flags: not read-only", r->path);
		return 1;
	}
	return 0;
}

static int robwrap_probe(void *state, int mode, struct warden_probe *out)
{
	const struct robwrap *r = state;
	int rc;

	memset(out, 0, sizeof(*out));
	if (mode != WARDEN_MODE_READ_ONLY) {
		snprintf(out->detail, sizeof(out->detail),
		         "robwrap confines read-only only");
		return 0;
	}
	rc = probe_ro(r, out->detail, sizeof(out->detail));
	if (rc < 0)
		return -1;
	if (rc > 0)
		return 0;
	out->usable = 1;
	out->enforcement = WARDEN_ENFORCEMENT_FULL;
	out->privilege_dropped = 1;
	return 0;
}

static int robwrap_confine(void *state, const char *const *argv, size_t argc,
                           const struct warden_policy *policy,
                           struct warden_confine_out *out, char *err,
                           size_t errlen)
{
	const struct robwrap *r = state;
	char fd[16];
	size_t i;

	if (policy->mode != WARDEN_MODE_READ_ONLY) {
		WARDEN_PLUGIN_ERR(err, errlen, "robwrap confines read-only only");
		return -1;
	}
	if (out->push_arg(out->sink, r->path) < 0)
		goto oom;
	for (i = 0; i < N_RO_FLAGS; i++)
		if (out->push_arg(out->sink, ro_flags[i]) < 0)
			goto oom;
	out->evidence = WARDEN_EVIDENCE_NONE;
	if (policy->status_fd >= 0) {
		/* bwrap writes {"exit-code": N} there only once the command
		 * ran, and keeps the descriptor from the command. */
		snprintf(fd, sizeof(fd), "%d", policy->status_fd);
		if (out->push_arg(out->sink, "--json-status-fd") < 0 ||
		    out->push_arg(out->sink, fd) < 0)
			goto oom;
		out->evidence = WARDEN_EVIDENCE_BWRAP_JSON;
	}
	if (out->push_arg(out->sink, "--") < 0)
		goto oom;
	for (i = 0; i < argc; i++)
		if (out->push_arg(out->sink, argv[i]) < 0)
			goto oom;
	/* Read-only: no writable root at all. */
	out->enforcement = WARDEN_ENFORCEMENT_FULL;
	out->privilege_dropped = 1;
	return 0;
oom:
	WARDEN_PLUGIN_ERR(err, errlen, "robwrap: out of memory");
	return -1;
}

/* bubblewrap's own failures: "bwrap: ..." on stderr, exit status 1. */
static const int bwrap_exit_codes[] = { 1 };
static const char *const bwrap_fatal[] = { "bwrap: " };
static const struct warden_runner_rule runner_rules[] = {
	{ bwrap_exit_codes, 1, bwrap_fatal, 1, NULL, 0 },
};
/* What a write under a read-only bind says. */
static const char *const denials[] = { "Read-only file system" };

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "robwrap",
	.version = "1.0",
	.description = "read-only mode with bubblewrap (template)",
	.open = robwrap_open,
	.close = robwrap_close,
	.probe = robwrap_probe,
	.confine = robwrap_confine,
	.denial_signatures = denials,
	.n_denial_signatures = 1,
	.runner_rules = runner_rules,
	.n_runner_rules = 1,
};
