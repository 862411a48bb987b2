/*
 * show-inherited.c — an answering program for tests/test_exec.c that
 * writes what it inherited to the file argv[1]: one line with its open
 * descriptors (besides the one that lists them), then its environment, one
 * variable a line.  Then it answers `next`.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

extern char **environ;

int main(int argc, char **argv)
{
	struct dirent *e;
	char **v;
	FILE *out;
	DIR *d;

	if (argc != 2)
		return 64;
	d = opendir("/proc/self/fd");
	if (d == NULL)
		return 71;
	out = fopen(argv[1], "w");
	if (out == NULL)
		return 73;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) &&
		    atoi(e->d_name) != fileno(out))
			fprintf(out, "%s ", e->d_name);
	fputc('\n', out);
	closedir(d);
	for (v = environ; *v != NULL; v++)
		fprintf(out, "%s\n", *v);
	if (fclose(out) != 0)
		return 74;
	puts("next");
	return 0;
}
