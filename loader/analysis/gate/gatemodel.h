/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gatemodel.h - the regression gate as a pure function of the comparison model,
 * and its sequential form for `ab --until-decided`.  No I/O.
 *
 * Each gated metric ends in one state; the gate's outcome is
 *   fail     (exit 1): a metric regressed beyond the threshold, or NEW lost
 *                      a gated metric that BASE has (lost data);
 *   pass     (exit 0): every gated metric with a declared direction is
 *                      decided, and its interval lies on the good side of
 *                      the threshold;
 *   unknown  (exit 3): neither: too noisy (or too few rounds) to tell.
 * Exit 2 stays "unusable input".  Rules and measurements: docs/compare.md.
 */
#ifndef FB_GATEMODEL_H
#define FB_GATEMODEL_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/compare/cmpmodel.h"
#include "analysis/compare/gatedefs.h"
#include "analysis/gate/expect.h"
#include "analysis/gate/noise.h"

#define FB_GATE_ALPHA		0.01	/* family-wise false fails (Holm) */
#define FB_GATE_BETA		0.05	/* false passes at the threshold, per metric */

enum fb_gate_outcome {
	FB_GATE_PASS = 0,
	FB_GATE_FAIL = 1,
	FB_GATE_UNKNOWN = 3,
};

enum fb_gm_state {
	FB_GM_OK,		/* decided: interval on the good side of the threshold */
	FB_GM_REGRESSED,	/* significant regression beyond the threshold */
	FB_GM_LOST,		/* BASE has data, NEW lost it in some or all rounds */
	FB_GM_UNDECIDED,	/* neither: more rounds needed, or the sides' methods differ */
	FB_GM_REPORTED,		/* no declared direction: a change is reported only */
	FB_GM_UNTESTED,		/* no data in BASE, or missing in NEW and allowed */
};

/* A state's word in the gate's lines, compare's cells and JUnit: "ok", "REGRESSED", ... */
const char *fb_gm_state_name(enum fb_gm_state s);

struct fb_claims;

struct fb_gate_opts {
	const char *metrics;		/* comma-separated globs over metric ids */
	const char *allow_missing;	/* globs whose loss in NEW is accepted, or NULL */
	double alpha;			/* family-wise false fails, one-sided */
	double beta;			/* per metric false passes of a threshold-sized
					 * regression: pass needs the (1 - 2 beta) CI */
	double thr_pct;			/* --max-regression */
	const struct fb_noise *noise;	/* --noise: per-row spread, or NULL */
	struct fb_expect *expect;	/* --expect: declared trades, or NULL */
	const struct fb_claims *claims;	/* --expect's claims, judged, for JUnit, or NULL */
	/*
	 * --metrics was given: its globs are the whole choice, the observer's
	 * own rows included, and no row's declared metric (fb_row.gate)
	 * replaces what they match
	 */
	int metrics_chosen;
};

struct fb_gated {
	const struct fb_row *row;
	const struct fb_metric *m;
	char id[160];
	enum fb_gm_state state;
	int dir;		/* +1 larger is worse, -1 smaller is worse, 0 none declared */
	int exact;		/* deterministic count, compared exactly */
	int tested;		/* in the Holm family */
	int can_fail;		/* its smallest achievable p is below alpha / family */
	double p, p_adj;	/* one-sided in the worse direction; Holm-adjusted */
	double min_p;		/* smallest p the same test could give these rounds */
	double lo, hi;		/* (1 - 2 beta) CI of the median ratio */
	int have_ci;
	int lost;		/* NEW rounds without a value, when BASE has it */
	double cv_a, cv_b;	/* robust round-to-round CV (1.4826 MAD / median) */
	int need;		/* rounds per side the measured noise needs; 0 unknown */
	char why[120];
	const char *test;	/* the test behind p: "welch-log", "calibrated-t", "mann-whitney" */
	const struct fb_noise_entry *nz;	/* calibrated noise of this metric, or NULL */
	int noise_high;		/* these rounds were noisier than the calibration */
	double build_sd;	/* the calibrated build spread in its test (two builds), or 0 */
	double thr;		/* this metric's threshold (ratio - 1) */
	double mde;		/* minimum detectable effect at these rounds (ratio - 1) */
	double lo99, hi99;	/* 99% interval, for expectations */
	const struct fb_exp_line *exp;	/* its expectation, or NULL */
	enum fb_exp_state exp_state;
	int other_method;	/* its expectation holds for another observer method (why) */
	int gated;		/* matched --metrics (else only named by an expectation) */
};

struct fb_gate {
	int ng;
	struct fb_gated *g;
	int ntested, nreg, nlost, nundecided;
	int nincomparable;	/* of the undecided: timings measured by different methods */
	int nexp_failed, nexp_unknown;	/* expectations not met / not decided */
	int ndecidable;		/* gated metrics tested or compared exactly (with a direction) */
	int nplain;		/* gated metrics without an expectation */
	/*
	 * the runs behind the rounds (runs.h): a fatal issue of NEW fails the
	 * gate, any other issue (BASE's, interrupted, missing) makes a pass
	 * unknown; nothing tested (only exact counts) is unknown too
	 */
	int nrun_fail, nrun_unknown;
	int nexp_tested;	/* expectations decided by a test (not an exact count) */
	int none_tested;
	int cannot;		/* no gated metric could ever fail: exit 2 */
	int need_min;		/* with cannot: rounds per side to be able to fail */
	enum fb_gate_outcome outcome;
};

/*
 * The gate on a built model.  Returns 0, or -1 with one line in err when
 * --metrics matches nothing or memory runs out.  fb_gate_free() after.
 */
int fb_gate_eval(struct fb_gate *gt, const struct fb_cmp *c, const struct fb_gate_opts *o,
		 char *err, size_t errlen);
void fb_gate_free(struct fb_gate *gt);

/*
 * The direction in which a metric is worse: +1 larger, -1 smaller, 0 none
 * declared (then a change is reported, never failed).  From the model's
 * table (model.c): latencies and wall times +1; lock acquisitions and
 * contentions +1; calls, op counts, extra values, sizes 0.
 */
int fb_metric_dir(const struct fb_metric *m);

/* Smallest one-sided Mann-Whitney p that a rearrangement of these rounds
 * could give, by the same method (exact, or normal with ties) as the test. */
double fb_gate_min_p(const double *a, int na, const double *b, int nb);

/*
 * Sequential gate (`ab --until-decided`): looks after first, first + step,
 * ... up to max rounds per side.  Alpha is spent over the looks with a
 * Lan-DeMets spending function of the information fraction t = n / max,
 * and look k tests at the increment spent(t_k) - spent(t_k-1): by the
 * union bound over looks the false-fail rate of an A/A run, and the
 * false-pass rate of a regression at the threshold, stay below alpha
 * however many looks are made (conservative: the looks' correlation is
 * not used).
 */
enum fb_spending { FB_SPEND_POCOCK, FB_SPEND_OBF };

struct fb_seq {
	int first, step, max;	/* rounds per side */
	double alpha;		/* what is spent; fb_seq_decide() spends o->alpha and o->beta */
	enum fb_spending spending;
};

enum fb_seq_decision { FB_SEQ_CONTINUE, FB_SEQ_PASS, FB_SEQ_FAIL, FB_SEQ_UNKNOWN };

/* Number of looks, rounds at look k (1-based), cumulative alpha at n rounds. */
int fb_seq_looks(const struct fb_seq *s);
int fb_seq_rounds(const struct fb_seq *s, int look);
double fb_seq_spent(const struct fb_seq *s, int n);
/* Alpha for look k: spent(rounds(k)) - spent(rounds(k - 1)). */
double fb_seq_alpha(const struct fb_seq *s, int look);

/*
 * Decision at look k on the model built from the rounds so far: the gate
 * at fb_seq_alpha(k) for fails and the same spending of beta for passes; fail and pass stop, anything else continues until
 * the last look, which ends in unknown.  gt is filled (fb_gate_free()).
 */
enum fb_seq_decision fb_seq_decide(const struct fb_seq *s, int look, const struct fb_cmp *c,
				   const struct fb_gate_opts *o, struct fb_gate *gt,
				   char *err, size_t errlen);
const char *fb_seq_decision_name(enum fb_seq_decision d);

#endif /* FB_GATEMODEL_H */
