/*
 * seatbelt.c — the macOS Seatbelt backend (DESIGN §2 "Backends shipped").
 * Built on macOS only; the profile it runs comes from seatbelt_profile.c,
 * which is built and tested everywhere.
 *
 * confine() wraps an exact argv as
 *
 *   SANDBOX_EXEC -p PROFILE -- ARGV...
 *
 * PROFILE allows everything but file writes, and allows those only to
 * /dev/null (read-only) plus the root, /private/tmp and the per-user temp
 * dir (workspace-write).  Seatbelt's file-write* covers metadata (mode,
 * owner, times, xattrs) too, so both modes are `full` — unless the caller
 * is root: Seatbelt still refuses the writes, but the command keeps root's
 * privileges (macOS has no capability sets to drop), which warden reports
 * as `partial`.  sandbox-exec has no out-of-band status channel: the
 * evidence is NONE and runner failures are read from its `sandbox-exec: `
 * stderr lines.
 *
 * Config keys ([backend NAME] with plugin = seatbelt):
 *   path   the sandbox-exec binary, absolute (default /usr/bin/sandbox-exec).
 *
 * probe() runs the mode's real profile around /usr/bin/true (killed after
 * 5 s).
 */
#include "config.h"

#include "seatbelt_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <warden/plugin.h>

#define PROBE_TIMEOUT_MS 5000
#define SANDBOX_EXEC_DEFAULT "/usr/bin/sandbox-exec"

struct seatbelt {
	char path[PATH_MAX];
	int usable[2];          /* per mode (index mode - 1), after probe */
};

static void seatbelt_close(void *state)
{
	free(state);
}

static void *seatbelt_open(const struct warden_open_args *args, char *err,
                           size_t errlen)
{
	struct seatbelt *s = calloc(1, sizeof(*s));
	size_t i;

	if (s == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(s->path, sizeof(s->path), "%s", SANDBOX_EXEC_DEFAULT);
	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];

		if (strcmp(kv->key, "path") != 0) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: unknown key '%s' (seatbelt knows: path)",
			                  kv->line, kv->key);
			free(s);
			return NULL;
		}
		if (kv->value[0] != '/' || strlen(kv->value) >= sizeof(s->path)) {
			WARDEN_PLUGIN_ERR(err, errlen,
			                  "line %u: path: '%s' must be the absolute path of sandbox-exec (e.g. %s)",
			                  kv->line, kv->value, SANDBOX_EXEC_DEFAULT);
			free(s);
			return NULL;
		}
		snprintf(s->path, sizeof(s->path), "%s", kv->value);
	}
	return s;
}

/* The per-user temp dir, resolved (Seatbelt matches resolved paths). */
static const char *user_temp_dir(char *buf, size_t len)
{
	char raw[PATH_MAX];
	size_t n = confstr(_CS_DARWIN_USER_TEMP_DIR, raw, sizeof(raw));

	if (n == 0 || n > sizeof(raw) || len < PATH_MAX ||
	    realpath(raw, buf) == NULL)
		return NULL;
	return buf;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs argv with no input or output, for at most PROBE_TIMEOUT_MS.
 * Returns 0 when it exited 0; else -1 with the first stderr line in why. */
static int run_probe(char *const *argv, char *why, size_t whylen)
{
	char buf[512];
	size_t have = 0;
	long deadline = now_ms() + PROBE_TIMEOUT_MS;
	int fds[2], status = 0, timed_out = 0;
	pid_t pid;

	if (pipe(fds) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		close(fds[0]);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
		    dup2(fds[1], 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		n = read(fds[0], buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (have += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		snprintf(why, whylen, "%.150s did not finish within %d s (killed)",
		         argv[0], PROBE_TIMEOUT_MS / 1000);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	buf[have] = '\0';
	snprintf(why, whylen, "%.150s failed: %.*s", argv[0],
	         (int)strcspn(buf, "\n"), buf[0] ? buf : "no reason given");
	return -1;
}

static int seatbelt_probe(void *state, int mode, struct warden_probe *out)
{
	struct seatbelt *s = state;
	char tmp[PATH_MAX], err[200];
	char *profile = NULL;
	struct stat st;
	int r;

	memset(out, 0, sizeof(*out));
	if (mode != WARDEN_MODE_READ_ONLY && mode != WARDEN_MODE_WORKSPACE_WRITE) {
		snprintf(out->detail, sizeof(out->detail), "unknown mode %d", mode);
		return -1;
	}
	s->usable[mode - 1] = 0;
	if (stat(s->path, &st) < 0 || !S_ISREG(st.st_mode) || access(s->path, X_OK) < 0) {
		snprintf(out->detail, sizeof(out->detail), "%.150s: not an executable file",
		         s->path);
		return 0;
	}
	/* The real profile of the mode, with /private/tmp standing in for a root. */
	if (warden_seatbelt_profile(mode, "/private/tmp", user_temp_dir(tmp, sizeof(tmp)),
	                            &profile, err, sizeof(err)) < 0) {
		snprintf(out->detail, sizeof(out->detail), "%s", err);
		return -1;
	}
	{
		char *argv[] = { s->path, "-p", profile, "--", "/usr/bin/true", NULL };

		r = run_probe(argv, out->detail, sizeof(out->detail));
	}
	free(profile);
	if (r < 0)
		return 0;
	s->usable[mode - 1] = 1;
	out->usable = 1;
	if (geteuid() == 0) {
		out->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
		out->privilege_dropped = 0;
		snprintf(out->detail, sizeof(out->detail),
		         "the command runs as root: Seatbelt refuses its writes, but it keeps root's privileges");
	} else {
		out->enforcement = WARDEN_ENFORCEMENT_FULL;
		out->privilege_dropped = 1;
		snprintf(out->detail, sizeof(out->detail),
		         "writes, including metadata, only under the allowed paths");
	}
	return 0;
}

static int seatbelt_confine(void *state, const char *const *argv, size_t argc,
                            const struct warden_policy *policy,
                            struct warden_confine_out *out, char *err,
                            size_t errlen)
{
	struct seatbelt *s = state;
	char tmp[PATH_MAX];
	const char *user_tmp = user_temp_dir(tmp, sizeof(tmp));
	char *profile = NULL;
	size_t i;
	int ws = policy->mode == WARDEN_MODE_WORKSPACE_WRITE;

	if ((policy->mode != WARDEN_MODE_READ_ONLY && !ws) ||
	    !s->usable[policy->mode - 1]) {
		WARDEN_PLUGIN_ERR(err, errlen, "seatbelt: not usable for this mode (probe first)");
		return -1;
	}
	if (warden_seatbelt_profile(policy->mode, policy->workspace_root, user_tmp,
	                            &profile, err, errlen) < 0)
		return -1;
	out->privilege_dropped = geteuid() != 0;
	out->enforcement = out->privilege_dropped ? WARDEN_ENFORCEMENT_FULL
	                                          : WARDEN_ENFORCEMENT_PARTIAL;
	snprintf(out->detail, sizeof(out->detail), "%s",
	         out->privilege_dropped ? "" : "the command runs as root");
	out->evidence = WARDEN_EVIDENCE_NONE;
	if (out->push_arg(out->sink, s->path) < 0 ||
	    out->push_arg(out->sink, "-p") < 0 ||
	    out->push_arg(out->sink, profile) < 0 ||
	    out->push_arg(out->sink, "--") < 0)
		goto oom;
	for (i = 0; i < argc; i++)
		if (out->push_arg(out->sink, argv[i]) < 0)
			goto oom;
	if (ws && (out->push_writable_root(out->sink, policy->workspace_root) < 0 ||
	           out->push_writable_root(out->sink, "/private/tmp") < 0 ||
	           (user_tmp != NULL && out->push_writable_root(out->sink, user_tmp) < 0)))
		goto oom;
	free(profile);
	return 0;
oom:
	free(profile);
	WARDEN_PLUGIN_ERR(err, errlen, "seatbelt: out of memory");
	return -1;
}

static const char *const denial_signatures[] = { "Operation not permitted" };

static const char *const sandbox_exec_fatal[] = { "sandbox-exec: " };
static const struct warden_runner_rule runner_rules[] = {
	{
		.exit_codes = NULL,
		.n_exit_codes = 0,
		.fatal_signatures = sandbox_exec_fatal,
		.n_fatal_signatures = 1,
		.informational_lines = NULL,
		.n_informational_lines = 0,
	},
};

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "seatbelt",
	.version = PACKAGE_VERSION,
	.description = "macOS Seatbelt (sandbox-exec): writes only to the allowed paths",
	.open = seatbelt_open,
	.close = seatbelt_close,
	.probe = seatbelt_probe,
	.confine = seatbelt_confine,
	.denial_signatures = denial_signatures,
	.n_denial_signatures = 1,
	.runner_rules = runner_rules,
	.n_runner_rules = 1,
};
