/*
 * sysctl.h — the first line of a /proc/sys file as a number, for the
 * backends' facts() (whether this kernel lets a user namespace be made).
 */
#ifndef WARDEN_PLUGIN_SYSCTL_H
#define WARDEN_PLUGIN_SYSCTL_H

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* The value, or -1 when the file cannot be read. */
static inline long sysctl_value(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

#endif
