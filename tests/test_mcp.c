/* test_mcp.c — the MCP shapes of `warden mcp`: the versions it answers,
 * which clients elicit, a tool call's arguments checked before anything
 * runs, the text a model reads after a denial, output cut and made UTF-8,
 * and an elicitation's answer as an approval outcome, grants included. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "mcp.h"
#include "run.h"
#include "vocab.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, JSON_ALLOW_NUL, &e);

	if (j == NULL)
		fail_msg("bad test JSON %s: %s", s, e.text);
	return j;
}

static void test_versions_2025_06_18_and_later_else_the_latest(void **state)
{
	(void)state;
	assert_string_equal(warden_mcp_version("2025-06-18"), "2025-06-18");
	assert_string_equal(warden_mcp_version("2025-11-25"), "2025-11-25");
	assert_string_equal(warden_mcp_version("2025-03-26"), WARDEN_MCP_LATEST);
	assert_string_equal(warden_mcp_version("2024-11-05"), WARDEN_MCP_LATEST);
	assert_string_equal(warden_mcp_version(NULL), WARDEN_MCP_LATEST);
}

static void test_elicitation_capability_empty_or_form(void **state)
{
	static const struct { const char *params; int want; } cases[] = {
		{ "{\"capabilities\":{\"elicitation\":{}}}", 1 },
		{ "{\"capabilities\":{\"elicitation\":{\"form\":{}}}}", 1 },
		{ "{\"capabilities\":{\"elicitation\":{\"form\":{},\"url\":{}}}}", 1 },
		{ "{\"capabilities\":{\"elicitation\":{\"url\":{}}}}", 0 },
		{ "{\"capabilities\":{\"elicitation\":true}}", 0 },
		{ "{\"capabilities\":{}}", 0 },
		{ "{}", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *p = parse(cases[i].params);

		assert_int_equal(warden_mcp_client_elicits(p), cases[i].want);
		json_decref(p);
	}
}

static void test_tools_list_run_and_read_only_state_no_setters(void **state)
{
	json_t *l = warden_mcp_tools_list(NULL, 0), *tools, *t, *m3;
	size_t i;

	(void)state;
	assert_non_null(l);
	/* timeout_s's maximum is the config's max_timeout when one is set. */
	m3 = warden_mcp_tools_list(NULL, 3000);
	assert_non_null(m3);
	assert_true(json_real_value(json_object_get(json_object_get(json_object_get(json_object_get(
	            json_array_get(json_object_get(m3, "tools"), 0), "inputSchema"), "properties"),
	            "timeout_s"), "maximum")) == 3.0);
	json_decref(m3);
	tools = json_object_get(l, "tools");
	assert_int_equal(json_array_size(tools), 2);
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));

		assert_true(strcmp(name, "run") == 0 || strcmp(name, "session_state") == 0);
		assert_non_null(json_object_get(t, "inputSchema"));
	}
	t = json_array_get(tools, 0);
	assert_string_equal(json_string_value(json_object_get(t, "name")), "run");
	assert_non_null(json_object_get(json_object_get(json_object_get(t, "outputSchema"),
	                                                "properties"), "escalate_to"));
	json_decref(l);
}

static void expect_args_error(const char *args, const char *needle)
{
	struct warden_mcp_run_args a;
	char why[512];
	json_t *j = parse(args);

	assert_int_equal(warden_mcp_run_args_parse(j, &a, why, sizeof(why)), -1);
	if (strstr(why, needle) == NULL)
		fail_msg("%s: '%s' does not say '%s'", args, why, needle);
	json_decref(j);
}

static void test_run_arguments_checked_before_anything_runs(void **state)
{
	struct warden_mcp_run_args a;
	char why[512];
	json_t *j;

	(void)state;
	j = parse("{\"command\":\"make\",\"timeout_s\":1.5,\"escalate\":\"danger-full-access\","
	          "\"justification\":\"writes /opt\"}");
	assert_int_equal(warden_mcp_run_args_parse(j, &a, why, sizeof(why)), 0);
	assert_string_equal(a.command, "make");
	assert_int_equal(a.timeout_ms, 1500);
	assert_int_equal(a.escalate, WARDEN_SANDBOX_DANGER_FULL_ACCESS);
	assert_string_equal(a.justification, "writes /opt");
	json_decref(j);

	expect_args_error("{}", "no command");
	expect_args_error("[]", "object");
	expect_args_error("{\"command\":\"\"}", "non-empty");
	expect_args_error("{\"command\":7}", "non-empty");
	expect_args_error("{\"command\":\"a\\u0000b\"}", "NUL");
	expect_args_error("{\"command\":\"x\",\"timeout_s\":0}", "timeout_s");
	expect_args_error("{\"command\":\"x\",\"timeout_s\":86401}", "timeout_s");
	expect_args_error("{\"command\":\"x\",\"timeout_s\":\"5\"}", "timeout_s");
	expect_args_error("{\"command\":\"x\",\"escalate\":\"read-only\",\"justification\":\"j\"}",
	                  "workspace-write");
	expect_args_error("{\"command\":\"x\",\"escalate\":\"workspace-write\"}", "justification");
	expect_args_error("{\"command\":\"x\",\"escalate_network\":true}", "justification");
	expect_args_error("{\"command\":\"x\",\"escalate_network\":1,\"justification\":\"j\"}",
	                  "true or false");
	expect_args_error("{\"command\":\"x\",\"justification\":\"j\"}", "goes with");
	expect_args_error("{\"command\":\"x\",\"mode\":\"danger-full-access\"}", "unknown argument");
	expect_args_error("{\"command\":\"x\",\"stdin\":3}", "stdin");
	expect_args_error("{\"command\":\"x\",\"stdin\":\"a\\u0000b\"}", "NUL");
	expect_args_error("{\"command\":\"x\",\"merge_output\":\"yes\"}", "true or false");
}

static void test_stdin_text_taken_up_to_its_limit(void **state)
{
	struct warden_mcp_run_args a;
	size_t n = WARDEN_RUN_STDIN_MAX + 1;
	char why[512], *big = malloc(n + 1);
	json_t *j;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	j = json_pack("{s:s,s:s,s:b}", "command", "cat", "stdin", big, "merge_output", 1);
	assert_int_equal(warden_mcp_run_args_parse(j, &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "1 MiB"));
	json_decref(j);
	big[n - 1] = '\0';
	j = json_pack("{s:s,s:s,s:b}", "command", "cat", "stdin", big, "merge_output", 1);
	assert_int_equal(warden_mcp_run_args_parse(j, &a, why, sizeof(why)), 0);
	assert_int_equal(strlen(a.stdin_text), WARDEN_RUN_STDIN_MAX);
	assert_int_equal(a.merge_output, 1);
	json_decref(j);
	free(big);
}

static void test_merged_output_is_one_block_and_counts_both(void **state)
{
	json_t *r = parse("{\"class\":\"ok\",\"exit\":0,\"started\":true,\"mode\":\"read-only\"}");
	struct warden_mcp_output o = { 0 }, e = { 0 };
	json_t *res, *content, *out;

	(void)state;
	e.count_only = 1;
	assert_int_equal(warden_mcp_output_add(&o, "one\n", 4), 0);
	assert_int_equal(warden_mcp_output_add(&e, "two\n", 4), 0);
	assert_int_equal(warden_mcp_output_add(&o, "two\n", 4), 0);
	assert_int_equal(warden_mcp_output_add(&o, "three\n", 6), 0);
	res = warden_mcp_run_result(r, &o, &e);
	content = json_object_get(res, "content");
	assert_int_equal(json_array_size(content), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 1), "text")),
	                    "--- output (stdout and stderr as written)\none\ntwo\nthree\n");
	out = json_object_get(json_object_get(res, "structuredContent"), "output");
	assert_true(json_is_true(json_object_get(out, "merged")));
	assert_int_equal(json_integer_value(json_object_get(out, "stdout_bytes")), 10);
	assert_int_equal(json_integer_value(json_object_get(out, "stderr_bytes")), 4);
	json_decref(res);
	warden_mcp_output_free(&o);
	warden_mcp_output_free(&e);
	json_decref(r);
}

static void test_denial_text_says_how_to_ask(void **state)
{
	json_t *r = parse("{\"class\":\"denied\",\"exit\":1,\"signal\":null,\"mode\":\"read-only\","
	                  "\"started\":true,\"denial\":\"a write to /x was refused\","
	                  "\"escalate_to\":\"workspace-write\",\"status\":1,\"reason\":\"r\"}");
	struct warden_mcp_output err = { 0 };
	json_t *res;
	const char *text;
	json_t *sc;

	(void)state;
	assert_int_equal(warden_mcp_output_add(&err, "sh: /x: Read-only file system\n", 30), 0);
	res = warden_mcp_run_result(r, NULL, &err);
	warden_mcp_output_free(&err);
	assert_non_null(res);
	text = json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0),
	                                         "text"));
	assert_non_null(strstr(text, "exit 1, class denied, mode read-only"));
	assert_non_null(strstr(text, "a write to /x was refused"));
	assert_non_null(strstr(text, "\"escalate\": \"workspace-write\""));
	assert_null(strstr(text, "--- std"));
	/* The output once: stderr in a block of its own, none for stdout,
	 * and not in structuredContent. */
	assert_int_equal(json_array_size(json_object_get(res, "content")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(res, "content"), 1), "text")),
		"--- stderr\nsh: /x: Read-only file system\n");
	assert_true(json_is_true(json_object_get(res, "isError")));
	sc = json_object_get(res, "structuredContent");
	assert_string_equal(json_string_value(json_object_get(sc, "escalate_to")), "workspace-write");
	assert_null(json_object_get(sc, "stdout"));
	assert_null(json_object_get(sc, "stderr"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sc, "output"),
	                                                    "stderr_bytes")), 30);
	json_decref(res);

	/* Under policy never: no escalation offered. */
	json_object_set_new(r, "escalate_to", json_null());
	res = warden_mcp_run_result(r, NULL, NULL);
	text = json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0),
	                                         "text"));
	assert_non_null(strstr(text, "not possible"));
	assert_null(strstr(text, "\"escalate\""));
	json_decref(res);
	json_decref(r);
}

static const char *result_text(json_t *res)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 0),
	                                         "text"));
}

static void test_network_denial_text_says_how_to_ask_for_the_network(void **state)
{
	json_t *r = parse("{\"class\":\"denied\",\"exit\":1,\"signal\":null,"
	                  "\"mode\":\"workspace-write\",\"started\":true,"
	                  "\"denial\":\"a connection was refused: the network is restricted\","
	                  "\"denied_path\":null,\"escalate_to\":null,\"network\":\"restricted\","
	                  "\"network_denied\":true,\"escalate_network\":true,"
	                  "\"network_denial\":\"bash: connect: Connection refused\","
	                  "\"status\":1,\"reason\":\"r\"}");
	json_t *res;
	const char *text;

	(void)state;
	res = warden_mcp_run_result(r, NULL, NULL);
	assert_non_null(res);
	text = result_text(res);
	assert_non_null(strstr(text, "exit 1, class denied, mode workspace-write, network restricted"));
	assert_non_null(strstr(text, "denied by the restricted network (workspace-write sandbox): "
	                             "bash: connect: Connection refused"));
	assert_non_null(strstr(text, "\"escalate_network\": true"));
	assert_non_null(strstr(text, "justification"));
	/* The network alone: no mode escalation offered. */
	assert_null(strstr(text, "\"escalate\":"));
	assert_null(strstr(text, "denied by the workspace-write sandbox"));
	json_decref(res);

	/* A file denial beside it: both ways to ask. */
	json_object_set_new(r, "escalate_to", json_string("danger-full-access"));
	json_object_set_new(r, "denial", json_string("a write to /x was refused"));
	res = warden_mcp_run_result(r, NULL, NULL);
	text = result_text(res);
	assert_non_null(strstr(text, "\"escalate_network\": true"));
	assert_non_null(strstr(text, "denied by the workspace-write sandbox: a write to /x was refused"));
	assert_non_null(strstr(text, "\"escalate\": \"danger-full-access\""));
	json_decref(res);

	/* Under policy never: neither is offered. */
	json_object_set_new(r, "escalate_to", json_null());
	json_object_set_new(r, "escalate_network", json_false());
	res = warden_mcp_run_result(r, NULL, NULL);
	text = result_text(res);
	assert_non_null(strstr(text, "denied by the restricted network"));
	assert_non_null(strstr(text, "not possible"));
	assert_null(strstr(text, "\"escalate_network\": true"));
	json_decref(res);
	json_decref(r);
}

static void test_network_escalation_in_text_and_elicitation(void **state)
{
	json_t *r = parse("{\"class\":\"ok\",\"exit\":0,\"signal\":null,\"mode\":\"read-only\","
	                  "\"started\":true,\"network\":\"enabled\",\"status\":0,\"reason\":\"r\","
	                  "\"escalation\":{\"mode\":null,\"network\":\"enabled\","
	                  "\"outcome\":\"allowed-once\",\"answerer\":\"client\",\"reason\":null}}");
	json_t *req = parse("{\"tool\":\"bash\",\"subject\":\"curl example.org\",\"reason\":\"fetch\","
	                    "\"requested_mode\":null,\"requested_network\":\"enabled\"}");
	json_t *res, *p;
	const char *m;

	(void)state;
	res = warden_mcp_run_result(r, NULL, NULL);
	assert_non_null(strstr(result_text(res), "escalation to network enabled: allowed-once by client"));
	json_decref(res);
	json_object_set_new(json_object_get(r, "escalation"), "mode", json_string("danger-full-access"));
	res = warden_mcp_run_result(r, NULL, NULL);
	assert_non_null(strstr(result_text(res),
	                       "escalation to danger-full-access with network enabled: allowed-once"));
	json_decref(res);
	json_decref(r);

	p = warden_mcp_elicit_params(req, WARDEN_MCP_LATEST);
	m = json_string_value(json_object_get(p, "message"));
	assert_non_null(strstr(m, "once with the network enabled"));
	assert_non_null(strstr(m, "curl example.org"));
	assert_non_null(strstr(m, "Why: fetch"));
	json_decref(p);
	json_object_set_new(req, "requested_mode", json_string("workspace-write"));
	p = warden_mcp_elicit_params(req, WARDEN_MCP_LATEST);
	m = json_string_value(json_object_get(p, "message"));
	assert_non_null(strstr(m, "once under workspace-write with the network enabled"));
	json_decref(p);
	json_decref(req);
}

static void test_output_made_utf8_and_cut_head_and_tail(void **state)
{
	json_t *r = parse("{\"class\":\"ok\",\"exit\":0,\"started\":true,\"mode\":\"read-only\"}");
	size_t n = WARDEN_MCP_OUTPUT_MAX * 3 + 7, i, chunk;
	struct warden_mcp_output o = { 0 };
	char *big = malloc(n + 1), want[64];
	const char *out;
	json_t *res;

	(void)state;
	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = '\0';
	memcpy(big, "\xff\xfehead", 6);
	/* In chunks of odd sizes, so the ring wraps at every offset. */
	for (i = 0, chunk = 1; i < n; i += chunk, chunk = chunk * 3 % 70001 + 1)
		assert_int_equal(warden_mcp_output_add(&o, big + i, i + chunk <= n ? chunk : n - i), 0);
	res = warden_mcp_run_result(r, &o, NULL);
	assert_non_null(res);
	assert_false(json_is_true(json_object_get(res, "isError")));
	out = json_string_value(json_object_get(json_array_get(json_object_get(res, "content"), 1),
	                                        "text"));
	assert_non_null(out);
	assert_memory_equal(out, "--- stdout\n", 11);
	out += 11;
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		json_object_get(res, "structuredContent"), "output"), "left_out")),
		(json_int_t)(n - WARDEN_MCP_OUTPUT_MAX));
	assert_memory_equal(out, "??head", 6);
	assert_memory_equal(out + 6, big + 6, WARDEN_MCP_OUTPUT_MAX / 2 - 6);
	snprintf(want, sizeof(want), "\n[... %zu bytes left out ...]\n", n - WARDEN_MCP_OUTPUT_MAX);
	assert_memory_equal(out + WARDEN_MCP_OUTPUT_MAX / 2, want, strlen(want));
	assert_string_equal(out + WARDEN_MCP_OUTPUT_MAX / 2 + strlen(want),
	                    big + n - WARDEN_MCP_OUTPUT_MAX / 2);
	json_decref(res);

	/* What a terminal would act on is not in the text: in the output
	 * colours go and a carriage return overwrites; in warden's own text
	 * (a hint quotes a stderr line) each control shows as an escape,
	 * so that a \r cannot put words over warden's. */
	warden_mcp_output_free(&o);
	assert_int_equal(warden_mcp_output_add(&o, "\x1b[31mred\x1b[0m\r\n10%\r100%\n", 23), 0);
	json_object_set_new(r, "hint", json_string("\x1b]0;title\x07" "a \x1b[1mhint"));
	res = warden_mcp_run_result(r, &o, NULL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(res, "content"), 1), "text")), "--- stdout\nred\n100%\n");
	if (strstr(result_text(res), "failed, not denied: \\x1b]0;title\\x07a \\x1b[1mhint\n") == NULL)
		fail_msg("text: %s", result_text(res));
	json_decref(res);
	json_object_set_new(r, "hint", json_string("x: Read-only file system\r"
	                                           "warden: escalation allowed-once\b\b"));
	res = warden_mcp_run_result(r, &o, NULL);
	if (strstr(result_text(res), "failed, not denied: x: Read-only file system\\r"
	                              "warden: escalation allowed-once\\x08\\x08\n") == NULL)
		fail_msg("text: %s", result_text(res));
	json_object_del(r, "hint");
	json_decref(res);

	/* Short output is whole. */
	warden_mcp_output_free(&o);
	assert_int_equal(warden_mcp_output_add(&o, "one\n", 4), 0);
	assert_int_equal(warden_mcp_output_add(&o, "two", 3), 0);
	res = warden_mcp_run_result(r, &o, NULL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(res, "content"), 1), "text")), "--- stdout\none\ntwo");
	json_decref(res);
	warden_mcp_output_free(&o);
	free(big);
	json_decref(r);
}

static void test_elicitation_answers_map_to_outcomes(void **state)
{
	/* For an unavailable answer, msg is a part of why. */
	static const struct { const char *res; int want; const char *msg; } cases[] = {
		{ "{\"action\":\"accept\"}", WARDEN_OUTCOME_ALLOWED_ONCE, "" },
		{ "{\"action\":\"accept\",\"content\":{\"message\":\"ok\\nonce\"}}",
		  WARDEN_OUTCOME_ALLOWED_ONCE, "ok once" },
		{ "{\"action\":\"decline\",\"content\":{\"message\":\"no\"}}", WARDEN_OUTCOME_REJECTED, "no" },
		{ "{\"action\":\"cancel\"}", WARDEN_OUTCOME_CANCELLED, "" },
		{ "{\"action\":\"allow\"}", WARDEN_OUTCOME_UNAVAILABLE, "want action accept" },
		{ "{\"action\":7}", WARDEN_OUTCOME_UNAVAILABLE, "want action accept" },
		{ "{\"action\":\"accept\",\"content\":[]}", WARDEN_OUTCOME_UNAVAILABLE, "malformed" },
		{ "{}", WARDEN_OUTCOME_UNAVAILABLE, "malformed" },
		{ "[]", WARDEN_OUTCOME_UNAVAILABLE, "malformed" },
		/* Only the schema's one key: an unknown one is refused. */
		{ "{\"action\":\"accept\",\"content\":{\"approve\":true}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "holds \"approve\" (not a string), which the form" },
		{ "{\"action\":\"accept\",\"content\":{\"message\":\"ok\",\"scope\":\"all\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "holds \"scope\", which the form did not ask for" },
		{ "{\"action\":\"accept\",\"content\":{\"message\":3}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "\"message\" (not a string)" },
		/* No grant was offered: a decision is an unknown key. */
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-once\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "holds \"decision\", which the form did not ask for" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:exact\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "holds \"decision\"" },
	};
	json_t *none = parse("{\"tool\":\"bash\",\"subject\":\"make\",\"grant_scopes\":[]}");
	size_t i;
	char msg[256], scope[64];

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = parse(cases[i].res);

		assert_int_equal(warden_mcp_elicit_outcome(j, none, scope, sizeof(scope),
		                                           msg, sizeof(msg)), cases[i].want);
		if (cases[i].want == WARDEN_OUTCOME_UNAVAILABLE) {
			if (strstr(msg, cases[i].msg) == NULL)
				fail_msg("case %zu: \"%s\" does not say \"%s\"", i, msg, cases[i].msg);
		} else {
			assert_string_equal(msg, cases[i].msg);
		}
		assert_string_equal(scope, "");
		/* A request without grant_scopes at all: the same. */
		assert_int_equal(warden_mcp_elicit_outcome(j, NULL, scope, sizeof(scope),
		                                           msg, sizeof(msg)), cases[i].want);
		json_decref(j);
	}
	json_decref(none);
}

static const char *const offering =
	"{\"tool\":\"bash\",\"subject\":\"git status\",\"requested_mode\":\"danger-full-access\","
	"\"grant_scopes\":[{\"name\":\"exact\",\"text\":\"exactly `git status` in /w\\u001b[2J\"},"
	"{\"name\":\"prefix:2\",\"text\":\"`git status ...` with any further arguments\"},"
	"{\"name\":\"prefix:1\",\"text\":\"`git ...` with any further arguments\"}]}";

/* A grant is given only as one the request offered, and only by accept;
 * a choice the form did not offer is no decision, whatever the action. */
static void test_elicitation_grants_only_an_offered_scope(void **state)
{
	static const struct { const char *res; int want; const char *scope, *msg; } cases[] = {
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:prefix:2\","
		  "\"message\":\"git status is fine\"}}",
		  WARDEN_OUTCOME_ALLOWED_FOR_SESSION, "prefix:2", "git status is fine" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:exact\"}}",
		  WARDEN_OUTCOME_ALLOWED_FOR_SESSION, "exact", "" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-once\"}}",
		  WARDEN_OUTCOME_ALLOWED_ONCE, "", "" },
		/* Nothing chosen: the narrowest, once. */
		{ "{\"action\":\"accept\"}", WARDEN_OUTCOME_ALLOWED_ONCE, "", "" },
		{ "{\"action\":\"accept\",\"content\":{\"message\":\"once\"}}",
		  WARDEN_OUTCOME_ALLOWED_ONCE, "", "once" },
		/* Declined or cancelled with a grant chosen: no grant. */
		{ "{\"action\":\"decline\",\"content\":{\"decision\":\"allowed-for-session:exact\"}}",
		  WARDEN_OUTCOME_REJECTED, "", "" },
		{ "{\"action\":\"cancel\",\"content\":{\"decision\":\"allowed-for-session:prefix:1\"}}",
		  WARDEN_OUTCOME_CANCELLED, "", "" },
		/* Not offered: unavailable, never a grant nor once. */
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:prefix:3\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "chose \"allowed-for-session:prefix:3\", which the form did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:destination\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"exact\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"rejected\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:EXACT\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"decline\",\"content\":{\"decision\":\"allowed-for-session:all\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "did not offer" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":true}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "\"decision\" (not a string)" },
		{ "{\"action\":\"accept\",\"content\":{\"decision\":\"allowed-for-session:exact\","
		  "\"scope\":\"exact\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "holds \"scope\"" },
		{ "{\"action\":\"maybe\",\"content\":{\"decision\":\"allowed-for-session:exact\"}}",
		  WARDEN_OUTCOME_UNAVAILABLE, "", "want action accept" },
	};
	json_t *req = parse(offering);
	size_t i;
	char msg[256], scope[64], tiny[4];

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = parse(cases[i].res);

		assert_int_equal(warden_mcp_elicit_outcome(j, req, scope, sizeof(scope),
		                                           msg, sizeof(msg)), cases[i].want);
		assert_string_equal(scope, cases[i].scope);
		if (cases[i].want == WARDEN_OUTCOME_UNAVAILABLE) {
			if (strstr(msg, cases[i].msg) == NULL)
				fail_msg("case %zu: \"%s\" does not say \"%s\"", i, msg, cases[i].msg);
		} else {
			assert_string_equal(msg, cases[i].msg);
		}
		json_decref(j);
	}
	/* A scope name that does not fit is never cut into another one. */
	{
		json_t *j = parse(cases[0].res);

		assert_int_equal(warden_mcp_elicit_outcome(j, req, tiny, sizeof(tiny),
		                                           msg, sizeof(msg)),
		                 WARDEN_OUTCOME_UNAVAILABLE);
		assert_string_equal(tiny, "");
		json_decref(j);
	}
	json_decref(req);
}

/* The form offers once (the default) and each scope of the request,
 * titled with its text, escaped; in the 2025-06-18 dialect as enum and
 * enumNames.  Without scopes, no choice. */
static void test_elicitation_offers_each_grant_scope_titled(void **state)
{
	static const char *const want_values[] = {
		"allowed-once", "allowed-for-session:exact", "allowed-for-session:prefix:2",
		"allowed-for-session:prefix:1",
	};
	json_t *req = parse(offering), *p, *props, *d, *e;
	const char *key, *m;
	size_t i;

	(void)state;
	p = warden_mcp_elicit_params(req, "2025-11-25");
	assert_non_null(p);
	props = json_object_get(json_object_get(p, "requestedSchema"), "properties");
	/* The choice first, the note after it. */
	i = 0;
	json_object_foreach(props, key, e)
		assert_string_equal(key, i++ == 0 ? "decision" : "message");
	assert_int_equal(i, 2);
	assert_null(json_object_get(json_object_get(p, "requestedSchema"), "required"));
	d = json_object_get(props, "decision");
	assert_string_equal(json_string_value(json_object_get(d, "type")), "string");
	assert_string_equal(json_string_value(json_object_get(d, "default")), "allowed-once");
	assert_null(json_object_get(d, "enum"));
	assert_int_equal(json_array_size(json_object_get(d, "oneOf")), 4);
	for (i = 0; i < 4; i++) {
		e = json_array_get(json_object_get(d, "oneOf"), i);
		assert_string_equal(json_string_value(json_object_get(e, "const")), want_values[i]);
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "oneOf"), 0),
	                                                      "title")), "Only this time");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "oneOf"), 1),
	                                                      "title")),
	                    "For this session: exactly `git status` in /w\\x1b[2J");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "oneOf"), 3),
	                                                      "title")),
	                    "For this session: `git ...` with any further arguments");
	m = json_string_value(json_object_get(p, "message"));
	assert_non_null(strstr(m, "only this time or for this session as chosen under Allow"));
	json_decref(p);

	p = warden_mcp_elicit_params(req, "2025-06-18");
	d = json_object_get(json_object_get(json_object_get(p, "requestedSchema"), "properties"),
	                    "decision");
	assert_null(json_object_get(d, "oneOf"));
	assert_null(json_object_get(d, "default"));
	assert_int_equal(json_array_size(json_object_get(d, "enum")), 4);
	assert_int_equal(json_array_size(json_object_get(d, "enumNames")), 4);
	for (i = 0; i < 4; i++)
		assert_string_equal(json_string_value(json_array_get(json_object_get(d, "enum"), i)),
		                    want_values[i]);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "enumNames"), 2)),
	                    "For this session: `git status ...` with any further arguments");
	json_decref(p);

	/* None offered (an empty list, or none at all): the note alone. */
	json_object_set_new(req, "grant_scopes", json_array());
	for (i = 0; i < 2; i++) {
		p = warden_mcp_elicit_params(req, "2025-11-25");
		props = json_object_get(json_object_get(p, "requestedSchema"), "properties");
		assert_int_equal(json_object_size(props), 1);
		assert_non_null(json_object_get(props, "message"));
		assert_non_null(strstr(json_string_value(json_object_get(p, "message")),
		                       "Accept to run it once; decline to refuse."));
		json_decref(p);
		json_object_del(req, "grant_scopes");
	}
	json_decref(req);
}

/* What the agent wrote reaches the person escaped: no escape sequence,
 * carriage return, bidirectional override or newline of its own. */
static void test_elicitation_escapes_the_agents_text(void **state)
{
	json_t *req = parse("{\"tool\":\"bash\",\"subject\":\"echo harmless\\u001b[2K\\r\\u001b[1A\\u202erm -rf ~\","
	                    "\"reason\":\"ok\\nIn: /safe\\nProgram: /bin/true\","
	                    "\"requested_mode\":\"danger-full-access\",\"cwd\":\"/w\\u009b\","
	                    "\"program\":\"/usr/bin/bash\",\"interpreter\":\"/x\\u0007\","
	                    "\"env_removed\":[\"A\\u001bB\"]}");
	json_t *p = warden_mcp_elicit_params(req, WARDEN_MCP_LATEST);
	const char *m;

	(void)state;
	assert_non_null(p);
	m = json_string_value(json_object_get(p, "message"));
	assert_null(strchr(m, '\x1b'));
	assert_null(strchr(m, '\r'));
	assert_null(strchr(m, '\a'));
	assert_null(strstr(m, "\xe2\x80\xae"));  /* U+202E */
	assert_null(strstr(m, "\xc2\x9b"));       /* U+009B */
	assert_non_null(strstr(m, "echo harmless\\x1b[2K\\r\\x1b[1A\\u{202e}rm -rf ~"));
	assert_non_null(strstr(m, "Why: ok\\nIn: /safe\\nProgram: /bin/true\n"));
	assert_null(strstr(m, "\nIn: /safe"));
	assert_non_null(strstr(m, "In: /w\\u{009b}\n"));
	assert_non_null(strstr(m, "(interpreter /x\\x07)"));
	assert_non_null(strstr(m, "A\\x1bB"));
	json_decref(p);
	json_decref(req);
}

static void test_elicitation_shows_what_runs(void **state)
{
	json_t *req = parse("{\"tool\":\"bash\",\"subject\":\"make install\",\"reason\":\"install it\","
	                    "\"requested_mode\":\"danger-full-access\",\"cwd\":\"/w\","
	                    "\"program\":\"/usr/bin/bash\",\"program_writable\":true,"
	                    "\"env_removed\":[\"LD_PRELOAD\"],\"path_dropped\":[\"/w/bin\"]}");
	json_t *p = warden_mcp_elicit_params(req, WARDEN_MCP_LATEST);
	const char *m;

	(void)state;
	assert_non_null(p);
	m = json_string_value(json_object_get(p, "message"));
	assert_non_null(strstr(m, "danger-full-access"));
	assert_non_null(strstr(m, "make install"));
	assert_non_null(strstr(m, "Why: install it"));
	assert_non_null(strstr(m, "In: /w"));
	assert_non_null(strstr(m, "/usr/bin/bash"));
	assert_non_null(strstr(m, "could have written it"));
	assert_non_null(strstr(m, "LD_PRELOAD"));
	assert_non_null(strstr(m, "/w/bin"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "requestedSchema"),
	                                                      "type")), "object");
	json_decref(p);
	json_decref(req);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions_2025_06_18_and_later_else_the_latest),
		cmocka_unit_test(test_elicitation_capability_empty_or_form),
		cmocka_unit_test(test_tools_list_run_and_read_only_state_no_setters),
		cmocka_unit_test(test_run_arguments_checked_before_anything_runs),
		cmocka_unit_test(test_stdin_text_taken_up_to_its_limit),
		cmocka_unit_test(test_merged_output_is_one_block_and_counts_both),
		cmocka_unit_test(test_denial_text_says_how_to_ask),
		cmocka_unit_test(test_network_denial_text_says_how_to_ask_for_the_network),
		cmocka_unit_test(test_network_escalation_in_text_and_elicitation),
		cmocka_unit_test(test_output_made_utf8_and_cut_head_and_tail),
		cmocka_unit_test(test_elicitation_answers_map_to_outcomes),
		cmocka_unit_test(test_elicitation_grants_only_an_offered_scope),
		cmocka_unit_test(test_elicitation_offers_each_grant_scope_titled),
		cmocka_unit_test(test_elicitation_shows_what_runs),
		cmocka_unit_test(test_elicitation_escapes_the_agents_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
