/*
 * roots.c — the writable roots beside the workspace root and a git
 * worktree's common directory; see roots.h.
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

#include <warden/plugin.h>

#include "policy.h"
#include "roots.h"

void warden_roots_init(struct warden_roots *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < WARDEN_ROOTS_ALL; i++)
		r->fd[i] = -1;
}

void warden_roots_free(struct warden_roots *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->path[i]);
		free(r->worktree[i]);
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	}
	for (i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	warden_roots_init(r);
}

const char *warden_root_kind_name(int kind)
{
	return kind == WARDEN_ROOT_GIT_COMMON_DIR ? "git-common-dir" : "plain";
}

/* Is path dir or below it?  Both absolute and normal. */
static int within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The caller's home directories ($HOME and the password file's), which
 * no root may be or hold. */
static const char *home_in(const char *dir)
{
	static char pw_home[PATH_MAX];
	const char *home = getenv("HOME");
	struct passwd *pw;
	char real[PATH_MAX];

	if (home != NULL && home[0] == '/' && realpath(home, real) != NULL &&
	    within(real, dir)) {
		snprintf(pw_home, sizeof(pw_home), "%s", real);
		return pw_home;
	}
	pw = getpwuid(geteuid());
	if (pw != NULL && pw->pw_dir != NULL && realpath(pw->pw_dir, real) != NULL &&
	    within(real, dir)) {
		snprintf(pw_home, sizeof(pw_home), "%s", real);
		return pw_home;
	}
	return NULL;
}

/* Checks the resolved plain root p against root and r's roots; fix: how
 * to take it back.  0, or an error. */
static int plain_check(const char *p, const char *root,
                       const struct warden_roots *r, const char *fix,
                       struct warden_error *err)
{
	const char *home;
	size_t i;

	if (strcmp(p, "/") == 0)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "writable root /: every file would be writable (%s; name the directory the command must write)",
		                        fix);
	if (within(p, root))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "writable root %s %s the workspace root %s, which is writable already (%s)",
		                        p, strcmp(p, root) == 0 ? "is" : "lies inside", root, fix);
	if (within(root, p))
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "writable root %s holds the workspace root %s: its protected paths would not be held from above (%s; name a directory beside the root)",
		                        p, root, fix);
	if ((home = home_in(p)) != NULL)
		return warden_error_set(err, WARDEN_EUSAGE,
		                        "writable root %s %s the home directory %s: the command could plant start-up files (.bashrc, .ssh, .config) that run later outside the sandbox (%s; name a directory inside it)",
		                        p, strcmp(home, p) == 0 ? "is" : "holds", home, fix);
	for (i = 0; i < r->n; i++)
		if (within(p, r->path[i]) || within(r->path[i], p))
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "writable root %s %s the writable root %s (%s; keep one of them)",
			                        p, strcmp(p, r->path[i]) == 0 ? "is already"
			                        : within(p, r->path[i]) ? "lies inside" : "holds",
			                        r->path[i], fix);
	return 0;
}

static int add(struct warden_roots *r, const char *path, int kind, int source,
               const char *worktree)
{
	if (r->n >= WARDEN_ROOTS_ALL)
		return -1;
	r->path[r->n] = strdup(path);
	r->worktree[r->n] = worktree != NULL ? strdup(worktree) : NULL;
	r->kind[r->n] = kind;
	r->source[r->n] = source;
	r->fd[r->n] = -1;
	r->n++;
	if (r->path[r->n - 1] == NULL || (worktree != NULL && r->worktree[r->n - 1] == NULL))
		return -1;
	return 0;
}

__attribute__((format(printf, 2, 3)))
static void note(struct warden_roots *r, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (r->n_notes >= WARDEN_ROOTS_ALL)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		r->notes[r->n_notes++] = s;
	va_end(ap);
}

/* The first line of the small file dir/name into out (no newline); -1
 * when it cannot be read or is empty or too long. */
static int read_line(const char *path, char *out, size_t outlen)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, out, outlen - 1);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	return out[0] != '\0' && (size_t)n < outlen - 1 ? 0 : -1;
}

/* base joined with rel (rel absolute: rel), normalised, into out. */
static int join_norm(const char *base, const char *rel, char out[PATH_MAX])
{
	char buf[PATH_MAX];

	if (rel[0] == '/')
		return warden_path_normalise(rel, out, NULL);
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", base, rel) >= sizeof(buf))
		return -1;
	return warden_path_normalise(buf, out, NULL);
}

static int is_kind(const char *dir, const char *name, mode_t type)
{
	char p[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return 0;
	return lstat(p, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

static int git_dir(const char *dir)
{
	return is_kind(dir, "HEAD", S_IFREG) && is_kind(dir, "objects", S_IFDIR) &&
	       is_kind(dir, "refs", S_IFDIR);
}

/*
 * The common directory of the linked worktree at wt (resolved), into c
 * (roots.h says what is checked).  1: found; 0: wt is no linked worktree;
 * -1: it is one, but its links do not check out (why).
 */
static int common_dir(const char *wt, char c[PATH_MAX], char *why, size_t whylen)
{
	char dotgit[PATH_MAX], line[PATH_MAX + 16], x[PATH_MAX], xr[PATH_MAX];
	char c0[PATH_MAX], back[PATH_MAX], backr[PATH_MAX], dotgitr[PATH_MAX];
	char entry[PATH_MAX], entryr[PATH_MAX];
	const char *name;
	struct stat st;

	if ((size_t)snprintf(dotgit, sizeof(dotgit), "%s/.git", wt) >= sizeof(dotgit) ||
	    lstat(dotgit, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (read_line(dotgit, line, sizeof(line)) < 0 ||
	    strncmp(line, "gitdir: ", 8) != 0)
		return 0;
	if (join_norm(wt, line + 8, x) < 0 || realpath(x, xr) == NULL ||
	    stat(xr, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "its .git file names %.200s, which is not a directory",
		         line + 8);
		return -1;
	}
	if ((size_t)snprintf(entry, sizeof(entry), "%s/commondir", xr) >= sizeof(entry) ||
	    read_line(entry, line, sizeof(line)) < 0) {
		snprintf(why, whylen, "%.200s/commondir cannot be read", xr);
		return -1;
	}
	if (join_norm(xr, line, c0) < 0 || realpath(c0, c) == NULL) {
		snprintf(why, whylen, "%.200s/commondir names %.200s, which does not resolve",
		         xr, line);
		return -1;
	}
	if (strcmp(c0, c) != 0) {
		snprintf(why, whylen, "%.200s/commondir leads to %.200s through a symbolic link",
		         xr, c);
		return -1;
	}
	if (lstat(c, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(why, whylen, "the common directory %.200s is not a directory owned by uid %u",
		         c, (unsigned)geteuid());
		return -1;
	}
	if (!git_dir(c)) {
		snprintf(why, whylen, "%.200s is not a git directory (no HEAD, objects/ or refs/)", c);
		return -1;
	}
	name = strrchr(xr, '/') + 1;
	if ((size_t)snprintf(entry, sizeof(entry), "%s/worktrees/%s", c, name) >= sizeof(entry) ||
	    realpath(entry, entryr) == NULL || strcmp(entryr, xr) != 0) {
		snprintf(why, whylen, "%.200s is not %.200s/worktrees/%.100s", xr, c, name);
		return -1;
	}
	if ((size_t)snprintf(entry, sizeof(entry), "%s/gitdir", xr) >= sizeof(entry) ||
	    read_line(entry, line, sizeof(line)) < 0 || join_norm(xr, line, back) < 0 ||
	    realpath(back, backr) == NULL || realpath(dotgit, dotgitr) == NULL ||
	    strcmp(backr, dotgitr) != 0) {
		snprintf(why, whylen, "%.200s/gitdir does not lead back to %.200s", xr, dotgit);
		return -1;
	}
	return 1;
}

/* Adds the common directory of the worktree wt, when it is one and its
 * links check out; else a note says why it got nothing.  -1 when out of
 * memory or the list is full. */
static int worktree(struct warden_roots *r, const char *root, const char *wt)
{
	char c[PATH_MAX], why[600];
	size_t i;
	int found = common_dir(wt, c, why, sizeof(why));

	if (found == 0)
		return 0;
	if (found > 0 && strcmp(c, "/") == 0) {
		snprintf(why, sizeof(why), "its common directory is /");
		found = -1;
	}
	if (found > 0 && within(root, c)) {
		snprintf(why, sizeof(why), "its common directory %.200s holds the workspace root %.200s",
		         c, root);
		found = -1;
	}
	for (i = 0; found > 0 && i < r->n; i++) {
		if (within(r->path[i], c) && strcmp(r->path[i], c) != 0) {
			snprintf(why, sizeof(why), "its common directory %.200s holds the writable root %.200s",
			         c, r->path[i]);
			found = -1;
		}
	}
	if (found < 0) {
		note(r, "worktree %s: its git directory is not made writable: %s (run `git worktree repair` outside the sandbox, or `warden roots add` the directory git must write)",
		     wt, why);
		return 0;
	}
	if (within(c, root))
		return 0;  /* writable already, its protected paths held there */
	for (i = 0; i < r->n; i++)
		if (within(c, r->path[i]))
			return 0;
	return add(r, c, WARDEN_ROOT_GIT_COMMON_DIR, WARDEN_SOURCE_DERIVED, wt);
}

int warden_roots_resolve(const struct warden_config *cfg,
                         const struct warden_knobs *k, const char *root,
                         struct warden_roots *out, struct warden_error *err)
{
	const char *list[WARDEN_ROOTS_MAX], *fix;
	char real[PATH_MAX];
	size_t i, n, n_plain;
	int r, session = k != NULL && k->roots_set;

	warden_roots_init(out);
	if (session) {
		n = warden_knobs_roots(k, list);
		fix = "warden roots remove DIR";
	} else {
		n = cfg->n_writable_roots < WARDEN_ROOTS_MAX ? cfg->n_writable_roots
		                                             : WARDEN_ROOTS_MAX;
		for (i = 0; i < n; i++)
			list[i] = cfg->writable_roots[i];
		fix = "take it out of writable_roots in the config";
	}
	out->list_source = session ? WARDEN_SOURCE_SESSION : WARDEN_SOURCE_CONFIG;
	for (i = 0; i < n; i++) {
		r = warden_root_resolve(list[i], "writable root", real, err);
		if (r < 0)
			goto fail;
		if (session && strcmp(real, list[i]) != 0) {
			r = warden_error_set(err, WARDEN_EDATA,
			                     "writable root %s now leads to %s (a directory on the way was replaced by a symlink or moved): warden does not follow a root that moved (restore it, or warden roots remove %s)",
			                     list[i], real, list[i]);
			goto fail;
		}
		if ((r = plain_check(real, root, out, fix, err)) < 0)
			goto fail;
		/* A git directory named as a root (a bare repository, or
		 * a .git) keeps its hooks and config read-only like a
		 * worktree's common directory. */
		if (add(out, real, git_dir(real) ? WARDEN_ROOT_GIT_COMMON_DIR
		                                 : WARDEN_ROOT_PLAIN,
		        out->list_source, NULL) < 0)
			goto oom;
	}
	n_plain = out->n;
	if (worktree(out, root, root) < 0)
		goto oom;
	for (i = 0; i < n_plain; i++)
		if (worktree(out, root, out->path[i]) < 0)
			goto oom;
	return 0;
oom:
	r = warden_error_set(err, WARDEN_EOS, "writable roots: out of memory");
fail:
	warden_roots_free(out);
	return r;
}

int warden_roots_open(struct warden_roots *r, struct warden_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < r->n; i++) {
		if (r->fd[i] >= 0)
			continue;
		if ((rc = warden_root_open(r->path[i], &r->fd[i], err)) < 0)
			return rc;
	}
	return 0;
}

int warden_roots_check_new(const char *dir, const char *root,
                           const struct warden_roots *r, char out[PATH_MAX],
                           struct warden_error *err)
{
	struct warden_roots plain;
	size_t i;
	int rc;

	if ((rc = warden_root_resolve(dir, "writable root", out, err)) < 0)
		return rc;
	/* Only the listed ones: a worktree's common directory may be named
	 * to keep it writable should its links break. */
	warden_roots_init(&plain);
	for (i = 0; i < r->n; i++)
		if (r->source[i] != WARDEN_SOURCE_DERIVED) {
			plain.path[plain.n] = r->path[i];
			plain.n++;
		}
	rc = plain_check(out, root, &plain, "nothing was added", err);
	return rc;
}

json_t *warden_roots_json(const struct warden_roots *r)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; a != NULL && i < r->n; i++) {
		o = json_pack("{s:s, s:s, s:s}", "path", r->path[i],
		              "kind", warden_root_kind_name(r->kind[i]),
		              "source", r->source[i] == WARDEN_SOURCE_DERIVED ? "worktree"
		              : warden_source_name(r->source[i]));
		if (o != NULL && r->worktree[i] != NULL &&
		    json_object_set_new(o, "worktree", json_string(r->worktree[i])) < 0) {
			json_decref(o);
			o = NULL;
		}
		if (o == NULL || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *warden_roots_notes_json(const struct warden_roots *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < r->n_notes; i++)
		if (json_array_append_new(a, json_string(r->notes[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* ---- roots add / remove ------------------------------------------------ */

void warden_roots_dir_resolve(const char *dir, char out[PATH_MAX])
{
	char abs[PATH_MAX], cwd[PATH_MAX];

	if (realpath(dir, out) != NULL && warden_path_normalise(out, out, NULL) == 0)
		return;
	if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL &&
	    (size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, dir) < sizeof(abs))
		warden_path_normalise(abs, out, NULL);
	else if (warden_path_normalise(dir, out, NULL) < 0)
		snprintf(out, PATH_MAX, "%s", dir);
}

struct change {
	const struct warden_config *cfg;
	const char *root;
	const char *dir;
	int add;
	char *resolved;
	int changed;
};

/* The listed roots as the session (or, before its first sandbox/roots,
 * the config) has them, each resolved when it resolves, else as
 * written, normalised. */
static size_t listed(const struct warden_config *cfg, const struct warden_knobs *k,
                     char out[WARDEN_ROOTS_MAX][PATH_MAX])
{
	const char *list[WARDEN_ROOTS_MAX];
	size_t i, n;

	if (k->roots_set) {
		n = warden_knobs_roots(k, list);
	} else {
		n = cfg->n_writable_roots < WARDEN_ROOTS_MAX ? cfg->n_writable_roots
		                                             : WARDEN_ROOTS_MAX;
		for (i = 0; i < n; i++)
			list[i] = cfg->writable_roots[i];
	}
	for (i = 0; i < n; i++)
		if (realpath(list[i], out[i]) == NULL ||
		    warden_path_normalise(out[i], out[i], NULL) < 0)
			if (warden_path_normalise(list[i], out[i], NULL) < 0)
				snprintf(out[i], PATH_MAX, "%s", list[i]);
	return n;
}

static int change_txn(struct warden_session *s, const struct warden_knobs *now,
                      void *ud, struct warden_error *err)
{
	struct change *c = ud;
	char have[WARDEN_ROOTS_MAX][PATH_MAX];
	const char *next[WARDEN_ROOTS_MAX + 1];
	struct warden_roots cur;
	size_t i, n, m = 0, found = WARDEN_ROOTS_MAX;
	int r;

	n = listed(c->cfg, now, have);
	if (c->add) {
		/* One the session lists already: nothing to write. */
		warden_roots_dir_resolve(c->dir, c->resolved);
		for (i = 0; i < n; i++)
			if (strcmp(have[i], c->resolved) == 0) {
				c->changed = 0;
				return 0;
			}
		if ((r = warden_roots_resolve(c->cfg, now, c->root, &cur, err)) < 0)
			return r;
		r = warden_roots_check_new(c->dir, c->root, &cur, c->resolved, err);
		warden_roots_free(&cur);
		if (r < 0)
			return r;
		if (n >= WARDEN_ROOTS_MAX)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "the session has %d writable roots already, the most it may (remove one first: roots remove DIR)",
			                        WARDEN_ROOTS_MAX);
		for (i = 0; i < n; i++)
			next[m++] = have[i];
		next[m++] = c->resolved;
	} else {
		warden_roots_dir_resolve(c->dir, c->resolved);
		for (i = 0; i < n; i++) {
			if (strcmp(have[i], c->resolved) == 0)
				found = i;
			else
				next[m++] = have[i];
		}
		if (found == WARDEN_ROOTS_MAX)
			return warden_error_set(err, WARDEN_EUSAGE,
			                        "%s is not a writable root of this session (the roots list shows them; a worktree's git directory goes with its worktree)",
			                        c->resolved);
	}
	return warden_session_set_roots(s, next, m, &c->changed, err);
}

int warden_roots_change(const struct warden_config *cfg, struct warden_session *s,
                        const char *dir, int add, char resolved[PATH_MAX],
                        int *changed, struct warden_error *err)
{
	struct warden_resolved res;
	struct change c = { cfg, NULL, dir, add, resolved, 0 };
	int r;

	if (dir == NULL || dir[0] == '\0')
		return warden_error_set(err, WARDEN_EUSAGE, "roots: no directory given");
	if ((r = warden_policy_resolve_session(cfg, s, 0, &res, err)) < 0)
		return r;
	c.root = res.root;
	r = warden_session_transaction(s, change_txn, &c, err);
	if (changed != NULL)
		*changed = c.changed;
	return r;
}
