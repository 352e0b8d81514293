// SPDX-License-Identifier: GPL-2.0
/*
 * cmpverdict.c - the verdict of one metric of the comparison model
 * (cmpmodel.h): noisy metrics by the rank test and bootstrap (stats.h),
 * counts exactly when deterministic, per round or per op.  No I/O.
 * Design: docs/compare.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare/cmpmodel.h"

static int all_equal(const double *v, int n, double rel)
{
	for (int i = 1; i < n; i++)
		if (fabs(v[i] - v[0]) > rel * fmax(fabs(v[0]), 1e-300))
			return 0;
	return 1;
}

/* Op counters of one round as "workload.op" = value; -1 if absent. */
static double round_op(const struct fb_result *r, const char *id)
{
	const char *dot = strchr(id, '.');

	if (!dot)
		return -1;
	for (int i = 0; i < r->nworkloads; i++) {
		const struct fb_workload_result *w = &r->workloads[i];
		uint64_t v;

		if (strncmp(w->name, id, (size_t)(dot - id)) || w->name[dot - id])
			continue;
		if (fb_count_get(&w->ops, dot + 1, &v) == 0)
			return (double)v;
	}
	return -1;
}

/*
 * A count per round is deterministic if it is the same in every round of
 * a side, or if its ratio to some op counter of the workloads is (e.g.
 * nft_trans_alloc calls per nft.trans_objects when the number of objects
 * varies).  Deterministic counts are compared exactly; others as noisy.
 */
static void decide_count(const struct fb_cmp *c, struct fb_metric *m)
{
	int neutral = m->lower_is_better < 0;

	m->base = fb_median(m->a, m->na);
	m->new = fb_median(m->b, m->nb);
	memset(&m->st, 0, sizeof(m->st));
	m->st.na = m->na;
	m->st.nb = m->nb;
	m->st.ci_lo = m->st.ci_hi = NAN;
	if (!m->na || !m->nb) {
		m->v = FB_V_NA;
		return;
	}
	if (all_equal(m->a, m->na, 0) && all_equal(m->b, m->nb, 0)) {
		m->deterministic = m->na >= 2 && m->nb >= 2;
		goto exact;
	}
	/* per op: only if every round contributed, so indices line up */
	if (m->na == c->base.n && m->nb == c->new.n) {
		const struct fb_result *r0 = c->base.r[0];

		for (int w = 0; w < r0->nworkloads; w++)
			for (int k = 0; k < r0->workloads[w].ops.n; k++) {
				char id[80];
				double ra[FB_CMP_MAX_ROUNDS] = { 0 }, rb[FB_CMP_MAX_ROUNDS] = { 0 };
				int ok = 1;

				snprintf(id, sizeof(id), "%s.%s", r0->workloads[w].name,
					 r0->workloads[w].ops.v[k].name);
				/* an op per itself is 1 in every round: no normalisation */
				if (!strncmp(m->name, "ops.", 4) &&
				    !strcmp(m->name + 4, r0->workloads[w].ops.v[k].name))
					continue;
				for (int i = 0; i < m->na && ok; i++) {
					double o = round_op(c->base.r[i], id);

					ok = o > 0;
					ra[i] = ok ? m->a[i] / o : 0;
				}
				for (int i = 0; i < m->nb && ok; i++) {
					double o = round_op(c->new.r[i], id);

					ok = o > 0;
					rb[i] = ok ? m->b[i] / o : 0;
				}
				if (!ok || !all_equal(ra, m->na, 1e-9) || !all_equal(rb, m->nb, 1e-9))
					continue;
				snprintf(m->per, sizeof(m->per), "%.47s", id);
				m->deterministic = m->na >= 2 && m->nb >= 2;
				m->base = ra[0];
				m->new = rb[0];
				goto exact;
			}
	}
	m->v = fb_verdict_noisy(m->a, m->na, m->b, m->nb, c->alpha, c->min_effect,
				neutral ? 1 : m->lower_is_better, &m->st);
	if (neutral && (m->v == FB_V_IMPROVED || m->v == FB_V_REGRESSED))
		m->v = FB_V_CHANGED;
	return;
exact:
	m->st.med_a = m->base;
	m->st.med_b = m->new;
	m->st.delta_pct = m->base ? (m->new / m->base - 1) * 100 : m->new ? INFINITY : 0;
	if (m->base == m->new)
		m->v = FB_V_NOCHANGE;
	else
		m->v = m->deterministic ? FB_V_CHANGED : FB_V_INCONCLUSIVE;
}

void fb_metric_decide(const struct fb_cmp *c, struct fb_metric *m)
{
	int neutral = m->lower_is_better < 0;

	if (m->type == FB_M_COUNT) {
		decide_count(c, m);
		return;
	}
	m->v = fb_verdict_noisy(m->a, m->na, m->b, m->nb, c->alpha, c->min_effect,
				neutral ? 1 : m->lower_is_better, &m->st);
	if (neutral && (m->v == FB_V_IMPROVED || m->v == FB_V_REGRESSED))
		m->v = FB_V_CHANGED;
	/* another observer method, another observer cost inside the timing */
	if (m->incomparable && m->v != FB_V_NA)
		m->v = FB_V_INCONCLUSIVE;
	m->base = m->st.med_a;
	m->new = m->st.med_b;
}
