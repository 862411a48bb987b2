/*
 * legacy-policy.c — a policy function as an existing C library might have
 * it, for the ffi answerer (conf/examples/legacy-library.ini).  Nothing in
 * it knows warden: the ffi answerer calls it by the signature the config
 * declares,
 *
 *   int legacy_check(const char *tool, const char *subject);
 *
 * and maps what it returns: 0 allow, 1 deny, 2 no opinion; the 7 it
 * returns for any other tool is a code nobody mapped, so the request is
 * unavailable.  Build:
 *
 *   cc -shared -fPIC -o legacy-policy.so legacy-policy.c
 */
#include <string.h>

int legacy_check(const char *tool, const char *subject);

int legacy_check(const char *tool, const char *subject)
{
	if (strcmp(tool, "read") == 0)
		return 0;
	if (strstr(subject, "rm -rf") != NULL)
		return 1;
	if (strcmp(tool, "bash") == 0)
		return 2;
	return 7;       /* a code the policy never documented */
}
