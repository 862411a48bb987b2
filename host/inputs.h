/*
 * inputs.h — warden's own inputs: every file and directory whose content
 * decides how a later command is confined or approved (DESIGN §2,
 * "Boundary integrity: no self-escalation").
 *
 * A confined command that could rewrite one of them could loosen the
 * confinement of the next: edit the config's default_mode, append a
 * forged sandbox/mode line to its session log, replace a plugin, a runner
 * or the program an answerer runs.  So the consumer hands every one of
 * them to the backend as policy.read_only_paths, and `warden config
 * check` names those that lie under the configured workspace_root.
 *
 * What is collected, from the config alone (nothing is loaded):
 *
 *   - the config file in use, and the config files the lookup would take
 *     before it if they existed ($XDG_CONFIG_HOME/warden/warden.ini
 *     before the system file, both before the built-in default);
 *   - state_dir (the session logs) and plugin_dir;
 *   - warden's helper directory (the default launcher and runner) and
 *     the warden program itself;
 *   - every [backend] and [answerer] section's plugin file (a bare name
 *     in plugin_dir, or the path given);
 *   - the paths the shipped plugins take from their sections: `path`,
 *     `launcher`, `runner` (bwrap, landlock, seatbelt), `command` (exec,
 *     and the interpreter its #! line names), `library` (ffi), relative
 *     ones from the config file's directory; and every `arg` (exec) that
 *     names an existing file, from the current directory or the config's.
 *
 * Each path is absolute and resolved as far as it exists (realpath of the
 * longest existing prefix, the rest normalised lexically), so a path that
 * does not exist yet is still named: a command must not be able to
 * create it either.  A path reached through a symlink is listed twice:
 * the link as written and what it resolves to.  No duplicates.
 */
#ifndef WARDEN_INPUTS_H
#define WARDEN_INPUTS_H

#include <stddef.h>

#include "error.h"
#include "wconfig.h"

struct warden_input {
	char *path;             /* absolute, resolved as far as it exists */
	char *what;             /* what it is, for people: "the config file",
	                           "state_dir (the session logs)", ... */
};

struct warden_inputs {
	struct warden_input *v;
	size_t n;
	const char **paths;     /* the n paths, for policy.read_only_paths */
};

/* Collects cfg's inputs (see above).  0, or -WARDEN_EOS when out of
 * memory. */
int warden_inputs_collect(const struct warden_config *cfg,
                          struct warden_inputs **out,
                          struct warden_error *err);

void warden_inputs_free(struct warden_inputs *in);

/* Whether path is root or lies below it (both absolute, normalised): a
 * workspace-write run under root could write it. */
int warden_inputs_under(const char *path, const char *root);

#endif
