/* SPDX-License-Identifier: GPL-2.0 */
/*
 * junit.h - the gate's verdict as JUnit XML (`foliobench gate --junit`):
 * one testsuite, one testcase per gated metric and per declared trade;
 * a regression, lost data or an expectation not met is a <failure> with
 * the measured change and interval, an undecided metric is <skipped> with
 * the reason (the gate's unknown), everything else passes.
 * With --expect, one testcase per cover-letter claim (classname
 * foliobench.claims, name claim:FILE:LINE): not met fails, unknown or not
 * measured is skipped with why.
 */
#ifndef FB_JUNIT_H
#define FB_JUNIT_H

#include <stdio.h>

#include "analysis/gate/gatemodel.h"

/* Writes the XML to f; 0, or -1 on a write error. */
int fb_junit_write(FILE *f, const struct fb_gate *gt, const struct fb_cmp *c,
		   const struct fb_gate_opts *o);

/*
 * The XML as the file path, whole or not at all (util/outfile.h); 0, or -1
 * with what was not written in err.
 */
int fb_junit_save(const char *path, const struct fb_gate *gt, const struct fb_cmp *c,
		  const struct fb_gate_opts *o, char *err, size_t errlen);

#endif /* FB_JUNIT_H */
