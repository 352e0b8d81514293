/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attrib_render.h - the per-patch attribution table (attrib.h) printed, and
 * the report of a per-patch directory (attrib_render.c).
 */
#ifndef FB_ATTRIB_RENDER_H
#define FB_ATTRIB_RENDER_H

#include <stdio.h>

#include "analysis/attrib/attrib.h"

/* The table: FB_FMT_TEXT, FB_FMT_MD, FB_FMT_HTML (a fragment) or FB_FMT_CSV. */
void fb_attrib_print(FILE *f, const struct fb_attrib *a, enum fb_fmt fmt);

/*
 * `foliobench report DIR` on a per-patch directory: writes OUT/report.md,
 * OUT/report.html and OUT/attribution.csv (OUT: reports/<basename of DIR>
 * if out is NULL), prints the text table; cmd is the command line for the
 * reports.  Returns the exit status (0, or 2 after one error line).
 */
int fb_attrib_report(const char *dir, const char *out, double alpha, double min_effect,
		     const char *cmd);

#endif /* FB_ATTRIB_RENDER_H */
