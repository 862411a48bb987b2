/*
 * loader.c — finds, checks, dlopen()s and validates one plugin (loader.h).
 *
 * dlopen() runs a plugin's constructors before any field can be checked,
 * so the decision to trust a file is taken on the filesystem first:
 *
 *   - A bare name means plugin_dir/NAME.so and nothing else: never a
 *     search of LD_LIBRARY_PATH or the cwd (dlopen gets an absolute path).
 *     A name with '/' must be absolute.
 *   - Symlinks are followed (realpath) and the resolved file is what is
 *     checked and loaded.  The file, every directory on the way to it as
 *     resolved, and every directory on the configured path (where a
 *     symlink could be swapped) must be owned by root or the invoking user
 *     and not writable by group or others.  One exception: a directory
 *     above the plugin's own directory may be writable if it is sticky
 *     (like /tmp), since then nobody else can rename or remove the entry
 *     below it, which is itself checked.  The plugin's own directory is
 *     never excused, sticky or not: a stranger could add NAME.so to it.
 *     With every directory trusted, nobody else can replace the file
 *     between the check and dlopen().
 *
 * Then the descriptor: its header (ABI, size, kind) is read only after
 * the exported symbol is known to be at least that large, and a size the
 * descriptor claims is checked against the size of the symbol itself.
 * Only the prefix the host knows is copied; a newer minor's tail is never
 * read.  Any problem is a status with a one-line reason, never a stop.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader.h"

#define PLUGIN_NAME_MAX 64
/* abi_major, abi_minor, struct_size, kind: what is read before anything. */
#define DESC_HEADER_SIZE (4 * sizeof(uint32_t))
/* The descriptor of ABI 1.0 ended with n_runner_rules: what every plugin
 * of this major has at least.  Everything after it is a later minor's,
 * and read only when the plugin's struct_size covers it. */
#define DESC_SIZE_1_0 offsetof(struct warden_plugin, runner_rule_size)

/* open() gets kv in the host's layout, which is every minor's so far.  A
 * minor that grows warden_kv must hand an older plugin its own layout. */
_Static_assert(sizeof(struct warden_kv) == WARDEN_KV_SIZE_1_0,
               "warden_kv grew: lay kv out in the plugin's minor");

const char *warden_load_status_name(int status)
{
	switch (status) {
	case WARDEN_LOAD_LOADED: return "loaded";
	case WARDEN_LOAD_MISSING: return "missing";
	case WARDEN_LOAD_MALFORMED: return "malformed";
	case WARDEN_LOAD_FAILED: return "failed";
	default: return NULL;
	}
}

static int set_status(struct warden_loaded *out, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_status(struct warden_loaded *out, int status, const char *fmt, ...)
{
	va_list ap;
	char *c;

	out->status = status;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	/* One printable line, whatever a plugin or dlerror() wrote. */
	for (c = out->reason; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return -status;
}

static int trusted_owner(uid_t uid)
{
	return uid == 0 || uid == getuid() || uid == geteuid();
}

/* Refuses st (of `what` at path) unless root or the invoker owns it and
 * neither group nor others may write it. */
static int check_trust(struct warden_loaded *out, const char *what,
                       const char *path, const struct stat *st)
{
	if (!trusted_owner(st->st_uid))
		return set_status(out, WARDEN_LOAD_MALFORMED, "refused: %s %s is "
		                  "owned by uid %u, neither root nor you", what,
		                  path, (unsigned)st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return set_status(out, WARDEN_LOAD_MALFORMED, "refused: %s %s is "
		                  "writable by %s (mode %04o; fix: chmod go-w %s)",
		                  what, path,
		                  (st->st_mode & S_IWOTH) ? "others" : "its group",
		                  (unsigned)(st->st_mode & 07777), path);
	return 0;
}

/* The entry of `file` right below the sticky directory ending at
 * `slash`: when it is a symlink, its owner must be trusted. */
static int check_sticky_child(struct warden_loaded *out, const char *file,
                              const char *slash)
{
	char child[PATH_MAX];
	const char *end = strchr(slash + 1, '/');
	struct stat st;
	size_t n = end != NULL ? (size_t)(end - file) : strlen(file);

	if (n >= sizeof(child))
		return set_status(out, WARDEN_LOAD_MALFORMED, "path too long");
	memcpy(child, file, n);
	child[n] = '\0';
	if (lstat(child, &st) < 0 || !S_ISLNK(st.st_mode) || trusted_owner(st.st_uid))
		return 0; /* a missing entry is reported by the next stat() */
	return set_status(out, WARDEN_LOAD_MALFORMED, "refused: symlink %s in a "
	                  "sticky directory is owned by uid %u, neither root "
	                  "nor you", child, (unsigned)st.st_uid);
}

/* Every directory from / down to the one holding `file` (lexical
 * prefixes, each stat()ed as the kernel resolves it). */
static int check_dirs(struct warden_loaded *out, const char *file)
{
	char prefix[PATH_MAX];
	const char *slash = file, *next;
	struct stat st;
	size_t n;

	for (;;) {
		n = slash == file ? 1 : (size_t)(slash - file);
		if (n >= sizeof(prefix))
			return set_status(out, WARDEN_LOAD_MALFORMED, "path too long");
		memcpy(prefix, file, n);
		prefix[n] = '\0';
		if (stat(prefix, &st) < 0)
			return set_status(out, errno == ENOENT ? WARDEN_LOAD_MISSING
			                  : WARDEN_LOAD_MALFORMED, "%s: %s", prefix,
			                  strerror(errno));
		next = strchr(slash + 1, '/');
		if (next != NULL && (st.st_mode & S_ISVTX) &&
		    trusted_owner(st.st_uid)) {
			/* Sticky ancestor: its child entry is checked next, as
			 * the directory it leads to; but a stranger's symlink
			 * there is the stranger's to repoint. */
			if (check_sticky_child(out, file, slash) < 0)
				return -out->status;
		} else if (check_trust(out, "directory", prefix, &st) < 0) {
			return -out->status;
		}
		slash = next;
		if (slash == NULL)
			return 0;
	}
}

static int valid_file_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > PLUGIN_NAME_MAX || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ||
		      s[i] == '.'))
			return 0;
	return 1;
}

/* out->path: the resolved, checked file to dlopen. */
static int locate(const struct warden_config *config,
                  const struct warden_config_plugin *cfg,
                  struct warden_loaded *out)
{
	char candidate[PATH_MAX];
	struct stat st;

	if (strchr(cfg->plugin, '/') != NULL) {
		if (cfg->plugin[0] != '/')
			return set_status(out, WARDEN_LOAD_MALFORMED, "plugin '%s' "
			                  "is a relative path (a name with '/' must "
			                  "be absolute)", cfg->plugin);
		if ((size_t)snprintf(candidate, sizeof(candidate), "%s",
		                     cfg->plugin) >= sizeof(candidate))
			return set_status(out, WARDEN_LOAD_MALFORMED, "path too long");
	} else {
		if (!valid_file_name(cfg->plugin))
			return set_status(out, WARDEN_LOAD_MALFORMED, "bad plugin "
			                  "name '%s' (A-Z a-z 0-9 _ - ., not "
			                  "starting with '.')", cfg->plugin);
		if ((size_t)snprintf(candidate, sizeof(candidate), "%s/%s.so",
		                     config->plugin_dir, cfg->plugin)
		    >= sizeof(candidate))
			return set_status(out, WARDEN_LOAD_MALFORMED, "path too long");
	}
	snprintf(out->path, sizeof(out->path), "%s", candidate);

	if (realpath(candidate, out->path) == NULL) {
		snprintf(out->path, sizeof(out->path), "%s", candidate);
		if (errno == ENOENT || errno == ENOTDIR)
			return set_status(out, WARDEN_LOAD_MISSING, "no such file: %s",
			                  candidate);
		return set_status(out, WARDEN_LOAD_MALFORMED, "%s: %s", candidate,
		                  strerror(errno));
	}
	/* The resolved path is checked too, unless it is the configured
	 * one (no symbolic link on the way): the same checks again. */
	if (check_dirs(out, candidate) < 0 ||
	    (strcmp(candidate, out->path) != 0 && check_dirs(out, out->path) < 0))
		return -out->status;
	if (stat(out->path, &st) < 0)
		return set_status(out, WARDEN_LOAD_MISSING, "no such file: %s",
		                  out->path);
	if (!S_ISREG(st.st_mode))
		return set_status(out, WARDEN_LOAD_MALFORMED, "%s is not a "
		                  "regular file", out->path);
	return check_trust(out, "file", out->path, &st);
}

static int valid_plugin_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > PLUGIN_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

static const char *kind_name(uint32_t kind)
{
	return kind == WARDEN_PLUGIN_ANSWERER ? "answerer"
	     : kind == WARDEN_PLUGIN_BACKEND ? "backend" : NULL;
}

/* Checks the descriptor at d (the exported symbol, sym_size bytes) and
 * copies what the host knows into out->desc. */
static int validate(const struct warden_config_plugin *cfg, const void *d,
                    size_t sym_size, struct warden_loaded *out)
{
	struct warden_plugin *p = &out->desc;
	const char *missing = NULL;

	if (sym_size < DESC_HEADER_SIZE)
		return set_status(out, WARDEN_LOAD_MALFORMED, "descriptor '%s' is "
		                  "%zu bytes, too small for its header",
		                  WARDEN_PLUGIN_SYMBOL, sym_size);
	memcpy(p, d, DESC_HEADER_SIZE);
	if (p->abi_major != WARDEN_PLUGIN_ABI_MAJOR)
		return set_status(out, WARDEN_LOAD_MALFORMED, "abi %u.%u, host "
		                  "speaks %d.x", p->abi_major, p->abi_minor,
		                  WARDEN_PLUGIN_ABI_MAJOR);
	if (p->struct_size < DESC_SIZE_1_0)
		return set_status(out, WARDEN_LOAD_MALFORMED, "descriptor is %u "
		                  "bytes, smaller than abi %d.0's %zu",
		                  p->struct_size, WARDEN_PLUGIN_ABI_MAJOR,
		                  DESC_SIZE_1_0);
	if (p->struct_size > sym_size)
		return set_status(out, WARDEN_LOAD_MALFORMED, "descriptor claims "
		                  "%u bytes but the symbol has %zu",
		                  p->struct_size, sym_size);
	/* A newer minor only appends: the host's prefix is all it reads.  An
	 * older minor's descriptor ends sooner: what it lacks stays zero, and
	 * struct_size keeps saying where it ended. */
	memcpy(p, d, p->struct_size < sizeof(*p) ? p->struct_size : sizeof(*p));
	if (kind_name(p->kind) == NULL)
		return set_status(out, WARDEN_LOAD_MALFORMED, "unknown kind %u "
		                  "(%d answerer, %d backend)", p->kind,
		                  WARDEN_PLUGIN_ANSWERER, WARDEN_PLUGIN_BACKEND);
	if (p->kind != (uint32_t)cfg->kind)
		return set_status(out, WARDEN_LOAD_MALFORMED, "kind %s does not "
		                  "match its section [%s %s]", kind_name(p->kind),
		                  kind_name((uint32_t)cfg->kind), cfg->name);
	if (p->name == NULL || p->name[0] == '\0')
		return set_status(out, WARDEN_LOAD_MALFORMED, "invalid name: empty");
	if (!valid_plugin_name(p->name))
		return set_status(out, WARDEN_LOAD_MALFORMED, "invalid name '%.*s' "
		                  "(allowed: 1 to %d of a-z 0-9 _ -)",
		                  PLUGIN_NAME_MAX, p->name, PLUGIN_NAME_MAX);
	if (p->version == NULL || p->version[0] == '\0')
		return set_status(out, WARDEN_LOAD_MALFORMED, "invalid version: "
		                  "empty");
	if (p->open == NULL)
		missing = "open";
	else if (p->close == NULL)
		missing = "close";
	else if (p->kind == WARDEN_PLUGIN_ANSWERER && p->decide == NULL)
		missing = "decide";
	else if (p->kind == WARDEN_PLUGIN_BACKEND && p->probe == NULL &&
	         p->probe2 == NULL)
		missing = "probe (or probe2)";
	else if (p->kind == WARDEN_PLUGIN_BACKEND && p->confine == NULL)
		missing = "confine";
	if (missing != NULL)
		return set_status(out, WARDEN_LOAD_MALFORMED, "required op %s is "
		                  "NULL", missing);
	if (p->runner_rule_size != 0 &&
	    p->runner_rule_size < WARDEN_RUNNER_RULE_SIZE_1_0)
		return set_status(out, WARDEN_LOAD_MALFORMED, "runner_rule_size "
		                  "%zu is smaller than abi %d.0's %zu",
		                  p->runner_rule_size, WARDEN_PLUGIN_ABI_MAJOR,
		                  (size_t)WARDEN_RUNNER_RULE_SIZE_1_0);
	return 0;
}

static int open_instance(const struct warden_config *config,
                         const struct warden_config_plugin *cfg,
                         struct warden_loaded *out)
{
	struct warden_open_args args;
	char err[sizeof(out->reason)];

	memset(&args, 0, sizeof(args));
	args.struct_size = sizeof(args);
	args.instance = cfg->name;
	args.config_file = config->file;
	args.config_dir = config->dir;
	args.kv = cfg->kv;
	args.kv_count = cfg->kv_count;
	args.libexec_dir = WARDEN_LIBEXEC_DIR;
	args.timeout_ms = cfg->timeout_ms;
	/* The host's warden_kv is the layout of every minor so far. */
	args.kv_size = sizeof(struct warden_kv);
	err[0] = '\0';
	out->state = out->desc.open(&args, err, sizeof(err));
	if (out->state == NULL) {
		err[sizeof(err) - 1] = '\0';
		return set_status(out, WARDEN_LOAD_FAILED, "%s",
		                  err[0] ? err : "open() failed and gave no reason");
	}
	return 0;
}

int warden_loader_load(const struct warden_config *config,
                       const struct warden_config_plugin *cfg, int open_it,
                       struct warden_loaded *out)
{
	const char *dlerr, *sep;
	const ElfW(Sym) *sym = NULL;
	Dl_info info;
	void *d;
	uint32_t abi_major, abi_minor;

	memset(out, 0, sizeof(*out));
	out->cfg = cfg;
	if (locate(config, cfg, out) < 0)
		return -out->status;

	out->handle = dlopen(out->path, RTLD_NOW | RTLD_LOCAL);
	if (out->handle == NULL) {
		dlerr = dlerror();
		dlerr = dlerr != NULL ? dlerr : "unknown error";
		/* dlerror() says "PATH: why"; the path is already known. */
		sep = strstr(dlerr, ": ");
		if (sep != NULL && strncmp(dlerr, out->path, (size_t)(sep - dlerr)) == 0)
			dlerr = sep + 2;
		return set_status(out, WARDEN_LOAD_MALFORMED, "not a loadable "
		                  "shared object: %s", dlerr);
	}
	dlerror();
	d = dlsym(out->handle, WARDEN_PLUGIN_SYMBOL);
	if (d == NULL || dladdr1(d, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 ||
	    sym == NULL) {
		set_status(out, WARDEN_LOAD_MALFORMED, "no descriptor: the object "
		           "exports no symbol '%s'", WARDEN_PLUGIN_SYMBOL);
		goto unload;
	}
	if (validate(cfg, d, (size_t)sym->st_size, out) < 0)
		goto unload;
	if (open_it && open_instance(config, cfg, out) < 0)
		return -out->status; /* validated: name and version stay readable */
	out->status = WARDEN_LOAD_LOADED;
	return 0;
unload:
	/* Keep only the plain numbers: every pointer dies with the object. */
	abi_major = out->desc.abi_major;
	abi_minor = out->desc.abi_minor;
	memset(&out->desc, 0, sizeof(out->desc));
	out->desc.abi_major = abi_major;
	out->desc.abi_minor = abi_minor;
	dlclose(out->handle);
	out->handle = NULL;
	return -out->status;
}

void warden_loader_unload(struct warden_loaded *lp)
{
	if (lp->state != NULL && lp->desc.close != NULL)
		lp->desc.close(lp->state);
	lp->state = NULL;
	if (lp->handle != NULL)
		dlclose(lp->handle);
	lp->handle = NULL;
	memset(&lp->desc, 0, sizeof(lp->desc));
}
