/*
 * program.h — what a command runs, settled before anyone is asked about
 * it (DESIGN §3: what the approver saw is exactly what runs).
 *
 * The consumer (host/run.h) asks the approval service about a command
 * and, on allowed-once, runs it.  Everything that decides what that run
 * does is fixed here first, shown to the answerers, and then used as is:
 *
 *   dir       the directory the command runs in: the one the caller asks
 *             for (warden run --cwd, relative to warden's own directory);
 *             else warden's own directory when it lies inside the
 *             workspace root; else the root (its checked descriptor).
 *             Opened (O_PATH); its name is read back from the
 *             descriptor, and the command enters it by that descriptor
 *             (fchdir), so the directory shown is the directory entered,
 *             whatever is renamed in between.
 *
 *   PATH      the caller's PATH (unset: /usr/local/bin:/usr/bin:/bin)
 *             without its empty and relative entries (they name whatever
 *             directory the command is in) and without every entry that
 *             lies under a writable root of the session, judged both as
 *             written (lexically) and as the kernel resolves it (the
 *             longest existing prefix through realpath), so that a
 *             directory the sandboxed command could fill is never
 *             searched, now or later.  No entry left: refused.
 *
 *   env       warden_env_build_approved() (host/env.h): the scrubbed
 *             names, the loader's and the start-up names removed (the
 *             removed ones are listed), PATH as above, PWD the directory,
 *             HOME the user's own (/etc/passwd), and each other location
 *             name (XDG_CONFIG_HOME, CARGO_HOME, ...) removed when it
 *             names a place under a writable root, judged as PATH
 *             entries are (the kept ones are listed with their values).
 *             The writable roots include the temp areas (the temp area
 *             parent, host/scratch.h): a confined run writes there too.
 *
 *   program   argv[0] with a '/' is taken relative to dir; a bare name is
 *             the first executable regular file of that name in the PATH
 *             above (as execvp(3), never a shell's fallback).  It is
 *             opened, and its name read back from the descriptor: the
 *             absolute, resolved path of the file that will run.  A "#!"
 *             script names its interpreter (a relative one resolved
 *             against dir, as the kernel does).  The program is
 *             `writable` when it or its interpreter lies under a writable
 *             root: then the sandboxed command could have written it, and
 *             what runs is a sealed copy (memfd) taken before asking, not
 *             the file that may change while the answerer decides.
 *
 * The run executes the program by descriptor (fexecve on exec_fd after
 * fchdir(dir_fd), host/spawn.h): the file that was resolved and shown is
 * the file that runs.  A script runs as the kernel runs a script named by
 * a descriptor: its interpreter gets /dev/fd/N as the script's path.
 */
#ifndef WARDEN_PROGRAM_H
#define WARDEN_PROGRAM_H

#include <limits.h>
#include <stddef.h>

#include "error.h"

/* What warden_program_open() says besides 0 and errors, as a shell says
 * it: found but not executable, or not found. */
#define WARDEN_PROGRAM_CANNOT_EXEC 126
#define WARDEN_PROGRAM_NOT_FOUND 127

/* The PATH searched when the caller has none. */
#define WARDEN_PROGRAM_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

struct warden_program {
	char dir[PATH_MAX];         /* absolute, resolved */
	int dir_fd;                 /* O_PATH | O_DIRECTORY, or -1 */
	char path[PATH_MAX];        /* the program: absolute, resolved */
	char interpreter[PATH_MAX]; /* a script's interpreter, or "" */
	int writable;               /* path or interpreter under a writable root */
	int exec_fd;                /* what runs (the file, or its sealed
	                               copy), or -1 */
	int script;                 /* 1: exec_fd must stay open across the
	                               exec (the interpreter reads it) */
	char **envp;                /* the environment it runs with (the array
	                               is owned, the strings borrowed from the
	                               caller's environment and from here) */
	char *path_entry;           /* "PATH=..." it gets */
	char *pwd_entry;            /* "PWD=DIR" */
	char **env_removed;         /* names removed as start-up or loader
	                               names, in environment order */
	size_t n_env_removed;
	char **env_config;          /* "NAME=value" of the location names it
	                               gets (host/env.h), HOME first */
	size_t n_env_config;
	char *home_entry;           /* "HOME=..." it gets, or NULL */
	char **path_dropped;        /* PATH entries dropped, in PATH order */
	size_t n_path_dropped;
};

/* An empty description (no descriptor open); free it either way. */
void warden_program_init(struct warden_program *p);

/* Closes the descriptors and frees what p holds; p is empty after. */
void warden_program_free(struct warden_program *p);

/*
 * The directory: `requested` (relative to the current directory) when
 * not NULL; else the current directory when it lies under `root`
 * (absolute, resolved); else root_fd (the checked root, duplicated), or
 * root itself when root_fd is -1.  Fills p->dir and p->dir_fd.  0, or
 * -WARDEN_EUSAGE naming the directory when it cannot be opened or is not
 * one.
 */
int warden_program_dir(struct warden_program *p, const char *requested,
                       const char *root, int root_fd,
                       struct warden_error *err);

/*
 * PATH and the environment from `env` (e.g. environ) and the scrub
 * patterns, for a command under the n_roots writable roots (absolute,
 * resolved).  Needs p->dir.  0, -WARDEN_EREFUSED when no PATH entry is
 * left, or -WARDEN_EOS.
 */
int warden_program_env(struct warden_program *p, char *const *env,
                       const char *const *patterns, size_t n_patterns,
                       const char *const *roots, size_t n_roots,
                       struct warden_error *err);

/*
 * Resolves and opens the program argv0 in p's PATH and dir (after
 * warden_program_dir and warden_program_env).  0; or
 * WARDEN_PROGRAM_NOT_FOUND / WARDEN_PROGRAM_CANNOT_EXEC with `why`
 * filled; or a negative -WARDEN_E* with err.
 */
int warden_program_open(struct warden_program *p, const char *argv0,
                        const char *const *roots, size_t n_roots,
                        char *why, size_t whylen, struct warden_error *err);

/*
 * All of it for one command: warden_program_dir (cwd, else the current
 * directory inside root, else root opened by warden_root_open), then the
 * environment from environ with cfg's scrub patterns and `root` and the
 * temp areas as the writable roots, then the program argv0.  Returns as
 * warden_program_open().
 */
struct warden_config;
int warden_program_describe(struct warden_program *p,
                            const struct warden_config *cfg,
                            const char *argv0, const char *cwd,
                            const char *root, char *why, size_t whylen,
                            struct warden_error *err);

/* The PATH value p gives the command ("" when none). */
const char *warden_program_path_value(const struct warden_program *p);

/* 1 when path (absolute, normalised) is root or lies under it. */
int warden_path_under(const char *path, const char *root);

#endif
