// SPDX-License-Identifier: GPL-2.0
/*
 * test_changepoint.c - the E-divisive detector (analysis/history/changepoint.c) on
 * hand-made series and on the synthetic cases `foliobench history
 * selftest` prints (analysis/history/cp_synth.c): detection rate and false change
 * points per 100 points against bounds.  Broken detectors (a test that
 * accepts every split, no rank transform under outliers) are shown to
 * fail those bounds, and so does the detector without its kappa search.
 */
#include <math.h>
#include <string.h>

#include "analysis/history/cp_synth.h"
#include "tap.h"

/* lowest detection rate and highest false change points per 100 points, per case */
static const struct {
	const char *name;
	double min_detect, max_false;
} bounds[] = {
	{ "no step", NAN, 0.2 },
	{ "no step, 3% outliers", NAN, 0.2 },
	{ "1 step of 1 sd", 0.30, 0.5 },
	{ "1 step of 2 sd", 0.85, 0.5 },
	{ "1 step of 2 sd, 3% outliers", 0.80, 0.5 },
	{ "2 steps of 2 sd", 0.85, 0.5 },
	{ "2 steps of 3 sd", 0.90, 0.5 },
	{ "2 steps of 3 sd, 3% outliers", 0.88, 0.5 },
	{ "linear drift of 2 sd, no step", NAN, NAN },	/* reported, not a step */
};

static void test_split(void)
{
	double x[20], q;
	int tau;

	for (int i = 0; i < 20; i++)
		x[i] = i < 12 ? 1.0 + 0.01 * (i % 3) : 5.0 + 0.01 * (i % 3);
	tau = fb_cp_best_split(x, 20, 5, &q);
	CHECKF(tau == 12 && q > 0, "best split of a clean step is at the step (tau %d, Q %.2f)",
	       tau, q);
	CHECKF(fb_cp_best_split(x, 9, 5, &q) == -1, "no split when n < 2 * min_size");
}

static void test_edges(const struct fb_cp_opts *o)
{
	double x[50];
	struct fb_cp cp[8];

	for (int i = 0; i < 50; i++)
		x[i] = 7;
	CHECKF(fb_changepoints(x, 50, o, cp, 8) == 0, "constant series: no change point");
	CHECKF(fb_changepoints(x, 3, o, cp, 8) == 0, "3 points: no change point");
	CHECKF(fb_changepoints(x, 0, o, cp, 8) == 0, "empty series: no change point");
}

/* 40 rounds at 1000 +- 1%, then 40 at 1100 +- 1%: one step of +10% at 40 */
static void test_one_step(const struct fb_cp_opts *o)
{
	struct fb_cp a[8], b[8];
	struct fb_cp_opts o2 = *o;
	double x[80];
	int na, nb;

	for (int i = 0; i < 80; i++)
		x[i] = (i < 40 ? 1000 : 1100) * (1 + 0.01 * sin(i * 2.3));
	na = fb_changepoints(x, 80, o, a, 8);
	CHECKF(na == 1 && a[0].pos == 40, "a +10%% step is found at its round (%d found, at %d)",
	       na, na > 0 ? a[0].pos : -1);
	if (na != 1)
		return;
	CHECKF(fabs(a[0].pct - 10) < 1.5 && a[0].ci_lo > 5 && a[0].ci_hi < 15 &&
	       a[0].ci_lo <= a[0].pct && a[0].pct <= a[0].ci_hi,
	       "step size %+.2f%%, 95%% CI %+.2f%% .. %+.2f%% holds +10%%", a[0].pct, a[0].ci_lo,
	       a[0].ci_hi);
	CHECKF(a[0].lo == 0 && a[0].hi == 80 && a[0].p < o->alpha,
	       "segments [0, 40) and [40, 80), p %.3f < alpha", a[0].p);
	nb = fb_changepoints(x, 80, o, b, 8);
	CHECKF(nb == na && a[0].pos == b[0].pos && a[0].p == b[0].p && a[0].q == b[0].q &&
	       a[0].ci_lo == b[0].ci_lo && a[0].ci_hi == b[0].ci_hi,
	       "same seed, same change point, p and CI, bit for bit");
	o2.seed ^= 0x1234;
	nb = fb_changepoints(x, 80, &o2, b, 8);
	CHECKF(nb == 1 && b[0].pos == 40, "another seed finds the same step");
}

static void test_rates(const struct fb_cp_opts *o)
{
	for (int i = 0; i < fb_cp_ncases; i++) {
		const struct fb_cp_case *c = &fb_cp_cases[i];
		struct fb_cp_rates r;
		int ok;

		if (i >= (int)(sizeof(bounds) / sizeof(bounds[0])) ||
		    strcmp(bounds[i].name, c->name)) {
			CHECKF(0, "bounds table matches case %d (%s)", i, c->name);
			continue;
		}
		if (fb_cp_eval(&c->s, c->series, c->tol, c->seed, o, &r)) {
			CHECKF(0, "%s: evaluation ran", c->name);
			continue;
		}
		if (isnan(bounds[i].min_detect) && isnan(bounds[i].max_false)) {
			printf("# %s: %.2f change points per 100 points (not a step: no bound)\n",
			       c->name, r.false_per_100);
			continue;
		}
		ok = isnan(bounds[i].max_false) || r.false_per_100 <= bounds[i].max_false;
		if (!isnan(bounds[i].min_detect))
			ok = ok && r.detect_rate >= bounds[i].min_detect;
		if (r.steps)
			CHECKF(ok, "%s: detected %.1f%% of %d steps (>= %.0f%%), %.2f false per"
			       " 100 points (<= %.2f)", c->name, 100 * r.detect_rate, r.steps,
			       100 * bounds[i].min_detect, r.false_per_100, bounds[i].max_false);
		else
			CHECKF(ok, "%s: %.2f false change points per 100 points (<= %.2f) in %d"
			       " series", c->name, r.false_per_100, bounds[i].max_false, r.series);
	}
}

/* The bounds catch broken detectors. */
static void test_broken(const struct fb_cp_opts *o)
{
	struct fb_cp_opts bad = *o;
	struct fb_cp_rates r;

	bad.alpha = 0.999;	/* the permutation test accepts (nearly) every split */
	bad.perms = 19;
	if (fb_cp_eval(&fb_cp_cases[0].s, 20, 3, 1, &bad, &r) == 0)
		CHECKF(r.false_per_100 > bounds[0].max_false,
		       "a detector without a working significance test fails the no-step bound"
		       " (%.2f false per 100 points)", r.false_per_100);
	bad = *o;
	bad.ranks = 0;		/* raw values: outliers dominate the energy distance */
	if (fb_cp_eval(&fb_cp_cases[4].s, fb_cp_cases[4].series, fb_cp_cases[4].tol,
		       fb_cp_cases[4].seed, &bad, &r) == 0)
		CHECKF(r.detect_rate < bounds[4].min_detect,
		       "without ranks, outliers sink detection below the bound (%.1f%% on %s)",
		       100 * r.detect_rate, fb_cp_cases[4].name);
	bad = *o;
	bad.kappa = 0;		/* right part always to the end: a step back hides a step */
	if (fb_cp_eval(&fb_cp_cases[6].s, fb_cp_cases[6].series, fb_cp_cases[6].tol,
		       fb_cp_cases[6].seed, &bad, &r) == 0)
		CHECKF(r.detect_rate < bounds[6].min_detect,
		       "without the kappa search, detection falls below the bound (%.1f%% on %s)",
		       100 * r.detect_rate, fb_cp_cases[6].name);
}

int main(void)
{
	struct fb_cp_opts o;

	fb_cp_defaults(&o);
	test_split();
	test_edges(&o);
	test_one_step(&o);
	test_rates(&o);
	test_broken(&o);
	return tap_done();
}
