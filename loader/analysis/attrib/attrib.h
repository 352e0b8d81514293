/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attrib.h - per-patch attribution: which patch of a series moved which
 * metric.  Input: a directory written by `foliobench ab --per-patch`, one
 * arm directory per prefix of the series (base, base+1, ..., base+1..N)
 * and per-patch.json naming them in order.
 *
 * Each step (prefix k-1 -> k) and the whole series (prefix 0 -> N) is one
 * comparison of compare.h (same rows, metrics, statistics and verdicts as
 * `foliobench compare`); the p-values of every cell of the table (each
 * probe's and workload's counts and main metric; not contention rows) form
 * one family, Holm-corrected, so a noisy cell keeps improved/regressed only if
 * it survives the correction.  Exact (deterministic) counts are decided
 * exactly and are not in the family.  Each metric's whole change is split
 * over the steps that decided a change; what those do not add up to is the
 * unexplained remainder (small steps, noise, and normalisation changes;
 * interactions between patches cannot be told apart from a patch's own
 * effect with prefixes only).
 */
#ifndef FB_ATTRIB_H
#define FB_ATTRIB_H

#include <stdio.h>

#include "analysis/compare/compare.h"

#define FB_ATTRIB_FILE		"per-patch.json"
#define FB_ATTRIB_MAX_STEPS	16

struct fb_attrib_cell {
	int have;		/* both prefixes have data */
	double from, to;	/* medians of the two prefixes (per op if per[0]) */
	double delta, pct;	/* to - from; percent of from */
	enum fb_verdict raw;	/* compare's verdict */
	enum fb_verdict v;	/* after the family-wise correction */
	int exact;		/* deterministic count: decided exactly */
	int tested;		/* has a p-value: in the Holm family */
	double p, p_holm;	/* two-sided U p, Holm-adjusted p */
	int na, nb;		/* rounds */
	char per[48];		/* normalised per this op counter */
};

struct fb_attrib_row {
	char kind[12];		/* func, lock, workload, ... (fb_row_kind_name) */
	char item[80];		/* probe, lock, workload name */
	char metric[48];	/* calls, mean, acquisitions, ops.X ... */
	char unit[8];
	int count;		/* a count metric (else latency/time) */
	int primary;		/* the row's main metric in compare */
	int show;		/* in the table (see attrib.c: attrib_show) */
	struct fb_attrib_cell step[FB_ATTRIB_MAX_STEPS];
	struct fb_attrib_cell whole;
	double share[FB_ATTRIB_MAX_STEPS];	/* of whole.delta; NaN if not decided */
	double explained, unexplained;	/* sum of decided steps; whole - that */
};

struct fb_attrib {
	char dir[512];
	char series[64], clock[16], flavour[16];
	int nsteps, from;	/* patches from .. from + nsteps - 1 */
	char prefix[FB_ATTRIB_MAX_STEPS + 1][64];	/* arm directories, [0] the base */
	char patch[FB_ATTRIB_MAX_STEPS + 1][128];	/* patch file of step k at [k] */
	int rounds[FB_ATTRIB_MAX_STEPS + 1];		/* results per prefix */
	double alpha, min_effect;
	int family;		/* cells in the Holm family */
	int nrows, shown;
	struct fb_attrib_row *rows;
};

/* 1 if dir holds per-patch.json (an `ab --per-patch` directory). */
int fb_attrib_is_dir(const char *dir);

/* Builds the table of dir; 0, or -1 with one line in err.  Free either way. */
int fb_attrib_open(struct fb_attrib *a, const char *dir, double alpha, double min_effect,
		   char *err, size_t errlen);
void fb_attrib_free(struct fb_attrib *a);

#endif /* FB_ATTRIB_H */
