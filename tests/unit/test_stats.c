// SPDX-License-Identifier: GPL-2.0
/*
 * test_stats.c - unit tests of loader/analysis/compare/stats.c on synthetic samples.
 *
 * Reference values for the rank tests come from an independent brute-force
 * enumeration (below) and from a Python transcription of the textbook
 * formulas (normal approximation with tie correction).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare/stats.h"
#include "tap.h"

#define CHECK(cond, name) CHECKF(cond, "%s", name)

static int near(double x, double y, double tol)
{
	return fabs(x - y) <= tol;
}

static double gauss(struct fb_prng *r)
{
	double u1 = ((double)(fb_prng_next(r) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(fb_prng_next(r) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Exact one-sided P(U_b >= u) by enumerating every split of the pool. */
static double brute_p_greater(const double *a, int na, const double *b, int nb)
{
	double pool[16], u = 0;
	int n = na + nb, ge = 0, tot = 0;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u += b[j] > a[i];
	memcpy(pool, a, sizeof(double) * (size_t)na);
	memcpy(pool + na, b, sizeof(double) * (size_t)nb);
	for (unsigned int m = 0; m < (1u << n); m++) {
		double uu = 0;

		if (__builtin_popcount(m) != nb)
			continue;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (!(m & (1u << i)) && (m & (1u << j)) && pool[j] > pool[i])
					uu++;
		tot++;
		ge += uu >= u;
	}
	return (double)ge / tot;
}

static void test_median(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	CHECK(fb_median(odd, 3) == 3, "median of odd count");
	CHECK(odd[0] == 5 && odd[1] == 1, "median leaves input order alone");
	CHECK(fb_median(even, 4) == 2.5, "median of even count averages middle pair");
	CHECK(fb_median(one, 1) == 7, "median of one value");
	CHECK(isnan(fb_median(one, 0)), "median of nothing is NaN");
}

static void test_rel_sd(void)
{
	double v[] = { 90, 100, 110 }, same[] = { 5, 5, 5, 5 }, zero[] = { -1, 1 };

	/* sample SD of 90, 100, 110 is 10, mean 100 */
	CHECK(fabs(fb_rel_sd(v, 3) - 0.1) < 1e-12, "relative SD: 10/100");
	CHECK(fb_rel_sd(same, 4) == 0, "relative SD of equal values is 0");
	CHECK(isnan(fb_rel_sd(v, 1)), "relative SD of one value is NaN");
	CHECK(isnan(fb_rel_sd(zero, 2)), "relative SD with mean 0 is NaN");
}

static void test_mwu_exact(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	double a2[] = { 1.5, 3.2, 0.7, 4.4 }, b2[] = { 5.1, 2.2, 6.3, 7.0, 3.9 };
	struct fb_mwu m, m2;
	struct fb_prng rng;
	int ok = 1;

	CHECK(fb_mann_whitney(a, 3, b, 3, &m) == 0 && m.exact,
	      "exact U used for small tie-free samples");
	CHECK(m.u == 9, "U counts pairs with b > a");
	CHECK(near(m.p_greater, 1.0 / 20, 1e-12),
	      "exact one-sided p for complete separation 3v3 is 1/20");
	CHECK(near(m.p_two, 0.1, 1e-12), "exact two-sided p is twice the smaller tail");
	CHECK(near(m.p_less, 1.0, 1e-12), "opposite tail is 1");

	fb_mann_whitney(a2, 4, b2, 5, &m);
	CHECK(m.u == 17 && near(m.p_greater, 7.0 / 126, 1e-12),
	      "exact p matches brute-force enumeration (4v5)");
	fb_mann_whitney(b2, 5, a2, 4, &m2);
	CHECK(near(m.p_greater, m2.p_less, 1e-12) && near(m.p_two, m2.p_two, 1e-12),
	      "swapping the samples swaps the tails");

	fb_prng_seed(&rng, 42);
	for (int t = 0; t < 200; t++) {
		double x[6], y[6];
		int nx = 2 + (int)fb_prng_below(&rng, 5), ny = 2 + (int)fb_prng_below(&rng, 5);

		for (int i = 0; i < nx; i++)
			x[i] = gauss(&rng);
		for (int i = 0; i < ny; i++)
			y[i] = gauss(&rng) + 0.5;
		fb_mann_whitney(x, nx, y, ny, &m);
		if (!m.exact || !near(m.p_greater, brute_p_greater(x, nx, y, ny), 1e-9))
			ok = 0;
	}
	CHECK(ok, "exact p matches brute force on 200 random small samples");
}

static void test_mwu_normal(void)
{
	double a[] = { 1, 2, 2, 3, 4 }, b[] = { 2, 3, 4, 5, 5 };
	double same[] = { 3, 3, 3, 3 };
	double x[40], y[40];
	struct fb_prng rng;
	struct fb_mwu m;

	fb_mann_whitney(a, 5, b, 5, &m);
	CHECK(!m.exact && m.u == 20, "ties fall back to the normal approximation");
	CHECK(near(m.p_greater, 0.06754953472866077, 1e-9),
	      "tie-corrected one-sided p matches reference");
	CHECK(near(m.p_two, 0.13509906945732153, 1e-9),
	      "tie-corrected two-sided p matches reference");
	fb_mann_whitney(same, 4, same, 4, &m);
	CHECK(m.p_two == 1 && m.p_greater == 1, "all values equal gives p = 1");

	fb_prng_seed(&rng, 7);
	for (int i = 0; i < 40; i++) {
		x[i] = 100 + gauss(&rng);
		y[i] = 101.5 + gauss(&rng);
	}
	fb_mann_whitney(x, 40, y, 40, &m);
	CHECK(!m.exact && m.p_greater < 1e-4 && m.p_less > 0.99,
	      "large shifted samples: tiny one-sided p");
	CHECK(fb_mann_whitney(x, 0, y, 3, &m) == -1, "empty side is an error");
}

static void test_prng_bootstrap(void)
{
	struct fb_prng r1, r2;
	double a[8], b[8], lo, hi, lo2, hi2, same[5] = { 10, 11, 9, 10, 12 };
	int det = 1, range = 1;

	fb_prng_seed(&r1, 123);
	fb_prng_seed(&r2, 123);
	for (int i = 0; i < 1000; i++) {
		if (fb_prng_next(&r1) != fb_prng_next(&r2))
			det = 0;
		if (fb_prng_below(&r1, 7) >= 7)
			range = 0;
		fb_prng_below(&r2, 7);
	}
	CHECK(det, "PRNG is deterministic for a seed");
	CHECK(range, "prng_below stays in range");

	fb_prng_seed(&r1, 5);
	for (int i = 0; i < 8; i++) {
		a[i] = 1000 * (1 + 0.01 * gauss(&r1));
		b[i] = 1200 * (1 + 0.01 * gauss(&r1));
	}
	fb_bootstrap_ratio_ci(a, 8, b, 8, 0.95, FB_BOOT_ITERS, FB_BOOT_SEED, &lo, &hi);
	fb_bootstrap_ratio_ci(a, 8, b, 8, 0.95, FB_BOOT_ITERS, FB_BOOT_SEED, &lo2, &hi2);
	CHECK(lo == lo2 && hi == hi2, "bootstrap CI is reproducible");
	CHECK(lo < 1.2 && hi > 1.2 && lo > 1.15 && hi < 1.25,
	      "bootstrap CI of a 1.2 ratio brackets 1.2");
	fb_bootstrap_ratio_ci(same, 5, same, 5, 0.95, 1000, 1, &lo, &hi);
	CHECK(lo <= 1 && hi >= 1, "CI of a sample against itself contains 1");
	{
		double z[3] = { 0, 0, 0 };

		CHECK(fb_bootstrap_ratio_ci(z, 3, same, 3, 0.95, 1000, 1, &lo, &hi) == -1,
		      "bootstrap refuses a base of zeros");
	}
}

static void fill(struct fb_prng *r, double *v, int n, double mean, double rel_sd)
{
	for (int i = 0; i < n; i++)
		v[i] = mean * (1 + rel_sd * gauss(r));
}

static void test_verdicts(void)
{
	struct fb_prng r;
	struct fb_cmp_stats st;
	double a[10], b[10];
	int fa = 0, det = 0;

	fb_prng_seed(&r, 99);
	fill(&r, a, 10, 1000, 0.01);
	fill(&r, b, 10, 1200, 0.01);
	CHECK(fb_verdict_noisy(a, 10, b, 10, 0.05, 2, 1, &st) == FB_V_REGRESSED,
	      "+20% latency is regressed");
	CHECK(near(st.delta_pct, 20, 2), "delta of +20% reported");
	CHECK(fb_verdict_noisy(b, 10, a, 10, 0.05, 2, 1, &st) == FB_V_IMPROVED,
	      "-17% latency is improved");
	CHECK(fb_verdict_noisy(a, 10, b, 10, 0.05, 2, 0, &st) == FB_V_IMPROVED,
	      "higher-is-better flips the direction");
	CHECK(fb_verdict_noisy(a, 2, b, 2, 0.05, 2, 1, &st) == FB_V_INCONCLUSIVE,
	      "2 rounds per side is inconclusive");
	CHECK(fb_verdict_noisy(a, 10, a, 10, 0.05, 2, 1, &st) == FB_V_NOCHANGE,
	      "identical samples: no change");

	fill(&r, a, 10, 1000, 0.001);
	fill(&r, b, 10, 1005, 0.001);
	CHECK(fb_verdict_noisy(a, 10, b, 10, 0.05, 2, 1, &st) == FB_V_NOCHANGE,
	      "significant +0.5% below a 2% minimum effect is no change");
	CHECK(st.mwu.p_two < 0.05, "... and it was significant");

	fill(&r, a, 5, 1000, 0.3);
	fill(&r, b, 5, 1000, 0.3);
	CHECK(fb_verdict_noisy(a, 5, b, 5, 0.05, 2, 1, &st) == FB_V_INCONCLUSIVE,
	      "30% noise, 5 rounds, no shift: inconclusive");

	{
		double z1[4] = { 0, 0, 0, 0 }, z2[4] = { 0, 0, 0, 0 };

		CHECK(fb_verdict_noisy(z1, 4, z2, 4, 0.05, 2, 1, &st) == FB_V_NOCHANGE,
		      "all zero both sides: no change");
	}

	/* calibration: A/A false alarms near alpha, 10% shift detected */
	for (int t = 0; t < 1000; t++) {
		enum fb_verdict v;

		fill(&r, a, 10, 1000, 0.03);
		fill(&r, b, 10, 1000, 0.03);
		v = fb_verdict_noisy(a, 10, b, 10, 0.05, 2, 1, &st);
		fa += v == FB_V_REGRESSED || v == FB_V_IMPROVED;
		fill(&r, b, 10, 1100, 0.03);
		det += fb_verdict_noisy(a, 10, b, 10, 0.05, 2, 1, &st) == FB_V_REGRESSED;
	}
	printf("# A/A false alarms %d/1000, 10%% shift detected %d/1000 (n=10, 3%% noise)\n", fa, det);
	CHECK(fa <= 60, "A/A false-alarm rate at most ~alpha (1000 trials)");
	CHECK(det >= 990, "10% shift at 3% noise, 10 rounds: detected >= 99%");
	CHECK(strcmp(fb_verdict_name(FB_V_NOCHANGE), "no change") == 0 &&
	      strcmp(fb_verdict_name(FB_V_NA), "n/a") == 0, "verdict names");
}

/* the gate's helpers: inverse normal CDF and the robust CV */
static void test_quantile_cv(void)
{
	double v[7] = { 100, 102, 98, 101, 99, 100, 500 }, flat[3] = { 5, 5, 5 };

	CHECK(fabs(fb_norm_quantile(0.975) - 1.959964) < 1e-5, "z(0.975) = 1.95996");
	CHECK(fabs(fb_norm_quantile(0.01) + 2.326348) < 1e-5, "z(0.01) = -2.32635");
	CHECK(fabs(fb_norm_quantile(1e-10) + 6.361341) < 1e-4, "z(1e-10) = -6.3613 (far tail)");
	CHECK(isnan(fb_norm_quantile(0)) && isnan(fb_norm_quantile(1)), "z(0), z(1): NaN");
	/* MAD of {100,102,98,101,99,100,500} about 100 is 1: CV 1.4826%, the 500 ignored */
	CHECK(fabs(fb_robust_cv(v, 7) - 0.014826) < 1e-9, "robust CV ignores one slow round");
	CHECK(fb_robust_cv(flat, 3) == 0 && isnan(fb_robust_cv(v, 1)), "robust CV: flat 0, n=1 NaN");
}

/* Student t tail against tabled critical values; Welch on logs with the floor. */
static void test_welch(void)
{
	const double a[] = { 1252.1, 1252.3, 1252.2 }, b[] = { 1264.6, 1264.4, 1264.5 };
	const double c[] = { 1000, 1000, 1000 }, d[] = { 1000.5, 1000.5, 1000.5 };
	struct fb_mwu u;

	CHECK(fabs(fb_t_sf(2.776, 4) - 0.025) < 2e-4 && fabs(fb_t_sf(12.706, 1) - 0.025) < 2e-4 &&
	      fabs(fb_t_sf(1.96, 1e6) - 0.025) < 2e-4 && fabs(fb_t_sf(0, 7) - 0.5) < 1e-12 &&
	      fabs(fb_t_sf(-2.776, 4) - 0.975) < 2e-4, "t tail: tabled 2.5% points at df 4, 1, inf");
	CHECK(!fb_welch_log(a, 3, b, 3, 0.001, &u) && u.p_greater < 1e-3 && u.p_less > 0.99,
	      "Welch: +1.0% in 3+3 near-identical rounds is significant");
	CHECK(!fb_welch_log(c, 3, d, 3, 0.001, &u) && u.p_greater > 0.2,
	      "Welch: identical rounds, +0.05% stays inside the 0.1% floor (not significant)");
	CHECK(fb_welch_log(a, 1, b, 3, 0.001, &u) == -1, "Welch: one round a side is refused");
}

int main(void)
{
	test_welch();
	test_quantile_cv();
	test_median();
	test_rel_sd();
	test_mwu_exact();
	test_mwu_normal();
	test_prng_bootstrap();
	test_verdicts();
	return tap_done();
}
