// SPDX-License-Identifier: GPL-2.0
/*
 * gate_sim.c - operating characteristics of the gate on synthetic rounds
 * (tests/sim/synth.h; not kernel data): how often it fails, passes and
 * ends unknown, with a fixed number of rounds or sequentially as
 * `ab --until-decided` runs it, through the same model and gate functions
 * as `foliobench gate` (fb_cmp_build, fb_gate_eval, fb_seq_decide).
 *
 *   make sim                  (builds build/sim/gate_sim)
 *   build/sim/gate_sim fixed ROUNDS TRIALS SHIFT SD [METRICS]
 *   build/sim/gate_sim seq FIRST STEP MAX TRIALS SHIFT SD [METRICS]
 *   e.g. gate_sim fixed 15 1000 0.05 0.023; gate_sim seq 10 5 40 1000 0 0.3
 *
 * SHIFT moves a_func's scale in NEW (0.05 = +5%); SD is the relative
 * round-to-round noise of every probe and the wall time.  METRICS is a
 * gate --metrics list or preset (default, p50, tail).  A fail counts as a
 * detection when a_func is among the REGRESSED metrics.
 *
 * A study, not a test: make test never runs it (`make unit` builds it, so
 * it keeps compiling); its rates are quoted in docs/compare.md and
 * reports/gate/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate/gate.h"
#include "synth.h"

struct tally {
	int fail, named, pass, unknown, error;
	long rounds;
};

static void count(struct tally *t, int fail, int pass, const struct fb_gate *gt, int rounds)
{
	int named = 0;

	for (int i = 0; i < gt->ng; i++)
		named |= gt->g[i].state == FB_GM_REGRESSED && !strncmp(gt->g[i].id, "func:a_func:", 12);
	t->fail += fail;
	t->named += fail && named;
	t->pass += pass;
	t->unknown += !fail && !pass;
	t->rounds += rounds;
}

/* One trial: rounds are added to both sides until the gate decides. */
static int trial(const struct fb_seq *sq, const struct synth *s, const struct fb_gate_opts *o,
		 int sequential, struct tally *t)
{
	struct fb_cmp c = { 0 };
	struct fb_gate gt = { 0 };
	char err[256];
	int looks = sequential ? fb_seq_looks(sq) : 1, ret = 0;

	for (int k = 1; k <= looks; k++) {
		int n = sequential ? fb_seq_rounds(sq, k) : sq->max;
		enum fb_seq_decision d;

		while (c.base.n < n)
			if (synth_add(&c.base, s, 0) || synth_add(&c.new, s, 1))
				goto bad;
		if (synth_build(&c))
			goto bad;
		fb_gate_free(&gt);
		if (!sequential) {
			if (fb_gate_eval(&gt, &c, o, err, sizeof(err)))
				goto bad;
			count(t, gt.outcome == FB_GATE_FAIL, gt.outcome == FB_GATE_PASS && !gt.cannot,
			      &gt, n);
			break;
		}
		err[0] = '\0';
		d = fb_seq_decide(sq, k, &c, o, &gt, err, sizeof(err));
		if (err[0])
			goto bad;
		if (d != FB_SEQ_CONTINUE) {
			count(t, d == FB_SEQ_FAIL, d == FB_SEQ_PASS, &gt, n);
			break;
		}
	}
	goto out;
bad:
	t->error++;
	ret = -1;
out:
	fb_gate_free(&gt);
	fb_cmp_free(&c);
	return ret;
}

static void usage(void)
{
	fputs("usage: gate_sim fixed ROUNDS TRIALS SHIFT SD [METRICS]\n"
	      "       gate_sim seq FIRST STEP MAX TRIALS SHIFT SD [METRICS]\n", stderr);
}

int main(int argc, char **argv)
{
	struct fb_gate_opts o = { .metrics = FB_GATE_METRICS, .alpha = FB_GATE_ALPHA,
				  .beta = FB_GATE_BETA, .thr_pct = FB_GATE_THR_PCT };
	struct fb_seq sq = { .alpha = FB_GATE_ALPHA, .spending = FB_SPEND_POCOCK };
	struct synth s = { 0 };
	struct tally t = { 0 };
	int seq, trials, a;

	if (argc < 2 || (strcmp(argv[1], "fixed") && strcmp(argv[1], "seq"))) {
		usage();
		return 2;
	}
	seq = !strcmp(argv[1], "seq");
	if (argc < (seq ? 8 : 6) || argc > (seq ? 9 : 7)) {
		usage();
		return 2;
	}
	a = 2;
	if (seq) {
		sq.first = atoi(argv[a++]);
		sq.step = atoi(argv[a++]);
	}
	sq.max = atoi(argv[a++]);
	if (!seq)
		sq.first = sq.step = sq.max;
	trials = atoi(argv[a++]);
	s.shift = atof(argv[a++]);
	s.sd = atof(argv[a++]);
	o.metrics = fb_gate_metrics_preset(a < argc ? argv[a] : NULL);
	if (sq.max < 1 || sq.max > FB_CMP_MAX_ROUNDS || !fb_seq_looks(&sq) || trials < 1) {
		usage();
		return 2;
	}
	for (int i = 0; i < trials; i++)
		trial(&sq, &s, &o, seq, &t);
	printf("synthetic rounds (not kernel data): %s, ", seq ? "sequential" : "fixed");
	if (seq)
		printf("looks at %d+%d.. up to %d rounds per side (%d looks, Pocock spending)",
		       sq.first, sq.step, sq.max, fb_seq_looks(&sq));
	else
		printf("%d rounds per side", sq.max);
	printf(", a_func shift %+.1f%%, noise SD %.1f%%, metrics %s\n", s.shift * 100, s.sd * 100,
	       o.metrics);
	printf("  of %d trials: fail %d (a_func named %d), pass %d, unknown %d; "
	       "rounds per side used: mean %.1f%s\n", trials - t.error, t.fail, t.named, t.pass,
	       t.unknown, (double)t.rounds / (trials - t.error > 0 ? trials - t.error : 1),
	       t.error ? " (some trials failed to build)" : "");
	return t.error ? 1 : 0;
}
