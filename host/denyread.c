/*
 * denyread.c — the `deny_read` list; see denyread.h.
 *
 * Expansion walks the host as it is when the run is confined.  A literal
 * component costs one lstat; only a glob lists a directory, and a `**`
 * walks below it, never following a link, bounded by
 * WARDEN_DENY_WALK_MAX entries: a pattern that would look through more is
 * an error (the run is refused), never a shorter list.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "denyread.h"

const char *const warden_deny_defaults[] = {
	"~/.ssh",
	"~/.aws",
	"~/.gnupg",
	"~/.netrc",
	"~/.config/gh",
	"~/.docker/config.json",
	"~/.kube",
	NULL,
};

static int has_glob(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return 1;
	return 0;
}

const char *warden_deny_pattern_problem(const char *p)
{
	const char *s;
	size_t n;

	if (p[0] == '\0')
		return "empty (write a path, ~/PATH or a pattern under the roots such as **/.env)";
	if (strlen(p) >= PATH_MAX / 2)
		return "too long";
	if (strcmp(p, "~") == 0)
		return "the whole home directory would be unreadable, workspace included (name what in it: ~/.ssh)";
	if (p[0] == '~' && p[1] != '/')
		return "'~USER' is not expanded (write ~/PATH for the invoking user, or the absolute path)";
	if (strcmp(p, "/") == 0 || strcmp(p, "**") == 0)
		return "would hide everything";
	s = p[0] == '/' ? p + 1 : p[0] == '~' ? p + 2 : p;
	for (;; s += n + 1) {
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return "not a normal path (no '//', '.' or '..' component and no trailing '/')";
		if (n > 2 && s[0] == '*' && s[1] == '*')
			return "'**' stands alone as a component (write **/NAME)";
		if (s[n] == '\0')
			return NULL;
	}
}

void warden_deny_init(struct warden_deny *d)
{
	memset(d, 0, sizeof(*d));
}

void warden_deny_free(struct warden_deny *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->paths[i]);
	for (i = 0; i < d->n_list; i++)
		free(d->list[i]);
	free(d->paths);
	free(d->patterns);
	free(d->list);
	warden_deny_init(d);
}

/* Whether path is dir or lies below it (both absolute, normal). */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

struct walk {
	struct warden_deny *d;
	const char *pattern;    /* as listed, for d->patterns and errors */
	size_t seen;            /* entries looked through */
	struct warden_error *err;
	int failed;
};

/* Adds the match at path, resolved; a match inside one already there is
 * dropped, one that holds others replaces them. */
static void add_match(struct walk *w, const char *path)
{
	struct warden_deny *d = w->d;
	char real[PATH_MAX];
	size_t i, j;

	if (realpath(path, real) == NULL) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EACCES)
			return; /* gone, or a dangling link: nothing to read */
		warden_error_errno(w->err, WARDEN_EIO, errno,
		                   "deny_read = %s: cannot resolve %s", w->pattern, path);
		w->failed = 1;
		return;
	}
	for (i = 0; i < d->n; i++)
		if (under(real, d->paths[i]))
			return;
	for (i = j = 0; i < d->n; i++) {
		if (under(d->paths[i], real)) {
			free(d->paths[i]);
			continue;
		}
		d->paths[j] = d->paths[i];
		d->patterns[j++] = d->patterns[i];
	}
	d->n = j;
	if (d->n >= WARDEN_DENY_MAX) {
		warden_error_set(w->err, WARDEN_ECONFIG,
		                 "deny_read = %s: more than %d paths match today; narrow the patterns (a directory instead of every file in it)",
		                 w->pattern, WARDEN_DENY_MAX);
		w->failed = 1;
		return;
	}
	if ((d->paths[d->n] = strdup(real)) == NULL) {
		warden_error_set(w->err, WARDEN_EOS, "deny_read: out of memory");
		w->failed = 1;
		return;
	}
	d->patterns[d->n++] = w->pattern;
}

static void walk(struct walk *w, const char *dir, const char *rest);

/* A directory to list, or NULL: when it is gone or not the caller's to
 * list (nor then the command's), quietly; else (out of memory,
 * descriptors) the pattern fails, never a shorter list. */
static DIR *open_dir(struct walk *w, const char *dir)
{
	DIR *dh = opendir(dir);

	if (dh == NULL && errno != ENOENT && errno != ENOTDIR && errno != EACCES) {
		warden_error_errno(w->err, WARDEN_EIO, errno,
		                   "deny_read = %s: cannot list %s", w->pattern, dir);
		w->failed = 1;
	}
	return dh;
}

/* `**` at rest (rest points at it): zero directories, then each
 * directory below dir, not following links. */
static void walk_any(struct walk *w, const char *dir, const char *rest)
{
	const char *after = rest[2] == '/' ? rest + 3 : rest + 2;
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *dh;

	walk(w, dir, after);
	if (w->failed || (dh = open_dir(w, dir)) == NULL)
		return;
	while (!w->failed && (e = readdir(dh)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++w->seen > WARDEN_DENY_WALK_MAX) {
			warden_error_set(w->err, WARDEN_ECONFIG,
			                 "deny_read = %s: looking for it went through more than %d entries (under %s); narrow the pattern (name the directories instead of **)",
			                 w->pattern, WARDEN_DENY_WALK_MAX, dir);
			w->failed = 1;
			break;
		}
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", strcmp(dir, "/") ? dir : "",
		                     e->d_name) >= sizeof(sub))
			continue;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			walk_any(w, sub, rest);
	}
	closedir(dh);
}

/* Matches rest (components, '/'-separated) below dir. */
static void walk(struct walk *w, const char *dir, const char *rest)
{
	char comp[NAME_MAX + 1], sub[PATH_MAX];
	const char *next;
	size_t n = strcspn(rest, "/");
	struct dirent *e;
	struct stat st;
	DIR *dh;

	if (rest[0] == '\0') {
		add_match(w, dir);
		return;
	}
	if (n == 2 && rest[0] == '*' && rest[1] == '*') {
		walk_any(w, dir, rest);
		return;
	}
	if (n > NAME_MAX)
		return;
	memcpy(comp, rest, n);
	comp[n] = '\0';
	next = rest[n] == '/' ? rest + n + 1 : rest + n;
	if (!has_glob(comp, n)) {
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", strcmp(dir, "/") ? dir : "",
		                     comp) >= sizeof(sub))
			return;
		/* A link is followed here: ~/.ssh may be one. */
		if (next[0] == '\0' ? lstat(sub, &st) == 0 : stat(sub, &st) == 0 &&
		                                              S_ISDIR(st.st_mode))
			walk(w, sub, next);
		return;
	}
	if ((dh = open_dir(w, dir)) == NULL)
		return;
	while (!w->failed && (e = readdir(dh)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++w->seen > WARDEN_DENY_WALK_MAX) {
			warden_error_set(w->err, WARDEN_ECONFIG,
			                 "deny_read = %s: looking for it went through more than %d entries (under %s); narrow the pattern",
			                 w->pattern, WARDEN_DENY_WALK_MAX, dir);
			w->failed = 1;
			break;
		}
		if (fnmatch(comp, e->d_name, 0) != 0)
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", strcmp(dir, "/") ? dir : "",
		                     e->d_name) >= sizeof(sub))
			continue;
		if (next[0] == '\0' || (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)))
			walk(w, sub, next);
	}
	closedir(dh);
}

int warden_passwd_home(uid_t uid, char out[PATH_MAX])
{
	char line[1024];
	FILE *f = fopen("/etc/passwd", "re");
	int found = 0;

	out[0] = '\0';
	if (f == NULL)
		return errno == ENOENT || errno == EACCES ? 0 : -1;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *field[7], *p = line;
		size_t n = 0;

		line[strcspn(line, "\n")] = '\0';
		while (n < 7 && p != NULL) {
			field[n++] = p;
			if ((p = strchr(p, ':')) != NULL)
				*p++ = '\0';
		}
		if (n == 7 && field[2][0] != '\0' &&
		    strtoul(field[2], NULL, 10) == (unsigned long)uid &&
		    field[5][0] == '/' && strlen(field[5]) < PATH_MAX) {
			snprintf(out, PATH_MAX, "%s", field[5]);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* The invoking user's home directories: the password entry's and $HOME
 * when it differs (absolute).  -1 when /etc/passwd could not be read. */
static int homes(char out[2][PATH_MAX], size_t *n)
{
	const char *env = getenv("HOME");

	*n = 0;
	switch (warden_passwd_home(getuid(), out[0])) {
	case -1:
		return -1;
	case 1:
		*n = 1;
		break;
	}
	if (env != NULL && env[0] == '/' && strlen(env) < PATH_MAX &&
	    (*n == 0 || strcmp(out[0], env) != 0))
		snprintf(out[(*n)++], PATH_MAX, "%s", env);
	return 0;
}

static int list_add(struct warden_deny *d, const char *p)
{
	char **grown = realloc(d->list, (d->n_list + 1) * sizeof(*grown));

	if (grown == NULL)
		return -1;
	d->list = grown;
	if ((grown[d->n_list] = strdup(p)) == NULL)
		return -1;
	d->n_list++;
	return 0;
}

int warden_deny_expand(const struct warden_config *cfg,
                       const char *const *roots, size_t n_roots,
                       struct warden_deny *d, struct warden_error *err)
{
	char home[2][PATH_MAX];
	struct walk w = { d, NULL, 0, err, 0 };
	size_t i, k, nh;

	warden_deny_init(d);
	if (homes(home, &nh) < 0)
		return warden_error_errno(err, WARDEN_EIO, errno,
		                          "deny_read: cannot read /etc/passwd for the home directory of uid %lu",
		                          (unsigned long)getuid());
	if ((d->paths = calloc(WARDEN_DENY_MAX, sizeof(*d->paths))) == NULL ||
	    (d->patterns = calloc(WARDEN_DENY_MAX, sizeof(*d->patterns))) == NULL)
		goto oom;
	if (cfg->deny_read_defaults)
		for (i = 0; warden_deny_defaults[i] != NULL; i++)
			if (list_add(d, warden_deny_defaults[i]) < 0)
				goto oom;
	/* Every session's log: what was asked, answered and run. */
	if (cfg->deny_read_defaults && cfg->state_dir != NULL &&
	    list_add(d, cfg->state_dir) < 0)
		goto oom;
	for (i = 0; i < cfg->n_deny_read; i++)
		if (list_add(d, cfg->deny_read[i]) < 0)
			goto oom;
	for (i = 0; i < d->n_list && !w.failed; i++) {
		const char *p = d->list[i];

		w.pattern = p;
		w.seen = 0;
		if (p[0] == '/') {
			walk(&w, "/", p + 1);
		} else if (p[0] == '~') {
			for (k = 0; k < nh && !w.failed; k++)
				walk(&w, home[k], p + 2);
		} else {
			for (k = 0; k < n_roots && !w.failed; k++)
				walk(&w, roots[k], p);
		}
	}
	if (w.failed) {
		warden_deny_free(d);
		return -err->code;
	}
	return 0;
oom:
	warden_deny_free(d);
	return warden_error_set(err, WARDEN_EOS, "deny_read: out of memory");
}

const char *warden_deny_covers(const struct warden_deny *d, const char *path,
                               const char **match)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (under(path, d->paths[i])) {
			if (match != NULL)
				*match = d->paths[i];
			return d->patterns[i];
		}
	return NULL;
}
