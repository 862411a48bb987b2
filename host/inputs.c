/* inputs.c — see inputs.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs.h"
#include "policy.h"

/* The keys of plugin sections that name a program or a library the
 * plugin runs or loads (bwrap, landlock, seatbelt, exec, ffi). */
static const char *const path_keys[] = {
	"path", "launcher", "runner", "command", "library", NULL,
};

struct list {
	struct warden_inputs *in;
	size_t cap;
	int oom;
};

int warden_inputs_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void add_one(struct list *l, const char *path, const char *what)
{
	struct warden_inputs *in = l->in;
	struct warden_input *grown;
	size_t i;

	if (l->oom)
		return;
	for (i = 0; i < in->n; i++)
		if (strcmp(in->v[i].path, path) == 0)
			return;
	if (in->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		grown = realloc(in->v, l->cap * sizeof(*grown));
		if (grown == NULL) {
			l->oom = 1;
			return;
		}
		in->v = grown;
	}
	in->v[in->n].path = strdup(path);
	in->v[in->n].what = strdup(what);
	if (in->v[in->n].path == NULL || in->v[in->n].what == NULL) {
		free(in->v[in->n].path);
		free(in->v[in->n].what);
		l->oom = 1;
		return;
	}
	in->n++;
}

/*
 * `path` resolved as far as it exists: realpath of the longest existing
 * prefix, the rest appended and normalised.  0, or -1 (not absolute, too
 * long).
 */
static int resolve_partly(const char *path, char out[PATH_MAX])
{
	char norm[PATH_MAX], head[PATH_MAX], real[PATH_MAX];
	size_t cut;

	if (path == NULL || path[0] != '/' ||
	    warden_path_normalise(path, norm, NULL) < 0)
		return -1;
	if (realpath(norm, out) != NULL)
		return 0;
	/* Walk back one component at a time until a prefix resolves
	 * (into real; "/" always does). */
	memcpy(head, norm, strlen(norm) + 1);
	for (;;) {
		char *slash = strrchr(head, '/');

		if (slash == NULL)
			return -1;
		if (slash == head) {
			head[1] = '\0';
			if (realpath(head, real) == NULL)
				return -1;
			break;
		}
		*slash = '\0';
		if (realpath(head, real) != NULL)
			break;
	}
	cut = strlen(head);
	if (strcmp(head, "/") == 0)
		cut = 0;
	if (snprintf(head, sizeof(head), "%s/%s",
	             strcmp(real, "/") == 0 ? "" : real, norm + cut + 1) >= (int)sizeof(head))
		return -1;
	return warden_path_normalise(head, out, NULL) < 0 ? -1 : 0;
}

/*
 * Every symbolic link the path as written passes through, at any
 * component, each with its directory resolved: replacing a link (or
 * renaming its directory's entry) is as good as rewriting what lies
 * behind it.  Each link's target, with the rest of the path, is walked
 * the same way (a link may lead through another), up to 40 links.
 */
static void add_links(struct list *l, const char *path, const char *what,
                      int depth)
{
	char norm[PATH_MAX], pre[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
	char target[PATH_MAX], next[PATH_MAX * 2];
	size_t i, n;
	ssize_t got;
	struct stat st;
	char *slash;

	if (depth > 40 || warden_path_normalise(path, norm, NULL) < 0)
		return;
	n = strlen(norm);
	for (i = 1; i <= n; i++) {
		if (norm[i] != '/' && norm[i] != '\0')
			continue;
		memcpy(pre, norm, i);
		pre[i] = '\0';
		if (lstat(pre, &st) < 0)
			return;         /* nothing there: no link further on */
		if (!S_ISLNK(st.st_mode))
			continue;
		memcpy(dir, pre, i + 1);
		slash = strrchr(dir, '/');
		*slash = '\0';
		if (resolve_partly(dir[0] ? dir : "/", real) < 0 ||
		    snprintf(next, sizeof(next), "%s/%s", strcmp(real, "/") == 0 ? "" : real,
		             slash + 1) >= (int)PATH_MAX)
			return;
		add_one(l, next, what);
		got = readlink(pre, target, sizeof(target) - 1);
		if (got <= 0)
			return;
		target[got] = '\0';
		if (snprintf(next, sizeof(next), "%s%s%s%s",
		             target[0] == '/' ? "" : (dir[0] ? dir : ""),
		             target[0] == '/' ? "" : "/", target, norm + i) >= (int)PATH_MAX)
			return;
		add_links(l, next, what, depth + 1);
		return;
	}
}

/* Adds path (resolved as far as it exists) and every symbolic link the
 * path as written passes through (add_links). */
static void add(struct list *l, const char *path, const char *what)
{
	char resolved[PATH_MAX];

	if (resolve_partly(path, resolved) < 0)
		return;
	add_one(l, resolved, what);
	add_links(l, path, what, 0);
}

/* A config value as a path: absolute, or from the config file's
 * directory. */
static void add_value(struct list *l, const struct warden_config *cfg,
                      const char *value, const char *what)
{
	char full[PATH_MAX];

	if (value == NULL || value[0] == '\0')
		return;
	if (value[0] == '/')
		add(l, value, what);
	else if (cfg->dir != NULL && cfg->dir[0] == '/' &&
	         snprintf(full, sizeof(full), "%s/%s", cfg->dir, value) < (int)sizeof(full))
		add(l, full, what);
}

/* The interpreter a script's "#!" line names, when it is absolute. */
static void add_interpreter(struct list *l, const char *program,
                            const char *what)
{
	char buf[256], *p, *end;
	ssize_t n;
	int fd;

	fd = open(program, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return;
	buf[n] = '\0';
	for (p = buf + 2; *p == ' ' || *p == '\t'; p++)
		;
	for (end = p; *end != '\0' && *end != ' ' && *end != '\t' && *end != '\n'; end++)
		;
	*end = '\0';
	if (p[0] == '/')
		add(l, p, what);
}

/* An exec `arg` that names an existing file, from where the program runs
 * (the current directory) or from the config file's directory. */
static void add_arg(struct list *l, const struct warden_config *cfg,
                    const char *value, const char *what)
{
	char full[PATH_MAX], cwd[PATH_MAX];
	struct stat st;

	if (value == NULL || value[0] == '\0')
		return;
	if (value[0] == '/') {
		if (stat(value, &st) == 0 && !S_ISDIR(st.st_mode))
			add(l, value, what);
		return;
	}
	if (getcwd(cwd, sizeof(cwd)) != NULL &&
	    snprintf(full, sizeof(full), "%s/%s", cwd, value) < (int)sizeof(full) &&
	    stat(full, &st) == 0 && !S_ISDIR(st.st_mode))
		add(l, full, what);
	if (cfg->dir != NULL && cfg->dir[0] == '/' &&
	    snprintf(full, sizeof(full), "%s/%s", cfg->dir, value) < (int)sizeof(full) &&
	    stat(full, &st) == 0 && !S_ISDIR(st.st_mode))
		add(l, full, what);
}

static void add_section(struct list *l, const struct warden_config *cfg,
                        const struct warden_config_plugin *p)
{
	const char *kind = p->kind == WARDEN_PLUGIN_BACKEND ? "backend" : "answerer";
	char what[256], full[PATH_MAX];
	size_t i, k;

	snprintf(what, sizeof(what), "[%s %s] plugin", kind, p->name);
	if (p->plugin != NULL && strchr(p->plugin, '/') != NULL)
		add(l, p->plugin, what);
	else if (p->plugin != NULL && cfg->plugin_dir != NULL &&
	         snprintf(full, sizeof(full), "%s/%s.so", cfg->plugin_dir,
	                  p->plugin) < (int)sizeof(full))
		add(l, full, what);
	for (i = 0; i < p->kv_count; i++) {
		const struct warden_kv *kv = &p->kv[i];

		snprintf(what, sizeof(what), "[%s %s] %s (line %u)", kind, p->name,
		         kv->key, kv->line);
		if (strcmp(kv->key, "arg") == 0) {
			add_arg(l, cfg, kv->value, what);
			continue;
		}
		for (k = 0; path_keys[k] != NULL; k++)
			if (strcmp(kv->key, path_keys[k]) == 0)
				break;
		if (path_keys[k] == NULL)
			continue;
		add_value(l, cfg, kv->value, what);
		if (strcmp(kv->key, "command") == 0 && kv->value[0] != '\0') {
			if (kv->value[0] == '/')
				snprintf(full, sizeof(full), "%s", kv->value);
			else
				snprintf(full, sizeof(full), "%s/%s", cfg->dir, kv->value);
			snprintf(what, sizeof(what), "[%s %s] the interpreter of %s",
			         kind, p->name, kv->value);
			add_interpreter(l, full, what);
		}
	}
}

int warden_inputs_collect(const struct warden_config *cfg,
                          struct warden_inputs **out,
                          struct warden_error *err)
{
	struct list l = { NULL, 0, 0 };
	char self[PATH_MAX];
	ssize_t n;
	size_t i;

	*out = NULL;
	l.in = calloc(1, sizeof(*l.in));
	if (l.in == NULL)
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	if (cfg->file != NULL && cfg->file[0] == '/')
		add(&l, cfg->file, "the config file");
	for (i = 0; i < cfg->n_lookup_before; i++)
		add(&l, cfg->lookup_before[i],
		    "a config file the lookup would use first, were it there");
	add(&l, cfg->state_dir, "state_dir (the session logs)");
	add(&l, cfg->plugin_dir, "plugin_dir");
	add(&l, WARDEN_LIBEXEC_DIR, "warden's helper programs (runners, launchers)");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		add(&l, self, "the warden program");
	}
	for (i = 0; i < cfg->n_backends; i++)
		add_section(&l, cfg, &cfg->backends[i]);
	for (i = 0; i < cfg->n_answerers; i++)
		add_section(&l, cfg, &cfg->answerers[i]);
	if (!l.oom) {
		l.in->paths = calloc(l.in->n + 1, sizeof(*l.in->paths));
		if (l.in->paths == NULL)
			l.oom = 1;
		for (i = 0; !l.oom && i < l.in->n; i++)
			l.in->paths[i] = l.in->v[i].path;
	}
	if (l.oom) {
		warden_inputs_free(l.in);
		return warden_error_set(err, WARDEN_EOS, "out of memory");
	}
	*out = l.in;
	return 0;
}

void warden_inputs_free(struct warden_inputs *in)
{
	size_t i;

	if (in == NULL)
		return;
	for (i = 0; i < in->n; i++) {
		free(in->v[i].path);
		free(in->v[i].what);
	}
	free(in->v);
	free(in->paths);
	free(in);
}
