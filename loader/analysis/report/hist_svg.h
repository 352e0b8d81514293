/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist_svg.h - the report's histograms (hist_svg.c): per probe statistic,
 * BASE and NEW merged over their rounds and overlaid as densities on a
 * log-x axis, as one self-contained SVG.
 */
#ifndef FB_HIST_SVG_H
#define FB_HIST_SVG_H

#include <stdio.h>

#include "analysis/compare/compare.h"

struct fb_hpair {
	char probe[64], stat[16];
	struct fb_hist h[2];	/* merged over rounds: base, new */
	int rounds[2];		/* rounds with samples of this statistic */
};

/* The statistics with samples on either side into *out (calloc'd); count, or -1. */
int fb_hist_collect(const struct fb_cmp *c, struct fb_hpair **out);

/*
 * One <svg>: title, legend (samples, rounds, median in the statistic's
 * unit), grid, labelled x ticks in that unit (at least two), axis titles.
 */
void fb_svg_hist(FILE *f, const struct fb_hpair *hp, const char *const names[2]);

#endif /* FB_HIST_SVG_H */
