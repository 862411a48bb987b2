/*
 * cli_run.c — `warden run`, the sandboxed bash tool an agent calls
 * (DESIGN §2, §3, §8):
 *
 *   warden run [--json] [--timeout S] [--require-full]
 *              [--escalate MODE --justification TEXT]
 *              (-c 'COMMAND' | -- ARGV...)
 *
 * One run, in this order, each step able to stop it before anything
 * starts:
 *
 *   1. the argv: `-c CMD` is [shell, "-c", CMD] (shell from [warden]
 *      shell, default bash); `-- ARGV...` is taken as is.  A program that
 *      cannot be found or executed is 127 / 126, as a shell says.
 *   2. the session (--session, else $WARDEN_SESSION): opened and checked;
 *      its log must be writable, since a run that cannot be recorded does
 *      not start.
 *   3. escalation: --escalate asks the approval service (host/approval.h,
 *      audited in the session's log, so a session is required); only
 *      allowed-once goes on, under that mode, for this run only.
 *   4. policy resolution: explicit (escalated) mode > the session's mode >
 *      the config's default_mode; the root is the session's cwd, else the
 *      configured root.
 *   5. danger-full-access: the argv is spawned as is, never confined.
 *      Otherwise the sandbox service confines it: no usable backend is
 *      SANDBOX_UNAVAILABLE (69); with require_full only a backend that
 *      enforces the mode `full` is taken, and none is a refusal (77).
 *   6. spawn (host/spawn.h): live output, own process group, timeout and
 *      forwarded signals, scrubbed environment (host/env.h).
 *   7. classification (host/classify.h): out-of-band evidence first, then
 *      runner-failure rules, then denial signatures.
 *   8. the session gets one sandbox/run event (also for a run refused at
 *      step 3 or 5); then the result: --json prints one object, a denial
 *      prints one line an agent can act on, and the exit status says the
 *      rest (see the table in usage()).
 *
 * Fail closed on the log: when the sandbox/run event of a run that did
 * start cannot be appended, the run's result is still shown (its effects
 * happened) but the exit status is 74, never the command's own.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "classify.h"
#include "cli.h"
#include "env.h"
#include "policy.h"
#include "sandbox.h"
#include "session.h"
#include "spawn.h"
#include "vocab.h"
#include "wconfig.h"

extern char **environ;

/* The exit statuses of `warden run` besides the command's own. */
#define RUN_TIMEOUT 124         /* --timeout fired (as timeout(1)) */
#define RUN_SANDBOX_ERROR 125   /* the runner failed, the command never ran */
#define RUN_CANNOT_EXEC 126     /* found but not executable (as shells) */
#define RUN_NOT_FOUND 127       /* no such program (as shells) */

/* Where the runner finds the write end of the out-of-band status channel. */
#define STATUS_FD 3

/* The longest --timeout: a day in seconds. */
#define TIMEOUT_MAX_S 86400.0

struct run_opts {
	int json;
	int require_full;       /* --require-full */
	long timeout_ms;        /* 0: none */
	int escalate;           /* requested mode, 0: none */
	const char *justification;
	const char *command;    /* -c */
	char **argv;            /* -- ARGV... */
	size_t argc;
};

/* Everything a run's report says: the JSON object, the session event and
 * the exit status are all built from this. */
struct run_report {
	const char *const *argv;
	size_t argc;
	const char *session;    /* NULL without a session */
	int started;            /* the runner or the command was started */
	int cls;                /* enum warden_run_class, 0 when not started */
	int exit_code;          /* -1 when killed by a signal or not started */
	int signal;             /* 0 when none */
	int mode;               /* the mode it ran (or would have run) under */
	int mode_source;
	const char *backend;    /* NULL when not confined */
	int enforcement;        /* 0 when not confined */
	long duration_ms;
	int timed_out;
	int escalated_mode;     /* 0: no escalation asked */
	int escalation_outcome; /* enum warden_outcome, 0 when not decided */
	char request_id[64];    /* the approval request's id, "" when none */
	char reason[512];       /* what decided the class, or why not run */
	int status;             /* warden's exit status */
	const char *refused;    /* "unavailable", "require-full", "escalation",
	                           "not-found", ... when nothing started */
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: warden [--session ID] run [--json] [--timeout S] [--require-full]\n"
	        "                  [--escalate MODE --justification TEXT]\n"
	        "                  (-c 'COMMAND' | -- ARGV...)\n"
	        "\n"
	        "Runs one command inside the sandbox mode that policy resolution\n"
	        "gives (the session's mode, else the config's default_mode) and\n"
	        "says what happened: ok, failed, denied (the sandbox refused an\n"
	        "effect) or sandbox-error (the sandbox itself failed; the command\n"
	        "did not run).  danger-full-access runs the command unconfined.\n"
	        "\n"
	        "  -c COMMAND          run SHELL -c COMMAND ([warden] shell, default bash)\n"
	        "  -- ARGV...          run ARGV exactly (no shell)\n"
	        "  --json              print one JSON object on stdout after the\n"
	        "                      command's output: class, exit, signal, mode,\n"
	        "                      backend, enforcement, duration_ms, timed_out,\n"
	        "                      session, argv, status\n"
	        "  --timeout S         kill the command's process group after S\n"
	        "                      seconds (SIGTERM, then SIGKILL after 2 s)\n"
	        "  --require-full      only a backend that enforces the mode fully;\n"
	        "                      none: refuse (also require_full = yes)\n"
	        "  --escalate MODE     ask the approval service to run this command\n"
	        "                      once under MODE (workspace-write or\n"
	        "                      danger-full-access); needs --justification\n"
	        "  --justification TEXT  why the escalation is needed (the reason\n"
	        "                      the answerers see)\n"
	        "  --help              this text\n"
	        "\n"
	        "The command's stdin, stdout and stderr are warden's; it gets no\n"
	        "other descriptor, runs in a process group of its own, and gets the\n"
	        "environment minus the names [warden] scrub_env removes.  SIGINT,\n"
	        "SIGTERM, SIGHUP and SIGQUIT are forwarded to the group.  With a\n"
	        "session, every run appends a sandbox/run event.\n"
	        "\n"
	        "exit status:\n"
	        "  N    the command's own status (ok, failed, denied)\n"
	        "  128+N  the command was killed by signal N\n"
	        "  124  --timeout fired; the command's group was killed\n"
	        "  125  sandbox-error: the sandbox runner failed, the command did not run\n"
	        "  126  the program is not executable; nothing ran\n"
	        "  127  the program was not found; nothing ran\n"
	        "  64   usage error\n"
	        "  65   damaged session log\n"
	        "  69   SANDBOX_UNAVAILABLE: no backend can enforce the mode; nothing ran\n"
	        "  74   the sandbox/run event could not be recorded (the command may\n"
	        "       have run; nothing runs when the log is known unwritable)\n"
	        "  77   refused: --require-full with only partial backends, or an\n"
	        "       escalation that was not allowed-once; nothing ran (an\n"
	        "       escalation withdrawn by SIGINT/SIGTERM: 128+N)\n"
	        "  78   configuration error\n");
}

/* ------------------------------------------------------------- options */

static int parse_timeout(const char *s, long *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v <= 0 ||
	    v > TIMEOUT_MAX_S)
		return warden_cli_usage("run: --timeout '%s': give seconds, more than 0 and at most %.0f (e.g. 30 or 0.5)",
		                        s, TIMEOUT_MAX_S);
	*ms = (long)(v * 1000.0);
	if (*ms < 1)
		*ms = 1;
	return 0;
}

static int parse_opts(int argc, char **argv, struct run_opts *o, int *help)
{
	enum { OPT_JSON = 256, OPT_TIMEOUT, OPT_REQUIRE_FULL, OPT_ESCALATE,
	       OPT_JUSTIFICATION };
	static const struct option longs[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "require-full", no_argument, NULL, OPT_REQUIRE_FULL },
		{ "escalate", required_argument, NULL, OPT_ESCALATE },
		{ "justification", required_argument, NULL, OPT_JUSTIFICATION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, r;

	memset(o, 0, sizeof(*o));
	*help = 0;
	optind = 0;
	opterr = 0;
	/* '+': the command's own options are never ours. */
	while ((ch = getopt_long(argc, argv, "+hc:", longs, NULL)) != -1) {
		switch (ch) {
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_TIMEOUT:
			if ((r = parse_timeout(optarg, &o->timeout_ms)) != 0)
				return r;
			break;
		case OPT_REQUIRE_FULL:
			o->require_full = 1;
			break;
		case OPT_ESCALATE:
			o->escalate = warden_mode_parse(optarg);
			if (o->escalate != WARDEN_SANDBOX_WORKSPACE_WRITE &&
			    o->escalate != WARDEN_SANDBOX_DANGER_FULL_ACCESS)
				return warden_cli_usage("run: --escalate '%s': escalate to workspace-write or danger-full-access",
				                        optarg);
			break;
		case OPT_JUSTIFICATION:
			o->justification = optarg;
			break;
		case 'c':
			if (o->command != NULL)
				return warden_cli_usage("run: -c given twice");
			o->command = optarg;
			break;
		case 'h':
			*help = 1;
			return 0;
		case '?':
			if (optopt == 'c')
				return warden_cli_usage("run: -c needs the command as its argument");
			return warden_cli_usage("run: unknown option '%s'", argv[optind - 1]);
		default:
			return warden_cli_usage("run: option '%s' needs an argument", argv[optind - 1]);
		}
	}
	if (o->escalate && (o->justification == NULL || o->justification[0] == '\0'))
		return warden_cli_usage("run: --escalate needs --justification TEXT (why the command needs that mode)");
	if (!o->escalate && o->justification != NULL)
		return warden_cli_usage("run: --justification goes with --escalate MODE");
	if (optind < argc) {
		if (o->command != NULL)
			return warden_cli_usage("run: give either -c COMMAND or -- ARGV..., not both");
		if (strcmp(argv[optind - 1], "--") != 0)
			return warden_cli_usage("run: put -- before the command's argv (warden run -- %s ...)",
			                        argv[optind]);
		o->argv = argv + optind;
		o->argc = (size_t)(argc - optind);
	} else if (o->command == NULL) {
		return warden_cli_usage("run: no command: give -c 'COMMAND' or -- ARGV...");
	}
	if (o->argv != NULL && o->argv[0][0] == '\0')
		return warden_cli_usage("run: the program name is empty");
	return 0;
}

/* -------------------------------------------------------------- helpers */

/* The approval subject of an argv: the words, shell-quoted where needed,
 * so that the answerer sees exactly what would run. */
static char *argv_subject(const char *const *argv, size_t argc)
{
	static const char safe[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789_@%+=:,./-";
	size_t i, len = 1;
	const char *p;
	char *out, *q;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) * 4 + 3;
	out = malloc(len);
	if (out == NULL)
		return NULL;
	q = out;
	for (i = 0; i < argc; i++) {
		if (i > 0)
			*q++ = ' ';
		if (argv[i][0] != '\0' && strspn(argv[i], safe) == strlen(argv[i])) {
			q = stpcpy(q, argv[i]);
			continue;
		}
		*q++ = '\'';
		for (p = argv[i]; *p; p++) {
			if (*p == '\'')
				q = stpcpy(q, "'\\''");
			else
				*q++ = *p;
		}
		*q++ = '\'';
	}
	*q = '\0';
	return out;
}

/*
 * Finds the program the run will execute, as execvp(3) would in the
 * caller's PATH, so that "not found" and "not executable" are the
 * shell's 127 and 126 (checked before anything starts; the confined view
 * of the filesystem is the host's).  0, or RUN_NOT_FOUND / RUN_CANNOT_EXEC
 * with `why` filled.
 */
static int program_check(const char *name, char *why, size_t whylen)
{
	const char *path, *p, *colon;
	char full[PATH_MAX];
	struct stat st;
	int saw_noexec = 0;

	if (strchr(name, '/') != NULL) {
		if (stat(name, &st) < 0) {
			snprintf(why, whylen, "%s: %s", name, strerror(errno));
			return errno == EACCES ? RUN_CANNOT_EXEC : RUN_NOT_FOUND;
		}
		if (S_ISDIR(st.st_mode) || access(name, X_OK) < 0) {
			snprintf(why, whylen, "%s: %s", name,
			         S_ISDIR(st.st_mode) ? "is a directory" : "permission denied (not executable)");
			return RUN_CANNOT_EXEC;
		}
		return 0;
	}
	path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = colon + 1) {
		colon = strchrnul(p, ':');
		if (snprintf(full, sizeof(full), "%.*s%s%s", (int)(colon - p), p,
		             colon == p ? "./" : "/", name) < (int)sizeof(full) &&
		    stat(full, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(full, X_OK) == 0)
				return 0;
			saw_noexec = 1;
		}
		if (*colon == '\0')
			break;
	}
	if (saw_noexec) {
		snprintf(why, whylen, "%s: permission denied (not executable)", name);
		return RUN_CANNOT_EXEC;
	}
	snprintf(why, whylen, "%s: command not found in PATH", name);
	return RUN_NOT_FOUND;
}

static const char *backend_instance(const struct warden_loaded *b)
{
	return b->cfg != NULL && b->cfg->name != NULL ? b->cfg->name : "?";
}

/*
 * Confines argv for policy, honouring require_full: then only a backend
 * whose confinement is `full` is taken, tried in config order.  *refused
 * is set when usable backends exist but none is full (a refusal, not
 * unavailability).
 */
static int confine_for_run(struct warden_sandbox *svc, const char *const *argv,
                           size_t argc, const struct warden_policy *pol,
                           int require_full, struct warden_confined **out,
                           int *refused, struct warden_error *err)
{
	char reasons[WARDEN_ERROR_MAX] = "";
	struct warden_error one = { 0, "" };
	struct warden_probe probe;
	size_t i, used = 0;
	int any_usable = 0, r;

	*refused = 0;
	if (!require_full)
		return warden_sandbox_confine(svc, argv, argc, pol, out, err);
	for (i = 0; i < warden_sandbox_count(svc); i++) {
		const char *name = backend_instance(warden_sandbox_backend(svc, i));
		const char *why;

		warden_sandbox_probe(svc, i, pol->mode, &probe);
		if (!probe.usable)
			continue;
		any_usable = 1;
		if (probe.enforcement != WARDEN_ENFORCEMENT_FULL) {
			why = probe.detail[0] ? probe.detail : "partial";
		} else {
			r = warden_sandbox_confine_with(svc, name, argv, argc, pol, out, &one);
			if (r == 0 && (*out)->enforcement == WARDEN_ENFORCEMENT_FULL)
				return 0;
			if (r == -WARDEN_EUSAGE || r == -WARDEN_EINTERNAL) {
				*err = one;
				return r;
			}
			why = r == 0 ? ((*out)->detail[0] ? (*out)->detail : "partial")
			             : one.msg;
			warden_confined_free(*out);
			*out = NULL;
		}
		used += (size_t)snprintf(reasons + used, sizeof(reasons) - used,
		                         "%s%s: %s", used ? "; " : "", name, why);
		if (used >= sizeof(reasons))
			used = sizeof(reasons) - 1;
	}
	if (!any_usable)  /* the service names each backend's reason */
		return warden_sandbox_confine(svc, argv, argc, pol, out, err);
	*refused = 1;
	return warden_error_set(err, WARDEN_EREFUSED,
	                        "refused: require_full is set and no backend enforces %s fully (%s)",
	                        warden_mode_name(pol->mode), reasons);
}

/* ------------------------------------------------------------ escalation */

/*
 * Asks the approval service whether this command may run once under
 * `mode`: tool bash, the command as subject, the justification as reason
 * (DESIGN §3).  The service audits the request in the session's log and
 * returns no outcome when it cannot: the caller then refuses.
 */
static int ask_escalation(const struct warden_config *cfg,
                          struct warden_session *s, int mode,
                          const char *subject, const char *justification,
                          struct warden_approval_result *res,
                          struct warden_error *err)
{
	struct warden_approval_request req;
	struct warden_approval *a = NULL;
	int r;

	memset(&req, 0, sizeof(req));
	memset(res, 0, sizeof(*res));
	req.tool = "bash";
	req.subject = subject;
	req.reason = justification;
	req.requested_mode = warden_mode_name(mode);
	r = warden_approval_new(cfg, &a, err);
	if (r == 0)
		r = warden_approval_ask(a, s, &req, res, err);
	warden_approval_free(a);
	return r;
}

/* --------------------------------------------------------------- report */

static json_t *json_or_null(json_t *v)
{
	return v != NULL ? v : json_null();
}

/* The report's fields, shared by the --json object and the event. */
static json_t *report_fields(const struct run_report *rep)
{
	json_t *o = json_object(), *args = json_array();
	size_t i;

	for (i = 0; i < rep->argc; i++)
		json_array_append_new(args, json_or_null(warden_cli_json_string(rep->argv[i])));
	json_object_set_new(o, "class", rep->cls ? json_string(warden_class_name(rep->cls))
	                                         : json_null());
	json_object_set_new(o, "exit", rep->exit_code >= 0 ? json_integer(rep->exit_code)
	                                                    : json_null());
	json_object_set_new(o, "signal", rep->signal ? json_integer(rep->signal) : json_null());
	json_object_set_new(o, "mode", rep->mode ? json_string(warden_mode_name(rep->mode))
	                                         : json_null());
	json_object_set_new(o, "mode_source", rep->mode_source
	                    ? json_string(warden_source_name(rep->mode_source)) : json_null());
	json_object_set_new(o, "backend", rep->backend ? json_or_null(warden_cli_json_string(rep->backend))
	                                               : json_null());
	json_object_set_new(o, "enforcement", rep->enforcement
	                    ? json_string(warden_enforcement_name(rep->enforcement)) : json_null());
	json_object_set_new(o, "duration_ms", json_integer(rep->duration_ms));
	json_object_set_new(o, "timed_out", json_boolean(rep->timed_out));
	json_object_set_new(o, "started", json_boolean(rep->started));
	json_object_set_new(o, "argv", args);
	if (rep->escalated_mode) {
		json_object_set_new(o, "escalation",
		                    json_pack("{s:s,s:o,s:o}",
		                              "mode", warden_mode_name(rep->escalated_mode),
		                              "outcome", rep->escalation_outcome
		                              ? json_string(warden_outcome_name(rep->escalation_outcome))
		                              : json_null(),
		                              "request_id", rep->request_id[0]
		                              ? json_string(rep->request_id) : json_null()));
	}
	if (rep->refused != NULL)
		json_object_set_new(o, "refused", json_string(rep->refused));
	json_object_set_new(o, "reason", json_or_null(warden_cli_json_string(rep->reason)));
	return o;
}

static void print_json(const struct run_report *rep, const struct warden_spawn_result *sr)
{
	json_t *o = report_fields(rep);

	json_object_set_new(o, "session", rep->session
	                    ? json_or_null(warden_cli_json_string(rep->session)) : json_null());
	json_object_set_new(o, "status", json_integer(rep->status));
	/* The object is the last line of stdout, on a line of its own. */
	if (sr != NULL && sr->stdout_total > 0 && sr->stdout_last != '\n')
		putchar('\n');
	json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	fflush(stdout);
	json_decref(o);
}

/* The mode an agent may ask for after a denial under `mode`. */
static int next_mode(int mode)
{
	return mode == WARDEN_SANDBOX_READ_ONLY ? WARDEN_SANDBOX_WORKSPACE_WRITE
	                                        : WARDEN_SANDBOX_DANGER_FULL_ACCESS;
}

/* One short stderr line after a denial: who denied it and what to do. */
static void print_denial(const struct run_report *rep, int policy,
                         const struct run_opts *o)
{
	const char *mode = warden_mode_name(rep->mode);
	const char *what = rep->mode == WARDEN_SANDBOX_READ_ONLY
		? "a write was refused (read-only allows none)"
		: "a write outside the workspace root was refused";

	if (policy == WARDEN_POLICY_NEVER) {
		fprintf(stderr,
		        "warden: denied by the %s sandbox (%s): %s; escalation is not possible (approval policy never)\n",
		        mode, rep->backend, what);
		return;
	}
	fprintf(stderr,
	        "warden: denied by the %s sandbox (%s): %s; to ask for more: warden run --escalate %s --justification 'WHY' %s\n",
	        mode, rep->backend, what, warden_mode_name(next_mode(rep->mode)),
	        o->command != NULL ? "-c '...'" : "-- ...");
}

/* The exit status of a run that started. */
static int run_status(const struct run_report *rep, const struct warden_spawn_result *sr)
{
	if (rep->cls == WARDEN_CLASS_SANDBOX_ERROR)
		return RUN_SANDBOX_ERROR;
	if (sr->timed_out)
		return RUN_TIMEOUT;
	if (WIFSIGNALED(sr->wait_status))
		return 128 + WTERMSIG(sr->wait_status);
	if (WIFEXITED(sr->wait_status))
		return WEXITSTATUS(sr->wait_status);
	return WARDEN_EINTERNAL;
}

/* ------------------------------------------------------------------ run */

struct run_ctx {
	struct warden_cli *cli;
	struct run_opts *o;
	struct warden_config *cfg;
	struct warden_session *session;
	struct warden_sandbox *sandbox;
	struct warden_confined *confined;
	struct warden_spawn_result *sr;
	const char **patterns;
	char **envp;
	const char **argv;      /* the command's argv (borrowed strings) */
	size_t argc;
	int policy;             /* the effective approval policy */
};

static void ctx_free(struct run_ctx *c)
{
	warden_confined_free(c->confined);
	warden_sandbox_free(c->sandbox);
	warden_session_close(c->session);
	warden_config_free(c->cfg);
	free(c->patterns);
	free(c->envp);
	free(c->argv);
	free(c->sr);
}

/* Spawns argv (the command, or the confined replacement) and classifies. */
static int spawn_and_classify(struct run_ctx *c, struct run_report *rep,
                              struct warden_error *err)
{
	const struct warden_confined *cf = c->confined;
	struct warden_spawn_opts so;
	struct warden_classify_facts facts;
	struct warden_run_facts run;
	struct warden_classification cl;
	size_t n;
	int exec = WARDEN_EXEC_UNKNOWN, r;
	char why[256];

	if ((r = warden_env_patterns(c->cfg, &c->patterns, &n, err)) < 0 ||
	    (r = warden_env_build(environ, c->patterns, n, cf != NULL, &c->envp, err)) < 0)
		return r;
	memset(&so, 0, sizeof(so));
	so.argv = cf != NULL ? (const char *const *)cf->argv : c->argv;
	so.envp = c->envp;
	so.status_fd = cf != NULL ? cf->status_fd : -1;
	so.timeout_ms = c->o->timeout_ms;
	so.pipe_stdout = c->o->json;
	c->sr = calloc(1, sizeof(*c->sr));
	if (c->sr == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	if ((r = warden_spawn_run(&so, c->sr, err)) < 0)
		return r;

	rep->duration_ms = c->sr->duration_ms;
	rep->timed_out = c->sr->timed_out;
	if (c->sr->exec_errno != 0) {
		/* Nothing ran: the program (or the runner) could not be
		 * executed. */
		rep->started = 0;
		if (cf != NULL) {
			rep->cls = WARDEN_CLASS_SANDBOX_ERROR;
			rep->status = RUN_SANDBOX_ERROR;
			snprintf(rep->reason, sizeof(rep->reason),
			         "the sandbox runner %s could not be executed: %s",
			         cf->argv[0], strerror(c->sr->exec_errno));
		} else {
			rep->status = c->sr->exec_errno == ENOENT ? RUN_NOT_FOUND : RUN_CANNOT_EXEC;
			rep->refused = rep->status == RUN_NOT_FOUND ? "not-found" : "cannot-execute";
			snprintf(rep->reason, sizeof(rep->reason), "%s: %s", c->argv[0],
			         strerror(c->sr->exec_errno));
		}
		return 0;
	}
	rep->started = 1;
	if (WIFEXITED(c->sr->wait_status))
		rep->exit_code = WEXITSTATUS(c->sr->wait_status);
	else if (WIFSIGNALED(c->sr->wait_status))
		rep->signal = WTERMSIG(c->sr->wait_status);

	why[0] = '\0';
	memset(&facts, 0, sizeof(facts));
	if (cf != NULL) {
		warden_evidence_parse(cf->evidence, c->sr->evidence, c->sr->evidence_len,
		                      c->sr->wait_status, &exec, why, sizeof(why));
		facts = warden_confined_facts(cf);
	}
	run.wait_status = c->sr->wait_status;
	run.stderr_tail = c->sr->tail;
	run.stderr_len = c->sr->tail_len;
	run.exec_evidence = exec;
	warden_classify(&facts, &run, &cl);
	rep->cls = cl.cls;
	snprintf(rep->reason, sizeof(rep->reason), "%s%s%s", cl.reason,
	         why[0] ? ": " : "", why);
	rep->status = run_status(rep, c->sr);
	return 0;
}

/* Appends the report as a sandbox/run event (with a session). */
static int record(struct run_ctx *c, const struct run_report *rep,
                  struct warden_error *err)
{
	json_t *fields;
	int r;

	if (c->session == NULL)
		return 0;
	fields = report_fields(rep);
	json_object_set_new(fields, "status", json_integer(rep->status));
	r = warden_session_append(c->session, "sandbox/run", fields, err);
	json_decref(fields);
	return r;
}

/*
 * Everything up to a report: fills rep and returns 0 when there is a
 * report to give (a run, or a refusal worth recording), or a negative
 * status for an error before that (printed by the caller, no report).
 */
static int run_flow(struct run_ctx *c, struct run_report *rep,
                    struct warden_error *err)
{
	struct warden_resolved res;
	struct warden_policy pol;
	const char *shell;
	struct warden_approval_result ares;
	char *subject = NULL, why[512], who[768];
	int r, refused;

	/* 1. the argv */
	if (c->o->command != NULL) {
		shell = c->cfg->shell != NULL ? c->cfg->shell : "bash";
		c->argv = calloc(4, sizeof(*c->argv));
		if (c->argv == NULL)
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		c->argv[0] = shell;
		c->argv[1] = "-c";
		c->argv[2] = c->o->command;
		c->argc = 3;
	} else {
		c->argv = calloc(c->o->argc + 1, sizeof(*c->argv));
		if (c->argv == NULL)
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		memcpy(c->argv, c->o->argv, c->o->argc * sizeof(*c->argv));
		c->argc = c->o->argc;
	}
	rep->argv = c->argv;
	rep->argc = c->argc;
	rep->exit_code = -1;

	/* 2. the session */
	if (c->cli->session_id != NULL && c->cli->session_id[0] != '\0') {
		if ((r = warden_session_open(c->cfg, c->cli->session_id, &c->session, err)) < 0)
			return r;
		if (access(warden_session_path(c->session), W_OK) < 0)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "run: session log %s cannot be written, and a run that cannot be recorded does not start",
			                          warden_session_path(c->session));
		rep->session = warden_session_id(c->session);
	}

	/* Resolve once without the escalation: the policy the ask is under,
	 * and the root and mode a refusal reports. */
	r = c->session != NULL
		? warden_policy_resolve_session(c->cfg, c->session, 0, &res, err)
		: warden_policy_resolve(c->cfg, NULL, 0, &res, err);
	if (r < 0)
		return r;
	c->policy = res.policy;
	rep->mode = res.mode;
	rep->mode_source = res.mode_source;

	r = program_check(c->argv[0], why, sizeof(why));
	if (r != 0) {
		rep->status = r;
		rep->refused = r == RUN_NOT_FOUND ? "not-found" : "cannot-execute";
		snprintf(rep->reason, sizeof(rep->reason), "%s", why);
		return 0;
	}

	/* 3. escalation */
	if (c->o->escalate && c->session == NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: --escalate needs a session (--session ID or WARDEN_SESSION): the approval is recorded in its log");
	if (c->o->escalate) {
		subject = c->o->command != NULL ? strdup(c->o->command)
		                                : argv_subject(c->argv, c->argc);
		if (subject == NULL)
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		r = ask_escalation(c->cfg, c->session, c->o->escalate, subject,
		                   c->o->justification, &ares, err);
		free(subject);
		rep->escalated_mode = c->o->escalate;
		if (r < 0) {
			/* No outcome: the request could not be asked or audited. */
			rep->status = -r;
			rep->refused = "escalation";
			snprintf(rep->reason, sizeof(rep->reason),
			         "escalation to %s could not be asked: %s",
			         warden_mode_name(c->o->escalate), err->msg);
			warden_error_clear(err);
			return 0;
		}
		rep->escalation_outcome = ares.outcome;
		snprintf(rep->request_id, sizeof(rep->request_id), "%s", ares.request_id);
		if (ares.outcome != WARDEN_OUTCOME_ALLOWED_ONCE) {
			/* Withdrawn by the user's signal: that signal's status. */
			rep->status = ares.signal > 0 ? 128 + ares.signal : WARDEN_EREFUSED;
			rep->refused = "escalation";
			if (ares.answerer[0] && ares.reason[0])
				snprintf(who, sizeof(who), "answerer %s: %s", ares.answerer, ares.reason);
			else if (ares.answerer[0])
				snprintf(who, sizeof(who), "answerer %s", ares.answerer);
			else
				snprintf(who, sizeof(who), "%s", ares.reason[0] ? ares.reason
				                                                : "no answerer decided");
			snprintf(rep->reason, sizeof(rep->reason),
			         "escalation to %s was not granted: the approval outcome is %s: %.400s",
			         warden_mode_name(c->o->escalate),
			         warden_outcome_name(ares.outcome), who);
			return 0;
		}
		fprintf(stderr, "warden: run: escalation to %s allowed once (answerer %s)\n",
		        warden_mode_name(c->o->escalate),
		        ares.answerer[0] ? ares.answerer : "?");
		/* 4. allowed once: the top of the resolution order. */
		r = c->session != NULL
			? warden_policy_resolve_session(c->cfg, c->session, c->o->escalate, &res, err)
			: warden_policy_resolve(c->cfg, NULL, c->o->escalate, &res, err);
		if (r < 0)
			return r;
		rep->mode = res.mode;
		rep->mode_source = res.mode_source;
	}

	/* 5. danger-full-access is never confined. */
	if (res.mode != WARDEN_SANDBOX_DANGER_FULL_ACCESS) {
		/* A backend that does not load is unusable with its reason;
		 * the service names it if nothing else can confine. */
		if ((r = warden_sandbox_open(c->cfg, &c->sandbox, err)) < 0)
			return r;
		warden_policy_init(&pol);
		pol.mode = res.mode;
		pol.workspace_root = res.root;
		pol.session_id = rep->session != NULL ? rep->session : "";
		pol.status_fd = STATUS_FD;
		r = confine_for_run(c->sandbox, c->argv, c->argc, &pol,
		                    c->o->require_full || c->cfg->require_full,
		                    &c->confined, &refused, err);
		if (r < 0 && (refused || r == -WARDEN_EUNAVAILABLE)) {
			rep->status = -r;
			rep->refused = refused ? "require-full" : "unavailable";
			snprintf(rep->reason, sizeof(rep->reason), "%s", err->msg);
			warden_error_clear(err);
			return 0;
		}
		if (r < 0)
			return r;
		rep->backend = c->confined->backend;
		rep->enforcement = c->confined->enforcement;
	}

	/* 6, 7. */
	return spawn_and_classify(c, rep, err);
}

int warden_cmd_run(struct warden_cli *cli, int argc, char **argv)
{
	struct warden_error err = { 0, "" };
	struct run_report rep;
	struct run_opts o;
	struct run_ctx c;
	int r, help, status;

	if ((r = parse_opts(argc, argv, &o, &help)) != 0)
		return r;
	if (help) {
		usage(stdout);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	memset(&rep, 0, sizeof(rep));
	c.cli = cli;
	c.o = &o;
	if (cli->session_id != NULL && cli->session_id[0] != '\0' &&
	    warden_session_id_check(cli->session_id, &err) < 0)
		return warden_cli_fail(&err);
	if (warden_config_load(cli->config_path, &c.cfg, &err) < 0)
		return warden_cli_fail(&err);

	r = run_flow(&c, &rep, &err);
	if (r < 0) {
		status = warden_cli_fail(&err);
		ctx_free(&c);
		return status;
	}
	status = rep.status;
	if (record(&c, &rep, &err) < 0) {
		fprintf(stderr, "warden: run: %s the sandbox/run event could not be appended to session %s: %s\n",
		        rep.started ? "the command ran but" : "nothing ran and",
		        rep.session, err.msg);
		status = WARDEN_EIO;
		rep.status = status;
	}
	if (!rep.started && rep.refused != NULL)
		fprintf(stderr, "warden: run: %s; nothing was run\n", rep.reason);
	else if (rep.cls == WARDEN_CLASS_SANDBOX_ERROR)
		fprintf(stderr, "warden: run: sandbox-error: %s; the command did not run\n",
		        rep.reason);
	else if (rep.cls == WARDEN_CLASS_DENIED)
		print_denial(&rep, c.policy, &o);
	else if (rep.timed_out)
		fprintf(stderr, "warden: run: timed out after %.3g s; the command's process group was killed\n",
		        (double)o.timeout_ms / 1000.0);
	if (o.json)
		print_json(&rep, c.sr);
	ctx_free(&c);
	return status;
}
