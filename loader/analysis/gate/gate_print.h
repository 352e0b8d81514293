/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gate_print.h - the gate's text report (gate_print.c).
 */
#ifndef FB_GATE_PRINT_H
#define FB_GATE_PRINT_H

#include <stdio.h>

#include "analysis/gate/gatemodel.h"

/*
 * One gated metric: its state word, BASE -> NEW, the change, and how it
 * was decided (exact count, test and interval, or why not tested).
 */
void fb_gate_print_gated(FILE *f, const struct fb_gated *g, double beta, int width);

/*
 * The verdict line ("gate: pass/FAIL/UNKNOWN: ..."), the metrics behind a
 * fail or an unknown, the declared trades, and for an unknown the rounds
 * each undecided metric would need.
 */
void fb_gate_print_verdict(FILE *f, const struct fb_gate *gt, const struct fb_gate_opts *o,
			   const struct fb_cmp *c, int width);

#endif /* FB_GATE_PRINT_H */
