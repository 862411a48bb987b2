/*
 * ops_plugins.c — the plugins operation (ops.h): every configured plugin,
 * its status (loaded, missing, malformed, failed), reason, ABI, version,
 * path, and for a backend its probes in both confining modes.
 *
 * Each plugin is loaded and opened in a child process that reports back
 * through a pipe: open() is plugin code, and a plugin that crashes there
 * must show up as `failed` in the listing instead of ending it.  (In the
 * host proper, only `isolation = process` gives an answerer that
 * protection.)  What the listing holds per plugin is struct
 * plugin_report; to show more, add fields there, fill them in
 * inspect_child(), and put them in to_json().
 *
 * A loaded backend is probed in both confining modes, in the same child
 * (a probe is plugin code too): usable or not and why, its enforcement,
 * and whether the confined command runs without privilege.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "loader.h"
#include "ops.h"
#include "sandbox.h"
#include "vocab.h"
#include "wconfig.h"
#include "wjson.h"

/* What the child learns about one plugin: plain data, sent as bytes. */
struct plugin_report {
	int status;                 /* enum warden_load_status */
	char reason[512];
	char path[PATH_MAX];
	unsigned abi_major, abi_minor;  /* 0.0 when no descriptor was read */
	char name[65];              /* the descriptor's name, "" if unknown */
	char version[65];
	int probed;                 /* a loaded backend: probes[] are filled */
	struct warden_probe probes[2];  /* read-only, workspace-write */
	int network[2];             /* a restricted network's enforcement, 0
	                               when the probe did not say (probe2) */
	char network_detail[2][256];
	int deny_read_held[2];      /* confine() hides the deny_read paths */
};

static const int probe_modes[2] = { WARDEN_MODE_READ_ONLY, WARDEN_MODE_WORKSPACE_WRITE };

/* Whether the config's deny_read list has any pattern (the built-in list
 * counts unless deny_read_defaults = false). */
static int has_deny_list(const struct warden_config *config)
{
	return config->deny_read_defaults != 0 || config->n_deny_read > 0;
}

/* A backend that cannot hide the deny_read paths holds the mode only
 * partly while the list has patterns: a run says so (sandbox.c), and so
 * does its probe here. */
static void deny_read_partial(struct warden_probe *p, int held)
{
	char was[sizeof(p->detail)];

	if (!p->usable || held)
		return;
	p->enforcement = WARDEN_ENFORCEMENT_PARTIAL;
	memcpy(was, p->detail, sizeof(was));
	was[sizeof(was) - 1] = '\0';
	if (strstr(was, "deny_read") != NULL)
		return;
	snprintf(p->detail, sizeof(p->detail),
	         "deny_read is not held: the paths it lists stay readable%s%.180s",
	         was[0] ? "; " : "", was);
}

static void inspect_child(const struct warden_config *config,
                          const struct warden_config_plugin *cfg, int fd)
{
	struct plugin_report r;
	struct warden_loaded lp;
	const char *p = (const char *)&r;
	size_t left = sizeof(r);
	ssize_t n;

	memset(&r, 0, sizeof(r));
	warden_loader_load(config, cfg, 1, &lp);
	r.status = lp.status;
	snprintf(r.reason, sizeof(r.reason), "%s", lp.reason);
	snprintf(r.path, sizeof(r.path), "%s", lp.path);
	r.abi_major = lp.desc.abi_major;
	r.abi_minor = lp.desc.abi_minor;
	if (lp.desc.name != NULL)
		snprintf(r.name, sizeof(r.name), "%s", lp.desc.name);
	if (lp.desc.version != NULL)
		snprintf(r.version, sizeof(r.version), "%s", lp.desc.version);
	if (cfg->kind == WARDEN_PLUGIN_BACKEND && lp.status == WARDEN_LOAD_LOADED) {
		struct warden_sandbox *svc = NULL;
		struct warden_error err = { 0, "" };
		int m;

		if (warden_sandbox_new(&lp, 1, &svc, &err) == 0) {
			for (m = 0; m < 2; m++) {
				warden_sandbox_probe(svc, 0, probe_modes[m], &r.probes[m]);
				r.network[m] = warden_sandbox_probe_network(
					svc, 0, probe_modes[m], r.network_detail[m],
					sizeof(r.network_detail[m]));
				r.deny_read_held[m] = warden_sandbox_probe_deny_read(
					svc, 0, probe_modes[m]);
				if (has_deny_list(config))
					deny_read_partial(&r.probes[m], r.deny_read_held[m]);
			}
			r.probed = 1;
		}
		warden_sandbox_free(svc);
	}
	while (left > 0) {
		n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		p += n;
		left -= (size_t)n;
	}
	warden_loader_unload(&lp);
}

/* How long a plugin's inspection may take (loading, opening, the backend's
 * probes) before it is given up as not answering. */
#define INSPECT_MS 30000

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int inspect(const struct warden_config *config,
                   const struct warden_config_plugin *cfg,
                   const volatile sig_atomic_t *cancel,
                   struct plugin_report *r, struct warden_error *err)
{
	char *p = (char *)r;
	size_t got = 0;
	ssize_t n;
	int fds[2], status, late = 0, cancelled = 0;
	long long until;
	pid_t pid, parent = getpid();

	memset(r, 0, sizeof(*r));
	if (cfg->kind == WARDEN_PLUGIN_ANSWERER &&
	    strcmp(cfg->plugin, WARDEN_APPROVAL_CLIENT) == 0) {
		/* Built in: nothing to load. */
		r->status = WARDEN_LOAD_LOADED;
		snprintf(r->reason, sizeof(r->reason), "built in: the client "
		         "connected to warden serve or warden mcp decides; "
		         "delegates when there is none");
		return 0;
	}
	if (pipe(fds) < 0)
		return warden_error_errno(err, WARDEN_EOS, errno, "pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return warden_error_errno(err, WARDEN_EOS, errno, "fork");
	}
	if (pid == 0) {
		struct sigaction sa;
		sigset_t all;

		/* Ends with its parent, and by SIGTERM, whatever the parent
		 * had made of it (serve's worker catches it). */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		sigemptyset(&all);
		sigaddset(&all, SIGTERM);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		close(fds[0]);
		/* The plugin's stdout is not the listing's. */
		if (freopen("/dev/null", "w", stdout) == NULL)
			_exit(1);
		inspect_child(config, cfg, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	until = mono_ms() + INSPECT_MS;
	while (got < sizeof(*r)) {
		struct pollfd pf = { fds[0], POLLIN, 0 };
		long long left = until - mono_ms();

		if (cancel != NULL && *cancel) {
			cancelled = 1;
			break;
		}
		if (left <= 0) {
			late = 1;
			break;
		}
		/* A cancel's signal ends the wait (EINTR), seen above. */
		if (poll(&pf, 1, (int)(left < 1000 ? left : 1000)) <= 0)
			continue;
		n = read(fds[0], p + got, sizeof(*r) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	if (late || cancelled)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return warden_error_errno(err, WARDEN_EOS, errno, "waitpid");
	if (cancelled)
		return warden_error_set(err, WARDEN_EREFUSED, "cancelled while %s was inspected",
		                        cfg->name);
	if (late) {
		memset(r, 0, sizeof(*r));
		r->status = WARDEN_LOAD_FAILED;
		snprintf(r->reason, sizeof(r->reason), "did not finish loading, opening and "
		         "probing within %d s (stopped)", INSPECT_MS / 1000);
		return 0;
	}
	if (got == sizeof(*r)) {
		r->reason[sizeof(r->reason) - 1] = '\0';
		r->path[sizeof(r->path) - 1] = '\0';
		r->name[sizeof(r->name) - 1] = '\0';
		r->version[sizeof(r->version) - 1] = '\0';
		r->probes[0].detail[sizeof(r->probes[0].detail) - 1] = '\0';
		r->probes[1].detail[sizeof(r->probes[1].detail) - 1] = '\0';
		r->network_detail[0][sizeof(r->network_detail[0]) - 1] = '\0';
		r->network_detail[1][sizeof(r->network_detail[1]) - 1] = '\0';
		return 0;
	}
	/* No report: the child died in dlopen() or open(). */
	memset(r, 0, sizeof(*r));
	r->status = WARDEN_LOAD_FAILED;
	if (WIFSIGNALED(status))
		snprintf(r->reason, sizeof(r->reason), "crashed while loading or "
		         "opening: %s (in the host this ends the process unless "
		         "isolation = process)", strsignal(WTERMSIG(status)));
	else
		snprintf(r->reason, sizeof(r->reason), "exited (status %d) while "
		         "loading or opening", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

static const char *section_kind(const struct warden_config_plugin *cfg)
{
	return cfg->kind == WARDEN_PLUGIN_BACKEND ? "backend" : "answerer";
}

static json_t *probes_json(const struct plugin_report *r)
{
	json_t *o = json_object();
	int m;

	for (m = 0; m < 2; m++) {
		const struct warden_probe *p = &r->probes[m];

		json_object_set_new(o, warden_mode_name(probe_modes[m]), json_pack(
			"{s:b,s:o,s:b,s:o,s:o,s:o,s:b}", "usable", p->usable == 1,
			"enforcement", p->usable ? json_string(warden_enforcement_name(p->enforcement))
			                         : json_null(),
			"privilege_dropped", p->usable && p->privilege_dropped,
			"detail", p->detail[0] ? warden_json_string_lossy(p->detail) : json_null(),
			"network", r->network[m] ? json_string(warden_enforcement_name(r->network[m]))
			                         : json_null(),
			"network_detail", r->network_detail[m][0]
			                  ? warden_json_string_lossy(r->network_detail[m]) : json_null(),
			"deny_read_held", p->usable && r->deny_read_held[m]));
	}
	return o;
}

static json_t *to_json(const struct warden_config_plugin *cfg,
                       const struct plugin_report *r)
{
	char abi[32];
	json_t *o = json_object();

	snprintf(abi, sizeof(abi), "%u.%u", r->abi_major, r->abi_minor);
	json_object_set_new(o, "section", warden_json_string_lossy(section_kind(cfg)));
	json_object_set_new(o, "instance", warden_json_string_lossy(cfg->name));
	json_object_set_new(o, "plugin", warden_json_string_lossy(cfg->plugin));
	json_object_set_new(o, "line", json_integer(cfg->line));
	json_object_set_new(o, "status", warden_json_string_lossy(warden_load_status_name(r->status)));
	json_object_set_new(o, "reason", r->reason[0] ? warden_json_string_lossy(r->reason) : json_null());
	json_object_set_new(o, "path", r->path[0] ? warden_json_string_lossy(r->path) : json_null());
	json_object_set_new(o, "abi", r->abi_major ? warden_json_string_lossy(abi) : json_null());
	json_object_set_new(o, "name", r->name[0] ? warden_json_string_lossy(r->name) : json_null());
	json_object_set_new(o, "version", r->version[0] ? warden_json_string_lossy(r->version) : json_null());
	if (cfg->kind == WARDEN_PLUGIN_ANSWERER)
		json_object_set_new(o, "isolation", warden_json_string_lossy(
			cfg->isolation == WARDEN_ISOLATION_PROCESS ? "process" : "inproc"));
	if (cfg->kind == WARDEN_PLUGIN_BACKEND)
		json_object_set_new(o, "probes", r->probed ? probes_json(r) : json_null());
	return o;
}

json_t *warden_op_plugins(struct warden_op *op)
{
	struct warden_config *cfg = NULL;
	struct plugin_report r;
	json_t *root, *list;
	size_t i, total;

	op->field = NULL;
	if (op->cfg != NULL)
		cfg = (struct warden_config *)op->cfg;
	else if (warden_config_load(op->config_path, &cfg, &op->err) < 0)
		return NULL;
	total = cfg->n_backends + cfg->n_answerers;
	list = json_array();
	root = json_pack("{s:o,s:O}", "config", warden_json_string_lossy(cfg->file),
	                 "plugins", list);
	for (i = 0; root != NULL && i < total; i++) {
		const struct warden_config_plugin *p = i < cfg->n_backends
			? &cfg->backends[i] : &cfg->answerers[i - cfg->n_backends];

		if (inspect(cfg, p, op->cancel, &r, &op->err) < 0 ||
		    json_array_append_new(list, to_json(p, &r)) < 0) {
			json_decref(root);
			root = NULL;
		}
	}
	json_decref(list);
	if (root == NULL && op->err.code == 0)
		warden_error_set(&op->err, WARDEN_EOS, "out of memory");
	if (cfg != op->cfg)
		warden_config_free(cfg);
	return root;
}
