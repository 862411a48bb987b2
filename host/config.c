/*
 * config.c — reads warden.ini into struct warden_config (see wconfig.h).
 *
 * inih splits `key = value` lines and strips comments; the rest is ours,
 * because a config is hostile input and inih alone is too forgiving:
 *   - a line reader feeds inih one line at a time, so every key knows its
 *     line number (this libinih has no INI_HANDLER_LINENO);
 *   - it refuses lines longer than inih's buffer (inih would cut them in
 *     two and read the rest as a new line) and control characters;
 *   - it strips leading whitespace, so inih never glues an indented line
 *     onto the previous value as a continuation;
 *   - it reads section headers itself: inih reports neither an empty
 *     section nor a repeated one, and silently truncates long names.
 * The first problem stops the parse; nothing half-parsed is returned.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "denyread.h"
#include "netlist.h"
#include "vocab.h"
#include "wconfig.h"

#define CONFIG_MAX_BYTES (1024 * 1024)
#define SECTION_NAME_MAX 64
#define TIMEOUT_MS_MAX 86400000L
#define BUILTIN_FILE "<built-in>"
/* sizeof(((struct sockaddr_un *)0)->sun_path): a path must fit with its NUL. */
#define SOCKET_PATH_MAX 108
#define ALLOW_UNIX_SOCKETS_MAX 64

enum section_type {
	SECT_NONE = 0,
	SECT_WARDEN,
	SECT_BACKEND,
	SECT_ANSWERER,
	SECT_PRESET,
};

/* The host's own keys of each section type, indexed for duplicate checks. */
static const char *const warden_keys[] = {
	"default_mode", "workspace_root", "approval_policy", "state_dir",
	"plugin_dir", "require_full", "durability", "shell", "scrub_env",
	"default_network", "allow_unix_socket", "deny_read",
	"deny_read_defaults", "writable_roots", "allowed_domains",
	"denied_domains", "hosts_file", "default_timeout", "max_timeout",
	"output_limit", NULL,
};
static const char *const preset_keys[] = {
	"sandbox", "approval", "label", "description", "network", NULL,
};
static const char *const backend_keys[] = { "plugin", "required", NULL };
static const char *const answerer_keys[] = {
	"plugin", "isolation", "timeout_ms", NULL,
};
#define HOST_KEYS_MAX 20
_Static_assert(sizeof(warden_keys) / sizeof(warden_keys[0]) <= HOST_KEYS_MAX + 1,
               "key_line[] must hold every [warden] key");

struct parser {
	const char *file;          /* for messages */
	const char *pos;           /* next unread byte of the text */
	unsigned line;             /* the line inih is handling */
	int failed;
	unsigned fail_line;        /* the line the first problem names */
	struct warden_config *cfg;
	struct warden_error *err;

	/* The section being read. */
	int type;                  /* enum section_type */
	size_t index;              /* into backends, answerers or presets */
	unsigned header_line;
	char header[SECTION_NAME_MAX + 16];
	unsigned key_line[HOST_KEYS_MAX];  /* where each host key was set */
	unsigned warden_line;      /* line of [warden], 0 when not seen */
};

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	char msg[WARDEN_ERROR_MAX];
	va_list ap;

	if (p->failed)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warden_error_set(p->err, WARDEN_ECONFIG, "%s:%u: %s", p->file, p->line,
	                 msg);
	p->failed = 1;
	p->fail_line = p->line;
	return 0;
}

static const char *const *host_keys(int type)
{
	switch (type) {
	case SECT_WARDEN: return warden_keys;
	case SECT_BACKEND: return backend_keys;
	case SECT_ANSWERER: return answerer_keys;
	case SECT_PRESET: return preset_keys;
	default: return NULL;
	}
}

/* Index of key among the host keys of the current section, or -1. */
static int host_key_index(int type, const char *key)
{
	const char *const *k = host_keys(type);
	int i;

	for (i = 0; k != NULL && k[i] != NULL; i++)
		if (strcmp(k[i], key) == 0)
			return i;
	return -1;
}

static void list_keys(int type, char *buf, size_t len)
{
	const char *const *k = host_keys(type);
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; k != NULL && k[i] != NULL && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		                         i ? ", " : "", k[i]);
}

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > SECTION_NAME_MAX)
		return 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

static int oom(struct parser *p)
{
	if (!p->failed) {
		warden_error_set(p->err, WARDEN_EINTERNAL, "out of memory");
		p->failed = 1;
		p->fail_line = p->line;
	}
	return 0;
}

static char *xstrndup(struct parser *p, const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (d == NULL)
		oom(p);
	return d;
}

/* `value` as an absolute path: relative ones are anchored at the config
 * file's directory. */
static char *resolve_path(struct parser *p, const char *key, const char *value)
{
	char *out;
	size_t n;

	if (value[0] == '~') {
		fail(p, "%s = %s: '~' is not expanded (write an absolute path, "
		     "or one relative to %s)", key, value, p->cfg->dir);
		return NULL;
	}
	if (value[0] == '/')
		return xstrndup(p, value, strlen(value));
	n = strlen(p->cfg->dir) + 1 + strlen(value) + 1;
	out = malloc(n);
	if (out == NULL) {
		oom(p);
		return NULL;
	}
	snprintf(out, n, "%s%s%s", p->cfg->dir,
	         strcmp(p->cfg->dir, "/") == 0 ? "" : "/", value);
	return out;
}

static int parse_bool(const char *v)
{
	if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0)
		return 1;
	if (strcmp(v, "false") == 0 || strcmp(v, "no") == 0 || strcmp(v, "0") == 0)
		return 0;
	return -1;
}

static long parse_timeout(const char *v)
{
	long n = 0;

	if (*v == '\0')
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		n = n * 10 + (*v - '0');
		if (n > TIMEOUT_MS_MAX)
			return -1;
	}
	return n;
}

/* ------------------------------------------------------------ sections */

/* Checks that the section being left has what it requires. */
static int finish_section(struct parser *p)
{
	unsigned save = p->line;
	struct warden_config *c = p->cfg;

	p->line = p->header_line;
	if (p->type == SECT_BACKEND || p->type == SECT_ANSWERER) {
		struct warden_config_plugin *pl = p->type == SECT_BACKEND
			? &c->backends[p->index] : &c->answerers[p->index];
		if (pl->plugin == NULL)
			fail(p, "[%s] has no plugin key (add `plugin = NAME`: a "
			     "plugin name in plugin_dir, or an absolute path)",
			     p->header);
		else if (p->type == SECT_ANSWERER &&
		         strcmp(pl->plugin, "client") == 0)
			/* Built in: it runs in warden's own process. */
			pl->isolation = WARDEN_ISOLATION_INPROC;
	} else if (p->type == SECT_PRESET) {
		struct warden_preset *pr = &c->presets[p->index];
		if (pr->mode == 0)
			fail(p, "[%s] has no sandbox key (add `sandbox = "
			     "read-only|workspace-write|danger-full-access`)",
			     p->header);
		else if (pr->policy == 0)
			fail(p, "[%s] has no approval key (add `approval = "
			     "ask|never`)", p->header);
		else if (pr->mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS &&
		         pr->network == WARDEN_NETWORK_RESTRICTED)
			fail(p, "[%s] network = restricted with sandbox = "
			     "danger-full-access: that mode confines nothing, "
			     "so its network is always enabled (write "
			     "`network = enabled` or leave the key out)",
			     p->header);
	}
	p->line = save;
	return !p->failed;
}

static int new_plugin_section(struct parser *p, int type, const char *name)
{
	struct warden_config *c = p->cfg;
	struct warden_config_plugin **arr = type == SECT_BACKEND
		? &c->backends : &c->answerers;
	size_t *n = type == SECT_BACKEND ? &c->n_backends : &c->n_answerers;
	struct warden_config_plugin *grown, *pl;
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*arr)[i].name, name) == 0)
			return fail(p, "duplicate section [%s] (first at line %u; "
			            "section names are unique per kind)",
			            p->header, (*arr)[i].line);
	grown = realloc(*arr, (*n + 1) * sizeof(**arr));
	if (grown == NULL)
		return oom(p);
	*arr = grown;
	pl = &grown[*n];
	memset(pl, 0, sizeof(*pl));
	pl->kind = type == SECT_BACKEND ? WARDEN_PLUGIN_BACKEND
	                                : WARDEN_PLUGIN_ANSWERER;
	pl->line = p->line;
	/* A crash in an answerer costs one request, not the host. */
	pl->isolation = WARDEN_ISOLATION_PROCESS;
	p->index = (*n)++;
	pl->name = xstrndup(p, name, strlen(name));
	return !p->failed;
}

static int new_preset_section(struct parser *p, const char *name)
{
	struct warden_config *c = p->cfg;
	struct warden_preset *grown, *pr;
	size_t i;

	if (strcmp(name, WARDEN_PRESET_CUSTOM) == 0)
		return fail(p, "[preset custom]: 'custom' is reserved for a "
		            "combination no preset matches (choose another name)");
	for (i = 0; i < c->n_presets; i++)
		if (strcmp(c->presets[i].name, name) == 0)
			return fail(p, "duplicate section [%s] (first at line %u; "
			            "preset names are unique)", p->header,
			            c->presets[i].line);
	grown = realloc(c->presets, (c->n_presets + 1) * sizeof(*grown));
	if (grown == NULL)
		return oom(p);
	c->presets = grown;
	pr = &grown[c->n_presets];
	memset(pr, 0, sizeof(*pr));
	pr->line = p->line;
	p->index = c->n_presets++;
	pr->name = xstrndup(p, name, strlen(name));
	return !p->failed;
}

/* A `[...]` line: s points at '[', end past the last character. */
static int section_header(struct parser *p, const char *s, const char *end)
{
	const char *close = memchr(s, ']', (size_t)(end - s));
	const char *t, *name;
	size_t tlen, nlen;
	int type;

	if (close == NULL)
		return fail(p, "section header without ']' (write [warden], "
		            "[backend NAME], [answerer NAME] or [preset NAME])");
	for (t = close + 1; t < end && (*t == ' ' || *t == '\t' || *t == '\r'); t++)
		;
	if (t < end && *t != ';' && *t != '#')
		return fail(p, "text after the section header (only a comment "
		            "may follow ']')");
	if (!finish_section(p))
		return 0;

	s++;
	while (s < close && (*s == ' ' || *s == '\t'))
		s++;
	for (t = s; t < close && *t != ' ' && *t != '\t'; t++)
		;
	tlen = (size_t)(t - s);
	name = t;
	while (name < close && (*name == ' ' || *name == '\t'))
		name++;
	for (t = name; t < close && *t != ' ' && *t != '\t'; t++)
		;
	nlen = (size_t)(t - name);
	while (t < close && (*t == ' ' || *t == '\t'))
		t++;

	if (tlen == 6 && memcmp(s, "warden", 6) == 0)
		type = SECT_WARDEN;
	else if (tlen == 7 && memcmp(s, "backend", 7) == 0)
		type = SECT_BACKEND;
	else if (tlen == 8 && memcmp(s, "answerer", 8) == 0)
		type = SECT_ANSWERER;
	else if (tlen == 6 && memcmp(s, "preset", 6) == 0)
		type = SECT_PRESET;
	else
		return fail(p, "unknown section [%.*s] (allowed: [warden], "
		            "[backend NAME], [answerer NAME], [preset NAME])",
		            (int)(close - s < 80 ? close - s : 80), s);

	p->type = type;
	p->header_line = p->line;
	memset(p->key_line, 0, sizeof(p->key_line));
	if (type == SECT_WARDEN) {
		snprintf(p->header, sizeof(p->header), "warden");
		if (nlen != 0)
			return fail(p, "[warden] takes no name (write [warden])");
		if (p->warden_line != 0)
			return fail(p, "duplicate section [warden] (first at line "
			            "%u; merge the two)", p->warden_line);
		p->warden_line = p->line;
		return 1;
	}
	if (nlen == 0 || t != close)
		return fail(p, "[%.*s] needs exactly one NAME (write [%.*s NAME])",
		            (int)tlen, s, (int)tlen, s);
	if (!valid_name(name, nlen))
		return fail(p, "bad section name '%.*s' (1 to %d characters of "
		            "A-Z a-z 0-9 _ - ., starting with a letter or digit)",
		            (int)(nlen < 80 ? nlen : 80), name, SECTION_NAME_MAX);
	snprintf(p->header, sizeof(p->header), "%.*s %.*s", (int)tlen, s,
	         (int)nlen, name);
	{
		char nm[SECTION_NAME_MAX + 1];

		memcpy(nm, name, nlen);
		nm[nlen] = '\0';
		if (type == SECT_PRESET)
			return new_preset_section(p, nm);
		return new_plugin_section(p, type, nm);
	}
}

/* ------------------------------------------------------------- reader */

/* inih's reader: hands it exactly one line, checked, without leading
 * whitespace.  Returns NULL at the end or after the first problem. */
static char *read_line(char *buf, int size, void *stream)
{
	struct parser *p = stream;
	const char *start, *end, *nl, *s;
	size_t len;

	if (p->failed || *p->pos == '\0')
		return NULL;
	p->line++;
	start = p->pos;
	nl = strchr(start, '\n');
	end = nl != NULL ? nl : start + strlen(start);
	p->pos = nl != NULL ? nl + 1 : end;
	len = (size_t)(end - start);

	if (size < 2 || len > (size_t)size - 2) {
		fail(p, "line too long (%zu bytes; at most %d)", len, size - 2);
		return NULL;
	}
	if (p->line == 1 && len >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0)
		start += 3; /* a UTF-8 byte order mark */
	for (s = start; s < end; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c < 0x20 && c != '\t' && !(c == '\r' && s + 1 == end)) ||
		    c == 0x7f) {
			fail(p, "control character 0x%02x in column %zu (a config "
			     "file is plain text)", c, (size_t)(s - start) + 1);
			return NULL;
		}
	}
	for (s = start; s < end && (*s == ' ' || *s == '\t'); s++)
		;
	if (s < end && *s == '[' && !section_header(p, s, end))
		return NULL;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	return buf;
}

/* ------------------------------------------------------------- handler */

/* scrub_env: whitespace-separated globs; `default` stands for the
 * built-in list, `none` (alone) for no scrubbing at all. */
static int scrub_env_key(struct parser *p, const char *v)
{
	struct warden_config *c = p->cfg;
	const char *s = v, *e;
	char **grown;
	size_t n;

	while (*s != '\0') {
		for (; *s == ' ' || *s == '\t'; s++)
			;
		if (*s == '\0')
			break;
		for (e = s; *e != '\0' && *e != ' ' && *e != '\t'; e++)
			;
		n = (size_t)(e - s);
		if (n == 4 && memcmp(s, "none", 4) == 0 && c->n_scrub_env == 0 &&
		    *e == '\0') {
			c->scrub_env_set = 1;
			return 1;
		}
		if (n == 4 && memcmp(s, "none", 4) == 0)
			return fail(p, "[warden] scrub_env = %s: `none` stands "
			            "alone (it means: scrub nothing)", v);
		grown = realloc(c->scrub_env, (c->n_scrub_env + 1) * sizeof(*grown));
		if (grown == NULL)
			return fail(p, "out of memory");
		c->scrub_env = grown;
		if ((c->scrub_env[c->n_scrub_env] = strndup(s, n)) == NULL)
			return fail(p, "out of memory");
		c->n_scrub_env++;
		s = e;
	}
	c->scrub_env_set = 1;
	return 1;
}

/* A path a unix socket may be reached at: absolute, lexically normal (no
 * empty, "." or ".." segment, no trailing "/"), short enough for a
 * sockaddr_un.  NULL when fine, else what is wrong. */
static const char *socket_path_problem(const char *v)
{
	const char *s;
	size_t n;

	if (v[0] == '~')
		return "'~' is not expanded (write the absolute path)";
	if (v[0] != '/')
		return "not an absolute path (write the socket's absolute path, e.g. /run/user/1000/ssh-agent.sock)";
	if (strlen(v) >= SOCKET_PATH_MAX)
		return "longer than a unix socket address holds (107 bytes)";
	if (strcmp(v, "/") == 0)
		return "'/' is a directory, not a socket";
	for (s = v + 1;; s += n + 1) {
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return "not a normal path (no '//', '.' or '..' segments and no trailing '/')";
		if (s[n] == '\0')
			return NULL;
	}
}

/* default_network and allow_unix_socket (repeatable). */
static int network_key(struct parser *p, const char *key, const char *v)
{
	struct warden_config *c = p->cfg;
	const char *why;
	char **grown;
	size_t i;
	int n;

	if (strcmp(key, "default_network") == 0) {
		n = warden_network_parse(v);
		if (n < 0)
			return fail(p, "[warden] default_network = %s: allowed: "
			            "restricted, allowlist, enabled", v);
		c->default_network = n;
		return 1;
	}
	if ((why = socket_path_problem(v)) != NULL)
		return fail(p, "[warden] allow_unix_socket = %s: %s", v, why);
	for (i = 0; i < c->n_allow_unix_sockets; i++)
		if (strcmp(c->allow_unix_sockets[i], v) == 0)
			return fail(p, "[warden] allow_unix_socket = %s: listed "
			            "twice (keep one)", v);
	if (c->n_allow_unix_sockets >= ALLOW_UNIX_SOCKETS_MAX)
		return fail(p, "[warden] allow_unix_socket: more than %d "
		            "sockets", ALLOW_UNIX_SOCKETS_MAX);
	grown = realloc(c->allow_unix_sockets,
	                (c->n_allow_unix_sockets + 1) * sizeof(*grown));
	if (grown == NULL)
		return oom(p);
	c->allow_unix_sockets = grown;
	if ((grown[c->n_allow_unix_sockets] = strdup(v)) == NULL)
		return oom(p);
	c->n_allow_unix_sockets++;
	return 1;
}

/* allowed_domains and denied_domains (repeatable, whitespace-separated
 * entries, netlist.h), hosts_file (a path read when a proxy starts). */
static int domains_key(struct parser *p, const char *key, const char *v)
{
	struct warden_config *c = p->cfg;
	int allowed = strcmp(key, "allowed_domains") == 0;
	char ***list = allowed ? &c->allowed_domains : &c->denied_domains;
	size_t *n = allowed ? &c->n_allowed_domains : &c->n_denied_domains;
	char word[WARDEN_NETLIST_NAME_MAX + 8], norm[WARDEN_NETLIST_NAME_MAX + 8];
	const char *why, *w = v;
	char **grown;
	size_t len, i;

	if (strcmp(key, "hosts_file") == 0) {
		free(c->hosts_file);
		c->hosts_file = resolve_path(p, key, v);
		return !p->failed;
	}
	if (v[0] == '\0')
		return fail(p, "[warden] %s: empty (give names such as "
		            "registry.npmjs.org or *.example.com)", key);
	for (;;) {
		w += strspn(w, " \t");
		if (*w == '\0')
			return 1;
		len = strcspn(w, " \t");
		if (len >= sizeof(word))
			return fail(p, "[warden] %s: '%.40s...': longer than a "
			            "DNS name (253 bytes)", key, w);
		memcpy(word, w, len);
		word[len] = '\0';
		w += len;
		if ((why = warden_netlist_entry_problem(word)) != NULL)
			return fail(p, "[warden] %s = %s: '%s': %s", key, v, word, why);
		if (warden_netlist_normalize(word, norm, sizeof(norm)) < 0)
			return fail(p, "[warden] %s: '%s': too long", key, word);
		for (i = 0; i < *n; i++)
			if (strcmp((*list)[i], norm) == 0)
				return fail(p, "[warden] %s: '%s' listed twice (keep "
				            "one)", key, word);
		if (*n >= WARDEN_NETLIST_MAX)
			return fail(p, "[warden] %s: more than %d entries", key,
			            WARDEN_NETLIST_MAX);
		grown = realloc(*list, (*n + 1) * sizeof(*grown));
		if (grown == NULL)
			return oom(p);
		*list = grown;
		if ((grown[*n] = strdup(norm)) == NULL)
			return oom(p);
		(*n)++;
	}
}

/* deny_read (repeatable) and deny_read_defaults. */
static int deny_read_key(struct parser *p, const char *key, const char *v)
{
	struct warden_config *c = p->cfg;
	const char *why;
	char **grown;
	size_t i;
	int n;

	if (strcmp(key, "deny_read_defaults") == 0) {
		if ((n = parse_bool(v)) < 0)
			return fail(p, "[warden] deny_read_defaults = %s: allowed: "
			            "true, false (or yes, no, 1, 0)", v);
		c->deny_read_defaults = n;
		return 1;
	}
	if ((why = warden_deny_pattern_problem(v)) != NULL)
		return fail(p, "[warden] deny_read = %s: %s", v, why);
	for (i = 0; i < c->n_deny_read; i++)
		if (strcmp(c->deny_read[i], v) == 0)
			return fail(p, "[warden] deny_read = %s: listed twice "
			            "(keep one)", v);
	if (c->n_deny_read >= WARDEN_DENY_MAX)
		return fail(p, "[warden] deny_read: more than %d patterns",
		            WARDEN_DENY_MAX);
	grown = realloc(c->deny_read, (c->n_deny_read + 1) * sizeof(*grown));
	if (grown == NULL)
		return oom(p);
	c->deny_read = grown;
	if ((grown[c->n_deny_read] = strdup(v)) == NULL)
		return oom(p);
	c->n_deny_read++;
	return 1;
}

/* writable_roots (repeatable): one directory per line, absolute or
 * relative to the config's directory; resolved when a run is confined
 * (roots.h), so that a root made later still counts. */
static int roots_key(struct parser *p, const char *v)
{
	struct warden_config *c = p->cfg;
	char **grown, *path;
	size_t i;

	if (v[0] == '\0')
		return fail(p, "[warden] writable_roots: empty (give one directory "
		            "per line, e.g. writable_roots = ../cache)");
	if ((path = resolve_path(p, "writable_roots", v)) == NULL)
		return 0;
	for (i = 0; i < c->n_writable_roots; i++)
		if (strcmp(c->writable_roots[i], path) == 0) {
			free(path);
			return fail(p, "[warden] writable_roots = %s: listed twice "
			            "(keep one)", v);
		}
	if (c->n_writable_roots >= WARDEN_ROOTS_MAX) {
		free(path);
		return fail(p, "[warden] writable_roots: more than %d roots",
		            WARDEN_ROOTS_MAX);
	}
	grown = realloc(c->writable_roots, (c->n_writable_roots + 1) * sizeof(*grown));
	if (grown == NULL) {
		free(path);
		return oom(p);
	}
	c->writable_roots = grown;
	grown[c->n_writable_roots++] = path;
	return 1;
}

/* default_timeout, max_timeout: seconds (a decimal number, more than 0
 * and at most a day); output_limit: bytes (an integer from 1024, or with
 * a K or M suffix). */
static int agent_key(struct parser *p, const char *key, const char *v)
{
	struct warden_config *c = p->cfg;
	char *end;

	if (strcmp(key, "output_limit") == 0) {
		unsigned long long n;

		errno = 0;
		n = strtoull(v, &end, 10);
		if (end != v && (*end == 'K' || *end == 'k'))
			n *= 1024, end++;
		else if (end != v && (*end == 'M' || *end == 'm'))
			n *= 1024 * 1024, end++;
		if (errno != 0 || end == v || *end != '\0' || v[0] == '-' ||
		    n < 1024 || n > 64ULL * 1024 * 1024)
			return fail(p, "[warden] output_limit = %s: allowed: a number "
			            "of bytes from 1024 to 64M (e.g. 65536, 64K, 1M): "
			            "the most of each stream serve and mcp hand a model", v);
		c->output_limit = (size_t)n;
		return 1;
	} else {
		double s;

		errno = 0;
		s = strtod(v, &end);
		if (errno != 0 || end == v || *end != '\0' || !(s > 0) ||
		    s * 1000.0 > (double)WARDEN_CONFIG_TIMEOUT_MAX_MS)
			return fail(p, "[warden] %s = %s: allowed: a number of seconds, "
			            "more than 0 and at most 86400 (a day)", key, v);
		if (strcmp(key, "default_timeout") == 0)
			c->default_timeout_ms = (long)(s * 1000.0 + 0.5) > 0
				? (long)(s * 1000.0 + 0.5) : 1;
		else
			c->max_timeout_ms = (long)(s * 1000.0 + 0.5) > 0
				? (long)(s * 1000.0 + 0.5) : 1;
		return 1;
	}
}

static int warden_key(struct parser *p, int k, const char *key, const char *v)
{
	struct warden_config *c = p->cfg;
	int n;

	if (strcmp(key, "default_network") == 0 ||
	    strcmp(key, "allow_unix_socket") == 0)
		return network_key(p, key, v);
	if (strcmp(key, "deny_read") == 0 ||
	    strcmp(key, "deny_read_defaults") == 0)
		return deny_read_key(p, key, v);
	if (strcmp(key, "writable_roots") == 0)
		return roots_key(p, v);
	if (strcmp(key, "allowed_domains") == 0 ||
	    strcmp(key, "denied_domains") == 0 || strcmp(key, "hosts_file") == 0)
		return domains_key(p, key, v);
	if (strcmp(key, "default_timeout") == 0 || strcmp(key, "max_timeout") == 0 ||
	    strcmp(key, "output_limit") == 0)
		return agent_key(p, key, v);
	switch (k) {
	case 0:
		n = warden_mode_parse(v);
		if (n < 0)
			return fail(p, "[warden] default_mode = %s: allowed: "
			            "read-only, workspace-write, danger-full-access", v);
		c->default_mode = n;
		return 1;
	case 1:
		free(c->workspace_root);
		c->workspace_root = resolve_path(p, key, v);
		return !p->failed;
	case 2:
		n = warden_policy_parse(v);
		if (n < 0)
			return fail(p, "[warden] approval_policy = %s: allowed: "
			            "ask, never", v);
		c->approval_policy = n;
		return 1;
	case 3:
		free(c->state_dir);
		c->state_dir = resolve_path(p, key, v);
		return !p->failed;
	case 4:
		free(c->plugin_dir);
		c->plugin_dir = resolve_path(p, key, v);
		return !p->failed;
	case 5:
		n = parse_bool(v);
		if (n < 0)
			return fail(p, "[warden] require_full = %s: allowed: "
			            "true, false (or yes, no, 1, 0)", v);
		c->require_full = n;
		return 1;
	case 6:
		if (strcmp(v, "fsync") == 0)
			c->durability = WARDEN_DURABILITY_FSYNC;
		else if (strcmp(v, "none") == 0)
			c->durability = WARDEN_DURABILITY_NONE;
		else
			return fail(p, "[warden] durability = %s: allowed: "
			            "fsync, none", v);
		return 1;
	case 7:
		if (strchr(v, '/') != NULL && v[0] != '/')
			return fail(p, "[warden] shell = %s: allowed: a program "
			            "name looked up in PATH, or an absolute path", v);
		if (strpbrk(v, " \t") != NULL)
			return fail(p, "[warden] shell = %s: one program, no "
			            "arguments (warden runs SHELL -c COMMAND)", v);
		free(c->shell);
		if ((c->shell = strdup(v)) == NULL)
			return fail(p, "out of memory");
		return 1;
	default:
		return scrub_env_key(p, v);
	}
}

static int preset_key(struct parser *p, int k, const char *v)
{
	struct warden_preset *pr = &p->cfg->presets[p->index];
	int n;

	if (strcmp(preset_keys[k], "network") == 0) {
		n = warden_network_parse(v);
		if (n < 0)
			return fail(p, "[%s] network = %s: allowed: restricted, allowlist, "
			            "enabled (or leave the key out: the preset then "
			            "leaves the network alone)", p->header, v);
		pr->network = n;
		return 1;
	}
	switch (k) {
	case 0:
		n = warden_mode_parse(v);
		if (n < 0)
			return fail(p, "[%s] sandbox = %s: allowed: read-only, "
			            "workspace-write, danger-full-access", p->header, v);
		pr->mode = n;
		return 1;
	case 1:
		n = warden_policy_parse(v);
		if (n < 0)
			return fail(p, "[%s] approval = %s: allowed: ask, never",
			            p->header, v);
		pr->policy = n;
		return 1;
	case 2:
		pr->label = xstrndup(p, v, strlen(v));
		return !p->failed;
	default:
		pr->description = xstrndup(p, v, strlen(v));
		return !p->failed;
	}
}

static int valid_plugin_ref(const char *v)
{
	if (v[0] == '/')
		return 1;
	return valid_name(v, strlen(v));
}

static int plugin_key(struct parser *p, int k, const char *key, const char *v)
{
	struct warden_config *c = p->cfg;
	struct warden_config_plugin *pl = p->type == SECT_BACKEND
		? &c->backends[p->index] : &c->answerers[p->index];
	struct warden_kv *grown;
	long t;

	if (k < 0) {
		/* The plugin's own key, handed to its open() in file order. */
		grown = realloc(pl->kv, (pl->kv_count + 1) * sizeof(*grown));
		if (grown == NULL)
			return oom(p);
		pl->kv = grown;
		grown[pl->kv_count].key = xstrndup(p, key, strlen(key));
		grown[pl->kv_count].value = xstrndup(p, v, strlen(v));
		grown[pl->kv_count].line = p->line;
		pl->kv_count++;
		return !p->failed;
	}
	switch (k) {
	case 0:
		if (!valid_plugin_ref(v))
			return fail(p, "[%s] plugin = %s: allowed: a plugin name "
			            "(A-Z a-z 0-9 _ - ., found as NAME.so in "
			            "plugin_dir) or an absolute path", p->header, v);
		pl->plugin = xstrndup(p, v, strlen(v));
		pl->plugin_line = p->line;
		return !p->failed;
	case 1:
		if (p->type == SECT_BACKEND) {
			int b = parse_bool(v);

			if (b < 0)
				return fail(p, "[%s] required = %s: allowed: true, "
				            "false (or yes, no, 1, 0)", p->header, v);
			pl->required = b;
			return 1;
		}
		if (strcmp(v, "inproc") == 0)
			pl->isolation = WARDEN_ISOLATION_INPROC;
		else if (strcmp(v, "process") == 0)
			pl->isolation = WARDEN_ISOLATION_PROCESS;
		else
			return fail(p, "[%s] isolation = %s: allowed: inproc, "
			            "process", p->header, v);
		return 1;
	default:
		t = parse_timeout(v);
		if (t < 0)
			return fail(p, "[%s] timeout_ms = %s: allowed: a whole "
			            "number of milliseconds from 0 (none) to %ld",
			            p->header, v, TIMEOUT_MS_MAX);
		pl->timeout_ms = t;
		return 1;
	}
}

/* Host keys that may be given more than once (each line adds one). */
static int repeatable(int type, const char *key)
{
	return type == SECT_WARDEN && (strcmp(key, "allow_unix_socket") == 0 ||
	                               strcmp(key, "deny_read") == 0 ||
	                               strcmp(key, "writable_roots") == 0 ||
	                               strcmp(key, "allowed_domains") == 0 ||
	                               strcmp(key, "denied_domains") == 0);
}

static int handle(void *user, const char *section, const char *key,
                  const char *value)
{
	struct parser *p = user;
	char allowed[256];
	int k;

	(void)section; /* ours, from section_header(), is authoritative */
	if (p->failed)
		return 0;
	if (p->type == SECT_NONE)
		return fail(p, "key '%s' outside any section (put it under "
		            "[warden], [backend NAME], [answerer NAME] or "
		            "[preset NAME])", key);
	if (key[0] == '\0')
		return fail(p, "empty key in [%s] (write `key = value`)",
		            p->header);
	k = host_key_index(p->type, key);
	if (k < 0 && (p->type == SECT_WARDEN || p->type == SECT_PRESET)) {
		list_keys(p->type, allowed, sizeof(allowed));
		return fail(p, "[%s] unknown key '%s' (allowed: %s)", p->header,
		            key, allowed);
	}
	if (k >= 0) {
		if (p->key_line[k] != 0 && !repeatable(p->type, key))
			return fail(p, "[%s] %s given twice (first at line %u; "
			            "keep one)", p->header, key, p->key_line[k]);
		p->key_line[k] = p->line;
		if (value[0] == '\0')
			return fail(p, "[%s] %s has an empty value", p->header, key);
	}
	switch (p->type) {
	case SECT_WARDEN:
		return warden_key(p, k, key, value);
	case SECT_PRESET:
		return preset_key(p, k, value);
	default:
		return plugin_key(p, k, key, value);
	}
}

/* ------------------------------------------------------------ defaults */

static char *default_state_dir(struct warden_error *err)
{
	const char *base = getenv("XDG_STATE_HOME");
	const char *suffix = "/warden/sessions";
	const char *home;
	struct passwd *pw;
	char *out;
	size_t n;

	/* XDG: a relative XDG_STATE_HOME is invalid and ignored. */
	if (base == NULL || base[0] != '/') {
		suffix = "/.local/state/warden/sessions";
		home = getenv("HOME");
		if (home == NULL || home[0] != '/') {
			pw = getpwuid(getuid());
			home = pw != NULL ? pw->pw_dir : NULL;
		}
		if (home == NULL || home[0] != '/') {
			warden_error_set(err, WARDEN_ECONFIG, "no state directory: "
			                 "HOME is unset (set [warden] state_dir, "
			                 "XDG_STATE_HOME or HOME)");
			return NULL;
		}
		base = home;
	}
	n = strlen(base) + strlen(suffix) + 1;
	out = malloc(n);
	if (out == NULL) {
		warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
		return NULL;
	}
	snprintf(out, n, "%s%s", base, suffix);
	return out;
}

static int builtin_presets(struct warden_config *c, struct warden_error *err)
{
	static const struct { const char *name; int mode, policy, network; } table[] = {
		{ "workspace-write", WARDEN_SANDBOX_WORKSPACE_WRITE, WARDEN_POLICY_ASK,
		  WARDEN_NETWORK_RESTRICTED },
		{ "danger-full-access", WARDEN_SANDBOX_DANGER_FULL_ACCESS, WARDEN_POLICY_NEVER,
		  WARDEN_NETWORK_ENABLED },
	};
	size_t i, n = sizeof(table) / sizeof(table[0]);

	c->presets = calloc(n, sizeof(*c->presets));
	if (c->presets == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
	for (i = 0; i < n; i++) {
		c->presets[i].name = strdup(table[i].name);
		if (c->presets[i].name == NULL)
			return warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
		c->presets[i].mode = table[i].mode;
		c->presets[i].policy = table[i].policy;
		c->presets[i].network = table[i].network;
		c->n_presets = i + 1;
	}
	c->presets_builtin = 1;
	return 0;
}

static int fill_defaults(struct warden_config *c, struct warden_error *err)
{
	if (c->default_mode == 0)
		c->default_mode = WARDEN_SANDBOX_READ_ONLY;
	if (c->approval_policy == 0)
		c->approval_policy = WARDEN_POLICY_ASK;
	if (c->default_network == 0)
		c->default_network = WARDEN_NETWORK_RESTRICTED;
	if (c->durability == 0)
		c->durability = WARDEN_DURABILITY_FSYNC;
	if (c->deny_read_defaults < 0)
		c->deny_read_defaults = 1;
	if (c->state_dir == NULL && (c->state_dir = default_state_dir(err)) == NULL)
		return -err->code;
	if (c->plugin_dir == NULL && (c->plugin_dir = strdup(WARDEN_PLUGIN_DIR)) == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
	if (c->n_presets == 0)
		return builtin_presets(c, err);
	return 0;
}

/* --------------------------------------------------------------- parse */

/* file and its directory, both absolute ("<built-in>" is anchored at the
 * system config directory). */
static int name_file(struct warden_config *c, const char *file,
                     struct warden_error *err)
{
	char cwd[PATH_MAX];
	const char *anchor = file;
	const char *slash;
	size_t n;

	if (strcmp(file, BUILTIN_FILE) == 0) {
		anchor = WARDEN_SYSCONF_FILE;
		c->file = strdup(BUILTIN_FILE);
	} else if (file[0] == '/') {
		c->file = strdup(file);
	} else {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return warden_error_errno(err, WARDEN_EOS, errno,
			                          "%s: cannot name the current directory",
			                          file);
		n = strlen(cwd) + 1 + strlen(file) + 1;
		c->file = malloc(n);
		if (c->file != NULL)
			snprintf(c->file, n, "%s%s%s", cwd,
			         strcmp(cwd, "/") == 0 ? "" : "/", file);
		anchor = c->file;
	}
	if (c->file == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
	slash = strrchr(anchor, '/');
	c->dir = slash == anchor ? strdup("/") : strndup(anchor, (size_t)(slash - anchor));
	if (c->dir == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
	return 0;
}

int warden_config_parse(const char *text, const char *file,
                        struct warden_config **out, struct warden_error *err)
{
	struct parser p;
	int rc;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.err = err;
	p.pos = text;
	p.cfg = calloc(1, sizeof(*p.cfg));
	if (p.cfg == NULL)
		return warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
	p.cfg->deny_read_defaults = -1;
	if (file == NULL)
		file = BUILTIN_FILE;
	rc = name_file(p.cfg, file, err);
	if (rc < 0)
		goto fail;
	p.file = p.cfg->file;

	rc = ini_parse_stream(read_line, &p, handle, &p);
	if (!p.failed)
		finish_section(&p);
	if (rc > 0 && (!p.failed || (unsigned)rc < p.fail_line)) {
		/* inih found a line that is neither a section, a key nor a
		 * comment, before (or instead of) any problem of ours. */
		p.failed = 0;
		p.line = (unsigned)rc;
		fail(&p, "expected `key = value`, `[section]` or a comment");
	} else if (rc < 0 && !p.failed) {
		warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
		p.failed = 1;
	}
	if (p.failed) {
		rc = -err->code;
		goto fail;
	}
	if (p.cfg->max_timeout_ms > 0 && p.cfg->default_timeout_ms > p.cfg->max_timeout_ms) {
		rc = warden_error_set(err, WARDEN_ECONFIG,
		                       "%s: [warden] default_timeout (%.3g s) is above max_timeout (%.3g s): lower default_timeout or raise max_timeout",
		                       p.file, p.cfg->default_timeout_ms / 1000.0,
		                       p.cfg->max_timeout_ms / 1000.0);
		goto fail;
	}
	rc = fill_defaults(p.cfg, err);
	if (rc < 0)
		goto fail;
	*out = p.cfg;
	return 0;
fail:
	warden_config_free(p.cfg);
	return rc;
}

/* ---------------------------------------------------------------- load */

/* Reads a config file, refusing what a hostile user could have planted.
 * Returns 0, -ENOENT-like 1 when missing and !must_exist, or <0. */
static int load_file(const char *path, int must_exist,
                     struct warden_config **out, struct warden_error *err)
{
	char real[PATH_MAX];
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	ssize_t n;
	const char *nul;
	int fd, rc;

	/* O_NONBLOCK: a FIFO planted as the config must not hang us. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (!must_exist && (errno == ENOENT || errno == ENOTDIR))
			return 1;
		return warden_error_errno(err, WARDEN_ECONFIG, errno,
		                          "config file %s", path);
	}
	if (fstat(fd, &st) < 0) {
		rc = warden_error_errno(err, WARDEN_ECONFIG, errno,
		                        "config file %s", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = warden_error_set(err, WARDEN_ECONFIG, "config file %s: not "
		                      "a regular file", path);
		goto out;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		rc = warden_error_set(err, WARDEN_ECONFIG, "config file %s: "
		                      "refused, writable by %s (mode %04o; fix: "
		                      "chmod go-w %s)", path,
		                      (st.st_mode & S_IWOTH) ? "others" : "its group",
		                      (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		rc = warden_error_set(err, WARDEN_ECONFIG, "config file %s: "
		                      "refused, owned by uid %u, neither root nor "
		                      "you (fix: chown it, or use your own copy)",
		                      path, (unsigned)st.st_uid);
		goto out;
	}
	if (st.st_size > CONFIG_MAX_BYTES) {
		rc = warden_error_set(err, WARDEN_ECONFIG, "config file %s: too "
		                      "large (%lld bytes; at most %d)", path,
		                      (long long)st.st_size, CONFIG_MAX_BYTES);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (text == NULL) {
		rc = warden_error_set(err, WARDEN_EINTERNAL, "out of memory");
		goto out;
	}
	/* Read to the size seen; a file that grows meanwhile is cut there. */
	while (got < (size_t)st.st_size) {
		n = read(fd, text + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = warden_error_errno(err, WARDEN_EIO, errno,
			                        "config file %s", path);
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	text[got] = '\0';
	nul = memchr(text, '\0', got);
	if (nul != NULL) {
		unsigned line = 1;
		const char *s;

		for (s = text; s < nul; s++)
			line += *s == '\n';
		rc = warden_error_set(err, WARDEN_ECONFIG, "%s:%u: NUL byte (a "
		                      "config file is plain text)", path, line);
		goto out;
	}
	rc = warden_config_parse(text, realpath(path, real) ? real : path,
	                         out, err);
out:
	free(text);
	close(fd);
	return rc;
}

int warden_config_load(const char *path, struct warden_config **out,
                       struct warden_error *err)
{
	char xdg[PATH_MAX];
	const char *env, *base, *suffix, *before[2];
	size_t n_before = 0, i;
	int rc;

	*out = NULL;
	if (path != NULL)
		return load_file(path, 1, out, err);
	env = getenv("WARDEN_CONFIG");
	if (env != NULL && env[0] != '\0')
		return load_file(env, 1, out, err);

	base = getenv("XDG_CONFIG_HOME");
	suffix = "/warden/warden.ini";
	if (base == NULL || base[0] != '/') {
		base = getenv("HOME");
		suffix = "/.config/warden/warden.ini";
	}
	if (base != NULL && base[0] == '/' &&
	    (size_t)snprintf(xdg, sizeof(xdg), "%s%s", base, suffix) < sizeof(xdg)) {
		rc = load_file(xdg, 0, out, err);
		if (rc <= 0)
			return rc;
		before[n_before++] = xdg;
	}
	rc = load_file(WARDEN_SYSCONF_FILE, 0, out, err);
	if (rc > 0) {
		before[n_before++] = WARDEN_SYSCONF_FILE;
		rc = warden_config_parse(warden_default_config, BUILTIN_FILE, out, err);
	}
	/* What would have been taken first, had it existed: creating one of
	 * them changes the next command's config. */
	for (i = 0; rc == 0 && i < n_before; i++) {
		(*out)->lookup_before[i] = strdup(before[i]);
		if ((*out)->lookup_before[i] == NULL) {
			warden_config_free(*out);
			*out = NULL;
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		}
		(*out)->n_lookup_before = i + 1;
	}
	return rc;
}

static void free_plugins(struct warden_config_plugin *arr, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		free(arr[i].name);
		free(arr[i].plugin);
		for (j = 0; j < arr[i].kv_count; j++) {
			free((char *)arr[i].kv[j].key);
			free((char *)arr[i].kv[j].value);
		}
		free(arr[i].kv);
	}
	free(arr);
}

void warden_config_free(struct warden_config *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	free(cfg->file);
	free(cfg->dir);
	for (i = 0; i < cfg->n_lookup_before; i++)
		free(cfg->lookup_before[i]);
	free(cfg->workspace_root);
	free(cfg->state_dir);
	free(cfg->plugin_dir);
	free(cfg->shell);
	for (i = 0; i < cfg->n_scrub_env; i++)
		free(cfg->scrub_env[i]);
	free(cfg->scrub_env);
	for (i = 0; i < cfg->n_allow_unix_sockets; i++)
		free(cfg->allow_unix_sockets[i]);
	free(cfg->allow_unix_sockets);
	for (i = 0; i < cfg->n_deny_read; i++)
		free(cfg->deny_read[i]);
	free(cfg->deny_read);
	for (i = 0; i < cfg->n_writable_roots; i++)
		free(cfg->writable_roots[i]);
	free(cfg->writable_roots);
	for (i = 0; i < cfg->n_allowed_domains; i++)
		free(cfg->allowed_domains[i]);
	free(cfg->allowed_domains);
	for (i = 0; i < cfg->n_denied_domains; i++)
		free(cfg->denied_domains[i]);
	free(cfg->denied_domains);
	free(cfg->hosts_file);
	free_plugins(cfg->backends, cfg->n_backends);
	free_plugins(cfg->answerers, cfg->n_answerers);
	for (i = 0; i < cfg->n_presets; i++) {
		free(cfg->presets[i].name);
		free(cfg->presets[i].label);
		free(cfg->presets[i].description);
	}
	free(cfg->presets);
	free(cfg);
}
