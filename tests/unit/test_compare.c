// SPDX-License-Identifier: GPL-2.0
/*
 * test_compare.c - compare, report and gate on synthetic results files
 * (cmp_fixture.h): the tables, Markdown, CSV, exact and per-op counts,
 * report files, gate pass/fail/BMF, and a row whose observer method
 * differs between the sides.  Bad inputs: test_compare_bad.c.
 *
 * The numbers are synthetic: they test the statistics and formatting
 * code, not any kernel.
 */
#include <math.h>

#include <json-c/json.h>

#include "analysis/compare/compare.h"
#include "analysis/report/compare_cmd.h"
#include "analysis/gate/gate.h"
#include "analysis/report/report.h"
#include "cmp_fixture.h"

static void test_good(void)
{
	struct spec base = { .func_ns = 1134, .hold_ns = 18000, .calls = 2000, .acq_per_obj = 2,
			     .wall_ns = 50e6, .rel_noise = 0.01 };
	struct spec patched = base;
	char ab[300], b[300], n[300], out[300], err[300], aa[300];
	char *o;
	int rc;

	patched.func_ns = 914;	/* -19.4% */
	patched.hold_ns = 7000;
	patched.acq_per_obj = 1;
	path(ab, sizeof(ab), "ab");
	mkdir(ab, 0755);
	path(b, sizeof(b), "ab/baseline");
	path(n, sizeof(n), "ab/patched");
	write_rounds(b, &base, "baseline", 5);
	write_rounds(n, &patched, "patched", 5);
	path(out, sizeof(out), "out.txt");
	path(err, sizeof(err), "err.txt");
	write_text(strcat(strcpy(aa, ab), "/ab.json"), "{\"not\": \"a results file\"}", 25);

	rc = run(cmd_compare, out, err, "compare", ab, NULL);
	o = slurp(out);
	CHECK(rc == 0, "compare AB_DIR exits 0");
	CHECK(has_line(o, "nft_trans_alloc", "baseline", "Baseline", NULL),
	      "function table has the baseline row");
	CHECK(has_line(o, "patched", "-19.", "ok (p50; mann-whitney", "CI -2", NULL),
	      "-19% latency: the row's verdict is the gate's, on the statistic it names");
	CHECK(has_line(o, "nft_trans_alloc calls", "2,000", "no change (exact)", NULL),
	      "calls compared exactly: no change");
	CHECK(has_line(o, "kernfs_rwsem acquisitions", "4,000", "2,000", "changed (exact)", NULL),
	      "lock acquisitions 2/obj -> 1/obj: changed, exact");
	CHECK(has_line(o, "folio_scratchpad_alloc", "not attached", NULL),
	      "unavailable probe is noted");
	CHECK(has_line(o, "kernfs_rwsem contentions", "20", "10", "x0.5", "changed (exact)", NULL),
	      "lock contentions matched to the lock probe by name");
	CHECK(has_line(o, "nft", "baseline", "trans_objects=2,000", "Baseline", NULL),
	      "workload table shows wall time and op counts");
	CHECK(has_line(o, "kernfs_rwsem", "baseline", "4,000", "20", NULL), "lock table has contentions");
	CHECK(has_line(o, "nft", "baseline", "register_kernfs_rwsem_read_hold_ns=123,456", NULL),
	      "an op name of 34 characters keeps its name and its value");
	CHECK(has_line(o, "nft ops.phase_hold_ns", "run", "changed", NULL) &&
	      !has_line(o, "nft ops.phase_hold_ns", "x1 ", NULL),
	      "a varying op count is compared as it is, not per itself (x1, exact)");
	CHECK(has_line(o, "&root->kernfs_rwsem", NULL), "contention table present");
	free(o);
	{
		/* ab's end-of-run summary is compare's text, from the same model */
		FILE *f = fopen(err, "w");
		char *sum;

		CHECK(f && fb_cmp_summary(f, ab, "baseline", "patched") == 0,
		      "ab summary (fb_cmp_summary) builds from the ab directory");
		if (f)
			fclose(f);
		sum = slurp(err);
		o = slurp(out);
		CHECK(sum[0] == '\n' && !strcmp(sum + 1, o), "ab summary prints compare's tables");
		free(sum);
		free(o);
	}

	rc = run(cmd_compare, out, err, "compare", "--format", "md", ab, NULL);
	o = slurp(out);
	CHECK(rc == 0 && has_line(o, "| nft_trans_alloc | baseline |", NULL) &&
	      has_line(o, "|:---|:---|---:|", NULL), "markdown table");
	free(o);

	rc = run(cmd_compare, out, err, "compare", "--format", "csv", b, n, NULL);
	o = slurp(out);
	CHECK(rc == 0 && has_line(o, "kind,name,metric", NULL) &&
	      has_line(o, "func,nft_trans_alloc,mean,ns,noisy,5,5,", ",improved", NULL) &&
	      has_line(o, "workload,nft,wall,ns,noisy,5,5", NULL) &&
	      has_line(o, "kind,name,metric", ",base_cv_pct,new_cv_pct", NULL), "csv rows");
	free(o);

	/* report: md + self-contained html with one SVG per probe statistic */
	{
		char rd[300], f1[400];
		char *h, *m;

		path(rd, sizeof(rd), "rep/x");
		rc = run(cmd_report, out, err, "report", ab, "--out", rd, NULL);
		snprintf(f1, sizeof(f1), "%s/report.html", rd);
		h = slurp(f1);
		snprintf(f1, sizeof(f1), "%s/report.md", rd);
		m = slurp(f1);
		CHECK(rc == 0, "report exits 0");
		CHECK(strstr(h, "<svg") && strstr(h, "nft_trans_alloc &#8212; latency") &&
		      strstr(h, "kernfs_rwsem &#8212; hold") && strstr(h, "<style>"),
		      "report.html has inline CSS and an SVG per probe statistic");
		CHECK(!strstr(h, "<script") && !strstr(h, "<link") && !strstr(h, "src=") &&
		      !strstr(h, "href="), "report.html references no external assets");
		CHECK(strstr(h, "7.3.4-fb-baseline") && strstr(h, "foliobench.arm=patched") &&
		      strstr(h, "abc123"), "report.html names kernel release, cmdline, config hash");
		CHECK(has_line(m, "Produced by `foliobench report ", "--out", NULL) &&
		      has_line(m, "| nft_trans_alloc | baseline |", NULL) &&
		      has_line(m, "![nft_trans_alloc latency](hist-nft_trans_alloc-latency.svg)", NULL),
		      "report.md has the command, tables and histogram links");
		free(h);
		free(m);
	}

	/* A/A: same arm against itself, separately generated rounds */
	path(aa, sizeof(aa), "aa");
	mkdir(aa, 0755);
	path(b, sizeof(b), "aa/baseline");
	path(n, sizeof(n), "aa/patched");
	write_rounds(b, &base, "baseline", 8);
	write_rounds(n, &base, "baseline", 8);
	rc = run(cmd_compare, out, err, "compare", "--format", "csv", aa, NULL);
	o = slurp(out);
	CHECK(rc == 0 && !strstr(o, "regressed") && !strstr(o, "improved"),
	      "A/A: nothing improved or regressed");
	free(o);
	rc = run(cmd_gate, out, err, "gate", b, n, NULL);
	CHECK(rc == 0, "A/A: gate passes");

	/* regression: gate fails and names the metric */
	{
		struct spec reg = base;
		char r[300];

		reg.func_ns = base.func_ns * 1.10;
		path(r, sizeof(r), "aa/regress");
		write_rounds(r, &reg, "regress", 8);
		rc = run(cmd_gate, out, err, "gate", b, r, NULL);
		o = slurp(out);
		CHECK(rc == 1, "+10% latency: gate fails with exit 1");
		CHECK(has_line(o, "REGRESSED", "func:nft_trans_alloc:p50", NULL),
		      "gate names the regressed metric");
		CHECK(!has_line(o, "workload:nft:wall", "REGRESSED", NULL),
		      "gate does not blame wall time");
		free(o);
		rc = run(cmd_gate, out, err, "gate", "--max-regression", "20", b, r, NULL);
		CHECK(rc == 0, "+10% latency passes a 20% threshold");
		rc = run(cmd_gate, out, err, "gate", "--metrics", "workload:*", b, r, NULL);
		CHECK(rc == 0, "+10% latency passes when only wall time is gated");
		{
			char bmf[300];

			path(bmf, sizeof(bmf), "bmf.json");
			rc = run(cmd_gate, out, err, "gate", "--bmf", bmf, b, r, NULL);
			json_object *j = json_object_from_file(bmf), *bench, *meas, *v;

			CHECK(rc == 1 && j && json_object_object_get_ex(j, "func:nft_trans_alloc", &bench) &&
			      json_object_object_get_ex(bench, "p50_ns", &meas) &&
			      json_object_object_get_ex(meas, "value", &v) &&
			      fabs(json_object_get_double(v) - 1247) < 60 &&
			      json_object_object_get_ex(meas, "lower_value", &v) &&
			      json_object_object_get_ex(meas, "upper_value", &v),
			      "BMF export has the benchmark, measure, value and bounds");
			json_object_put(j);
		}
	}

	/* 3+3 rounds: the smallest one-sided p is 1/20; the gate must say it cannot decide */
	{
		char g3[300], g3b[400], g3n[400];
		struct spec reg = base;
		char *e;

		reg.func_ns = base.func_ns * 1.5;
		path(g3, sizeof(g3), "g3");
		mkdir(g3, 0755);
		snprintf(g3b, sizeof(g3b), "%s/b", g3);
		snprintf(g3n, sizeof(g3n), "%s/n", g3);
		write_rounds(g3b, &base, "b", 3);
		write_rounds(g3n, &reg, "n", 3);
		rc = run(cmd_gate, out, err, "gate", g3b, g3n, NULL);
		e = slurp(err);
		CHECK(rc == 2 && count_lines(e) == 1 && strstr(e, "can never show a significant regression") &&
		      strstr(e, "needs at least 6 rounds"),
		      "gate with 3+3 rounds: exit 2, says it cannot detect");
		free(e);
	}

	/* gating an exact count: fewer acquisitions pass, twice as many fail */
	{
		char pb[300], pn[300];

		path(pb, sizeof(pb), "ab/baseline");
		path(pn, sizeof(pn), "ab/patched");
		rc = run(cmd_gate, out, err, "gate", "--metrics", "lock:*:acquisitions", pb, pn, NULL);
		o = slurp(out);
		CHECK(rc == 3 && strstr(o, "gate: UNKNOWN: no gated metric was tested (1 compared "
					"exactly") && !strstr(o, "gate: pass"),
		      "gate on exact acquisitions only: halved is not a pass (0 tested: unknown)");
		free(o);
		rc = run(cmd_gate, out, err, "gate", "--metrics", "lock:*:acquisitions", pn, pb, NULL);
		o = slurp(out);
		CHECK(rc == 1 && has_line(o, "REGRESSED", "lock:kernfs_rwsem:acquisitions",
					  "(exact count)", NULL),
		      "gate on exact acquisitions: doubled fails, named as exact");
		free(o);
		rc = run(cmd_gate, out, err, "gate", "--metrics", "nothing:*", pb, pn, NULL);
		CHECK(rc == 2, "gate: --metrics matching nothing is exit 2");
	}

	/* single files: counts exact, latency inconclusive */
	{
		char f1[300], f2[300];

		path(f1, sizeof(f1), "ab/baseline/round-1.json");
		path(f2, sizeof(f2), "ab/patched/round-1.json");
		rc = run(cmd_compare, out, err, "compare", f1, f2, NULL);
		o = slurp(out);
		CHECK(rc == 0 && has_line(o, "patched", "undecided (p50; 1+1 rounds", NULL),
		      "one round per side: latency undecided (the gate's word)");
		free(o);
	}

	/* per-op determinism: object count varies per round, calls/op fixed */
	{
		char pb[300], pn[300], p[400];

		path(pb, sizeof(pb), "perop-b");
		path(pn, sizeof(pn), "perop-n");
		mkdir(pb, 0755);
		mkdir(pn, 0755);
		for (int i = 0; i < 4; i++) {
			struct spec s1 = base, s2 = base;
			struct fb_result *r;

			s1.calls = 1000 + 100 * (uint64_t)i;
			s2.calls = 1300 - 100 * (uint64_t)i;
			s2.acq_per_obj = 3;
			r = mkres(&s1, "b");
			snprintf(p, sizeof(p), "%s/r%d.json", pb, i);
			fb_result_save(r, p);
			free(r);
			r = mkres(&s2, "n");
			snprintf(p, sizeof(p), "%s/r%d.json", pn, i);
			fb_result_save(r, p);
			free(r);
		}
		rc = run(cmd_compare, out, err, "compare", pb, pn, NULL);
		o = slurp(out);
		CHECK(rc == 0 && has_line(o, "nft_trans_alloc calls", "nft.trans_objects",
					  "no change (exact)", NULL),
		      "calls per op: deterministic and equal");
		CHECK(has_line(o, "kernfs_rwsem acquisitions", "nft.trans_objects", "x1.5",
			       "changed (exact)", NULL),
		      "acquisitions per op 2 -> 3: changed x1.5");
		free(o);
	}
}

/* every round of dir src into dst, nft_trans_alloc measured by method (the same numbers) */
static void copy_method(const char *src, const char *dst, int n, const char *method)
{
	char p[512], e[256];

	mkdir(dst, 0755);
	for (int i = 1; i <= n; i++) {
		struct fb_result *r;

		snprintf(p, sizeof(p), "%s/round-%d.json", src, i);
		r = fb_result_load(p, e, sizeof(e));
		if (!r) {
			printf("# %s\n", e);
			continue;
		}
		for (int k = 0; k < r->nprobes; k++) {
			struct fb_probe_result *pr = &r->probes[k];

			if (!strcmp(pr->name, "nft_trans_alloc"))
				snprintf(pr->method, sizeof(pr->method), "%s", method);
		}
		snprintf(p, sizeof(p), "%s/round-%d.json", dst, i);
		if (fb_result_save(r, p))
			printf("# cannot write %s\n", p);
		free(r);
	}
}

/*
 * The observer method of a row changed between BASE and NEW (fentry/fexit
 * pair -> fsession): the same +10% latency that is a regression measured by
 * one method is inconclusive across two, in compare, report and gate; the
 * row's calls are still compared.
 */
static void test_method(void)
{
	struct spec base = { .func_ns = 1134, .hold_ns = 18000, .calls = 2000, .acq_per_obj = 2,
			     .wall_ns = 50e6, .rel_noise = 0.01 };
	struct spec reg = base;
	char b[300], n[300], m[300], out[300], err[300], x[400], rd[300];
	char *o;
	int rc;

	reg.func_ns = base.func_ns * 1.10;
	path(b, sizeof(b), "meth");
	mkdir(b, 0755);
	path(b, sizeof(b), "meth/base");
	path(n, sizeof(n), "meth/new");
	path(m, sizeof(m), "meth/fsession");
	path(out, sizeof(out), "out.txt");
	path(err, sizeof(err), "err.txt");
	write_rounds(b, &base, "base", 8);
	write_rounds(n, &reg, "new", 8);
	copy_method(n, m, 8, "fsession");

	rc = run(cmd_compare, out, err, "compare", "--format", "csv", b, n, NULL);
	o = slurp(out);
	CHECK(rc == 0 && has_line(o, "func,nft_trans_alloc,mean,ns,noisy,8,8,", ",regressed,",
				  ",fentry,fentry", NULL),
	      "one method both sides: +10% latency regressed (csv names the methods)");
	free(o);
	rc = run(cmd_gate, out, err, "gate", b, n, NULL);
	CHECKF(rc == 1, "one method both sides: gate fails (exit %d)", rc);

	rc = run(cmd_compare, out, err, "compare", "--format", "csv", b, m, NULL);
	o = slurp(out);
	CHECK(rc == 0 && has_line(o, "func,nft_trans_alloc,mean,ns,noisy,8,8,", ",inconclusive,",
				  ",fentry,fsession", NULL) &&
	      has_line(o, "func,nft_trans_alloc,p50,", ",inconclusive,", NULL) &&
	      has_line(o, "func,nft_trans_alloc,calls,count,count,8,8,", ",no change,", NULL) &&
	      has_line(o, "lock,kernfs_rwsem,hold_mean,", ",no change,", NULL),
	      "fentry -> fsession: the row's timings inconclusive, its calls and other rows "
	      "compared");
	free(o);
	rc = run(cmd_compare, out, err, "compare", b, m, NULL);
	o = slurp(out);
	CHECK(rc == 0 && has_line(o, "+", "undecided (p50; method differs: base fentry, new "
				  "fsession)", NULL) &&
	      has_line(o, "nft_trans_alloc calls", "no change (exact)", NULL) &&
	      has_line(o, "note: func nft_trans_alloc: method differs: base fentry, new fsession",
		       NULL), "compare text: verdict and note name the methods");
	free(o);
	rc = run(cmd_compare, out, err, "compare", "--format", "md", b, m, NULL);
	o = slurp(out);
	CHECK(rc == 0 && has_line(o, "- func nft_trans_alloc: method differs: base fentry, new "
				  "fsession", NULL), "compare md: the note");
	free(o);

	path(x, sizeof(x), "meth/junit.xml");
	rc = run(cmd_gate, out, err, "gate", "--junit", x, b, m, NULL);
	o = slurp(out);
	CHECKF(rc == 3 && has_line(o, "undecided", "func:nft_trans_alloc:p50",
				   "(method differs: base fentry, new fsession)", NULL) &&
	       has_line(o, "gate: UNKNOWN: 3 of ", "not comparable", NULL) &&
	       !has_line(o, "REGRESSED", NULL) &&
	       has_line(o, "undecided", "workload:nft:wall", "nft_trans_alloc:fsession", NULL),
	       "gate: the row's p50 and p90 and the workload's wall (another observer) unknown, "
	       "not failed: exit %d (want 3)", rc);
	free(o);
	o = slurp(x);
	CHECK(strstr(o, "name=\"func:nft_trans_alloc:p90\">\n      <skipped message=\"unknown: "
		     "measured +") && strstr(o, "not comparable: method differs: base fentry, new "
					    "fsession\"/>") && !strstr(o, "<failure"),
	      "gate JUnit: a skipped testcase naming the methods");
	free(o);

	path(rd, sizeof(rd), "meth/rep");
	rc = run(cmd_report, out, err, "report", b, m, "--out", rd, NULL);
	snprintf(x, sizeof(x), "%s/report.html", rd);
	o = slurp(x);
	CHECK(rc == 0 && strstr(o, "<p class=\"note\">func nft_trans_alloc: method differs: "
				"base fentry, new fsession") &&
	      strstr(o, "undecided (p50; method differs"), "report.html: verdict and note");
	free(o);
}

int main(void)
{
	if (cmp_begin("compare"))
		return 1;
	test_good();
	test_method();
	return cmp_end();
}
