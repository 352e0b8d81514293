// SPDX-License-Identifier: GPL-2.0
/*
 * changepoint.c - E-divisive means with a permutation test (changepoint.h).
 *
 * The scan over splits keeps three running sums of absolute differences:
 * within the left part, within the right part, and (by subtraction from the
 * total) across them, so one scan of a segment of m points costs O(m^2)
 * and needs no matrix.  A permutation test stops early once its p-value
 * can no longer fall below alpha, so a series without steps costs a few
 * dozen scans, not `perms`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history/changepoint.h"
#include "analysis/compare/stats.h"

#define CP_SEED_DEFAULT	0x6368616e6765ULL	/* "change" */

void fb_cp_defaults(struct fb_cp_opts *o)
{
	o->alpha = 0.01;
	o->perms = 199;
	o->min_size = 5;
	o->max_cps = 32;
	o->seed = CP_SEED_DEFAULT;
	o->boot_iters = 2000;
	o->ranks = 1;
	o->kappa = 1;
}

static const double *sort_base;

static int cmp_idx(const void *a, const void *b)
{
	double x = sort_base[*(const int *)a], y = sort_base[*(const int *)b];

	return x < y ? -1 : x > y;
}

/* Ranks 1..n of x (ties get their mean rank) into rk; idx is scratch. */
static void to_ranks(const double *x, int n, double *rk, int *idx)
{
	for (int i = 0; i < n; i++)
		idx[i] = i;
	sort_base = x;
	qsort(idx, (size_t)n, sizeof(*idx), cmp_idx);
	for (int i = 0; i < n;) {
		int j = i;

		while (j + 1 < n && x[idx[j + 1]] == x[idx[i]])
			j++;
		for (int k = i; k <= j; k++)
			rk[idx[k]] = (i + j) / 2.0 + 1;
		i = j + 1;
	}
}

int fb_cp_best_split(const double *x, int n, int min_size, double *q)
{
	double total = 0, wl = 0, wr, best = -INFINITY;
	int tau = -1;

	if (min_size < 2)
		min_size = 2;
	if (n < 2 * min_size)
		return -1;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			total += fabs(x[i] - x[j]);
	wr = total;
	/* move point k from the right part to the left one; the split is k + 1 */
	for (int k = 0; k < n - min_size; k++) {
		double sl = 0, sr = 0, m, r, cross, e, qq;

		for (int i = 0; i < k; i++)
			sl += fabs(x[i] - x[k]);
		for (int j = k + 1; j < n; j++)
			sr += fabs(x[k] - x[j]);
		wl += sl;
		wr -= sr;
		if (k + 1 < min_size)
			continue;
		m = k + 1;
		r = n - m;
		cross = total - wl - wr;
		e = 2 * cross / (m * r) - wl / (m * (m - 1) / 2) - wr / (r * (r - 1) / 2);
		qq = m * r / (m + r) * e;
		if (qq > best) {
			best = qq;
			tau = k + 1;
		}
	}
	*q = best;
	return tau;
}

struct scratch {
	double *v;		/* the segment as tested: values or their ranks */
	double *perm;		/* its shuffles */
	int *idx;
	double *S;		/* (n+1)^2 prefix sums of |x_i - x_j|, or NULL */
};

static double rect(const double *S, int w, int a1, int a2, int b1, int b2)
{
	return S[a2 * w + b2] - S[a1 * w + b2] - S[a2 * w + b1] + S[a1 * w + b1];
}

/*
 * Matteson and James' full search: the left part [0, tau) against a right
 * part [tau, kappa) that need not reach the end, so a step followed by a
 * step back (a bump) still stands out.  S holds the 2-D prefix sums of the
 * distance matrix, so each (tau, kappa) costs O(1).
 */
static int split_kappa(const double *x, int n, int min, double *S, double *q)
{
	int w = n + 1, tau = -1;
	double best = -INFINITY;

	for (int b = 0; b <= n; b++)
		S[b] = 0;
	for (int a = 0; a < n; a++) {
		S[(a + 1) * w] = 0;
		for (int b = 0; b < n; b++)
			S[(a + 1) * w + b + 1] = S[a * w + b + 1] + S[(a + 1) * w + b] -
						 S[a * w + b] + fabs(x[a] - x[b]);
	}
	for (int t = min; t <= n - min; t++) {
		double m = t, wl = rect(S, w, 0, t, 0, t) / 2;

		for (int k = t + min; k <= n; k++) {
			double r = k - t, wr = rect(S, w, t, k, t, k) / 2;
			double cr = rect(S, w, 0, t, t, k);
			double e = 2 * cr / (m * r) - wl / (m * (m - 1) / 2) -
				   wr / (r * (r - 1) / 2);
			double qq = m * r / (m + r) * e;

			if (qq > best) {
				best = qq;
				tau = t;
			}
		}
	}
	*q = best;
	return tau;
}

static int split(const double *x, int n, const struct fb_cp_opts *o, struct scratch *sc,
		 double *q)
{
	int min = o->min_size < 2 ? 2 : o->min_size;

	if (o->kappa && sc->S && n >= 2 * min)
		return split_kappa(x, n, min, sc->S, q);
	return fb_cp_best_split(x, n, min, q);
}

/* Permutation p-value of q for x[0..n); stops once p >= alpha is certain. */
static double perm_pvalue(const double *x, int n, double q, const struct fb_cp_opts *o,
			  struct fb_prng *rng, struct scratch *sc)
{
	double *buf = sc->perm;
	int ge = 0, done = 0, limit = (int)floor(o->alpha * (o->perms + 1));

	memcpy(buf, x, sizeof(*buf) * (size_t)n);
	for (int it = 0; it < o->perms; it++) {
		double qp;

		for (int i = n - 1; i > 0; i--) {
			int j = (int)fb_prng_below(rng, (uint32_t)i + 1);
			double t = buf[i];

			buf[i] = buf[j];
			buf[j] = t;
		}
		done++;
		if (split(buf, n, o, sc, &qp) >= 0 && qp >= q * (1 - 1e-12))
			ge++;
		if (ge >= limit)	/* (ge + 1) / (perms + 1) > alpha whatever follows */
			break;
	}
	if (done < o->perms)
		return (double)(ge + 1) / (done + 1);
	return (double)(ge + 1) / (o->perms + 1);
}

struct seg {
	int lo, hi, tau, tested, sig;
	double q, p;
};

/* The segment's values, or their ranks within the segment, in sc->v. */
static const double *seg_values(const double *x, int lo, int hi, const struct fb_cp_opts *o,
				struct scratch *sc)
{
	if (!o->ranks)
		return x + lo;
	to_ranks(x + lo, hi - lo, sc->v, sc->idx);
	return sc->v;
}

static void seg_init(struct seg *s, const double *x, int lo, int hi, const struct fb_cp_opts *o,
		     struct scratch *sc)
{
	s->lo = lo;
	s->hi = hi;
	s->tested = s->sig = 0;
	s->p = 1;
	s->tau = split(seg_values(x, lo, hi, o, sc), hi - lo, o, sc, &s->q);
	if (s->tau >= 0)
		s->tau += lo;
}

/* Untested segment with a split and the largest Q, or -1. */
static int next_candidate(const struct seg *sg, int ns)
{
	int best = -1;

	for (int i = 0; i < ns; i++)
		if (sg[i].tau >= 0 && !sg[i].tested && (best < 0 || sg[i].q > sg[best].q))
			best = i;
	return best;
}

static int cmp_cp(const void *a, const void *b)
{
	return ((const struct fb_cp *)a)->pos - ((const struct fb_cp *)b)->pos;
}

/* Medians and the bootstrap CI of the step at c->pos between c->lo and c->hi. */
static void step_stats(const double *x, struct fb_cp *c, const struct fb_cp_opts *o)
{
	int na = c->pos - c->lo, nb = c->hi - c->pos;
	const double *a, *b;
	double rlo, rhi;

	/* the CI uses the points nearest the step when a side is very long */
	if (na > FB_STATS_MAX_N)
		na = FB_STATS_MAX_N;
	if (nb > FB_STATS_MAX_N)
		nb = FB_STATS_MAX_N;
	a = x + c->pos - na;
	b = x + c->pos;
	c->before = fb_median(x + c->lo, c->pos - c->lo);
	c->after = fb_median(x + c->pos, c->hi - c->pos);
	c->pct = c->before != 0 ? (c->after / c->before - 1) * 100 : NAN;
	c->ci_lo = c->ci_hi = NAN;
	if (fb_bootstrap_ratio_ci(a, na, b, nb, 0.95, o->boot_iters, o->seed ^ (uint64_t)c->pos,
				  &rlo, &rhi) == 0) {
		c->ci_lo = (rlo - 1) * 100;
		c->ci_hi = (rhi - 1) * 100;
	}
}

/* Tests the best untested split; 1 if one was accepted into out[*nc], 0 if none left. */
static int test_next(const double *x, const struct fb_cp_opts *o, struct seg *sg, int *ns,
		     struct fb_cp *out, int *nc, struct fb_prng *rng, struct scratch *sc)
{
	int i;

	while ((i = next_candidate(sg, *ns)) >= 0) {
		struct seg *s = &sg[i];
		const double *v = seg_values(x, s->lo, s->hi, o, sc);

		s->tested = 1;
		s->p = perm_pvalue(v, s->hi - s->lo, s->q, o, rng, sc);
		if (s->p >= o->alpha)
			continue;
		out[*nc].pos = s->tau;
		out[*nc].q = s->q;
		out[*nc].p = s->p;
		(*nc)++;
		/* split: the right piece goes to the end, the left one replaces s */
		seg_init(&sg[(*ns)++], x, s->tau, s->hi, o, sc);
		seg_init(s, x, s->lo, s->tau, o, sc);
		return 1;
	}
	return 0;
}

int fb_changepoints(const double *x, int n, const struct fb_cp_opts *o,
		    struct fb_cp *out, int maxout)
{
	int maxseg = (o->max_cps < maxout ? o->max_cps : maxout) + 1, ns = 1, nc = 0;
	size_t len = (size_t)(n > 0 ? n : 1);
	struct seg *sg = calloc((size_t)maxseg + 1, sizeof(*sg));
	struct scratch sc = {
		.v = malloc(sizeof(double) * len),
		.perm = malloc(sizeof(double) * len),
		.idx = malloc(sizeof(int) * len),
		.S = o->kappa && n <= FB_CP_KAPPA_MAX_N ?
		     malloc(sizeof(double) * (len + 1) * (len + 1)) : NULL,
	};
	struct fb_prng rng;
	int ret = -1;

	if (!sg || !sc.v || !sc.perm || !sc.idx)
		goto out;
	fb_prng_seed(&rng, o->seed);
	seg_init(&sg[0], x, 0, n, o, &sc);
	while (ns < maxseg && test_next(x, o, sg, &ns, out, &nc, &rng, &sc))
		;
	qsort(out, (size_t)nc, sizeof(*out), cmp_cp);
	for (int k = 0; k < nc; k++) {
		out[k].lo = k ? out[k - 1].pos : 0;
		out[k].hi = k + 1 < nc ? out[k + 1].pos : n;
		step_stats(x, &out[k], o);
	}
	ret = nc;
out:
	free(sg);
	free(sc.v);
	free(sc.perm);
	free(sc.idx);
	free(sc.S);
	return ret;
}
