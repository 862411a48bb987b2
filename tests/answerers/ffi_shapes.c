/*
 * ffi_shapes.c — functions of the other shapes the ffi answerer supports,
 * for tests/test_ffi.c: no argument, and six.
 */
#include <string.h>

int shape_none(void);
int shape_six(const char *a, const char *b, const char *c, const char *d,
              const char *e, const char *f);

int shape_none(void)
{
	return -3;
}

/* 0 when the six fields came in the order session request_id tool subject
 * call_id cwd with the values tests/test_ffi.c sends, else 1. */
int shape_six(const char *a, const char *b, const char *c, const char *d,
              const char *e, const char *f)
{
	return strcmp(a, "s1") == 0 && strcmp(b, "r1") == 0 &&
	       strcmp(c, "bash") == 0 && strcmp(d, "ls -l") == 0 &&
	       strcmp(e, "") == 0 && strcmp(f, "/w") == 0 ? 0 : 1;
}

int shape_command(const char *a, const char *b, const char *c, const char *d,
                  const char *e, const char *f);
int shape_path(const char *a);
int shape_env(const char *a);

/* 0 when the fields argv program interpreter program_writable env_removed
 * path_dropped came as tests/test_ffi.c sends them, as text. */
int shape_command(const char *a, const char *b, const char *c, const char *d,
                  const char *e, const char *f)
{
	return strcmp(a, "bash -c 'git status; echo '\\''a b'\\'''") == 0 &&
	       strcmp(b, "/usr/bin/bash") == 0 && strcmp(c, "") == 0 &&
	       strcmp(d, "yes") == 0 && strcmp(e, "BASH_ENV LD_PRELOAD") == 0 &&
	       strcmp(f, "/w/.venv/bin:.") == 0 ? 0 : 1;
}

/* 0 for the path tests/test_ffi.c sends; 2 for "" (a request about no
 * command). */
int shape_path(const char *a)
{
	return strcmp(a, "/usr/bin:/bin") == 0 ? 0 : a[0] == '\0' ? 2 : 1;
}

/* 0 for the env_config tests/test_ffi.c sends (each entry shell-quoted);
 * 2 for "" (none). */
int shape_env(const char *a)
{
	return strcmp(a, "HOME=/home/u 'XDG_CONFIG_HOME=/home/u/my config'") == 0 ? 0 :
	       a[0] == '\0' ? 2 : 1;
}
