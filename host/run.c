/*
 * run.c — the consumer; see run.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "approval.h"
#include "classify.h"
#include "env.h"
#include "inputs.h"
#include "policy.h"
#include "proxy.h"
#include "program.h"
#include "roots.h"
#include "run.h"
#include "sandbox.h"
#include "denyread.h"
#include "scratch.h"
#include "session.h"
#include "vocab.h"
#include "wjson.h"

extern char **environ;

/* Where the runner finds the write end of the out-of-band status channel. */
#define STATUS_FD 3

struct warden_consumer {
	const struct warden_config *cfg;
	struct warden_inputs *inputs;       /* collected on the first confined run */
	struct warden_sandbox *sandbox;     /* opened on the first confined run */
	struct warden_approval *approval;   /* made on the first escalation */
	/* warden_consumer_append_answerer(), registered when approval is made */
	const char *extra_name;
	warden_approval_decide_fn extra_fn;
	void *extra_ud;
	long extra_timeout_ms;
};

void warden_consumer_append_answerer(struct warden_consumer *c, const char *name,
                                     warden_approval_decide_fn fn, void *ud,
                                     long timeout_ms)
{
	c->extra_name = name;
	c->extra_fn = fn;
	c->extra_ud = ud;
	c->extra_timeout_ms = timeout_ms;
}

int warden_consumer_new(const struct warden_config *cfg,
                        struct warden_consumer **out,
                        struct warden_error *err)
{
	struct warden_consumer *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (c == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	c->cfg = cfg;
	*out = c;
	return 0;
}

int warden_consumer_prepare(struct warden_consumer *c, struct warden_error *err)
{
	int r;

	if (c->sandbox != NULL)
		return 0;
	if ((r = warden_sandbox_open(c->cfg, &c->sandbox, err)) < 0)
		return r;
	warden_sandbox_judge_all(c->sandbox);
	return 0;
}

void warden_consumer_disprove(struct warden_consumer *c, const char *backend,
                              int mode)
{
	if (c->sandbox != NULL)
		(void)warden_sandbox_reprove(c->sandbox, backend, mode);
}

void warden_consumer_free(struct warden_consumer *c)
{
	if (c == NULL)
		return;
	warden_sandbox_free(c->sandbox);
	warden_approval_free(c->approval);
	warden_inputs_free(c->inputs);
	free(c);
}

void warden_run_report_clear(struct warden_run_report *rep)
{
	free(rep->argv);
	warden_env_names_free(rep->env_removed, rep->n_env_removed);
	warden_env_names_free(rep->path_dropped, rep->n_path_dropped);
	warden_env_names_free(rep->env_config, rep->n_env_config);
	warden_skipped_free(rep->skipped, rep->n_skipped);
	free(rep->spawn);
	for (size_t i = 0; rep->network_refused != NULL && rep->network_refused[i] != NULL; i++)
		free(rep->network_refused[i]);
	free(rep->network_refused);
	json_decref(rep->roots);
	json_decref(rep->roots_notes);
	memset(rep, 0, sizeof(*rep));
}

/* -------------------------------------------------------------- helpers */

char *warden_run_subject(const char *const *argv, size_t argc)
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
 * caller's PATH, from the directory dirfd names (where the command will
 * start: a relative name or PATH entry means a path from there), so that "not found" and "not executable" are the
 * shell's 127 and 126 (checked before anything starts; the confined view
 * of the filesystem is the host's).  0, or WARDEN_RUN_NOT_FOUND / WARDEN_RUN_CANNOT_EXEC
 * with `why` filled.
 */
static int program_check(const char *name, int dirfd, char *why, size_t whylen)
{
	const char *path, *p, *colon;
	char full[PATH_MAX];
	struct stat st;
	int saw_noexec = 0;

	if (strchr(name, '/') != NULL) {
		if (fstatat(dirfd, name, &st, 0) < 0) {
			snprintf(why, whylen, "%s: %s", name, strerror(errno));
			return errno == EACCES ? WARDEN_RUN_CANNOT_EXEC : WARDEN_RUN_NOT_FOUND;
		}
		if (S_ISDIR(st.st_mode) || faccessat(dirfd, name, X_OK, 0) < 0) {
			snprintf(why, whylen, "%s: %s", name,
			         S_ISDIR(st.st_mode) ? "is a directory" : "permission denied (not executable)");
			return WARDEN_RUN_CANNOT_EXEC;
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
		    fstatat(dirfd, full, &st, 0) == 0 && !S_ISDIR(st.st_mode)) {
			if (faccessat(dirfd, full, X_OK, 0) == 0)
				return 0;
			saw_noexec = 1;
		}
		if (*colon == '\0')
			break;
	}
	if (saw_noexec) {
		snprintf(why, whylen, "%s: permission denied (not executable)", name);
		return WARDEN_RUN_CANNOT_EXEC;
	}
	snprintf(why, whylen, "%s: command not found in PATH", name);
	return WARDEN_RUN_NOT_FOUND;
}

/* ------------------------------------------------------------ escalation */

/* What an escalation asks for, in words: "MODE", "network enabled" or
 * "MODE with network enabled". */
static const char *escalation_words(const struct warden_run_request *req,
                                    char *buf, size_t len)
{
	if (req->escalate && req->escalate_network)
		snprintf(buf, len, "%s with network enabled",
		         warden_mode_name(req->escalate));
	else if (req->escalate)
		snprintf(buf, len, "%s", warden_mode_name(req->escalate));
	else
		snprintf(buf, len, "network enabled");
	return buf;
}

/*
 * Asks the approval service whether this command may run once under
 * `mode` (0: the session's) and with `network` (0: the session's): tool
 * bash, the command as subject, the justification as reason (DESIGN §3).
 * The service audits the request in the session's log and returns no
 * outcome when it cannot: the caller then refuses.
 */
static int ask_escalation(struct warden_consumer *c, struct warden_session *s,
                          int mode, int network, const char *subject,
                          const struct warden_run_request *run,
                          const struct warden_run_report *rep,
                          const struct warden_program *prog,
                          struct warden_approval_result *res,
                          struct warden_error *err)
{
	struct warden_approval_request req;
	int r;

	memset(&req, 0, sizeof(req));
	memset(res, 0, sizeof(*res));
	req.tool = "bash";
	req.subject = subject;
	req.call_id = run->call_id;
	req.reason = run->justification;
	req.requested_mode = mode ? warden_mode_name(mode) : NULL;
	req.requested_network = network ? warden_network_name(network) : NULL;
	req.argv = rep->argv;
	req.argc = rep->argc;
	req.program = prog;
	if (c->approval == NULL) {
		if ((r = warden_approval_new(c->cfg, &c->approval, err)) < 0)
			return r;
		if (c->extra_fn != NULL &&
		    (r = warden_approval_register(c->approval, WARDEN_APPROVAL_APPEND,
		                                  c->extra_name, c->extra_fn, c->extra_ud,
		                                  c->extra_timeout_ms, err)) < 0) {
			warden_approval_free(c->approval);
			c->approval = NULL;
			return r;
		}
	}
	return warden_approval_ask(c->approval, s, &req, res, err);
}

/* --------------------------------------------------------------- report */

static json_t *json_or_null(json_t *v)
{
	return v != NULL ? v : json_null();
}

static json_t *names_json(char **names, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, json_or_null(warden_json_string_lossy(names[i])));
	return json_or_null(a);
}

/* The network fields of the report. */
static void network_json(json_t *o, const struct warden_run_report *rep)
{
	json_object_set_new(o, "network", rep->network
	                    ? json_string(warden_network_name(rep->network)) : json_null());
	json_object_set_new(o, "network_source", rep->network_source
	                    ? json_string(warden_source_name(rep->network_source)) : json_null());
	json_object_set_new(o, "network_enforcement", rep->network_enforcement
	                    ? json_string(warden_enforcement_name(rep->network_enforcement))
	                    : json_null());
	json_object_set_new(o, "network_detail", rep->network_detail[0]
	                    ? json_or_null(warden_json_string_lossy(rep->network_detail))
	                    : json_null());
	if (rep->network == WARDEN_NETWORK_ALLOWLIST) {
		json_t *a = json_array();

		for (size_t i = 0; a != NULL && rep->network_refused != NULL &&
		                   rep->network_refused[i] != NULL; i++)
			json_array_append_new(a, json_string(rep->network_refused[i]));
		json_object_set_new(o, "network_refused", json_or_null(a));
	}
}

/* The report's fields, shared by the --json object and the event. */
json_t *warden_run_report_json(const struct warden_run_report *rep)
{
	json_t *o = json_object(), *args = json_array(), *skipped;
	size_t i;

	for (i = 0; i < rep->argc; i++)
		json_array_append_new(args, json_or_null(warden_json_string_lossy(rep->argv[i])));
	json_object_set_new(o, "class", rep->cls ? json_string(warden_class_name(rep->cls))
	                                         : json_null());
	json_object_set_new(o, "exit", rep->exit_code >= 0 ? json_integer(rep->exit_code)
	                                                    : json_null());
	json_object_set_new(o, "signal", rep->signal ? json_integer(rep->signal) : json_null());
	json_object_set_new(o, "mode", rep->mode ? json_string(warden_mode_name(rep->mode))
	                                         : json_null());
	json_object_set_new(o, "mode_source", rep->mode_source
	                    ? json_string(warden_source_name(rep->mode_source)) : json_null());
	json_object_set_new(o, "backend", rep->backend[0] ? json_or_null(warden_json_string_lossy(rep->backend))
	                                               : json_null());
	json_object_set_new(o, "enforcement", rep->enforcement
	                    ? json_string(warden_enforcement_name(rep->enforcement)) : json_null());
	json_object_set_new(o, "duration_ms", json_integer(rep->duration_ms));
	json_object_set_new(o, "timed_out", json_boolean(rep->timed_out));
	json_object_set_new(o, "timeout_ms", rep->timeout_ms > 0
	                    ? json_integer(rep->timeout_ms) : json_null());
	json_object_set_new(o, "started", json_boolean(rep->started));
	json_object_set_new(o, "argv", args);
	json_object_set_new(o, "cwd", rep->dir[0] ? json_or_null(warden_json_string_lossy(rep->dir))
	                                          : json_null());
	json_object_set_new(o, "detail", rep->detail[0] ? json_or_null(warden_json_string_lossy(rep->detail))
	                                                : json_null());
	json_object_set_new(o, "tmp_dir", rep->tmp_dir[0] ? json_or_null(warden_json_string_lossy(rep->tmp_dir))
	                                                  : json_null());
	json_object_set_new(o, "call_id", rep->call_id != NULL && rep->call_id[0]
	                    ? json_or_null(warden_json_string_lossy(rep->call_id)) : json_null());
	if (rep->escalated_mode || rep->escalated_network) {
		json_t *delegated = json_array();

		for (i = 0; i < rep->n_escalation_delegated &&
		            i < WARDEN_APPROVAL_DELEGATED_MAX; i++)
			json_array_append_new(delegated, json_or_null(
				warden_json_string_lossy(rep->escalation_delegated[i])));
		json_object_set_new(o, "escalation",
		                    json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o}",
		                              "mode", rep->escalated_mode
		                              ? json_string(warden_mode_name(rep->escalated_mode))
		                              : json_null(),
		                              "network", rep->escalated_network
		                              ? json_string(warden_network_name(rep->escalated_network))
		                              : json_null(),
		                              "outcome", rep->escalation_outcome
		                              ? json_string(warden_outcome_name(rep->escalation_outcome))
		                              : json_null(),
		                              "request_id", rep->request_id[0]
		                              ? json_string(rep->request_id) : json_null(),
		                              "answerer", rep->escalation_answerer[0]
		                              ? json_or_null(warden_json_string_lossy(rep->escalation_answerer))
		                              : json_null(),
		                              "reason", rep->escalation_reason[0]
		                              ? json_or_null(warden_json_string_lossy(rep->escalation_reason))
		                              : json_null(),
		                              "delegated", delegated,
		                              "program", rep->program[0]
		                              ? json_or_null(warden_json_string_lossy(rep->program))
		                              : json_null(),
		                              "program_writable", rep->program_writable,
		                              "env_removed", names_json(rep->env_removed,
		                                                        rep->n_env_removed),
		                              "path_dropped", names_json(rep->path_dropped,
		                                                         rep->n_path_dropped),
		                              "env_config", names_json(rep->env_config,
		                                                       rep->n_env_config)));
		if (rep->escalation_grant[0])
			json_object_set_new(json_object_get(o, "escalation"), "grant",
			                    json_pack("{s:s,s:s,s:b}", "id", rep->escalation_grant,
			                              "scope", rep->escalation_grant_scope,
			                              "new", rep->escalation_grant_new));
	}
	if (rep->refused != NULL)
		json_object_set_new(o, "refused", json_string(rep->refused));
	json_object_set_new(o, "root", rep->root[0]
	                    ? json_or_null(warden_json_string_lossy(rep->root)) : json_null());
	json_object_set_new(o, "roots", rep->roots != NULL ? json_incref(rep->roots)
	                                                   : json_array());
	if (rep->roots_notes != NULL && json_array_size(rep->roots_notes) > 0)
		json_object_set(o, "roots_notes", rep->roots_notes);
	skipped = json_array();
	for (i = 0; i < rep->n_skipped; i++)
		json_array_append_new(skipped, json_pack("{s:o,s:o}",
		        "backend", json_or_null(warden_json_string_lossy(rep->skipped[i].backend)),
		        "reason", json_or_null(warden_json_string_lossy(rep->skipped[i].reason))));
	json_object_set_new(o, "skipped", skipped);
	json_object_set_new(o, "denial", rep->denial[0]
	                    ? json_or_null(warden_json_string_lossy(rep->denial)) : json_null());
	json_object_set_new(o, "denied_path", rep->denied_path[0]
	                    ? json_or_null(warden_json_string_lossy(rep->denied_path)) : json_null());
	json_object_set_new(o, "reason", json_or_null(warden_json_string_lossy(rep->reason)));
	json_object_set_new(o, "escalate_to", warden_run_escalate_to(rep)
	                    ? json_string(warden_mode_name(warden_run_escalate_to(rep)))
	                    : json_null());
	network_json(o, rep);
	json_object_set_new(o, "network_denied", json_boolean(rep->network_denied));
	json_object_set_new(o, "escalate_network",
	                    json_boolean(warden_run_escalate_network(rep)));
	json_object_set_new(o, "network_denial", rep->network_denial[0]
	                    ? json_or_null(warden_json_string_lossy(rep->network_denial))
	                    : json_null());
	json_object_set_new(o, "hint", rep->hint[0]
	                    ? json_or_null(warden_json_string_lossy(rep->hint))
	                    : json_null());
	return o;
}


int warden_run_next_mode(int mode)
{
	return mode == WARDEN_SANDBOX_READ_ONLY ? WARDEN_SANDBOX_WORKSPACE_WRITE
	                                        : WARDEN_SANDBOX_DANGER_FULL_ACCESS;
}

int warden_run_escalate_to(const struct warden_run_report *rep)
{
	if (rep->cls != WARDEN_CLASS_DENIED || rep->policy == WARDEN_POLICY_NEVER ||
	    rep->mode == 0 || rep->mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS ||
	    (rep->network_denied && !rep->file_denied))
		return 0;
	/* deny_read holds in every confining mode: only the unconfined one
	 * reads it. */
	if (rep->read_denied)
		return WARDEN_SANDBOX_DANGER_FULL_ACCESS;
	return warden_run_next_mode(rep->mode);
}

int warden_run_escalate_network(const struct warden_run_report *rep)
{
	return rep->cls == WARDEN_CLASS_DENIED && rep->network_denied &&
	       rep->policy != WARDEN_POLICY_NEVER;
}

/* Is path (lexically normal, absolute) root or below it? */
static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * The first path the denied stderr line names: a word that starts with
 * '/', or a quoted one ('...', "...", `...', or GNU's U+2018...U+2019),
 * quotes removed, a relative one taken from the command's directory; an
 * unquoted path ends at ": " or the end of the line.  0 with out filled
 * (lexically normal), or -1 when the line names none.
 */
int warden_run_denied_path(const char *line, char out[PATH_MAX])
{
	char cwd[PATH_MAX];

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';
	return warden_run_denied_path_in(line, cwd, out);
}

int warden_run_denied_path_in(const char *line, const char *dir,
                              char out[PATH_MAX])
{
	static const char lq[] = "\xe2\x80\x98", rq[] = "\xe2\x80\x99";
	char buf[PATH_MAX];
	const char *p, *start = NULL, *end;
	const char *close = NULL;

	for (p = line; *p != '\0'; p++) {
		int word = p == line || p[-1] == ' ';

		if (word && strncmp(p, lq, 3) == 0) {
			start = p + 3;
			close = rq;
			break;
		}
		if (word && (*p == '\'' || *p == '"' || *p == '`')) {
			start = p + 1;
			close = *p == '"' ? "\"" : "'";
			break;
		}
		if (word && *p == '/') {
			start = p;
			break;
		}
	}
	if (start == NULL)
		return -1;
	if (close != NULL)
		end = strstr(start, close);
	else
		for (end = start; *end != '\0' && !(*end == ':' &&
		     (end[1] == ' ' || end[1] == '\0')); end++)
			;
	if (end == NULL || end == start || (size_t)(end - start) >= sizeof(buf))
		return -1;
	if (*start != '/') {
		size_t c;

		if (dir == NULL || dir[0] != '/' ||
		    (c = strlen(dir)) + 1 + (size_t)(end - start) >= sizeof(buf))
			return -1;
		memcpy(buf, dir, c);
		buf[c] = '/';
		memcpy(buf + c + 1, start, (size_t)(end - start));
		buf[c + 1 + (size_t)(end - start)] = '\0';
	} else {
		memcpy(buf, start, (size_t)(end - start));
		buf[end - start] = '\0';
	}
	return warden_path_normalise(buf, out, NULL) < 0 ? -1 : 0;
}

/* Says what a denied run had refused: the path its stderr named and where
 * that lies; without a path, the backend's own words when it gave them. */
/* The writable root of cf, other than the workspace root and its temp
 * area, that path lies in, or NULL. */
static const char *root_of(const struct warden_confined *cf, const char *path)
{
	size_t i;

	for (i = 0; cf != NULL && i < cf->n_writable_roots; i++)
		if (strcmp(cf->writable_roots[i], "/tmp") != 0 &&
		    under(path, cf->writable_roots[i]))
			return cf->writable_roots[i];
	return NULL;
}

static void describe_denial(struct warden_run_report *rep,
                            const struct warden_confined *cf,
                            const char *line)
{
	size_t n = sizeof(rep->denial);
	const char *other;

	if (warden_run_denied_path_in(line, rep->dir, rep->denied_path) < 0)
		rep->denied_path[0] = '\0';
	if (rep->denied_path[0] == '\0' && cf != NULL && cf->denial_message[0])
		snprintf(rep->denial, n, "%s", cf->denial_message);
	else if (rep->denied_path[0] == '\0')
		snprintf(rep->denial, n, "%s",
		         rep->mode == WARDEN_SANDBOX_READ_ONLY
		         ? "a write was refused (read-only allows none)"
		         : "a write was refused");
	else if (rep->mode == WARDEN_SANDBOX_READ_ONLY)
		snprintf(rep->denial, n,
		         "a write to %.300s was refused (read-only allows none)",
		         rep->denied_path);
	else if (rep->tmp_dir[0] != '\0' && under(rep->denied_path, "/tmp") &&
	         !under(rep->denied_path, rep->tmp_dir) &&
	         !under(rep->denied_path, rep->root))
		snprintf(rep->denial, n,
		         "a write to %.250s, outside the workspace root %.250s, was refused: /tmp is the host's and read-only inside; write temporary files in $TMPDIR (%.200s), which %s; a directory the session needs to write: warden roots add DIR",
		         rep->denied_path, rep->root, rep->tmp_dir,
		         rep->session[0] ? "this session keeps across its runs"
		                         : "lasts as long as this run (a session keeps one across its runs)");
	else if (under(rep->denied_path, rep->root))
		snprintf(rep->denial, n,
		         "a write to %.300s was refused: a read-only path inside the workspace root (a protected path, or one the backend keeps read-only)",
		         rep->denied_path);
	else if ((other = root_of(cf, rep->denied_path)) != NULL)
		snprintf(rep->denial, n,
		         "a write to %.300s was refused: a read-only path inside the writable root %.300s (a protected path such as a git directory's hooks or config, or one the backend keeps read-only)",
		         rep->denied_path, other);
	else
		snprintf(rep->denial, n,
		         "a write to %.300s, outside the workspace root %.300s%s, was refused (a directory the session needs to write: warden roots add DIR)",
		         rep->denied_path, rep->root,
		         cf != NULL && cf->n_writable_roots > 2 ? " and the roots beside it" : "");
}

/* Says what a run refused by deny_read had asked for, and the narrowest
 * way to it. */
static void describe_read_denial(const struct warden_deny *deny,
                                 const char *config_file,
                                 struct warden_run_report *rep)
{
	const char *pattern = warden_deny_covers(deny, rep->denied_path, NULL);

	snprintf(rep->denial, sizeof(rep->denial),
	         "%.300s is kept unread in every confining mode: it matches deny_read = %.200s (%.300s); if the command needs it, take that pattern out of the config (a built-in one with deny_read_defaults = false, listing the rest again)",
	         rep->denied_path, pattern != NULL ? pattern : "?", config_file);
}

/* Whether the network line is the file denial's own and names a path
 * that exists and is no socket: a refused write, whatever the words. */
static int names_a_file(const struct warden_run_report *rep,
                        const struct warden_classification *cl)
{
	struct stat st;

	return cl->cls == WARDEN_CLASS_DENIED &&
	       strcmp(cl->denied_line, rep->network_denial) == 0 &&
	       rep->denied_path[0] != '\0' &&
	       lstat(rep->denied_path, &st) == 0 && !S_ISSOCK(st.st_mode);
}

/* Whether path lies where this confinement lets the command write: a
 * writable root (its temp area for "/tmp" when it has one). */
static int writable_here(const struct warden_run_report *rep,
                         const struct warden_confined *cf, const char *path)
{
	size_t i;

	if (rep->tmp_dir[0] != '\0' && under(path, rep->tmp_dir))
		return 1;
	for (i = 0; cf != NULL && i < cf->n_writable_roots; i++) {
		if (strcmp(cf->writable_roots[i], "/tmp") == 0 && rep->tmp_dir[0] != '\0')
			continue;
		if (under(path, cf->writable_roots[i]))
			return 1;
	}
	return 0;
}

/* The path of a "PROG: ...: PATH: ERROR" line, as shells and coreutils
 * print a relative one without quotes: the field before the last ": ",
 * taken from dir.  0, or -1 when there is none. */
static int field_path(const char *line, const char *dir, char out[PATH_MAX])
{
	const char *end = NULL, *p, *start;
	char buf[PATH_MAX];

	for (p = strstr(line, ": "); p != NULL; p = strstr(p + 2, ": "))
		end = p;
	if (end == NULL)
		return -1;
	for (start = end; start > line && !(start[-1] == ' ' && start - 1 > line &&
	                                    start[-2] == ':'); start--)
		;
	if (memchr(start, ' ', (size_t)(end - start)) != NULL)
		return -1;
	if (end == start || (size_t)(end - start) + 3 >= sizeof(buf) ||
	    memchr(start, '\'', (size_t)(end - start)) != NULL)
		return -1;
	/* Quoted, as warden_run_denied_path_in() takes a relative one. */
	buf[0] = '\'';
	memcpy(buf + 1, start, (size_t)(end - start));
	buf[end - start + 1] = '\'';
	buf[end - start + 2] = '\0';
	return warden_run_denied_path_in(buf, dir, out) < 0 || out[0] != '/' ? -1 : 0;
}

/*
 * The evidence a refused write in stderr needs beyond its words: the
 * path the line names lies outside every writable root of the
 * confinement, and the host's kernel would have let warden's user make
 * that write (its directory exists, its file system is not read-only
 * itself, access(2) allows it): then the sandbox is what refused it.  1,
 * or 0 with why in `why`.
 */
static int file_denial_evidence(const struct warden_run_report *rep,
                                const struct warden_confined *cf,
                                const char *line, char *path,
                                char *why, size_t whylen)
{
	char dir[PATH_MAX], *slash;
	const char *probe;
	struct statvfs vfs;
	struct stat st;

	if ((warden_run_denied_path_in(line, rep->dir, path) < 0 || path[0] != '/') &&
	    field_path(line, rep->dir, path) < 0) {
		path[0] = '\0';
		snprintf(why, whylen, "the line names no path");
		return 0;
	}
	if (writable_here(rep, cf, path)) {
		snprintf(why, whylen, "%.300s lies where the sandbox lets the command write",
		         path);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	if (lstat(path, &st) == 0)
		probe = path;
	else if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		probe = dir;
	else {
		snprintf(why, whylen, "%.300s does not exist on the host: no write there could have been made",
		         dir);
		return 0;
	}
	if (statvfs(probe, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		snprintf(why, whylen, "the host's own file system at %.300s is read-only",
		         probe);
		return 0;
	}
	if (!S_ISLNK(st.st_mode) && faccessat(AT_FDCWD, probe, W_OK, AT_EACCESS) < 0 &&
	    errno != ENOENT) {
		snprintf(why, whylen, "the host refuses the write to %.300s too (%s)",
		         probe, strerror(errno));
		return 0;
	}
	return 1;
}

/* Whether a TCP socket of the host's network namespace listens on port
 * (/proc/net/tcp and tcp6): the service a refused connection was for
 * exists, so the restricted network is what kept the command from it. */
static int host_listens(int port, void *arg)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	char buf[512];
	size_t i;

	(void)arg;
	for (i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "re");

		if (f == NULL)
			continue;
		while (fgets(buf, sizeof(buf), f) != NULL) {
			char local[128], remote[128];
			unsigned st;
			char *colon;

			if (sscanf(buf, " %*s %127s %127s %x", local, remote, &st) != 3 ||
			    st != 0x0A || (colon = strrchr(local, ':')) == NULL)
				continue;
			if (strtol(colon + 1, NULL, 16) == port) {
				fclose(f);
				return 1;
			}
		}
		fclose(f);
	}
	return 0;
}

/* The exit status of a run that started. */
static int run_status(const struct warden_run_report *rep,
                      const struct warden_spawn_result *sr)
{
	if (rep->cls == WARDEN_CLASS_SANDBOX_ERROR)
		return WARDEN_RUN_SANDBOX_ERROR;
	if (sr->timed_out)
		return WARDEN_RUN_TIMEOUT;
	if (WIFSIGNALED(sr->wait_status))
		return 128 + WTERMSIG(sr->wait_status);
	if (WIFEXITED(sr->wait_status))
		return WEXITSTATUS(sr->wait_status);
	return WARDEN_EINTERNAL;
}

/* ------------------------------------------------------------------ run */

/* One run's working state. */
struct run_ctx {
	struct warden_consumer *c;
	const struct warden_run_request *req;
	struct warden_session *session;
	struct warden_confined *confined;
	const char **patterns;
	size_t n_patterns;
	char **envp;
	char *const *confined_env; /* what confine() built: envp, or prog's */
	uint64_t start_seq;         /* the start event's seq, 0 when none */
	int root_fd;                /* the checked root (O_PATH), or -1 */
	struct warden_roots roots;  /* the writable roots beside it (roots.h) */
	int prexec_failed;      /* the last spawn's runner failed before exec */
	size_t quiet_skips;     /* skips already announced (a retry) */
	char *pwd_entry;            /* "PWD=DIR" of an unapproved run */
	struct warden_program prog; /* the directory; for an escalation, the
	                               program and environment asked about */
	int approved;               /* prog describes what runs */
	struct warden_scratch scratch; /* the command's temp area (scratch.h) */
	int scratch_tried;          /* scratch opened, or found impossible */
	long timeout_ms;            /* the request's, else the config's
	                               default_timeout or max_timeout; 0: none */
	char *tmp_entry;            /* "TMPDIR=AREA" of a workspace-write run */
	struct warden_deny deny;    /* what deny_read hides from this run */
	char void_file[PATH_MAX];   /* what a backend binds over it */
	char void_dir[PATH_MAX];
	struct warden_proxy *proxy; /* the allowlist network's, while it runs */
	struct warden_proxy_opts proxy_opts;
	char **proxy_envp;          /* confined_env with the proxy's variables */
	char *proxy_env[WARDEN_PROXY_ENV_N];
};

/* Stops the run's proxy; what it refused goes into the report. */
static void proxy_stop(struct run_ctx *x, struct warden_run_report *rep)
{
	char **refused = NULL;
	size_t i, n = 0, k;

	if (x->proxy == NULL)
		return;
	warden_proxy_stop(x->proxy, &refused);
	x->proxy = NULL;
	if (refused == NULL)
		return;
	for (i = 0; rep->network_refused != NULL && rep->network_refused[i] != NULL; i++)
		n++;
	for (i = 0; refused[i] != NULL; i++) {
		char **grown;

		for (k = 0; k < n && strcmp(rep->network_refused[k], refused[i]) != 0; k++)
			;
		if (k < n || n >= WARDEN_PROXY_REFUSED_MAX ||
		    (grown = realloc(rep->network_refused, (n + 2) * sizeof(*grown))) == NULL) {
			free(refused[i]);
			continue;
		}
		rep->network_refused = grown;
		grown[n++] = refused[i];
		grown[n] = NULL;
	}
	free(refused);
}

/*
 * The start of a run, in the session's log before anything is spawned: a
 * sandbox/run event with "phase": "start" and what the run is about to be
 * (argv, directory, call id, mode and where it came from, root, backend,
 * enforcement, the network, where it came from and how it is held, the
 * backends passed over, the escalation that allowed it, the timeout).  A
 * run killed with warden is then still in the log.  0, or a negative
 * status: nothing may run when its start cannot be recorded.
 */
static int record_start(struct run_ctx *x, const struct warden_run_report *rep,
                        struct warden_error *err)
{
	json_t *full, *o;
	static const char *const keep[] = {
		"argv", "cwd", "call_id", "mode", "mode_source", "backend",
		"enforcement", "root", "roots", "roots_notes", "skipped",
		"escalation", "network", "network_source", "network_enforcement",
	};
	size_t i;
	int r;

	if (x->session == NULL)
		return 0;
	full = warden_run_report_json(rep);
	o = json_object();
	if (full == NULL || o == NULL) {
		json_decref(full);
		json_decref(o);
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	}
	json_object_set_new(o, "phase", json_string("start"));
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		json_t *v = json_object_get(full, keep[i]);

		if (v != NULL)
			json_object_set(o, keep[i], v);
	}
	json_object_set_new(o, "timeout_ms", x->timeout_ms > 0
	                    ? json_integer(x->timeout_ms) : json_null());
	json_decref(full);
	r = warden_session_append(x->session, "sandbox/run", o, err);
	json_decref(o);
	if (r < 0) {
		char why[WARDEN_ERROR_MAX];

		snprintf(why, sizeof(why), "%s", err->msg);
		return warden_error_set(err, -r,
		                        "run: the start of the run could not be recorded in session %s, so nothing ran: %s",
		                        warden_session_id(x->session), why);
	}
	x->start_seq = warden_session_last_seq(x->session);
	return 0;
}

static void ctx_free(struct run_ctx *x)
{
	if (x->root_fd >= 0)
		close(x->root_fd);
	warden_roots_free(&x->roots);
	warden_confined_free(x->confined);
	warden_session_close(x->session);
	free(x->patterns);
	free(x->envp);
	free(x->pwd_entry);
	free(x->tmp_entry);
	warden_program_free(&x->prog);
	warden_deny_free(&x->deny);
	if (x->proxy != NULL)
		warden_proxy_stop(x->proxy, NULL);
	free(x->proxy_envp);
	for (size_t i = 0; i < WARDEN_PROXY_ENV_N; i++)
		free(x->proxy_env[i]);
	/* After the confined run's end: nothing of it writes there now. */
	warden_scratch_close(&x->scratch);
}

/* The environment the command gets: for an escalation what the answerer
 * was shown; else the caller's, without what the config removes (with
 * the loader's variables too when a runner confines it), with PWD set.
 * Built afresh by each confine() and each unconfined spawn. */
static int command_env(struct run_ctx *x, int confined, char *const **envp,
                       struct warden_error *err)
{
	int r;

	if (x->approved) {
		*envp = x->prog.envp;
		return 0;
	}
	free(x->envp);
	free(x->pwd_entry);
	x->envp = NULL;
	x->pwd_entry = NULL;
	if ((r = warden_env_build(environ, x->patterns, x->n_patterns,
	                          confined, &x->envp, err)) < 0)
		return r;
	x->pwd_entry = malloc(strlen(x->prog.dir) + 5);
	if (x->pwd_entry == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	sprintf(x->pwd_entry, "PWD=%s", x->prog.dir);
	if ((r = warden_env_set(&x->envp, x->pwd_entry, err)) < 0)
		return r;
	if (confined && x->tmp_entry != NULL &&
	    (r = warden_env_set(&x->envp, x->tmp_entry, err)) < 0)
		return r;
	*envp = x->envp;
	return 0;
}

/* Spawns argv (the command, or the confined replacement) and classifies. */
static int spawn_and_classify(struct run_ctx *x, struct warden_run_report *rep,
                              struct warden_error *err)
{
	const struct warden_confined *cf = x->confined;
	struct warden_spawn_opts so;
	struct warden_classify_facts facts;
	struct warden_run_facts run;
	struct warden_classification cl;
	struct warden_spawn_result *sr;
	int exec = WARDEN_EXEC_UNKNOWN, r, port;
	char why[256], secret[PATH_MAX], line[512], nowhy[400], sigline[512];

	memset(&so, 0, sizeof(so));
	if (x->approved && cf == NULL) {
		/* Without a runner the very file the answerer was shown, by
		 * descriptor. */
		so.exec_fd = x->prog.exec_fd;
		so.exec_keep = x->prog.script;
	}
	if (cf != NULL)
		/* Built in confine(): the backend's, or the one it was given. */
		so.envp = cf->envp != NULL ? cf->envp : x->confined_env;
	else if ((r = command_env(x, 0, &so.envp, err)) < 0)
		return r;
	if (cf != NULL)
		so.flags = cf->spawn_flags;
	so.argv = cf != NULL ? (const char *const *)cf->argv : rep->argv;
	so.status_fd = cf != NULL ? cf->status_fd : -1;
	so.status_copy_at = cf != NULL ? cf->status_copy_at : -1;
	if (cf != NULL) {
		so.pass_fds = cf->held_fds;
		so.pass_at = cf->held_at;
		so.n_pass = cf->n_held;
	}
	so.cwd_fd = x->prog.dir_fd;
	so.timeout_ms = x->timeout_ms;
	so.pipe_stdout = x->req->pipe_stdout;
	/* A runner that fails before exec says nothing on stderr until the
	 * host knows whether the run is retried (see run_flow). */
	so.gate_token = cf != NULL && cf->evidence == WARDEN_EVIDENCE_EXEC_PIPE
	                ? WARDEN_EXEC_PIPE_STARTED : NULL;
	x->prexec_failed = 0;
	rep->hint[0] = '\0';
	rep->network_denial[0] = '\0';
	sr = rep->spawn = calloc(1, sizeof(*rep->spawn));
	if (sr == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	if ((r = record_start(x, rep, err)) < 0)
		return r;
	r = warden_spawn_run(&so, sr, err);
	/* Reaped, or never started: what the backend held for the run
	 * (a lock, the pins to remove) is released now, the pins only when
	 * nothing of the run can still be running. */
	warden_confined_finish(x->confined, r < 0 || sr->all_ended);
	/* Its connections end with it, each logged. */
	proxy_stop(x, rep);
	if (r < 0)
		return r;

	rep->duration_ms = sr->duration_ms;
	rep->timed_out = sr->timed_out;
	if (sr->exec_errno != 0) {
		/* Nothing ran: the program (or the runner) could not be
		 * executed. */
		rep->started = 0;
		if (cf != NULL) {
			x->prexec_failed = 1;
			rep->cls = WARDEN_CLASS_SANDBOX_ERROR;
			rep->status = WARDEN_RUN_SANDBOX_ERROR;
			snprintf(rep->reason, sizeof(rep->reason),
			         "the sandbox runner %s could not be executed: %s",
			         cf->argv[0], strerror(sr->exec_errno));
		} else {
			rep->status = sr->exec_errno == ENOENT ? WARDEN_RUN_NOT_FOUND
			                                       : WARDEN_RUN_CANNOT_EXEC;
			rep->refused = rep->status == WARDEN_RUN_NOT_FOUND ? "not-found"
			                                                   : "cannot-execute";
			snprintf(rep->reason, sizeof(rep->reason), "%s: %s", rep->argv[0],
			         strerror(sr->exec_errno));
		}
		return 0;
	}
	rep->started = 1;
	if (cf != NULL && cf->evidence == WARDEN_EVIDENCE_BWRAP_JSON &&
	    WIFEXITED(sr->wait_status)) {
		int sig = warden_evidence_signal(sr->evidence, sr->evidence_len);

		/* bwrap's process 1 said 128+N; the launcher inside saw the
		 * signal: reported as every backend reports one. */
		if (sig > 0 && WEXITSTATUS(sr->wait_status) == 128 + sig)
			sr->wait_status = sig;
	}
	if (WIFEXITED(sr->wait_status))
		rep->exit_code = WEXITSTATUS(sr->wait_status);
	else if (WIFSIGNALED(sr->wait_status))
		rep->signal = WTERMSIG(sr->wait_status);

	why[0] = '\0';
	memset(&facts, 0, sizeof(facts));
	if (cf != NULL) {
		warden_evidence_parse(cf->evidence, sr->evidence, sr->evidence_len,
		                      sr->wait_status, &exec, why, sizeof(why));
		facts = warden_confined_facts(cf);
	}
	run.wait_status = sr->wait_status;
	run.stderr_tail = sr->tail;
	run.stderr_len = sr->tail_len;
	run.exec_evidence = exec;
	warden_classify(&facts, &run, &cl);
	x->prexec_failed = cf != NULL && exec == WARDEN_EXEC_NOT_HAPPENED;
	rep->cls = cl.cls;
	/* A runner that failed before exec never started the command. */
	if (cl.cls == WARDEN_CLASS_SANDBOX_ERROR)
		rep->started = 0;
	snprintf(sigline, sizeof(sigline), "%s", cl.denied_line);
	if ((cl.cls == WARDEN_CLASS_FAILED || cl.cls == WARDEN_CLASS_DENIED) &&
	    cf != NULL && x->deny.n > 0 &&
	    warden_classify_held_refusal(sr->tail, sr->tail_len, rep->dir,
	                                 (const char *const *)x->deny.paths,
	                                 x->deny.n, secret, line, sizeof(line))) {
		/* A secret deny_read hides: refused by the sandbox, whatever
		 * the backend's signatures say. */
		snprintf(rep->denied_path, sizeof(rep->denied_path), "%s", secret);
		snprintf(cl.denied_line, sizeof(cl.denied_line), "%s", line);
		rep->cls = cl.cls = WARDEN_CLASS_DENIED;
		rep->file_denied = 1;
		rep->read_denied = 1;
		snprintf(cl.reason, sizeof(cl.reason),
		         "a refused access to a path deny_read hides in stderr");
		describe_read_denial(&x->deny, x->c->cfg->file, rep);
	} else if (cl.cls == WARDEN_CLASS_DENIED &&
	           file_denial_evidence(rep, cf, cl.denied_line, rep->denied_path,
	                                nowhy, sizeof(nowhy))) {
		describe_denial(rep, cf, cl.denied_line);
		rep->file_denied = 1;
	} else if ((cl.cls == WARDEN_CLASS_FAILED || cl.cls == WARDEN_CLASS_DENIED) &&
	           cf != NULL &&
	           warden_classify_held_refusal(sr->tail, sr->tail_len, rep->dir,
	                                        (const char *const *)cf->held_paths,
	                                        cf->n_held_paths, rep->denied_path,
	                                        cl.denied_line,
	                                        sizeof(cl.denied_line))) {
		/* EBUSY on a pinned path, EACCES: not the backend's words,
		 * but a path the confinement holds. */
		int signed_ = cl.cls == WARDEN_CLASS_DENIED;

		rep->cls = cl.cls = WARDEN_CLASS_DENIED;
		rep->file_denied = 1;
		snprintf(cl.reason, sizeof(cl.reason),
		         "a refused write to a path the sandbox keeps read-only in stderr");
		if (signed_)
			/* The backend's own words named it: say it as ever. */
			describe_denial(rep, cf, cl.denied_line);
		else
			snprintf(rep->denial, sizeof(rep->denial),
			         "a write to %.300s was refused: a protected path inside the workspace root, kept read-only so that nothing planted there runs later outside the sandbox",
			         rep->denied_path);
	} else if (cl.cls == WARDEN_CLASS_DENIED) {
		/* The backend's words, and nothing behind them: the command's
		 * own failure, with a hint. */
		snprintf(rep->hint, sizeof(rep->hint),
		         "stderr reads like a write the sandbox refused (%.200s), but nothing shows that it did: %.300s",
		         sigline, nowhy);
		rep->denied_path[0] = '\0';
		rep->cls = cl.cls = WARDEN_CLASS_FAILED;
		snprintf(cl.reason, sizeof(cl.reason),
		         "a denial signature in stderr without evidence (%.150s)", nowhy);
	}
	if (cf != NULL && rep->network == WARDEN_NETWORK_ALLOWLIST &&
	    rep->network_refused != NULL && rep->network_refused[0] != NULL &&
	    (cl.cls == WARDEN_CLASS_FAILED || cl.cls == WARDEN_CLASS_DENIED) &&
	    !rep->file_denied) {
		/* The proxy refused a destination and the command failed. */
		const char *d = rep->network_refused[0];
		size_t hl = strcspn(d[0] == '[' ? d + 1 : d, d[0] == '[' ? "]" : ":");

		rep->network_denied = 1;
		rep->cls = WARDEN_CLASS_DENIED;
		snprintf(rep->network_denial, sizeof(rep->network_denial),
		         "warden's proxy refused %.300s", d);
		snprintf(rep->denial, sizeof(rep->denial),
		         "a connection to %.300s was refused by the allowlist network: add %.*s to [warden] allowed_domains, or ask for the whole network once with --escalate-network",
		         d, (int)(hl > 255 ? 255 : hl), d[0] == '[' ? d + 1 : d);
		snprintf(cl.reason, sizeof(cl.reason), "a destination refused by the allowlist proxy");
	}
	port = 0;
	if (cf != NULL && rep->network == WARDEN_NETWORK_RESTRICTED &&
	    (cl.cls == WARDEN_CLASS_FAILED || cl.cls == WARDEN_CLASS_DENIED) &&
	    !warden_classify_network_guard(sr->tail, sr->tail_len,
	                                   rep->network_denial,
	                                   sizeof(rep->network_denial)) &&
	    warden_classify_network_denied(sr->tail, sr->tail_len, line,
	                                   sizeof(line))) {
		/* Words alone (a refused connection, an unreachable network, a
		 * lookup): evidence only when a host service listens on the
		 * port they name, which the restricted network kept away. */
		port = warden_classify_network_port(sr->tail, sr->tail_len,
		                                    host_listens, NULL,
		                                    rep->network_denial,
		                                    sizeof(rep->network_denial));
		if (port == 0 && cl.cls == WARDEN_CLASS_FAILED && rep->hint[0] == '\0')
			snprintf(rep->hint, sizeof(rep->hint),
			         "stderr reads like a refused connection or lookup (%.250s) and the network is restricted, but nothing shows that the sandbox refused it (a server that is down says the same); if the command needs the network, ask with --escalate-network",
			         line);
	}
	if (rep->network == WARDEN_NETWORK_RESTRICTED &&
	    rep->network_denial[0] != '\0' && !names_a_file(rep, &cl)) {
		/* The restricted network refused it: a denial the agent can
		 * ask past with --escalate-network.  When the line a file
		 * denial signature matched is this one, it was never a file
		 * (unless it names a path that exists and is no socket). */
		rep->network_denied = 1;
		rep->cls = WARDEN_CLASS_DENIED;
		rep->hint[0] = '\0';
		if (cl.cls != WARDEN_CLASS_DENIED ||
		    strcmp(cl.denied_line, rep->network_denial) == 0) {
			rep->file_denied = 0;
			rep->denied_path[0] = '\0';
			snprintf(rep->denial, sizeof(rep->denial),
			         "a connection was refused: the network is restricted (no TCP, UDP or host socket)");
			if (port > 0)
				snprintf(cl.reason, sizeof(cl.reason),
				         "a refused connection in stderr to port %d, where a host service listens",
				         port);
			else
				snprintf(cl.reason, sizeof(cl.reason),
				         "the network guard's refusal in stderr");
		}
	}
	snprintf(rep->reason, sizeof(rep->reason), "%s%s%s", cl.reason,
	         why[0] ? ": " : "", why);
	rep->status = run_status(rep, sr);
	return 0;
}

/* Appends the report as a sandbox/run event (with a session); a failure
 * makes the run's status 74 and says why in rep->record_error. */
static void record(struct run_ctx *x, struct warden_run_report *rep)
{
	struct warden_error err = { 0, "" };
	json_t *fields;
	int r = -WARDEN_EOS;

	if (x->session == NULL)
		return;
	fields = warden_run_report_json(rep);
	if (fields != NULL) {
		json_object_set_new(fields, "status", json_integer(rep->status));
		json_object_set_new(fields, "phase", json_string("end"));
		json_object_set_new(fields, "start_seq", x->start_seq
		                    ? json_integer((json_int_t)x->start_seq) : json_null());
		r = warden_session_append(x->session, "sandbox/run", fields, &err);
		json_decref(fields);
	} else {
		warden_error_set(&err, WARDEN_EOS, "out of memory");
	}
	if (r < 0) {
		snprintf(rep->record_error, sizeof(rep->record_error), "%s", err.msg);
		rep->status = WARDEN_EIO;
	}
}

/* The command's argv: SHELL -c COMMAND, or the request's argv. */
static int build_argv(struct run_ctx *x, struct warden_run_report *rep,
                      struct warden_error *err)
{
	const struct warden_run_request *req = x->req;

	if (req->command != NULL) {
		rep->argv = calloc(4, sizeof(*rep->argv));
		if (rep->argv == NULL)
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		rep->argv[0] = x->c->cfg->shell != NULL ? x->c->cfg->shell : "bash";
		rep->argv[1] = "-c";
		rep->argv[2] = req->command;
		rep->argc = 3;
		return 0;
	}
	if (req->argv == NULL || req->argc == 0 || req->argv[0] == NULL ||
	    req->argv[0][0] == '\0')
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: no command: give a shell command or an argv whose program name is not empty");
	rep->argv = calloc(req->argc + 1, sizeof(*rep->argv));
	if (rep->argv == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	memcpy(rep->argv, req->argv, req->argc * sizeof(*rep->argv));
	rep->argc = req->argc;
	return 0;
}

/*
 * Before an escalation is asked about: the environment and the program it
 * would run (host/program.h), with the session's root, the roots
 * beside it and the temp areas as the writable roots.  0 when described; a WARDEN_RUN_NOT_FOUND / _CANNOT_EXEC status
 * with why; 0 with rep refused when it cannot run safely; or a negative
 * status.
 */
static int describe(struct run_ctx *x, struct warden_run_report *rep,
                    const char *root, char *why, size_t whylen,
                    struct warden_error *err)
{
	const char *roots[WARDEN_ROOTS_ALL + 2];
	char temp[PATH_MAX], what[128];
	size_t i, n = 0;
	int r;

	roots[n++] = root;
	for (i = 0; i < x->roots.n; i++)
		roots[n++] = x->roots.path[i];
	warden_scratch_parent(temp);
	roots[n++] = temp;

	r = warden_program_env(&x->prog, environ, x->patterns, x->n_patterns,
	                       roots, n, err);
	if (r == 0)
		r = warden_program_open(&x->prog, rep->argv[0], roots, n, why,
		                        whylen, err);
	if (r == -WARDEN_EREFUSED) {
		rep->status = WARDEN_EREFUSED;
		rep->refused = "escalation";
		snprintf(rep->reason, sizeof(rep->reason),
		         "escalation to %s was not asked: %s",
		         escalation_words(x->req, what, sizeof(what)), err->msg);
		warden_error_clear(err);
		return 0;
	}
	return r;
}

/* Step 3: fills rep and returns 1 when the escalation was allowed once, 0
 * when it was refused (rep says why), or a negative status. */
static int escalate(struct run_ctx *x, struct warden_run_report *rep,
                    struct warden_error *err)
{
	const struct warden_run_request *req = x->req;
	struct warden_approval_result ares;
	char *subject, who[768], what[128];
	int r;

	escalation_words(req, what, sizeof(what));
	if (x->session == NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: %s needs a session (--session ID or WARDEN_SESSION): the approval is recorded in its log",
		                        req->escalate ? "--escalate" : "--escalate-network");
	subject = req->command != NULL ? strdup(req->command)
	                               : warden_run_subject(rep->argv, rep->argc);
	if (subject == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	r = ask_escalation(x->c, x->session, req->escalate,
	                   req->escalate_network ? WARDEN_NETWORK_ENABLED : 0,
	                   subject, req, rep, &x->prog, &ares, err);
	free(subject);
	rep->escalated_mode = req->escalate;
	rep->escalated_network = req->escalate_network ? WARDEN_NETWORK_ENABLED : 0;
	/* The report keeps what the answerer was shown. */
	snprintf(rep->program, sizeof(rep->program), "%s", x->prog.path);
	rep->program_writable = x->prog.writable;
	rep->env_removed = x->prog.env_removed;
	rep->n_env_removed = x->prog.n_env_removed;
	rep->path_dropped = x->prog.path_dropped;
	rep->n_path_dropped = x->prog.n_path_dropped;
	rep->env_config = x->prog.env_config;
	rep->n_env_config = x->prog.n_env_config;
	x->prog.env_removed = x->prog.path_dropped = x->prog.env_config = NULL;
	x->prog.n_env_removed = x->prog.n_path_dropped = x->prog.n_env_config = 0;
	if (r < 0) {
		/* No outcome: the request could not be asked or audited. */
		rep->status = -r;
		rep->refused = "escalation";
		snprintf(rep->reason, sizeof(rep->reason),
		         "escalation to %s could not be asked: %s",
		         what, err->msg);
		warden_error_clear(err);
		return 0;
	}
	rep->escalation_outcome = ares.outcome;
	snprintf(rep->request_id, sizeof(rep->request_id), "%s", ares.request_id);
	snprintf(rep->escalation_answerer, sizeof(rep->escalation_answerer), "%s",
	         ares.answerer);
	snprintf(rep->escalation_reason, sizeof(rep->escalation_reason), "%s",
	         ares.reason);
	memcpy(rep->escalation_delegated, ares.delegated, sizeof(ares.delegated));
	rep->n_escalation_delegated = ares.n_delegated;
	snprintf(rep->escalation_grant, sizeof(rep->escalation_grant), "%s", ares.grant);
	snprintf(rep->escalation_grant_scope, sizeof(rep->escalation_grant_scope), "%s",
	         ares.grant_scope);
	rep->escalation_grant_new = ares.grant_new;
	if (warden_outcome_allows(ares.outcome)) {
		if (req->notice != NULL && ares.grant[0] && !ares.grant_new)
			snprintf(who, sizeof(who), "escalation to %s allowed under grant %s (%s), nobody asked",
			         what, ares.grant, ares.grant_scope);
		else if (req->notice != NULL && ares.grant[0])
			snprintf(who, sizeof(who), "escalation to %s allowed for the session: grant %s (%s) (answerer %.100s%s%.300s)",
			         what, ares.grant, ares.grant_scope,
			         ares.answerer[0] ? ares.answerer : "?",
			         ares.reason[0] ? ": " : "", ares.reason);
		else if (req->notice != NULL)
			snprintf(who, sizeof(who), "escalation to %s allowed once (answerer %s%s%.400s)",
			         what,
			         ares.answerer[0] ? ares.answerer : "?",
			         ares.reason[0] ? ": " : "", ares.reason);
		if (req->notice != NULL)
			req->notice(req->notice_arg, who);
		return 1;
	}
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
	         what, warden_outcome_name(ares.outcome),
	         who);
	return 0;
}

/* Takes the TMPDIR this run set out of the environments built for the
 * command (x->envp borrows its entries, the backend's are owned): the
 * caller's own value, or none, stays. */
static int unset_tmpdir(struct run_ctx *x, struct warden_error *err)
{
	char **own = x->confined->envp;
	const char *orig = getenv("TMPDIR");
	size_t i, j;

	for (i = j = 0; x->envp != NULL && x->envp[i] != NULL; i++) {
		if (x->envp[i] == x->tmp_entry && orig == NULL)
			continue;
		x->envp[j++] = x->envp[i] == x->tmp_entry
		               ? (char *)orig - strlen("TMPDIR=") : x->envp[i];
	}
	if (x->envp != NULL)
		x->envp[j] = NULL;
	for (i = j = 0; own != NULL && own[i] != NULL; i++) {
		if (strcmp(own[i], x->tmp_entry) == 0) {
			free(own[i]);
			if (orig == NULL)
				continue;
			if ((own[i] = malloc(strlen(orig) + 8)) == NULL)
				return warden_error_set(err, WARDEN_EOS, "run: out of memory");
			sprintf(own[i], "TMPDIR=%s", orig);
		}
		own[j++] = own[i];
	}
	if (own != NULL)
		own[j] = NULL;
	return 0;
}

/* What deny_read hides from this run, expanded against the host as it is
 * now, and what a backend binds over it.  A root or working directory
 * inside a hidden path is refused: the command could not work there. */
static int deny_read_policy(struct run_ctx *x, const struct warden_resolved *res,
                            struct warden_policy *pol, struct warden_error *err)
{
	const char *roots[2 + WARDEN_ROOTS_MAX * 2];
	const char *pattern, *match = NULL;
	size_t n = 0, i;
	int r;

	roots[n++] = res->root;
	for (i = 0; i < pol->n_more_roots && n + 1 < sizeof(roots) / sizeof(*roots); i++)
		roots[n++] = pol->more_roots[i];
	warden_deny_free(&x->deny);
	if ((r = warden_deny_expand(x->c->cfg, roots, n, &x->deny, err)) < 0)
		return r;
	/* Every root and the working directory: a command could not work
	 * in a directory it cannot read. */
	roots[n++] = x->prog.dir;
	for (i = 0; i < n; i++)
		if ((pattern = warden_deny_covers(&x->deny, roots[i], &match)) != NULL)
			return warden_error_set(err, WARDEN_EREFUSED,
			                        "run: %s lies in %s, which deny_read = %s keeps unread: the command could not work there; choose another directory, or take the pattern out of deny_read in %s",
			                        roots[i], match, pattern, x->c->cfg->file);
	if (x->deny.n > 0 && x->void_file[0] == '\0' &&
	    (r = warden_scratch_voids(x->void_file, x->void_dir, err)) < 0)
		return r;
	pol->deny_read = (const char *const *)x->deny.paths;
	pol->n_deny_read = x->deny.n;
	pol->void_file = x->void_file[0] ? x->void_file : NULL;
	pol->void_dir = x->void_dir[0] ? x->void_dir : NULL;
	return 0;
}

/*
 * The allowlist network: the run's proxy (started once per spawn), its
 * port and socket in the policy, and its variables in the command's
 * environment (a caller's own HTTP_PROXY and kin replaced).  A proxy that
 * cannot start refuses the run (SANDBOX_UNAVAILABLE): nothing runs with
 * the network open.
 */
static int proxy_start(struct run_ctx *x, struct warden_run_report *rep,
                       struct warden_policy *pol, struct warden_error *err)
{
	struct warden_proxy_opts *o = &x->proxy_opts;
	size_t n = 0, i, k, keep;
	int r;

	if (x->proxy == NULL) {
		memset(o, 0, sizeof(*o));
		o->cfg = x->c->cfg;
		o->session = x->session;
		o->argv = rep->argv;
		o->argc = rep->argc;
		o->call_id = x->req->call_id;
		o->program = x->approved ? &x->prog : NULL;
		if (x->session != NULL && x->c->approval == NULL &&
		    (r = warden_approval_new(x->c->cfg, &x->c->approval, err)) < 0)
			return r;
		o->approval = x->session != NULL ? x->c->approval : NULL;
		if ((r = warden_proxy_start(o, &x->proxy, err)) < 0) {
			rep->status = WARDEN_EUNAVAILABLE;
			rep->refused = "unavailable";
			snprintf(rep->reason, sizeof(rep->reason), "%s", err->msg);
			warden_error_clear(err);
			return 0;
		}
	}
	for (i = 0; i < WARDEN_PROXY_ENV_N; i++) {
		free(x->proxy_env[i]);
		x->proxy_env[i] = NULL;
	}
	if (warden_proxy_env(x->proxy->port, x->proxy_env, WARDEN_PROXY_ENV_N) < 0)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	while (x->confined_env != NULL && x->confined_env[n] != NULL)
		n++;
	free(x->proxy_envp);
	if ((x->proxy_envp = calloc(n + WARDEN_PROXY_ENV_N + 1, sizeof(char *))) == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	for (i = k = 0; i < n; i++) {
		const char *e = x->confined_env[i];
		size_t name = strcspn(e, "=");

		keep = 1;
		for (size_t j = 0; j < WARDEN_PROXY_ENV_N; j++)
			if (strncmp(x->proxy_env[j], e, name + 1) == 0)
				keep = 0;
		if (keep)
			x->proxy_envp[k++] = x->confined_env[i];
	}
	for (i = 0; i < WARDEN_PROXY_ENV_N; i++)
		x->proxy_envp[k++] = x->proxy_env[i];
	x->confined_env = x->proxy_envp;
	pol->spawn_env = (const char *const *)x->proxy_envp;
	pol->proxy_port = x->proxy->port;
	pol->proxy_fd = x->proxy->pass_fd;
	return 0;
}

/* Step 5: confines rep->argv for the resolved policy.  0 with
 * x->confined set, 0 with rep saying why nothing runs, or a negative
 * status. */
static int confine(struct run_ctx *x, const struct warden_resolved *res,
                   struct warden_run_report *rep, struct warden_error *err)
{
	struct warden_policy pol;
	char line[1024];
	size_t i;
	int r;

	/* A backend that does not load is unusable with its reason; the
	 * service names it if nothing else can confine. */
	if (x->c->sandbox == NULL &&
	    (r = warden_sandbox_open(x->c->cfg, &x->c->sandbox, err)) < 0)
		return r;
	if (x->c->inputs == NULL &&
	    (r = warden_inputs_collect(x->c->cfg, &x->c->inputs, err)) < 0)
		return r;
	warden_policy_init(&pol);
	/* What decides the next command stays out of this one's reach. */
	pol.read_only_paths = x->c->inputs->paths;
	pol.n_read_only_paths = x->c->inputs->n;
	pol.mode = res->mode;
	pol.workspace_root = res->root;
	pol.session_id = rep->session;
	pol.status_fd = STATUS_FD;
	pol.root_fd = x->root_fd;
	/* The roots beside it, each held by descriptor like the root. */
	if (res->mode == WARDEN_SANDBOX_WORKSPACE_WRITE && x->roots.n > 0) {
		if ((r = warden_roots_open(&x->roots, err)) < 0)
			return r;
		pol.more_roots = (const char *const *)x->roots.path;
		pol.more_root_fds = x->roots.fd;
		pol.more_root_kinds = x->roots.kind;
		pol.n_more_roots = x->roots.n;
	}
	/* The run is the proof (WARDEN_CONFINE_FACTS): no probe first. */
	pol.network = res->network;
	pol.allow_unix_sockets = (const char *const *)x->c->cfg->allow_unix_sockets;
	pol.n_allow_unix_sockets = x->c->cfg->n_allow_unix_sockets;
	/* The host's /tmp as it is, the session's temp area writable in
	 * workspace-write (TMPDIR), the other sessions' hidden; the command
	 * starts where the report says or not at all. */
	if (!x->scratch_tried &&
	    (r = warden_scratch_open(&x->scratch, rep->session, err)) < 0)
		return r;
	x->scratch_tried = 1;
	if (x->scratch.dir[0] != '\0') {
		pol.tmp_dir = x->scratch.dir;
		pol.tmp_fd = x->scratch.fd;
		pol.tmp_hide = x->scratch.parent;
	}
	pol.cwd = x->prog.dir;
	if ((r = deny_read_policy(x, res, &pol, err)) < 0)
		return r;
	free(x->tmp_entry);
	x->tmp_entry = NULL;
	if (res->mode == WARDEN_SANDBOX_WORKSPACE_WRITE && pol.tmp_dir != NULL) {
		if ((x->tmp_entry = malloc(strlen(x->scratch.dir) + 8)) == NULL)
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		sprintf(x->tmp_entry, "TMPDIR=%s", x->scratch.dir);
	}
	/* This process spawns and reaps the argv: a backend may do here what
	 * its launcher would, with the command's environment. */
	if ((r = command_env(x, 1, &x->confined_env, err)) < 0)
		return r;
	pol.spawn_env = (const char *const *)x->confined_env;
	if (res->network == WARDEN_NETWORK_ALLOWLIST) {
		if ((r = proxy_start(x, rep, &pol, err)) < 0)
			return r;
		if (rep->refused != NULL)
			return 0;
	}
	r = warden_sandbox_confine_flags(x->c->sandbox, rep->argv, rep->argc, &pol,
	                                 WARDEN_CONFINE_PASS_FDS | WARDEN_CONFINE_FACTS |
	                                 (x->req->require_full || x->c->cfg->require_full
	                                  ? WARDEN_CONFINE_REQUIRE_FULL : 0),
	                                 &x->confined, err);
	if (r == -WARDEN_EREFUSED || r == -WARDEN_EUNAVAILABLE) {
		rep->status = -r;
		rep->refused = r == -WARDEN_EREFUSED ? "require-full" : "unavailable";
		snprintf(rep->reason, sizeof(rep->reason), "%s", err->msg);
		warden_error_clear(err);
		return 0;
	}
	if (r < 0)
		return r;
	snprintf(rep->backend, sizeof(rep->backend), "%s", x->confined->backend);
	if (x->tmp_entry != NULL && !x->confined->tmp_held) {
		/* The backend kept a /tmp of its own: TMPDIR stays the
		 * caller's. */
		if ((r = unset_tmpdir(x, err)) < 0)
			return r;
	} else if (x->tmp_entry != NULL)
		snprintf(rep->tmp_dir, sizeof(rep->tmp_dir), "%s", x->scratch.dir);
	rep->enforcement = x->confined->enforcement;
	snprintf(rep->detail, sizeof(rep->detail), "%s", x->confined->detail);
	rep->network_enforcement = x->confined->network_enforcement;
	snprintf(rep->network_detail, sizeof(rep->network_detail), "%s",
	         x->confined->network_detail);
	/* The report takes the backends passed over, and says so at once. */
	rep->skipped = x->confined->skipped;
	rep->n_skipped = x->confined->n_skipped;
	x->confined->skipped = NULL;
	x->confined->n_skipped = 0;
	for (i = x->quiet_skips; i < rep->n_skipped && x->req->notice != NULL; i++) {
		snprintf(line, sizeof(line), "backend %s was skipped: %s; %s confines the command",
		         rep->skipped[i].backend, rep->skipped[i].reason, rep->backend);
		x->req->notice(x->req->notice_arg, line);
	}
	return 0;
}

/* After a run whose runner failed before exec under a backend judged
 * by its facts: disproves them, forgets the failed attempt (nothing
 * ran) and confines again.  The attempt stays visible as a skip of that
 * backend; the backends passed over before it are not announced twice. */
static int retry_confined(struct run_ctx *x, const struct warden_resolved *res,
                          struct warden_run_report *rep, struct warden_error *err)
{
	struct warden_skipped *old = rep->skipped, *all;
	size_t n_old = rep->n_skipped, i;
	char reason[600];
	int r;

	snprintf(reason, sizeof(reason),
	         "its runner failed before exec (%.400s); judged again by a real probe",
	         rep->reason);
	if (warden_sandbox_disprove(x->c->sandbox, x->confined->backend,
	                            x->confined->mode) < 0)
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "run: backend %s cannot be judged again",
		                        x->confined->backend);
	snprintf(rep->disproved, sizeof(rep->disproved), "%s",
	         x->confined->backend);
	rep->disproved_mode = x->confined->mode;
	all = calloc(1, sizeof(*all));
	if (all == NULL || (all->backend = strdup(x->confined->backend)) == NULL ||
	    (all->reason = strdup(reason)) == NULL) {
		warden_skipped_free(all, all != NULL ? 1 : 0);
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	}
	if (x->req->notice != NULL) {
		char line[1024];

		snprintf(line, sizeof(line), "backend %s: %s", all->backend, reason);
		x->req->notice(x->req->notice_arg, line);
	}
	warden_skipped_free(old, n_old);
	rep->skipped = NULL;
	rep->n_skipped = 0;
	free(rep->spawn);
	rep->spawn = NULL;
	rep->started = 0;
	rep->exit_code = -1;
	rep->signal = 0;
	rep->cls = 0;
	rep->status = 0;
	rep->timed_out = 0;
	rep->duration_ms = 0;
	rep->reason[0] = '\0';
	warden_confined_free(x->confined);
	x->confined = NULL;
	x->quiet_skips = n_old;
	r = confine(x, res, rep, err);
	x->quiet_skips = 0;
	if (r < 0 || rep->refused != NULL) {
		warden_skipped_free(all, 1);
		return r;
	}
	/* The failed attempt first, then what this confinement passed over. */
	{
		struct warden_skipped *m = calloc(rep->n_skipped + 1, sizeof(*m));

		if (m == NULL) {
			warden_skipped_free(all, 1);
			return warden_error_set(err, WARDEN_EOS, "run: out of memory");
		}
		m[0] = *all;
		for (i = 0; i < rep->n_skipped; i++)
			m[i + 1] = rep->skipped[i];
		free(all);
		free(rep->skipped);
		rep->skipped = m;
		rep->n_skipped++;
	}
	return 0;
}

/*
 * Everything up to a report: fills rep and returns 0 when there is a
 * report to give (a run, or a refusal worth recording), or a negative
 * status for an error before that (no report).
 */
static int run_flow(struct run_ctx *x, struct warden_run_report *rep,
                    struct warden_error *err)
{
	const struct warden_run_request *req = x->req;
	const struct warden_config *cfg = x->c->cfg;
	struct warden_resolved res;
	char why[512], joined[PATH_MAX];
	const char *cwd;
	int r;

	/* 1. the argv */
	if ((r = build_argv(x, rep, err)) < 0)
		return r;
	rep->exit_code = -1;

	/* 2. the session */
	if (req->session_id != NULL && req->session_id[0] != '\0') {
		if ((r = warden_session_open(cfg, req->session_id, &x->session, err)) < 0)
			return r;
		if (access(warden_session_path(x->session), W_OK) < 0)
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "run: session log %s cannot be written, and a run that cannot be recorded does not start",
			                          warden_session_path(x->session));
		snprintf(rep->session, sizeof(rep->session), "%s",
		         warden_session_id(x->session));
	}

	/* Resolve once without the escalation: the policy the ask is under,
	 * and the root and mode a refusal reports. */
	r = x->session != NULL
		? warden_policy_resolve_session(cfg, x->session, 0, &res, err)
		: warden_policy_resolve(cfg, NULL, 0, &res, err);
	if (r < 0)
		return r;
	rep->policy = res.policy;
	rep->mode = res.mode;
	rep->mode_source = res.mode_source;
	rep->network = res.network;
	rep->network_source = res.network_source;
	snprintf(rep->root, sizeof(rep->root), "%s", res.root);
	rep->call_id = req->call_id;

	/* The root as it was checked, held from here on: the backend binds
	 * this directory, whatever the path leads to later. */
	if ((r = warden_root_open(res.root, &x->root_fd, err)) < 0)
		return r;
	/* The roots beside it: the session's list, else the config's, and
	 * a worktree's git directory (roots.h). */
	if ((r = warden_roots_resolve(cfg, x->session != NULL
	                                   ? warden_session_knobs(x->session) : NULL,
	                              res.root, &x->roots, err)) < 0)
		return r;
	if ((rep->roots = warden_roots_json(&x->roots)) == NULL ||
	    (rep->roots_notes = warden_roots_notes_json(&x->roots)) == NULL)
		return warden_error_set(err, WARDEN_EOS, "run: out of memory");
	/* The directory it runs in (host/program.h), and the program:
	 * looked up as the run will, and for an escalation opened and
	 * described. */
	cwd = req->cwd;
	if (cwd != NULL && cwd[0] != '/' && req->cwd_from_root) {
		if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", res.root, cwd) >=
		    sizeof(joined))
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "cwd %.200s: too long", cwd);
		cwd = joined;
	}
	if ((r = warden_program_dir(&x->prog, cwd, res.root, x->root_fd,
	                            err)) < 0 ||
	    (r = warden_env_patterns(cfg, &x->patterns, &x->n_patterns, err)) < 0)
		return r;
	snprintf(rep->dir, sizeof(rep->dir), "%s", x->prog.dir);
	r = req->escalate || req->escalate_network
		? describe(x, rep, res.root, why, sizeof(why), err)
	                  : program_check(rep->argv[0], x->prog.dir_fd, why, sizeof(why));
	if (r < 0 || rep->refused != NULL)
		return r;
	if (r != 0) {
		rep->status = r;
		rep->refused = r == WARDEN_RUN_NOT_FOUND ? "not-found" : "cannot-execute";
		snprintf(rep->reason, sizeof(rep->reason), "%s", why);
		return 0;
	}

	/* 3. escalation */
	if (req->escalate && req->escalate == res.mode)
		/* Nothing to ask: an answerer would approve what already
		 * holds. */
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: --escalate %s: the run is already in %s (%s); %s",
		                        warden_mode_name(req->escalate),
		                        warden_mode_name(res.mode),
		                        warden_source_name(res.mode_source)
		                        ? warden_source_name(res.mode_source) : "resolved",
		                        req->escalate_network
		                        ? "ask with --escalate-network alone"
		                        : "run it without --escalate, or escalate to a mode above it");
	if (req->escalate || req->escalate_network) {
		if ((r = escalate(x, rep, err)) <= 0)
			return r;
		x->approved = 1;
		/* 4. allowed once: the top of the resolution order. */
		r = warden_policy_resolve_escalated(cfg, x->session, req->escalate,
		                                    req->escalate_network
		                                    ? WARDEN_NETWORK_ENABLED : 0,
		                                    &res, err);
		if (r < 0)
			return r;
		rep->mode = res.mode;
		rep->mode_source = res.mode_source;
		rep->network = res.network;
		rep->network_source = res.network_source;
	}

	/* 5. danger-full-access is never confined. */
	if (res.mode != WARDEN_SANDBOX_DANGER_FULL_ACCESS) {
		if ((r = confine(x, &res, rep, err)) < 0 || rep->refused != NULL)
			return r;
	}

	/* 6, 7. */
	r = spawn_and_classify(x, rep, err);
	while (r == 0 && x->prexec_failed && x->confined->proven_by_facts) {
		/* The run was the proof, and it failed before exec: nothing
		 * ran.  The backend is judged again by a real probe, and the
		 * run goes on exactly as after a failed probe. */
		if ((r = retry_confined(x, &res, rep, err)) < 0 || rep->refused != NULL)
			return r;
		r = spawn_and_classify(x, rep, err);
	}
	if (r == 0 && rep->spawn != NULL && rep->spawn->stderr_withheld > 0) {
		/* Not retried: what the runner said is the caller's to see. */
		const struct warden_spawn_result *sr = rep->spawn;
		size_t n = sr->stderr_withheld < sr->tail_len ? sr->stderr_withheld
		                                              : sr->tail_len;

		fflush(stderr);
		if (write(STDERR_FILENO, sr->tail + sr->tail_len - n, n) < 0) {
			/* the report still says why */
		}
	}
	return r;
}

int warden_run_request_size_check(const struct warden_run_request *req,
                                  struct warden_error *err)
{
	size_t i, n, all = 0;

	if (req->command != NULL && (n = strlen(req->command)) > WARDEN_RUN_ARG_MAX)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: the command is %zu bytes, more than the %d one argument of a program takes: write it to a file in the workspace and run that file",
		                        n, WARDEN_RUN_ARG_MAX);
	for (i = 0; req->argv != NULL && i < req->argc && req->argv[i] != NULL; i++) {
		n = strlen(req->argv[i]);
		if (n > WARDEN_RUN_ARG_MAX)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "run: argv[%zu] is %zu bytes, more than the %d one argument of a program takes: write it to a file in the workspace and pass its name",
			                        i, n, WARDEN_RUN_ARG_MAX);
		all += n + 1;
	}
	if (all > WARDEN_RUN_ARGV_MAX)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: argv is %zu bytes in all, more than the %d a run takes: put the data in files and pass their names",
		                        all, WARDEN_RUN_ARGV_MAX);
	return 0;
}

int warden_consumer_run(struct warden_consumer *c,
                        const struct warden_run_request *req,
                        struct warden_run_report *rep,
                        struct warden_error *err)
{
	struct run_ctx x;
	int r;

	memset(rep, 0, sizeof(*rep));
	memset(&x, 0, sizeof(x));
	x.root_fd = -1;
	warden_roots_init(&x.roots);
	warden_scratch_init(&x.scratch);
	warden_deny_init(&x.deny);
	warden_program_init(&x.prog);
	x.c = c;
	x.req = req;
	if (warden_run_request_size_check(req, err) < 0)
		return -err->code;
	if (req->escalate && req->escalate != WARDEN_SANDBOX_WORKSPACE_WRITE &&
	    req->escalate != WARDEN_SANDBOX_DANGER_FULL_ACCESS)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: escalate to workspace-write or danger-full-access");
	if ((req->escalate || req->escalate_network) &&
	    (req->justification == NULL || req->justification[0] == '\0'))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: %s needs --justification TEXT (why the command needs %s)",
		                        req->escalate ? "--escalate" : "--escalate-network",
		                        req->escalate ? "that mode" : "the network");
	if (req->timeout_ms < 0 || req->timeout_ms > WARDEN_RUN_TIMEOUT_MAX_MS)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: timeout %ld ms: give more than 0 and at most a day",
		                        req->timeout_ms);
	if (c->cfg->max_timeout_ms > 0 && req->timeout_ms > c->cfg->max_timeout_ms)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "run: timeout %.3g s is above max_timeout (%.3g s, %s): ask for at most %.3g s",
		                        req->timeout_ms / 1000.0,
		                        c->cfg->max_timeout_ms / 1000.0, c->cfg->file,
		                        c->cfg->max_timeout_ms / 1000.0);
	if (req->timeout_ms == 0) {
		/* The config's agent defaults: no run goes unbounded when
		 * they say so (a copy: the caller's request stays as given). */
		x.timeout_ms = c->cfg->default_timeout_ms > 0 ? c->cfg->default_timeout_ms
		                                              : c->cfg->max_timeout_ms;
	} else {
		x.timeout_ms = req->timeout_ms;
	}
	rep->timeout_ms = x.timeout_ms;
	if (req->session_id != NULL && req->session_id[0] != '\0' &&
	    (r = warden_session_id_check(req->session_id, err)) < 0)
		return r;
	r = run_flow(&x, rep, err);
	if (r == 0)
		record(&x, rep);
	ctx_free(&x);
	return r;
}
