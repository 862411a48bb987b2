/*
 * fuzz_classify.c — libFuzzer target for run classification and the
 * reading of out-of-band evidence (host/classify.c).
 *
 * Input layout: byte 0 picks the evidence (and whether the run exited or
 * was killed), byte 1 the exit code or signal; the rest is split at 0x1e
 * into records.  The first record is the stderr tail (any bytes, NUL
 * included).  Each later record is a table entry, by its first byte:
 *   'R' starts a new runner rule     'E' adds an exit code (next byte)
 *   'F' adds a fatal signature       'I' adds an informational line
 *   'D' adds a denial signature
 * The same tail is also read as bubblewrap JSON and as an exec pipe.
 *
 * Beyond memory safety it checks the classifier against a plain model of
 * DESIGN §2: evidence decides first, a runner rule needs a nonzero exit
 * and a fatal line that is not informational, exit 0 is ok, a denial
 * signature in a failed run is denied, else failed.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "classify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RULES 4
#define MAX_ITEMS 8

struct rule_build {
	int codes[MAX_ITEMS];
	const char *fatal[MAX_ITEMS];
	const char *info[MAX_ITEMS];
	size_t n_codes, n_fatal, n_info;
};

/* ---- the model: deliberately naive, written from the design text */

static int model_contains(const char *s, size_t n, const char *pat)
{
	size_t m = strlen(pat), i, j;

	for (i = 0; m > 0 && i + m <= n; i++) {
		for (j = 0; j < m; j++)
			if (tolower((unsigned char)s[i + j]) !=
			    tolower((unsigned char)pat[j]))
				break;
		if (j == m)
			return 1;
	}
	return 0;
}

static int model_equals(const char *s, size_t n, const char *pat)
{
	return strlen(pat) == n && model_contains(s, n, pat);
}

/* Line k of tail: returns 0 past the end. */
static int model_line(const char *tail, size_t len, size_t *pos,
                      const char **line, size_t *n)
{
	const char *nl;
	size_t end;

	if (*pos >= len)
		return 0;
	nl = memchr(tail + *pos, '\n', len - *pos);
	end = nl ? (size_t)(nl - tail) : len;
	*line = tail + *pos;
	*n = end - *pos;
	if (*n > 0 && (*line)[*n - 1] == '\r')
		(*n)--;
	*pos = end + 1;
	return 1;
}

static int model_informational(const struct rule_build *r, const char *l,
                               size_t n)
{
	size_t i;

	for (i = 0; i < r->n_info; i++)
		if (model_equals(l, n, r->info[i]))
			return 1;
	return 0;
}

static int model_rule(const struct rule_build *r, int ws, const char *tail,
                      size_t len)
{
	const char *l;
	size_t n, pos = 0, i;
	int code_ok = r->n_codes == 0;

	if (!WIFEXITED(ws) || WEXITSTATUS(ws) == 0)
		return 0;
	for (i = 0; i < r->n_codes; i++)
		if (r->codes[i] == WEXITSTATUS(ws))
			code_ok = 1;
	if (!code_ok)
		return 0;
	while (model_line(tail, len, &pos, &l, &n)) {
		if (model_informational(r, l, n))
			continue;
		for (i = 0; i < r->n_fatal; i++)
			if (model_contains(l, n, r->fatal[i]))
				return 1;
	}
	return 0;
}

static int model_classify(const struct rule_build *rules, size_t n_rules,
                          const char *const *denials, size_t n_denials,
                          int ws, const char *tail, size_t len, int evidence)
{
	const char *l;
	size_t n, pos = 0, i, j;

	if (evidence == WARDEN_EXEC_NOT_HAPPENED)
		return WARDEN_CLASS_SANDBOX_ERROR;
	if (evidence != WARDEN_EXEC_HAPPENED)
		for (i = 0; i < n_rules; i++)
			if (model_rule(&rules[i], ws, tail, len))
				return WARDEN_CLASS_SANDBOX_ERROR;
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		return WARDEN_CLASS_OK;
	while (model_line(tail, len, &pos, &l, &n)) {
		int info = 0;

		for (i = 0; i < n_rules; i++)
			info |= model_informational(&rules[i], l, n);
		if (info)
			continue;
		for (j = 0; j < n_denials; j++)
			if (model_contains(l, n, denials[j]))
				return WARDEN_CLASS_DENIED;
	}
	return WARDEN_CLASS_FAILED;
}

/* ---- the target */

static int printable_line(const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i] != '\0'; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return 0;
	return i < max;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule_build rb[MAX_RULES];
	struct warden_runner_rule rules[MAX_RULES];
	const char *denials[MAX_ITEMS];
	size_t n_rules = 0, n_denials = 0, i, start, end;
	struct warden_classify_facts facts;
	struct warden_run_facts run;
	struct warden_classification out;
	char *buf, *tail, why[128];
	size_t tail_len;
	int ws, evidence, exec, want;

	if (size < 2)
		return 0;
	evidence = data[0] % 3;
	ws = (data[0] & 0x80) ? (data[1] & 0x7f) % 65 /* killed by signal */
	                      : (data[1] << 8);     /* exited with data[1] */
	buf = malloc(size - 2 + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = '\0';

	/* Record 0: the tail; then the table records, NUL-terminated in place. */
	memset(rb, 0, sizeof(rb));
	end = 0;
	while (end < size - 2 && buf[end] != 0x1e)
		end++;
	tail = buf;
	tail_len = end;
	for (start = end + 1; start < size - 2; start = end + 1) {
		char *rec = buf + start;

		end = start;
		while (end < size - 2 && buf[end] != 0x1e)
			end++;
		buf[end] = '\0';
		if (memchr(rec, '\0', end - start) != NULL ||
		    end - start < 2)
			continue; /* tables hold C strings, and no empty ones */
		switch (rec[0]) {
		case 'R':
			if (n_rules < MAX_RULES)
				n_rules++;
			break;
		case 'E':
			if (n_rules > 0 && rb[n_rules - 1].n_codes < MAX_ITEMS)
				rb[n_rules - 1].codes[rb[n_rules - 1].n_codes++] =
					(unsigned char)rec[1];
			break;
		case 'F':
			if (n_rules > 0 && rb[n_rules - 1].n_fatal < MAX_ITEMS)
				rb[n_rules - 1].fatal[rb[n_rules - 1].n_fatal++] = rec + 1;
			break;
		case 'I':
			if (n_rules > 0 && rb[n_rules - 1].n_info < MAX_ITEMS)
				rb[n_rules - 1].info[rb[n_rules - 1].n_info++] = rec + 1;
			break;
		case 'D':
			if (n_denials < MAX_ITEMS)
				denials[n_denials++] = rec + 1;
			break;
		default:
			break;
		}
	}
	for (i = 0; i < n_rules; i++) {
		rules[i].exit_codes = rb[i].codes;
		rules[i].n_exit_codes = rb[i].n_codes;
		rules[i].fatal_signatures = rb[i].fatal;
		rules[i].n_fatal_signatures = rb[i].n_fatal;
		rules[i].informational_lines = rb[i].info;
		rules[i].n_informational_lines = rb[i].n_info;
	}
	facts.runner_rules = rules;
	facts.n_runner_rules = n_rules;
	facts.denial_signatures = denials;
	facts.n_denial_signatures = n_denials;

	run.wait_status = ws;
	run.stderr_tail = tail;
	run.stderr_len = tail_len;
	run.exec_evidence = evidence;
	memset(&out, 0, sizeof(out));
	warden_classify(&facts, &run, &out);
	want = model_classify(rb, n_rules, denials, n_denials, ws, tail,
	                      tail_len, evidence);
	if (out.cls != want || warden_class_name(out.cls) == NULL)
		abort();
	if (memchr(out.reason, '\0', sizeof(out.reason)) == NULL)
		abort();

	/* The tail as a status channel, both kinds: a known answer, and a
	 * reason that is one printable line. */
	warden_evidence_parse(WARDEN_EVIDENCE_BWRAP_JSON, tail, tail_len, ws,
	                      &exec, why, sizeof(why));
	if (exec < WARDEN_EXEC_UNKNOWN || exec > WARDEN_EXEC_NOT_HAPPENED ||
	    !printable_line(why, sizeof(why)))
		abort();
	warden_evidence_parse(WARDEN_EVIDENCE_EXEC_PIPE, tail, tail_len, ws,
	                      &exec, why, sizeof(why));
	if (exec != (tail_len == sizeof(WARDEN_EXEC_PIPE_STARTED) - 1 &&
	             memcmp(tail, WARDEN_EXEC_PIPE_STARTED, tail_len) == 0
	             ? WARDEN_EXEC_HAPPENED : WARDEN_EXEC_NOT_HAPPENED) ||
	    !printable_line(why, sizeof(why)))
		abort();
	warden_evidence_parse(WARDEN_EVIDENCE_NONE, tail, tail_len, ws, &exec,
	                      why, sizeof(why));
	if (exec != WARDEN_EXEC_UNKNOWN)
		abort();
	free(buf);
	return 0;
}
