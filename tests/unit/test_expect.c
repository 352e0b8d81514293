// SPDX-License-Identifier: GPL-2.0
/*
 * test_expect.c - declared trades (gate/expect.h) and observer methods on
 * synthetic rounds (gate_fixture.h; not kernel data): the expectations
 * file's syntax, lines, includes and FILE:LINE errors, the verdict of one
 * line, the gate with an expectation and its JUnit XML, and a row whose
 * method differs between the sides (inconclusive timings, exact counts,
 * a trade declared for another method not decided).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/gate/junit.h"
#include "gate_fixture.h"

/* ---- declared trades (expect.h) ---- */

static void test_expect_parse(void)
{
	static const struct { const char *s; enum fb_exp_kind k; double pct; const char *kind; }
	good[] = {
		{ "kernfs_rwsem hold_p50 rise <= +40%", FB_EXP_RISE_LE, 40, "" },
		{ "lock:kernfs_rwsem acquisitions fall >= 25%", FB_EXP_FALL_GE, 25, "lock" },
		{ "nft_trans_alloc cmean fall <= -3.5%", FB_EXP_FALL_LE, 3.5, "" },
		{ "x wall rise >= 2%", FB_EXP_RISE_GE, 2, "" },
		{ "kernfs_activate calls drop-to 0", FB_EXP_DROP0, 100, "" },
		{ "kernfs_rwsem hold_p50 rise <= +50% for fexit+fentry/lock", FB_EXP_RISE_LE, 50,
		  "" },
	};
	static const char *const bad[] = {
		"x y", "x y rise < 5%", "x y rise <= 5", "x y fall >= 0%", "x y rise <= -4%",
		"bogus:x y rise <= 5%", "x y drop-to 1", "x y rise <= 5% extra", "x y fall >= 101%",
		"x y sideways <= 5%", "x y rise <= 5% fro fentry", "x y rise <= 5% for",
		"x y rise <= 5% for fentry extra", "x y drop-to 0 for fentry",
	};
	struct fb_exp_line l;
	char why[200];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECKF(fb_expect_parse_line(good[i].s, &l, why, sizeof(why)) == 0 &&
		       l.k == good[i].k && fabs(l.pct - good[i].pct) < 1e-9 &&
		       !strcmp(l.kind, good[i].kind) &&
		       !strcmp(l.method, strstr(good[i].s, " for ") ? "fexit+fentry/lock" : ""),
		       "expect line '%s' parses", good[i].s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECKF(fb_expect_parse_line(bad[i], &l, why, sizeof(why)) == -1 && why[0],
		       "expect line '%s' refused: %s", bad[i], why);
}

static void test_expect_file(void)
{
	char dir[] = "/tmp/fb-test-expect.XXXXXX", path[80], err[1024];
	static struct fb_expect e;

	CHECK(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/expect", dir);
	tap_put(NULL, path, "a_func p50 fall >= 5%\n");
	CHECKF(fb_expect_read(&e, path, err, sizeof(err)) == -1 && strstr(err, "expect:1: the "
	       "first line must be 'foliobench-expect 1'"), "no header: FILE:1 (%s)", err);
	tap_put(NULL, path, "foliobench-expect 1\n# a comment\n\na_func p50 fall 5%\n");
	CHECKF(fb_expect_read(&e, path, err, sizeof(err)) == -1 && strstr(err, "expect:4: "),
	       "bad line 4: FILE:4 (%s)", err);
	tap_put(NULL, path, "foliobench-expect 1\na_func p50 fall >= 5%   # win\n"
		"include more\n");
	tap_put(dir, "more", "foliobench-expect 1\nb_func  p90\trise <= +3%\n");
	CHECKF(fb_expect_read(&e, path, err, sizeof(err)) == 0 && e.n == 2 && e.nfiles == 2 &&
	       e.l[1].line == 2 && strstr(fb_expect_file(&e, &e.l[1]), "/more") &&
	       !strcmp(e.l[1].text, "b_func p90 rise <= +3%"),
	       "include: 2 lines from 2 files, each with its file and line");
	unlink(path);
	snprintf(path, sizeof(path), "%s/more", dir);
	unlink(path);
	rmdir(dir);
}

static void test_expect_judge(void)
{
	struct fb_exp_line fall = { .k = FB_EXP_FALL_GE, .pct = 15 };
	struct fb_exp_line rise = { .k = FB_EXP_RISE_LE, .pct = 40 };
	struct fb_exp_line drop = { .k = FB_EXP_DROP0, .pct = 100 };
	struct fb_exp_eval ex = { .exact = 1, .r = 0.5, .na = 5 };
	struct fb_exp_eval ci = { .have_ci = 1, .lo = 0.7, .hi = 0.8, .lo99 = 0.65, .hi99 = 0.85,
				  .na = 5 };

	CHECK(fb_expect_judge(&fall, &ex) == FB_EXP_MET, "exact -50% meets fall >= 15%");
	ex.r = 0.9;
	CHECK(fb_expect_judge(&fall, &ex) == FB_EXP_FAILED, "exact -10% fails fall >= 15%");
	CHECK(fb_expect_judge(&fall, &ci) == FB_EXP_MET, "interval -30..-20% meets fall >= 15%");
	ci.lo = 0.8, ci.hi = 0.9, ci.lo99 = 0.78, ci.hi99 = 0.92;
	CHECK(fb_expect_judge(&fall, &ci) == FB_EXP_UNKNOWN, "interval across -15%: unknown");
	ci.lo = 0.95, ci.hi = 1.0, ci.lo99 = 0.9, ci.hi99 = 1.02;
	CHECK(fb_expect_judge(&fall, &ci) == FB_EXP_FAILED, "a win that did not happen fails");
	ci.lo = 1.2, ci.hi = 1.3, ci.lo99 = 1.18, ci.hi99 = 1.32;
	CHECK(fb_expect_judge(&rise, &ci) == FB_EXP_MET, "+20..30% within rise <= +40%");
	ci.lo = 1.45, ci.hi = 1.5, ci.lo99 = 1.42, ci.hi99 = 1.52;
	CHECK(fb_expect_judge(&rise, &ci) == FB_EXP_FAILED, "+42..52% beyond rise <= +40%: fails");
	ex.nb_nonzero = 0;
	CHECK(fb_expect_judge(&drop, &ex) == FB_EXP_MET, "no NEW round with calls: drop-to 0 met");
	ex.nb_nonzero = 1;
	CHECK(fb_expect_judge(&drop, &ex) == FB_EXP_FAILED, "calls left in NEW: drop-to 0 fails");
}

/* the gate with an expectation and its JUnit XML, on synthetic rounds */
static void test_expect_gate_junit(void)
{
	static struct fb_expect e = { .path = "synthetic", .n = 1 };
	struct synth aa = { .sd = 0.01 }, reg = { .sd = 0.01, .shift = 0.2 };
	struct fb_gate_opts o = defaults;
	struct fb_gate gt = { 0 };
	struct fb_cmp c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc, n = 0;

	snprintf(e.l[0].row, sizeof(e.l[0].row), "a_func");
	snprintf(e.l[0].metric, sizeof(e.l[0].metric), "p50");
	snprintf(e.l[0].text, sizeof(e.l[0].text), "a_func p50 fall >= 10%%");
	e.l[0].k = FB_EXP_FALL_GE;
	e.l[0].pct = 10;
	e.l[0].line = 2;
	o.expect = &e;
	rc = gate(&aa, 10, 10, &o, &gt, &c);
	CHECKF(rc == FB_GATE_FAIL && gt.nexp_failed == 1 && find(&gt, "func:a_func:p50")->exp,
	       "A/A with a declared 10%% win: fail (exit %d), the expectation not met", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	o.expect = NULL;
	rc = gate(&reg, 10, 10, &o, &gt, &c);
	f = open_memstream(&buf, &len);
	CHECK(f && fb_junit_write(f, &gt, &c, &o) == 0 && fclose(f) == 0, "JUnit written");
	for (const char *p = buf; p && (p = strstr(p, "<testcase ")); p++)
		n++;
	CHECKF(rc == FB_GATE_FAIL && n == gt.ng && strstr(buf, "<testsuites ") &&
	       strstr(buf, "name=\"func:a_func:p50\">\n      <failure type=\"regression\" "
		      "message=\"regressed beyond +5%: +") && strstr(buf, "% CI +"),
	       "JUnit: %d testcases for %d gated metrics, a_func p50 a <failure> with its change",
	       n, gt.ng);
	free(buf);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	buf = NULL;
	rc = gate(&aa, 3, 3, &o, &gt, &c);
	f = open_memstream(&buf, &len);
	CHECK(f && fb_junit_write(f, &gt, &c, &o) == 0 && fclose(f) == 0, "JUnit written");
	CHECKF(rc == FB_GATE_UNKNOWN && strstr(buf, "<skipped message=\"unknown: ") &&
	       !strstr(buf, "<failure"), "JUnit of an unknown gate (exit %d): <skipped> with the "
	       "reason, no <failure>", rc);
	free(buf);
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

/* side s's a_func (probes[0]) measured by method even in even rounds, odd in odd ones */
static void set_method(struct fb_cmp *c, int s, const char *even, const char *odd)
{
	struct fb_side *sd = s ? &c->new : &c->base;

	for (int i = 0; i < sd->n; i++)
		snprintf(sd->r[i]->probes[0].method, sizeof(sd->r[i]->probes[0].method), "%s",
			 i & 1 ? odd : even);
}

static const struct fb_metric *metric(const struct fb_cmp *c, const char *row, const char *m)
{
	for (int i = 0; i < c->nrows; i++)
		for (int k = 0; !strcmp(c->rows[i].name, row) && k < c->rows[i].nm; k++)
			if (!strcmp(c->rows[i].m[k]->name, m))
				return c->rows[i].m[k];
	return NULL;
}

/*
 * The same rounds (a_func +20% in NEW) with a_func measured by one method
 * on both sides, then by another in NEW (fentry -> fsession), then by two
 * in BASE: a change of observer is not a change of the kernel.
 */
static void test_method(void)
{
	static struct fb_expect e = { .path = "synthetic", .n = 1 };
	struct synth reg = { .sd = 0.01, .shift = 0.2 };
	struct fb_gate_opts o = defaults;
	const struct fb_metric *mean, *calls;
	const struct fb_gated *g;
	struct fb_gate gt = { 0 };
	struct fb_cmp c;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(e.l[0].row, sizeof(e.l[0].row), "a_func");
	snprintf(e.l[0].metric, sizeof(e.l[0].metric), "p90");
	snprintf(e.l[0].text, sizeof(e.l[0].text), "a_func p90 rise <= +30%%");
	e.l[0].k = FB_EXP_RISE_LE;
	e.l[0].pct = 30;
	o.expect = &e;
	if (sides(&c, &reg, 10, 10))
		return;
	set_method(&c, 0, "fentry", "fentry");
	set_method(&c, 1, "fentry", "fentry");
	synth_build(&c);
	mean = metric(&c, "a_func", "mean");
	CHECK(mean && mean->v == FB_V_REGRESSED && !mean->incomparable && !c.rows[0].note[0],
	      "one method both sides: a_func +20% mean regressed, no note");
	CHECK(fb_gate_eval(&gt, &c, &o, err, sizeof(err)) == 0 && gt.outcome == FB_GATE_FAIL &&
	      find(&gt, "func:a_func:p50")->state == FB_GM_REGRESSED &&
	      find(&gt, "func:a_func:p90")->exp_state == FB_EXP_MET && !gt.nincomparable,
	      "one method: gate fails on a_func p50, the declared p90 rise is met");
	fb_gate_free(&gt);
	snprintf(e.l[0].method, sizeof(e.l[0].method), "fentry");
	CHECK(fb_gate_eval(&gt, &c, &o, err, sizeof(err)) == 0 &&
	      find(&gt, "func:a_func:p90")->exp_state == FB_EXP_MET,
	      "one method: the p90 rise declared 'for fentry' is met on fentry rows");
	fb_gate_free(&gt);
	snprintf(e.l[0].method, sizeof(e.l[0].method), "fsession");
	CHECK(fb_gate_eval(&gt, &c, &o, err, sizeof(err)) == 0 &&
	      (g = find(&gt, "func:a_func:p90")) && g->exp_state == FB_EXP_UNKNOWN &&
	      g->other_method && gt.nexp_unknown == 1 && gt.outcome == FB_GATE_FAIL &&
	      strstr(g->why, "declared for fsession, measured by base fentry, new fentry"),
	      "one method: a p90 rise declared 'for fsession' is not decided on fentry rows");
	f = open_memstream(&buf, &len);
	CHECK(f && fb_junit_write(f, &gt, &c, &o) == 0 && fclose(f) == 0 &&
	      strstr(buf, "not comparable: declared for fsession"),
	      "JUnit: the expectation for another method is skipped, naming both");
	free(buf);
	buf = NULL;
	fb_gate_free(&gt);
	e.l[0].method[0] = '\0';

	set_method(&c, 1, "fsession", "fsession");
	synth_build(&c);
	mean = metric(&c, "a_func", "mean");
	calls = metric(&c, "a_func", "calls");
	CHECKF(c.rows[0].method_differs && mean && mean->incomparable &&
	       mean->v == FB_V_INCONCLUSIVE &&
	       metric(&c, "a_func", "p99")->v == FB_V_INCONCLUSIVE &&
	       strstr(c.rows[0].note, "method differs: base fentry, new fsession"),
	       "fentry -> fsession: a_func's timings inconclusive, noted (%s)", c.rows[0].note);
	CHECK(calls && !calls->incomparable && calls->v == FB_V_NOCHANGE && calls->deterministic &&
	      metric(&c, "b_func", "mean")->v == FB_V_NOCHANGE &&
	      !metric(&c, "b_func", "mean")->incomparable,
	      "fentry -> fsession: a_func's calls still compared exactly, b_func untouched");
	CHECK(fb_gate_eval(&gt, &c, &o, err, sizeof(err)) == 0, "gate evaluated");
	g = find(&gt, "func:a_func:p50");
	CHECKF(gt.outcome == FB_GATE_UNKNOWN && !gt.nreg && gt.nincomparable == 2 && g &&
	       g->state == FB_GM_UNDECIDED && !g->tested && !g->need &&
	       strstr(g->why, "method differs: base fentry, new fsession") &&
	       find(&gt, "func:b_func:p50")->state == FB_GM_OK,
	       "fentry -> fsession: gate unknown (outcome %d), a_func p50 undecided, not "
	       "regressed; b_func ok", (int)gt.outcome);
	g = find(&gt, "workload:w:wall");
	CHECKF(g && g->state == FB_GM_UNDECIDED && g->m->incomparable &&
	       strstr(g->why, "base a_func:fentry, new a_func:fsession"),
	       "fentry -> fsession: the workload's wall, with another observer in it, is "
	       "unknown too (%s)", g ? g->why : "no such metric");
	CHECK(find(&gt, "func:a_func:p90")->exp_state == FB_EXP_UNKNOWN && gt.nexp_unknown == 1 &&
	      !gt.nexp_failed, "fentry -> fsession: the declared p90 rise is unknown, not met");
	f = open_memstream(&buf, &len);
	CHECK(f && fb_junit_write(f, &gt, &c, &o) == 0 && fclose(f) == 0 &&
	      strstr(buf, "name=\"func:a_func:p50\">\n      <skipped message=\"unknown: measured "
		     "+") && strstr(buf, "not decided; measured +") &&
	      strstr(buf, "not comparable: method differs") && !strstr(buf, "<failure"),
	      "fentry -> fsession: JUnit skips a_func p50 and the trade, naming the methods");
	free(buf);
	fb_gate_free(&gt);

	{
		struct fb_seq q = { .first = 10, .step = 5, .max = 40, .alpha = 0.01 };
		enum fb_seq_decision d = fb_seq_decide(&q, 1, &c, &defaults, &gt, err,
						       sizeof(err));

		CHECKF(d == FB_SEQ_UNKNOWN, "fentry -> fsession: --until-decided stops at the "
		       "first look, more rounds cannot decide (%s)", fb_seq_decision_name(d));
		fb_gate_free(&gt);
	}
	set_method(&c, 0, "fentry", "fsession");
	set_method(&c, 1, "fentry", "fentry");
	synth_build(&c);
	CHECKF(c.rows[0].method_differs &&
	       strstr(c.rows[0].note, "method differs: base mixed fentry|fsession, new fentry") &&
	       metric(&c, "a_func", "p50")->v == FB_V_INCONCLUSIVE,
	       "a side of two methods is no method: inconclusive (%s)", c.rows[0].note);
	fb_cmp_free(&c);
}

int main(void)
{
	test_expect_parse();
	test_expect_file();
	test_expect_judge();
	test_expect_gate_junit();
	test_method();
	return tap_done();
}
