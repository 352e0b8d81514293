/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gatedefs.h - what the gate looks at unless told otherwise: the metrics it
 * gates and its threshold, per clock mode of the rounds (gatedefs.c).  Below
 * the gate so that what only needs the defaults (the warning about unlike
 * machines, hosts.c) needs no gate.
 */
#ifndef FB_GATEDEFS_H
#define FB_GATEDEFS_H

#include "analysis/compare/cmpmodel.h"

/*
 * Defaults.  Per-call p50 and p90, not the mean: under TCG a boot's mean is
 * dominated by a few calls that took a timer interrupt (per-boot CV: median
 * 8.4% for the mean, 2.3% for the p50, one vCPU; reports/gate/README.md).
 */
#define FB_GATE_METRICS_P50	"func:*:p50,lock:*:hold_p50,workload:*:wall"
#define FB_GATE_METRICS_TAIL	"func:*:p90,func:*:p99,lock:*:hold_p99"
#define FB_GATE_METRICS		"func:*:p50,func:*:p90,lock:*:hold_p50,workload:*:wall"
/*
 * icount rounds (docs/vm.md): workload wall times are real-time waits that
 * icount does not measure (sleep=off jumps idle time to the next timer: an
 * A/A nft wall CV of 169%, reports/clock/), so the default leaves them out;
 * and the per-call median moves only when calls cross a 3% histogram
 * bucket, so the mean of the uninterrupted calls (cmean) is gated instead.
 */
#define FB_GATE_METRICS_ICOUNT	"func:*:cmean,lock:*:hold_p50"
#define FB_GATE_THR_PCT		5.0
/* icount rounds agree to 0.01-0.2% (reports/clock/): a 0.5% step is visible */
#define FB_GATE_THR_PCT_ICOUNT	0.5

/*
 * The default list as one object: --metrics default (or none) yields this
 * pointer, and fb_gate_metrics_for() swaps it for the clock mode's default.
 */
extern const char fb_gate_metrics_default[];

/* --metrics: a preset name (default, p50, tail; NULL: default) or the list itself */
const char *fb_gate_metrics_preset(const char *s);
/* The default metrics for these rounds' clock mode, or m if it was chosen. */
const char *fb_gate_metrics_for(const struct fb_cmp *c, const char *m);
/* The default threshold for these rounds' clock mode (thr if chosen, >= 0). */
double fb_gate_thr_for(const struct fb_cmp *c, double thr);
/* 1 if metric id matches one of the comma-separated globs. */
int fb_gate_match(const char *id, const char *globs);

#endif /* FB_GATEDEFS_H */
