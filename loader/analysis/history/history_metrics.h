/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_metrics.h - the metrics of one round as the history stores them
 * (history_metrics.c).
 */
#ifndef FB_HISTORY_METRICS_H
#define FB_HISTORY_METRICS_H

#include <stddef.h>

#include "model/fb.h"

/*
 * Calls emit(metric, method, unit, value) for each metric compare would show
 * for r.  method: the probe row's observer method ("fentry", "fsession",
 * "lock_stat", ...; the row's "method" in the results file) for func, lock
 * and probe metrics, "" for workload, contention and extra metrics.
 */
void fb_hist_metrics(const struct fb_result *r,
		     void (*emit)(void *ctx, const char *metric, const char *method,
				  const char *unit, double v),
		     void *ctx);
/* 1 lower is better, 0 higher is better, -1 neither (counts), from the name. */
int fb_hist_metric_direction(const char *metric, const char *unit);
/* "sysfs.devices=100 nft.x=1": r's params joined, sorted */
void fb_hist_params(const struct fb_result *r, char *buf, size_t len);

/* The metrics `history report` and `gate --history` look at by default. */
extern const char *const fb_hist_default_globs[];
extern const int fb_hist_ndefault_globs;

#endif /* FB_HISTORY_METRICS_H */
