/*
 * fuzz_shparse.c — libFuzzer target for the rules answerer's shell parser
 * (plugins/rules/shparse.c) and rule set (plugins/rules/ruleset.c): the
 * bytes as a command string in each dialect, as a rule's words, and as a
 * request decided by a fixed rule set.
 *
 * Beyond memory safety: a result is understood with no reason, or not
 * understood with one; every word has text; no more commands than the
 * bound; the same input parses the same way twice; a decision is one of
 * allow, deny, delegate, and allow only for a string the parser
 * understood, with a command, no write by redirection, and no command a
 * deny_command matches.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <warden/plugin.h>

#include "ruleset.h"
#include "shparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const rules[][2] = {
	{ "allow_command", "git status" },
	{ "allow_command", "ls" },
	{ "allow_command", "cat" },
	{ "allow_command", "echo" },
	{ "deny_command", "rm" },
	{ "ask_command", "sudo" },
	{ "allow", "read:*" },
};

static struct warden_ruleset *rs;

static void check(const struct warden_sh_parse *p)
{
	size_t i, k;

	if (p->understood ? p->why[0] != '\0' : p->why[0] == '\0')
		abort();
	if (p->n > WARDEN_SH_MAX_COMMANDS)
		abort();
	for (i = 0; i < p->n; i++)
		for (k = 0; k < p->cmd[i].n; k++)
			if (p->cmd[i].w[k].text == NULL)
				abort();
}

static int mentions_rm(const struct warden_sh_parse *p)
{
	const char *w, *b;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->cmd[i].n == 0 || !p->cmd[i].w[0].literal)
			continue;
		w = p->cmd[i].w[0].text;
		b = strrchr(w, '/');
		if (strcmp(b != NULL ? b + 1 : w, "rm") == 0)
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct warden_sh_parse p, q;
	struct warden_rules_request rq;
	const char *argv[4];
	char *s, why[512], **words;
	size_t i;
	int d, n;

	if (rs == NULL) {
		rs = warden_ruleset_new("fuzz.ini", "rules");
		for (i = 0; rs != NULL && i < sizeof(rules) / sizeof(rules[0]); i++)
			if (warden_ruleset_add(rs, rules[i][0], rules[i][1], 1, why,
			                       sizeof(why)) < 0)
				abort();
		if (rs == NULL)
			abort();
	}
	/* An exact-size string, so that a read past the end is caught. */
	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	for (d = WARDEN_SH_UNKNOWN; d <= WARDEN_SH_POSIX; d++) {
		if (warden_sh_parse_string(s, d, &p) < 0 ||
		    warden_sh_parse_string(s, d, &q) < 0)
			abort();
		check(&p);
		if (p.understood != q.understood || p.n != q.n ||
		    p.n_writes != q.n_writes || strcmp(p.why, q.why) != 0)
			abort();
		warden_sh_parse_free(&p);
		warden_sh_parse_free(&q);
	}

	n = warden_sh_split_words(s, &words, why, sizeof(why));
	if (n < 0)
		abort();
	if (n == 0 && why[0] == '\0')
		abort();
	warden_sh_words_free(words, n > 0 ? (size_t)n : 0);

	argv[0] = "bash";
	argv[1] = "-c";
	argv[2] = s;
	argv[3] = NULL;
	memset(&rq, 0, sizeof(rq));
	rq.tool = "bash";
	rq.subject = s;
	rq.argv = argv;
	rq.argc = 3;
	rq.program = "/usr/bin/bash";
	d = warden_ruleset_decide(rs, &rq, why, sizeof(why));
	if (d != WARDEN_DECISION_ALLOWED_ONCE && d != WARDEN_DECISION_REJECTED &&
	    d != WARDEN_DECISION_DELEGATE)
		abort();
	if (memchr(why, '\0', sizeof(why)) == NULL)
		abort();
	if (warden_sh_parse_string(s, WARDEN_SH_BASH, &p) < 0)
		abort();
	if (d == WARDEN_DECISION_ALLOWED_ONCE &&
	    (!p.understood || p.n == 0 || p.n_writes > 0 || mentions_rm(&p)))
		abort();
	if (d != WARDEN_DECISION_REJECTED && mentions_rm(&p))
		abort();
	warden_sh_parse_free(&p);
	free(s);
	return 0;
}
