// SPDX-License-Identifier: GPL-2.0
/* hist.c - log-linear histogram math shared by run, compare and report. */
#include <string.h>

#include "model/hist.h"

/* a median bucket this many times sparser than a fuller one below it */
#define FB_CORE_SPARSE 4

uint64_t fb_bucket_lo(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < FB_SUB)
		return idx;
	e = (idx - FB_SUB) / FB_SUB + FB_SUB_BITS;
	sub = (idx - FB_SUB) % FB_SUB;
	return (uint64_t)(FB_SUB + sub) << (e - FB_SUB_BITS);
}

uint64_t fb_bucket_hi(unsigned int idx)
{
	if (idx + 1 >= FB_NBUCKETS)
		return UINT64_MAX;
	return fb_bucket_lo(idx + 1) - 1;
}

double fb_hist_mean(const struct fb_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

/*
 * Where the common path is: the median, unless it falls between two modes
 * (a bucket holding a quarter or less of the fullest bucket below it), as
 * get_device_parent's does: ~200 lookups of an existing glue directory at
 * 0.7 us, ~200 creations at 11-12 us and a handful of calls in between,
 * so its median sits on one of those few and a call or two moving across
 * 1.5x it moved the mean of the calls kept by 1% between boots
 * (reports/gate/).  Then the fullest bucket at or below the median is the
 * common path, taken at its top.
 */
static double core_centre(const struct fb_hist *h, double med)
{
	uint64_t top = 0, at_med = 0;
	unsigned int ti = 0;

	for (unsigned int i = 0; i < FB_NBUCKETS && (double)fb_bucket_lo(i) <= med; i++) {
		if (h->buckets[i] > top) {
			top = h->buckets[i];
			ti = i;
		}
		at_med = h->buckets[i];
	}
	if (top && at_med * FB_CORE_SPARSE <= top)
		return (double)fb_bucket_hi(ti);
	return med;
}

/*
 * The mean of the calls that took at most factor x the common path
 * (core_centre: the median, but between two modes): the calls an
 * interrupt or a page fault landed in are left out.  Exact from sum and
 * count but for the calls left out, each taken at its bucket's middle (a
 * bucket is 1/32 of its octave wide), so for a handful of outliers in
 * thousands of calls the error is far below 0.1%; where a whole second
 * mode is left out (get_device_parent's) it is a few percent, a bias that
 * stays put between boots.  Under icount a per-call
 * time is an instruction count and this moves with every instruction a
 * patch adds, where the median moves only when calls cross a 3% bucket
 * (reports/clock/).  0 if empty.
 */
double fb_hist_core_mean(const struct fb_hist *h, double factor)
{
	double cut = core_centre(h, fb_hist_percentile(h, 50)) * factor, sum = (double)h->sum;
	uint64_t n = h->count;

	if (!n)
		return 0;
	for (unsigned int i = 0; i < FB_NBUCKETS; i++) {
		double lo = (double)fb_bucket_lo(i), hi = (double)fb_bucket_hi(i);

		if (!h->buckets[i] || lo <= cut)
			continue;
		if (i + 1 >= FB_NBUCKETS || hi > (double)h->max)
			hi = (double)h->max;
		sum -= (double)h->buckets[i] * (lo + hi) / 2;
		n -= h->buckets[i] < n ? h->buckets[i] : n;
	}
	return n && sum > 0 ? sum / (double)n : fb_hist_mean(h);
}

/*
 * The value below which p percent of the samples fall: find the bucket
 * holding rank p/100 * count and interpolate linearly inside it, clamped
 * to the observed min and max (exact when min and max are set).
 */
double fb_hist_percentile(const struct fb_hist *h, double p)
{
	uint64_t total = 0, seen = 0;
	double rank, lo, hi, v;

	for (unsigned int i = 0; i < FB_NBUCKETS; i++)
		total += h->buckets[i];
	if (!total)
		return 0.0;
	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	rank = p / 100.0 * (double)total;
	for (unsigned int i = 0; i < FB_NBUCKETS; i++) {
		uint64_t n = h->buckets[i];

		if (!n || (double)(seen + n) < rank) {
			seen += n;
			continue;
		}
		lo = (double)fb_bucket_lo(i);
		hi = (double)fb_bucket_hi(i) + 1.0;
		v = lo + (hi - lo) * ((rank - (double)seen) / (double)n);
		if (h->max && v > (double)h->max)
			v = (double)h->max;
		if (h->min && v < (double)h->min)
			v = (double)h->min;
		return v;
	}
	return (double)h->max;
}

void fb_hist_add(struct fb_hist *h, uint64_t v)
{
	h->buckets[fb_bucket(v)]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

void fb_hist_merge(struct fb_hist *dst, const struct fb_hist *src)
{
	if (!src->count)
		return;
	for (unsigned int i = 0; i < FB_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	if (!dst->unit[0])
		memcpy(dst->unit, src->unit, sizeof(dst->unit));
}
