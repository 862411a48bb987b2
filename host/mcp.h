/*
 * mcp.h — what the Model Context Protocol says, for `warden mcp` (DESIGN
 * §8): the initialize handshake and version negotiation, the tool list
 * and its schemas, a tool call's arguments as a run request, a run's
 * result as the text a model reads plus structuredContent, and an
 * approval request as an elicitation and back.  JSON in, JSON out: the
 * connection, the runs, the requests to the client and their replies are
 * the server core's (host/server.h); this file owns the MCP shapes only.
 *
 * Protocol versions: 2025-06-18 and later.  A client that asks for one of
 * them gets it; any other request gets the latest this server speaks (the
 * client then decides whether to go on, as the protocol says).
 */
#ifndef WARDEN_MCP_H
#define WARDEN_MCP_H

#include <stddef.h>

#include "wconfig.h"

struct json_t;

#define WARDEN_MCP_LATEST "2025-11-25"

/* The tool a model calls, and the read-only one beside it. */
#define WARDEN_MCP_TOOL_RUN "run"
#define WARDEN_MCP_TOOL_STATE "session_state"

/* The longest output of each stream a tool result carries: the first and
 * the last half of it, with a line in between saying what was left out. */
#define WARDEN_MCP_OUTPUT_MAX WARDEN_OUTPUT_LIMIT_DEFAULT

/* The version to answer an initialize that asked for `requested` (may be
 * NULL). */
const char *warden_mcp_version(const char *requested);

/* Whether the initialize params declare form elicitation (an empty
 * "elicitation" object means form, as before modes existed). */
int warden_mcp_client_elicits(const struct json_t *init_params);

/* The initialize result; NULL when out of memory.  no_approver: NULL
 * when an escalation may be approved in this connection, else why nobody
 * can (the instructions then do not invite the model to escalate). */
struct json_t *warden_mcp_initialize_result(const char *version,
                                            const char *session_id,
                                            const char *root,
                                            const char *no_approver);

/* The tools/list result; NULL when out of memory.  no_approver as for
 * initialize: the run tool's description invites no escalation then;
 * max_timeout_ms the config's (0: unset), the run tool's timeout_s
 * maximum. */
struct json_t *warden_mcp_tools_list(const char *no_approver, long max_timeout_ms);

/* A run tool call's arguments, checked. */
struct warden_mcp_run_args {
	const char *command;        /* borrowed from the arguments */
	long timeout_ms;            /* 0: none */
	int escalate;               /* enum warden_sandbox_mode, 0: none */
	int escalate_network;
	const char *justification;  /* borrowed, or NULL */
	const char *cwd;            /* borrowed, or NULL: the session root;
	                               a relative one is taken from it */
	const char *stdin_text;     /* borrowed, or NULL: none (at most
	                               WARDEN_RUN_STDIN_MAX bytes) */
	int merge_output;           /* 1: stdout and stderr as one text */
};

/* 0 with *out filled, or -1 with why (a sentence for the model: what is
 * wrong and how to call it instead). */
int warden_mcp_run_args_parse(const struct json_t *arguments,
                              struct warden_mcp_run_args *out,
                              char *why, size_t whylen);

/*
 * A stream's output as a tool result keeps it: the first and the last
 * WARDEN_MCP_OUTPUT_MAX / 2 bytes, and how many there were in all.
 * Zero-initialize; warden_mcp_output_free() releases it.
 */
struct warden_mcp_output {
	char *head, *tail;          /* tail: a ring, next write at tpos */
	size_t nhead, ntail, tpos;
	unsigned long long total;
	size_t half;                /* set before the first add: half the
	                               limit (output_limit / 2); 0: half of
	                               WARDEN_MCP_OUTPUT_MAX */
	int count_only;             /* set before the first add: only total
	                               counts (stderr, when the other one
	                               keeps both streams as one) */
};

/* 0, or -1 when out of memory (the output is then incomplete). */
int warden_mcp_output_add(struct warden_mcp_output *o, const char *buf,
                          size_t len);
void warden_mcp_output_free(struct warden_mcp_output *o);

/*
 * The tools/call result of a run: `result` is the run's JSON object (the
 * `run --json` object: class, exit, ..., escalate_to, status, session),
 * borrowed; out/err the command's output (any bytes; NULL: none), or,
 * when err is count_only, out both streams as one (merge_output: every
 * byte of stderr added to both).  The
 * output is in the message once, in the text a model reads: the first
 * text block says exit, class and, after a denial, how to ask (or, when
 * the result has a "no_approver" string, that nobody can approve and
 * why); then a block for each stream that wrote something ("--- stdout\n"
 * and its text, "--- stderr\n", or "--- output (stdout and stderr as
 * written)\n" for both as one), UTF-8 with invalid bytes replaced, what
 * was left out of a long one said in a line where it was.
 * structuredContent is the object with "output" added: {stdout_bytes,
 * stderr_bytes, left_out, merged}.  isError unless the command ran and
 * exited 0.  NULL when out of memory.
 */
struct json_t *warden_mcp_run_result(const struct json_t *result,
                                     const struct warden_mcp_output *out,
                                     const struct warden_mcp_output *err);

/* A tools/call result that is an error the model can correct (nothing
 * ran); NULL when out of memory. */
struct json_t *warden_mcp_tool_error(const char *text);

/* The session_state result: the session's state object (the `session
 * state --json` object), borrowed; NULL when out of memory. */
struct json_t *warden_mcp_state_result(const struct json_t *state);

/*
 * The elicitation/create params that ask the client's user about an
 * approval request (its JSON: tool, subject, reason, requested_mode, cwd,
 * argv, program, interpreter, program_writable, env_removed,
 * path_dropped, path, call_id, grant_scopes, as plugin.h and
 * warden_server_request_json() name them; any may be absent).  The form
 * asks for an optional note for the model ("message") and, when the
 * request offers grant scopes ("grant_scopes": [{name, text}]), the
 * choice "decision": WARDEN_MCP_ELICIT_ONCE (the default) or
 * WARDEN_MCP_ELICIT_SESSION followed by a scope's name, one per scope
 * offered, each titled with the scope's text (escaped as the message
 * is).  version is the negotiated protocol version: titles are oneOf
 * const/title from 2025-11-25, enum and enumNames for 2025-06-18.  A
 * request that offers no scope gets no choice.  NULL when out of memory.
 */
#define WARDEN_MCP_ELICIT_DECISION "decision"
#define WARDEN_MCP_ELICIT_ONCE "allowed-once"
#define WARDEN_MCP_ELICIT_SESSION "allowed-for-session:"

struct json_t *warden_mcp_elicit_params(const struct json_t *request,
                                        const char *version);

/*
 * The outcome an elicitation result to that request stands for (enum
 * warden_outcome): accept is allowed-once, or allowed-for-session when
 * its decision names a scope the request offered (the scope's name is
 * then copied to scope); decline is rejected and cancel cancelled,
 * whatever the decision.  The note the user gave for the model (the
 * form's "message", one line) is copied to msg ("" when none).
 * Anything else is unavailable, with why in msg: another action, content
 * that is no object, a key the form did not ask for (a decision when no
 * scope was offered), a value that is no string, a decision the form did
 * not offer (with any action).
 */
int warden_mcp_elicit_outcome(const struct json_t *result,
                              const struct json_t *request,
                              char *scope, size_t scopelen,
                              char *msg, size_t msglen);

#endif
