/*
 * env.h — the environment a command started by `warden run` receives.
 *
 * The caller's environment passes through, minus three kinds of names:
 *
 *   warden's own    every WARDEN_* name (WARDEN_SESSION, WARDEN_CONFIG,
 *                   ...), in every run, whatever scrub_env says: a command
 *                   does not act as warden's caller, so it cannot aim a
 *                   nested warden at the session or the config it runs
 *                   under.
 *
 *   scrubbed names  credentials an agent's command has no business seeing
 *                   (tokens, secrets, keys, passwords, agent sockets).  A
 *                   name is scrubbed when it matches one of the patterns:
 *                   fnmatch(3) globs, compared case-insensitively with the
 *                   name only (the text before '=').  The default list is
 *                   warden_env_scrub_default; [warden] scrub_env replaces it
 *                   (the word `default` in it stands for the default list,
 *                   `none` alone for no scrubbing).
 *
 *   loader names    when the program is a sandbox runner (bwrap,
 *                   warden-landlock-run), variables that make the dynamic
 *                   loader or libc run foreign code or read foreign files
 *                   (LD_*, GCONV_PATH, GLIBC_TUNABLES, ...) are removed: they
 *                   would act inside the runner before it has built the
 *                   boundary.  The command inherits the runner's environment,
 *                   so a confined command does not see them either.  An
 *                   unconfined run (danger-full-access) has no runner and
 *                   keeps them.
 *
 *   start-up names  for a command that runs because an approval allowed
 *                   it (DESIGN §3: what the approver saw is exactly what
 *                   runs), the loader names and every variable that makes a
 *                   shell or a language runtime run code or load files
 *                   chosen by the environment as the program starts
 *                   (warden_env_startup_names: BASH_ENV, ENV, exported
 *                   bash functions, PYTHONPATH, NODE_OPTIONS, ...) are
 *                   removed too, and PATH is the one the approver was shown
 *                   (host/program.h).
 *
 *   location names  for an approved command too: the variables that say
 *                   where programs read their configuration or code from
 *                   (warden_env_location_names: HOME, XDG_CONFIG_HOME and
 *                   the other XDG base directories, CARGO_HOME, GOPATH,
 *                   KUBECONFIG, ...).  HOME is the user's own, from
 *                   /etc/passwd, whatever the caller's said; each other one
 *                   is removed when a directory or file it names (each
 *                   entry of a ':' list) is relative or lies under a
 *                   writable root (the workspace root, the roots beside it,
 *                   the temp areas), where the sandboxed command could have
 *                   planted a ~/.gitconfig with a core.fsmonitor, a
 *                   git/config, an .npmrc, a Python .pth file.  What the
 *                   command gets of them is shown to the approver.
 *
 * Otherwise nothing is touched: BASH_ENV, ENV and the like are the
 * caller's choice and act inside the boundary, like the command itself.
 */
#ifndef WARDEN_ENV_H
#define WARDEN_ENV_H

#include <stddef.h>

#include "error.h"
#include "wconfig.h"

/* The default scrub patterns, NULL-terminated. */
extern const char *const warden_env_scrub_default[];

/* The names removed before a runner starts, NULL-terminated globs. */
extern const char *const warden_env_loader_names[];

/* The start-up names removed from an approved command, NULL-terminated
 * globs (besides the loader names). */
extern const char *const warden_env_startup_names[];

/* The names that say where programs read configuration or code from
 * (HOME, the XDG base directories, the toolchains' homes), NULL-terminated:
 * kept in an approved command only when they name no place under a
 * writable root. */
extern const char *const warden_env_location_names[];

/* 1 when `name` (no '=') matches one of the n patterns, case-insensitively. */
int warden_env_name_matches(const char *name, const char *const *patterns,
                            size_t n);

/* The scrub patterns cfg asks for (the default list when it says nothing),
 * in a new array of n borrowed strings (free only the array; it lives as
 * long as cfg).  Returns 0 or -WARDEN_EOS. */
int warden_env_patterns(const struct warden_config *cfg,
                        const char ***out, size_t *n,
                        struct warden_error *err);

/* The prefix of warden's own names, removed from every run. */
#define WARDEN_ENV_OWN_PREFIX "WARDEN_"

/*
 * Filters `env` (NULL-terminated "NAME=value" strings, e.g. environ) into a
 * new NULL-terminated array in *out that points into `env` (the strings are
 * not copied; free only the array).  warden's own names are dropped, and
 * so are entries whose name matches one of the n patterns; with
 * `for_runner`, the loader names too.  Entries without '=' are dropped.  Returns 0 or -WARDEN_EOS (out of memory).
 */
int warden_env_build(char *const *env, const char *const *patterns, size_t n,
                     int for_runner, char ***out, struct warden_error *err);

/* What an approved command's environment is built from, besides the
 * caller's: the entries warden sets ("NAME=value", borrowed; NULL: none)
 * and the judge of a location's value. */
struct warden_env_approved {
	const char *path_entry;  /* PATH (NULL: no PATH at all) */
	const char *pwd_entry;   /* PWD (NULL: PWD left as it is) */
	const char *home_entry;  /* HOME, the user's own (NULL: HOME is judged
	                            like the other location names) */
	/* 1 when a location name's value may be kept: every directory or
	 * file it names lies outside every writable root.  NULL: all kept. */
	int (*location_ok)(const char *value, void *arg);
	void *arg;
};

/* What changed, for the approver: new arrays of new strings (free with
 * warden_env_changes_free). */
struct warden_env_changes {
	char **removed;   /* names removed: loader, start-up, location names
	                     judged unsafe, and HOME when the caller's was
	                     not the user's own; in environment order */
	size_t n_removed;
	char **config;    /* "NAME=value" of every location name the command
	                     gets, HOME first */
	size_t n_config;
};

/*
 * The environment of an approved command: `env` without warden's own
 * names, the names that match the n scrub patterns, the loader names and
 * the start-up names, and the location names (warden_env_location_names)
 * whose value location_ok refuses; HOME, PATH and PWD are a's entries.
 * *out points into env and a's entries (free only the array); *ch says
 * what changed.  0 or -WARDEN_EOS.
 */
int warden_env_build_approved(char *const *env, const char *const *patterns,
                              size_t n, const struct warden_env_approved *a,
                              struct warden_env_changes *ch,
                              char ***out, struct warden_error *err);

void warden_env_changes_free(struct warden_env_changes *ch);

void warden_env_names_free(char **names, size_t n);

/* Sets `entry` ("NAME=value", borrowed) in the NULL-terminated array *envp
 * (one from warden_env_build), replacing every entry of that name.
 * 0 or -WARDEN_EOS. */
int warden_env_set(char ***envp, const char *entry, struct warden_error *err);

#endif
