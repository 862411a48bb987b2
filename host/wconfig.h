/*
 * wconfig.h — the parsed INI configuration (DESIGN §7, §8).
 *
 * Owns the data model of a config file.  Sections keep file order: the
 * order of [answerer] sections is the waterfall, the order of [backend]
 * sections the backend order.  Keys of a plugin section that are not the
 * host's own are kept, in order, for that plugin's open().
 *
 * Defaults for what a file leaves out: default_mode read-only (deny by
 * default), default_network restricted, no allow_unix_socket, approval_policy ask, durability fsync, require_full false,
 * answerers in isolation process with no timeout,
 * state_dir $XDG_STATE_HOME/warden/sessions (else
 * $HOME/.local/state/warden/sessions), plugin_dir the installed plugin
 * directory, presets the table of DESIGN §4.  A line is at most 198 bytes
 * (inih's buffer), a file at most 1 MiB; control characters and NUL bytes
 * are refused, and so is a file writable by group/others or owned by
 * another user than root or the invoking one.
 *
 * (Named wconfig.h because config.h is autoconf's.)
 */
#ifndef WARDEN_WCONFIG_H
#define WARDEN_WCONFIG_H

#include <stddef.h>

#include <warden/plugin.h>

#include "error.h"

/* The most writable roots beside the workspace root a list (the config's
 * writable_roots, or a session's) holds. */
#define WARDEN_ROOTS_MAX 8

enum warden_isolation {
	WARDEN_ISOLATION_INPROC = 1,
	WARDEN_ISOLATION_PROCESS = 2,
};

enum warden_durability {
	WARDEN_DURABILITY_FSYNC = 1,
	WARDEN_DURABILITY_NONE = 2,
};

/* One [backend NAME] or [answerer NAME] section. */
struct warden_config_plugin {
	int kind;               /* enum warden_plugin_kind of the section */
	char *name;             /* the section's NAME */
	char *plugin;           /* the `plugin` key: bare name or absolute path */
	unsigned line;          /* line of the section header */
	unsigned plugin_line;   /* line of the plugin key */
	int isolation;          /* answerers: enum warden_isolation */
	long timeout_ms;        /* answerers: 0 = no host timeout */
	int required;           /* backends: 1 = its failure is
	                           SANDBOX_UNAVAILABLE, never a fallback */
	struct warden_kv *kv;   /* the plugin's own keys, file order (owned) */
	size_t kv_count;
};

struct warden_preset {
	char *name;
	int mode;               /* enum warden_sandbox_mode */
	int policy;             /* enum warden_approval_policy */
	char *label;            /* may be NULL */
	char *description;      /* may be NULL */
	unsigned line;          /* 0 for the built-in table */
	int network;            /* enum warden_network; 0: the preset has no
	                           network key and leaves that knob alone */
};

/* The longest timeout the config may name: a day. */
#define WARDEN_CONFIG_TIMEOUT_MAX_MS 86400000L
/* output_limit when the config sets none. */
#define WARDEN_OUTPUT_LIMIT_DEFAULT (256 * 1024)

struct warden_config {
	char *file;             /* absolute path, or "<built-in>" */
	char *dir;              /* relative paths resolve against this */
	/* The files warden_config_load() looked for before `file` and did
	 * not find (the user's and the system's config, before the built-in
	 * one): creating one would change the config. */
	char *lookup_before[2];
	size_t n_lookup_before;

	/* [warden] */
	int default_mode;       /* enum warden_sandbox_mode */
	char *workspace_root;   /* absolute (resolved against dir), or NULL */
	int approval_policy;    /* enum warden_approval_policy */
	char *state_dir;        /* absolute */
	char *plugin_dir;       /* absolute */
	int require_full;       /* 0 or 1 */
	/* Agent defaults (DESIGN §8): a run's timeout when it asks for none
	 * and the most it may ask for (ms, 0: unset); the most output serve
	 * and mcp hand a client per run (bytes, 0:
	 * WARDEN_OUTPUT_LIMIT_DEFAULT). */
	long default_timeout_ms;
	long max_timeout_ms;
	size_t output_limit;
	int durability;         /* enum warden_durability */
	char *shell;            /* `warden run -c`: program name or absolute
	                           path; NULL: bash */
	char **scrub_env;       /* environment name globs `warden run` removes,
	                           as written; "default" = the built-in list */
	size_t n_scrub_env;
	int scrub_env_set;      /* 0: not configured (the built-in list) */
	int default_network;    /* enum warden_network */
	/* allow_unix_socket: host unix sockets (absolute, lexically normal
	 * paths, in file order, no duplicates) a command may reach while the
	 * network is restricted. */
	char **allow_unix_sockets;
	size_t n_allow_unix_sockets;
	/* deny_read: patterns of paths a confined command must not read
	 * (denyread.h), as written, file order, no duplicates; with
	 * deny_read_defaults (1 unless set false) after the built-in list
	 * and the state directory. */
	char **deny_read;
	size_t n_deny_read;
	int deny_read_defaults;
	/* writable_roots: directories writable in workspace-write beside the
	 * workspace root (absolute as written or joined to dir, in file
	 * order, no duplicates, at most WARDEN_ROOTS_MAX); resolved and
	 * checked when a run is confined (roots.h). */
	char **writable_roots;
	size_t n_writable_roots;
	/* The allowlist network (netlist.h): allowed_domains and
	 * denied_domains, normalized (lower case, an IPv6 literal without
	 * brackets), file order, no duplicates; hosts_file absolute or NULL. */
	char **allowed_domains;
	size_t n_allowed_domains;
	char **denied_domains;
	size_t n_denied_domains;
	char *hosts_file;

	struct warden_config_plugin *backends;
	size_t n_backends;
	struct warden_config_plugin *answerers;
	size_t n_answerers;

	/* The configured presets, or the default table of DESIGN §4 when the
	 * file declares none (presets_builtin = 1). */
	struct warden_preset *presets;
	size_t n_presets;
	int presets_builtin;
};

/*
 * Finds and parses the config.  Lookup order: `path` (from --config) when
 * non-NULL, $WARDEN_CONFIG, $XDG_CONFIG_HOME/warden/warden.ini,
 * $(sysconfdir)/warden/warden.ini, else the built-in default (the text of
 * conf/warden.ini compiled in).  Errors name file:line, the key and what
 * is allowed (status WARDEN_ECONFIG).
 */
int warden_config_load(const char *path, struct warden_config **out,
                       struct warden_error *err);

/* Parses config text; `file` names it in errors and anchors relative
 * paths (its directory). */
int warden_config_parse(const char *text, const char *file,
                        struct warden_config **out, struct warden_error *err);

void warden_config_free(struct warden_config *cfg);

/* The compiled-in default config text (conf/warden.ini). */
extern const char warden_default_config[];

#endif
