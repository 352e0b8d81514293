/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - the subcommand compare (compare.c), a thin client of the
 * comparison model (cmpmodel.h), the side loader (side.h), the renderer
 * (render.h) and the command line it shares with report and gate
 * (cmp_args.h).
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "analysis/compare/cmp_args.h"
#include "analysis/compare/cmpmodel.h"
#include "analysis/compare/render.h"
#include "analysis/compare/side.h"

/*
 * What `foliobench compare DIR` prints (text), for the end of an ab run:
 * the arms base_arm/ and new_arm/ of the ab directory dir.  0, or -1 with
 * one line on stderr.
 */
int fb_cmp_summary(FILE *f, const char *dir, const char *base_arm, const char *new_arm);

int cmd_compare(int argc, char **argv);

#endif /* FB_COMPARE_H */
