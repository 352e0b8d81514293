/* SPDX-License-Identifier: GPL-2.0 */
/*
 * side.h - reading the rounds of a side from disk into the model.
 *
 * fb_side_load() is the one place that turns a path (one results file, or
 * an arm directory of round files) into a struct fb_side; everything else
 * in analysis works on loaded sides.
 */
#ifndef FB_SIDE_H
#define FB_SIDE_H

#include <stddef.h>

#include "analysis/compare/cmpmodel.h"

/*
 * Loads one side: a results file, or a directory of *.json rounds
 * (recursively, not ab.json); a directory's rounds used and dropped are
 * listed on stderr unless quiet.  Returns 0, or -1 with one line in err;
 * call fb_side_free() either way.
 */
int fb_side_load(struct fb_side *s, const char *path, int quiet, char *err, size_t errlen);

/* fb_cmp_open() flags: that side's rounds were listed already (per-patch steps) */
#define FB_CMP_QUIET_BASE	0x1u
#define FB_CMP_QUIET_NEW	0x2u

/*
 * Fills c from one (ab directory: its baseline/ and patched/, or the arms
 * named by base_arm/new_arm) or two paths, and builds the rows.  Returns
 * 0, or -1 with one line in err.  Call fb_cmp_free() either way.
 */
int fb_cmp_open(struct fb_cmp *c, int npaths, char **paths,
		const char *base_arm, const char *new_arm,
		double alpha, double min_effect, unsigned int flags, char *err, size_t errlen);

/*
 * 0 if no round of NEW is a round of BASE (the same file, or a copy: the
 * same bytes); -1 with one line in err naming the pair.  The gate refuses
 * such a comparison: one boot measured twice is not two arms.
 */
int fb_cmp_distinct(const struct fb_cmp *c, char *err, size_t errlen);

#endif /* FB_SIDE_H */
