/*
 * loader.h — dlopen of plugins and the status of each (DESIGN §6).
 *
 * A bare plugin name resolves only inside plugin_dir (as NAME.so); a name
 * with '/' must be absolute.  Symlinks are followed and the resolved file
 * is what is loaded.  Refused (malformed): the file, or any directory on
 * the configured or the resolved path, writable by group/others or owned
 * by anyone but root or the invoking user.  A sticky ancestor (like /tmp)
 * is excused, never the plugin's own directory; a stranger's symlink right
 * below a sticky directory is refused.  Every
 * problem becomes a status with a one-line reason; the host goes on.
 *
 * dlopen() runs a plugin's constructors, and open() is plugin code: a
 * crash there kills the process that loads it.  Answerers with
 * `isolation = process` are loaded inside a worker for that reason.
 */
#ifndef WARDEN_LOADER_H
#define WARDEN_LOADER_H

#include <limits.h>

#include <warden/plugin.h>

#include "wconfig.h"

enum warden_load_status {
	WARDEN_LOAD_LOADED = 1,    /* validated and (if asked) opened */
	WARDEN_LOAD_MISSING = 2,   /* no such file */
	WARDEN_LOAD_MALFORMED = 3, /* not a usable warden plugin; reason says why */
	WARDEN_LOAD_FAILED = 4,    /* open() returned an error */
};

struct warden_loaded {
	const struct warden_config_plugin *cfg;
	int status;                 /* enum warden_load_status */
	char reason[512];           /* one line; "" when loaded */
	char path[PATH_MAX];        /* the resolved file */
	void *handle;               /* dlopen handle: set when LOADED, and when
	                               FAILED (validated, open() refused) so
	                               that name and version stay readable */
	/* The descriptor's fields the host knows, copied; fields past the
	 * plugin's struct_size are zero. */
	struct warden_plugin desc;
	void *state;                /* from open(), NULL unless opened */
};

const char *warden_load_status_name(int status);

/* Resolve, check, dlopen and validate cfg's plugin; when `open_it`, also
 * call open() with the section's keys.  Always fills `out` (status and
 * reason); returns 0 when status is LOADED, else a negative status. */
int warden_loader_load(const struct warden_config *config,
                       const struct warden_config_plugin *cfg, int open_it,
                       struct warden_loaded *out);

/* close() (when opened) and dlclose(); safe on any status. */
void warden_loader_unload(struct warden_loaded *lp);

#endif
