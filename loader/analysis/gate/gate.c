// SPDX-License-Identifier: GPL-2.0
/*
 * gate.c - `foliobench gate BASE NEW`: a CI regression gate (the rules are
 * in gatemodel.c, gate.h), its report, and the Bencher Metric Format (BMF)
 * export.  Exit 0 pass, 1 fail (regression or lost data), 2 unusable
 * input, 3 unknown (not shown safe: too noisy or too few rounds).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/compare/claims.h"
#include "analysis/compare/compare.h"
#include "analysis/history/history_gate.h"
#include "analysis/gate/gate.h"
#include "analysis/gate/gate_out.h"
#include "analysis/gate/gate_print.h"
#include "analysis/gate/junit.h"
#include "model/rounds.h"
#include "util/cli.h"
#include "util/util.h"
#include "util/outfile.h"

#define GATE_DEFAULT_METRICS	FB_GATE_METRICS
#define GATE_P50		FB_GATE_METRICS_P50
#define GATE_TAIL		FB_GATE_METRICS_TAIL
#define GATE_MAX_ALLOW		1024
#define GATE_MAX_CAL		64


/* --allow-missing values joined with commas into buf; -1 if too long */
static int add_allow(char *buf, size_t len, const char *glob)
{
	size_t l = strlen(buf);

	if (l + strlen(glob) + 2 > len)
		return -1;
	snprintf(buf + l, len - l, "%s%s", l ? "," : "", glob);
	return 0;
}

struct gate_cli {
	struct fb_cmp_args ca;
	struct fb_gate_opts o;
	struct fb_seq sq;	/* --looks; sq.max == 0: one fixed look */
	char allow[GATE_MAX_ALLOW];
	const char *bmf;
	const char *history;	/* --history DB */
	const char *noise_path;	/* --noise FILE: read, or written by --calibrate */
	const char *expect_path;	/* --expect FILE */
	struct fb_claims *claims;	/* its `claim` lines (claims.h) */
	const char *junit;	/* --junit FILE */
	int calibrate;		/* --calibrate: the operands are A/A runs */
	int across;		/* --across-builds: ... of two builds of one source */
	int ncal;
	char *cal[GATE_MAX_CAL];
};

/* --looks FIRST,STEP,MAX */
static int parse_looks(const char *s, struct fb_seq *sq)
{
	char tail;

	if (sscanf(s, "%d,%d,%d%c", &sq->first, &sq->step, &sq->max, &tail) != 3 ||
	    sq->first < 3 || sq->step < 1 || sq->max > FB_CMP_MAX_ROUNDS || !fb_seq_looks(sq)) {
		fb_err("gate: --looks wants FIRST,STEP,MAX rounds (3 <= FIRST <= MAX <= %d), "
		       "got '%s'", FB_CMP_MAX_ROUNDS, s);
		return -1;
	}
	return 0;
}

enum { OPT_ALLOW_MISSING = 0x200, OPT_BETA, OPT_LOOKS, OPT_HISTORY,
       OPT_CALIBRATE, OPT_ACROSS, OPT_NOISE, OPT_EXPECT, OPT_JUNIT };

static const struct argp_option gate_options[] = {
	{ "max-regression", 'r', "PCT", 0, "the largest slowdown that passes, in percent "
	  "(5; icount rounds: 0.5)", 0 },
	{ "metrics", 'm', "LIST", 0, "comma-separated globs over metric ids "
	  "(KIND:NAME:METRIC, see `foliobench compare --format csv`), or a preset: default, "
	  "p50, tail (below); with it the observer's own rows (catalogue series -, "
	  "getppid) are gated too, by default they are not", 0 },
	{ "allow-missing", OPT_ALLOW_MISSING, "GLOB", 0, "accept that NEW lost these metrics "
	  "(repeatable)", 0 },
	{ "beta", OPT_BETA, "B", 0, "per metric, the chance to pass a regression of exactly "
	  "PCT (0.05: pass needs the 90% CI below +PCT)", 0 },
	{ "bmf", 'b', "FILE", 0, "also write NEW's metrics in the Bencher Metric Format", 0 },
	{ "looks", OPT_LOOKS, "FIRST,STEP,MAX", 0, "the sequential gate of `ab "
	  "--until-decided`: looks at FIRST, FIRST+STEP, ... rounds up to MAX (alpha spent "
	  "over the looks), decided at the first look that decides, as ab stops there", 0 },
	{ "history", OPT_HISTORY, "DB", 0, "also fail when NEW starts a regressing step in "
	  "the run history DB (`foliobench history`, docs/history.md); AB_DIR only", 0 },
	{ "noise", OPT_NOISE, "FILE", 0, "per-row noise measured by --calibrate: a calibrated "
	  "metric's threshold is the larger of --max-regression and its minimum detectable "
	  "effect at the rounds used, and (icount) its test pools the calibrated spread.  "
	  "Default: the file in kernel-patches/noise/ calibrated on BASE's kernel, if any; "
	  "none: no calibrated noise", 0 },
	{ "calibrate", OPT_CALIBRATE, NULL, 0, "measure per-row noise instead of gating: the "
	  "operands are A/A ab directories (both arms one kernel); writes --noise FILE "
	  "(default DIR/noise.json)", 0 },
	{ "across-builds", OPT_ACROSS, NULL, 0, "with --calibrate: a directory whose arms are "
	  "two builds of one source (baseline and the comment-only noop arm) also measures "
	  "each row's build spread, which the gate adds when BASE and NEW are two builds", 0 },
	{ "expect", OPT_EXPECT, "FILE", 0, "declared trades (kernel-patches/SERIES/expect): "
	  "each declared change must happen within its bound, the rest is gated as usual", 0 },
	{ "junit", OPT_JUNIT, "FILE", 0, "also write the verdict as JUnit XML (a testcase per "
	  "gated metric; unknown is skipped)", 0 },
	{ 0 },
};

/* One gate option into g; 0, or -1 with one line printed. */
static int gate_opt(struct gate_cli *g, int c, const char *arg)
{
	switch (c) {
	case 'r':
		if (!fb_parse_double_arg(arg, 0, 1000, &g->o.thr_pct))
			return 0;
		fb_err("gate: --max-regression wants a percentage in [0, 1000], got '%s'", arg);
		return -1;
	case 'm':
		g->o.metrics = fb_gate_metrics_preset(arg);
		g->o.metrics_chosen = 1;
		return 0;
	case OPT_ALLOW_MISSING:
		if (!add_allow(g->allow, sizeof(g->allow), arg))
			return 0;
		fb_err("gate: too many --allow-missing");
		return -1;
	case OPT_BETA:
		if (!fb_parse_double_arg(arg, 1e-6, 0.25, &g->o.beta))
			return 0;
		fb_err("gate: --beta wants a number in (0, 0.25], got '%s'", arg);
		return -1;
	case OPT_LOOKS:
		return parse_looks(arg, &g->sq);
	case 'b':
		g->bmf = arg;
		return 0;
	case OPT_HISTORY:
		g->history = arg;
		return 0;
	case OPT_NOISE:
		g->noise_path = arg;
		return 0;
	case OPT_CALIBRATE:
		g->calibrate = 1;
		return 0;
	case OPT_ACROSS:
		g->across = 1;
		return 0;
	case OPT_EXPECT:
		g->expect_path = arg;
		return 0;
	case OPT_JUNIT:
		g->junit = arg;
		return 0;
	}
	return 1;
}

static error_t gate_parse(int key, char *arg, struct argp_state *state)
{
	struct gate_cli *g = state->input;
	int r;

	if (key == ARGP_KEY_ARG && g->calibrate && g->ca.nops >= 2) {
		if (g->ncal + g->ca.nops >= GATE_MAX_CAL) {
			fb_err("gate: --calibrate takes at most %d directories", GATE_MAX_CAL);
			return EINVAL;
		}
		g->cal[g->ncal++] = arg;
		return 0;
	}
	if (key == ARGP_KEY_SUCCESS) {
		g->o.alpha = g->sq.alpha = g->ca.alpha;
		g->o.allow_missing = g->allow;
		return 0;
	}
	r = gate_opt(g, key, arg);
	return r > 0 ? ARGP_ERR_UNKNOWN : r ? EINVAL : 0;
}

static const struct argp gate_argp = {
	gate_options, gate_parse, FB_CMP_ARGS_DOC,
	"The CI regression gate: passes when every gated metric of NEW is shown to be no "
	"worse than BASE by more than --max-regression, fails on a significant regression "
	"beyond it or on lost data (a gated metric BASE has is missing in NEW), and is "
	"unknown otherwise (too noisy or too few rounds: not shown safe).  " FB_CMP_OPERANDS_DOC
	"  The rules: docs/compare.md."
	"\vExit status: 0 pass, 1 fail, 2 unusable input (one line on stderr), 3 unknown.\n"
	"--metrics presets:\n"
	"  default  " GATE_DEFAULT_METRICS "\n"
	"           icount rounds: " FB_GATE_METRICS_ICOUNT "\n"
	"  p50      " GATE_P50 "\n"
	"  tail     " GATE_TAIL,
	NULL, NULL, NULL,
};

/* Gated metrics tested, or decided exactly (a deterministic count with a direction). */
static int ndecidable(const struct fb_gate *gt)
{
	int n = 0;

	for (int i = 0; i < gt->ng; i++)
		n += gt->g[i].tested || (gt->g[i].exact && gt->g[i].dir);
	return n;
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


/* Look k of --looks for the rounds at hand: the last look they complete. */
static int look_of(const struct fb_seq *sq, const struct fb_cmp *c)
{
	int n = c->base.n < c->new.n ? c->base.n : c->new.n, k = 0;

	while (k < fb_seq_looks(sq) && fb_seq_rounds(sq, k + 1) <= n)
		k++;
	if (!k)
		fb_err("gate: %d+%d rounds, fewer than the first look of --looks (%d)", c->base.n,
		       c->new.n, sq->first);
	return k;
}

static void write_junit(const char *path, const struct fb_gate *gt, const struct fb_cmp *c,
			const struct fb_gate_opts *o)
{
	char side_err[PATH_MAX + 128];

	if (fb_junit_save(path, gt, c, o, side_err, sizeof(side_err)))	/* the verdict stands */
		fprintf(stderr, "foliobench: warning: gate: --junit %s; the verdict (exit %d) "
			"stands\n", side_err, (int)gt->outcome);
}

/*
 * The gate on an open model, printed to f: fixed (sq->max == 0), or look
 * k of a sequential gate.  Returns the exit status: 0, 1, 3, or 2 with one
 * line on stderr; *decision gets the sequential decision.
 */
/* The claims of --expect folded into the verdict (and look k's decision). */
static void gate_claims(FILE *f, struct fb_claims *cl, const struct fb_cmp *c,
			struct fb_gate *gt, const struct fb_seq *sq, int k,
			enum fb_seq_decision *decision)
{
	fb_claims_eval(cl, c);
	gt->outcome = (enum fb_gate_outcome)fb_claims_gate(f, cl, (int)gt->outcome);
	if (k && gt->outcome == FB_GATE_FAIL)
		*decision = FB_SEQ_FAIL;
	else if (k && gt->outcome == FB_GATE_UNKNOWN && *decision == FB_SEQ_PASS)
		*decision = k >= fb_seq_looks(sq) ? FB_SEQ_UNKNOWN : FB_SEQ_CONTINUE;
}

static int gate_report(FILE *f, const struct fb_cmp *c, const struct fb_gate_opts *o,
		       const struct fb_seq *sq, int k, enum fb_seq_decision *decision,
		       const char *junit, struct fb_claims *cl)
{
	struct fb_gate_opts ok = *o;
	struct fb_gate gt = { 0 };
	int width = 10, ret = 2;
	char err[512] = "", nzs[600];

	if (k) {
		*decision = fb_seq_decide(sq, k, c, o, &gt, err, sizeof(err));
		ok.alpha = fb_seq_alpha(sq, k);
		ok.beta = o->beta * ok.alpha / sq->alpha;
		/* a look that checked nothing is no pass either (issue 30) */
		if (!err[0] && !ndecidable(&gt) && unusable(&gt, o->alpha)) {
			*decision = FB_SEQ_UNKNOWN;
			goto out;
		}
	} else if (!fb_gate_eval(&gt, c, o, err, sizeof(err)) && unusable(&gt, o->alpha)) {
		goto out;	/* said why */
	}
	if (err[0]) {
		fb_err("gate: %s", err);
		goto out;
	}
	for (int i = 0; i < gt.ng; i++)
		if ((int)strlen(gt.g[i].id) > width)
			width = (int)strlen(gt.g[i].id);
	if (k)
		fprintf(f, "gate: sequential look %d of %d (%d rounds per side, up to %d): alpha "
			"%.3g and beta %.3g spent at this look (Pocock spending of %g and %g)\n", k,
			fb_seq_looks(sq), fb_seq_rounds(sq, k), sq->max, ok.alpha, ok.beta,
			sq->alpha, o->beta);
	if (o->noise)
		snprintf(nzs, sizeof(nzs), "noise %s (%d A/A rounds)", o->noise->path,
			 o->noise->rounds);
	fprintf(f, "gate: %s (%d rounds) vs %s (%d rounds), max regression %g%%, "
		"alpha %.3g (one-sided, Holm over %d), beta %.3g, %s\n", c->base.name, c->base.n,
		c->new.name, c->new.n, o->thr_pct, ok.alpha, gt.ntested, ok.beta,
		o->noise ? nzs : "no calibrated noise");
	for (int i = 0; i < gt.ng; i++)
		fb_gate_print_gated(f, &gt.g[i], ok.beta, width);
	if (cl)
		gate_claims(f, cl, c, &gt, sq, k, decision);
	fb_gate_print_verdict(f, &gt, &ok, c, width);
	ret = (int)gt.outcome;
	ok.claims = cl;
	if (junit)
		write_junit(junit, &gt, c, &ok);
	if (k && *decision == FB_SEQ_CONTINUE)
		fprintf(f, "gate: undecided at look %d: continue to %d rounds per side\n", k,
			fb_seq_rounds(sq, k + 1));
	if (k && *decision == FB_SEQ_PASS)
		ret = FB_GATE_PASS;
	else if (k && *decision != FB_SEQ_FAIL)
		ret = FB_GATE_UNKNOWN;
out:
	fb_gate_free(&gt);
	fflush(f);
	return ret;
}

/*
 * ab --until-decided's look: the same rule as `gate --looks` on the same
 * rounds, the shipped noise included (fb_noise_default()), so that ab stops
 * where the gate decides and the two never disagree.
 */
int fb_gate_look(FILE *f, const char *dir, const char *base_arm, const char *new_arm,
		 const struct fb_seq *sq, int look)
{
	struct fb_gate_opts o = { .metrics = NULL, .alpha = sq->alpha,
				  .beta = FB_GATE_BETA, .thr_pct = -1, .allow_missing = "" };
	char err[512], *paths[1] = { (char *)dir };
	enum fb_seq_decision d = FB_SEQ_UNKNOWN;
	struct fb_noise *nz = NULL;
	struct fb_cmp c;

	if (fb_cmp_open(&c, 1, paths, base_arm, new_arm, FB_CMP_DEFAULT_ALPHA,
			FB_CMP_DEFAULT_MIN_EFFECT, 0, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("gate: %s", err);
		d = FB_SEQ_UNKNOWN;
	} else if (fb_noise_default(&nz, &c)) {
		d = FB_SEQ_UNKNOWN;
	} else if ((o.metrics = fb_gate_metrics_for(&c, NULL)),
		   (o.thr_pct = fb_gate_thr_for(&c, -1)), (o.noise = nz),
		   gate_report(f, &c, &o, sq, look, &d, NULL, NULL) == 2) {
		d = FB_SEQ_UNKNOWN;
	}
	free(nz);
	fb_cmp_free(&c);
	return (int)d;
}

/*
 * `gate --looks` on rounds that reach look k: the sequential gate stops at
 * the first look that decides (ab --until-decided stops there), so looks
 * 1..k-1 are replayed on their first rounds; judging only look k would
 * spend alpha a second time on rows an earlier look had already passed.
 * Leaves c at the deciding look's rounds; returns that look, or 0 (said why).
 */
static int seq_replay(struct fb_cmp *c, const struct fb_gate_opts *o, const struct fb_seq *sq,
		      int k)
{
	char err[512] = "";

	for (int j = 1; j < k; j++) {
		enum fb_seq_decision d;
		struct fb_gate gt;

		if (fb_cmp_first_rounds(c, fb_seq_rounds(sq, j), err, sizeof(err)))
			break;
		d = fb_seq_decide(sq, j, c, o, &gt, err, sizeof(err));
		fb_gate_free(&gt);
		if (err[0])
			break;
		if (d != FB_SEQ_CONTINUE) {
			printf("gate: decided at look %d of %d (%d rounds per side): the rounds after "
			       "them are not used (ab --until-decided stops there)\n", j,
			       fb_seq_looks(sq), fb_seq_rounds(sq, j));
			return j;
		}
	}
	if (!err[0] && !fb_cmp_first_rounds(c, 0, err, sizeof(err)))
		return k;
	fb_one_line(err);
	fb_err("gate: %s", err);
	return 0;
}

/*
 * --history DB: the pairwise verdict, or 1 if the history shows a regressing
 * step; a pass becomes unknown (3) when the history could check nothing.
 */
static int gate_history(const struct gate_cli *g, int ret)
{
	struct fb_cp_opts cpo;
	int h;

	if (g->ca.nops != 1) {
		fb_err("gate: --history wants one ab directory, not BASE NEW");
		return 2;
	}
	fb_cp_defaults(&cpo);
	h = fb_history_gate(g->history, g->ca.ops[0], g->ca.new_arm, g->ca.base_arm, &cpo, stdout);
	return h == 2 ? 2 : ret == FB_GATE_FAIL ? ret : h == 1 ? FB_GATE_FAIL :
	       h == 3 && ret == FB_GATE_PASS ? FB_GATE_UNKNOWN : ret;
}

/* --noise and --expect: read, and checked against these rounds; 0 or -1 (said why) */
static int gate_inputs(struct gate_cli *g, const struct fb_cmp *c)
{
	struct fb_noise *nz;
	char err[1024] = "out of memory";	/* what a failed calloc leaves */

	if (!g->noise_path) {
		if (fb_noise_default(&nz, c))
			return -1;
		g->o.noise = nz;
	} else if (strcmp(g->noise_path, "none")) {
		nz = calloc(1, sizeof(*nz));
		g->o.noise = nz;
		if (!nz || fb_noise_read(nz, g->noise_path, err, sizeof(err)) ||
		    fb_noise_check(nz, c, err, sizeof(err)))
			goto bad;
	}
	if (g->expect_path) {
		g->o.expect = calloc(1, sizeof(*g->o.expect));
		if (!g->o.expect || fb_expect_read(g->o.expect, g->expect_path, err, sizeof(err)) ||
		    fb_expect_resolve(g->o.expect, c, err, sizeof(err)))
			goto bad;
		g->claims = calloc(1, sizeof(*g->claims));
		if (!g->claims || fb_claims_read(g->claims, g->expect_path, err, sizeof(err)) ||
		    fb_claims_check(g->claims, c, err, sizeof(err)))
			goto bad;
	}
	return 0;
bad:
	fb_one_line(err);
	fb_err("gate: %s", err);
	return -1;
}

int cmd_gate(int argc, char **argv)
{
	char side_err[PATH_MAX + 128];
	struct gate_cli g = {
		.ca = { .cmd = "gate", .alpha = FB_GATE_ALPHA, .alpha_max = 0.25 },
		.o = { .metrics = fb_gate_metrics_default, .thr_pct = -1,
		       .beta = FB_GATE_BETA },
		.sq = { .spending = FB_SPEND_POCOCK },
	};
	enum fb_seq_decision d = FB_SEQ_UNKNOWN;
	char err[1024];
	int ret, k = 0;
	struct fb_cmp c;

	ret = fb_argp_parse_shared(&gate_argp, &g, &fb_cmp_argp, &g.ca, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (g.across && !g.calibrate) {
		fb_err("gate: --across-builds goes with --calibrate (it measures a noise file)");
		return 2;
	}
	if (g.calibrate) {
		char *dirs[GATE_MAX_CAL];
		int n = 0;

		for (int i = 0; i < g.ca.nops; i++)
			dirs[n++] = g.ca.ops[i];
		for (int i = 0; i < g.ncal; i++)
			dirs[n++] = g.cal[i];
		return fb_gate_calibrate(dirs, n, g.ca.base_arm, g.ca.new_arm, g.noise_path,
					 g.across);
	}
	ret = 2;
	if (fb_cmp_open_args(&c, &g.ca))
		goto out;
	if (fb_cmp_distinct(&c, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("gate: %s", err);
		goto out;
	}
	if (g.sq.max && !(k = look_of(&g.sq, &c)))
		goto out;
	g.o.metrics = fb_gate_metrics_for(&c, g.o.metrics);
	g.o.thr_pct = fb_gate_thr_for(&c, g.o.thr_pct);
	if (gate_inputs(&g, &c))
		goto out;
	if (k > 1 && !(k = seq_replay(&c, &g.o, &g.sq, k)))
		goto out;
	ret = gate_report(stdout, &c, &g.o, &g.sq, k, &d, g.junit,
			  g.claims && g.claims->n ? g.claims : NULL);
	if (ret == FB_GATE_UNKNOWN && !g.o.noise && !g.noise_path)
		fb_noise_hint(stdout, &c);
	if (g.history && ret != 2)
		ret = gate_history(&g, ret);
	/* the verdict stands: a CI that failed must not read as "bad input" */
	if (ret != 2 && g.bmf && fb_gate_write_bmf(&c, g.bmf, side_err, sizeof(side_err)))
		fprintf(stderr, "foliobench: warning: gate: --bmf %s; the verdict (exit %d) "
			"stands\n", side_err, ret);
out:
	fb_cmp_free(&c);
	free((void *)g.o.noise);
	free(g.o.expect);
	free(g.claims);
	fflush(stdout);
	return ret;
}
