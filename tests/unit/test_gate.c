// SPDX-License-Identifier: GPL-2.0
/*
 * test_gate.c - the gate's rules (gate.h) on synthetic rounds
 * (tests/sim/synth.h; not kernel data): pass / fail / unknown, lost data,
 * the "cannot detect" guard's smallest p, direction of counts, p90 gated
 * by default, rounds needed, the sequential looks, exit code 3 through
 * `foliobench gate` itself, per-row noise and a row's declared gated
 * metric.  Declared trades and observer methods: test_expect.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gate_fixture.h"

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
/*
 * dir (a mkdtemp template) with b/ and n/ of 15 rounds each, rounds from
 * `from` on drawn from late; b, n and out (a scratch file) named in it.
 */
static int cli_rounds(char *dir, char *b, char *n, char *out, const struct synth *early,
		      const struct synth *late, int from)
{
	char p[96];

	if (!mkdtemp(dir))
		return -1;
	snprintf(b, 64, "%s/b", dir);
	snprintf(n, 64, "%s/n", dir);
	snprintf(out, 96, "%s/out", dir);
	mkdir(b, 0755);
	mkdir(n, 0755);
	for (int i = 0; i < 15; i++)
		for (int s = 0; s < 2; s++) {
			struct fb_result *r = synth_round(i < from ? early : late, s, i);

			snprintf(p, sizeof(p), "%s/round-%d.json", s ? n : b, i + 1);
			fb_result_save(r, p);
			free(r);
		}
	return 0;
}

static void test_cli(void)
{
	char dir[] = "/tmp/test-gate.XXXXXX", b[64], n[64], out[96], cmd[320];
	struct synth noisy = { .sd = 0.30 };
	int rc;

	if (cli_rounds(dir, b, n, out, &noisy, &noisy, 15))
		return;
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

/*
 * gate --looks on rounds past the look that decided: the sequential gate
 * stops at the first decision (ab --until-decided does), so rounds 11-15,
 * +20% in NEW, come after a pass at look 1 and do not count.
 */
static void test_cli_replay(void)
{
	char dir[] = "/tmp/test-gate.XXXXXX", b[64], n[64], out[96], cmd[512];
	struct synth same = { .sd = 0.01 }, late = { .sd = 0.01, .shift = 0.2 };
	int rc, bare;

	if (cli_rounds(dir, b, n, out, &same, &late, 10))
		return;
	bare = run_gate(out, (char *[]){ "gate", b, n, NULL });
	rc = run_gate(out, (char *[]){ "gate", "--looks", "10,5,15", b, n, NULL });
	snprintf(cmd, sizeof(cmd), "grep -q '^gate: decided at look 1 of 2 (10 rounds per side)' "
		 "%s && grep -q '^gate: sequential look 1 of 2' %s && grep -q '^gate: pass' %s",
		 out, out, out);
	CHECKF(rc == 0 && bare != 0 && system(cmd) == 0,
	       "gate --looks 10,5,15 on 15 rounds, NEW +20%% after round 10: decided (pass) at "
	       "look 1, as ab would have stopped (exit %d; all 15 rounds at once: exit %d)", rc,
	       bare);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# cannot remove %s\n", dir);
}

/* ---- per-row noise (noise.h) ---- */

/* calibration across builds: a pair of builds 3% apart, and a pair of equal ones */
static void test_add_builds(void)
{
	struct synth apart = { .sd = 0.01, .shift = 0.03 }, same = { .sd = 0.01 };
	static struct fb_noise nz, nz0;
	const struct fb_noise_entry *e;
	struct fb_cmp c;
	char err[256];

	CHECK(sides(&c, &apart, 10, 10) == 0 && fb_noise_add_builds(&nz, &c, err, sizeof(err)) == 0,
	      "a pair of builds 3% apart added");
	fb_cmp_free(&c);
	fb_noise_finish(&nz);
	e = fb_noise_find(&nz, "func:a_func:p50");
	CHECKF(e && e->build_n == 1 && e->dof == 18 && sqrt(e->build_var) > 0.01 &&
	       sqrt(e->build_var) < 0.035 && fb_noise_spread(e) < 0.02,
	       "3%% apart: build spread %.3g%% (about 3%%/sqrt 2), boot spread %.3g%% about each "
	       "build's mean", e ? sqrt(e->build_var) * 100 : NAN, e ? fb_noise_spread(e) * 100 : NAN);
	CHECK(sides(&c, &same, 10, 10) == 0 && fb_noise_add_builds(&nz0, &c, err, sizeof(err)) == 0,
	      "a pair of equal builds added");
	fb_cmp_free(&c);
	fb_noise_finish(&nz0);
	e = fb_noise_find(&nz0, "func:a_func:p50");
	CHECKF(e && e->build_n == 1 && sqrt(e->build_var) < 0.006,
	       "equal builds: build spread %.3g%% (the boot noise's share taken out)",
	       e ? sqrt(e->build_var) * 100 : NAN);
}

/* "build_spread": in the test only across builds; read back; both or neither */
static void test_build_spread(void)
{
	struct fb_noise_entry one = { .ss = 0.001 * 0.001 * 100, .dof = 100, .n = 101,
				      .build_var = 0.004 * 0.004, .build_n = 6 };
	double a[5] = { 100, 100, 100, 100, 100 }, b[5] = { 101, 101, 101, 101, 101 };
	char dir[] = "/tmp/fb-test-noise.XXXXXX", path[64], err[1024];
	static struct fb_noise nz, back;
	struct fb_noise_test t, u;
	const struct fb_noise_entry *e;
	FILE *f;

	CHECK(fb_noise_test(&one, a, 5, b, 5, 0.001, 0, &t) == 0 &&
	      fb_noise_test(&one, a, 5, b, 5, 0.001, 1, &u) == 0, "calibrated t, one and two builds");
	CHECKF(t.p_greater < 1e-6 && fabs(u.se - sqrt(t.se * t.se + 2 * 0.004 * 0.004)) < 1e-12 &&
	       u.p_greater > 0.01, "+1%% with a 0.4%% build spread: significant within one build "
	       "(p %.2g), not across two (p %.2g, se %.3g%%)", t.p_greater, u.p_greater, u.se * 100);
	nz.nent = 1;
	nz.e[0] = one;
	snprintf(nz.e[0].id, sizeof(nz.e[0].id), "func:a:cmean");
	snprintf(nz.release, sizeof(nz.release), "r");
	nz.nbuild = 1;
	snprintf(nz.build[0], sizeof(nz.build[0]), "b");
	nz.rounds = 101;
	nz.groups = 1;
	CHECK(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/noise.json", dir);
	CHECK(fb_noise_write(&nz, path, err, sizeof(err)) == 0 &&
	      fb_noise_read(&back, path, err, sizeof(err)) == 0, "a build spread written, read back");
	e = fb_noise_find(&back, "func:a:cmean");
	CHECKF(e && e->build_n == 6 && fabs(sqrt(e->build_var) - 0.004) < 1e-12,
	       "read back: build spread %.3g%% from %d pairs of builds", e ? sqrt(e->build_var) * 100 : NAN,
	       e ? e->build_n : 0);
	f = fopen(path, "w");
	if (f) {
		fputs("{\"schema\":\"foliobench-noise\",\"schema_version\":1,\"kernel_release\":\"r\","
		      "\"build_ids\":[\"b\"],\"clock\":\"icount\",\"rounds\":3,\"groups\":1,"
		      "\"metrics\":{\"func:a:cmean\":{\"spread\":0.001,\"dof\":2,\"n\":3,"
		      "\"build_spread\":0.004}}}", f);
		fclose(f);
	}
	CHECKF(fb_noise_read(&back, path, err, sizeof(err)) == -1 && strstr(err, "both or neither"),
	       "build_spread without builds: refused (%.70s)", err);
	unlink(path);
	rmdir(dir);
	test_add_builds();
}

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
	back.nkey = 1;
	snprintf(back.key[0], sizeof(back.key[0]), "baseline-perf-0123");
	for (int i = 0; i < c.base.n; i++)
		snprintf(c.base.r[i]->host.cmdline, sizeof(c.base.r[i]->host.cmdline),
			 "console=ttyS0 xfoliobench.kernel=baseline-perf-0123 foliobench.arm=b");
	CHECK(fb_noise_check(&back, &c, err, sizeof(err)) == -1,
	      "another build, 'xfoliobench.kernel=' on its cmdline: not the word, refused");
	for (int i = 0; i < c.base.n; i++)
		snprintf(c.base.r[i]->host.cmdline, sizeof(c.base.r[i]->host.cmdline),
			 "console=ttyS0 foliobench.arm=b foliobench.kernel=baseline-perf-0123 -- x");
	CHECK(fb_noise_check(&back, &c, err, sizeof(err)) == 0,
	      "another build of the calibrated kernel (foliobench.kernel= on the rounds' cmdline, "
	      "no ab.json): accepted");
	fb_cmp_free(&c);
	unlink(path);
	rmdir(dir);

	CHECK(fb_noise_test(&one, a, 5, b, 5, 0.001, 0, &t) == 0 && t.p_greater < 1e-6 &&
	      t.df == 108 && !t.high, "calibrated t: +1% at 0.1% spread is significant, 108 dof");
	CHECK(fb_noise_test(&one, a, 5, a, 5, 0.001, 0, &t) == 0 && fabs(t.p_greater - 0.5) < 1e-9,
	      "calibrated t: no change, p 0.5");
	b[0] = 150;
	CHECK(fb_noise_test(&one, a, 5, b, 5, 0.001, 0, &t) == 0 && t.high,
	      "rounds noisier than the calibration: their own (Welch) spread is used");
	CHECKF(fabs(fb_noise_mde(0.01, 1e6, 0.01, 0.05) - (2.326 + 1.645) * 0.01) < 2e-4,
	       "MDE at se 1%%, alpha 0.01, beta 0.05: %.4f", fb_noise_mde(0.01, 1e6, 0.01, 0.05));
	test_build_spread();
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
	test_cli_replay();
	test_cli();
	test_noise();
	test_declared();
	return tap_done();
}
