/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - the subcommands compare, report and gate, and the command
 * line they share.  They are thin clients of the comparison model
 * (cmpmodel.h), the side loader (side.h) and the renderer (render.h).
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "analysis/compare/cmpmodel.h"
#include "analysis/compare/render.h"
#include "analysis/compare/side.h"

/* compare's and report's defaults (docs/compare.md) */
#define FB_CMP_DEFAULT_ALPHA		0.05
#define FB_CMP_DEFAULT_MIN_EFFECT	2.0

/*
 * What `foliobench compare DIR` prints (text), for the end of an ab run:
 * the arms base_arm/ and new_arm/ of the ab directory dir.  0, or -1 with
 * one line on stderr.
 */
int fb_cmp_summary(FILE *f, const char *dir, const char *base_arm, const char *new_arm);

/*
 * What compare, report and gate share on the command line: --alpha/-a,
 * --base-arm, --new-arm, --allow-param-diff and the operands (BASE NEW, or
 * one ab directory), in fb_cmp_argp; fb_cmp_effect_argp adds --min-effect/-e
 * (compare and report).  A command parses with fb_argp_parse_shared(), one
 * of them as the shared table and a struct fb_cmp_args (defaults set) as its
 * input, then opens with fb_cmp_open_args().
 */
struct fb_cmp_args {
	const char *cmd;	/* "compare", "report", "gate": for messages */
	double alpha, alpha_max, min_effect;
	const char *base_arm, *new_arm;
	int allow_param_diff;	/* --allow-param-diff: gate accepts arms run differently */
	char *ops[2];		/* the operands */
	int nops;
};

/* The operands of compare, report and gate, for their --help */
#define FB_CMP_ARGS_DOC		"BASE NEW\nAB_DIR"
#define FB_CMP_OPERANDS_DOC	"BASE and NEW are each a results file or a directory of " \
	"rounds (*.json, recursively); AB_DIR is an `foliobench ab` directory: its baseline/ " \
	"is BASE and its patched/ is NEW."

/* compare's and report's defaults */
#define FB_CMP_ARGS(name)	{ .cmd = (name), .alpha = FB_CMP_DEFAULT_ALPHA, \
				  .alpha_max = 0.5, .min_effect = FB_CMP_DEFAULT_MIN_EFFECT }

struct argp;
extern const struct argp fb_cmp_argp;
extern const struct argp fb_cmp_effect_argp;

/*
 * The operands (one ab directory, or BASE NEW) into c.  Returns 0, or 2
 * (the exit status) with one line printed; call fb_cmp_free() either way.
 */
int fb_cmp_open_args(struct fb_cmp *c, const struct fb_cmp_args *a);

/* subcommands: compare.c, report.c, gate.c */
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gate(int argc, char **argv);

#endif /* FB_COMPARE_H */
