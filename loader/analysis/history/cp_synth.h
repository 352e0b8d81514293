/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cp_synth.h - synthetic series with known steps, and the change-point
 * detector's rates on them (cp_synth.c).
 */
#ifndef FB_CP_SYNTH_H
#define FB_CP_SYNTH_H

#include <stdint.h>

#include "analysis/history/changepoint.h"

struct fb_cp_synth {
	int n;			/* points per series */
	int nsteps;		/* known steps per series, spaced >= min_gap */
	int min_gap;
	double step_sd;		/* step size in noise standard deviations */
	double outlier_frac;	/* share of points made outliers (x1.5 .. x3) */
	double drift_sd;	/* linear drift over the series, in sd (0: none) */
};

struct fb_cp_rates {
	int series, points, steps, found, false_cps;
	double detect_rate;	/* found / steps */
	double false_per_100;	/* false change points per 100 points */
};

/*
 * Generates `series` series of s (base 1000, noise sd 20, i.e. CV 2%),
 * runs the detector and scores it: a known step counts as found when a
 * change point lies within tol points of it; every other change point is
 * false.  Deterministic for seed.
 */
int fb_cp_eval(const struct fb_cp_synth *s, int series, int tol, uint64_t seed,
	       const struct fb_cp_opts *o, struct fb_cp_rates *out);

/* The cases `history selftest` prints and tests/unit/test_changepoint.c asserts. */
struct fb_cp_case {
	const char *name;
	struct fb_cp_synth s;
	int series, tol;
	uint64_t seed;
};

extern const struct fb_cp_case fb_cp_cases[];
extern const int fb_cp_ncases;

#endif /* FB_CP_SYNTH_H */
