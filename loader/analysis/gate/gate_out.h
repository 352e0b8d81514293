/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gate_out.h - what gate writes besides its metric lines (gate_out.c).
 */
#ifndef FB_GATE_OUT_H
#define FB_GATE_OUT_H

#include <stdio.h>

#include "analysis/compare/cmpmodel.h"

/*
 * The runs behind both sides' rounds that failed, were interrupted or are
 * missing (runs.h), under "gate: FAIL:" (NEW's fatal ones) or "gate:
 * UNKNOWN:", one line per run naming side, arm, round and why.
 */
void fb_gate_print_runs(FILE *f, const struct fb_cmp *c);

/* NEW's metrics in the Bencher Metric Format (docs/compare.md) into path; 0 or -1. */
int fb_gate_write_bmf(const struct fb_cmp *c, const char *path, char *err, size_t errlen);

#endif /* FB_GATE_OUT_H */
