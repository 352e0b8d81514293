// SPDX-License-Identifier: GPL-2.0
/*
 * claims_eval.c - judging the claims (claims.h) on the comparison model,
 * and writing them: the report's Claims table and the gate's claims block.
 *
 * A claim's value per round is its metric's (divided by the per metric's,
 * round by round); the sides' medians give the ratio NEW / BASE.  When
 * every round of each side is alike (counts under icount) the ratio is
 * compared as it is; otherwise its 95% bootstrap interval (stats.h) must
 * lie wholly on one side of the bound: within it, met; beyond it, not
 * met; across it, unknown.  A bound on a value (A->B) holds when every
 * NEW round is within it, fails when none is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/claims.h"
#include "analysis/compare/stats.h"

#define CL_CI_LEVEL	0.95

const char *fb_claim_state_name(enum fb_claim_state s)
{
	switch (s) {
	case FB_CLAIM_MET:		return "met";
	case FB_CLAIM_NOT_MET:		return "not met";
	case FB_CLAIM_UNKNOWN:		return "unknown";
	case FB_CLAIM_NOT_MEASURED:	break;
	}
	return "not measured";
}

/* The row and metric of id KIND:ROW:METRIC in c; *row_seen when the row exists. */
static const struct fb_metric *find(const struct fb_cmp *c, const char *id, int *row_seen)
{
	const char *c1 = strchr(id, ':'), *c2 = strrchr(id, ':');

	*row_seen = 0;
	for (int i = 0; c1 && c2 > c1 && i < c->nrows; i++) {
		const struct fb_row *r = &c->rows[i];
		const char *kind = fb_row_kind_name(r->kind);

		if (strlen(kind) != (size_t)(c1 - id) || strncmp(id, kind, strlen(kind)) ||
		    strlen(r->name) != (size_t)(c2 - c1 - 1) || strncmp(c1 + 1, r->name, strlen(r->name)))
			continue;
		*row_seen = 1;
		for (int k = 0; k < r->nm; k++)
			if (!strcmp(r->m[k]->name, c2 + 1))
				return r->m[k];
	}
	return NULL;
}

/*
 * A metric every such row has: a function's, or a lock's but its phase's
 * (the workload's ops, a lock's <phase>_hold_* and the extra values depend
 * on what the rounds recorded: missing there, the claim is unknown).
 */
static int fixed_metric(const char *id)
{
	return (!strncmp(id, "func:", 5) || !strncmp(id, "lock:", 5)) &&
	       !strstr(strrchr(id, ':'), "_hold_");
}

int fb_claims_check(const struct fb_claims *cs, const struct fb_cmp *c, char *err,
		    size_t errlen)
{
	for (int i = 0; i < cs->n; i++) {
		const struct fb_claim *cl = &cs->c[i];
		const char *ids[3] = { cl->metric, cl->per, cl->at };

		for (int k = 0; k < 3; k++) {
			int seen;

			if (ids[k][0] && fixed_metric(ids[k]) && !find(c, ids[k], &seen) && seen) {
				snprintf(err, errlen, "%s:%d: no metric '%s' in its row (ids: "
					 "foliobench compare --format csv)", cl->file, cl->line,
					 ids[k]);
				return -1;
			}
		}
	}
	return 0;
}

/* Was workload w in these rounds? */
static int has_workload(const struct fb_cmp *c, const char *w)
{
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == FB_ROW_WORKLOAD && !strcmp(c->rows[i].name, w))
			return 1;
	return 0;
}

/*
 * The claim's values of side s (per round, divided by per's) into v;
 * the count, or -1 with why when a round has none.
 */
static int side_values(const struct fb_cmp *c, const struct fb_metric *m,
		       const struct fb_metric *per, int s, double *v, char *why, size_t len)
{
	int want = s ? c->new.n : c->base.n, n = s ? m->nb : m->na;
	const double *x = s ? m->b : m->a, *d = per ? (s ? per->b : per->a) : NULL;

	if (n < want || (per && (s ? per->nb : per->na) < want)) {
		snprintf(why, len, "a value in only %d of %d rounds of %s (failed, interrupted, or "
			 "not measured there)", per && (s ? per->nb : per->na) < n ?
			 (s ? per->nb : per->na) : n, want, s ? "NEW" : "BASE");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (d && !(d[i] > 0)) {
			snprintf(why, len, "its per metric is 0 in a round of %s", s ? "NEW" : "BASE");
			return -1;
		}
		v[i] = d ? x[i] / d[i] : x[i];
	}
	return n;
}

static int all_alike(const double *v, int n)
{
	for (int i = 1; i < n; i++)
		if (fabs(v[i] - v[0]) > 1e-9 * fmax(fabs(v[0]), 1e-300))
			return 0;
	return 1;
}

/* the bound: ratio NEW / BASE (Nx, P%) or NEW's value (A->B) */
static double bound_of(const struct fb_claim *cl)
{
	switch (cl->sk) {
	case FB_SEED_FACTOR:	return 1 / (cl->to * (1 - cl->tol));
	case FB_SEED_PCT:	return 1 + cl->to * (1 - cl->tol) / 100;
	case FB_SEED_FROMTO:	return cl->to + cl->tol * (cl->from - cl->to);
	case FB_SEED_NONE:	break;
	}
	return NAN;
}

/* 1 when the claim is a fall: smaller is the claimed direction */
static int falls(const struct fb_claim *cl)
{
	return cl->sk == FB_SEED_FACTOR || (cl->sk == FB_SEED_PCT && cl->to < 0) ||
	       (cl->sk == FB_SEED_FROMTO && cl->to < cl->from);
}

/* within the bound: 1; beyond: 0 */
static int within(const struct fb_claim *cl, double x)
{
	return falls(cl) ? x <= cl->bound : x >= cl->bound;
}

/* A->B: BASE must start beyond the bound, or the claim's change is not here to see */
static void judge_value(struct fb_claim *cl, const double *nv, int nn)
{
	int in = 0;

	if (within(cl, cl->base)) {
		cl->state = FB_CLAIM_NOT_MEASURED;
		snprintf(cl->reason, sizeof(cl->reason), "BASE is already %s the bound (%.4g): "
			 "the claim's starting point %g is not in these rounds", falls(cl) ?
			 "below" : "above", cl->base, cl->from);
		return;
	}
	for (int i = 0; i < nn; i++)
		in += within(cl, nv[i]);
	cl->state = in == nn ? FB_CLAIM_MET : !in ? FB_CLAIM_NOT_MET : FB_CLAIM_UNKNOWN;
	if (cl->state == FB_CLAIM_UNKNOWN)
		snprintf(cl->reason, sizeof(cl->reason), "%d of %d NEW rounds within the bound",
			 in, nn);
}

static void judge_ratio(struct fb_claim *cl, const double *bv, int nb, const double *nv, int nn)
{
	double r = cl->base ? cl->new / cl->base : NAN;

	if (!(cl->base > 0)) {
		cl->state = FB_CLAIM_UNKNOWN;
		snprintf(cl->reason, sizeof(cl->reason), "BASE is 0: no ratio");
	} else if (cl->exact) {
		cl->state = within(cl, r) ? FB_CLAIM_MET : FB_CLAIM_NOT_MET;
	} else if (nb < 3 || nn < 3 ||
		   fb_bootstrap_ratio_ci(bv, nb, nv, nn, CL_CI_LEVEL, FB_BOOT_ITERS,
					 FB_BOOT_SEED, &cl->lo, &cl->hi)) {
		cl->state = FB_CLAIM_UNKNOWN;
		snprintf(cl->reason, sizeof(cl->reason), "rounds differ and %d+%d rounds give no "
			 "interval (3 a side at least)", nb, nn);
	} else {
		cl->have_ci = 1;
		cl->state = within(cl, falls(cl) ? cl->hi : cl->lo) ? FB_CLAIM_MET :
			    !within(cl, falls(cl) ? cl->lo : cl->hi) ? FB_CLAIM_NOT_MET :
			    FB_CLAIM_UNKNOWN;
		if (cl->state == FB_CLAIM_UNKNOWN)
			snprintf(cl->reason, sizeof(cl->reason), "the 95%% interval %+.1f%%..%+.1f%% "
				 "straddles the bound: more rounds", (cl->lo - 1) * 100,
				 (cl->hi - 1) * 100);
	}
}

/* `at METRIC >= V`: 0 when both sides reach V, else the state it leaves */
static int scale(struct fb_claim *cl, const struct fb_cmp *c)
{
	int seen;
	const struct fb_metric *a = cl->at[0] ? find(c, cl->at, &seen) : NULL;
	double b, n;

	if (!cl->at[0])
		return 0;
	if (!a || !a->na || !a->nb) {
		snprintf(cl->reason, sizeof(cl->reason), "no value of %s in these rounds", cl->at);
		return FB_CLAIM_UNKNOWN;
	}
	/* the rounds' own medians: the model's may be per op */
	b = fb_median(a->a, a->na);
	n = fb_median(a->b, a->nb);
	if (b >= cl->at_min && n >= cl->at_min)
		return 0;
	snprintf(cl->reason, sizeof(cl->reason), "claimed at %s >= %g; these rounds have %g "
		 "(BASE) and %g (NEW)", cl->at, cl->at_min, b, n);
	return FB_CLAIM_NOT_MEASURED;
}

static void eval_one(struct fb_claim *cl, const struct fb_cmp *c)
{
	double bv[FB_CMP_MAX_ROUNDS], nv[FB_CMP_MAX_ROUNDS];
	const struct fb_metric *m, *per = NULL;
	char why[sizeof(cl->reason)];
	int seen, nb, nn, st;

	cl->base = cl->new = cl->lo = cl->hi = cl->bound = NAN;
	cl->exact = cl->have_ci = 0;
	cl->reason[0] = cl->unit[0] = '\0';
	cl->state = FB_CLAIM_NOT_MEASURED;
	if (cl->why[0])
		return;
	if (!has_workload(c, cl->in)) {
		snprintf(cl->reason, sizeof(cl->reason), "the %s workload is not in these rounds "
			 "(foliobench ab --workload %s)", cl->in, cl->in);
		return;
	}
	cl->bound = bound_of(cl);
	/* another scale than the claim's: not measured, whatever else is missing */
	st = scale(cl, c);
	cl->state = st == FB_CLAIM_NOT_MEASURED ? FB_CLAIM_NOT_MEASURED : FB_CLAIM_UNKNOWN;
	m = find(c, cl->metric, &seen);
	if (cl->per[0])
		per = find(c, cl->per, &seen);
	if (!m || (cl->per[0] && !per)) {
		if (!st)
			snprintf(cl->reason, sizeof(cl->reason), "no metric %s in these rounds",
				 m ? cl->per : cl->metric);
		return;
	}
	nb = side_values(c, m, per, 0, bv, why, sizeof(why));
	nn = nb < 0 ? -1 : side_values(c, m, per, 1, nv, why, sizeof(why));
	if (nb < 0 || nn < 0) {
		if (!st)
			snprintf(cl->reason, sizeof(cl->reason), "%s", why);
		return;
	}
	/* the measured values are shown even where the scale is not the claim's */
	cl->base = fb_median(bv, nb);
	cl->new = fb_median(nv, nn);
	cl->exact = nb >= 2 && nn >= 2 && all_alike(bv, nb) && all_alike(nv, nn);
	if (!strcmp(m->unit, "ns") || (strlen(m->name) > 3 &&
				       !strcmp(m->name + strlen(m->name) - 3, "_ns")))
		snprintf(cl->unit, sizeof(cl->unit), "ns");
	if (st) {
		cl->state = (enum fb_claim_state)st;
		return;
	}
	if (cl->sk == FB_SEED_FROMTO)
		judge_value(cl, nv, nn);
	else
		judge_ratio(cl, bv, nb, nv, nn);
}

void fb_claims_eval(struct fb_claims *cs, const struct fb_cmp *c)
{
	memset(cs->nstate, 0, sizeof(cs->nstate));
	for (int i = 0; i < cs->n; i++) {
		eval_one(&cs->c[i], c);
		cs->nstate[cs->c[i].state]++;
	}
}

/* ---- writing them ---- */

void fb_claim_series(const struct fb_claim *cl, char *buf, size_t len)
{
	const char *end = strrchr(cl->file, '/'), *start = end;

	while (start && start > cl->file && start[-1] != '/')
		start--;
	if (!end || end == start)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*s", (int)(end - start), start);
}

void fb_claim_bound(const struct fb_claim *cl, char *buf, size_t len)
{
	double b = bound_of(cl);
	char tol[32];

	snprintf(tol, sizeof(tol), "%g%% tolerance", cl->tol * 100);
	switch (cl->sk) {
	case FB_SEED_FACTOR:
		snprintf(buf, len, "at least %.3gx fewer (%.3g%% fewer; %s)", 1 / b,
			 (1 - b) * 100, tol);
		break;
	case FB_SEED_PCT:
		snprintf(buf, len, "%s %+.3g%% (%s)", cl->to < 0 ? "at most" : "at least",
			 (b - 1) * 100, tol);
		break;
	case FB_SEED_FROMTO:
		snprintf(buf, len, "NEW %s %.4g, BASE beyond it (%s)", falls(cl) ? "<=" : ">=", b,
			 tol);
		break;
	case FB_SEED_NONE:
		snprintf(buf, len, "-");
		break;
	}
}

static void value(const struct fb_claim *cl, double v, char *buf, size_t len)
{
	if (cl->unit[0])
		fb_fmt_ns(v, buf, len);
	else if (cl->per[0])
		snprintf(buf, len, "%.4g", v);
	else
		fb_fmt_count(v, buf, len);
}

void fb_claim_measured(const struct fb_claim *cl, char *buf, size_t len)
{
	char a[40], b[40], how[64] = "";
	double r = cl->new / cl->base;

	if (isnan(cl->base) || isnan(cl->new)) {
		snprintf(buf, len, "-");
		return;
	}
	value(cl, cl->base, a, sizeof(a));
	value(cl, cl->new, b, sizeof(b));
	if (cl->exact)
		snprintf(how, sizeof(how), ", exact");
	else if (cl->have_ci)
		snprintf(how, sizeof(how), ", 95%% CI %+.1f%%..%+.1f%%", (cl->lo - 1) * 100,
			 (cl->hi - 1) * 100);
	if (cl->sk == FB_SEED_FACTOR && r > 0)
		snprintf(buf, len, "%s -> %s (%.3gx fewer%s)", a, b, 1 / r, how);
	else if (cl->base)
		snprintf(buf, len, "%s -> %s (%+.1f%%%s)", a, b, (r - 1) * 100, how);
	else
		snprintf(buf, len, "%s -> %s%s", a, b, how);
}

/* "met", "not met", "unknown: why", "not measured: why" */
static void verdict(const struct fb_claim *cl, char *buf, size_t len)
{
	const char *why = cl->why[0] ? cl->why : cl->reason;

	if (cl->state == FB_CLAIM_MET || cl->state == FB_CLAIM_NOT_MET || !why[0])
		snprintf(buf, len, "%s", fb_claim_state_name(cl->state));
	else
		snprintf(buf, len, "%s: %s", fb_claim_state_name(cl->state), why);
}

static void cell(FILE *f, enum fb_fmt fmt, const char *s)
{
	if (fmt == FB_FMT_HTML) {
		fputs("<td class=\"l wrap\">", f);
		fb_html_esc(f, s);
		fputs("</td>", f);
	} else {
		fputc(' ', f);
		fb_md_esc(f, s);
		fputs(" |", f);
	}
}

static void print_row(FILE *f, const struct fb_claim *cl, enum fb_fmt fmt)
{
	char series[64], bound[120], meas[160], v[300], what[460], q[220];
	static const char *const cls[] = { "improved", "regressed", "inconclusive", "nochange" };

	fb_claim_series(cl, series, sizeof(series));
	fb_claim_bound(cl, bound, sizeof(bound));
	fb_claim_measured(cl, meas, sizeof(meas));
	verdict(cl, v, sizeof(v));
	if (cl->why[0])
		snprintf(what, sizeof(what), "-");
	else
		snprintf(what, sizeof(what), "%s: %s%s%s", cl->as, cl->metric,
			 cl->per[0] ? " per " : "", cl->per);
	if (fmt == FB_FMT_HTML)
		fprintf(f, "<tr class=\"v-%s\">", cls[cl->state]);
	else
		fputc('|', f);
	snprintf(q, sizeof(q), "\"%s\"", cl->quote);
	cell(f, fmt, series);
	cell(f, fmt, q);
	cell(f, fmt, cl->seed);
	cell(f, fmt, what);
	cell(f, fmt, cl->sk == FB_SEED_NONE || cl->why[0] ? "-" : bound);
	cell(f, fmt, meas);
	cell(f, fmt, v);
	fputs(fmt == FB_FMT_HTML ? "</tr>\n" : "\n", f);
}

void fb_claims_print(FILE *f, const struct fb_claims *cs, enum fb_fmt fmt)
{
	static const char *const head[] = { "Series", "Claim", "Seed", "Measured by", "Bound",
					    "Measured (BASE -> NEW)", "Verdict" };
	int html = fmt == FB_FMT_HTML;

	if (!cs->n) {
		fprintf(f, html ? "<p>No claims: %s.</p>\n" : "No claims: %s.\n", cs->source);
		return;
	}
	fprintf(f, html ? "<p>%d claims of the cover letters (" : "%d claims of the cover "
		"letters (", cs->n);
	(html ? fb_html_esc : fb_md_esc)(f, cs->source);
	fprintf(f, "): %d met, %d not met, %d unknown, %d not measured. Each is checked "
		"against a bound at its own strength less the stated tolerance, on the same "
		"rows as the tables below; %sfoliobench gate --expect%s fails on a claim not met "
		"(docs/compare.md, \"Claims\").%s", cs->nstate[FB_CLAIM_MET],
		cs->nstate[FB_CLAIM_NOT_MET], cs->nstate[FB_CLAIM_UNKNOWN],
		cs->nstate[FB_CLAIM_NOT_MEASURED], html ? "<code>" : "`", html ? "</code>" : "`",
		html ? "</p>\n<table><thead><tr>" : "\n\n|");
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(f, html ? "<th class=\"l\">%s</th>" : " %s |", head[i]);
	fputs(html ? "</tr></thead><tbody>\n" : "\n|", f);
	for (size_t i = 0; !html && i < sizeof(head) / sizeof(head[0]); i++)
		fputs(":---|", f);
	if (!html)
		fputc('\n', f);
	for (int i = 0; i < cs->n; i++)
		print_row(f, &cs->c[i], fmt);
	if (html)
		fputs("</tbody></table>\n", f);
}

/* "  FILE:LINE: "QUOTE" (seed S; bound B): measured M" */
static void gate_line(FILE *f, const struct fb_claim *cl)
{
	char bound[120], meas[160], v[300];

	fb_claim_bound(cl, bound, sizeof(bound));
	fb_claim_measured(cl, meas, sizeof(meas));
	verdict(cl, v, sizeof(v));
	fprintf(f, "  %s:%d: \"%s\" (seed %s", cl->file, cl->line, cl->quote, cl->seed);
	if (cl->why[0]) {
		fprintf(f, "): %s\n", v);
		return;
	}
	fprintf(f, "; %s; bound %s): measured %s; %s\n", cl->as, bound, meas, v);
}

int fb_claims_gate(FILE *f, const struct fb_claims *cs, int outcome)
{
	static const char *const label[] = { "met", "NOT-MET", "unknown", "not measured" };
	const int *n = cs->nstate;

	if (!cs->n)
		return outcome;
	fprintf(f, "gate: claims (%s): %d met, %d not met, %d unknown, %d not measured here\n",
		cs->source, n[FB_CLAIM_MET], n[FB_CLAIM_NOT_MET], n[FB_CLAIM_UNKNOWN],
		n[FB_CLAIM_NOT_MEASURED]);
	for (int i = 0; i < cs->n; i++) {
		fprintf(f, "claim %-12s", label[cs->c[i].state]);
		gate_line(f, &cs->c[i]);
	}
	if (n[FB_CLAIM_NOT_MET]) {
		fprintf(f, "gate: FAIL: %d claim(s) of the cover letters not met:\n",
			n[FB_CLAIM_NOT_MET]);
		for (int i = 0; i < cs->n; i++)
			if (cs->c[i].state == FB_CLAIM_NOT_MET)
				gate_line(f, &cs->c[i]);
		return 1;
	}
	if (n[FB_CLAIM_UNKNOWN]) {
		fprintf(f, "gate: UNKNOWN: %d claim(s) not decided on these rounds (never a "
			"pass):\n", n[FB_CLAIM_UNKNOWN]);
		for (int i = 0; i < cs->n; i++)
			if (cs->c[i].state == FB_CLAIM_UNKNOWN)
				gate_line(f, &cs->c[i]);
		return outcome == 1 ? 1 : 3;
	}
	return outcome;
}
