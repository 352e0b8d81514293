// SPDX-License-Identifier: GPL-2.0
/* test_hist.c - bucketing and percentile math. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/hist.h"
#include "tap.h"

static void test_buckets(void)
{
	int bad_rt = 0, bad_width = 0, bad_mono = 0;
	unsigned int bad_log2 = 0;

	for (unsigned int i = 0; i + 1 < FB_NBUCKETS; i++) {
		uint64_t lo = fb_bucket_lo(i), hi = fb_bucket_hi(i);

		if (fb_bucket(lo) != i || fb_bucket(hi) != i)
			bad_rt++;
		if (lo >= FB_SUB && (double)(hi - lo + 1) / (double)lo > 1.0 / FB_SUB + 1e-12)
			bad_width++;
		if (i && fb_bucket_lo(i) != fb_bucket_hi(i - 1) + 1)
			bad_mono++;
	}
	CHECKF(!bad_rt, "every bucket's bounds map back to it (%d bad)", bad_rt);
	CHECKF(!bad_width, "bucket width <= 1/%u of its lower bound (%d bad)", FB_SUB, bad_width);
	CHECKF(!bad_mono, "buckets tile the range without gaps (%d bad)", bad_mono);
	CHECKF(fb_bucket(0) == 0 && fb_bucket(31) == 31 && fb_bucket(32) == 32,
	       "small values get their own bucket");
	CHECKF(fb_bucket(~0ull) == FB_NBUCKETS - 1, "huge values land in the last bucket");
	for (unsigned int e = 0; e < 64; e++)
		if (fb_log2(1ull << e) != e || (e > 1 && fb_log2((1ull << e) - 1) != e - 1))
			bad_log2++;
	CHECKF(bad_log2 == 0, "fb_log2 exact at every power of two and below it (%u bad)",
	       bad_log2);
}

static struct fb_hist *uniform(uint64_t lo, uint64_t hi)
{
	struct fb_hist *h = calloc(1, sizeof(*h));

	for (uint64_t v = lo; v <= hi; v++)
		fb_hist_add(h, v);
	return h;
}

static void test_percentiles(void)
{
	struct fb_hist *h = uniform(1000, 100999), *e = calloc(1, sizeof(*e));
	double p[] = { 50, 90, 99 };

	for (int i = 0; i < 3; i++) {
		double want = 1000 + p[i] / 100 * 100000, got = fb_hist_percentile(h, p[i]);

		CHECKF(fabs(got - want) / want < 0.01, "p%.0f of uniform[1000,100999] = %.0f (want %.0f +-1%%)",
		       p[i], got, want);
	}
	CHECKF(h->count == 100000 && h->min == 1000 && h->max == 100999, "count/min/max tracked");
	CHECKF(fabs(fb_hist_mean(h) - 50999.5) < 1e-6, "mean is exact (sum/count)");
	CHECKF(fb_hist_percentile(h, 100) <= 100999 && fb_hist_percentile(h, 0) >= 1000,
	       "percentiles clamp to min and max");
	CHECKF(fb_hist_percentile(e, 50) == 0 && fb_hist_mean(e) == 0, "empty histogram gives 0");
	fb_hist_add(e, 7);
	CHECKF(fb_hist_percentile(e, 50) == 7 && fb_hist_percentile(e, 99) == 7,
	       "one sample: every percentile is that sample");
	free(h);
	free(e);
}

static void test_merge(void)
{
	struct fb_hist *a = uniform(10, 19), *b = uniform(1000, 1009), *all = uniform(10, 19);

	for (uint64_t v = 1000; v <= 1009; v++)
		fb_hist_add(all, v);
	fb_hist_merge(a, b);
	CHECKF(a->count == 20 && a->min == 10 && a->max == 1009 && a->sum == all->sum,
	       "merge adds count and sum, keeps min and max");
	CHECKF(!memcmp(a->buckets, all->buckets, sizeof(a->buckets)), "merge adds buckets");
	free(a);
	free(b);
	free(all);
}

/* cmean: the common path's mean, interrupted and slow calls left out */
static void test_core_mean(void)
{
	struct fb_hist *h = calloc(1, sizeof(*h));
	double cm;

	for (int i = 0; i < 10000; i++)
		fb_hist_add(h, 1250 + (uint64_t)(i % 5));	/* 1250..1254, mean 1252 */
	for (int i = 0; i < 150; i++)
		fb_hist_add(h, 2690);			/* slow path */
	fb_hist_add(h, 15400);				/* an interrupt */
	cm = fb_hist_core_mean(h, 1.5);
	CHECKF(fabs(cm - 1252) < 1252 * 0.0005,
	       "core mean %.3f of 1250..1254 with 1.5%% outliers: 1252 within 0.05%%", cm);
	CHECKF(fb_hist_mean(h) > 1270, "the plain mean carries the outliers (%.1f)", fb_hist_mean(h));
	free(h);
}

/*
 * Two modes with the median on the few calls between them (the shape of
 * get_device_parent's: fast lookups, slow glue-dir creations): the common
 * path is the fuller mode below the median, and one call moving between
 * the middle and the slow mode moves the core mean by less than 0.1%.
 */
static void test_core_mean_bimodal(void)
{
	struct fb_hist *h[2];
	double cm[2];

	for (int k = 0; k < 2; k++) {
		h[k] = calloc(1, sizeof(*h[k]));
		for (int i = 0; i < 198; i++)
			fb_hist_add(h[k], 720 + (uint64_t)(i % 10));	/* mean 724.5 */
		for (int i = 0; i < 6 - k; i++)
			fb_hist_add(h[k], 1800 + 400 * (uint64_t)(i % 3));
		for (int i = 0; i < 200 + k; i++)
			fb_hist_add(h[k], 11000 + (uint64_t)(i % 9) * 150);
		cm[k] = fb_hist_core_mean(h[k], 1.5);
	}
	/* the slow calls are taken out at their buckets' middles: a bias */
	CHECKF(fabs(cm[0] - 724.5) < 724.5 * 0.05 && fabs(cm[1] - cm[0]) < cm[0] * 0.001,
	       "bimodal: core mean %.2f, %.2f after one middle call turned slow: the fast mode (724.5) within 5%%, moved < 0.1%%",
	       cm[0], cm[1]);
	free(h[0]);
	free(h[1]);
}

int main(void)
{
	test_core_mean();
	test_core_mean_bimodal();
	test_buckets();
	test_percentiles();
	test_merge();
	return tap_done();
}
