/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the statistics behind compare, report and gate.
 *
 * Pure functions on arrays of per-round values: median, Mann-Whitney U
 * (exact for small samples without ties, normal approximation with tie
 * correction otherwise), a bootstrap confidence interval of the ratio of
 * medians with a fixed-seed PRNG (so every run prints the same numbers),
 * and the verdict rules documented in docs/compare.md.
 */
#ifndef FB_STATS_H
#define FB_STATS_H

#include <stdint.h>

#define FB_STATS_MAX_N		256	/* rounds per side we accept */
#define FB_EXACT_MAX_N		30	/* exact U distribution up to this n */
#define FB_BOOT_ITERS		4000
#define FB_BOOT_SEED		0x666f6c696f62656eULL	/* "foliobenc" */

/* Median of n values (copied, not reordered).  NaN if n == 0. */
double fb_median(const double *v, int n);
/* sample standard deviation / |mean| (coefficient of variation); NAN if n < 2 or mean 0 */
double fb_rel_sd(const double *v, int n);
/* Quantile q in [0,1] of sorted values, linear interpolation. */
double fb_quantile_sorted(const double *sorted, int n, double q);

struct fb_mwu {
	double u;		/* U of b: pairs with b > a, ties count 1/2 */
	double z;		/* normal score (0 when exact) */
	double p_two;		/* two-sided */
	double p_greater;	/* one-sided: b tends to be larger than a */
	double p_less;		/* one-sided: b tends to be smaller than a */
	int exact;		/* 1 if from the exact distribution */
};

/* 0, or -1 if a side is empty or larger than FB_STATS_MAX_N. */
int fb_mann_whitney(const double *a, int na, const double *b, int nb, struct fb_mwu *out);

/* Student's t distribution: P(T > t) with df degrees of freedom (df > 0). */
double fb_t_sf(double t, double df);
/* F distribution with d1, d2 degrees of freedom: P(F > f). */
double fb_f_sf(double f, double d1, double d2);
/*
 * Welch's t test on log values (a ratio test) for near-deterministic
 * rounds (icount guests), where ranks cannot reach a small p with a few
 * rounds.  Each side's standard deviation is at least floor_rel (relative)
 * so that identical rounds do not make any difference infinitely
 * significant.  One-sided p values into out; 0, or -1 with fewer than 2
 * rounds a side or a value <= 0.
 */
int fb_welch_log(const double *a, int na, const double *b, int nb, double floor_rel,
		 struct fb_mwu *out);
/* the relative spread below which icount rounds are not trusted to agree
 * (interrupts move an instruction count by about 0.1%, reports/clock/) */
#define FB_ICOUNT_FLOOR	0.001

/* Standard normal CDF, and its inverse for p in (0, 1) (NaN outside). */
double fb_norm_cdf(double z);
double fb_norm_quantile(double p);
/* 1.4826 * median absolute deviation / |median|: the round-to-round CV,
 * robust to the odd slow boot; NaN if n < 2 or the median is 0. */
double fb_robust_cv(const double *v, int n);

/* splitmix64: tiny, good enough, and the same everywhere. */
struct fb_prng {
	uint64_t s;
};
void fb_prng_seed(struct fb_prng *r, uint64_t seed);
uint64_t fb_prng_next(struct fb_prng *r);
/* Uniform integer in [0, n). */
uint32_t fb_prng_below(struct fb_prng *r, uint32_t n);

/*
 * Percentile bootstrap CI (level, e.g. 0.95) of median(b)/median(a):
 * resample both sides with replacement iters times.  Resamples whose
 * median(a) is 0 are skipped.  Returns 0, or -1 if a side is empty, too
 * large, or fewer than half of the resamples had a usable ratio.
 */
int fb_bootstrap_ratio_ci(const double *a, int na, const double *b, int nb,
			  double level, int iters, uint64_t seed,
			  double *lo, double *hi);

enum fb_verdict {
	FB_V_NA = 0,		/* no data (probe unavailable, failed workload) */
	FB_V_NOCHANGE,
	FB_V_IMPROVED,
	FB_V_REGRESSED,
	FB_V_INCONCLUSIVE,
	FB_V_CHANGED,		/* a deterministic count differs */
};

const char *fb_verdict_name(enum fb_verdict v);

/* Everything a verdict was made from, for printing. */
struct fb_cmp_stats {
	int na, nb;
	double med_a, med_b;
	double delta_pct;	/* (med_b/med_a - 1) * 100; NaN if med_a == 0 */
	double ci_lo, ci_hi;	/* CI of the ratio; NaN if none */
	int have_ci;
	struct fb_mwu mwu;
	int have_mwu;
};

/*
 * Verdict for a noisy metric (latency, wall time) measured once per round:
 * a = base rounds, b = new rounds.  Rules (docs/compare.md):
 *   fewer than 3 rounds on a side              -> inconclusive
 *   two-sided U p < alpha, CI excludes 1 and
 *     |delta| >= min_effect_pct                -> improved / regressed
 *   otherwise, CI inside [1 - e, 1 + e], or
 *     significant but |delta| < min_effect     -> no change
 *   otherwise                                  -> inconclusive
 * lower_is_better picks which direction is "improved".
 */
enum fb_verdict fb_verdict_noisy(const double *a, int na, const double *b, int nb,
				 double alpha, double min_effect_pct,
				 int lower_is_better, struct fb_cmp_stats *st);

#endif /* FB_STATS_H */
