/*
 * session_util.h — fixtures shared by the session tests: a private
 * temporary directory with a config built by hand around it, and small
 * file helpers.
 */
#ifndef WARDEN_TEST_SESSION_UTIL_H
#define WARDEN_TEST_SESSION_UTIL_H

#include <limits.h>
#include <stddef.h>

#include "wconfig.h"

struct sfix {
	char dir[PATH_MAX];   /* a fresh mkdtemp directory */
	char state[PATH_MAX + 32]; /* dir/state/sessions, created on demand */
	struct warden_config cfg;
};

/* cmocka setup/teardown: *state becomes a struct sfix *.  The config is
 * workspace-write / ask, durability none, the built-in presets. */
int sfix_setup(void **state);
int sfix_teardown(void **state);

/* "<state>/<id>.jsonl" into a static buffer. */
const char *sfix_log_path(const struct sfix *f, const char *id);

/* Whole file (NUL-terminated, *len without it); NULL if unreadable. */
char *sfix_read(const char *path, size_t *len);
void sfix_write(const char *path, const char *data, size_t len);
void sfix_append(const char *path, const char *data);
/* Number of '\n' in a file. */
size_t sfix_count_lines(const char *path);
void sfix_rm_rf(const char *path);

#endif
