/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gate.h - `foliobench gate` and one look of the sequential gate for
 * `ab --until-decided` (gate.c, I/O) over the gate model (gatemodel.h).
 */
#ifndef FB_GATE_H
#define FB_GATE_H

#include <stdio.h>

#include "analysis/gate/gatemodel.h"

/*
 * Look k of the sequential gate on the ab directory dir (arms base_arm/
 * and new_arm/), with the default gate options, printed to f as
 * `foliobench gate --looks` prints it (gate.c, I/O).  Returns the
 * decision; errors print one line and count as FB_SEQ_UNKNOWN.
 */
int fb_gate_look(FILE *f, const char *dir, const char *base_arm, const char *new_arm,
		 const struct fb_seq *sq, int look);

int cmd_gate(int argc, char **argv);
/*
 * --calibrate DIR...: writes noise_path (default DIRS[0]/noise.json); with
 * across, a directory of two builds adds to the build spread.  Exit status.
 */
int fb_gate_calibrate(char **dirs, int n, const char *base_arm, const char *new_arm,
		      const char *noise_path, int across);

#endif /* FB_GATE_H */
