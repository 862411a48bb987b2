/*
 * bench.h — repeated measurements, median and spread, and the one output
 * line per figure that bench/run.sh collects into the BENCHMARKS.md table.
 */
#ifndef WARDEN_BENCH_H
#define WARDEN_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_REPEAT 7

struct bench_series {
	double v[BENCH_REPEAT];
	int n;
};

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void bench_add(struct bench_series *s, double v)
{
	if (s->n < BENCH_REPEAT)
		s->v[s->n++] = v;
}

static inline int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts s in place; returns the median. */
static inline double bench_median(struct bench_series *s)
{
	if (s->n == 0)
		return 0;
	qsort(s->v, (size_t)s->n, sizeof(s->v[0]), bench_cmp);
	return s->n % 2 ? s->v[s->n / 2]
	                : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

/* name  median  min  max  unit  baseline-median  ratio  target */
static inline void bench_report(const char *name, struct bench_series *s,
                                const char *unit, struct bench_series *base,
                                const char *target)
{
	double m = bench_median(s), b = bench_median(base);

	printf("%s\t%.3f\t%.3f\t%.3f\t%s\t%.3f\t%.2f\t%s\n", name, m, s->v[0],
	       s->v[s->n - 1], unit, b, b > 0 ? m / b : 0.0, target);
	fflush(stdout);
}

#endif
