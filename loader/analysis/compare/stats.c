// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - median, Mann-Whitney U, bootstrap CI of the median ratio, and
 * the verdict rules.  No I/O, no globals: everything here is unit-tested
 * by tests/unit/test_stats.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/stats.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double fb_quantile_sorted(const double *s, int n, double q)
{
	double pos, frac;
	int i;

	if (n <= 0)
		return NAN;
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[n - 1];
	pos = q * (n - 1);
	i = (int)pos;
	frac = pos - i;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (s[i + 1] - s[i]) * frac;
}

static double median_inplace(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double fb_median(const double *v, int n)
{
	double buf[FB_STATS_MAX_N], *tmp = buf, m;

	if (n <= 0)
		return NAN;
	if (n > FB_STATS_MAX_N) {
		tmp = malloc(sizeof(*tmp) * (size_t)n);
		if (!tmp)
			return NAN;
	}
	memcpy(tmp, v, sizeof(*tmp) * (size_t)n);
	m = median_inplace(tmp, n);
	if (tmp != buf)
		free(tmp);
	return m;
}

double fb_rel_sd(const double *v, int n)
{
	double sum = 0, ss = 0, mean;

	if (n < 2)
		return NAN;
	for (int i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	if (mean == 0)
		return NAN;
	for (int i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (n - 1)) / fabs(mean);
}

double fb_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

double fb_norm_quantile(double p)
{
	double lo = -40, hi = 40;

	if (!(p > 0 && p < 1))
		return NAN;
	if (p > 0.5)	/* the lower tail is where erfc is accurate */
		return -fb_norm_quantile(1 - p);
	/* bisection on the CDF: 80 halvings of [-40, 40] are below 1e-20 */
	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;

		if (fb_norm_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double fb_robust_cv(const double *v, int n)
{
	double dev[FB_STATS_MAX_N], med;

	if (n < 2 || n > FB_STATS_MAX_N)
		return NAN;
	med = fb_median(v, n);
	if (med == 0 || !isfinite(med))
		return NAN;
	for (int i = 0; i < n; i++)
		dev[i] = fabs(v[i] - med);
	return 1.4826 * fb_median(dev, n) / fabs(med);
}

/*
 * P(U >= u) and P(U <= u) for U of a sample of size nb against na, no
 * ties: count the ways to pick na ranks out of na + nb with each rank sum
 * (dynamic programming over ranks); U_a = W_a - na(na+1)/2 and U_b has
 * the same (symmetric) distribution.
 */
static int exact_tails(int na, int nb, double u, double *p_ge, double *p_le)
{
	int n = na + nb, smax = n * (n + 1) / 2, umax = na * nb;
	double *c = calloc((size_t)(na + 1) * (size_t)(smax + 1), sizeof(*c));
	double total = 0, ge = 0, le = 0;

	if (!c)
		return -1;
	c[0] = 1;
	for (int r = 1; r <= n; r++)
		for (int k = (r < na ? r : na); k >= 1; k--)
			for (int s = smax; s >= r; s--)
				c[k * (smax + 1) + s] += c[(k - 1) * (smax + 1) + s - r];
	for (int v = 0; v <= umax; v++) {
		double w = c[na * (smax + 1) + v + na * (na + 1) / 2];

		total += w;
		if (v >= u - 1e-9)
			ge += w;
		if (v <= u + 1e-9)
			le += w;
	}
	free(c);
	*p_ge = ge / total;
	*p_le = le / total;
	return 0;
}

int fb_mann_whitney(const double *a, int na, const double *b, int nb, struct fb_mwu *out)
{
	int n = na + nb, ties = 0;
	double u = 0, tie_sum = 0, mean, var, sd, *pool;

	memset(out, 0, sizeof(*out));
	if (na <= 0 || nb <= 0 || na > FB_STATS_MAX_N || nb > FB_STATS_MAX_N)
		return -1;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u += b[j] > a[i] ? 1.0 : b[j] == a[i] ? 0.5 : 0.0;
	out->u = u;

	/* tie groups over the pooled sample */
	pool = malloc(sizeof(*pool) * (size_t)n);
	if (!pool)
		return -1;
	memcpy(pool, a, sizeof(*pool) * (size_t)na);
	memcpy(pool + na, b, sizeof(*pool) * (size_t)nb);
	qsort(pool, (size_t)n, sizeof(*pool), cmp_double);
	for (int i = 0; i < n;) {
		int j = i;

		while (j < n && pool[j] == pool[i])
			j++;
		if (j - i > 1) {
			double t = j - i;

			ties = 1;
			tie_sum += t * t * t - t;
		}
		i = j;
	}
	free(pool);

	if (!ties && na <= FB_EXACT_MAX_N && nb <= FB_EXACT_MAX_N) {
		if (exact_tails(na, nb, u, &out->p_greater, &out->p_less) == 0) {
			out->exact = 1;
			out->p_two = 2 * fmin(out->p_greater, out->p_less);
			if (out->p_two > 1)
				out->p_two = 1;
			return 0;
		}
	}
	mean = (double)na * nb / 2.0;
	var = (double)na * nb / 12.0 * ((n + 1) - tie_sum / ((double)n * (n - 1)));
	if (var <= 0) {		/* every value equal: no evidence either way */
		out->p_greater = out->p_less = out->p_two = 1;
		return 0;
	}
	sd = sqrt(var);
	out->z = (u - mean) / sd;
	/* continuity correction of 1/2 towards the mean */
	out->p_greater = 1 - fb_norm_cdf((u - mean - 0.5) / sd);
	out->p_less = fb_norm_cdf((u - mean + 0.5) / sd);
	if (out->p_greater > 1)
		out->p_greater = 1;
	if (out->p_less > 1)
		out->p_less = 1;
	out->p_two = 2 * fmin(out->p_greater, out->p_less);
	if (out->p_two > 1)
		out->p_two = 1;
	return 0;
}

void fb_prng_seed(struct fb_prng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t fb_prng_next(struct fb_prng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t fb_prng_below(struct fb_prng *r, uint32_t n)
{
	/* multiply-shift: bias below 2^-32, irrelevant for n <= 256 */
	return (uint32_t)(((fb_prng_next(r) >> 32) * (uint64_t)n) >> 32);
}

int fb_bootstrap_ratio_ci(const double *a, int na, const double *b, int nb,
			  double level, int iters, uint64_t seed,
			  double *lo, double *hi)
{
	double ra[FB_STATS_MAX_N], rb[FB_STATS_MAX_N], *ratios;
	struct fb_prng rng;
	int used = 0;

	*lo = *hi = NAN;
	if (na <= 0 || nb <= 0 || na > FB_STATS_MAX_N || nb > FB_STATS_MAX_N || iters <= 0)
		return -1;
	ratios = malloc(sizeof(*ratios) * (size_t)iters);
	if (!ratios)
		return -1;
	fb_prng_seed(&rng, seed);
	for (int it = 0; it < iters; it++) {
		double ma, mb;

		for (int i = 0; i < na; i++)
			ra[i] = a[fb_prng_below(&rng, (uint32_t)na)];
		for (int i = 0; i < nb; i++)
			rb[i] = b[fb_prng_below(&rng, (uint32_t)nb)];
		ma = median_inplace(ra, na);
		mb = median_inplace(rb, nb);
		if (ma == 0 || !isfinite(ma) || !isfinite(mb))
			continue;
		ratios[used++] = mb / ma;
	}
	if (used < iters / 2) {
		free(ratios);
		return -1;
	}
	qsort(ratios, (size_t)used, sizeof(*ratios), cmp_double);
	*lo = fb_quantile_sorted(ratios, used, (1 - level) / 2);
	*hi = fb_quantile_sorted(ratios, used, 1 - (1 - level) / 2);
	free(ratios);
	return 0;
}

const char *fb_verdict_name(enum fb_verdict v)
{
	switch (v) {
	case FB_V_NOCHANGE:	return "no change";
	case FB_V_IMPROVED:	return "improved";
	case FB_V_REGRESSED:	return "regressed";
	case FB_V_INCONCLUSIVE:	return "inconclusive";
	case FB_V_CHANGED:	return "changed";
	case FB_V_NA:		break;
	}
	return "n/a";
}

enum fb_verdict fb_verdict_noisy(const double *a, int na, const double *b, int nb,
				 double alpha, double min_effect_pct,
				 int lower_is_better, struct fb_cmp_stats *st)
{
	double e = min_effect_pct / 100.0;
	int sig, up;

	memset(st, 0, sizeof(*st));
	st->na = na;
	st->nb = nb;
	st->med_a = fb_median(a, na);
	st->med_b = fb_median(b, nb);
	st->delta_pct = NAN;
	st->ci_lo = st->ci_hi = NAN;
	if (na <= 0 || nb <= 0)
		return FB_V_NA;
	if (st->med_a != 0)
		st->delta_pct = (st->med_b / st->med_a - 1) * 100;
	else if (st->med_b == 0)
		st->delta_pct = 0;
	if (na < 3 || nb < 3)
		return FB_V_INCONCLUSIVE;
	st->have_mwu = fb_mann_whitney(a, na, b, nb, &st->mwu) == 0;
	st->have_ci = fb_bootstrap_ratio_ci(a, na, b, nb, 0.95, FB_BOOT_ITERS,
					    FB_BOOT_SEED, &st->ci_lo, &st->ci_hi) == 0;
	if (!st->have_mwu)
		return FB_V_INCONCLUSIVE;
	if (st->have_ci)
		sig = st->mwu.p_two < alpha && (st->ci_lo > 1 || st->ci_hi < 1);
	else		/* base median 0: no ratio, the rank test alone decides */
		sig = st->mwu.p_two < alpha;
	up = st->med_b > st->med_a;
	if (sig && st->med_a == st->med_b)
		sig = 0;	/* shifted distribution, equal medians: no effect to report */
	if (sig && (isnan(st->delta_pct) || fabs(st->delta_pct) >= min_effect_pct))
		return up == !!lower_is_better ? FB_V_REGRESSED : FB_V_IMPROVED;
	if (sig)
		return FB_V_NOCHANGE;
	if (st->have_ci && st->ci_lo >= 1 - e && st->ci_hi <= 1 + e)
		return FB_V_NOCHANGE;
	if (!st->have_ci && st->med_a == 0 && st->med_b == 0)
		return FB_V_NOCHANGE;
	return FB_V_INCONCLUSIVE;
}

/* Continued fraction of the regularized incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = fabs(d) < 1e-300 ? 1e-300 : d;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		d = 1 + aa * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = 1 + aa / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = 1 + aa / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double fb_t_sf(double t, double df)
{
	double tail = 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? tail : 1 - tail;
}

double fb_f_sf(double f, double d1, double d2)
{
	if (!(f > 0))
		return 1;
	return inc_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

/* mean and variance of log(v); -1 on a value <= 0 */
static int log_moments(const double *v, int n, double *mean, double *var)
{
	double s = 0, ss = 0;

	for (int i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return -1;
		s += log(v[i]);
	}
	*mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (log(v[i]) - *mean) * (log(v[i]) - *mean);
	*var = ss / (n - 1);
	return 0;
}

int fb_welch_log(const double *a, int na, const double *b, int nb, double floor_rel,
		 struct fb_mwu *out)
{
	double ma, va, mb, vb, sa, sb, se, t, df;

	memset(out, 0, sizeof(*out));
	if (na < 2 || nb < 2 || log_moments(a, na, &ma, &va) || log_moments(b, nb, &mb, &vb))
		return -1;
	/* log(1 + r) ~ r: a relative floor on each side's spread */
	va = fmax(va, floor_rel * floor_rel);
	vb = fmax(vb, floor_rel * floor_rel);
	sa = va / na;
	sb = vb / nb;
	se = sqrt(sa + sb);
	t = (mb - ma) / se;
	df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	out->p_greater = fb_t_sf(t, df);
	out->p_less = fb_t_sf(-t, df);
	out->p_two = fmin(1, 2 * fmin(out->p_greater, out->p_less));
	return 0;
}
