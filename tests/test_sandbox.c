/* test_sandbox.c — the sandbox service: order, probe cache, contract checks,
 * SANDBOX_UNAVAILABLE.  The backends here are in-test descriptors (the
 * native boundary); tests/test_bwrap.c runs the same service over the
 * real bubblewrap plugin. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "vocab.h"

/* One in-test backend: what its probe says and how its confine behaves. */
struct fake {
	const char *name;
	int usable, enforcement, privilege_dropped, probe_rc;
	int probes;             /* calls, to see the cache */
	int confines;
	int bad;                /* which contract breach confine commits */
	int last_mode;
	char last_root[PATH_MAX];
	int last_status_fd;
	int push;               /* a descriptor to hand over (push_fd), or -1 */
	int pushed_at;          /* what push_fd answered */
	int holds;              /* sets read_only_held */
	const char *runner;     /* the runner it names, NULL: /usr/bin/runner */
	int net;                /* network_enforcement it reports, 0: none */
	int judged_net;         /* what its probe2 and facts() say of it */
	int facts;              /* facts() calls */
	int last_network;
	/* spawn_env (plugin.h): what confine saw and does with it. */
	int saw_spawn_env;      /* policy->spawn_env was set */
	int hosted;             /* HOSTED_*: what it answers to spawn_env */
	int finishes;           /* finish() calls */
	void *finished;         /* the run state finish() last got */
	int ended;              /* and what it was told of the run's end */
};

enum { HOSTED_NONE = 0, HOSTED_GOOD, HOSTED_BAD_FLAG, HOSTED_BAD_ENTRY, HOSTED_UNASKED };
static int run_token;

enum { GOOD = 0, REL_RUNNER, ALTERED_ARGV, BAD_ENFORCEMENT, EVIDENCE_NO_FD, FAILS, NO_RUNNER };

static int fake_probe(void *state, int mode, struct warden_probe *out)
{
	struct fake *f = state;

	f->probes++;
	out->usable = f->usable;
	out->enforcement = f->enforcement;
	out->privilege_dropped = f->privilege_dropped;
	snprintf(out->detail, sizeof(out->detail), "%s says %s for mode %d", f->name,
	         f->usable ? "yes" : "no", mode);
	return f->probe_rc;
}

static int fake_confine(void *state, const char *const *argv, size_t argc,
                        const struct warden_policy *policy,
                        struct warden_confine_out *out, char *err, size_t errlen)
{
	struct fake *f = state;
	size_t i;

	f->confines++;
	f->last_mode = policy->mode;
	f->last_status_fd = policy->status_fd;
	snprintf(f->last_root, sizeof(f->last_root), "%s", policy->workspace_root);
	if (f->bad == FAILS) {
		snprintf(err, errlen, "cannot today");
		return -1;
	}
	if (f->bad != NO_RUNNER)
		out->push_arg(out->sink, f->bad == REL_RUNNER ? "runner"
		                         : f->runner != NULL ? f->runner : "/usr/bin/runner");
	if (f->push >= 0)
		f->pushed_at = out->push_fd(out->sink, f->push);
	if (f->holds)
		out->read_only_held = 1;
	out->push_arg(out->sink, "--");
	for (i = 0; i < argc; i++)
		out->push_arg(out->sink, f->bad == ALTERED_ARGV && i == argc - 1 ? "changed" : argv[i]);
	out->push_writable_root(out->sink, policy->workspace_root);
	out->enforcement = f->bad == BAD_ENFORCEMENT ? 7 : f->enforcement;
	out->privilege_dropped = f->privilege_dropped;
	out->evidence = f->bad == EVIDENCE_NO_FD || policy->status_fd >= 0
		? WARDEN_EVIDENCE_EXEC_PIPE : WARDEN_EVIDENCE_NONE;
	if (WARDEN_CONFINE_OUT_HAS(out, denial_message))
		snprintf(out->denial_message, sizeof(out->denial_message),
		         "%s refuses writes outside %s", f->name, policy->workspace_root);
	f->last_network = policy->network;
	f->saw_spawn_env = WARDEN_POLICY_HAS(policy, spawn_env) && policy->spawn_env != NULL;
	if (f->hosted == HOSTED_UNASKED || (f->hosted != HOSTED_NONE && f->saw_spawn_env)) {
		out->run = &run_token;
		out->env_set = 1;
		out->spawn_flags = f->hosted == HOSTED_BAD_FLAG ? 0x100 : WARDEN_SPAWN_DIE_WITH_HOST;
		if (out->push_env != NULL) {
			out->push_env(out->sink, "FROM_BACKEND=1");
			out->push_env(out->sink, f->hosted == HOSTED_BAD_ENTRY ? "NOEQUALS"
			                         : policy->spawn_env[0]);
		}
	}
	if (f->net != 0) {
		out->network_enforcement = f->net;
		snprintf(out->network_detail, sizeof(out->network_detail),
		         "%s holds the network its way", f->name);
	}
	return 0;
}

static void fake_finish(void *state, void *run, int ended)
{
	struct fake *f = state;

	f->finishes++;
	f->finished = run;
	f->ended = ended;
}

static const int fake_codes[] = { 125 };
static const char *const fake_fatal[] = { "runner: fatal:" };
static const char *const fake_info[] = { "runner: notice" };
static const struct warden_runner_rule fake_rules[] = {
	{ fake_codes, 1, fake_fatal, 1, fake_info, 1 },
};
static const char *const fake_denial[] = { "Permission denied" };

static const struct warden_plugin fake_desc = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_BACKEND),
	.name = "fake",
	.version = "1",
	.probe = fake_probe,
	.confine = fake_confine,
	.denial_signatures = fake_denial,
	.n_denial_signatures = 1,
	.runner_rules = fake_rules,
	.n_runner_rules = 1,
	.finish = fake_finish,
};

#define MAXB 4
static struct fake fakes[MAXB];
static struct warden_config_plugin cfgs[MAXB];
static struct warden_loaded loaded[MAXB];
static char root[] = "/tmp/warden-test-sandbox-XXXXXX";

static void backend(size_t i, const char *name, int usable, int enforcement, int dropped)
{
	memset(&fakes[i], 0, sizeof(fakes[i]));
	fakes[i].push = -1;
	fakes[i].name = name;
	fakes[i].usable = usable;
	fakes[i].enforcement = enforcement;
	fakes[i].privilege_dropped = dropped;
	memset(&cfgs[i], 0, sizeof(cfgs[i]));
	cfgs[i].kind = WARDEN_PLUGIN_BACKEND;
	cfgs[i].name = (char *)name;
	memset(&loaded[i], 0, sizeof(loaded[i]));
	loaded[i].cfg = &cfgs[i];
	loaded[i].status = WARDEN_LOAD_LOADED;
	loaded[i].desc = fake_desc;
	loaded[i].state = &fakes[i];
}

static void not_loaded(size_t i, const char *name, int status, const char *reason)
{
	backend(i, name, 0, 0, 0);
	loaded[i].status = status;
	loaded[i].state = NULL;
	memset(&loaded[i].desc, 0, sizeof(loaded[i].desc));
	snprintf(loaded[i].reason, sizeof(loaded[i].reason), "%s", reason);
}

static struct warden_sandbox *service(size_t n)
{
	struct warden_sandbox *svc = NULL;
	struct warden_error err = { 0, "" };

	assert_int_equal(warden_sandbox_new(loaded, n, &svc, &err), 0);
	return svc;
}

static struct warden_policy policy(int mode, const char *r, int status_fd)
{
	struct warden_policy p = { sizeof(p), mode, r, "", status_fd, NULL, 0, -1, WARDEN_NETWORK_ENABLED, NULL, 0, NULL,
	                       NULL, -1, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, -1 };

	return p;
}

static int setup(void **s)
{
	(void)s;
	return mkdtemp(root) == NULL ? -1 : 0;
}

static int teardown(void **s)
{
	(void)s;
	return rmdir(root);
}

static const char *const cmd[] = { "bash", "-c", "echo 'a b' \"$HOME\"; exit 3", "" };

static void test_first_usable_backend_in_config_order_is_used(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);

	(void)s;
	backend(0, "first", 0, 0, 0);
	backend(1, "second", 1, WARDEN_ENFORCEMENT_FULL, 1);
	backend(2, "third", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(3);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 4, &p, &c, &err), 0);
	assert_string_equal(c->backend, "second");
	assert_int_equal(fakes[2].confines, 0);
	assert_int_equal(c->enforcement, WARDEN_ENFORCEMENT_FULL);
	assert_int_equal(c->privilege_dropped, 1);
	assert_int_equal(c->mode, WARDEN_MODE_WORKSPACE_WRITE);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_argv_is_copied_exactly_without_joining(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);
	size_t i;

	(void)s;
	backend(0, "only", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 4, &p, &c, &err), 0);
	assert_int_equal(c->argc, 6);
	assert_string_equal(c->argv[0], "/usr/bin/runner");
	assert_string_equal(c->argv[1], "--");
	for (i = 0; i < 4; i++) {
		assert_string_equal(c->argv[2 + i], cmd[i]);
		assert_ptr_not_equal(c->argv[2 + i], cmd[i]);
	}
	assert_null(c->argv[6]);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_probe_runs_once_per_mode_and_is_cached(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy ro = policy(WARDEN_MODE_READ_ONLY, root, -1);
	struct warden_policy ww = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);
	struct warden_probe pr;
	int i;

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &ro, &c, &err), 0);
		warden_confined_free(c);
		assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &ww, &c, &err), 0);
		warden_confined_free(c);
		warden_sandbox_probe(svc, 0, WARDEN_MODE_READ_ONLY, &pr);
	}
	assert_int_equal(fakes[0].probes, 2);
	assert_int_equal(fakes[0].confines, 6);
	warden_sandbox_free(svc);
}

/* ABI 1.1: probe2, the successor of probe, with the network facts. */
static int fake_probe2_calls;

static int fake_probe2(void *state, int mode, struct warden_probe2 *out)
{
	struct fake *f = state;

	fake_probe2_calls++;
	assert_int_equal(out->struct_size, sizeof(*out));
	assert_int_equal(out->network_enforcement, 0);  /* zero-filled */
	out->usable = f->usable;
	out->enforcement = f->enforcement;
	out->privilege_dropped = f->privilege_dropped;
	snprintf(out->detail, sizeof(out->detail), "%s by probe2, mode %d", f->name, mode);
	out->network_enforcement = WARDEN_ENFORCEMENT_FULL;
	snprintf(out->network_detail, sizeof(out->network_detail), "%s: no socket", f->name);
	return 0;
}

static void test_probe2_is_called_instead_of_probe_with_network_facts(void **s)
{
	struct warden_sandbox *svc;
	struct warden_probe pr;
	char detail[256];

	(void)s;
	fake_probe2_calls = 0;
	backend(0, "new", 1, WARDEN_ENFORCEMENT_FULL, 1);
	loaded[0].desc.probe2 = fake_probe2;
	backend(1, "kept", 1, WARDEN_ENFORCEMENT_FULL, 0);
	loaded[1].desc.probe2 = fake_probe2;
	loaded[1].desc.probe = NULL;            /* probe2 alone is enough */
	backend(2, "old", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(3);
	warden_sandbox_probe(svc, 0, WARDEN_MODE_READ_ONLY, &pr);
	assert_int_equal(pr.usable, 1);
	assert_string_equal(pr.detail, "new by probe2, mode 1");
	assert_int_equal(fakes[0].probes, 0);
	assert_int_equal(warden_sandbox_probe_network(svc, 0, WARDEN_MODE_READ_ONLY,
	                                              detail, sizeof(detail)),
	                 WARDEN_ENFORCEMENT_FULL);
	assert_string_equal(detail, "new: no socket");
	/* A command that keeps its privileges can undo a network boundary. */
	assert_int_equal(warden_sandbox_probe_network(svc, 1, WARDEN_MODE_READ_ONLY,
	                                              detail, sizeof(detail)),
	                 WARDEN_ENFORCEMENT_PARTIAL);
	assert_string_equal(detail, "the command keeps its privileges");
	/* A backend with probe alone says nothing of the network. */
	assert_int_equal(warden_sandbox_probe_network(svc, 2, WARDEN_MODE_READ_ONLY,
	                                              detail, sizeof(detail)), 0);
	assert_string_equal(detail, "");
	assert_int_equal(fakes[2].probes, 1);
	assert_int_equal(fake_probe2_calls, 2);  /* cached since */
	warden_sandbox_free(svc);
}

/* ABI 1.1: a runner rule table laid out by a newer minor, whose elements
 * are longer than this host's; runner_rule_size says by how much. */
struct future_rule {
	struct warden_runner_rule r;
	const char *future;
	long more[3];
};
static const int future_codes[] = { 126 };
static const char *const future_fatal_a[] = { "first: fatal" };
static const char *const future_fatal_b[] = { "second: fatal" };
static const struct future_rule future_rules[] = {
	{ { fake_codes, 1, future_fatal_a, 1, NULL, 0 }, "not for this host", { -1, -1, -1 } },
	{ { future_codes, 1, future_fatal_b, 1, fake_info, 1 }, "nor this", { -1, -1, -1 } },
};

static void test_runner_rules_are_read_with_the_plugins_element_size(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "future", 1, WARDEN_ENFORCEMENT_FULL, 1);
	loaded[0].desc.runner_rules = &future_rules[0].r;
	loaded[0].desc.n_runner_rules = 2;
	loaded[0].desc.runner_rule_size = sizeof(struct future_rule);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->n_runner_rules, 2);
	assert_int_equal(c->runner_rules[0].exit_codes[0], 125);
	assert_string_equal(c->runner_rules[0].fatal_signatures[0], "first: fatal");
	assert_int_equal(c->runner_rules[0].n_informational_lines, 0);
	assert_int_equal(c->runner_rules[1].exit_codes[0], 126);
	assert_string_equal(c->runner_rules[1].fatal_signatures[0], "second: fatal");
	assert_string_equal(c->runner_rules[1].informational_lines[0], "runner: notice");
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_danger_full_access_is_refused_as_a_caller_bug(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = (void *)1;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_SANDBOX_DANGER_FULL_ACCESS, root, -1);

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EINTERNAL);
	assert_null(c);
	assert_non_null(strstr(err.msg, "danger-full-access"));
	assert_int_equal(fakes[0].probes + fakes[0].confines, 0);
	p.mode = 0;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EINTERNAL);
	p.mode = 4;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EINTERNAL);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, NULL, &c, &err), -WARDEN_EINTERNAL);
	warden_sandbox_free(svc);
}

static void test_bad_requests_are_usage_errors_and_reach_no_backend(void **s)
{
	static const char *const empty0[] = { "" };
	static const char *const holey[] = { "ls", NULL };
	char link[PATH_MAX], file[PATH_MAX];
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);
	FILE *fp;

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 0, &p, &c, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "empty command"));
	assert_int_equal(warden_sandbox_confine(svc, NULL, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_int_equal(warden_sandbox_confine(svc, empty0, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_int_equal(warden_sandbox_confine(svc, holey, 2, &p, &c, &err), -WARDEN_EUSAGE);

	p.workspace_root = "relative/dir";
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "relative"));
	p.workspace_root = "";
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	p.workspace_root = NULL;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	p.workspace_root = "/nonexistent/warden/root";
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "does not resolve"));

	snprintf(file, sizeof(file), "%s/file", root);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	p.workspace_root = file;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "not a directory"));
	snprintf(link, sizeof(link), "%s/dangling", root);
	assert_int_equal(symlink("/nonexistent/x", link), 0);
	p.workspace_root = link;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);

	p.workspace_root = "/";
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "every file writable"));

	p.workspace_root = root;
	p.status_fd = 2;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	p.status_fd = -2;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_null(c);
	assert_int_equal(fakes[0].confines, 0);
	unlink(link);
	unlink(file);
	warden_sandbox_free(svc);
}

static void test_root_is_resolved_before_the_backend_sees_it(void **s)
{
	char sub[PATH_MAX], dotted[PATH_MAX], link[PATH_MAX];
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, dotted, -1);

	(void)s;
	snprintf(sub, sizeof(sub), "%s/sub", root);
	snprintf(link, sizeof(link), "%s/link", root);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(symlink(sub, link), 0);
	snprintf(dotted, sizeof(dotted), "%s/link/..//./sub/", root);
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_string_equal(fakes[0].last_root, sub);
	assert_string_equal(c->writable_roots[0], sub);
	assert_null(c->writable_roots[1]);
	warden_confined_free(c);
	warden_sandbox_free(svc);
	unlink(link);
	rmdir(sub);
}

static void test_no_usable_backend_is_sandbox_unavailable_with_every_reason(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = (void *)1;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);

	(void)s;
	not_loaded(0, "gone", WARDEN_LOAD_MISSING, "/x/gone.so: No such file or directory");
	not_loaded(1, "broken", WARDEN_LOAD_MALFORMED, "abi 2.0, host speaks 1.x");
	not_loaded(2, "refused", WARDEN_LOAD_FAILED, "line 9: unknown key 'x'");
	backend(3, "cannot", 0, 0, 0);
	svc = service(4);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_null(c);
	assert_int_equal(err.code, WARDEN_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "SANDBOX_UNAVAILABLE"));
	assert_non_null(strstr(err.msg, "workspace-write"));
	assert_non_null(strstr(err.msg, "gone: missing: /x/gone.so"));
	assert_non_null(strstr(err.msg, "broken: malformed: abi 2.0"));
	assert_non_null(strstr(err.msg, "refused: failed: line 9"));
	assert_non_null(strstr(err.msg, "cannot: cannot says no for mode 2"));
	warden_sandbox_free(svc);
}

static void test_no_backend_configured_is_sandbox_unavailable(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	svc = service(0);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "SANDBOX_UNAVAILABLE"));
	assert_non_null(strstr(err.msg, "no sandbox backend is configured"));
	warden_sandbox_free(svc);
}

static void test_failed_probe_is_unusable_even_if_it_claims_usable(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].probe_rc = -1;
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "probe failed"));
	warden_sandbox_free(svc);
}

static void test_probe_outside_the_contract_is_unusable(void **s)
{
	struct warden_sandbox *svc;
	struct warden_probe pr;

	(void)s;
	backend(0, "b", 1, 9, 1);
	backend(1, "c", 5, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(2);
	warden_sandbox_probe(svc, 0, WARDEN_MODE_READ_ONLY, &pr);
	assert_int_equal(pr.usable, 0);
	assert_non_null(strstr(pr.detail, "enforcement 9"));
	warden_sandbox_probe(svc, 1, WARDEN_MODE_READ_ONLY, &pr);
	assert_int_equal(pr.usable, 0);
	warden_sandbox_probe(svc, 7, WARDEN_MODE_READ_ONLY, &pr);
	assert_int_equal(pr.usable, 0);
	warden_sandbox_probe(svc, 0, WARDEN_SANDBOX_DANGER_FULL_ACCESS, &pr);
	assert_int_equal(pr.usable, 0);
	warden_sandbox_free(svc);
}

static void test_backend_keeping_privilege_is_never_full(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);
	struct warden_probe pr;

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 0);
	svc = service(1);
	warden_sandbox_probe(svc, 0, WARDEN_MODE_READ_ONLY, &pr);
	assert_int_equal(pr.usable, 1);
	assert_int_equal(pr.enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_non_null(strstr(pr.detail, "privileges"));
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_int_equal(c->privilege_dropped, 0);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_confine_never_claims_more_than_the_probe(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_PARTIAL, 1);
	svc = service(1);
	/* The probe said partial; now confine says full. */
	fakes[0].enforcement = WARDEN_ENFORCEMENT_PARTIAL;
	warden_sandbox_probe(svc, 0, WARDEN_MODE_READ_ONLY, &(struct warden_probe){ 0 });
	fakes[0].enforcement = WARDEN_ENFORCEMENT_FULL;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_contract_breaches_skip_the_backend(void **s)
{
	static const int breaches[] = { REL_RUNNER, ALTERED_ARGV, BAD_ENFORCEMENT,
	                                EVIDENCE_NO_FD, FAILS, NO_RUNNER };
	static const char *const why[] = { "absolute path", "unchanged", "enforcement 7",
	                                   "evidence without", "cannot today", "absolute path" };
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);
	size_t i;

	(void)s;
	for (i = 0; i < sizeof(breaches) / sizeof(*breaches); i++) {
		backend(0, "bad", 1, WARDEN_ENFORCEMENT_FULL, 1);
		fakes[0].bad = breaches[i];
		backend(1, "good", 1, WARDEN_ENFORCEMENT_FULL, 1);
		svc = service(2);
		/* The next backend serves ... */
		assert_int_equal(warden_sandbox_confine(svc, cmd, 2, &p, &c, &err), 0);
		assert_string_equal(c->backend, "good");
		warden_confined_free(c);
		/* ... and alone, the breach is named. */
		assert_int_equal(warden_sandbox_confine_with(svc, "bad", cmd, 2, &p, &c, &err),
		                 -WARDEN_EUNAVAILABLE);
		assert_non_null(strstr(err.msg, why[i]));
		warden_sandbox_free(svc);
	}
}

static void test_backend_selected_by_name(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "one", 1, WARDEN_ENFORCEMENT_FULL, 1);
	backend(1, "two", 1, WARDEN_ENFORCEMENT_PARTIAL, 1);
	svc = service(2);
	assert_int_equal(warden_sandbox_confine_with(svc, "two", cmd, 1, &p, &c, &err), 0);
	assert_string_equal(c->backend, "two");
	assert_int_equal(fakes[0].confines, 0);
	warden_confined_free(c);
	assert_int_equal(warden_sandbox_confine_with(svc, "three", cmd, 1, &p, &c, &err),
	                 -WARDEN_EUSAGE);
	assert_non_null(strstr(err.msg, "three"));
	/* A named backend that cannot serve is SANDBOX_UNAVAILABLE, never another. */
	fakes[1].usable = 0;
	assert_int_equal(warden_sandbox_confine_with(svc, "two", cmd, 1,
	                                             &(struct warden_policy){ sizeof(p), WARDEN_MODE_WORKSPACE_WRITE, root, "", -1,
	                                                     NULL, 0, -1, WARDEN_NETWORK_ENABLED, NULL, 0, NULL,
	                                                     NULL, -1, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, -1 },
	                                             &c, &err), -WARDEN_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "SANDBOX_UNAVAILABLE"));
	warden_sandbox_free(svc);
}

static void test_facts_are_deep_copies_and_carry_the_status_fd(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, 9);
	struct warden_classify_facts f;

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(fakes[0].last_status_fd, 9);
	assert_int_equal(c->status_fd, 9);
	assert_int_equal(c->evidence, WARDEN_EVIDENCE_EXEC_PIPE);
	assert_int_equal(c->n_runner_rules, 1);
	assert_ptr_not_equal(c->runner_rules[0].fatal_signatures[0], fake_fatal[0]);
	assert_string_equal(c->runner_rules[0].fatal_signatures[0], "runner: fatal:");
	assert_string_equal(c->runner_rules[0].informational_lines[0], "runner: notice");
	assert_int_equal(c->runner_rules[0].exit_codes[0], 125);
	assert_string_equal(c->denial_signatures[0], "Permission denied");
	f = warden_confined_facts(c);
	assert_int_equal(f.n_denial_signatures, 1);
	assert_int_equal(f.n_runner_rules, 1);
	warden_confined_free(c);

	p.status_fd = -1;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->status_fd, -1);
	assert_int_equal(c->evidence, WARDEN_EVIDENCE_NONE);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_skipped_backends_are_named_in_order_with_their_reasons(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);

	(void)s;
	not_loaded(0, "gone", WARDEN_LOAD_MISSING, "/x/gone.so: No such file or directory");
	backend(1, "cannot", 0, 0, 0);
	backend(2, "fails", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[2].bad = FAILS;
	backend(3, "works", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(4);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_string_equal(c->backend, "works");
	assert_int_equal(c->n_skipped, 3);
	assert_string_equal(c->skipped[0].backend, "gone");
	assert_non_null(strstr(c->skipped[0].reason, "missing: /x/gone.so"));
	assert_string_equal(c->skipped[1].backend, "cannot");
	assert_non_null(strstr(c->skipped[1].reason, "cannot says no"));
	assert_string_equal(c->skipped[2].backend, "fails");
	assert_non_null(strstr(c->skipped[2].reason, "cannot today"));
	/* The backend's own words for a denial are kept. */
	assert_non_null(strstr(c->denial_message, "works refuses writes outside"));
	warden_confined_free(c);
	/* The first one works: nothing skipped. */
	assert_int_equal(warden_sandbox_confine_with(svc, "works", cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->n_skipped, 0);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_a_required_backend_that_fails_is_sandbox_unavailable(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = (void *)1;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);

	(void)s;
	backend(0, "team", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].bad = FAILS;
	cfgs[0].required = 1;
	backend(1, "fallback", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(2);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_null(c);
	assert_non_null(strstr(err.msg, "SANDBOX_UNAVAILABLE: backend team is required"));
	assert_non_null(strstr(err.msg, "cannot today"));
	assert_int_equal(fakes[1].confines, 0);
	warden_sandbox_free(svc);

	/* An unusable required backend too; a required one that works is used. */
	backend(0, "team", 0, 0, 0);
	cfgs[0].required = 1;
	backend(1, "fallback", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(2);
	c = (void *)1;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_int_equal(fakes[1].confines, 0);
	warden_sandbox_free(svc);
	backend(0, "team", 1, WARDEN_ENFORCEMENT_FULL, 1);
	cfgs[0].required = 1;
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_string_equal(c->backend, "team");
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_require_full_skips_partial_backends_or_refuses(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);

	(void)s;
	backend(0, "half", 1, WARDEN_ENFORCEMENT_PARTIAL, 1);
	backend(1, "whole", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(2);
	assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p, WARDEN_CONFINE_REQUIRE_FULL,
	                                              &c, &err), 0);
	assert_string_equal(c->backend, "whole");
	assert_int_equal(c->n_skipped, 1);
	assert_non_null(strstr(c->skipped[0].reason, "require_full is set"));
	assert_int_equal(fakes[0].confines, 0);
	warden_confined_free(c);
	warden_sandbox_free(svc);

	backend(0, "half", 1, WARDEN_ENFORCEMENT_PARTIAL, 1);
	svc = service(1);
	c = (void *)1;
	assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p, WARDEN_CONFINE_REQUIRE_FULL,
	                                              &c, &err), -WARDEN_EREFUSED);
	assert_null(c);
	assert_non_null(strstr(err.msg, "refused: require_full is set and no backend enforces workspace-write fully"));
	assert_non_null(strstr(err.msg, "half: partial"));
	/* Without the flag the partial one serves. */
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_string_equal(c->backend, "half");
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_a_root_descriptor_that_is_not_the_root_is_refused(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);
	char sub[PATH_MAX];

	(void)s;
	snprintf(sub, sizeof(sub), "%s/other", root);
	assert_int_equal(mkdir(sub, 0700), 0);
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	/* What was checked was another directory: the path moved since. */
	p.root_fd = open(sub, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(p.root_fd >= 0);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EDATA);
	assert_null(c);
	assert_non_null(strstr(err.msg, "no longer the directory that was checked"));
	assert_int_equal(fakes[0].confines, 0);
	close(p.root_fd);
	/* The root's own descriptor passes. */
	p.root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(fakes[0].confines, 1);
	close(p.root_fd);
	warden_confined_free(c);
	warden_sandbox_free(svc);
	rmdir(sub);
}

static void test_read_only_paths_under_a_writable_root_need_the_backend_to_hold_them(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_WORKSPACE_WRITE, root, -1);
	char inside[PATH_MAX], parent[PATH_MAX];
	const char *paths[2];

	(void)s;
	snprintf(inside, sizeof(inside), "%s/warden.ini", root);
	snprintf(parent, sizeof(parent), "%s", root);
	*strrchr(parent, '/') = '\0';
	paths[0] = "/etc/warden/warden.ini";
	paths[1] = inside;
	p.read_only_paths = paths;
	p.n_read_only_paths = 2;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_null(c);
	assert_non_null(strstr(err.msg, "SANDBOX_UNAVAILABLE"));
	assert_non_null(strstr(err.msg, inside));
	/* A root inside such a path is the same thing. */
	paths[1] = parent;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	/* Outside every writable root: nothing to hold. */
	p.n_read_only_paths = 1;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	warden_confined_free(c);
	/* A backend that says it holds them confines. */
	p.n_read_only_paths = 2;
	paths[1] = inside;
	fakes[0].holds = 1;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	warden_confined_free(c);
	/* A relative one is a caller bug. */
	paths[0] = "relative";
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EINTERNAL);
	warden_sandbox_free(svc);
}

static void test_handed_over_descriptors_reach_the_runner_and_nothing_else(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, 3);
	const char *const show[] = { "/bin/sh", "-c",
		"cd /proc/self/fd && echo *; readlink 4; cat <&4", NULL };
	char file[PATH_MAX], buf[256], *nl;
	int fd, stray, pr[2], st[2], status, words;
	ssize_t n;
	size_t got = 0, i;
	pid_t pid;

	(void)s;
	snprintf(file, sizeof(file), "%s/held", root);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "held-data\n", 10), 10);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	/* A descriptor the caller has and the runner must not get. */
	stray = open("/dev/null", O_RDONLY);
	assert_true(stray >= 0);

	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].runner = "/usr/bin/env";
	svc = service(1);
	/* A caller that prints the argv cannot pass it: closed, -1. */
	fakes[0].push = dup(fd);
	assert_int_equal(warden_sandbox_confine(svc, show, 3, &p, &c, &err), 0);
	assert_int_equal(fakes[0].pushed_at, -1);
	assert_int_equal(c->n_held, 0);
	assert_int_equal(fcntl(fakes[0].push, F_GETFD), -1);
	warden_confined_free(c);
	/* A spawning caller gets it at the first number after the status
	 * channel's. */
	fakes[0].push = dup(fd);
	assert_int_equal(warden_sandbox_confine_flags(svc, show, 3, &p, WARDEN_CONFINE_PASS_FDS,
	                                              &c, &err), 0);
	assert_int_equal(fakes[0].pushed_at, 4);
	assert_int_equal(c->n_held, 1);
	assert_int_equal(c->held_at[0], 4);
	assert_true(fcntl(c->held_fds[0], F_GETFD) & FD_CLOEXEC);

	assert_int_equal(pipe(pr), 0);
	assert_int_equal(pipe(st), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pr[1], 1);
		warden_confined_exec(c, st[1]);
		_exit(127);
	}
	close(pr[1]);
	close(st[1]);
	while ((n = read(pr[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(pr[0]);
	close(st[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* 0 1 2, the status channel at 3, the held file at 4, and the
	 * directory the shell lists: nothing of the caller's. */
	assert_true(strncmp(buf, "0 1 2 3 4", 9) == 0);
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	for (i = 0, words = 1; buf + i < nl; i++)
		words += buf[i] == ' ';
	assert_true(words <= 6);
	assert_non_null(strstr(buf, file));
	assert_non_null(strstr(buf, "held-data"));
	warden_confined_free(c);
	warden_sandbox_free(svc);
	close(stray);
	close(fd);
	unlink(file);
}

/*
 * spawn_env: given only to a backend with finish() by a caller that
 * spawns the argv itself; what the backend answers (its environment,
 * spawn flags, its run state) is kept or refused whole; finish() is
 * called once for every such confinement, also one refused after
 * confine() returned.
 */
static void test_spawn_env_reaches_only_a_finishing_backend_of_a_spawning_caller(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);
	const char *const argv[] = { "/bin/true", NULL };
	const char *const env[] = { "CALLER=1", NULL };

	(void)s;
	p.spawn_env = env;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].hosted = HOSTED_GOOD;
	svc = service(1);
	/* A caller that does not spawn (warden confine): never. */
	assert_int_equal(warden_sandbox_confine(svc, argv, 1, &p, &c, &err), 0);
	assert_false(fakes[0].saw_spawn_env);
	assert_null(c->envp);
	assert_int_equal(c->spawn_flags, 0);
	warden_confined_free(c);
	assert_int_equal(fakes[0].finishes, 0);

	/* A spawning caller: the backend's environment and flags; finish
	 * once, when the caller says the run is over. */
	assert_int_equal(warden_sandbox_confine_flags(svc, argv, 1, &p, WARDEN_CONFINE_PASS_FDS,
	                                              &c, &err), 0);
	assert_true(fakes[0].saw_spawn_env);
	assert_non_null(c->envp);
	assert_string_equal(c->envp[0], "FROM_BACKEND=1");
	assert_string_equal(c->envp[1], "CALLER=1");
	assert_null(c->envp[2]);
	assert_int_equal(c->spawn_flags, WARDEN_SPAWN_DIE_WITH_HOST);
	assert_int_equal(fakes[0].finishes, 0);
	warden_confined_finish(c, 0);
	assert_int_equal(fakes[0].finishes, 1);
	assert_ptr_equal(fakes[0].finished, &run_token);
	assert_int_equal(fakes[0].ended, 0);
	warden_confined_finish(c, 1);
	warden_confined_free(c);
	assert_int_equal(fakes[0].finishes, 1);
	assert_int_equal(fakes[0].ended, 0);

	/* Freed without a finish: free finishes. */
	assert_int_equal(warden_sandbox_confine_flags(svc, argv, 1, &p, WARDEN_CONFINE_PASS_FDS,
	                                              &c, &err), 0);
	warden_confined_free(c);
	assert_int_equal(fakes[0].finishes, 2);
	assert_int_equal(fakes[0].ended, 1);  /* nothing was spawned */
	warden_sandbox_free(svc);

	/* A backend without finish() never sees it. */
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	loaded[0].desc.finish = NULL;
	svc = service(1);
	assert_int_equal(warden_sandbox_confine_flags(svc, argv, 1, &p, WARDEN_CONFINE_PASS_FDS,
	                                              &c, &err), 0);
	assert_false(fakes[0].saw_spawn_env);
	assert_null(c->envp);
	warden_confined_free(c);
	warden_sandbox_free(svc);
}

static void test_a_backend_answer_to_spawn_env_outside_the_contract_skips_it(void **s)
{
	static const struct { int hosted; const char *why; } bad[] = {
		{ HOSTED_BAD_FLAG, "spawn flags 0x100 this host does not know" },
		{ HOSTED_BAD_ENTRY, "environment entry 'NOEQUALS' is not NAME=VALUE" },
		{ HOSTED_UNASKED, "without spawn_env" },
	};
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);
	const char *const argv[] = { "/bin/true", NULL };
	const char *const env[] = { "CALLER=1", NULL };
	size_t i;

	(void)s;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
		fakes[0].hosted = bad[i].hosted;
		svc = service(1);
		p.spawn_env = bad[i].hosted == HOSTED_UNASKED ? NULL : env;
		assert_int_equal(warden_sandbox_confine_flags(svc, argv, 1, &p,
		                                              WARDEN_CONFINE_PASS_FDS, &c, &err),
		                 -WARDEN_EUNAVAILABLE);
		assert_null(c);
		assert_non_null(strstr(err.msg, bad[i].why));
		/* What it held for the run is released all the same. */
		assert_int_equal(fakes[0].finishes, bad[i].hosted == HOSTED_UNASKED ? 0 : 1);
		if (bad[i].hosted != HOSTED_UNASKED)
			assert_int_equal(fakes[0].ended, 1);
		warden_sandbox_free(svc);
	}
}

static void test_network_facts_are_what_the_backend_says_and_never_more(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "says", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].net = WARDEN_ENFORCEMENT_FULL;
	svc = service(1);
	p.network = WARDEN_NETWORK_RESTRICTED;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(fakes[0].last_network, WARDEN_NETWORK_RESTRICTED);
	assert_int_equal(c->network, WARDEN_NETWORK_RESTRICTED);
	assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_FULL);
	assert_string_equal(c->network_detail, "says holds the network its way");
	warden_confined_free(c);
	/* Enabled: nothing to hold, whatever the backend says. */
	fakes[0].net = WARDEN_ENFORCEMENT_PARTIAL;
	p.network = WARDEN_NETWORK_ENABLED;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_FULL);
	warden_confined_free(c);
	warden_sandbox_free(svc);

	/* A backend that says nothing (plugin ABI 1.0) is partial. */
	backend(0, "silent", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	p.network = WARDEN_NETWORK_RESTRICTED;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_non_null(strstr(c->network_detail, "plugin ABI 1.0"));
	warden_confined_free(c);
	warden_sandbox_free(svc);

	/* One that keeps its privileges is never full. */
	backend(0, "root", 1, WARDEN_ENFORCEMENT_PARTIAL, 0);
	fakes[0].net = WARDEN_ENFORCEMENT_FULL;
	svc = service(1);
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), 0);
	assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_PARTIAL);
	assert_string_equal(c->network_detail, "the command keeps its privileges");
	warden_confined_free(c);
	warden_sandbox_free(svc);

	/* A value outside the enum breaks the contract: skipped. */
	backend(0, "liar", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].net = 9;
	svc = service(1);
	c = (void *)1;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUNAVAILABLE);
	assert_null(c);
	assert_non_null(strstr(err.msg, "network enforcement 9"));
	warden_sandbox_free(svc);
}

static void test_require_full_covers_a_restricted_network(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "leaky", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[0].net = WARDEN_ENFORCEMENT_PARTIAL;
	backend(1, "tight", 1, WARDEN_ENFORCEMENT_FULL, 1);
	fakes[1].net = WARDEN_ENFORCEMENT_FULL;
	svc = service(2);
	p.network = WARDEN_NETWORK_RESTRICTED;
	assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p, WARDEN_CONFINE_REQUIRE_FULL,
	                                              &c, &err), 0);
	assert_string_equal(c->backend, "tight");
	assert_int_equal(c->n_skipped, 1);
	assert_non_null(strstr(c->skipped[0].reason,
	                       "network partial (leaky holds the network its way), and require_full is set"));
	warden_confined_free(c);
	/* With the network enabled there is nothing to hold: the first serves. */
	p.network = WARDEN_NETWORK_ENABLED;
	assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p, WARDEN_CONFINE_REQUIRE_FULL,
	                                              &c, &err), 0);
	assert_string_equal(c->backend, "leaky");
	warden_confined_free(c);
	warden_sandbox_free(svc);

	svc = service(1);
	p.network = WARDEN_NETWORK_RESTRICTED;
	c = (void *)1;
	assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p, WARDEN_CONFINE_REQUIRE_FULL,
	                                              &c, &err), -WARDEN_EREFUSED);
	assert_null(c);
	assert_non_null(strstr(err.msg, "leaky: network partial"));
	warden_sandbox_free(svc);
}

/* probe2 and facts() of a backend whose confine says more of the network
 * than its judgement did. */
static void judged_network(const struct fake *f, struct warden_probe2 *out,
                           const char *how)
{
	out->usable = f->usable;
	out->enforcement = f->enforcement;
	out->privilege_dropped = f->privilege_dropped;
	snprintf(out->detail, sizeof(out->detail), "%s by %s", f->name, how);
	out->network_enforcement = f->judged_net;
	snprintf(out->network_detail, sizeof(out->network_detail),
	         "%s's %s: unix sockets reachable", f->name, how);
}

static int fake_facts_op(void *state, int mode, struct warden_probe2 *out)
{
	struct fake *f = state;

	(void)mode;
	f->facts++;
	judged_network(f, out, "facts");
	return 0;
}

static int fake_probe2_op(void *state, int mode, struct warden_probe2 *out)
{
	struct fake *f = state;

	(void)mode;
	f->probes++;
	judged_network(f, out, "probe");
	return 0;
}

static void test_require_full_covers_the_network_judged_by_facts_or_probe(void **s)
{
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);
	int flags;

	(void)s;
	p.network = WARDEN_NETWORK_RESTRICTED;
	for (flags = 0; flags <= WARDEN_CONFINE_FACTS; flags += WARDEN_CONFINE_FACTS) {
		const char *how = flags ? "facts" : "probe";
		char want[128];

		/* Its confine claims full; what judged it said partial. */
		backend(0, "leaky", 1, WARDEN_ENFORCEMENT_FULL, 1);
		fakes[0].net = WARDEN_ENFORCEMENT_FULL;
		fakes[0].judged_net = WARDEN_ENFORCEMENT_PARTIAL;
		loaded[0].desc.probe2 = fake_probe2_op;
		loaded[0].desc.facts = fake_facts_op;
		svc = service(1);
		c = (void *)1;
		assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p,
		                                              flags | WARDEN_CONFINE_REQUIRE_FULL,
		                                              &c, &err), -WARDEN_EREFUSED);
		assert_null(c);
		snprintf(want, sizeof(want), "leaky: network partial (leaky's %s: unix sockets reachable)", how);
		assert_non_null(strstr(err.msg, want));
		assert_int_equal(fakes[0].facts, flags ? 1 : 0);
		assert_int_equal(fakes[0].probes, flags ? 0 : 1);
		/* Without require_full it runs, and says partial. */
		assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p, flags, &c, &err), 0);
		assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_PARTIAL);
		assert_int_equal(c->proven_by_facts, flags ? 1 : 0);
		snprintf(want, sizeof(want), "leaky's %s: unix sockets reachable", how);
		assert_string_equal(c->network_detail, want);
		warden_confined_free(c);
		/* The network enabled: nothing to hold, require_full is met. */
		p.network = WARDEN_NETWORK_ENABLED;
		assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p,
		                                              flags | WARDEN_CONFINE_REQUIRE_FULL,
		                                              &c, &err), 0);
		assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_FULL);
		warden_confined_free(c);
		p.network = WARDEN_NETWORK_RESTRICTED;
		warden_sandbox_free(svc);

		/* Judged full and confined full: full, require_full met. */
		backend(0, "tight", 1, WARDEN_ENFORCEMENT_FULL, 1);
		fakes[0].net = WARDEN_ENFORCEMENT_FULL;
		fakes[0].judged_net = WARDEN_ENFORCEMENT_FULL;
		loaded[0].desc.probe2 = fake_probe2_op;
		loaded[0].desc.facts = fake_facts_op;
		svc = service(1);
		assert_int_equal(warden_sandbox_confine_flags(svc, cmd, 1, &p,
		                                              flags | WARDEN_CONFINE_REQUIRE_FULL,
		                                              &c, &err), 0);
		assert_int_equal(c->network_enforcement, WARDEN_ENFORCEMENT_FULL);
		assert_int_equal(c->proven_by_facts, flags ? 1 : 0);
		warden_confined_free(c);
		warden_sandbox_free(svc);
	}
}

static void test_bad_network_requests_reach_no_backend(void **s)
{
	static const char *const sockets[] = { "relative.sock" };
	struct warden_sandbox *svc;
	struct warden_confined *c = NULL;
	struct warden_error err = { 0, "" };
	struct warden_policy p = policy(WARDEN_MODE_READ_ONLY, root, -1);

	(void)s;
	backend(0, "b", 1, WARDEN_ENFORCEMENT_FULL, 1);
	svc = service(1);
	p.network = 0;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EINTERNAL);
	p.network = WARDEN_NETWORK_RESTRICTED;
	p.n_allow_unix_sockets = 1;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EINTERNAL);
	p.allow_unix_sockets = sockets;
	assert_int_equal(warden_sandbox_confine(svc, cmd, 1, &p, &c, &err), -WARDEN_EUSAGE);
	assert_int_equal(fakes[0].confines, 0);
	warden_sandbox_free(svc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_usable_backend_in_config_order_is_used),
		cmocka_unit_test(test_argv_is_copied_exactly_without_joining),
		cmocka_unit_test(test_probe_runs_once_per_mode_and_is_cached),
		cmocka_unit_test(test_danger_full_access_is_refused_as_a_caller_bug),
		cmocka_unit_test(test_bad_requests_are_usage_errors_and_reach_no_backend),
		cmocka_unit_test(test_root_is_resolved_before_the_backend_sees_it),
		cmocka_unit_test(test_no_usable_backend_is_sandbox_unavailable_with_every_reason),
		cmocka_unit_test(test_no_backend_configured_is_sandbox_unavailable),
		cmocka_unit_test(test_failed_probe_is_unusable_even_if_it_claims_usable),
		cmocka_unit_test(test_probe_outside_the_contract_is_unusable),
		cmocka_unit_test(test_backend_keeping_privilege_is_never_full),
		cmocka_unit_test(test_confine_never_claims_more_than_the_probe),
		cmocka_unit_test(test_contract_breaches_skip_the_backend),
		cmocka_unit_test(test_backend_selected_by_name),
		cmocka_unit_test(test_facts_are_deep_copies_and_carry_the_status_fd),
		cmocka_unit_test(test_skipped_backends_are_named_in_order_with_their_reasons),
		cmocka_unit_test(test_a_required_backend_that_fails_is_sandbox_unavailable),
		cmocka_unit_test(test_require_full_skips_partial_backends_or_refuses),
		cmocka_unit_test(test_probe2_is_called_instead_of_probe_with_network_facts),
		cmocka_unit_test(test_runner_rules_are_read_with_the_plugins_element_size),
		cmocka_unit_test(test_a_root_descriptor_that_is_not_the_root_is_refused),
		cmocka_unit_test(test_read_only_paths_under_a_writable_root_need_the_backend_to_hold_them),
		cmocka_unit_test(test_handed_over_descriptors_reach_the_runner_and_nothing_else),
		cmocka_unit_test(test_network_facts_are_what_the_backend_says_and_never_more),
		cmocka_unit_test(test_require_full_covers_a_restricted_network),
		cmocka_unit_test(test_require_full_covers_the_network_judged_by_facts_or_probe),
		cmocka_unit_test(test_bad_network_requests_reach_no_backend),
		cmocka_unit_test(test_spawn_env_reaches_only_a_finishing_backend_of_a_spawning_caller),
		cmocka_unit_test(test_a_backend_answer_to_spawn_env_outside_the_contract_skips_it),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
