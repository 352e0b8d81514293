// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - what compare, report and gate share on the command line: the
 * options --alpha, --min-effect, --base-arm, --new-arm and the operands
 * (compare.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/hosts.h"
#include "util/util.h"

void fb_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int fb_parse_double_arg(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

int fb_cmp_arg(struct fb_cmp_args *a, int o, const char *arg, const char *opt)
{
	switch (o) {
	case 'a':
		if (!fb_parse_double_arg(arg, 1e-9, a->alpha_max, &a->alpha))
			return 0;
		fb_err("%s: --alpha wants a number in (0, %g], got '%s'", a->cmd, a->alpha_max, arg);
		return -1;
	case 'e':
		if (!fb_parse_double_arg(arg, 0, 1000, &a->min_effect))
			return 0;
		fb_err("%s: --min-effect wants a percentage in [0, 1000], got '%s'", a->cmd, arg);
		return -1;
	case 'B':
		a->base_arm = arg;
		return 0;
	case 'N':
		a->new_arm = arg;
		return 0;
	case 'D':
		a->allow_param_diff = 1;
		return 0;
	}
	fb_err("%s: unknown option '%s' (see foliobench %s --help)", a->cmd, opt, a->cmd);
	return -1;
}

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

int fb_cmp_open_args(struct fb_cmp *c, const struct fb_cmp_args *a, int argc, char **argv)
{
	char err[512];

	memset(c, 0, sizeof(*c));
	if (argc - optind < 1 || argc - optind > 2) {
		fb_err("%s: expected BASE NEW, or one ab directory (see foliobench %s --help)",
		       a->cmd, a->cmd);
		return 2;
	}
	if (fb_cmp_open(c, argc - optind, argv + optind, a->base_arm, a->new_arm, a->alpha,
			a->min_effect, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("%s: %s", a->cmd, err);
		return 2;
	}
	fb_cmp_warn_hosts(stderr, c, a->cmd);	/* merged shards: one machine unlike the rest */
	return c->base.n && c->new.n ? check_params(c, a) : 0;
}
