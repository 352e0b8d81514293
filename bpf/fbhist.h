/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbhist.h - layout shared by the BPF programs and the loader.
 *
 * Histograms are log-linear: values below 2^FB_SUB_BITS get a bucket each,
 * above that every power of two is split into 2^FB_SUB_BITS equal buckets,
 * so a bucket is at most 1/32 (3.1%) of its lower bound wide.
 */
#ifndef FBHIST_H
#define FBHIST_H

#define FB_SUB_BITS	5
#define FB_SUB		(1u << FB_SUB_BITS)
#define FB_MAX_LOG2	41			/* values up to 2^41 ns (36 min) */
#define FB_NBUCKETS	(FB_SUB + (FB_MAX_LOG2 - FB_SUB_BITS) * FB_SUB)
#define FB_MAX_SLOTS	48			/* histograms per run */

struct fb_stat {
	unsigned long long count;
	unsigned long long sum;
	unsigned long long min;		/* 0 means unset */
	unsigned long long max;
};

/* floor(log2(v)) for v > 0, without loops or clz (BPF has neither). */
static inline unsigned int fb_log2(unsigned long long v)
{
	unsigned int r = 0, s;

	s = (v > 0xffffffffULL) << 5; v >>= s; r |= s;
	s = (v > 0xffffULL) << 4; v >>= s; r |= s;
	s = (v > 0xffULL) << 3; v >>= s; r |= s;
	s = (v > 0xfULL) << 2; v >>= s; r |= s;
	s = (v > 0x3ULL) << 1; v >>= s; r |= s;
	r |= (unsigned int)(v >> 1);
	return r;
}

static inline unsigned int fb_bucket(unsigned long long v)
{
	unsigned int e;

	if (v < FB_SUB)
		return (unsigned int)v;
	e = fb_log2(v);
	if (e >= FB_MAX_LOG2)
		return FB_NBUCKETS - 1;
	return FB_SUB + (e - FB_SUB_BITS) * FB_SUB +
	       (unsigned int)((v >> (e - FB_SUB_BITS)) - FB_SUB);
}

#endif /* FBHIST_H */
