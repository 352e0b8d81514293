// SPDX-License-Identifier: GPL-2.0
/*
 * gatedefs.c - the gate's default metrics and threshold for the rounds'
 * clock mode, the --metrics presets, and matching metric ids against the
 * comma-separated globs (gatedefs.h).
 */
#include <string.h>

#include "analysis/compare/gatedefs.h"
#include "util/util.h"

const char fb_gate_metrics_default[] = FB_GATE_METRICS;

int fb_gate_match(const char *id, const char *globs)
{
	return fb_match_globs(id, globs);
}

const char *fb_gate_metrics_preset(const char *s)
{
	if (!s || !strcmp(s, "default"))
		return fb_gate_metrics_default;
	if (!strcmp(s, "p50"))
		return FB_GATE_METRICS_P50;
	if (!strcmp(s, "tail"))
		return FB_GATE_METRICS_TAIL;
	return s;
}

const char *fb_gate_metrics_for(const struct fb_cmp *c, const char *m)
{
	if (m && m != fb_gate_metrics_default)
		return m;	/* chosen with --metrics */
	if (fb_cmp_icount(c))
		return FB_GATE_METRICS_ICOUNT;
	return FB_GATE_METRICS;
}

double fb_gate_thr_for(const struct fb_cmp *c, double thr)
{
	if (thr >= 0)
		return thr;	/* chosen with --max-regression */
	return fb_cmp_icount(c) ? FB_GATE_THR_PCT_ICOUNT : FB_GATE_THR_PCT;
}
