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

/*
 * The environment of an approved command: `env` without warden's own
 * names, the names that match the n scrub patterns, the loader names and
 * the start-up names;
 * PATH is `path_entry` ("PATH=...", borrowed; NULL: no PATH at all) and
 * PWD is `pwd_entry` ("PWD=...", borrowed, or NULL to leave PWD as it
 * is).  *out points into env and the entries (free only the array).  The
 * names removed as loader or start-up names (not the scrubbed ones), in
 * environment order, go into a new array of new strings in *removed
 * (free with warden_env_names_free).  0 or -WARDEN_EOS.
 */
int warden_env_build_approved(char *const *env, const char *const *patterns,
                              size_t n, const char *path_entry,
                              const char *pwd_entry, char ***out,
                              char ***removed, size_t *n_removed,
                              struct warden_error *err);

void warden_env_names_free(char **names, size_t n);

/* Sets `entry` ("NAME=value", borrowed) in the NULL-terminated array *envp
 * (one from warden_env_build), replacing every entry of that name.
 * 0 or -WARDEN_EOS. */
int warden_env_set(char ***envp, const char *entry, struct warden_error *err);

#endif
