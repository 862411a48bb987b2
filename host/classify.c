/*
 * classify.c — see classify.h.
 *
 * Every byte of stderr may be hostile: lines are (pointer, length) pairs
 * over the caller's buffer, never NUL-terminated strings, so a NUL, a
 * lone CR or a line of megabytes changes nothing but what it says.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "classify.h"
#include "policy.h"

const char *warden_class_name(int cls)
{
	switch (cls) {
	case WARDEN_CLASS_OK:
		return "ok";
	case WARDEN_CLASS_FAILED:
		return "failed";
	case WARDEN_CLASS_DENIED:
		return "denied";
	case WARDEN_CLASS_SANDBOX_ERROR:
		return "sandbox-error";
	default:
		return NULL;
	}
}

static int fold(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* Case-insensitive: does [s, s+n) contain the string pat? */
static int contains(const char *s, size_t n, const char *pat)
{
	size_t m = strlen(pat), i, j;

	if (m == 0 || m > n)
		return m == 0;
	for (i = 0; i + m <= n; i++) {
		for (j = 0; j < m; j++)
			if (fold((unsigned char)s[i + j]) !=
			    fold((unsigned char)pat[j]))
				break;
		if (j == m)
			return 1;
	}
	return 0;
}

/* Case-insensitive: is [s, s+n) exactly the string pat? */
static int equals(const char *s, size_t n, const char *pat)
{
	size_t i;

	if (strlen(pat) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (fold((unsigned char)s[i]) != fold((unsigned char)pat[i]))
			return 0;
	return 1;
}

/* Calls fn on each line of buf (without its '\n' and a trailing '\r')
 * until fn returns nonzero; returns that value, or 0. */
typedef int (*line_fn)(const char *line, size_t len, const void *ctx);

static int each_line(const char *buf, size_t len, line_fn fn, const void *ctx)
{
	size_t start = 0, end, n;
	const char *nl;
	int r;

	if (buf == NULL)
		return 0;
	while (start < len) {
		nl = memchr(buf + start, '\n', len - start);
		end = nl ? (size_t)(nl - buf) : len;
		n = end - start;
		if (n > 0 && buf[start + n - 1] == '\r')
			n--;
		r = fn(buf + start, n, ctx);
		if (r != 0)
			return r;
		start = end + 1;
	}
	return 0;
}

static int is_informational(const char *line, size_t n,
                            const struct warden_runner_rule *rule)
{
	size_t i;

	for (i = 0; i < rule->n_informational_lines; i++)
		if (rule->informational_lines[i] != NULL &&
		    equals(line, n, rule->informational_lines[i]))
			return 1;
	return 0;
}

static int line_is_fatal(const char *line, size_t n, const void *ctx)
{
	const struct warden_runner_rule *rule = ctx;
	size_t i;

	if (is_informational(line, n, rule))
		return 0;
	for (i = 0; i < rule->n_fatal_signatures; i++)
		if (rule->fatal_signatures[i] != NULL &&
		    rule->fatal_signatures[i][0] != '\0' &&
		    contains(line, n, rule->fatal_signatures[i]))
			return 1;
	return 0;
}

static int rule_matches(const struct warden_runner_rule *rule, int wait_status,
                        const char *tail, size_t len)
{
	int code;
	size_t i;

	/* Exit status alone never proves runner failure, and a run killed
	 * by a signal did not exit with anything the runner chose. */
	if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) == 0)
		return 0;
	code = WEXITSTATUS(wait_status);
	if (rule->n_exit_codes > 0) {
		for (i = 0; i < rule->n_exit_codes; i++)
			if (rule->exit_codes[i] == code)
				break;
		if (i == rule->n_exit_codes)
			return 0;
	}
	return each_line(tail, len, line_is_fatal, rule);
}

int warden_classify_runner_failed(const struct warden_classify_facts *facts,
                                  int wait_status, const char *stderr_tail,
                                  size_t stderr_len, size_t *rule_index)
{
	size_t i;

	for (i = 0; facts != NULL && i < facts->n_runner_rules; i++) {
		if (rule_matches(&facts->runner_rules[i], wait_status,
		                 stderr_tail, stderr_len)) {
			if (rule_index != NULL)
				*rule_index = i;
			return 1;
		}
	}
	return 0;
}

struct denial_ctx {
	const struct warden_classify_facts *facts;
	const char *matched;
	const char *line;       /* the line that matched, and its length */
	size_t n;
};

static int line_is_denial(const char *line, size_t n, const void *vctx)
{
	const struct denial_ctx *ctx = vctx;
	const struct warden_classify_facts *f = ctx->facts;
	size_t i;

	for (i = 0; i < f->n_runner_rules; i++)
		if (is_informational(line, n, &f->runner_rules[i]))
			return 0;
	for (i = 0; i < f->n_denial_signatures; i++) {
		const char *sig = f->denial_signatures[i];

		if (sig != NULL && sig[0] != '\0' && contains(line, n, sig)) {
			((struct denial_ctx *)vctx)->matched = sig;
			((struct denial_ctx *)vctx)->line = line;
			((struct denial_ctx *)vctx)->n = n;
			return 1;
		}
	}
	return 0;
}

static void describe_exit(int wait_status, char *buf, size_t len)
{
	if (WIFEXITED(wait_status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(wait_status));
	else if (WIFSIGNALED(wait_status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(wait_status));
	else
		snprintf(buf, len, "wait status 0x%x", (unsigned)wait_status);
}

void warden_classify(const struct warden_classify_facts *facts,
                     const struct warden_run_facts *run,
                     struct warden_classification *out)
{
	static const struct warden_classify_facts none;
	struct denial_ctx dctx;
	char how[64];
	size_t rule;

	if (facts == NULL)
		facts = &none;
	out->denied_line[0] = '\0';
	describe_exit(run->wait_status, how, sizeof(how));

	if (run->exec_evidence == WARDEN_EXEC_NOT_HAPPENED) {
		out->cls = WARDEN_CLASS_SANDBOX_ERROR;
		snprintf(out->reason, sizeof(out->reason),
		         "the runner reported out of band that the command did not start (%s)",
		         how);
		return;
	}
	if (run->exec_evidence != WARDEN_EXEC_HAPPENED &&
	    warden_classify_runner_failed(facts, run->wait_status,
	                                  run->stderr_tail, run->stderr_len,
	                                  &rule)) {
		out->cls = WARDEN_CLASS_SANDBOX_ERROR;
		snprintf(out->reason, sizeof(out->reason),
		         "runner failure rule %zu matched stderr (%s)", rule + 1,
		         how);
		return;
	}
	if (WIFEXITED(run->wait_status) && WEXITSTATUS(run->wait_status) == 0) {
		out->cls = WARDEN_CLASS_OK;
		snprintf(out->reason, sizeof(out->reason), "%s", how);
		return;
	}
	dctx.facts = facts;
	dctx.matched = NULL;
	if (each_line(run->stderr_tail, run->stderr_len, line_is_denial, &dctx)) {
		out->cls = WARDEN_CLASS_DENIED;
		snprintf(out->reason, sizeof(out->reason),
		         "denial signature \"%.100s\" in stderr (%s)", dctx.matched,
		         how);
		snprintf(out->denied_line, sizeof(out->denied_line), "%.*s",
		         (int)(dctx.n < sizeof(out->denied_line) ? dctx.n
		                                                 : sizeof(out->denied_line) - 1),
		         dctx.line);
		return;
	}
	out->cls = WARDEN_CLASS_FAILED;
	snprintf(out->reason, sizeof(out->reason), "%s", how);
}

/* ------------------------------------------------------------- network */

struct network_ctx {
	int recent;             /* bit i: the line i+1 before had a network word */
	char *line;
	size_t linelen;
	int guard;              /* want a line with the guard's own answer */
	int any;                /* a line matched (kept in line) */
};

static int has_any(const char *s, size_t n, const char *const *pats)
{
	for (; *pats != NULL; pats++)
		if (contains(s, n, *pats))
			return 1;
	return 0;
}

static int line_is_network(const char *line, size_t n, const void *vctx)
{
	static const char *const plain[] = {
		"Network is unreachable", "Temporary failure in name resolution",
		"Could not resolve host", "Address family not supported",
		"Couldn't connect", "Could not connect", "Failed to connect",
		"Unable to connect",
		/* the line the gate's supervisor writes (plugins/common/unixgate.h) */
		"refused by the restricted network", NULL,
	};
	static const char *const refused[] = {
		"Permission denied", "Operation not permitted", "Connection refused",
		NULL,
	};
	static const char *const words[] = {
		"connect", "socket", "/dev/tcp/", "/dev/udp/", "://",
		"getaddrinfo", "urlopen", NULL,
	};
	/* What the network guard answers (EACCES, EPERM: netguard.h, the
	 * gate, Landlock's TCP rules), unlike a peer or a route. */
	static const char *const guard[] = {
		"Permission denied", "Operation not permitted", NULL,
	};
	struct network_ctx *ctx = (struct network_ctx *)vctx;
	int word = has_any(line, n, words);
	int near = word || (ctx->recent & 7) != 0;
	int hit = ctx->guard
		? contains(line, n, "refused by the restricted network") ||
		  (has_any(line, n, guard) && near)
		: has_any(line, n, plain) || (has_any(line, n, refused) && near);

	ctx->recent = (ctx->recent << 1) | word;
	if (!hit)
		return 0;
	if (ctx->linelen > 0 && !ctx->any)
		snprintf(ctx->line, ctx->linelen, "%.*s",
		         (int)(n < ctx->linelen ? n : ctx->linelen - 1), line);
	ctx->any = 1;
	return 1;
}

int warden_classify_network_denied(const char *stderr_tail, size_t len,
                                   char *line, size_t linelen)
{
	struct network_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.line = line;
	ctx.linelen = linelen;
	if (linelen > 0)
		line[0] = '\0';
	return each_line(stderr_tail, len, line_is_network, &ctx);
}

int warden_classify_network_guard(const char *stderr_tail, size_t len,
                                  char *line, size_t linelen)
{
	struct network_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.guard = 1;
	ctx.line = line;
	ctx.linelen = linelen;
	if (linelen > 0)
		line[0] = '\0';
	return each_line(stderr_tail, len, line_is_network, &ctx);
}

struct ports_ctx {
	int (*fn)(int port, void *arg);
	void *arg;
	char *line;
	size_t linelen;
};

/* The TCP ports a line names: digits after "port ", ':', '/' or ", ". */
static int line_ports(const char *line, size_t n, const void *vctx)
{
	const struct ports_ctx *ctx = vctx;
	size_t i, j;

	if (!has_any(line, n, (const char *const[]){ "refused", "connect",
	                                             "unreachable", NULL }))
		return 0;
	for (i = 1; i < n; i++) {
		long v = 0;
		int after = line[i - 1] == ':' || line[i - 1] == '/' ||
		            (i >= 5 && contains(line + i - 5, 5, "port ")) ||
		            (i >= 2 && line[i - 2] == ',' && line[i - 1] == ' ');

		if (!after || !isdigit((unsigned char)line[i]))
			continue;
		for (j = i; j < n && j - i < 6 && isdigit((unsigned char)line[j]); j++)
			v = v * 10 + (line[j] - '0');
		if ((j < n && isdigit((unsigned char)line[j])) || v < 1 || v > 65535)
			continue;
		if (ctx->fn((int)v, ctx->arg)) {
			if (ctx->linelen > 0)
				snprintf(ctx->line, ctx->linelen, "%.*s",
				         (int)(n < ctx->linelen ? n : ctx->linelen - 1), line);
			return (int)v;
		}
	}
	return 0;
}

int warden_classify_network_port(const char *stderr_tail, size_t len,
                                 int (*fn)(int port, void *arg), void *arg,
                                 char *line, size_t linelen)
{
	struct ports_ctx ctx = { fn, arg, line, linelen };

	return each_line(stderr_tail, len, line_ports, &ctx);
}

/* ------------------------------------------------------------ evidence */

static void set_why(char *why, size_t whylen, const char *s, size_t n)
{
	size_t i, k = 0;

	if (why == NULL || whylen == 0)
		return;
	/* One printable line: the channel is the runner's, but keep logs
	 * clean whatever it wrote. */
	for (i = 0; i < n && k + 1 < whylen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || c == '\r')
			break;
		why[k++] = (char)(isprint(c) ? c : '?');
	}
	why[k] = '\0';
}

/* The next of a stream of JSON documents with whitespace between (what
 * bwrap's --json-status-fd and the launcher write), from *off, which it
 * moves past it: NULL at the end (*bad 0) or at anything that does not
 * parse (*bad 1). */
static json_t *next_doc(const char *buf, size_t len, size_t *off, int *bad)
{
	json_error_t jerr;
	json_t *doc;

	*bad = 0;
	while (*off < len && (buf[*off] == ' ' || buf[*off] == '\t' ||
	                      buf[*off] == '\r' || buf[*off] == '\n'))
		(*off)++;
	if (*off >= len)
		return NULL;
	doc = json_loadb(buf + *off, len - *off,
	                 JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL || jerr.position <= 0) {
		json_decref(doc);
		*bad = 1;
		return NULL;
	}
	*off += (size_t)jerr.position;
	return doc;
}

static void parse_bwrap(const char *buf, size_t len, int wait_status,
                        int *exec, char *why, size_t whylen)
{
	size_t off = 0;
	int saw_pid = 0, bad;
	json_t *doc, *v;

	while ((doc = next_doc(buf, len, &off, &bad)) != NULL) {
		v = json_is_object(doc) ? json_object_get(doc, "exit-code") : NULL;
		if (json_is_integer(v)) {
			json_decref(doc);
			*exec = WARDEN_EXEC_HAPPENED;
			return;
		}
		if (json_is_object(doc) &&
		    json_is_integer(json_object_get(doc, "child-pid")))
			saw_pid = 1;
		json_decref(doc);
	}
	/* No exit-code object.  bwrap exits by itself with a nonzero status
	 * only when setup failed; killed from outside, it proves nothing. */
	if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
		const char *msg = saw_pid
			? "bwrap exited before the command started"
			: "bwrap failed before creating the sandbox";

		*exec = WARDEN_EXEC_NOT_HAPPENED;
		set_why(why, whylen, msg, strlen(msg));
	}
}

void warden_evidence_parse(int kind, const char *buf, size_t len,
                           int wait_status, int *exec, char *why,
                           size_t whylen)
{
	static const char fatal[] = WARDEN_EXEC_PIPE_FATAL;
	static const char started[] = WARDEN_EXEC_PIPE_STARTED;
	static const char never[] =
		"the runner never started (it could not be executed, or died before it reported)";

	*exec = WARDEN_EXEC_UNKNOWN;
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if (buf == NULL)
		len = 0;
	if (len > WARDEN_EVIDENCE_MAX)
		len = WARDEN_EVIDENCE_MAX;
	switch (kind) {
	case WARDEN_EVIDENCE_BWRAP_JSON:
		parse_bwrap(buf, len, wait_status, exec, why, whylen);
		break;
	case WARDEN_EVIDENCE_EXEC_PIPE:
		/* Positive evidence only: "started" and nothing after it. */
		if (len == sizeof(started) - 1 &&
		    memcmp(buf, started, sizeof(started) - 1) == 0) {
			*exec = WARDEN_EXEC_HAPPENED;
			break;
		}
		*exec = WARDEN_EXEC_NOT_HAPPENED;
		if (len == 0) {
			set_why(why, whylen, never, sizeof(never) - 1);
			break;
		}
		if (len >= sizeof(started) - 1 &&
		    memcmp(buf, started, sizeof(started) - 1) == 0) {
			buf += sizeof(started) - 1;
			len -= sizeof(started) - 1;
		}
		if (len >= sizeof(fatal) - 1 &&
		    memcmp(buf, fatal, sizeof(fatal) - 1) == 0)
			set_why(why, whylen, buf + sizeof(fatal) - 1,
			        len - (sizeof(fatal) - 1));
		else
			set_why(why, whylen, buf, len);
		break;
	default:
		break;
	}
}

int warden_evidence_signal(const char *buf, size_t len)
{
	size_t off = 0;
	long sig = 0, code = -1;
	json_t *doc, *v;
	int bad;

	if (buf == NULL)
		return 0;
	if (len > WARDEN_EVIDENCE_MAX)
		len = WARDEN_EVIDENCE_MAX;
	while ((doc = next_doc(buf, len, &off, &bad)) != NULL) {
		if (json_is_object(doc)) {
			v = json_object_get(doc, "warden-signal");
			if (json_is_integer(v))
				sig = (long)json_integer_value(v);
			v = json_object_get(doc, "exit-code");
			if (json_is_integer(v))
				code = (long)json_integer_value(v);
		}
		json_decref(doc);
	}
	if (bad)
		return 0;
	return sig >= 1 && sig < 128 && code == 128 + sig ? (int)sig : 0;
}

int warden_evidence_read(int fd, char *buf, size_t *len,
                         struct warden_error *err)
{
	char sink[512];
	size_t have = 0;
	ssize_t n;

	for (;;) {
		if (have < WARDEN_EVIDENCE_MAX)
			n = read(fd, buf + have, WARDEN_EVIDENCE_MAX - have);
		else
			n = read(fd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*len = have;
			return warden_error_errno(err, WARDEN_EIO, errno,
			                          "reading the sandbox status channel");
		}
		if (n == 0)
			break;
		if (have < WARDEN_EVIDENCE_MAX)
			have += (size_t)n;
	}
	*len = have;
	return 0;
}

/* ------------------------------------------------------- held refusals */

struct held_ctx {
	const char *dir;
	const char *const *held;
	size_t n_held;
	char *path;
	char *line;
	size_t linelen;
};

/* Whether path, or a directory above it, matches a held pattern; with
 * ancestors, also whether path is a directory on the way to one (the
 * pattern's first components match it, and it has more). */
static int is_held(const char *path, const char *const *held, size_t n,
                   int ancestors)
{
	char buf[PATH_MAX], pat[PATH_MAX], *slash;
	const char *p;
	size_t i, k, comps = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		for (i = 0; i < n; i++)
			if (held[i] != NULL && fnmatch(held[i], buf, FNM_PATHNAME) == 0)
				return 1;
		if (strcmp(buf, "/") == 0)
			break;
		slash = strrchr(buf, '/');
		if (slash == NULL)
			break;
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!ancestors || strcmp(path, "/") == 0)
		return 0;
	for (p = path; *p != '\0'; p++)
		comps += *p == '/';
	for (i = 0; i < n; i++) {
		if (held[i] == NULL)
			continue;
		/* The pattern cut after as many components as path has. */
		for (p = held[i], k = 0; *p != '\0'; p++)
			if (*p == '/' && k++ == comps)
				break;
		if (*p != '/' || (size_t)(p - held[i]) >= sizeof(pat))
			continue;
		memcpy(pat, held[i], (size_t)(p - held[i]));
		pat[p - held[i]] = '\0';
		if (fnmatch(pat, path, FNM_PATHNAME) == 0)
			return 1;
	}
	return 0;
}

/* The word ending before end in buf (from start): quoted (with ' " `
 * or U+2018..U+2019) or up to the previous blank. */
static int held_word(struct held_ctx *c, const char *word, size_t n, int ebusy)
{
	char raw[PATH_MAX], norm[PATH_MAX];
	int k;

	while (n > 0 && word[n - 1] == ':')
		n--;
	if (n >= 3 && memcmp(word, "\xe2\x80\x98", 3) == 0) {
		word += 3;
		n -= 3;
	}
	if (n >= 3 && memcmp(word + n - 3, "\xe2\x80\x99", 3) == 0)
		n -= 3;
	while (n > 0 && strchr("'\"`", word[0]) != NULL) {
		word++;
		n--;
	}
	while (n > 0 && strchr("'\"`,", word[n - 1]) != NULL)
		n--;
	if (n == 0 || memchr(word, '\0', n) != NULL)
		return 0;
	if (word[0] == '/')
		k = snprintf(raw, sizeof(raw), "%.*s", (int)n, word);
	else if (c->dir != NULL && c->dir[0] == '/')
		k = snprintf(raw, sizeof(raw), "%s/%.*s", c->dir, (int)n, word);
	else
		return 0;
	if (k < 0 || (size_t)k >= sizeof(raw) ||
	    warden_path_normalise(raw, norm, NULL) < 0)
		return 0;
	if (!is_held(norm, c->held, c->n_held, ebusy))
		return 0;
	snprintf(c->path, PATH_MAX, "%s", norm);
	return 1;
}

static int line_is_held(const char *line, size_t n, const void *vctx)
{
	static const char *const errors[] = {
		"Device or resource busy", "Read-only file system",
		"Permission denied", "Operation not permitted",
	};
	struct held_ctx *c = (struct held_ctx *)vctx;
	size_t i, start, end;
	int ebusy = 0, any = 0;
	char quote;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (contains(line, n, errors[i])) {
			any = 1;
			ebusy |= i == 0;
		}
	if (!any)
		return 0;
	/* Every word is a candidate: a quoted one may hold blanks. */
	for (start = 0; start < n; start = end + 1) {
		while (start < n && line[start] == ' ')
			start++;
		if (start >= n)
			break;
		quote = line[start];
		end = start + 1;
		if (quote == '\'' || quote == '"' || quote == '`') {
			while (end < n && line[end] != quote &&
			       !(quote == '`' && line[end] == '\''))
				end++;
			if (end < n)
				end++;
		} else {
			while (end < n && line[end] != ' ')
				end++;
		}
		if (held_word(c, line + start, end - start, ebusy)) {
			snprintf(c->line, c->linelen, "%.*s", (int)n, line);
			return 1;
		}
	}
	return 0;
}

int warden_classify_held_refusal(const char *stderr_tail, size_t len,
                                 const char *dir, const char *const *held,
                                 size_t n_held, char path[4096],
                                 char *line, size_t linelen)
{
	struct held_ctx c = { dir, held, n_held, path, line, linelen };

	path[0] = '\0';
	if (linelen > 0)
		line[0] = '\0';
	if (held == NULL || n_held == 0 || linelen == 0)
		return 0;
	return each_line(stderr_tail, len, line_is_held, &c);
}
