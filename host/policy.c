/*
 * policy.c — policy resolution (DESIGN §2); see policy.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "preset.h"
#include "session.h"
#include "vocab.h"

const char *warden_source_name(int source)
{
	switch (source) {
	case WARDEN_SOURCE_EXPLICIT: return "explicit";
	case WARDEN_SOURCE_SESSION: return "session";
	case WARDEN_SOURCE_CONFIG: return "config";
	case WARDEN_SOURCE_CWD: return "cwd";
	case WARDEN_SOURCE_DERIVED: return "derived";
	case WARDEN_SOURCE_MODE: return "mode";
	default: return NULL;
	}
}

int warden_path_normalise(const char *path, char out[PATH_MAX],
                          struct warden_error *err)
{
	char buf[PATH_MAX];
	size_t o = 0, seg, n;
	const char *p = path;

	if (path == NULL || path[0] != '/')
		return warden_error_set(err, WARDEN_EDATA, "path is not absolute");
	while (*p != '\0') {
		while (*p == '/')
			p++;
		seg = strcspn(p, "/");
		if (seg == 0 || (seg == 1 && p[0] == '.')) {
			/* empty or "." segment */
		} else if (seg == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && buf[o - 1] != '/')
				o--;
			if (o > 0)
				o--; /* the "/" before the dropped segment */
		} else {
			if (o + 1 + seg >= sizeof(buf))
				return warden_error_set(err, WARDEN_EDATA, "path is too long");
			buf[o++] = '/';
			memcpy(buf + o, p, seg);
			o += seg;
		}
		p += seg;
	}
	if (o == 0)
		buf[o++] = '/';
	n = o;
	memcpy(out, buf, n);
	out[n] = '\0';
	return 0;
}

int warden_path_in_proc(const char *p)
{
	return strcmp(p, "/proc") == 0 || strncmp(p, "/proc/", 6) == 0;
}

int warden_root_resolve(const char *path, const char *what,
                        char out[PATH_MAX], struct warden_error *err)
{
	char real[PATH_MAX];
	struct stat st;

	if (path == NULL || path[0] == '\0')
		return warden_error_set(err, WARDEN_EDATA, "%s is empty", what);
	/* Filesystem semantics first: "link/.." is where the kernel goes. */
	if (realpath(path, real) == NULL)
		return warden_error_errno(err, WARDEN_EDATA, errno,
		                          "%s %s does not resolve (create it, or start a new session elsewhere)",
		                          what, path);
	if (warden_path_normalise(real, out, NULL) < 0)
		return warden_error_set(err, WARDEN_EDATA, "%s %s is too long", what, path);
	if (warden_path_in_proc(out))
		return warden_error_set(err, WARDEN_EDATA,
		                        "%s %s is in /proc, whose entries belong to processes that come and go (name a directory of a file system)",
		                        what, out);
	if (stat(out, &st) < 0)
		return warden_error_errno(err, WARDEN_EDATA, errno, "%s %s", what, out);
	if (!S_ISDIR(st.st_mode))
		return warden_error_set(err, WARDEN_EDATA, "%s %s is not a directory", what, out);
	return 0;
}

int warden_root_open(const char *root, int *fd_out, struct warden_error *err)
{
	char buf[PATH_MAX];
	char *p, *slash;
	struct stat st;
	int dir, next;

	*fd_out = -1;
	if (root == NULL || root[0] != '/' || strlen(root) >= sizeof(buf))
		return warden_error_set(err, WARDEN_EINTERNAL,
		                        "workspace root: not an absolute path");
	memcpy(buf, root, strlen(root) + 1);
	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return warden_error_errno(err, WARDEN_EOS, errno, "cannot open /");
	for (p = buf + 1; *p != '\0'; p = slash + 1) {
		slash = strchr(p, '/');
		if (slash != NULL)
			*slash = '\0';
		/* O_NOFOLLOW | O_DIRECTORY: a symlink is ENOTDIR or ELOOP,
		 * never followed. */
		next = *p == '\0' ? dup(dir)
		                    : openat(dir, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;

			close(dir);
			if (e == ENOTDIR || e == ELOOP || e == ENOENT)
				return warden_error_set(err, WARDEN_EDATA,
				                        "workspace root %s: %s is %s: the root moved after it was checked (warden does not follow it)",
				                        root, buf, e == ENOENT ? "gone"
				                        : "no longer a directory (a symlink, or replaced)");
			return warden_error_errno(err, WARDEN_EOS, e,
			                          "workspace root %s: cannot open %s", root, buf);
		}
		close(dir);
		dir = next;
		if (slash == NULL)
			break;
		*slash = '/';
	}
	if (fstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(dir);
		return warden_error_set(err, WARDEN_EDATA,
		                        "workspace root %s is not a directory", root);
	}
	*fd_out = dir;
	return 0;
}

/* The network: explicit > danger-full-access > session > config. */
static int resolve_network(const struct warden_config *cfg,
                           const struct warden_knobs *k, int explicit_network,
                           struct warden_resolved *out, struct warden_error *err)
{
	if (explicit_network != 0) {
		if (warden_network_name(explicit_network) == NULL)
			return warden_error_set(err, WARDEN_EINTERNAL,
			                        "explicit network %d is not a network setting",
			                        explicit_network);
		out->network = explicit_network;
		out->network_source = WARDEN_SOURCE_EXPLICIT;
	} else if (out->mode == WARDEN_SANDBOX_DANGER_FULL_ACCESS) {
		out->network = WARDEN_NETWORK_ENABLED;
		out->network_source = WARDEN_SOURCE_MODE;
	} else {
		out->network = warden_knobs_network(cfg, k);
		out->network_source = k->network ? WARDEN_SOURCE_SESSION : WARDEN_SOURCE_CONFIG;
	}
	return 0;
}

/* Resolves from the knobs the session handle holds (already checked). */
static int resolve(const struct warden_config *cfg, struct warden_session *s,
                   int explicit_mode, int explicit_network,
                   struct warden_resolved *out, struct warden_error *err)
{
	static const struct warden_knobs none;
	const struct warden_knobs *k = &none;
	char cwd[PATH_MAX];
	const char *root, *preset;
	int r, from_selection;

	memset(out, 0, sizeof(*out));
	if (warden_mode_name(cfg->default_mode) == NULL ||
	    warden_policy_name(cfg->approval_policy) == NULL)
		return warden_error_set(err, WARDEN_ECONFIG,
		                        "config has no valid default_mode or approval_policy");
	if (s != NULL) {
		k = warden_session_knobs(s);
		snprintf(out->session_id, sizeof(out->session_id), "%s",
		         warden_session_id(s));
	}

	if (explicit_mode != 0) {
		if (warden_mode_name(explicit_mode) == NULL)
			return warden_error_set(err, WARDEN_EINTERNAL,
			                        "explicit mode %d is not a sandbox mode", explicit_mode);
		out->mode = explicit_mode;
		out->mode_source = WARDEN_SOURCE_EXPLICIT;
	} else {
		out->mode = warden_knobs_mode(cfg, k);
		out->mode_source = k->mode ? WARDEN_SOURCE_SESSION : WARDEN_SOURCE_CONFIG;
	}
	out->policy = warden_knobs_policy(cfg, k);
	out->policy_source = k->policy ? WARDEN_SOURCE_SESSION : WARDEN_SOURCE_CONFIG;
	if ((r = resolve_network(cfg, k, explicit_network, out, err)) < 0)
		return r;

	preset = warden_preset_current(cfg, k, &from_selection);
	snprintf(out->preset, sizeof(out->preset), "%s", preset);
	out->preset_source = from_selection ? WARDEN_SOURCE_SESSION : WARDEN_SOURCE_DERIVED;

	if (s != NULL) {
		root = warden_session_cwd(s);
		out->root_source = WARDEN_SOURCE_SESSION;
		r = warden_root_resolve(root, "the session's workspace root", out->root, err);
		/* The root is what session new recorded (resolved then), not
		 * wherever that path leads now: a symlink planted on the way
		 * since (by a command of another session, say) must not move
		 * this session's writable root. */
		if (r == 0 && strcmp(out->root, root) != 0)
			r = warden_error_set(err, WARDEN_EDATA,
			                     "session %s: its workspace root %s now leads to %s (a directory on the way was replaced by a symlink or moved): warden does not follow a root that moved (restore the directory, or start a new session with warden session new --cwd DIR)",
			                     out->session_id, root, out->root);
	} else if (cfg->workspace_root != NULL) {
		out->root_source = WARDEN_SOURCE_CONFIG;
		r = warden_root_resolve(cfg->workspace_root, "the configured workspace_root",
		                        out->root, err);
		if (r < 0 && err != NULL)
			r = -(err->code = WARDEN_ECONFIG);
	} else {
		/* No session and no configured root: where the caller stands. */
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return warden_error_errno(err, WARDEN_EOS, errno,
			                          "cannot read the current directory");
		out->root_source = WARDEN_SOURCE_CWD;
		r = warden_root_resolve(cwd, "the current directory", out->root, err);
	}
	return r;
}

int warden_policy_resolve(const struct warden_config *cfg,
                          const char *session_id, int explicit_mode,
                          struct warden_resolved *out,
                          struct warden_error *err)
{
	struct warden_session *s = NULL;
	int r;

	if (session_id != NULL &&
	    (r = warden_session_open(cfg, session_id, &s, err)) < 0) {
		memset(out, 0, sizeof(*out));
		return r;
	}
	r = resolve(cfg, s, explicit_mode, 0, out, err);
	warden_session_close(s);
	return r;
}

int warden_policy_resolve_session(const struct warden_config *cfg,
                                  struct warden_session *s, int explicit_mode,
                                  struct warden_resolved *out,
                                  struct warden_error *err)
{
	return warden_policy_resolve_escalated(cfg, s, explicit_mode, 0, out, err);
}

int warden_policy_resolve_escalated(const struct warden_config *cfg,
                                    struct warden_session *s, int explicit_mode,
                                    int explicit_network,
                                    struct warden_resolved *out,
                                    struct warden_error *err)
{
	int r;

	memset(out, 0, sizeof(*out));
	if (s != NULL && (r = warden_session_refresh(s, err)) < 0)
		return r;
	return resolve(cfg, s, explicit_mode, explicit_network, out, err);
}
