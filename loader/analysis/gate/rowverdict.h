/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rowverdict.h - one verdict per row (rowverdict.c): the gate's decision
 * written into the comparison model, so that compare, report, gate and
 * JUnit print one word for one statistic.
 *
 * compare's own test (two-sided Mann-Whitney, minimum effect 2%) on a
 * row's headline statistic (the mean) and the gate's (welch-log at +0.5%
 * on cmean/hold_p50 under icount) disagreed on one row: get_device_parent
 * read "improved -19.3%" (mean) in compare and "REGRESSED +1.7%" (cmean)
 * in the gate.  Now a gated row's verdict is the gate's, on the statistic
 * the gate decides, named in the cell; the other statistics keep
 * compare's test, each labelled with its own metric (csv).
 */
#ifndef FB_ROWVERDICT_H
#define FB_ROWVERDICT_H

#include "analysis/gate/gatemodel.h"

/*
 * The options `foliobench gate DIR` uses when given none: the defaults
 * of gatedefs.c for these rounds' clock, alpha 0.01, beta 0.05.
 */
void fb_gate_bare_opts(struct fb_gate_opts *o, const struct fb_cmp *c);

/*
 * gt (fb_gate_eval() on c with o) into the model: each gated metric's
 * gated, gate_word, gate_why and its verdict v in compare's words
 * (REGRESSED -> regressed, undecided -> inconclusive, LOST -> n/a, ok ->
 * improved when its whole interval is on the good side of 1, else no
 * change), and each gated row's primary its worst gated metric.
 */
void fb_gate_rows_from(struct fb_cmp *c, const struct fb_gate *gt, const struct fb_gate_opts *o);

/*
 * The bare gate on c, into the model; 0 (c unchanged when the gate cannot
 * decide anything), or -1 (said why) when the shipped noise does not read.
 */
int fb_gate_rows(struct fb_cmp *c);

/* What the bare gate decided, for a report's first lines. */
struct fb_gate_sum {
	int ran;	/* 0: it could not run (no rounds, no metric matched) */
	int rc;		/* `foliobench gate DIR`'s exit status: 0 pass, 1 fail, 3 unknown,
			 * 2 nothing decidable or no metric could ever fail */
	int ngated, nok, nreg, nlost, nundecided;
	int nrun_fail, nrun_unknown;
};

/* fb_gate_rows(), and its outcome into *sum (NULL: not wanted). */
int fb_gate_rows_sum(struct fb_cmp *c, struct fb_gate_sum *sum);

#endif /* FB_ROWVERDICT_H */
