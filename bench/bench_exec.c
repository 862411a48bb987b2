/*
 * bench_exec — times a whole command: `bench_exec N ARGV...` runs ARGV N
 * times, BENCH_REPEAT rounds, and prints one line:
 *
 *   median_us  min_us  max_us  peak_rss_kib
 *
 * (microseconds per run; the peak resident set of the child and the
 * children it waited for, from wait4).  stdout and stderr of ARGV go to
 * /dev/null; a run that does not exit 0 stops the bench with status 1.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	struct bench_series s = { 0 };
	long n, peak = 0;
	double med;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: bench_exec N ARGV...\n");
		return 64;
	}
	for (int r = 0; r < BENCH_REPEAT; r++) {
		double t0 = bench_now();

		for (long k = 0; k < n; k++) {
			struct rusage ru;
			int st;
			pid_t pid = fork();

			if (pid < 0) {
				perror("bench_exec: fork");
				return 1;
			}
			if (pid == 0) {
				int null = open("/dev/null", O_WRONLY);

				dup2(null, 1);
				dup2(null, 2);
				execv(argv[2], argv + 2);
				_exit(127);
			}
			if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) ||
			    WEXITSTATUS(st) != 0) {
				fprintf(stderr, "bench_exec: %s did not exit 0 (status %d)\n",
				        argv[2], st);
				return 1;
			}
			if (ru.ru_maxrss > peak)
				peak = ru.ru_maxrss;
		}
		bench_add(&s, (bench_now() - t0) / n * 1e6);
	}
	/* bench_median() sorts: take it before reading min and max. */
	med = bench_median(&s);
	printf("%.1f\t%.1f\t%.1f\t%ld\n", med, s.v[0], s.v[s.n - 1], peak);
	return 0;
}
