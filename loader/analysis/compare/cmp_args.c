// SPDX-License-Identifier: GPL-2.0
/*
 * cmp_args.c - what compare, report and gate share on the command line: the
 * argp children fb_cmp_argp (--alpha, --base-arm, --new-arm,
 * --allow-param-diff, the operands) and fb_cmp_effect_argp (--min-effect),
 * and opening the sides they name (cmp_args.h).
 */
#include <argp.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/cmp_args.h"
#include "analysis/compare/gatedefs.h"
#include "analysis/compare/hosts.h"
#include "util/cli.h"
#include "util/util.h"

enum { OPT_BASE_ARM = 0x300, OPT_NEW_ARM, OPT_PARAM_DIFF };

static const struct argp_option cmp_options[] = {
	{ NULL, 0, NULL, 0, "Comparison:", 20 },
	{ "alpha", 'a', "A", 0, "significance level (compare, report: 0.05, at most 0.5; gate: "
	  "the family-wise false-fail bound, 0.01, at most 0.25)", 0 },
	{ "base-arm", OPT_BASE_ARM, "NAME", 0, "the arm of AB_DIR that is BASE (baseline)", 0 },
	{ "new-arm", OPT_NEW_ARM, "NAME", 0, "the arm of AB_DIR that is NEW (patched)", 0 },
	{ "allow-param-diff", OPT_PARAM_DIFF, NULL, 0, "gate arms that ran with different "
	  "workload parameters (gate refuses them; compare and report warn)", 0 },
	{ 0 },
};

static error_t cmp_parse(int key, char *arg, struct argp_state *state)
{
	struct fb_cmp_args *a = state->input;

	switch (key) {
	case 'a':
		if (!fb_parse_double_arg(arg, 1e-9, a->alpha_max, &a->alpha))
			return 0;
		fb_err("%s: --alpha wants a number in (0, %g], got '%s'", a->cmd, a->alpha_max, arg);
		return EINVAL;
	case OPT_BASE_ARM:
		a->base_arm = arg;
		return 0;
	case OPT_NEW_ARM:
		a->new_arm = arg;
		return 0;
	case OPT_PARAM_DIFF:
		a->allow_param_diff = 1;
		return 0;
	case ARGP_KEY_ARG:
		if (a->nops < 2) {
			a->ops[a->nops++] = arg;
			return 0;
		}
		/* fall through */
	case ARGP_KEY_NO_ARGS:
		fb_err("%s: expected BASE NEW, or one ab directory (see foliobench %s --help)",
		       a->cmd, a->cmd);
		return EINVAL;
	}
	return ARGP_ERR_UNKNOWN;
}

const struct argp fb_cmp_argp = { cmp_options, cmp_parse, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option effect_options[] = {
	{ "min-effect", 'e', "PCT", 0, "smallest change, in percent, that a verdict calls a "
	  "change (2)", 20 },
	{ 0 },
};

static error_t effect_parse(int key, char *arg, struct argp_state *state)
{
	struct fb_cmp_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = a;
		return 0;
	case 'e':
		if (!fb_parse_double_arg(arg, 0, 1000, &a->min_effect))
			return 0;
		fb_err("%s: --min-effect wants a percentage in [0, 1000], got '%s'", a->cmd, arg);
		return EINVAL;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp_child effect_children[] = {
	{ &fb_cmp_argp, 0, NULL, 0 },
	{ 0 },
};

const struct argp fb_cmp_effect_argp = {
	effect_options, effect_parse, NULL, NULL, effect_children, NULL, NULL,
};

/* The first workload parameter one side's first round has and the other's lacks. */
static const char *param_diff(const struct fb_result *x, const struct fb_result *y)
{
	for (int i = 0; i < x->nparams; i++) {
		int k = 0;

		while (k < y->nparams && strcmp(x->params[i], y->params[k]))
			k++;
		if (k == y->nparams)
			return x->params[i];
	}
	return NULL;
}

/*
 * Arms run with different workload parameters measure different work:
 * compare warns, gate refuses (exit 2) unless --allow-param-diff.
 */
static int check_params(const struct fb_cmp *c, const struct fb_cmp_args *a)
{
	const struct fb_result *b = c->base.r[0], *n = c->new.r[0];
	const char *d = param_diff(b, n), *side = "BASE";

	if (!d) {
		d = param_diff(n, b);
		side = "NEW";
	}
	if (!d)
		return 0;
	if (strcmp(a->cmd, "gate") || a->allow_param_diff) {
		fprintf(stderr, "foliobench: warning: %s: the arms ran with different workload "
			"parameters (%s only in %s)\n", a->cmd, d, side);
		return 0;
	}
	fb_err("gate: the arms ran with different workload parameters (%s only in %s); "
	       "--allow-param-diff to gate them anyway", d, side);
	return 2;
}

int fb_cmp_open_args(struct fb_cmp *c, const struct fb_cmp_args *a)
{
	char err[512];

	memset(c, 0, sizeof(*c));
	if (fb_cmp_open(c, a->nops, (char **)a->ops, a->base_arm, a->new_arm, a->alpha,
			a->min_effect, 0, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("%s: %s", a->cmd, err);
		return 2;
	}
	/* merged shards: one machine unlike the rest, by the gate's defaults */
	fb_cmp_warn_hosts(stderr, c, a->cmd, fb_gate_metrics_for(c, NULL), fb_gate_thr_for(c, -1));
	fb_cmp_warn_mixed(stderr, c, a->cmd);	/* kernels, hosts, CPUs, versions */
	return c->base.n && c->new.n ? check_params(c, a) : 0;
}
