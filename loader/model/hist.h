/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/hist.h - a latency or size histogram as results hold it, and its math
 * (hist.c).  Buckets: fbhist.h, shared with the BPF side.
 */
#ifndef FB_HIST_H
#define FB_HIST_H

#include <stdint.h>

#include "fbhist.h"

/* ---- histograms (results hold them; the math in hist.c) ---- */
struct fb_hist {
	char unit[8];			/* "ns" */
	uint64_t count, sum, min, max;
	uint64_t buckets[FB_NBUCKETS];	/* dense here, sparse in JSON */
};

uint64_t fb_bucket_lo(unsigned int idx);	/* smallest value in bucket */
uint64_t fb_bucket_hi(unsigned int idx);	/* largest value in bucket */
/* p in [0,100]; linear interpolation inside the bucket; 0 if empty. */
double fb_hist_percentile(const struct fb_hist *h, double p);
double fb_hist_mean(const struct fb_hist *h);
/* The mean of the samples up to factor x the median (outliers left out). */
double fb_hist_core_mean(const struct fb_hist *h, double factor);
void fb_hist_add(struct fb_hist *h, uint64_t v);	/* userspace samples */
void fb_hist_merge(struct fb_hist *dst, const struct fb_hist *src);

#endif /* FB_HIST_H */
