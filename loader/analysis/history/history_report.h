/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_report.h - change points of a stored series, and `history report`
 * (history_report.c).
 */
#ifndef FB_HISTORY_REPORT_H
#define FB_HISTORY_REPORT_H

#include <stddef.h>

#include "analysis/history/changepoint.h"
#include "analysis/history/history_series.h"

#define FB_HIST_KTOL	3	/* rounds: a change point "at" a kernel change */

/* Change points of s (values in time order) into cp; count or -1. */
int fb_hist_detect(const struct fb_hseries *s, const struct fb_cp_opts *o, struct fb_cp *cp,
		   int max);
/* "step at #12 (2026-..): 1200 -> 1350 ns, +12.5% [CI ..], p 0.005; build a -> build b" */
void fb_hist_cp_line(const struct fb_hseries *s, const struct fb_cp *c, char *buf, size_t len);

/*
 * Kernel changes in s (a point whose build id differs from the previous
 * one's), how many of them have a change point within tol rounds, and how
 * many change points lie within tol rounds of one.
 */
struct fb_hist_kstat {
	int changes, found, cps_at;
};
void fb_hist_kernel_steps(const struct fb_hseries *s, const struct fb_cp *cp, int ncp, int tol,
			  struct fb_hist_kstat *k);

/*
 * `history report`: out/history.md and out/history.html for the series
 * matching globs (default fb_hist_default_globs) with 3 rounds or more.
 * Returns 0 or 1 (message printed).
 */
int fb_hist_report(struct fb_hdb *db, const char *dbpath, const char *out,
		   const char *const *globs, int nglobs, const char *arm,
		   const struct fb_cp_opts *o);

#endif /* FB_HISTORY_REPORT_H */
