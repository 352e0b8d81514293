// SPDX-License-Identifier: GPL-2.0
/*
 * gate_print.c - the gate's text report: one line per gated metric, the
 * declared trades, the verdict with what an unknown needs (gate_print.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare/render.h"
#include "analysis/gate/gate_print.h"
#include "analysis/gate/gate_out.h"
#include "analysis/gate/rowverdict.h"

static const char *exp_state_name(enum fb_exp_state s)
{
	return s == FB_EXP_MET ? "declared" : s == FB_EXP_FAILED ? "NOT-MET" : "undecided";
}

/* "; thr +2.7%, MDE 2.7% (calibrated, 62 dof)" */
static void print_mde(FILE *f, const struct fb_gated *g)
{
	if (!isfinite(g->mde))
		return;
	fprintf(f, "; thr %+.2g%%, MDE %.2g%% (%s", g->dir * g->thr * 100, g->mde * 100,
		g->nz ? (g->noise_high ? "calibrated; these rounds noisier: their own spread" :
			 "calibrated noise") : "noise of these rounds");
	if (g->build_sd > 0)
		fprintf(f, "; two builds: spread %.2g%% each", g->build_sd * 100);
	fputc(')', f);
}

void fb_gate_print_gated(FILE *f, const struct fb_gated *g, double beta, int width)
{
	char a[40], b[40], d[24];
	const struct fb_metric *m = g->m;

	fb_fmt_value(m, m->base, a, sizeof(a));
	fb_fmt_value(m, m->new, b, sizeof(b));
	fb_fmt_pct(m->na && m->nb ? m->st.delta_pct : NAN, d, sizeof(d));
	fprintf(f, "%-9s %-*s %12s -> %-12s %8s",
		g->exp ? exp_state_name(g->exp_state) : fb_gm_state_name(g->state), width, g->id,
		m->na ? a : "n/a", m->nb ? b : "n/a", d);
	if (g->exact)
		fprintf(f, "  (exact count%s)", g->dir ? "" : ", no declared direction");
	else if (!g->tested && !g->have_ci)
		fprintf(f, "  (%s)", g->why);
	else if (g->have_ci)
		fprintf(f, "  %s p=%.2g (Holm %.2g), %.0f%% CI %+.1f%%..%+.1f%%", g->test, g->p,
			g->p_adj, (1 - 2 * beta) * 100, (g->lo - 1) * 100, (g->hi - 1) * 100);
	else
		fprintf(f, "  %s p=%.2g (Holm %.2g)", g->test, g->p, g->p_adj);
	if (g->exp)
		fprintf(f, "; expected: %s", g->exp->text);
	else if (g->tested && g->state == FB_GM_UNDECIDED)
		fprintf(f, "; %s", g->why);
	if (g->tested)
		print_mde(f, g);
	fputc('\n', f);
}

/* "~40 rounds per side (CV 2.1%, 2.5%)" */
static void print_need(FILE *f, const struct fb_gated *g, int width)
{
	fprintf(f, "  %-*s ", width, g->id);
	if (!g->need)
		fputs("more rounds (noise not measurable)\n", f);
	else if (g->need >= 100000)
		fputs(">= 100000 rounds per side: the measured change sits at the threshold\n", f);
	else if (g->need > (g->m->na > g->m->nb ? g->m->na : g->m->nb) + 1)
		fprintf(f, "~%d rounds per side", g->need);
	else	/* the estimate is at or below what was measured and still undecided */
		fprintf(f, "more than %d rounds per side", g->need - 1);
	if (g->need && g->need < 100000 && isfinite(g->cv_a) && isfinite(g->cv_b))
		fprintf(f, " (measured CV %.1f%% BASE, %.1f%% NEW)\n", g->cv_a * 100,
			g->cv_b * 100);
	else if (g->need && g->need < 100000)
		fputc('\n', f);
}

/* "  FILE:LINE: TEXT (must fall at least): measured -0.1% (90% CI -0.3%..+0.1%)" */
static void print_exp_line(FILE *f, const struct fb_expect *e, const struct fb_gated *x)
{
	const struct fb_metric *m = x->m;

	fprintf(f, "  %s:%d: %s (%s): ", fb_expect_file(e, x->exp), x->exp->line, x->exp->text,
		fb_expect_kind_name(x->exp->k));
	if (!m->na || !m->nb)
		fprintf(f, "no value in %s\n", m->na ? "NEW" : "BASE");
	else if (m->incomparable || x->other_method)
		fprintf(f, "measured %+.1f%%, not comparable: %s\n",
			m->base ? (m->new / m->base - 1) * 100 : 0.0, x->why);
	else if (x->exact || !x->have_ci)
		fprintf(f, "measured %+.1f%%%s\n", m->base ? (m->new / m->base - 1) * 100 : 0.0,
			x->exact ? " (exact)" : "");
	else
		fprintf(f, "measured %+.1f%% (interval %+.1f%%..%+.1f%%)\n",
			m->base ? (m->new / m->base - 1) * 100 : 0.0, (x->lo - 1) * 100,
			(x->hi - 1) * 100);
}

/* Declared trades not met, or not decided: one line each, naming the row. */
static void print_expect(FILE *f, const struct fb_gate *gt, const struct fb_gate_opts *o)
{
	for (int k = 0; k < 2; k++) {
		enum fb_exp_state want = k ? FB_EXP_UNKNOWN : FB_EXP_FAILED;
		int n = k ? gt->nexp_unknown : gt->nexp_failed;

		if (!n)
			continue;
		fprintf(f, "gate: %s: %d declared change(s) %s:\n", k ? "UNKNOWN" : "FAIL", n,
			k ? "not decided at these rounds (or timed by different methods)" :
			"did not happen within their bound");
		for (int i = 0; i < gt->ng; i++) {
			const struct fb_gated *x = &gt->g[i];

			if (x->exp && x->exp_state == want && !strcmp(x->exp->id, x->id))
				print_exp_line(f, o->expect, x);
		}
		for (int i = 0; !k && i < o->expect->n; i++)
			if (o->expect->l[i].absent && fb_expect_claim(&o->expect->l[i]))
				fprintf(f, "  %s:%d: %s (%s): no row '%s' in these rounds\n",
					fb_expect_file(o->expect, &o->expect->l[i]),
					o->expect->l[i].line, o->expect->l[i].text,
					fb_expect_kind_name(o->expect->l[i].k), o->expect->l[i].row);
	}
}

void fb_gate_print_verdict(FILE *f, const struct fb_gate *gt, const struct fb_gate_opts *o,
			   const struct fb_cmp *c, int width)
{
	double thr = o->thr_pct;

	fb_gate_print_runs(f, c);
	if (gt->nreg) {
		fprintf(f, "gate: FAIL: %d of %d gated metrics regressed beyond %g%% (%d tested, "
			"%d compared exactly):\n", gt->nreg, gt->ndecidable, thr, gt->ntested,
			gt->ndecidable - gt->ntested);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_REGRESSED)
				fb_gate_print_gated(f, &gt->g[i], o->beta, width);
	}
	if (gt->nlost) {
		fprintf(f, "gate: FAIL: lost data: NEW lost %d gated metric(s) that BASE has "
			"(accept with --allow-missing METRIC):\n", gt->nlost);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_LOST)
				fprintf(f, "  %s: %s\n", gt->g[i].id, gt->g[i].why);
	}
	print_expect(f, gt, o);
	if (gt->outcome == FB_GATE_UNKNOWN && gt->nundecided > gt->nincomparable) {
		fprintf(f, "gate: UNKNOWN: %d of %d gated metrics undecided: too noisy to tell a "
			"%g%% regression from none; not shown safe.  Rounds the measured noise "
			"needs to decide:\n", gt->nundecided - gt->nincomparable, gt->nplain, thr);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_UNDECIDED && !gt->g[i].exp &&
			    !gt->g[i].m->incomparable)
				print_need(f, &gt->g[i], width);
	}
	if (gt->outcome == FB_GATE_UNKNOWN && gt->nincomparable) {
		fprintf(f, "gate: UNKNOWN: %d of %d gated metrics not comparable: BASE and NEW "
			"timed them with different observer methods, whose own cost differs; "
			"not shown safe, and more rounds will not decide (measure both sides "
			"with one method):\n", gt->nincomparable, gt->nplain);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_UNDECIDED && !gt->g[i].exp &&
			    gt->g[i].m->incomparable)
				fprintf(f, "  %-*s %s\n", width, gt->g[i].id, gt->g[i].why);
	}
	if (gt->none_tested)
		fprintf(f, "gate: UNKNOWN: no gated metric was tested (%d compared exactly, as the "
			"same value in every round): a pass needs a test that could fail; not "
			"shown safe\n", gt->ndecidable);
	if (gt->outcome == FB_GATE_PASS) {
		fprintf(f, "gate: pass: every gated metric lies below +%g%% or its calibrated "
			"threshold (%d tested", thr, gt->ntested);
		if (gt->nexp_tested)
			fprintf(f, ", %d declared change(s) by their test", gt->nexp_tested);
		fprintf(f, ")%s\n", o->expect ?
			", every declared change happened within its bound" : "");
	}
}
