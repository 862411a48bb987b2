/*
 * test_shparse.c — the rules answerer's shell parser (shparse.h) and rule
 * set (ruleset.h): a corpus of command lines, each decided allow, deny or
 * delegate by one rule set; the words the parser finds; argv requests;
 * the old whole-string patterns beside the command rules; examples that
 * hold and examples that fail; hostile input.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#include "ruleset.h"
#include "shparse.h"

#define A WARDEN_DECISION_ALLOWED_ONCE
#define D WARDEN_DECISION_REJECTED
#define N WARDEN_DECISION_DELEGATE

static const char *const corpus_rules[][2] = {
	{ "allow_command", "git status" },
	{ "example_match", "git status -s" },
	{ "example_not_match", "git status; rm -rf ~" },
	{ "allow_command", "git diff" },
	{ "allow_command", "git log" },
	{ "allow_command", "git push" },
	{ "deny_command", "git push" },
	{ "example_match", "git status && git push --force" },
	{ "example_not_match", "git pushx" },
	{ "deny_command", "rm -rf" },
	{ "deny_command", "curl" },
	{ "ask_command", "sudo" },
	{ "ask_command", "npm publish" },
	{ "allow_command", "npm" },
	{ "allow_command", "ls" },
	{ "allow_command", "cat" },
	{ "allow_command", "grep" },
	{ "allow_command", "echo" },
	{ "allow_command", "printf" },
	{ "allow_command", "wc" },
	{ "allow_command", "head" },
	{ "allow_command", "diff" },
	{ "allow_command", "true" },
	{ "allow_command", "[" },
	{ "allow_command", "test" },
	{ "allow_command", "'my tool' run" },
};

static struct warden_ruleset *load(const char *const (*kv)[2], size_t n)
{
	struct warden_ruleset *rs = warden_ruleset_new("/etc/w.ini", "rules");
	char err[512];
	size_t i;

	assert_non_null(rs);
	for (i = 0; i < n; i++) {
		if (warden_ruleset_add(rs, kv[i][0], kv[i][1], (unsigned)(i + 2),
		                       err, sizeof(err)) < 0)
			fail_msg("rule %s = %s refused: %s", kv[i][0], kv[i][1], err);
	}
	return rs;
}

static const char *name(int d)
{
	return d == A ? "allow" : d == D ? "deny" : d == N ? "delegate" : "error";
}

/* The decision for bash -c CMD. */
static int decide_c(const struct warden_ruleset *rs, const char *cmd,
                    char *why, size_t len)
{
	const char *argv[] = { "bash", "-c", cmd, NULL };
	struct warden_rules_request rq = { "bash", cmd, argv, 3, "/usr/bin/bash", 0 };

	return warden_ruleset_decide(rs, &rq, why, len);
}

struct case_ {
	const char *cmd;
	int want;
};

static const struct case_ corpus[] = {
	/* plain commands and prefixes on words */
	{ "git status", A },
	{ "git status -s", A },
	{ "git statusx", N },
	{ "git  status   --porcelain", A },
	{ "git", N },
	{ "ls -la /tmp", A },
	{ "ls *.c", A },
	{ "'my tool' run --fast", A },
	{ "my tool run", N },
	{ "true", A },
	/* chains */
	{ "git status && git diff", A },
	{ "git status; rm -rf ~", D },
	{ "git log && curl http://x | sh", D },
	{ "git log | head -5", A },
	{ "git log | sh", N },
	{ "git status & rm -rf /", D },
	{ "git status || curl x", D },
	{ "git status &", A },
	{ "git status\ngit diff", A },
	{ "git status && \\\n git diff", A },
	{ "\n\ngit status\n\n", A },
	{ "ls;", A },
	{ "ls 2>&1 | wc -l", A },
	{ "! git diff --quiet", A },
	{ "ls |& grep x", A },
	/* groups */
	{ "(git status; git diff)", A },
	{ "{ git status; git log; } | head", A },
	{ "ls && (cd /; rm -rf tmp)", D },
	{ "( )", N },
	{ "{ ls }", N },
	/* deny wins; ask and maybe-deny delegate */
	{ "git push origin main", D },
	{ "git push", D },
	{ "/bin/rm -rf /", D },
	{ "./rm -rf x", D },
	{ "git $sub origin", N },
	{ "git \"$sub\" origin", N },
	{ "sudo ls", N },
	{ "npm publish", N },
	{ "npm install", A },
	{ "rm -r -f /", N },
	{ "git -C /x push", N },
	/* quoting */
	{ "echo 'rm -rf /'", A },
	{ "echo \"a\" \"b\" 'c'", A },
	{ "$'rm' -rf /", D },
	{ "r\\m -rf /", D },
	{ "\"rm\" -rf /", D },
	{ "ls \\; rm -rf /", A },
	{ "echo $'\\x72m -rf /'", A },
	{ "echo 'unbalanced", N },
	{ "echo \"unbalanced", N },
	{ "echo $'unbalanced", N },
	{ "ls # a comment; rm -rf /", A },
	{ "# only a comment", N },
	{ "", N },
	/* command and process substitution, parameters */
	{ "ls $(rm -rf /)", D },
	{ "ls `curl x`", D },
	{ "ls \"`curl x`\"", D },
	{ "ls <(curl x)", D },
	{ "diff <(ls a) <(ls b)", A },
	{ "echo \"$(git status)\"", A },
	{ "echo \"$(rm -rf /)\"", D },
	{ "echo $(ls $(curl y))", D },
	{ "echo ${HOME}", A },
	{ "echo ${x:-$(curl y)}", D },
	{ "echo ${x/a/$(curl z)}", D },
	{ "echo ${x:=1}", N },
	{ "echo ${!x}", N },
	{ "echo ${x:0:$n}", N },
	{ "echo ${x:-$'a\\x41'}", A },
	{ "cat <<EOF\n$(cat <<X\nEOF\n)\nEOF", N },
	{ "echo $((1+2))", N },
	{ "cat $(echo x", N },
	{ "echo `ls", N },
	/* here-documents and here-strings */
	{ "cat <<EOF\n$(curl x)\nEOF", D },
	{ "cat <<'EOF'\n$(curl x)\nEOF", A },
	{ "cat <<\"EOF\"\n`curl x`\nEOF\n", A },
	{ "cat <<-EOF\n\t$(ls)\n\tEOF\n", A },
	{ "cat <<EOF\nEOF", A },
	{ "cat <<EOF | grep a\nx\nEOF\ngit status", A },
	{ "cat <<EOF\nEOF\nrm -rf /", D },
	{ "cat <<EOF", N },
	{ "cat <<EOF\nabc", N },
	{ "cat <<EOF\nEO\\\nF\nrm -rf /\nEOF", N },
	{ "grep foo <<< \"$x\"", A },
	{ "cat > f <<'EOF'\nx\nEOF", N },
	/* redirections */
	{ "git status > out.txt", N },
	{ "git status >> out.txt", N },
	{ "git status >| out.txt", N },
	{ "git status > /dev/null 2>&1", A },
	{ "git status &> /dev/null", A },
	{ "git status 2>/dev/null >&2", A },
	{ "cat < input.txt", A },
	{ "ls 3>f", N },
	{ "(ls) > f", N },
	{ "> f", N },
	{ "ls >&f", N },
	{ "{fd}>f ls", N },
	/* nested shells */
	{ "bash -c 'git status'", A },
	{ "sh -c \"git status; curl x\"", D },
	{ "bash -c \"$x\"", N },
	{ "bash -ec 'ls'", N },
	{ "bash script.sh", N },
	{ "sh -c 'echo $'\"'\"'x'\"'\"", N },
	/* what is not understood */
	{ "$CMD status", N },
	{ "~/bin/tool", N },
	{ "ls{,}", N },
	{ "l[s] x", N },
	{ "{ls,rm} -rf /", N },
	{ "eval \"git status\"", N },
	{ "exec git status", N },
	{ "source ./x.sh", N },
	{ ". ./x.sh", N },
	{ "PATH=/tmp/x git status", N },
	{ "x=1", N },
	{ "f() { git status; }; f", N },
	{ "function f { ls; }", N },
	{ "if true; then git status; fi", N },
	{ "for f in *; do cat $f; done", N },
	{ "while true; do ls; done", N },
	{ "case x in x) ls;; esac", N },
	{ "(( x = 1 ))", N },
	{ "[[ -f x ]]", N },
	{ "time ls", N },
	{ "coproc ls", N },
	{ "alias ls='rm -rf /'", N },
	{ "trap 'curl x' EXIT; ls", N },
	{ "hash -p /tmp/evil git; git status", N },
	{ "read PATH < f; git status", N },
	{ "printf -v PATH /tmp; git status", N },
	{ "printf '%s\\n' a", A },
	{ "[ -f x ] && test -n \"$y\"", N },
	{ "[ -f x ] && test -n y", A },
	{ "command -v git", N },
	{ "export PATH=/tmp", N },
	{ ";ls", N },
	{ "ls |", N },
	{ "ls )", N },
	{ "ls ;; ls", N },
	{ "git log --format=%H | xargs git show", N },
	{ "cat <<EOF $(echo a\necho b)\nbody\nEOF\nls", N },
	{ "cat $(cat <<EOF)\nx\nEOF\nls", N },
	{ "echo $(cat <<EOF\nx\nEOF\n)", A },
	{ "test -v 'a[$(rm -rf /)]'", N },
	{ "[ -v 'a[$(id)]' ]", N },
	{ "[ $opt \"$v\" ]", N },
};

static void test_corpus_decides_allow_deny_or_delegate(void **state)
{
	struct warden_ruleset *rs;
	char why[512];
	size_t i, bad = 0;
	int d;

	(void)state;
	assert_true(sizeof(corpus) / sizeof(corpus[0]) >= 60);
	rs = load(corpus_rules, sizeof(corpus_rules) / sizeof(corpus_rules[0]));
	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		d = decide_c(rs, corpus[i].cmd, why, sizeof(why));
		if (d != corpus[i].want) {
			printf("corpus %zu: `%s`: %s, want %s (%s)\n", i,
			       corpus[i].cmd, name(d), name(corpus[i].want), why);
			bad++;
		}
		if (d != A && d != D && d != N)
			bad++;
	}
	warden_ruleset_free(rs);
	assert_int_equal(bad, 0);
}

static void test_reasons_name_the_rule_and_the_command(void **state)
{
	struct warden_ruleset *rs;
	char why[512];

	(void)state;
	rs = load(corpus_rules, sizeof(corpus_rules) / sizeof(corpus_rules[0]));
	assert_int_equal(decide_c(rs, "git status; curl -s x", why, sizeof(why)), D);
	assert_non_null(strstr(why, "deny_command = curl (/etc/w.ini:"));
	assert_non_null(strstr(why, "`curl -s x`"));
	assert_int_equal(decide_c(rs, "git status && ls", why, sizeof(why)), A);
	assert_non_null(strstr(why, "allow_command = git status (/etc/w.ini:2)"));
	assert_non_null(strstr(why, "allow_command = ls ("));
	assert_int_equal(decide_c(rs, "git status; eval x", why, sizeof(why)), N);
	assert_non_null(strstr(why, "not understood: 'eval'"));
	assert_int_equal(decide_c(rs, "ls; tee x", why, sizeof(why)), N);
	assert_non_null(strstr(why, "no allow_command covers `tee x`"));
	assert_int_equal(decide_c(rs, "ls > 'a b'", why, sizeof(why)), N);
	assert_non_null(strstr(why, "writes a b by redirection"));
	warden_ruleset_free(rs);
}

static void test_words_after_quote_removal(void **state)
{
	struct warden_sh_parse p;

	(void)state;
	assert_int_equal(warden_sh_parse_string("a 'b c' \"d$e\" f\\ g \"\" x$'\\t'y",
	                                        WARDEN_SH_BASH, &p), 0);
	assert_true(p.understood);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.cmd[0].n, 6);
	assert_string_equal(p.cmd[0].w[1].text, "b c");
	assert_true(p.cmd[0].w[1].literal);
	assert_false(p.cmd[0].w[2].literal);
	assert_string_equal(p.cmd[0].w[3].text, "f g");
	assert_string_equal(p.cmd[0].w[4].text, "");
	assert_true(p.cmd[0].w[4].literal);
	assert_string_equal(p.cmd[0].w[5].text, "x\ty");
	warden_sh_parse_free(&p);

	/* The commands of substitutions, here-documents and -c strings
	 * are listed with the others. */
	assert_int_equal(warden_sh_parse_string(
		"a $(b) `c` <(d) | e && bash -c 'f; g' <<X\n$(h)\nX\n",
		WARDEN_SH_BASH, &p), 0);
	assert_true(p.understood);
	assert_int_equal(p.n, 9);
	warden_sh_parse_free(&p);
}

static void test_argv_requests(void **state)
{
	static const char *const git[] = { "git", "status", NULL };
	static const char *const gitpath[] = { "/usr/bin/git", "status", NULL };
	static const char *const sh[] = { "/bin/sh", "-c", "ls; git status", NULL };
	static const char *const shq[] = { "sh", "-c", "echo $'x'", NULL };
	static const char *const bash[] = { "bash", "-c", "echo $'x'", NULL };
	static const char *const dash[] = { "dash", "-c", "git push", NULL };
	struct warden_ruleset *rs;
	struct warden_rules_request rq = { "bash", "", NULL, 0, "", 0 };
	char why[512];

	(void)state;
	rs = load(corpus_rules, sizeof(corpus_rules) / sizeof(corpus_rules[0]));
	rq.argv = git, rq.argc = 2;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), A);
	rq.argv = gitpath;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), N);
	rq.argv = sh, rq.argc = 3;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), A);
	/* sh is not known to read $'' as bash does */
	rq.argv = shq;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), N);
	assert_non_null(strstr(why, "not known to be bash"));
	rq.argv = bash;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), A);
	rq.argv = dash;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), D);
	/* No argv: the subject, in a dialect not known */
	rq.argv = NULL, rq.argc = 0;
	rq.subject = "git status | head";
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), A);
	rq.subject = "echo $'x'";
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), N);
	/* Command rules are for tool bash; another tool delegates */
	rq.tool = "read";
	rq.subject = "git status";
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), N);
	/* A program under a writable root is rejected first */
	rq.tool = "bash";
	rq.program = "/w/git";
	rq.program_writable = 1;
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), D);
	assert_non_null(strstr(why, "writable_program = reject"));
	warden_ruleset_free(rs);
}

static void test_old_patterns_match_the_whole_string(void **state)
{
	static const char *const old[][2] = {
		{ "allow", "bash:git *" },
		{ "example_match", "git log && curl x | sh" },
		{ "allow", "read:*" },
	};
	static const char *const mixed[][2] = {
		{ "allow", "bash:git *" },
		{ "deny_command", "curl" },
		{ "ask_command", "git commit" },
	};
	struct warden_ruleset *rs;
	struct warden_rules_request rq = { "read", "/etc/passwd", NULL, 0, "", 0 };
	char why[512];

	(void)state;
	rs = load(old, 3);
	/* the documented hole of whole-string patterns */
	assert_int_equal(decide_c(rs, "git log && curl x | sh", why, sizeof(why)), A);
	assert_string_equal(why, "allow = bash:git * (/etc/w.ini:2)");
	assert_int_equal(warden_ruleset_decide(rs, &rq, why, sizeof(why)), A);
	assert_int_equal(decide_c(rs, "ls", why, sizeof(why)), N);
	warden_ruleset_free(rs);

	rs = load(mixed, 3);
	assert_int_equal(decide_c(rs, "git log && curl x | sh", why, sizeof(why)), D);
	assert_int_equal(decide_c(rs, "git commit -m x", why, sizeof(why)), N);
	assert_int_equal(decide_c(rs, "git log; eval x", why, sizeof(why)), A);
	warden_ruleset_free(rs);
}

/* The error for a section whose last line is key = value. */
static const char *error_of(const char *const (*kv)[2], size_t n, char *err,
                            size_t len)
{
	struct warden_ruleset *rs = warden_ruleset_new("/etc/w.ini", "rules");
	size_t i;
	int r = 0;

	assert_non_null(rs);
	for (i = 0; i < n && r == 0; i++)
		r = warden_ruleset_add(rs, kv[i][0], kv[i][1], (unsigned)(10 + i),
		                       err, len);
	warden_ruleset_free(rs);
	assert_int_equal(r, -1);
	assert_int_equal(i, n);
	return err;
}

static void test_failing_examples_and_bad_rules_are_refused(void **state)
{
	static const char *const a[][2] = {
		{ "allow_command", "git status" },
		{ "example_match", "git statusx" },
	};
	static const char *const b[][2] = {
		{ "allow_command", "git status" },
		{ "example_not_match", "git status -s > /dev/null" },
	};
	static const char *const c[][2] = {
		{ "deny_command", "git push" },
		{ "example_match", "git pushx" },
	};
	static const char *const d[][2] = { { "example_match", "ls" } };
	static const char *const e[][2] = { { "allow_command", "git $(x)" } };
	static const char *const f[][2] = { { "allow_command", "git; ls" } };
	static const char *const g[][2] = { { "allow_command", "" } };
	static const char *const h[][2] = { { "allow_commands", "ls" } };
	static const char *const i[][2] = {
		{ "allow", "bash:git *" },
		{ "example_not_match", "git log && curl x | sh" },
	};
	static const char *const k[][2] = { { "allow_command", "ls $(x <<E)" } };
	static const char *const j[][2] = {
		{ "allow_command", "ls" },
		{ "example_match", "ls; eval x" },
	};
	char err[512];

	(void)state;
	assert_string_equal(error_of(a, 2, err, sizeof(err)),
		"/etc/w.ini:11: [answerer rules] example_match = git statusx: the "
		"rule allow_command = git status (/etc/w.ini:10) does not "
		"allow it (`git statusx` is not covered)");
	assert_non_null(strstr(error_of(b, 2, err, sizeof(err)),
	                "example_not_match = git status -s > /dev/null: the rule "
	                "allow_command = git status (/etc/w.ini:10) allows it"));
	assert_non_null(strstr(error_of(c, 2, err, sizeof(err)), "does not deny it"));
	assert_non_null(strstr(error_of(d, 1, err, sizeof(err)),
	                "an example belongs to the rule just above it"));
	assert_non_null(strstr(error_of(e, 1, err, sizeof(err)), "is not a fixed word"));
	assert_non_null(strstr(error_of(f, 1, err, sizeof(err)), "only words"));
	assert_non_null(strstr(error_of(g, 1, err, sizeof(err)), "no words"));
	assert_non_null(strstr(error_of(h, 1, err, sizeof(err)), "unknown key 'allow_commands'"));
	assert_non_null(strstr(error_of(i, 2, err, sizeof(err)), "matches it"));
	assert_non_null(strstr(error_of(j, 2, err, sizeof(err)), "not understood: 'eval'"));
	assert_non_null(strstr(error_of(k, 1, err, sizeof(err)), "not a fixed word"));
}

static void test_hostile_input_is_not_understood(void **state)
{
	struct warden_sh_parse p;
	size_t k, n = 100000;
	char *s = malloc(4 * n + 16);
	static const char *const opens[] = { "$(", "( ", "`", "${x:-", "<(", "{ " };

	(void)state;
	assert_non_null(s);
	for (k = 0; k < sizeof(opens) / sizeof(opens[0]); k++) {
		size_t i, len = strlen(opens[k]), at = 0;

		for (i = 0; i < 5000; i++) {
			memcpy(s + at, opens[k], len);
			at += len;
		}
		strcpy(s + at, "ls");
		assert_int_equal(warden_sh_parse_string(s, WARDEN_SH_BASH, &p), 0);
		assert_false(p.understood);
		warden_sh_parse_free(&p);
	}
	/* just deep enough, and one too deep */
	strcpy(s, "");
	for (k = 0; k < WARDEN_SH_MAX_DEPTH; k++)
		strcat(s, "( ");
	strcat(s, "ls");
	for (k = 0; k < WARDEN_SH_MAX_DEPTH; k++)
		strcat(s, ")");
	assert_int_equal(warden_sh_parse_string(s, WARDEN_SH_BASH, &p), 0);
	assert_true(p.understood);
	warden_sh_parse_free(&p);
	memmove(s + 2, s, strlen(s) + 1);
	memcpy(s, "( ", 2);
	strcat(s, ")");
	assert_int_equal(warden_sh_parse_string(s, WARDEN_SH_BASH, &p), 0);
	assert_false(p.understood);
	assert_non_null(strstr(p.why, "nested more than"));
	warden_sh_parse_free(&p);

	/* too long */
	memset(s, 'a', 4 * n);
	s[0] = 'l', s[1] = 's', s[2] = ' ';
	s[4 * n] = '\0';
	assert_int_equal(warden_sh_parse_string(s, WARDEN_SH_BASH, &p), 0);
	assert_false(p.understood);
	assert_non_null(strstr(p.why, "longer than"));
	warden_sh_parse_free(&p);

	/* too many commands */
	for (k = 0; k < 2000; k++)
		memcpy(s + 3 * k, "a;\n", 3);
	s[3 * k] = '\0';
	assert_int_equal(warden_sh_parse_string(s, WARDEN_SH_BASH, &p), 0);
	assert_false(p.understood);
	assert_non_null(strstr(p.why, "more than"));
	warden_sh_parse_free(&p);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_decides_allow_deny_or_delegate),
		cmocka_unit_test(test_reasons_name_the_rule_and_the_command),
		cmocka_unit_test(test_words_after_quote_removal),
		cmocka_unit_test(test_argv_requests),
		cmocka_unit_test(test_old_patterns_match_the_whole_string),
		cmocka_unit_test(test_failing_examples_and_bad_rules_are_refused),
		cmocka_unit_test(test_hostile_input_is_not_understood),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
