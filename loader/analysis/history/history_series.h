/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_series.h - reading the history store: the rounds stored and the series
 * of each metric (history_series.c).
 */
#ifndef FB_HISTORY_SERIES_H
#define FB_HISTORY_SERIES_H

#include <stddef.h>

#include "analysis/history/history_db.h"

/* Calls fn for every stored round, ordered by started; stops when fn returns non-zero. */
int fb_hdb_rounds(struct fb_hdb *db, int (*fn)(const struct fb_hround *r, void *ctx), void *ctx);

#define FB_HIST_MAX_CPS	32	/* change points looked for in one series */

struct fb_hpoint {
	long long round;
	double v;
	char started[32], build_id[64], commit[64], label[64];
	char sha256[65], content[65];
};

struct fb_hseries {
	char metric[160];
	char unit[8];
	char arm[64];
	char params[256];
	char method[32];	/* the probe's observer; "": none or unknown */
	int lower_is_better;	/* 1, 0, or -1 for counts with no better direction */
	int n;
	struct fb_hpoint *p;
};

/*
 * Every series whose metric matches one of the globs (sqlite GLOB, "*"
 * if nglobs is 0) and whose arm is arm (NULL: any), ordered by metric,
 * arm, params, method; points by started (in one second: by the round
 * file's sha256, so every DB of the same files agrees).  A series is one
 * (metric, arm, params, method): values measured by different methods are
 * never in one series.  Returns the count (*out malloc'd; free with fb_hseries_free),
 * or -1 with err.
 */
int fb_hdb_series(struct fb_hdb *db, const char *const *globs, int nglobs, const char *arm,
		  struct fb_hseries **out, char *err, size_t errlen);
void fb_hseries_free(struct fb_hseries *s, int n);

/* "func:x:p50 [fsession]", or the metric alone when the method is ""; buf. */
const char *fb_hseries_name(const struct fb_hseries *s, char *buf, size_t len);

#endif /* FB_HISTORY_SERIES_H */
