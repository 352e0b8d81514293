// SPDX-License-Identifier: GPL-2.0
/*
 * gate.c - `foliobench gate BASE NEW`: a CI regression gate (the rules are
 * in gatemodel.c, gate.h), its report, and the Bencher Metric Format (BMF)
 * export.  Exit 0 pass, 1 fail (regression or lost data), 2 unusable
 * input, 3 unknown (not shown safe: too noisy or too few rounds).
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/compare.h"
#include "analysis/gate.h"

#define GATE_DEFAULT_METRICS	FB_GATE_METRICS
#define GATE_P50		FB_GATE_METRICS_P50
#define GATE_TAIL		FB_GATE_METRICS_TAIL
#define GATE_MAX_ALLOW		1024

static const char *state_name(enum fb_gm_state s)
{
	switch (s) {
	case FB_GM_OK:		return "ok";
	case FB_GM_REGRESSED:	return "REGRESSED";
	case FB_GM_LOST:	return "LOST";
	case FB_GM_UNDECIDED:	return "undecided";
	case FB_GM_REPORTED:	return "reported";
	case FB_GM_UNTESTED:	break;
	}
	return "untested";
}

static void print_gated(FILE *f, const struct fb_gated *g, double beta, int width)
{
	char a[40], b[40], d[24];
	const struct fb_metric *m = g->m;

	fb_fmt_value(m, m->base, a, sizeof(a));
	fb_fmt_value(m, m->new, b, sizeof(b));
	fb_fmt_pct(m->na && m->nb ? m->st.delta_pct : NAN, d, sizeof(d));
	fprintf(f, "%-9s %-*s %12s -> %-12s %8s", state_name(g->state), width, g->id,
		m->na ? a : "n/a", m->nb ? b : "n/a", d);
	if (g->exact)
		fprintf(f, "  (exact count%s)", g->dir ? "" : ", no declared direction");
	else if (!g->tested)
		fprintf(f, "  (%s)", g->why);
	else if (g->have_ci)
		fprintf(f, "  p=%.2g (Holm %.2g), %.0f%% CI %+.1f%%..%+.1f%%", g->p, g->p_adj,
			(1 - 2 * beta) * 100, (g->lo - 1) * 100, (g->hi - 1) * 100);
	else
		fprintf(f, "  p=%.2g (Holm %.2g)", g->p, g->p_adj);
	if (g->tested && g->state == FB_GM_UNDECIDED)
		fprintf(f, "; %s", g->why);
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
	else
		fprintf(f, "~%d rounds per side", g->need);
	if (g->need && g->need < 100000 && isfinite(g->cv_a) && isfinite(g->cv_b))
		fprintf(f, " (measured CV %.1f%% BASE, %.1f%% NEW)\n", g->cv_a * 100,
			g->cv_b * 100);
	else if (g->need && g->need < 100000)
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
	fputs("usage: foliobench gate BASE NEW | AB_DIR [--max-regression PCT] [--metrics LIST]\n"
	      "                       [--allow-missing GLOB] [--alpha A] [--beta B] [--bmf FILE]\n"
	      "                       [--base-arm NAME] [--new-arm NAME]\n"
	      "  exit 0: pass: every gated metric's interval lies below +PCT (default 5);\n"
	      "  exit 1: fail: a significant regression beyond PCT, or lost data (a gated\n"
	      "          metric BASE has is missing in some or all NEW rounds);\n"
	      "  exit 2: unusable input;\n"
	      "  exit 3: unknown: too noisy or too few rounds to tell; not shown safe.\n"
	      "  --metrics: comma-separated globs over metric ids, or a preset:\n"
	      "     default: " GATE_DEFAULT_METRICS "\n"
	      "     p50:     " GATE_P50 "\n"
	      "     tail:    " GATE_TAIL "\n"
	      "  --allow-missing GLOB: accept that NEW lost these metrics (repeatable)\n"
	      "  --alpha: family-wise false-alarm bound (default 0.01)\n"
	      "  --beta: per metric, the chance to pass a regression of exactly PCT\n"
	      "          (default 0.05: pass needs the 90% CI below +PCT)\n"
	      "  metric ids: KIND:NAME:METRIC, see `foliobench compare --format csv`\n", f);
}

/* --allow-missing values joined with commas into buf; -1 if too long */
static int add_allow(char *buf, size_t len, const char *glob)
{
	size_t l = strlen(buf);

	if (l + strlen(glob) + 2 > len)
		return -1;
	snprintf(buf + l, len - l, "%s%s", l ? "," : "", glob);
	return 0;
}

/* The gate's options into o and ca; -1 to exit with *rc (help: 0, bad: 2). */
static int gate_args(int argc, char **argv, struct fb_gate_opts *o, struct fb_cmp_args *ca,
		     char *allow, size_t allow_len, const char **bmf, int *rc)
{
	static const struct option opts[] = {
		{ "max-regression", required_argument, NULL, 'r' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "allow-missing", required_argument, NULL, 'M' },
		{ "beta", required_argument, NULL, 'P' },
		{ "bmf", required_argument, NULL, 'b' },
		FB_CMP_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*rc = 2;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "r:m:a:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!fb_parse_double_arg(optarg, 0, 1000, &o->thr_pct))
				break;
			fb_err("gate: --max-regression wants a percentage in [0, 1000], got '%s'",
			       optarg);
			return -1;
		case 'm':
			o->metrics = fb_gate_metrics_preset(optarg);
			break;
		case 'P':
			if (!fb_parse_double_arg(optarg, 1e-6, 0.25, &o->beta))
				break;
			fb_err("gate: --beta wants a number in (0, 0.25], got '%s'", optarg);
			return -1;
		case 'M':
			if (!add_allow(allow, allow_len, optarg))
				break;
			fb_err("gate: too many --allow-missing");
			return -1;
		case 'b':
			*bmf = optarg;
			break;
		case 'h':
			gate_usage(stdout);
			*rc = 0;
			return -1;
		case 'e':	/* --min-effect shapes compare's verdicts, not the gate */
			fb_err("gate: --min-effect does not apply; the gate uses --max-regression");
			return -1;
		default:
			if (fb_cmp_arg(ca, c, optarg, argv[optind - 1]))
				return -1;
			break;
		}
	}
	o->alpha = ca->alpha;
	return 0;
}

/* Exit 2 when nothing gated can decide; one line on stderr. */
static int unusable(const struct fb_gate *gt, double alpha)
{
	const struct fb_gated *t = NULL;
	const char *why = "no data";
	int decidable = 0;

	for (int i = 0; i < gt->ng; i++) {
		decidable += gt->g[i].tested || (gt->g[i].exact && gt->g[i].dir);
		if (gt->g[i].tested && !t)
			t = &gt->g[i];
		if (gt->g[i].why[0] && (why[0] == 'n' || strstr(gt->g[i].why, "rounds")))
			why = gt->g[i].why;
	}
	if (gt->outcome == FB_GATE_FAIL)
		return 0;
	if (!decidable) {
		fb_err("gate: no gated metric could be tested: %s", why);
		return 1;
	}
	if (!gt->cannot || !t)
		return 0;
	fb_err("gate: %d+%d rounds can never show a significant regression: the smallest "
	       "possible p is %.3g, not below alpha/%d = %.3g (Holm over %d metrics); it needs "
	       "at least %d rounds per side to be able to fail at all (more to catch small "
	       "regressions)", t->m->na, t->m->nb, t->min_p, gt->ntested, alpha / gt->ntested,
	       gt->ntested, gt->need_min);
	return 1;
}

static void print_verdict(FILE *f, const struct fb_gate *gt, const struct fb_gate_opts *o,
			  int width)
{
	double thr = o->thr_pct;

	if (gt->nreg) {
		fprintf(f, "gate: FAIL: %d of %d gated metrics regressed beyond %g%%:\n", gt->nreg,
			gt->ntested, thr);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_REGRESSED)
				print_gated(f, &gt->g[i], o->beta, width);
	}
	if (gt->nlost) {
		fprintf(f, "gate: FAIL: lost data: NEW lost %d gated metric(s) that BASE has "
			"(accept with --allow-missing METRIC):\n", gt->nlost);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_LOST)
				fprintf(f, "  %s: %s\n", gt->g[i].id, gt->g[i].why);
	}
	if (gt->outcome == FB_GATE_UNKNOWN) {
		fprintf(f, "gate: UNKNOWN: %d of %d gated metrics undecided: too noisy to tell a "
			"%g%% regression from none; not shown safe.  Rounds the measured noise "
			"needs to decide:\n", gt->nundecided, gt->ng, thr);
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_UNDECIDED)
				print_need(f, &gt->g[i], width);
	} else if (gt->outcome == FB_GATE_PASS) {
		fprintf(f, "gate: pass: every gated metric lies below +%g%% (%d tested)\n", thr,
			gt->ntested);
	}
}

int cmd_gate(int argc, char **argv)
{
	struct fb_cmp_args ca = { .cmd = "gate", .alpha = FB_GATE_ALPHA, .alpha_max = 0.25 };
	struct fb_gate_opts o = { .metrics = GATE_DEFAULT_METRICS, .thr_pct = FB_GATE_THR_PCT,
				  .beta = FB_GATE_BETA };
	char allow[GATE_MAX_ALLOW] = "", err[512];
	const char *bmf = NULL;
	struct fb_gate gt = { 0 };
	int width = 10, ret;
	struct fb_cmp c;

	if (gate_args(argc, argv, &o, &ca, allow, sizeof(allow), &bmf, &ret))
		return ret;
	o.allow_missing = allow;
	ret = 2;
	if (fb_cmp_open_args(&c, &ca, argc, argv))
		goto out;
	if (fb_gate_eval(&gt, &c, &o, err, sizeof(err))) {
		fb_err("gate: %s", err);
		goto out;
	}
	if (unusable(&gt, o.alpha))
		goto out;
	for (int i = 0; i < gt.ng; i++)
		if ((int)strlen(gt.g[i].id) > width)
			width = (int)strlen(gt.g[i].id);
	printf("gate: %s (%d rounds) vs %s (%d rounds), max regression %g%%, "
	       "alpha %g (one-sided, Holm over %d), beta %g\n",
	       c.base.name, c.base.n, c.new.name, c.new.n, o.thr_pct, o.alpha, gt.ntested, o.beta);
	for (int i = 0; i < gt.ng; i++)
		print_gated(stdout, &gt.g[i], o.beta, width);
	print_verdict(stdout, &gt, &o, width);
	ret = (int)gt.outcome;
	if (bmf && write_bmf(&c, bmf)) {
		fb_err("gate: cannot write %s", bmf);
		ret = 2;
	}
out:
	fb_gate_free(&gt);
	fb_cmp_free(&c);
	fflush(stdout);
	return ret;
}
