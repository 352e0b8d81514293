/* SPDX-License-Identifier: GPL-2.0 */
/*
 * changepoint.h - change points in one metric's series (pure, no I/O).
 *
 * E-divisive means (Matteson and James 2014, with alpha = 1, as used by
 * MongoDB's signal processing and Apache Otava/Hunter): for a segment, the
 * split tau that maximises the scaled energy distance
 *
 *   Q(tau) = (m n / (m + n)) * (2/(m n) sum|x-y| - mean|x-x'| - mean|y-y'|)
 *
 * between its left (m points) and right (n points) parts.  The best split
 * over all current segments is kept when a permutation test (values of its
 * segment shuffled with a seeded PRNG) gives p < alpha; then the search
 * repeats on the pieces.  The threshold adapts to each series' own noise:
 * no hand-set step size.
 *
 * Each step found is reported with the medians of the segments on either
 * side and a bootstrap CI of their ratio (stats.h), so a step is also a
 * percentage with a confidence interval.
 */
#ifndef FB_CHANGEPOINT_H
#define FB_CHANGEPOINT_H

#include <stdint.h>

#define FB_CP_KAPPA_MAX_N	2048	/* (n+1)^2 doubles: 32 MiB */

struct fb_cp_opts {
	double alpha;		/* permutation test level, default 0.01 */
	int perms;		/* permutations per test, default 199 */
	int min_size;		/* fewest points in a segment, default 5 */
	int max_cps;		/* most change points, default 32 */
	uint64_t seed;		/* permutations and bootstrap */
	int boot_iters;		/* bootstrap resamples for the CI, default 2000 */
	int ranks;		/* 1 (default): test the ranks within each segment, so
				 * outliers weigh no more than any other point */
	int kappa;		/* 1 (default): search the right part's end too
				 * (Matteson and James), up to FB_CP_KAPPA_MAX_N
				 * points; 0: the right part runs to the end */
};

struct fb_cp {
	int pos;		/* index of the first point after the step */
	int lo, hi;		/* segments: [lo, pos) before, [pos, hi) after */
	double q;		/* E-divisive statistic */
	double p;		/* permutation p-value */
	double before, after;	/* medians of the two segments */
	double pct;		/* (after / before - 1) * 100; NaN if before == 0 */
	double ci_lo, ci_hi;	/* 95% bootstrap CI of pct; NaN if none */
};

void fb_cp_defaults(struct fb_cp_opts *o);

/*
 * Change points of x[0..n), sorted by position, at most maxout in out.
 * Returns how many, or -1 if out of memory.  Deterministic for a seed.
 * NaN values are not allowed (the caller leaves them out).
 */
int fb_changepoints(const double *x, int n, const struct fb_cp_opts *o,
		    struct fb_cp *out, int maxout);

/* Best split of x[0..n) and its Q; -1 if n < 2 * min_size.  For tests. */
int fb_cp_best_split(const double *x, int n, int min_size, double *q);

#endif /* FB_CHANGEPOINT_H */
