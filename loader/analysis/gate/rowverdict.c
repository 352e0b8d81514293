// SPDX-License-Identifier: GPL-2.0
/*
 * rowverdict.c - one verdict per row (rowverdict.h): the gate's decision
 * on each gated metric, written into the comparison model that compare,
 * report and ab's summary print.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate/noise.h"
#include "analysis/gate/rowverdict.h"

void fb_gate_bare_opts(struct fb_gate_opts *o, const struct fb_cmp *c)
{
	memset(o, 0, sizeof(*o));
	o->metrics = fb_gate_metrics_for(c, NULL);
	o->thr_pct = fb_gate_thr_for(c, -1);
	o->alpha = FB_GATE_ALPHA;
	o->beta = FB_GATE_BETA;
	o->allow_missing = "";
}

/* how bad a state is, for the row's worst gated metric */
static int rank(enum fb_gm_state s)
{
	static const int r[] = { [FB_GM_UNTESTED] = 0, [FB_GM_REPORTED] = 1, [FB_GM_OK] = 2,
				 [FB_GM_UNDECIDED] = 3, [FB_GM_LOST] = 4, [FB_GM_REGRESSED] = 5 };

	return r[s];
}

/* the gate's state in compare's words */
static enum fb_verdict verdict_of(const struct fb_gated *x)
{
	const struct fb_metric *m = x->m;

	switch (x->state) {
	case FB_GM_REGRESSED:
		return FB_V_REGRESSED;
	case FB_GM_LOST:
		return FB_V_NA;
	case FB_GM_UNDECIDED:
		return m->v == FB_V_NA ? FB_V_NA : FB_V_INCONCLUSIVE;
	case FB_GM_OK:
		if (x->exact)	/* an exact count: compare's exact word (no change, changed) */
			return m->v;
		return x->have_ci && (x->dir > 0 ? x->hi < 1 : x->lo > 1) ? FB_V_IMPROVED :
		       FB_V_NOCHANGE;
	default:
		return m->v;
	}
}

static void why_of(const struct fb_gated *x, double beta, char *buf, size_t len)
{
	const struct fb_metric *m = x->m;

	if (x->exact)
		snprintf(buf, len, "%.24s; exact count%s", m->name,
			 x->dir ? "" : ", no declared direction");
	else if (x->have_ci && x->tested)
		snprintf(buf, len, "%s; %s p=%.2g (Holm %.2g), %.0f%% CI %+.1f%%..%+.1f%%, "
			 "thr %+.2g%%", m->name, x->test, x->p, x->p_adj, (1 - 2 * beta) * 100,
			 (x->lo - 1) * 100, (x->hi - 1) * 100, x->dir * x->thr * 100);
	else
		snprintf(buf, len, "%.24s; %.80s", m->name, x->why[0] ? x->why : fb_gm_state_name(x->state));
}

void fb_gate_rows_from(struct fb_cmp *c, const struct fb_gate *gt, const struct fb_gate_opts *o)
{
	for (int i = 0; i < c->nrows; i++) {
		struct fb_row *row = &c->rows[i];
		int worst = -1, wr = -1;

		for (int k = 0; k < row->nm; k++) {
			struct fb_metric *m = row->m[k];

			for (int j = 0; j < gt->ng; j++) {
				const struct fb_gated *x = &gt->g[j];

				if (x->m != m || !x->gated || x->exp)
					continue;
				m->gated = 1;
				snprintf(m->gate_word, sizeof(m->gate_word), "%s", fb_gm_state_name(x->state));
				why_of(x, o->beta, m->gate_why, sizeof(m->gate_why));
				m->v = verdict_of(x);
				if (rank(x->state) > wr) {
					wr = rank(x->state);
					worst = k;
				}
			}
		}
		if (worst >= 0)
			row->primary = worst;
	}
}

/* gt's outcome, the way `foliobench gate` turns it into its exit status */
static void summarise(const struct fb_gate *gt, struct fb_gate_sum *sum)
{
	int decidable = 0;

	sum->ran = 1;
	for (int i = 0; i < gt->ng; i++) {
		const struct fb_gated *x = &gt->g[i];

		decidable += x->tested || (x->exact && x->dir);
		if (!x->gated || x->exp)
			continue;
		sum->ngated++;
		sum->nok += x->state == FB_GM_OK;
	}
	sum->nreg = gt->nreg;
	sum->nlost = gt->nlost;
	sum->nundecided = gt->nundecided;
	sum->nrun_fail = gt->nrun_fail;
	sum->nrun_unknown = gt->nrun_unknown;
	sum->rc = (int)gt->outcome;
	if (gt->outcome != FB_GATE_FAIL && (!decidable || gt->cannot))
		sum->rc = 2;
}

int fb_gate_rows(struct fb_cmp *c)
{
	return fb_gate_rows_sum(c, NULL);
}

int fb_gate_rows_sum(struct fb_cmp *c, struct fb_gate_sum *sum)
{
	struct fb_noise *nz = NULL;
	struct fb_gate_opts o;
	struct fb_gate gt;
	char err[256];

	if (sum)
		memset(sum, 0, sizeof(*sum));
	if (!c->base.n || !c->new.n)
		return 0;
	fb_gate_bare_opts(&o, c);
	if (fb_noise_default(&nz, c))	/* the bare gate's noise: shipped for BASE's kernel */
		return -1;
	o.noise = nz;
	if (!fb_gate_eval(&gt, c, &o, err, sizeof(err))) {
		fb_gate_rows_from(c, &gt, &o);	/* else compare's own verdicts stay */
		if (sum)
			summarise(&gt, sum);
	}
	fb_gate_free(&gt);
	free(nz);
	return 0;
}
