/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - the subcommands compare, report and gate, and the command
 * line they share.  They are thin clients of the comparison model
 * (model.h), the side loader (side.h) and the renderer (render.h).
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "analysis/model.h"
#include "analysis/render.h"
#include "analysis/side.h"

/* compare's and report's defaults (docs/compare.md) */
#define FB_CMP_DEFAULT_ALPHA		0.05
#define FB_CMP_DEFAULT_MIN_EFFECT	2.0

/*
 * What `foliobench compare DIR` prints (text), for the end of an ab run:
 * the arms base_arm/ and new_arm/ of the ab directory dir.  0, or -1 with
 * one line on stderr.
 */
int fb_cmp_summary(FILE *f, const char *dir, const char *base_arm, const char *new_arm);

/* Option value in [lo, hi]: 0, or -1 if not a number or out of range. */
int fb_parse_double_arg(const char *s, double lo, double hi, double *out);

/*
 * Options that compare, report and gate share: --alpha, --min-effect,
 * --base-arm, --new-arm (getopt values 'a', 'e', 'B', 'N'; FB_CMP_LONGOPTS
 * lists them for a struct option table).  Set the defaults, pass every
 * getopt value to fb_cmp_arg(), then open with fb_cmp_open_args().
 */
#define FB_CMP_LONGOPTS \
	{ "alpha", required_argument, NULL, 'a' }, \
	{ "min-effect", required_argument, NULL, 'e' }, \
	{ "base-arm", required_argument, NULL, 'B' }, \
	{ "new-arm", required_argument, NULL, 'N' }, \
	{ "allow-param-diff", no_argument, NULL, 'D' }

struct fb_cmp_args {
	const char *cmd;	/* "compare", "report", "gate": for messages */
	double alpha, alpha_max, min_effect;
	const char *base_arm, *new_arm;
	int allow_param_diff;	/* --allow-param-diff: gate accepts arms run differently */
};

/*
 * A getopt value the command did not handle itself: 0 if it was one of the
 * shared options, else -1 with one line printed (bad value, or opt, the
 * option as typed, is unknown).
 */
int fb_cmp_arg(struct fb_cmp_args *a, int o, const char *arg, const char *opt);

/*
 * The operands after getopt (one ab directory, or BASE NEW) into c.
 * Returns 0, or 2 (the exit status) with one line printed; call
 * fb_cmp_free() either way.
 */
int fb_cmp_open_args(struct fb_cmp *c, const struct fb_cmp_args *a, int argc, char **argv);

/* Replaces control characters (from names in files) so a message stays one line. */
void fb_one_line(char *s);

/* subcommands: compare.c, report.c, gate.c */
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gate(int argc, char **argv);

#endif /* FB_COMPARE_H */
