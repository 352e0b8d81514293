// SPDX-License-Identifier: GPL-2.0
/*
 * gate.c - `foliobench gate BASE NEW`: a CI regression gate, and the
 * Bencher Metric Format (BMF) export.
 *
 * A gated metric fails when (docs/compare.md):
 *   - the one-sided Mann-Whitney U test says NEW is larger (worse), at
 *     alpha (default 0.01) after Holm-Bonferroni correction over all gated metrics;
 *   - the median across rounds is worse in NEW; and
 *   - the upper end of the 99% bootstrap CI reaches 1 + max-regression: a
 *     regression of at least the threshold is consistent with the data.
 * Deterministic counts fail when NEW/BASE - 1 exceeds the threshold.
 * Exit 0 pass, 1 regression, 2 unusable input.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/compare.h"

/*
 * Per-call p50, not the mean: under TCG a boot's mean is dominated by a few
 * calls that took a timer interrupt (per-boot CV: median 8.4% for the mean,
 * 2.3% for the p50, one vCPU; reports/gate/README.md).
 */
#define GATE_DEFAULT_METRICS	"func:*:p50,lock:*:hold_mean,workload:*:wall"
/* family-wise false-alarm bound (Holm over the gated metrics) */
#define GATE_DEFAULT_ALPHA	0.01
#define GATE_MIN_ROUNDS		3

struct gated {
	const struct fb_row *row;
	const struct fb_metric *m;
	char id[160];
	int tested;		/* 0: no data / count without change */
	double p, p_adj;	/* one-sided, Holm-adjusted */
	double lo, hi;		/* CI of the ratio */
	int have_ci;
	int regressed;
	char why[96];		/* why not tested */
};

static int match_any(const char *id, char *globs)
{
	char *save = NULL, *tok, *dup = strdup(globs);
	int hit = 0;

	if (!dup)
		return 0;
	for (tok = strtok_r(dup, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
		hit = !fnmatch(tok, id, 0);
	free(dup);
	return hit;
}

static int cmp_p(const void *x, const void *y)
{
	const struct gated *a = *(struct gated *const *)x, *b = *(struct gated *const *)y;

	return (a->p > b->p) - (a->p < b->p);
}

/* Holm-Bonferroni step-down over the tested noisy metrics. */
static void holm(struct gated *g, int n, double alpha)
{
	struct gated **s = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*s));
	int m = 0, stop = 0;
	double run = 0;

	if (!s)
		return;
	for (int i = 0; i < n; i++)
		if (g[i].tested && !g[i].m->deterministic)
			s[m++] = &g[i];
	qsort(s, (size_t)m, sizeof(*s), cmp_p);
	for (int k = 0; k < m; k++) {
		double adj = fmin(1, (m - k) * s[k]->p);

		run = fmax(run, adj);
		s[k]->p_adj = run;
		if (stop || s[k]->p >= alpha / (m - k)) {
			stop = 1;
			s[k]->regressed = 0;
		}
	}
	(void)alpha;
	free(s);
}

static void evaluate(struct gated *g, double alpha, double thr)
{
	const struct fb_metric *m = g->m;
	struct fb_mwu u;
	double lo99, hi99;
	int lower = m->lower_is_better != 0;	/* neutral counts: larger is worse */

	g->p = g->p_adj = 1;
	g->lo = g->hi = NAN;
	if (!m->na || !m->nb) {
		snprintf(g->why, sizeof(g->why), "no data on %s",
			 m->na ? "NEW" : m->nb ? "BASE" : "either side");
		return;
	}
	if (m->type == FB_M_COUNT && m->deterministic) {
		g->tested = 1;
		g->p = g->p_adj = 0;
		g->lo = g->hi = m->base ? m->new / m->base : (m->new ? INFINITY : 1);
		g->regressed = lower ? g->lo - 1 > thr / 100 : 1 - g->lo > thr / 100;
		return;
	}
	if (m->na < GATE_MIN_ROUNDS || m->nb < GATE_MIN_ROUNDS) {
		snprintf(g->why, sizeof(g->why), "%d+%d rounds, needs %d per side", m->na, m->nb,
			 GATE_MIN_ROUNDS);
		return;
	}
	if (fb_mann_whitney(m->a, m->na, m->b, m->nb, &u))
		return;
	g->tested = 1;
	g->p = lower ? u.p_greater : u.p_less;
	g->have_ci = fb_bootstrap_ratio_ci(m->a, m->na, m->b, m->nb, 1 - 2 * alpha,
					   FB_BOOT_ITERS, FB_BOOT_SEED, &g->lo, &g->hi) == 0;
	if (!g->have_ci) {
		/* base median 0: a regression from nothing; rank test only */
		g->regressed = g->p < alpha && m->new > m->base;
		return;
	}
	/* could the change be as large as the threshold?  wide (99%) interval */
	if (fb_bootstrap_ratio_ci(m->a, m->na, m->b, m->nb, 0.99, FB_BOOT_ITERS,
				  FB_BOOT_SEED, &lo99, &hi99)) {
		lo99 = g->lo;
		hi99 = g->hi;
	}
	/*
	 * The rank test (Holm-corrected in holm()) is what bounds false alarms;
	 * a bootstrap interval of medians from ~10 rounds is too coarse to be a
	 * second significance test (it cost a third of the detections of a 5%
	 * shift in tests/sim/gate_sim.c), so it only gives the direction and
	 * the reach of the effect.
	 */
	if (lower)
		g->regressed = g->p < alpha && m->new > m->base && hi99 >= 1 + thr / 100;
	else
		g->regressed = g->p < alpha && m->new < m->base && lo99 <= 1 - thr / 100;
}

/* 1 / C(na + nb, na): the smallest exact one-sided U p-value. */
static double min_p(int na, int nb)
{
	double c = 1;

	for (int i = 1; i <= na; i++)
		c = c * (nb + i) / i;
	return 1 / c;
}

/*
 * With few rounds no rank test can reach Holm's first threshold alpha/m:
 * such a gate could never fail.  Say so (exit 2) instead of passing.
 */
static int cannot_detect(const struct gated *g, int n, double alpha, char *err, size_t len)
{
	int m = 0, na = 0, nb = 0, need = 2;

	for (int i = 0; i < n; i++) {
		if (!g[i].tested)
			continue;
		if (g[i].m->type == FB_M_COUNT && g[i].m->deterministic)
			return 0;	/* exact counts can always fail */
		m++;
	}
	for (int i = 0; i < n; i++) {
		if (!g[i].tested || (g[i].m->type == FB_M_COUNT && g[i].m->deterministic))
			continue;
		if (min_p(g[i].m->na, g[i].m->nb) < alpha / m)
			return 0;
		na = g[i].m->na;
		nb = g[i].m->nb;
	}
	if (!m)
		return 0;
	while (min_p(need, need) >= alpha / m)
		need++;
	snprintf(err, len, "%d+%d rounds can never show a significant regression: the smallest "
		 "possible p is %.3g, not below alpha/%d = %.3g (Holm over %d metrics); "
		 "it needs at least %d rounds per side to be able to fail at all "
		 "(more to catch small regressions)", na, nb, min_p(na, nb), m, alpha / m, m, need);
	return 1;
}

static void fmt_val(const struct fb_metric *m, double v, char *buf, size_t len)
{
	if (!strcmp(m->unit, "ns"))
		fb_fmt_ns(v, buf, len);
	else
		fb_fmt_count(v, buf, len);
}

static void print_gated(FILE *f, const struct gated *g, double alpha, int width)
{
	char a[40], b[40], d[24];
	const struct fb_metric *m = g->m;

	fmt_val(m, m->base, a, sizeof(a));
	fmt_val(m, m->new, b, sizeof(b));
	fb_fmt_pct(m->na && m->nb ? m->st.delta_pct : NAN, d, sizeof(d));
	fprintf(f, "%-9s %-*s %12s -> %-12s %8s",
		g->regressed ? "REGRESSED" : g->tested ? "ok" : "untested", width, g->id,
		m->na ? a : "n/a", m->nb ? b : "n/a", d);
	if (!g->tested)
		fprintf(f, "  (%s)", g->why);
	else if (m->type == FB_M_COUNT && m->deterministic)
		fprintf(f, "  (exact count)");
	else if (g->have_ci)
		fprintf(f, "  p=%.2g (Holm %.2g), %.0f%% CI %+.1f%%..%+.1f%%", g->p, g->p_adj,
			(1 - 2 * alpha) * 100, (g->lo - 1) * 100, (g->hi - 1) * 100);
	else
		fprintf(f, "  p=%.2g (Holm %.2g)", g->p, g->p_adj);
	fputc('\n', f);
}

/* {"func:nft_trans_alloc": {"mean_ns": {"value": .., "lower_value": .., "upper_value": ..}}} */
static int write_bmf(const struct fb_cmp *c, const char *path)
{
	json_object *top = json_object_new_object();
	int ret;

	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];
		char bench[120];
		json_object *b = NULL;

		snprintf(bench, sizeof(bench), "%s:%s", fb_row_kind_name(row->kind), row->name);
		for (int k = 0; k < row->nm; k++) {
			const struct fb_metric *m = row->m[k];
			char meas[40];
			double lo = INFINITY, hi = -INFINITY;
			json_object *o;

			if (!m->nb)
				continue;
			for (int j = 0; j < m->nb; j++) {
				lo = fmin(lo, m->b[j]);
				hi = fmax(hi, m->b[j]);
			}
			if (m->per[0]) {	/* per-op value: bounds are the same */
				lo = hi = m->new;
			}
			if (!strcmp(m->unit, "ns"))
				snprintf(meas, sizeof(meas), "%s_ns", m->name);
			else
				snprintf(meas, sizeof(meas), "%s", m->name);
			o = json_object_new_object();
			json_object_object_add(o, "value", json_object_new_double(m->new));
			json_object_object_add(o, "lower_value", json_object_new_double(lo));
			json_object_object_add(o, "upper_value", json_object_new_double(hi));
			if (!b) {
				b = json_object_new_object();
				json_object_object_add(top, bench, b);
			}
			json_object_object_add(b, meas, o);
		}
	}
	ret = json_object_to_file_ext(path, top, JSON_C_TO_STRING_PRETTY);
	json_object_put(top);
	return ret;
}

static void gate_usage(FILE *f)
{
	fputs("usage: foliobench gate BASE NEW | AB_DIR [--max-regression PCT] [--metrics GLOB,...]\n"
	      "                       [--alpha A] [--bmf FILE] [--base-arm NAME] [--new-arm NAME]\n"
	      "  exit 0: pass; 1: a significant regression beyond PCT (default 5);\n"
	      "  2: unusable input.  Default metrics: " GATE_DEFAULT_METRICS "\n"
	      "  --alpha: family-wise false-alarm bound (default 0.01)\n"
	      "  metric ids: KIND:NAME:METRIC, see `foliobench compare --format csv`\n", f);
}

int cmd_gate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-regression", required_argument, NULL, 'r' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "bmf", required_argument, NULL, 'b' },
		FB_CMP_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fb_cmp_args ca = { .cmd = "gate", .alpha = GATE_DEFAULT_ALPHA, .alpha_max = 0.25 };
	char *globs = (char *)GATE_DEFAULT_METRICS;
	int ng = 0, nreg = 0, ntested = 0, width = 10, o, ret = 0;
	const char *bmf = NULL;
	struct gated *g = NULL;
	double thr = 5, alpha;
	struct fb_cmp c;
	char err[512];

	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "r:m:a:b:h", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
			if (fb_parse_double_arg(optarg, 0, 1000, &thr)) {
				fb_err("gate: --max-regression wants a percentage in [0, 1000], got '%s'", optarg);
				return 2;
			}
			break;
		case 'm':
			globs = optarg;
			break;
		case 'b':
			bmf = optarg;
			break;
		case 'h':
			gate_usage(stdout);
			return 0;
		case 'e':	/* --min-effect shapes compare's verdicts, not the gate */
			fb_err("gate: --min-effect does not apply; the gate uses --max-regression");
			return 2;
		default:
			if (fb_cmp_arg(&ca, o, optarg, argv[optind - 1]))
				return 2;
			break;
		}
	}
	alpha = ca.alpha;
	if (fb_cmp_open_args(&c, &ca, argc, argv)) {
		fb_cmp_free(&c);
		return 2;
	}
	for (int i = 0; i < c.nrows; i++)
		ng += c.rows[i].nm;
	g = calloc((size_t)ng + 1, sizeof(*g));
	if (!g) {
		fb_err("gate: out of memory");
		fb_cmp_free(&c);
		return 2;
	}
	ng = 0;
	for (int i = 0; i < c.nrows; i++)
		for (int k = 0; k < c.rows[i].nm; k++) {
			struct gated *x = &g[ng];

			fb_metric_id(&c.rows[i], c.rows[i].m[k], x->id, sizeof(x->id));
			if (!match_any(x->id, globs))
				continue;
			x->row = &c.rows[i];
			x->m = c.rows[i].m[k];
			if ((int)strlen(x->id) > width)
				width = (int)strlen(x->id);
			ng++;
		}
	if (!ng) {
		fb_err("gate: --metrics '%s' matches no metric (ids: `foliobench compare --format csv`)",
		       globs);
		ret = 2;
		goto out;
	}
	for (int i = 0; i < ng; i++)
		evaluate(&g[i], alpha, thr);
	holm(g, ng, alpha);
	for (int i = 0; i < ng; i++) {
		ntested += g[i].tested;
		nreg += g[i].regressed;
	}
	if (!ntested) {
		const char *why = g[0].why;

		for (int i = 0; i < ng; i++)
			if (strstr(g[i].why, "rounds"))
				why = g[i].why;
		fb_err("gate: no gated metric could be tested: %s", why[0] ? why : "no data");
		ret = 2;
		goto out;
	}
	if (cannot_detect(g, ng, alpha, err, sizeof(err))) {
		fb_err("gate: %s", err);
		ret = 2;
		goto out;
	}
	printf("gate: %s (%d rounds) vs %s (%d rounds), max regression %g%%, "
	       "alpha %g (one-sided, Holm over %d)\n",
	       c.base.name, c.base.n, c.new.name, c.new.n, thr, alpha, ntested);
	for (int i = 0; i < ng; i++)
		print_gated(stdout, &g[i], alpha, width);
	if (nreg) {
		printf("gate: FAIL: %d of %d gated metrics regressed beyond %g%%:\n", nreg, ntested, thr);
		for (int i = 0; i < ng; i++)
			if (g[i].regressed)
				print_gated(stdout, &g[i], alpha, width);
		ret = 1;
	} else {
		printf("gate: pass: no significant regression beyond %g%% in %d gated metrics\n",
		       thr, ntested);
	}
	if (bmf && write_bmf(&c, bmf)) {
		fb_err("gate: cannot write %s", bmf);
		ret = 2;
	}
out:
	free(g);
	fb_cmp_free(&c);
	fflush(stdout);
	return ret;
}
