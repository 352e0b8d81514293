/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp_args.h - the command line compare, report and gate share, and
 * opening the sides it names (cmp_args.c).
 */
#ifndef FB_CMP_ARGS_H
#define FB_CMP_ARGS_H

#include "analysis/compare/side.h"

/* compare's and report's defaults (docs/compare.md) */
#define FB_CMP_DEFAULT_ALPHA		0.05
#define FB_CMP_DEFAULT_MIN_EFFECT	2.0

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

#endif /* FB_CMP_ARGS_H */
