// SPDX-License-Identifier: GPL-2.0
/*
 * test_compare.c - compare/gate/report on synthetic results files written
 * with fb_result_save() into a temporary directory, and the bad-input
 * cases: every one must exit 2 with exactly one line on stderr, never
 * crash.  Each command runs in a child process so a crash is a failure
 * here, not the end of the test binary.
 *
 * The numbers are synthetic: they test the statistics and formatting
 * code, not any kernel.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis/compare/compare.h"
#include "analysis/report/compare_cmd.h"
#include "analysis/gate/gate.h"
#include "analysis/report/report.h"
#include "tap.h"
#include "model/fb.h"

static char tmp[256];

#define CHECK(cond, name) CHECKF(cond, "%s", name)

static uint64_t rng_state = 1;

static double urand(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double noise(double rel)
{
	return 1 + rel * (2 * urand() - 1);
}

struct spec {
	double func_ns;		/* mean latency of nft_trans_alloc */
	double hold_ns;		/* mean hold of kernfs_rwsem */
	uint64_t calls;		/* nft_trans_alloc calls = nft.trans_objects */
	uint64_t acq_per_obj;
	double wall_ns;
	double rel_noise;	/* per round */
	int extra_workload;
	int drop_probe;
};

static void fill_hist(struct fb_hist *h, uint64_t n, double mean)
{
	snprintf(h->unit, sizeof(h->unit), "ns");
	for (uint64_t i = 0; i < n; i++)
		fb_hist_add(h, (uint64_t)(mean * (0.5 + urand())));
}

static struct fb_result *mkres(const struct spec *s, const char *arm)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	struct fb_probe_result *p;
	double f = noise(s->rel_noise);

	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	snprintf(r->label, sizeof(r->label), "unit-%s", arm);
	static unsigned int seq;	/* each round its own identity (rounds.c dedups copies) */

	snprintf(r->started, sizeof(r->started), "2026-11-30T%02u:%02u:%02uZ", (seq / 3600) % 24,
		 (seq / 60) % 60, seq % 60);
	seq++;
	snprintf(r->host.release, sizeof(r->host.release), "7.3.4-fb-%s", arm);
	snprintf(r->host.config_sha256, sizeof(r->host.config_sha256), "abc123");
	snprintf(r->host.cmdline, sizeof(r->host.cmdline), "console=ttyS0 foliobench.arm=%s", arm);
	snprintf(r->host.arm, sizeof(r->host.arm), "%s", arm);
	r->host.ncpus = 2;

	p = &r->probes[r->nprobes++];
	snprintf(p->name, sizeof(p->name), "nft_trans_alloc");
	p->kind = FB_FUNC;
	p->status = FB_ATTACHED;
	snprintf(p->method, sizeof(p->method), "fentry");
	snprintf(p->symbol, sizeof(p->symbol), "nft_trans_alloc");
	p->nstats = 1;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "latency");
	fill_hist(&p->stats[0].h, s->calls, s->func_ns * f);

	p = &r->probes[r->nprobes++];
	snprintf(p->name, sizeof(p->name), "kernfs_rwsem");
	p->kind = FB_LOCK;
	p->status = FB_ATTACHED;
	p->nstats = 2;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "wait");
	fill_hist(&p->stats[0].h, s->calls * s->acq_per_obj, 40);
	snprintf(p->stats[1].name, sizeof(p->stats[1].name), "hold");
	fill_hist(&p->stats[1].h, s->calls * s->acq_per_obj, s->hold_ns * noise(s->rel_noise));

	if (!s->drop_probe) {
		p = &r->probes[r->nprobes++];
		snprintf(p->name, sizeof(p->name), "folio_scratchpad_alloc");
		p->kind = FB_FUNC;
		p->status = FB_UNAVAILABLE;
		snprintf(p->reason, sizeof(p->reason), "symbol not in this kernel");
	}

	r->nworkloads = 1;
	snprintf(r->workloads[0].name, sizeof(r->workloads[0].name), "nft");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = (uint64_t)(s->wall_ns * noise(s->rel_noise));
	fb_count_set(&r->workloads[0].ops, "trans_objects", s->calls);
	/* a phase op as long as the sysfs workload's lock-row ones (34 chars) */
	fb_count_set(&r->workloads[0].ops, "register_kernfs_rwsem_read_hold_ns", 123456);
	/* a count that varies from round to round (time held in a phase) */
	fb_count_set(&r->workloads[0].ops, "phase_hold_ns", (uint64_t)(s->hold_ns * 100 * noise(0.01)));
	if (s->extra_workload) {
		r->nworkloads = 2;
		snprintf(r->workloads[1].name, sizeof(r->workloads[1].name), "sysfs");
		r->workloads[1].status = FB_WL_OK;
		r->workloads[1].wall_ns = 1000;
	}
	r->ncontention = 2;
	snprintf(r->contention[0].lock, sizeof(r->contention[0].lock), "&root->kernfs_rwsem");
	r->contention[0].count = 100 + (uint64_t)(20 * urand());
	r->contention[0].wait_ns = (uint64_t)(1e6 * noise(0.2));
	/* run labels the contention of a watched lock with the probe's name */
	snprintf(r->contention[1].lock, sizeof(r->contention[1].lock), "kernfs_rwsem");
	r->contention[1].count = 10 * s->acq_per_obj;
	r->contention[1].wait_ns = 5000;
	r->nextra = 1;
	snprintf(r->extra[0].key, sizeof(r->extra[0].key), "lockdep_stats.after.lock-classes");
	r->extra[0].val = 996;
	return r;
}

static void write_rounds(const char *dir, const struct spec *s, const char *arm, int n)
{
	char p[512];

	mkdir(dir, 0755);
	for (int i = 1; i <= n; i++) {
		struct fb_result *r = mkres(s, arm);

		snprintf(p, sizeof(p), "%s/round-%d.json", dir, i);
		if (fb_result_save(r, p))
			printf("# cannot write %s\n", p);
		free(r);
	}
}

/* Runs fn(argv) in a child with stdout/stderr to files; exit code or 128+signal. */
static int run(int (*fn)(int, char **), const char *out, const char *errf, ...)
{
	char *argv[32];
	int argc = 0, st;
	va_list ap;
	pid_t pid;

	va_start(ap, errf);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(out, "w", stdout) || !freopen(errf, "w", stderr))
			_exit(99);
		int rc = fn(argc, argv);

		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* Lines on stderr, not counting the rounds-used lines every load prints. */
static int count_lines(const char *s)
{
	int n = 0;

	for (const char *l = s; *l; l = strchrnul(l, '\n') + (strchr(l, '\n') != NULL)) {
		const char *e = strchrnul(l, '\n');

		if (!memmem(l, (size_t)(e - l), " rounds from ", 13) &&
		    !memmem(l, (size_t)(e - l), ": dropped ", 10))
			n++;
		if (!*e)
			break;
	}
	return n;
}

/* A line of out containing every one of the given strings. */
static int has_line(const char *out, ...)
{
	const char *line = out;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[2048];
		const char *w;
		int all = 1;
		va_list ap;

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), line);
		va_start(ap, out);
		while ((w = va_arg(ap, const char *)))
			if (!strstr(buf, w))
				all = 0;
		va_end(ap);
		if (all)
			return 1;
		if (!end)
			break;
		line = end + 1;
	}
	return 0;
}

static void path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", tmp, rel);
}

static int write_text(const char *p, const char *s, size_t n)
{
	FILE *f = fopen(p, "w");

	if (!f)
		return -1;
	fwrite(s, 1, n, f);
	return fclose(f);
}

/* Expect exit 2 and one stderr line containing want. */
static void bad_case(const char *name, const char *want, const char *a, const char *b)
{
	char out[300], err[300], msg[300];
	char *e;
	int rc;

	path(out, sizeof(out), "out.txt");
	path(err, sizeof(err), "err.txt");
	rc = run(cmd_compare, out, err, "compare", a, b, NULL);
	e = slurp(err);
	snprintf(msg, sizeof(msg), "bad input (%s): compare exits 2", name);
	CHECK(rc == 2, msg);
	snprintf(msg, sizeof(msg), "bad input (%s): one line on stderr naming the problem", name);
	CHECK(count_lines(e) == 1 && (!want || strstr(e, want)), msg);
	if (rc != 2 || count_lines(e) != 1 || (want && !strstr(e, want)))
		printf("# rc=%d stderr: %s", rc, e);
	free(e);
	rc = run(cmd_gate, out, err, "gate", a, b, NULL);
	snprintf(msg, sizeof(msg), "bad input (%s): gate exits 2", name);
	CHECK(rc == 2, msg);
}

static void mutate_json(const char *src, const char *dst, const char *key, json_object *val)
{
	json_object *o = json_object_from_file(src);

	json_object_object_add(o, key, val);
	json_object_to_file(dst, o);
	json_object_put(o);
}

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

static void test_bad(void)
{
	char good[300], p[300], dir[300], empty[400];
	struct spec s = { .func_ns = 1000, .hold_ns = 1000, .calls = 50, .acq_per_obj = 1,
			  .wall_ns = 1e6, .rel_noise = 0.01 };
	struct fb_result *r = mkres(&s, "x");
	char *txt;
	size_t len;

	path(good, sizeof(good), "good.json");
	fb_result_save(r, good);
	free(r);
	txt = slurp(good);
	len = strlen(txt);

	path(p, sizeof(p), "badver.json");
	mutate_json(good, p, "schema_version", json_object_new_int(99));
	bad_case("wrong schema version", "schema version", good, p);

	path(p, sizeof(p), "badschema.json");
	mutate_json(good, p, "schema", json_object_new_string("something-else"));
	bad_case("other schema", "schema", good, p);

	path(p, sizeof(p), "trunc.json");
	write_text(p, txt, len / 2);
	bad_case("truncated JSON", "truncated", good, p);

	path(p, sizeof(p), "corrupt.json");
	{
		char *c = strdup(txt);

		memcpy(c + len / 3, "\x01}{]\"", 5);
		write_text(p, c, len);
		free(c);
	}
	bad_case("corrupt JSON", "corrupt.json", good, p);

	path(p, sizeof(p), "empty.json");
	write_text(p, "", 0);
	bad_case("empty file", "empty", good, p);

	path(p, sizeof(p), "array.json");
	write_text(p, "[1,2,3]", 7);
	bad_case("not an object", "array.json", p, good);

	path(p, sizeof(p), "probes-type.json");
	mutate_json(good, p, "probes", json_object_new_string("nope"));
	bad_case("wrong field type", "probes", good, p);

	path(p, sizeof(p), "missing.json");
	bad_case("missing file", "missing.json", good, p);

	s.extra_workload = 1;
	r = mkres(&s, "x");
	path(p, sizeof(p), "wl.json");
	fb_result_save(r, p);
	free(r);
	bad_case("mismatched workloads", "mismatched workloads: 'sysfs'", good, p);

	s.extra_workload = 0;
	s.drop_probe = 1;
	r = mkres(&s, "x");
	path(p, sizeof(p), "probes.json");
	fb_result_save(r, p);
	free(r);
	bad_case("mismatched probe sets", "mismatched probe sets: probe 'folio_scratchpad_alloc'",
		 good, p);

	/* rounds of one side disagree */
	path(dir, sizeof(dir), "mixed");
	mkdir(dir, 0755);
	snprintf(empty, sizeof(empty), "%s/round-1.json", dir);
	write_text(empty, txt, len);
	snprintf(empty, sizeof(empty), "%s/round-2.json", dir);
	r = mkres(&s, "x");
	fb_result_save(r, empty);
	free(r);
	bad_case("rounds of one side disagree", "mismatched probe sets", dir, good);

	path(empty, sizeof(empty), "emptydir");
	mkdir(empty, 0755);
	bad_case("directory without results", "no *.json", empty, good);

	/* an ab dir with only one arm */
	{
		char one[300], oa[400], out[300], err[300];
		int rc;

		path(one, sizeof(one), "onearm");
		mkdir(one, 0755);
		snprintf(oa, sizeof(oa), "%s/baseline", one);
		mkdir(oa, 0755);
		path(out, sizeof(out), "out.txt");
		path(err, sizeof(err), "err.txt");
		rc = run(cmd_compare, out, err, "compare", one, NULL);
		CHECK(rc == 2, "ab dir without patched/: exit 2");
		rc = run(cmd_compare, out, err, "compare", "--alpha", "abc", good, good, NULL);
		CHECK(rc == 2, "bad --alpha: exit 2");
		rc = run(cmd_compare, out, err, "compare", "--bogus", good, good, NULL);
		CHECK(rc == 2, "unknown option: exit 2");
		rc = run(cmd_gate, out, err, "gate", "--max-regression", "-3", good, good, NULL);
		CHECK(rc == 2, "gate: bad --max-regression: exit 2");
		rc = run(cmd_gate, out, err, "gate", "--min-effect", "3", good, good, NULL);
		CHECK(rc == 2, "gate: --min-effect (compare's option) is no gate option: exit 2");
		rc = run(cmd_compare, out, err, "compare", good, NULL);
		CHECK(rc == 2, "one file argument: exit 2");
	}
	free(txt);
}

/* Random byte edits of a valid file: the reader must fail cleanly or succeed. */
static void test_mutations(void)
{
	char good[300];
	char *txt, *m, e[300];
	size_t len;
	int crashed = 0, rejected = 0;
	pid_t pid;
	int st;

	path(good, sizeof(good), "good.json");
	txt = slurp(good);
	len = strlen(txt);
	m = malloc(len + 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3000; i++) {
			struct fb_result *r;

			memcpy(m, txt, len + 1);
			for (int k = 0; k < 1 + i % 4; k++)
				m[(size_t)(urand() * (double)len)] = "{}[]\",:0-9e.x \x00"[(int)(urand() * 16)];
			r = fb_result_parse(m, (size_t)(urand() * (double)len) + 1, e, sizeof(e));
			if (!r && (!e[0] || strchr(e, '\n')))
				_exit(3);
			if (!r)
				rejected++;
			free(r);
		}
		_exit(rejected > 0 ? 0 : 4);
	}
	waitpid(pid, &st, 0);
	crashed = !WIFEXITED(st) || WEXITSTATUS(st);
	CHECK(!crashed, "3000 mutated files: parse fails cleanly with one-line reason, no crash");
	free(m);
	free(txt);
}

int main(void)
{
	char cmd[400];

	snprintf(tmp, sizeof(tmp), "/tmp/fb-test-compare.XXXXXX");
	if (!mkdtemp(tmp)) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_good();
	test_method();
	test_bad();
	test_mutations();
	if (!tap_failed && !getenv("FB_TEST_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			printf("# could not remove %s\n", tmp);
	} else {
		printf("# files kept in %s\n", tmp);
	}
	return tap_done();
}
