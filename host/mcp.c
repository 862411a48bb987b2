/*
 * mcp.c — the Model Context Protocol shapes; see mcp.h.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mcp.h"
#include "run.h"
#include "screen.h"
#include "text.h"
#include "vocab.h"
#include "wjson.h"

static const char *const versions[] = { "2025-11-25", "2025-06-18" };

const char *warden_mcp_version(const char *requested)
{
	size_t i;

	for (i = 0; requested != NULL && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (strcmp(requested, versions[i]) == 0)
			return versions[i];
	return WARDEN_MCP_LATEST;
}

int warden_mcp_client_elicits(const json_t *init_params)
{
	json_t *e = json_object_get(json_object_get(init_params, "capabilities"),
	                            "elicitation");

	if (!json_is_object(e))
		return 0;
	/* {} is form (before modes); with modes, form must be among them. */
	return json_object_size(e) == 0 || json_is_object(json_object_get(e, "form"));
}

json_t *warden_mcp_initialize_result(const char *version,
                                     const char *session_id,
                                     const char *root,
                                     const char *no_approver)
{
	char instructions[8192];

	if (no_approver != NULL)
		snprintf(instructions, sizeof(instructions),
		         "Run shell commands with the `run` tool: each runs sandboxed in the "
		         "workspace %.4000s (session %.200s). Nobody can approve an escalation "
		         "in this connection (%.1000s): when a run is denied, do it another "
		         "way, inside the sandbox.",
		         root != NULL ? root : "", session_id != NULL ? session_id : "",
		         no_approver);
	else
		snprintf(instructions, sizeof(instructions),
	         "Run shell commands with the `run` tool: each runs sandboxed in the "
	         "workspace %.4000s (session %.200s). When a run is denied, its result "
	         "says which mode a retry needs (escalate_to): call `run` again with "
	         "the same command, `escalate` set to that mode and a `justification`; "
	         "when the network denied it (escalate_network true), call "
	         "`run` again with `escalate_network` true and a `justification`. "
	         "The user decides, and an allowed escalation covers that one run only.",
	         root != NULL ? root : "", session_id != NULL ? session_id : "");
	return json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s,s:s},s:o}",
	                 "protocolVersion", version,
	                 "capabilities", "tools", "listChanged", 0,
	                 "serverInfo", "name", "warden", "title", "warden sandbox",
	                 "version", PACKAGE_VERSION,
	                 "instructions", warden_json_string_lossy(instructions));
}

/* ----------------------------------------------------------------- tools */

static json_t *nullable(const char *type)
{
	return json_pack("{s:[s,s]}", "type", type, "null");
}

/* The run result object (`run --json`), as the client validates it. */
static json_t *run_output_schema(void)
{
	json_t *props = json_object();
	json_t *s;

	if (props == NULL)
		return NULL;
	s = nullable("string");
	json_object_set_new(s, "enum", json_pack("[s,s,s,s,n]", "ok", "failed", "denied",
	                                         "sandbox-error"));
	json_object_set_new(s, "description", json_string(
		"ok, failed (the command's own failure), denied (the sandbox refused an "
		"effect), sandbox-error (the sandbox failed, the command did not run); "
		"null when nothing started"));
	json_object_set_new(props, "class", s);
	json_object_set_new(props, "exit", nullable("integer"));
	json_object_set_new(props, "signal", nullable("integer"));
	json_object_set_new(props, "mode", nullable("string"));
	json_object_set_new(props, "backend", nullable("string"));
	json_object_set_new(props, "enforcement", nullable("string"));
	json_object_set_new(props, "duration_ms", json_pack("{s:s}", "type", "integer"));
	json_object_set_new(props, "timed_out", json_pack("{s:s}", "type", "boolean"));
	json_object_set_new(props, "started", json_pack("{s:s}", "type", "boolean"));
	json_object_set_new(props, "argv", json_pack("{s:s,s:{s:s}}", "type", "array",
	                                             "items", "type", "string"));
	json_object_set_new(props, "cwd", nullable("string"));
	json_object_set_new(props, "root", nullable("string"));
	json_object_set_new(props, "denial", nullable("string"));
	json_object_set_new(props, "denied_path", nullable("string"));
	s = nullable("string");
	json_object_set_new(s, "enum", json_pack("[s,s,n]", "workspace-write",
	                                         "danger-full-access"));
	json_object_set_new(s, "description", json_string(
		"after a denial, the mode a retry must escalate to; else null"));
	json_object_set_new(props, "escalate_to", s);
	json_object_set_new(props, "escalation", json_pack("{s:s}", "type", "object"));
	s = nullable("string");
	json_object_set_new(s, "enum", json_pack("[s,s,s,n]", "restricted", "allowlist",
	                                         "enabled"));
	json_object_set_new(s, "description", json_string(
		"the network the command ran with (restricted: no TCP, UDP or host "
		"socket; allowlist: only warden's proxy), null when nothing was resolved"));
	json_object_set_new(props, "network", s);
	json_object_set_new(props, "network_refused", json_pack("{s:s,s:{s:s},s:s}",
		"type", "array", "items", "type", "string", "description",
		"allowlist: the destinations (host:port) the proxy refused; to reach one, "
		"the user adds its domain to allowed_domains, or run again with "
		"escalate_network true"));
	json_object_set_new(props, "network_denied", json_pack("{s:s,s:s}", "type", "boolean",
		"description", "the restricted network refused a connection, a socket or a lookup"));
	json_object_set_new(props, "network_denial", nullable("string"));
	json_object_set_new(props, "escalate_network", json_pack("{s:s,s:s}", "type", "boolean",
		"description", "after a denial by the restricted network: a retry must ask "
		"for the network (run with escalate_network true)"));
	s = nullable("string");
	json_object_set_new(s, "description", json_string(
		"after a failed run whose stderr only reads like a refusal (no "
		"evidence that the sandbox made it): what it may mean; else null"));
	json_object_set_new(props, "hint", s);
	json_object_set_new(props, "detail", nullable("string"));
	json_object_set_new(props, "notices", json_pack("{s:s,s:{s:s},s:s}", "type", "array",
		"items", "type", "string", "description",
		"warden's own notices about the run (an escalation allowed once, ...), "
		"never part of the command's stderr"));
	json_object_set_new(props, "reason", json_pack("{s:s}", "type", "string"));
	s = nullable("string");
	json_object_set_new(s, "description", json_string(
		"why nobody can approve an escalation in this connection (then "
		"escalate_to is null and escalate_network false); else absent"));
	json_object_set_new(props, "no_approver", s);
	json_object_set_new(props, "session", nullable("string"));
	json_object_set_new(props, "status", json_pack("{s:s}", "type", "integer"));
	json_object_set_new(props, "output", json_pack(
		"{s:s,s:{s:{s:s},s:{s:s},s:{s:s},s:{s:s}},s:[s,s,s,s],s:s}",
		"type", "object", "properties",
		"stdout_bytes", "type", "integer", "stderr_bytes", "type", "integer",
		"left_out", "type", "integer", "merged", "type", "boolean",
		"required", "stdout_bytes", "stderr_bytes", "left_out", "merged",
		"description",
		"the bytes the command wrote to each stream, how many of them the text "
		"leaves out (output_limit), and whether the text shows both streams as "
		"one; the output itself is in the result's text content, once"));
	return json_pack("{s:s,s:o,s:[s,s,s,s,s,s,s,s,s]}", "type", "object",
	                 "properties", props, "required", "class", "exit", "signal",
	                 "mode", "started", "escalate_to", "status", "reason",
	                 "output");
}

static json_t *run_tool(const char *no_approver, long max_timeout_ms)
{
	json_t *in = json_pack(
		"{s:s,s:{"
		"s:{s:s,s:s,s:i},"
		"s:{s:s,s:f,s:f,s:s},"
		"s:{s:s,s:[s,s],s:s},"
		"s:{s:s,s:s},"
		"s:{s:s,s:i,s:s},"
		"s:{s:s,s:i,s:s}"
		"},s:[s],s:b}",
		"type", "object", "properties",
		"command", "type", "string", "description",
		"the shell command (run as bash -c COMMAND in the workspace)",
		"minLength", 1,
		"timeout_s", "type", "number", "exclusiveMinimum", 0.0,
		"maximum", (double)(max_timeout_ms > 0 && max_timeout_ms < WARDEN_RUN_TIMEOUT_MAX_MS
		                    ? max_timeout_ms : WARDEN_RUN_TIMEOUT_MAX_MS) / 1000.0,
		"description",
		"kill the command after this many seconds (exit 124); at most the config's max_timeout",
		"escalate", "type", "string", "enum", "workspace-write",
		"danger-full-access", "description",
		"ask the user to run this command once under this mode (after a denial: "
		"the result's escalate_to); needs justification",
		"escalate_network", "type", "boolean", "description",
		"ask the user to run this command once with the host's network enabled "
		"(after a denial by the restricted network: the result's escalate_network); "
		"needs justification",
		"justification", "type", "string", "minLength", 1, "description",
		"why the command needs the escalation: the user reads it",
		"cwd", "type", "string", "minLength", 1, "description",
		"the directory the command starts in, relative to the session's root "
		"(default: the root)",
		"required", "command", "additionalProperties", 0);
	json_t *out = run_output_schema();
	json_t *props = json_object_get(in, "properties");

	json_object_set_new(props, "stdin", json_pack("{s:s,s:i,s:s}", "type", "string",
		"maxLength", WARDEN_RUN_STDIN_MAX, "description",
		"text the command reads on its standard input (at most 1 MiB of it in "
		"UTF-8, which may be fewer characters than maxLength; default: nothing, "
		"end of file at once)"));
	json_object_set_new(props, "merge_output", json_pack("{s:s,s:s}", "type", "boolean",
		"description",
		"true: stdout and stderr as one text, interleaved in the order they were "
		"written, as a terminal shows them (default: false, each apart)"));

	if (no_approver != NULL)
		return json_pack("{s:s,s:s,s:s,s:o,s:o,s:{s:b,s:b,s:b,s:b}}",
		                 "name", WARDEN_MCP_TOOL_RUN, "title", "Run a shell command (sandboxed)",
		                 "description",
		                 "Runs one shell command in the workspace inside warden's sandbox and "
		                 "returns its stdout, stderr, exit status and class (ok, failed, denied, "
		                 "sandbox-error). Nobody can approve an escalation in this connection: "
		                 "a denied command has to be done another way, inside the sandbox.",
		                 "inputSchema", in, "outputSchema", out,
		                 "annotations", "readOnlyHint", 0, "destructiveHint", 1,
		                 "idempotentHint", 0, "openWorldHint", 1);
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:{s:b,s:b,s:b,s:b}}",
	                 "name", WARDEN_MCP_TOOL_RUN, "title", "Run a shell command (sandboxed)",
	                 "description",
	                 "Runs one shell command in the workspace inside warden's sandbox and "
	                 "returns its stdout, stderr, exit status and class (ok, failed, denied, "
	                 "sandbox-error). A denied run says which mode a retry needs: call run "
	                 "again with escalate set to it and a justification, and the user "
	                 "decides whether it runs once under that mode. A run the restricted "
	                 "network denied says so: call run again with escalate_network true "
	                 "and a justification, and the user decides whether it runs once with "
	                 "the network.",
	                 "inputSchema", in, "outputSchema", out,
	                 "annotations", "readOnlyHint", 0, "destructiveHint", 1,
	                 "idempotentHint", 0, "openWorldHint", 1);
}

static json_t *state_tool(void)
{
	return json_pack("{s:s,s:s,s:s,s:{s:s,s:{},s:b},s:{s:b,s:b}}",
	                 "name", WARDEN_MCP_TOOL_STATE, "title", "The sandbox's state",
	                 "description",
	                 "The session's sandbox mode, network, approval policy, preset and "
	                 "workspace root, and where each came from. Read-only: the mode and "
	                 "the network are changed by the user, or for one run by an approved "
	                 "escalation of run.",
	                 "inputSchema", "type", "object", "properties",
	                 "additionalProperties", 0,
	                 "annotations", "readOnlyHint", 1, "openWorldHint", 0);
}

json_t *warden_mcp_tools_list(const char *no_approver, long max_timeout_ms)
{
	return json_pack("{s:[o,o]}", "tools", run_tool(no_approver, max_timeout_ms), state_tool());
}

/* ------------------------------------------------------------- arguments */

int warden_mcp_run_args_parse(const json_t *args, struct warden_mcp_run_args *o,
                              char *why, size_t whylen)
{
	const char *key;
	json_t *v;

	memset(o, 0, sizeof(*o));
	if (!json_is_object(args)) {
		snprintf(why, whylen, "run: give the arguments as an object: {\"command\": \"...\"}");
		return -1;
	}
	json_object_foreach((json_t *)args, key, v) {
		if (strcmp(key, "command") == 0) {
			if (!json_is_string(v) || json_string_length(v) == 0 ||
			    strlen(json_string_value(v)) != json_string_length(v)) {
				snprintf(why, whylen, "run: command must be a non-empty string without NUL bytes");
				return -1;
			}
			o->command = json_string_value(v);
		} else if (strcmp(key, "timeout_s") == 0) {
			double s = json_is_number(v) ? json_number_value(v) : -1;

			if (!json_is_number(v) || !isfinite(s) || s <= 0 ||
			    s > WARDEN_RUN_TIMEOUT_MAX_MS / 1000.0) {
				snprintf(why, whylen, "run: timeout_s must be a number of seconds, more than 0 and at most %ld",
				         WARDEN_RUN_TIMEOUT_MAX_MS / 1000L);
				return -1;
			}
			o->timeout_ms = (long)(s * 1000.0);
			if (o->timeout_ms < 1)
				o->timeout_ms = 1;
		} else if (strcmp(key, "escalate") == 0) {
			int m = json_is_string(v) ? warden_mode_parse(json_string_value(v)) : -1;

			if (m != WARDEN_SANDBOX_WORKSPACE_WRITE &&
			    m != WARDEN_SANDBOX_DANGER_FULL_ACCESS) {
				snprintf(why, whylen, "run: escalate must be \"workspace-write\" or \"danger-full-access\" (the result's escalate_to after a denial)");
				return -1;
			}
			o->escalate = m;
		} else if (strcmp(key, "escalate_network") == 0) {
			if (!json_is_boolean(v)) {
				snprintf(why, whylen, "run: escalate_network must be true or false");
				return -1;
			}
			o->escalate_network = json_is_true(v);
		} else if (strcmp(key, "cwd") == 0) {
			if (!json_is_string(v) || json_string_length(v) == 0 ||
			    strlen(json_string_value(v)) != json_string_length(v)) {
				snprintf(why, whylen, "run: cwd must be a non-empty string, a directory relative to the session's root");
				return -1;
			}
			o->cwd = json_string_value(v);
		} else if (strcmp(key, "stdin") == 0) {
			if (!json_is_string(v) ||
			    strlen(json_string_value(v)) != json_string_length(v)) {
				snprintf(why, whylen, "run: stdin must be a string without NUL bytes (text for the command's standard input)");
				return -1;
			}
			if (json_string_length(v) > WARDEN_RUN_STDIN_MAX) {
				snprintf(why, whylen, "run: stdin is %zu bytes, more than the %d (1 MiB) a run takes: write the text to a file in the workspace and have the command read that",
				         json_string_length(v), WARDEN_RUN_STDIN_MAX);
				return -1;
			}
			o->stdin_text = json_string_value(v);
		} else if (strcmp(key, "merge_output") == 0) {
			if (!json_is_boolean(v)) {
				snprintf(why, whylen, "run: merge_output must be true or false");
				return -1;
			}
			o->merge_output = json_is_true(v);
		} else if (strcmp(key, "justification") == 0) {
			if (!json_is_string(v) || json_string_length(v) == 0 ||
			    strlen(json_string_value(v)) != json_string_length(v)) {
				snprintf(why, whylen, "run: justification must be a non-empty string");
				return -1;
			}
			o->justification = json_string_value(v);
		} else {
			snprintf(why, whylen, "run: unknown argument \"%.100s\" (give command, and optionally cwd, stdin, timeout_s, merge_output, escalate, escalate_network, justification)",
			         key);
			return -1;
		}
	}
	if (o->command == NULL) {
		snprintf(why, whylen, "run: no command: give {\"command\": \"...\"}");
		return -1;
	}
	if ((o->escalate || o->escalate_network) && o->justification == NULL) {
		snprintf(why, whylen, "run: an escalation needs a justification: why the command needs it (the user reads it)");
		return -1;
	}
	if (!o->escalate && !o->escalate_network && o->justification != NULL) {
		snprintf(why, whylen, "run: justification goes with escalate or escalate_network");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- result */

/* Half the output kept: the config's output_limit, else the built-in. */
#define HALF (o->half > 0 ? o->half : WARDEN_MCP_OUTPUT_MAX / 2)

int warden_mcp_output_add(struct warden_mcp_output *o, const char *buf,
                          size_t len)
{
	size_t n;

	o->total += len;
	if (o->count_only)
		return 0;
	if (o->head == NULL && (o->head = malloc(HALF)) == NULL)
		return -1;
	n = len < HALF - o->nhead ? len : HALF - o->nhead;
	memcpy(o->head + o->nhead, buf, n);
	o->nhead += n;
	buf += n;
	len -= n;
	if (len == 0)
		return 0;
	if (o->tail == NULL && (o->tail = malloc(HALF)) == NULL)
		return -1;
	if (len >= HALF) {
		memcpy(o->tail, buf + len - HALF, HALF);
		o->ntail = HALF;
		o->tpos = 0;
		return 0;
	}
	n = len < HALF - o->tpos ? len : HALF - o->tpos;
	memcpy(o->tail + o->tpos, buf, n);
	memcpy(o->tail, buf + n, len - n);
	o->tpos = (o->tpos + len) % HALF;
	o->ntail = o->ntail + len < HALF ? o->ntail + len : HALF;
	return 0;
}

void warden_mcp_output_free(struct warden_mcp_output *o)
{
	free(o->head);
	free(o->tail);
	memset(o, 0, sizeof(*o));
}

/* The output as a screen shows it (host/screen.h: no escape sequence, no
 * control, carriage returns laid over; valid UTF-8): the head, a line
 * saying what was left out, the tail, each part shown apart so that
 * nothing cut at the gap reaches across it. */
static char *output_text(const struct warden_mcp_output *o)
{
	char mid[96] = "", *head = NULL, *tail = NULL, *ring = NULL, *copy = NULL;
	size_t nh = 0, nt = 0, m;

	if (o == NULL || o->count_only)
		return strdup("");
	if (o->total > o->nhead + o->ntail)
		snprintf(mid, sizeof(mid), "\n[... %llu bytes left out ...]\n",
		         o->total - o->nhead - o->ntail);
	m = strlen(mid);
	if (o->ntail > 0 && (ring = malloc(o->ntail)) != NULL) {
		if (o->ntail < HALF) {
			memcpy(ring, o->tail, o->ntail);
		} else {
			memcpy(ring, o->tail + o->tpos, HALF - o->tpos);
			memcpy(ring + HALF - o->tpos, o->tail, o->tpos);
		}
	}
	if ((o->ntail > 0 && ring == NULL) ||
	    (head = warden_screen_text(o->head != NULL ? o->head : "", o->nhead, &nh)) == NULL ||
	    (tail = warden_screen_text(ring != NULL ? ring : "", o->ntail, &nt)) == NULL ||
	    (copy = malloc(nh + m + nt + 1)) == NULL)
		goto out;
	memcpy(copy, head, nh);
	memcpy(copy + nh, mid, m);
	memcpy(copy + nh + m, tail, nt);
	copy[nh + m + nt] = '\0';
out:
	free(ring);
	free(head);
	free(tail);
	return copy;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

/* Appends to a growing string (from strdup("")); NULL stays NULL, and on
 * failure the string is freed and NULL. */
static char *append(char *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *append(char *s, const char *fmt, ...)
{
	va_list ap;
	size_t have;
	int n;
	char *t;

	if (s == NULL)
		return NULL;
	have = strlen(s);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (t = realloc(s, have + (size_t)n + 1)) == NULL) {
		free(s);
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(t + have, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return t;
}

/* The decimal text of an integer (a static buffer: one use per call). */
static const char *str_int(const json_t *v)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
	return buf;
}

/* What the model reads about a run. */
static char *run_text(const json_t *r)
{
	const char *cls = str(r, "class"), *mode = str(r, "mode");
	json_t *exit_v = json_object_get(r, "exit"), *sig = json_object_get(r, "signal");
	json_t *esc = json_object_get(r, "escalation");
	char *t = strdup("");

	if (!json_is_true(json_object_get(r, "started")) && cls[0] != '\0' &&
	    strcmp(cls, "sandbox-error") == 0)
		t = append(t, "sandbox-error: the sandbox failed and the command did not run: %s\n",
		           str(r, "reason"));
	else if (!json_is_true(json_object_get(r, "started")))
		t = append(t, "nothing ran: %s\n", str(r, "reason"));
	else if (json_is_true(json_object_get(r, "timed_out")))
		t = append(t, "timed out: the run reached its time limit and its processes were killed%s%s, class %s, mode %s%s%s\n"
		           "To give it more time, call run again with a larger \"timeout_s\" (the config's max_timeout bounds it).\n",
		           json_is_integer(sig) ? " by signal " : "",
		           json_is_integer(sig) ? str_int(sig) : "",
		           cls, mode, str(r, "network")[0] ? ", network " : "", str(r, "network"));
	else if (json_is_integer(sig))
		t = append(t, "killed by signal %lld, class %s, mode %s%s%s\n",
		           (long long)json_integer_value(sig), cls, mode,
		           str(r, "network")[0] ? ", network " : "", str(r, "network"));
	else
		t = append(t, "exit %lld, class %s, mode %s%s%s%s\n",
		           json_is_integer(exit_v) ? (long long)json_integer_value(exit_v) : -1LL,
		           cls, mode, str(r, "network")[0] ? ", network " : "", str(r, "network"),
		           json_is_true(json_object_get(r, "timed_out"))
		           ? " (timed out: its processes were killed)" : "");
	if (t != NULL && str(r, "hint")[0] != '\0')
		t = append(t, "failed, not denied: %s\n", str(r, "hint"));
	/* "escalation to MODE", "... to network enabled", "... to MODE with
	 * network enabled" (run's own words for it). */
	if (json_is_object(esc) && t != NULL)
		t = append(t, "escalation to %s%s%s%s: %s%s%s%s%s\n",
		           str(esc, "mode"),
		           str(esc, "mode")[0] && str(esc, "network")[0] ? " with " : "",
		           str(esc, "network")[0] ? "network " : "", str(esc, "network"),
		           json_is_string(json_object_get(esc, "outcome")) ? str(esc, "outcome") : "not decided",
		           str(esc, "answerer")[0] ? " by " : "", str(esc, "answerer"),
		           str(esc, "reason")[0] ? ": " : "", str(esc, "reason"));
	if (strcmp(cls, "denied") == 0 && t != NULL &&
	    json_is_true(json_object_get(r, "network_denied"))) {
		t = append(t, "denied by the restricted network (%s sandbox): %s\n", mode,
		           str(r, "network_denial"));
		if (t != NULL && str(r, "no_approver")[0] != '\0')
			t = append(t, "Escalation is not possible here (nobody can approve it: %s): "
			           "do it another way, without the network.\n", str(r, "no_approver"));
		else if (t != NULL && json_is_true(json_object_get(r, "escalate_network")))
			t = append(t, "To ask the user for the network, call run again with the same "
			           "command, \"escalate_network\": true and a \"justification\" saying "
			           "why it needs the network; an allowed escalation covers that one run.\n");
		else if (t != NULL)
			t = append(t, "Escalation is not possible here (approval policy never): "
			           "do it another way, without the network.\n");
	}
	/* A file denial beside the network's (alone, escalate_to is null and
	 * no path was named). */
	if (strcmp(cls, "denied") == 0 && t != NULL &&
	    (!json_is_true(json_object_get(r, "network_denied")) ||
	     str(r, "escalate_to")[0] != '\0' || str(r, "denied_path")[0] != '\0')) {
		const char *to = str(r, "escalate_to");

		t = append(t, "denied by the %s sandbox: %s\n", mode, str(r, "denial"));
		if (str(r, "no_approver")[0] != '\0')
			t = append(t, "Escalation is not possible here (nobody can approve it: %s): "
			           "do it another way, inside the workspace.\n", str(r, "no_approver"));
		else if (to[0] != '\0')
			t = append(t, "To ask the user for more, call run again with the same command, "
			           "\"escalate\": \"%s\" and a \"justification\" saying why it needs that; "
			           "an allowed escalation covers that one run.\n", to);
		else
			t = append(t, "Escalation is not possible here (approval policy never): "
			           "do it another way, inside the workspace.\n");
	}
	{
		json_t *notes = json_object_get(r, "notices"), *v;
		size_t i;

		json_array_foreach(notes, i, v)
			if (t != NULL && json_is_string(v))
				t = append(t, "warden: %s\n", json_string_value(v));
	}
	return t;
}

/* warden's own lines, each escaped as text.h says (they quote what a
 * command printed, a stderr line in a hint say, which must neither move
 * the cursor over warden's words nor pass for them); t is freed. */
static char *escape_lines(char *t)
{
	char *out = strdup(""), *line = t, *nl, *e;

	while (out != NULL && line[0] != '\0') {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		e = warden_text_escape_dup(line, 0);
		out = e != NULL ? append(out, "%s\n", e) : (free(out), NULL);
		free(e);
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	free(t);
	return out;
}

/* The number of bytes of o the text leaves out. */
static unsigned long long left_out(const struct warden_mcp_output *o)
{
	if (o == NULL || o->count_only || o->total <= o->nhead + o->ntail)
		return 0;
	return o->total - o->nhead - o->ntail;
}

/* A content block of output: its label's line, then the text. */
static int add_block(json_t *content, const char *label, const char *text)
{
	char *b;
	json_t *j;

	if (text[0] == '\0')
		return 0;
	b = append(strdup(""), "--- %s\n%s", label, text);
	j = b != NULL ? warden_json_string_lossy(b) : NULL;
	free(b);
	if (j == NULL)
		return -1;
	return json_array_append_new(content, json_pack("{s:s,s:o}", "type", "text",
	                                                "text", j));
}

json_t *warden_mcp_run_result(const json_t *result,
                              const struct warden_mcp_output *out,
                              const struct warden_mcp_output *err)
{
	int merged = err != NULL && err->count_only;
	char *o = output_text(out);
	char *e = output_text(err);
	char *text = NULL;
	json_t *sc = NULL, *res = NULL, *content = NULL, *status;

	if (o == NULL || e == NULL || (text = run_text(result)) == NULL ||
	    (text = escape_lines(text)) == NULL ||
	    (sc = json_deep_copy(result)) == NULL ||
	    (content = json_pack("[{s:s,s:o}]", "type", "text", "text",
	                         warden_json_string_lossy(text))) == NULL)
		goto out;
	/* The output once: in the text a model reads, each stream (or both
	 * as one) in a block of its own, exact but for what was left out;
	 * structuredContent says how much there was. */
	if (add_block(content, merged ? "output (stdout and stderr as written)" : "stdout", o) < 0 ||
	    add_block(content, "stderr", e) < 0)
		goto out;
	json_object_set_new(sc, "output", json_pack("{s:I,s:I,s:I,s:b}",
		"stdout_bytes", (json_int_t)(out == NULL ? 0 : merged ? out->total - err->total
		                                                   : out->total),
		"stderr_bytes", (json_int_t)(err != NULL ? err->total : 0),
		"left_out", (json_int_t)(left_out(out) + left_out(err)),
		"merged", merged));
	status = json_object_get(result, "exit");
	res = json_pack("{s:O,s:O,s:b}", "content", content, "structuredContent", sc,
	                "isError", !(json_is_integer(status) && json_integer_value(status) == 0 &&
	                             json_is_true(json_object_get(result, "started"))));
out:
	json_decref(content);
	json_decref(sc);
	free(text);
	free(o);
	free(e);
	return res;
}

json_t *warden_mcp_tool_error(const char *text)
{
	return json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text",
	                 "text", warden_json_string_lossy(text), "isError", 1);
}

json_t *warden_mcp_state_result(const json_t *state)
{
	char *text = json_dumps(state, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_t *r;

	if (text == NULL)
		return NULL;
	r = json_pack("{s:[{s:s,s:o}],s:O}", "content", "type", "text", "text",
	              warden_json_string_lossy(text), "structuredContent", state);
	free(text);
	return r;
}

/* ----------------------------------------------------------- elicitation */

/* The elicitation's message is shown to a person: every field of the
 * request (the agent's subject and justification, paths, names) in
 * text.h's dialect, so that no control character, carriage return,
 * newline or bidirectional override in it can redraw or fake a line. */
static char *field(char *t, const char *before, const char *s, const char *after)
{
	char *e;

	if (t == NULL)
		return NULL;
	e = warden_text_escape_dup(s, 0);
	if (e == NULL) {
		free(t);
		return NULL;
	}
	t = append(t, "%s%s%s", before, e, after);
	free(e);
	return t;
}

static char *list_text(char *t, const char *label, const json_t *a)
{
	size_t i;

	if (!json_is_array(a) || json_array_size(a) == 0 || t == NULL)
		return t;
	t = append(t, "%s:", label);
	for (i = 0; t != NULL && i < json_array_size(a); i++)
		t = field(t, " ", json_string_value(json_array_get(a, i))
		                  ? json_string_value(json_array_get(a, i)) : "?", "");
	return t != NULL ? append(t, "\n") : NULL;
}

/* The grant scopes a request offers: its "grant_scopes" array, each
 * {name, text}; NULL when it offers none. */
static const json_t *offered_scopes(const json_t *req)
{
	const json_t *a = json_object_get(req, "grant_scopes");

	return json_is_array(a) && json_array_size(a) > 0 ? a : NULL;
}

/* The form's choice between once and a grant: "decision", one value per
 * answer it may give, allowed-once first (the default), each titled for
 * the person who picks it.  Titled as the negotiated version knows how:
 * oneOf const/title from 2025-11-25, enum and enumNames before.  NULL
 * when out of memory. */
static json_t *decision_schema(const json_t *scopes, const char *version)
{
	int legacy = version != NULL && strcmp(version, "2025-06-18") == 0;
	json_t *p, *values = json_array(), *titles = json_array();
	size_t i;

	if (values == NULL || titles == NULL)
		goto fail;
	if (json_array_append_new(values, json_string(WARDEN_MCP_ELICIT_ONCE)) < 0 ||
	    json_array_append_new(titles, json_string("Only this time")) < 0)
		goto fail;
	for (i = 0; i < json_array_size(scopes); i++) {
		const json_t *s = json_array_get(scopes, i);
		const char *name = str(s, "name");
		char *value, *text, *title;

		value = append(strdup(""), "%s%s", WARDEN_MCP_ELICIT_SESSION, name);
		text = warden_text_escape_dup(str(s, "text"), 0);
		title = text != NULL ? append(strdup(""), "For this session: %s", text) : NULL;
		if (value == NULL || title == NULL ||
		    json_array_append_new(values, warden_json_string_lossy(value)) < 0 ||
		    json_array_append_new(titles, warden_json_string_lossy(title)) < 0) {
			free(value);
			free(text);
			free(title);
			goto fail;
		}
		free(value);
		free(text);
		free(title);
	}
	p = json_pack("{s:s,s:s,s:s}", "type", "string", "title", "Allow",
	              "description", "only this time, or for the rest of this session: later "
	              "requests the grant covers are then allowed without asking, until it "
	              "is revoked (warden grant revoke)");
	if (p == NULL)
		goto fail;
	if (legacy) {
		/* set_new takes the value whether it succeeds or not. */
		if (json_object_set_new(p, "enum", values) < 0) {
			json_decref(titles);
			json_decref(p);
			return NULL;
		}
		if (json_object_set_new(p, "enumNames", titles) < 0) {
			json_decref(p);
			return NULL;
		}
		return p;
	}
	if (json_object_set_new(p, "oneOf", json_array()) < 0 ||
	    json_object_set_new(p, "default", json_string(WARDEN_MCP_ELICIT_ONCE)) < 0) {
		json_decref(p);
		goto fail;
	}
	for (i = 0; i < json_array_size(values); i++)
		if (json_array_append_new(json_object_get(p, "oneOf"),
		                          json_pack("{s:O,s:O}", "const", json_array_get(values, i),
		                                    "title", json_array_get(titles, i))) < 0) {
			json_decref(p);
			goto fail;
		}
	json_decref(values);
	json_decref(titles);
	return p;
fail:
	json_decref(values);
	json_decref(titles);
	return NULL;
}

json_t *warden_mcp_elicit_params(const json_t *req, const char *version)
{
	const char *mode = str(req, "requested_mode");
	const char *net = str(req, "requested_network");
	const json_t *scopes = offered_scopes(req);
	char *t = strdup("");
	json_t *props, *r = NULL;

	if (mode[0] != '\0')
		t = append(t, "The agent asks to run this once under %s%s%s:\n\n",
		           mode, strcmp(mode, "danger-full-access") == 0
		           ? " (no sandbox: it can change anything you can)"
		           : "", net[0] != '\0' ? " with the network enabled" : "");
	else if (net[0] != '\0')
		t = append(t, "The agent asks to run this once with the network enabled (it can "
		           "reach any host and any local service; files stay sandboxed):\n\n");
	else
		t = field(t, "The agent asks to be allowed to ", str(req, "tool"), ":\n\n");
	t = field(t, "    ", str(req, "subject"), "\n\n");
	if (str(req, "reason")[0])
		t = field(t, "Why: ", str(req, "reason"), "\n");
	if (str(req, "cwd")[0])
		t = field(t, "In: ", str(req, "cwd"), "\n");
	if (str(req, "program")[0]) {
		t = field(t, "Program: ", str(req, "program"), "");
		if (str(req, "interpreter")[0])
			t = field(t, " (interpreter ", str(req, "interpreter"), ")");
		if (t != NULL)
			t = append(t, "\n");
	}
	if (t != NULL && json_is_true(json_object_get(req, "program_writable")))
		t = append(t, "Warning: the program lies where the sandboxed agent could have written it.\n");
	t = list_text(t, "Removed from the environment", json_object_get(req, "env_removed"));
	t = list_text(t, "Dropped from PATH", json_object_get(req, "path_dropped"));
	t = list_text(t, "Configuration read from", json_object_get(req, "env_config"));
	if (t != NULL)
		t = append(t, "%s", scopes != NULL
		           ? "\nAccept to allow it, only this time or for this session as chosen "
		             "under Allow; decline to refuse."
		           : "\nAccept to run it once; decline to refuse.");
	if (t == NULL)
		return NULL;
	/* The choice first, the note after it. */
	props = json_object();
	if (props != NULL && scopes != NULL &&
	    json_object_set_new(props, WARDEN_MCP_ELICIT_DECISION,
	                        decision_schema(scopes, version)) < 0) {
		json_decref(props);
		props = NULL;
	}
	if (props != NULL &&
	    json_object_set_new(props, "message",
	                        json_pack("{s:s,s:s,s:s,s:i}", "type", "string",
	                                  "title", "Note for the agent",
	                                  "description", "optional: a line the agent reads with the answer",
	                                  "maxLength", 400)) < 0) {
		json_decref(props);
		props = NULL;
	}
	if (props != NULL)
		r = json_pack("{s:s,s:o,s:{s:s,s:o}}", "mode", "form",
		              "message", warden_json_string_lossy(t),
		              "requestedSchema", "type", "object", "properties", props);
	free(t);
	return r;
}

/* WARDEN_OUTCOME_UNAVAILABLE with why in msg. */
static int unavailable(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int unavailable(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (msglen > 0) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return WARDEN_OUTCOME_UNAVAILABLE;
}

/* The scope an answer's decision grants: the name after the prefix when
 * it is one the request offers, else NULL. */
static const char *chosen_scope(const json_t *scopes, const char *decision)
{
	size_t n = strlen(WARDEN_MCP_ELICIT_SESSION), i;
	const char *name;

	if (strncmp(decision, WARDEN_MCP_ELICIT_SESSION, n) != 0)
		return NULL;
	for (i = 0; i < json_array_size(scopes); i++) {
		name = str(json_array_get(scopes, i), "name");
		if (name[0] != '\0' && strcmp(decision + n, name) == 0)
			return name;
	}
	return NULL;
}

int warden_mcp_elicit_outcome(const json_t *result, const json_t *req,
                              char *scope, size_t scopelen,
                              char *msg, size_t msglen)
{
	const char *action = json_string_value(json_object_get(result, "action"));
	json_t *content = json_object_get(result, "content");
	const json_t *scopes = offered_scopes(req);
	const char *note = NULL, *decision = NULL, *granted = NULL, *key;
	char shown[64];
	json_t *v;
	size_t i;

	if (msglen > 0)
		msg[0] = '\0';
	if (scopelen > 0)
		scope[0] = '\0';
	if (action == NULL || (content != NULL && !json_is_object(content)))
		return unavailable(msg, msglen, "the client's answer to the elicitation is malformed "
		                   "(want action accept, decline or cancel)");
	/* Only what the form asked for: "message", and "decision" when it
	 * offered grants.  Anything else answers another question and is
	 * never a decision. */
	json_object_foreach(content, key, v) {
		if (strcmp(key, "message") == 0 && json_is_string(v)) {
			note = json_string_value(v);
		} else if (strcmp(key, WARDEN_MCP_ELICIT_DECISION) == 0 && scopes != NULL &&
		           json_is_string(v)) {
			decision = json_string_value(v);
		} else {
			warden_text_escape(key, 0, shown, sizeof(shown));
			return unavailable(msg, msglen, "the client's answer to the elicitation holds "
			                   "\"%s\"%s, which the form did not ask for", shown,
			                   json_is_string(v) ? "" : " (not a string)");
		}
	}
	/* A grant the form did not offer is refused whatever the action:
	 * the answer is about another request. */
	if (decision != NULL && strcmp(decision, WARDEN_MCP_ELICIT_ONCE) != 0 &&
	    ((granted = chosen_scope(scopes, decision)) == NULL || strlen(granted) >= scopelen)) {
		warden_text_escape(decision, 0, shown, sizeof(shown));
		return unavailable(msg, msglen, "the client's answer to the elicitation chose "
		                   "\"%s\", which the form did not offer", shown);
	}
	if (strcmp(action, "accept") != 0 && strcmp(action, "decline") != 0 &&
	    strcmp(action, "cancel") != 0)
		return unavailable(msg, msglen, "the client's answer to the elicitation is malformed "
		                   "(want action accept, decline or cancel)");
	if (note != NULL && msglen > 0) {
		snprintf(msg, msglen, "%s", note);
		/* One line. */
		for (i = 0; msg[i] != '\0'; i++)
			if (msg[i] == '\n' || msg[i] == '\r')
				msg[i] = ' ';
	}
	if (strcmp(action, "decline") == 0)
		return WARDEN_OUTCOME_REJECTED;
	if (strcmp(action, "cancel") == 0)
		return WARDEN_OUTCOME_CANCELLED;
	if (granted == NULL)
		return WARDEN_OUTCOME_ALLOWED_ONCE;
	snprintf(scope, scopelen, "%s", granted);
	return WARDEN_OUTCOME_ALLOWED_FOR_SESSION;
}
