// SPDX-License-Identifier: GPL-2.0
/*
 * test_gate.c - the gate's rules (gate.h) on synthetic rounds
 * (tests/sim/synth.h; not kernel data): pass / fail / unknown, lost data,
 * the "cannot detect" guard's smallest p, direction of counts, p90 gated
 * by default, rounds needed, the sequential looks, and exit code 3 through
 * `foliobench gate` itself.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/compare/compare.h"
#include "analysis/gate/gate.h"
#include "analysis/gate/junit.h"
#include "synth.h"
#include "tap.h"

#define CHECK(cond, name) CHECKF(cond, "%s", name)

static const struct fb_gate_opts defaults = {
	.metrics = FB_GATE_METRICS, .alpha = FB_GATE_ALPHA, .beta = FB_GATE_BETA,
	.thr_pct = FB_GATE_THR_PCT,
};

/* n + n synthetic rounds in c, built */
static int sides(struct fb_cmp *c, const struct synth *s, int na, int nb)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < na; i++)
		if (synth_add(&c->base, s, 0))
			return -1;
	for (int i = 0; i < nb; i++)
		if (synth_add(&c->new, s, 1))
			return -1;
	return synth_build(c);
}

static const struct fb_gated *find(const struct fb_gate *gt, const char *id)
{
	for (int i = 0; i < gt->ng; i++)
		if (!strcmp(gt->g[i].id, id))
			return &gt->g[i];
	return NULL;
}

/* gate outcome of na + nb rounds of s with options o; fills gt */
static int gate(const struct synth *s, int na, int nb, const struct fb_gate_opts *o,
		struct fb_gate *gt, struct fb_cmp *c)
{
	char err[256];

	if (sides(c, s, na, nb) || fb_gate_eval(gt, c, o, err, sizeof(err)))
		return -1;
	return (int)gt->outcome;
}

static void test_outcomes(void)
{
	struct fb_cmp c;
	struct fb_gate gt;
	const struct fb_gated *g;
	struct synth quiet = { .sd = 0.01 }, noisy = { .sd = 0.30 }, reg = { .sd = 0.01, .shift = 0.2 };
	int rc;

	rc = gate(&quiet, 15, 15, &defaults, &gt, &c);
	CHECKF(rc == FB_GATE_PASS && !gt.nundecided, "1%% noise A/A, 15 rounds: pass (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	rc = gate(&noisy, 15, 15, &defaults, &gt, &c);
	g = find(&gt, "func:a_func:p50");
	CHECKF(rc == FB_GATE_UNKNOWN, "30%% CV A/A, 15 rounds: unknown, not pass (rc %d)", rc);
	CHECKF(g && g->state == FB_GM_UNDECIDED && g->need > 15 && g->cv_a > 0.1,
	       "undecided metric says the rounds its noise needs (%d, CV %.0f%%)",
	       g ? g->need : -1, g ? g->cv_a * 100 : -1);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	rc = gate(&reg, 15, 15, &defaults, &gt, &c);
	g = find(&gt, "func:a_func:p50");
	CHECKF(rc == FB_GATE_FAIL && g && g->state == FB_GM_REGRESSED,
	       "+20%% a_func, 1%% noise: fail, a_func p50 regressed (rc %d)", rc);
	CHECK(find(&gt, "func:b_func:p50")->state == FB_GM_OK, "b_func stays ok");
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

static void test_lost(void)
{
	struct fb_gate_opts allow = defaults;
	struct synth all = { .sd = 0.01, .shift = 0.043, .lost = 15 }, some = { .sd = 0.01, .lost = 3 };
	struct fb_cmp c;
	struct fb_gate gt;
	const struct fb_gated *g;
	int rc;

	rc = gate(&all, 15, 15, &defaults, &gt, &c);
	g = find(&gt, "func:a_func:p50");
	CHECKF(rc == FB_GATE_FAIL && gt.nlost >= 2 && g && g->state == FB_GM_LOST && g->lost == 15,
	       "NEW lost a_func in every round: fail, lost data named (rc %d, lost %d)", rc,
	       gt.nlost);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	rc = gate(&some, 15, 15, &defaults, &gt, &c);
	g = find(&gt, "func:a_func:p90");
	CHECKF(rc == FB_GATE_FAIL && g && g->state == FB_GM_LOST && g->lost == 3 &&
	       strstr(g->why, "3 of 15"), "NEW lost a_func in 3 of 15 rounds: fail (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	/* called now and then: BASE has a_func p50 in 13 of 15 rounds, NEW in 12: not a loss */
	if (sides(&c, &some, 15, 15) == 0) {
		for (int i = 0; i < c.nrows; i++)
			for (int k = 0; k < c.rows[i].nm; k++)
				if (!strcmp(c.rows[i].name, "a_func") &&
				    !strcmp(c.rows[i].m[k]->name, "p50"))
					c.rows[i].m[k]->na = 13;
		fb_gate_eval(&gt, &c, &defaults, (char[64]){ 0 }, 64);
		g = find(&gt, "func:a_func:p50");
		CHECKF(g && g->state != FB_GM_LOST && find(&gt, "func:a_func:p90")->state == FB_GM_LOST,
		       "intermittent in BASE (13/15) and NEW (12/15): not lost; p90 (15/15 in BASE) is");
		fb_gate_free(&gt);
		fb_cmp_free(&c);
	}

	allow.allow_missing = "func:a_func:*";
	rc = gate(&all, 15, 15, &allow, &gt, &c);
	g = find(&gt, "func:a_func:p50");
	CHECKF(rc == FB_GATE_PASS && !gt.nlost && g && g->state == FB_GM_UNTESTED,
	       "--allow-missing func:a_func:* accepts the loss (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

/* the guard uses the test's own method: exact without ties, else normal with ties */
static void test_min_p(void)
{
	double a[40], b[40], same[5] = { 7, 7, 7, 7, 7 };
	struct synth big = { .sd = 0.01, .shift = 1.0 };
	struct fb_cmp c;
	struct fb_gate gt;
	const struct fb_gated *g;
	int rc;

	for (int i = 0; i < 40; i++) {
		a[i] = 100 + i;
		b[i] = 200 + i;
	}
	CHECKF(fabs(fb_gate_min_p(a, 5, b, 5) - 1.0 / 252) < 1e-12,
	       "5+5 without ties: exact smallest p 1/252 (%g)", fb_gate_min_p(a, 5, b, 5));
	CHECKF(fb_gate_min_p(a, 3, b, 40) > 0.002 && fb_gate_min_p(a, 3, b, 40) < 0.0025,
	       "3+40: normal approximation's smallest p 0.0023, not the exact 1/12341 (%g)",
	       fb_gate_min_p(a, 3, b, 40));
	CHECKF(fb_gate_min_p(same, 5, same, 5) == 1, "5+5 all tied: smallest p is 1 (%g)",
	       fb_gate_min_p(same, 5, same, 5));

	rc = gate(&big, 3, 40, &defaults, &gt, &c);
	g = find(&gt, "func:a_func:p50");
	CHECKF(rc != FB_GATE_PASS && g && !g->can_fail && gt.cannot,
	       "3 vs 40 rounds, +100%%: the gate knows it cannot fail (rc %d, cannot %d)", rc,
	       gt.cannot);
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

static void test_direction_and_tail(void)
{
	struct fb_gate_opts calls = defaults, p50 = defaults;
	struct synth tail = { .sd = 0.01, .tail = 0.4 };
	struct fb_cmp c;
	struct fb_gate gt;
	struct fb_metric *m;
	int rc;

	calls.metrics = "func:*:calls";
	if (sides(&c, &tail, 5, 5))
		return;
	/* calls 2000 -> 0 in NEW: a count without a declared direction */
	for (int i = 0; i < c.nrows; i++)
		for (int k = 0; k < c.rows[i].nm; k++) {
			m = c.rows[i].m[k];
			if (!strcmp(m->name, "calls") && !strcmp(c.rows[i].name, "a_func")) {
				for (int j = 0; j < m->nb; j++)
					m->b[j] = 0;
				m->new = 0;
			}
		}
	rc = fb_gate_eval(&gt, &c, &calls, (char[64]){ 0 }, 64) ? -1 : (int)gt.outcome;
	CHECKF(rc != FB_GATE_FAIL && find(&gt, "func:a_func:calls")->state == FB_GM_REPORTED &&
	       find(&gt, "func:a_func:calls")->dir == 0,
	       "calls 2000 -> 0 (no declared direction): reported, not failed (rc %d)", rc);
	CHECK(fb_metric_dir(c.rows[0].m[0]) == 0, "calls: no declared direction");
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	/* icount guests: the same p50 in every round of each side is compared exactly */
	if (sides(&c, &tail, 3, 3))
		return;
	for (int i = 0; i < c.nrows; i++)
		for (int k = 0; k < c.rows[i].nm; k++) {
			m = c.rows[i].m[k];
			for (int j = 0; j < 3 && !strcmp(m->name, "p50"); j++) {
				m->a[j] = 1000;
				m->b[j] = c.rows[i].name[0] == 'a' ? 1100 : 1000;
			}
			if (!strcmp(m->name, "p50"))
				m->base = 1000, m->new = m->b[0];
		}
	p50.metrics = "func:*:p50";
	rc = fb_gate_eval(&gt, &c, &p50, (char[64]){ 0 }, 64) ? -1 : (int)gt.outcome;
	CHECKF(rc == FB_GATE_FAIL && find(&gt, "func:a_func:p50")->exact &&
	       find(&gt, "func:a_func:p50")->state == FB_GM_REGRESSED &&
	       find(&gt, "func:b_func:p50")->state == FB_GM_OK,
	       "constant p50 per side (3 rounds): +10%% fails exactly, equal is ok (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	rc = gate(&tail, 15, 15, &defaults, &gt, &c);
	CHECKF(rc == FB_GATE_FAIL && find(&gt, "func:a_func:p90")->state == FB_GM_REGRESSED &&
	       find(&gt, "func:a_func:p50")->state == FB_GM_OK,
	       "slowest 20%% of a_func +40%%: p90 gated by default fails, p50 ok (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);
	p50.metrics = FB_GATE_METRICS_P50;
	rc = gate(&tail, 15, 15, &p50, &gt, &c);
	CHECKF(rc == FB_GATE_PASS, "the p50 preset does not see the tail (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

static void test_seq(void)
{
	struct fb_seq p = { .first = 10, .step = 5, .max = 40, .alpha = 0.01 };
	struct fb_seq o = p;
	struct synth quiet = { .sd = 0.01 }, noisy = { .sd = 0.3 }, reg = { .sd = 0.01, .shift = 0.2 };
	struct fb_cmp c;
	struct fb_gate gt;
	double sum = 0;
	char err[128] = "";
	enum fb_seq_decision d;

	o.spending = FB_SPEND_OBF;
	CHECKF(fb_seq_looks(&p) == 7 && fb_seq_rounds(&p, 1) == 10 && fb_seq_rounds(&p, 7) == 40,
	       "looks at 10, 15, ..., 40 (%d looks)", fb_seq_looks(&p));
	for (int k = 1; k <= fb_seq_looks(&p); k++) {
		sum += fb_seq_alpha(&p, k);
		if (fb_seq_alpha(&p, k) <= 0)
			sum = NAN;
	}
	CHECKF(fabs(sum - 0.01) < 1e-12, "alpha spent over all looks sums to alpha (%.6g)", sum);
	CHECKF(fb_seq_spent(&o, 10) < fb_seq_spent(&p, 10) / 100 && fb_seq_spent(&o, 40) == 0.01,
	       "O'Brien-Fleming spends almost nothing early (%.2g vs Pocock %.2g)",
	       fb_seq_spent(&o, 10), fb_seq_spent(&p, 10));

	sides(&c, &reg, 10, 10);
	d = fb_seq_decide(&p, 1, &c, &defaults, &gt, err, sizeof(err));
	CHECKF(d == FB_SEQ_FAIL, "+20%%: fails at the first look (%s)", fb_seq_decision_name(d));
	fb_gate_free(&gt);
	fb_cmp_free(&c);
	sides(&c, &quiet, 10, 10);
	d = fb_seq_decide(&p, 1, &c, &defaults, &gt, err, sizeof(err));
	CHECKF(d == FB_SEQ_PASS, "1%% noise A/A passes at the first look (%s)",
	       fb_seq_decision_name(d));
	fb_gate_free(&gt);
	fb_cmp_free(&c);
	sides(&c, &noisy, 10, 10);
	d = fb_seq_decide(&p, 1, &c, &defaults, &gt, err, sizeof(err));
	CHECKF(d == FB_SEQ_CONTINUE, "30%% CV: continues at look 1 (%s)", fb_seq_decision_name(d));
	fb_gate_free(&gt);
	d = fb_seq_decide(&p, 7, &c, &defaults, &gt, err, sizeof(err));
	CHECKF(d == FB_SEQ_UNKNOWN, "30%% CV at the last look: unknown (%s)", fb_seq_decision_name(d));
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

/* cmd_gate(av) in a child with stdout to out; its exit status */
static int run_gate(const char *out, char **av)
{
	int st, ac = 0;
	pid_t pid;

	while (av[ac])
		ac++;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc;

		if (!freopen(out, "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(99);
		rc = cmd_gate(ac, av);
		fflush(stdout);
		_exit(rc);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* exit 3 and the rounds needed, through the subcommand */
static void test_cli(void)
{
	char dir[] = "/tmp/test-gate.XXXXXX", b[64], n[64], p[96], out[96], cmd[320];
	struct synth noisy = { .sd = 0.30 };
	int rc;

	if (!mkdtemp(dir))
		return;
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(n, sizeof(n), "%s/n", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	mkdir(b, 0755);
	mkdir(n, 0755);
	for (int i = 0; i < 15; i++)
		for (int s = 0; s < 2; s++) {
			struct fb_result *r = synth_round(&noisy, s, i);

			snprintf(p, sizeof(p), "%s/round-%d.json", s ? n : b, i + 1);
			fb_result_save(r, p);
			free(r);
		}
	rc = run_gate(out, (char *[]){ "gate", b, n, NULL });
	snprintf(cmd, sizeof(cmd), "grep -q '^gate: UNKNOWN' %s && grep -q 'rounds per side' %s",
		 out, out);
	CHECKF(rc == 3 && system(cmd) == 0,
	       "foliobench gate on 30%% CV rounds: exit 3, UNKNOWN with rounds needed (rc %d)", rc);
	rc = run_gate(out, (char *[]){ "gate", "--looks", "10,5,40", b, n, NULL });
	snprintf(cmd, sizeof(cmd), "grep -q '^gate: sequential look 2 of 7' %s && "
		 "grep -q 'continue to 20 rounds per side' %s", out, out);
	CHECKF(rc == 3 && system(cmd) == 0,
	       "gate --looks 10,5,40 on 15 noisy rounds: look 2 of 7, continue, exit 3 (rc %d)", rc);
	{
		/* what ab --until-decided calls after each look's rounds */
		struct fb_seq sq = { .first = 10, .step = 5, .max = 40, .alpha = FB_GATE_ALPHA };
		FILE *f = fopen(out, "w");
		int d = f ? fb_gate_look(f, dir, "b", "n", &sq, 2) : -1;

		if (f)
			fclose(f);
		snprintf(cmd, sizeof(cmd), "grep -q 'continue to 20 rounds per side' %s", out);
		CHECKF(d == FB_SEQ_CONTINUE && system(cmd) == 0,
		       "fb_gate_look (ab --until-decided) on an ab directory: continue (%d)", d);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# cannot remove %s\n", dir);
}

/* ---- per-row noise (noise.h) ---- */

static void test_noise(void)
{
	struct synth s = { .sd = 0.02 };
	static struct fb_noise nz, back;
	const struct fb_noise_entry *e;
	struct fb_noise_entry one = { .ss = 0.001 * 0.001 * 100, .dof = 100, .n = 101 };
	struct fb_noise_test t;
	double a[5] = { 100, 100, 100, 100, 100 }, b[5] = { 101, 101, 101, 101, 101 };
	char dir[] = "/tmp/fb-test-noise.XXXXXX", path[64], err[1024];
	struct fb_cmp c;

	CHECK(sides(&c, &s, 10, 10) == 0 && fb_noise_add(&nz, &c, err, sizeof(err)) == 0,
	      "calibration adds an A/A group");
	e = fb_noise_find(&nz, "func:a_func:p50");
	CHECKF(e && e->n == 20 && e->dof == 19 && fb_noise_spread(e) > 0.005 &&
	       fb_noise_spread(e) < 0.06, "a_func p50: 20 rounds, 19 dof, spread %.3g near the "
	       "2%% noise", e ? fb_noise_spread(e) : NAN);
	CHECK(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/noise.json", dir);
	CHECK(fb_noise_write(&nz, path, err, sizeof(err)) == 0 && fb_noise_read(&back, path, err, sizeof(err)) == 0,
	      "noise file written and read back");
	e = fb_noise_find(&back, "func:a_func:p50");
	CHECKF(back.nent == nz.nent && back.clock == nz.clock && !strcmp(back.release, nz.release) &&
	       back.nbuild == 1 && e && fabs(fb_noise_spread(e) -
	       fb_noise_spread(fb_noise_find(&nz, "func:a_func:p50"))) < 1e-12,
	       "read back: %d metrics, kernel %s, same spread", back.nent, back.release);
	CHECK(fb_noise_check(&back, &c, err, sizeof(err)) == 0, "the same kernel and clock: accepted");
	snprintf(back.build[0], sizeof(back.build[0]), "other");
	CHECKF(fb_noise_check(&back, &c, err, sizeof(err)) == -1 && strstr(err, path) &&
	       strstr(err, "calibrate on A/A rounds of BASE's kernel"),
	       "another kernel build: refused naming the file (%.60s...)", err);
	fb_cmp_free(&c);
	unlink(path);
	rmdir(dir);

	CHECK(fb_noise_test(&one, a, 5, b, 5, 0.001, &t) == 0 && t.p_greater < 1e-6 &&
	      t.df == 108 && !t.high, "calibrated t: +1% at 0.1% spread is significant, 108 dof");
	CHECK(fb_noise_test(&one, a, 5, a, 5, 0.001, &t) == 0 && fabs(t.p_greater - 0.5) < 1e-9,
	      "calibrated t: no change, p 0.5");
	b[0] = 150;
	CHECK(fb_noise_test(&one, a, 5, b, 5, 0.001, &t) == 0 && t.high,
	      "rounds noisier than the calibration: their own (Welch) spread is used");
	CHECKF(fabs(fb_noise_mde(0.01, 1e6, 0.01, 0.05) - (2.326 + 1.645) * 0.01) < 2e-4,
	       "MDE at se 1%%, alpha 0.01, beta 0.05: %.4f", fb_noise_mde(0.01, 1e6, 0.01, 0.05));
}

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

/*
 * A lock row like gdp_mutex: 200 registration holds (uniform 9.5-12.5 us,
 * x (1 + reg)) and 200 removal holds at 5.8 us, `late` of them lengthened
 * to 20 us; the first 200 are also the phase stat "hold@register".  With
 * late = 0 the whole run's median falls into the removal mode.
 */
static struct fb_result *gdp_round(double reg, int late)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	struct fb_probe_result *p = r ? &r->probes[0] : NULL;

	if (!r)
		return NULL;
	r->schema_version = FB_SCHEMA_VERSION;
	r->nprobes = 1;
	snprintf(p->name, sizeof(p->name), "l");
	snprintf(p->series, sizeof(p->series), "kernfs-bulk");
	snprintf(p->gate, sizeof(p->gate), "register_hold_cmean");
	p->kind = FB_LOCK;
	p->status = FB_ATTACHED;
	p->nstats = 3;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "hold");
	snprintf(p->stats[1].name, sizeof(p->stats[1].name), "wait");
	snprintf(p->stats[2].name, sizeof(p->stats[2].name), "hold@register");
	for (int i = 0; i < 200; i++) {
		uint64_t v = (uint64_t)((9500 + 15 * i) * (1 + reg) * (1 + 1e-4 * synth_gauss()));

		fb_hist_add(&p->stats[0].h, v);
		fb_hist_add(&p->stats[2].h, v);
	}
	for (int i = 0; i < 200; i++)
		fb_hist_add(&p->stats[0].h, i < late ? 20000 : 5800);
	return r;
}

/* na + nb gdp_round()s, NEW's registrations x (1 + reg); BASE's round 2 has no late holds */
static int gdp_gate(double reg, int na, int nb, const struct fb_gate_opts *o,
		    struct fb_gate *gt, struct fb_cmp *c)
{
	char err[256];

	memset(c, 0, sizeof(*c));
	for (int s = 0; s < 2; s++) {
		struct fb_side *sd = s ? &c->new : &c->base;

		sd->n = s ? nb : na;
		sd->r = calloc((size_t)sd->n, sizeof(*sd->r));
		sd->files = calloc((size_t)sd->n, sizeof(*sd->files));
		snprintf(sd->name, sizeof(sd->name), "%s", s ? "new" : "base");
		for (int i = 0; sd->r && sd->files && i < sd->n; i++) {
			sd->r[i] = gdp_round(s ? reg : 0, !s && i == 1 ? 0 : 20);
			sd->files[i] = strdup("gdp.json");
			if (!sd->r[i] || !sd->files[i])
				return -1;
		}
		if (!sd->r || !sd->files)
			return -1;
	}
	if (synth_build(c) || fb_gate_eval(gt, c, o, err, sizeof(err)))
		return -1;
	return (int)gt->outcome;
}

/* A row's declared gated metric (catalogue .gate) replaces the defaults' */
static void test_declared(void)
{
	struct fb_gate_opts chosen = defaults;
	const struct fb_gated *d, *p50;
	struct fb_cmp c;
	struct fb_gate gt;
	int rc;

	rc = gdp_gate(0, 5, 5, &defaults, &gt, &c);
	d = find(&gt, "lock:l:register_hold_cmean");
	p50 = find(&gt, "lock:l:hold_p50");
	CHECKF(d && d->gated && (!p50 || !p50->gated), "defaults: the declared "
	       "register_hold_cmean is gated, the row's hold_p50 is not");
	CHECKF(rc == FB_GATE_PASS, "A/A with one round's whole-run p50 in the other mode: "
	       "pass on the declared metric (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	rc = gdp_gate(0.10, 5, 5, &defaults, &gt, &c);
	d = find(&gt, "lock:l:register_hold_cmean");
	CHECKF(rc == FB_GATE_FAIL && d && d->state == FB_GM_REGRESSED,
	       "+10%% registration holds (threshold 5%%): fail, register_hold_cmean regressed (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);

	chosen.metrics = "lock:*:hold_p50";
	chosen.metrics_chosen = 1;
	rc = gdp_gate(0, 5, 5, &chosen, &gt, &c);
	d = find(&gt, "lock:l:register_hold_cmean");
	p50 = find(&gt, "lock:l:hold_p50");
	CHECKF(p50 && p50->gated && (!d || !d->gated) && rc != FB_GATE_PASS,
	       "--metrics lock:*:hold_p50: the whole-run p50 is gated, and its mode jump "
	       "keeps the A/A from passing (rc %d)", rc);
	fb_gate_free(&gt);
	fb_cmp_free(&c);
}

int main(void)
{
	test_outcomes();
	test_lost();
	test_min_p();
	test_direction_and_tail();
	test_seq();
	test_cli();
	test_noise();
	test_expect_parse();
	test_expect_file();
	test_expect_judge();
	test_expect_gate_junit();
	test_method();
	test_declared();
	return tap_done();
}
