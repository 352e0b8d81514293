/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare_cmd.h - the subcommand compare (compare_cmd.c) and ab's summary:
 * the comparison model with the gate's verdict on each gated row
 * (analysis/gate/rowverdict.h), so compare, report and gate say one word
 * for one statistic.
 */
#ifndef FB_COMPARE_CMD_H
#define FB_COMPARE_CMD_H

#include <stdio.h>

/*
 * What `foliobench compare DIR` prints (text), for the end of an ab run:
 * the arms base_arm/ and new_arm/ of the ab directory dir.  0, or -1 with
 * one line on stderr.
 */
int fb_cmp_summary(FILE *f, const char *dir, const char *base_arm, const char *new_arm);

int cmd_compare(int argc, char **argv);

#endif /* FB_COMPARE_CMD_H */
