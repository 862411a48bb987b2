/*
 * mark.c — a library that says who loaded it.  Its constructor appends
 * "exe=PATH" (the loading program, /proc/self/exe) to the files named by
 * $WARDEN_MARK_OUTSIDE and $WARDEN_MARK_INSIDE, as far as it may write
 * them.  tests/sandbox/env.sh preloads it (LD_PRELOAD, LD_AUDIT) to see
 * whether any code of the caller's environment ran before the sandbox
 * confined the command: a line outside the root is an escape.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mark(const char *var)
{
	const char *path = getenv(var);
	char exe[4096], line[4200];
	ssize_t n;
	int fd, len;

	if (path == NULL || path[0] == '\0')
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "exe=%s\n", exe);
	if (len > 0 && write(fd, line, (size_t)len) < 0)
		len = 0;
	close(fd);
}

__attribute__((constructor)) static void mark_loaded(void)
{
	mark("WARDEN_MARK_OUTSIDE");
	mark("WARDEN_MARK_INSIDE");
}

/* Makes the library a valid LD_AUDIT module as well. */
__attribute__((visibility("default"))) unsigned int la_version(unsigned int v);
unsigned int la_version(unsigned int v)
{
	return v;
}
