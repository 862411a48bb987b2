/*
 * bench_exec — times whole commands.
 *
 *   bench_exec N ARGV...
 *
 * runs ARGV N times, BENCH_REPEAT rounds, and prints one line:
 *
 *   median_us  min_us  max_us  peak_rss_kib
 *
 * (microseconds per run, over the rounds; the peak resident set of the
 * child and the children it waited for, from wait4).
 *
 *   bench_exec -p N K BASE_ARGV(K words)... ARGV...
 *
 * the same for ARGV with a baseline measured beside it: each round runs
 * BASE_ARGV and ARGV alternately, N times each, so that both meet the
 * same moments of a machine whose speed drifts; one line:
 *
 *   median_us  min_us  max_us  peak_rss_kib  base_median_us
 *
 * stdout and stderr of each command go to /dev/null; a run that does not
 * exit 0 stops the bench with status 1.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Runs argv once; its wall-clock time in seconds, or -1 (reported). */
static double once(char **argv, long *peak)
{
	struct rusage ru;
	double t0 = bench_now();
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		perror("bench_exec: fork");
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench_exec: %s did not exit 0 (status %d)\n", argv[0], st);
		return -1;
	}
	if (peak != NULL && ru.ru_maxrss > *peak)
		*peak = ru.ru_maxrss;
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	struct bench_series s = { 0 }, base = { 0 };
	char **cmd, **basecmd = NULL;
	long n, k = 0, peak = 0;
	int pair = argc > 1 && strcmp(argv[1], "-p") == 0;
	double med;

	if (pair) {
		argv++;
		argc--;
	}
	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) <= 0 ||
	    (pair && (argc < 5 || (k = strtol(argv[2], NULL, 10)) <= 0 ||
	              k + 3 >= argc))) {
		fprintf(stderr, "usage: bench_exec N ARGV...\n"
		                "       bench_exec -p N K BASE_ARGV(K words)... ARGV...\n");
		return 64;
	}
	if (pair) {
		/* BASE_ARGV is argv[3..3+k), NULL-terminated in a copy. */
		basecmd = calloc((size_t)k + 1, sizeof(*basecmd));
		if (basecmd == NULL)
			return 1;
		memcpy(basecmd, argv + 3, (size_t)k * sizeof(*basecmd));
		cmd = argv + 3 + k;
	} else {
		cmd = argv + 2;
	}
	for (int r = 0; r < BENCH_REPEAT; r++) {
		double t = 0, tb = 0, d;

		for (long i = 0; i < n; i++) {
			if (pair) {
				if ((d = once(basecmd, NULL)) < 0)
					return 1;
				tb += d;
			}
			if ((d = once(cmd, &peak)) < 0)
				return 1;
			t += d;
		}
		bench_add(&s, t / n * 1e6);
		if (pair)
			bench_add(&base, tb / n * 1e6);
	}
	/* bench_median() sorts: take it before reading min and max. */
	med = bench_median(&s);
	printf("%.1f\t%.1f\t%.1f\t%ld", med, s.v[0], s.v[s.n - 1], peak);
	if (pair)
		printf("\t%.1f", bench_median(&base));
	printf("\n");
	free(basecmd);
	return 0;
}
