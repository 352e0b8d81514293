// SPDX-License-Identifier: GPL-2.0
/*
 * cp_synth.c - synthetic series with known steps, and the detector's
 * detection rate and false change points on them (changepoint.h).  Used
 * by tests/unit/test_changepoint.c and `foliobench history selftest`, so
 * the rates the README quotes are the ones the test asserts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history/cp_synth.h"
#include "analysis/compare/stats.h"

#define SYN_BASE	1000.0
#define SYN_SD		20.0
#define SYN_MAX_STEPS	16

static double unif(struct fb_prng *r)
{
	return (double)(fb_prng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(struct fb_prng *r)
{
	double u = unif(r), v = unif(r);

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* nsteps positions in [gap, n - gap), sorted, at least gap apart; 0 or -1. */
static int step_positions(const struct fb_cp_synth *s, struct fb_prng *r, int *pos)
{
	for (int attempt = 0; attempt < 1000; attempt++) {
		int k, ok = 1;

		for (k = 0; k < s->nsteps; k++)
			pos[k] = s->min_gap +
				 (int)fb_prng_below(r, (uint32_t)(s->n - 2 * s->min_gap));
		for (int i = 0; i < s->nsteps; i++)
			for (int j = 0; j < s->nsteps; j++)
				if (i != j && abs(pos[i] - pos[j]) < s->min_gap)
					ok = 0;
		if (!ok)
			continue;
		for (int i = 1; i < s->nsteps; i++)
			for (int j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
				int t = pos[j];

				pos[j] = pos[j - 1];
				pos[j - 1] = t;
			}
		return 0;
	}
	return -1;
}

static void gen_series(const struct fb_cp_synth *s, struct fb_prng *r, const int *pos,
		       double *x)
{
	double level = SYN_BASE;
	int k = 0;

	for (int i = 0; i < s->n; i++) {
		if (k < s->nsteps && i == pos[k]) {
			level += (fb_prng_below(r, 2) ? 1 : -1) * s->step_sd * SYN_SD;
			k++;
		}
		x[i] = level + s->drift_sd * SYN_SD * i / s->n + SYN_SD * gauss(r);
		if (unif(r) < s->outlier_frac)
			x[i] *= 1.5 + 1.5 * unif(r);
	}
}

/* Known steps matched by a change point within tol; the rest of cps are false. */
static int score(const int *pos, int nsteps, const struct fb_cp *cp, int ncp, int tol)
{
	char used[64] = { 0 };
	int found = 0;

	for (int k = 0; k < nsteps; k++) {
		int best = -1;

		for (int c = 0; c < ncp && c < 64; c++)
			if (!used[c] && abs(cp[c].pos - pos[k]) <= tol &&
			    (best < 0 || abs(cp[c].pos - pos[k]) < abs(cp[best].pos - pos[k])))
				best = c;
		if (best >= 0) {
			used[best] = 1;
			found++;
		}
	}
	return found;
}

int fb_cp_eval(const struct fb_cp_synth *s, int series, int tol, uint64_t seed,
	       const struct fb_cp_opts *o, struct fb_cp_rates *out)
{
	double *x = malloc(sizeof(*x) * (size_t)s->n);
	struct fb_cp cp[64];
	int pos[SYN_MAX_STEPS];
	struct fb_prng r;

	memset(out, 0, sizeof(*out));
	if (!x || s->nsteps > SYN_MAX_STEPS || s->n < 2 * s->min_gap + 1) {
		free(x);
		return -1;
	}
	fb_prng_seed(&r, seed);
	for (int i = 0; i < series; i++) {
		int ncp, found;

		ncp = -1;
		if (step_positions(s, &r, pos) == 0) {
			gen_series(s, &r, pos, x);
			ncp = fb_changepoints(x, s->n, o, cp, 64);
		}
		if (ncp < 0) {
			free(x);
			return -1;
		}
		found = score(pos, s->nsteps, cp, ncp, tol);
		out->series++;
		out->points += s->n;
		out->steps += s->nsteps;
		out->found += found;
		out->false_cps += ncp - found;
	}
	free(x);
	out->detect_rate = out->steps ? (double)out->found / out->steps : NAN;
	out->false_per_100 = out->points ? 100.0 * out->false_cps / out->points : NAN;
	return 0;
}

/* 100-point series (a nightly job's quarter), noise CV 2%, steps >= 20 rounds apart */
#define CASE(nm, steps, sd, outl, drift) \
	{ nm, { .n = 100, .nsteps = steps, .min_gap = 20, .step_sd = sd, .outlier_frac = outl, \
		.drift_sd = drift }, 60, 3, 0x5eed }

const struct fb_cp_case fb_cp_cases[] = {
	CASE("no step", 0, 0, 0, 0),
	CASE("no step, 3% outliers", 0, 0, 0.03, 0),
	CASE("1 step of 1 sd", 1, 1, 0, 0),
	CASE("1 step of 2 sd", 1, 2, 0, 0),
	CASE("1 step of 2 sd, 3% outliers", 1, 2, 0.03, 0),
	CASE("2 steps of 2 sd", 2, 2, 0, 0),
	CASE("2 steps of 3 sd", 2, 3, 0, 0),
	CASE("2 steps of 3 sd, 3% outliers", 2, 3, 0.03, 0),
	CASE("linear drift of 2 sd, no step", 0, 0, 0, 2),
};
const int fb_cp_ncases = sizeof(fb_cp_cases) / sizeof(fb_cp_cases[0]);
