/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_gate.h - `gate --history DB`: does the new run start a regressing step
 * in its history? (history_gate.c)
 */
#ifndef FB_HISTORY_GATE_H
#define FB_HISTORY_GATE_H

#include <stdio.h>

#include "analysis/history/changepoint.h"

/*
 * `gate --history DB`: the rounds of arm (NULL: "patched") in ab_dir
 * appended to their series in db (rounds already stored are not counted
 * twice); fails when a change point starts at one of the new rounds and
 * makes the metric worse with a CI that excludes 0, unless the reference
 * arm (NULL: "baseline"; "": none) in ab_dir steps the same way at the same
 * rounds: then the host changed, not the kernel.  Prints one line to f.
 * Returns 0 pass, 1 regressing step, 2 bad input (one line on stderr), 3
 * unknown: no series could be checked (none in the history, or none with
 * a new value and --min-size rounds of history); never 0 on none checked.
 */
int fb_history_gate(const char *db, const char *ab_dir, const char *arm, const char *ref_arm,
		    const struct fb_cp_opts *o, FILE *f);
/* The same, with only the newest `last` rounds of each series as history (0: all). */
int fb_history_gate_last(const char *db, const char *ab_dir, const char *arm,
			 const char *ref_arm, int last, int by_added, const struct fb_cp_opts *o,
			 FILE *f);

#endif /* FB_HISTORY_GATE_H */
