// SPDX-License-Identifier: GPL-2.0
/*
 * test_attrib.c - the per-patch attribution model and its renderers on a
 * synthetic per-patch directory (base + 3 prefixes, results written with
 * fb_result_save()): each synthetic effect must land on its own step and
 * on no other, the Holm correction must demote what only passes uncorrected,
 * and bad per-patch.json must fail with one message.
 *
 * The numbers are synthetic: they test the model, not any kernel.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/attrib/attrib_render.h"
#include "model/fb.h"
#include "tap.h"

#define CHECK(cond, name)	CHECKF(cond, "%s", name)

static char tmp[256];

static uint64_t rng = 7;
static enum fb_clock clock_kind = FB_CLOCK_ICOUNT;	/* the rounds' clock */
static const char *gdp_method_s2 = "fentry";	/* get_device_parent's method in s@2 */

static double urand(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* The synthetic series: 1 drops activate calls, 2 speeds up gdp, 3 divides idr by 16. */
struct pfx {
	uint64_t activate_calls, idr_acq;
	double gdp_ns, small_ns;
};

static void func(struct fb_result *r, const char *name, uint64_t calls, double mean,
		 const char *method)
{
	struct fb_probe_result *p = &r->probes[r->nprobes++];

	snprintf(p->name, sizeof(p->name), "%s", name);
	p->kind = FB_FUNC;
	p->status = FB_ATTACHED;
	snprintf(p->method, sizeof(p->method), "%s", method);
	p->nstats = 1;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "latency");
	snprintf(p->stats[0].h.unit, sizeof(p->stats[0].h.unit), "ns");
	for (uint64_t i = 0; i < calls; i++)	/* all calls equal: the mean is exact */
		fb_hist_add(&p->stats[0].h, (uint64_t)mean);
}

static struct fb_result *mkres(const struct pfx *s, const char *arm, double noise)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	double f = 1 + noise * (2 * urand() - 1);
	struct fb_probe_result *p;

	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	snprintf(r->label, sizeof(r->label), "%s", arm);
	snprintf(r->host.arm, sizeof(r->host.arm), "%s", arm);
	r->host.clock = clock_kind;
	func(r, "kernfs_activate", s->activate_calls, 20000, "fentry");
	func(r, "get_device_parent", 100, s->gdp_ns * f,
	     strcmp(arm, "s@2") ? "fentry" : gdp_method_s2);
	func(r, "kernfs_new_node", 400, s->small_ns * f, "fentry");
	p = &r->probes[r->nprobes++];
	snprintf(p->name, sizeof(p->name), "kernfs_idr_lock");
	p->kind = FB_LOCK;
	p->status = FB_ATTACHED;
	p->nstats = 1;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "hold");
	for (uint64_t i = 0; i < s->idr_acq; i++)
		fb_hist_add(&p->stats[0].h, 300);
	r->nworkloads = 1;
	snprintf(r->workloads[0].name, sizeof(r->workloads[0].name), "sysfs");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = (uint64_t)(5e9 * f);
	fb_count_set(&r->workloads[0].ops, "devices_created", 100);
	return r;
}

static void write_dir(int rounds, double noise)
{
	static const struct pfx px[4] = {
		{ 1000, 1600, 400000, 30000 },
		{ 0, 1600, 400000, 30000 },
		{ 0, 1600, 300000, 30000 },
		{ 0, 100, 300000, 30300 },	/* +1%: below the minimum effect */
	};
	static const char *const names[4] = { "baseline", "s@1", "s@2", "s@3" };
	char p[512];
	FILE *f;

	for (int k = 0; k < 4; k++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[k]);
		mkdir(p, 0755);
		for (int i = 1; i <= rounds; i++) {
			struct fb_result *r = mkres(&px[k], names[k], noise);

			snprintf(p, sizeof(p), "%s/%s/round-%d.json", tmp, names[k], i);
			if (fb_result_save(r, p))
				printf("# cannot write %s\n", p);
			free(r);
		}
	}
	snprintf(p, sizeof(p), "%s/%s", tmp, FB_ATTRIB_FILE);
	f = fopen(p, "w");
	if (!f)
		return;
	fprintf(f, "{ \"schema\": \"foliobench-per-patch\", \"series\": \"s\", \"from\": 1, "
		"\"clock\": \"icount\", \"flavour\": \"perf\", \"prefixes\": [");
	for (int k = 0; k < 4; k++)
		fprintf(f, "%s{ \"dir\": \"%s\", \"patch\": \"000%d-p%d.patch\" }", k ? ", " : "",
			names[k], k, k);
	fprintf(f, "] }\n");
	fclose(f);
}

static const struct fb_attrib_row *row(const struct fb_attrib *a, const char *item,
				       const char *metric)
{
	for (int i = 0; i < a->nrows; i++)
		if (!strcmp(a->rows[i].item, item) && !strcmp(a->rows[i].metric, metric))
			return &a->rows[i];
	return NULL;
}

static int moved(const struct fb_attrib_cell *c)
{
	return c->have && (c->v == FB_V_CHANGED || c->v == FB_V_IMPROVED ||
			   c->v == FB_V_REGRESSED);
}

/* Only step `own` (0-based) decided a change, and the whole series did. */
static int only_step(const struct fb_attrib_row *x, int own)
{
	if (!x || !moved(&x->whole))
		return 0;
	for (int k = 0; k < 3; k++)
		if (moved(&x->step[k]) != (k == own))
			return 0;
	return 1;
}

static void test_counts_and_noise(void)
{
	struct fb_attrib a;
	char err[256];
	const struct fb_attrib_row *x;

	write_dir(8, 0.002);
	CHECK(fb_attrib_is_dir(tmp), "a directory with per-patch.json is a per-patch directory");
	CHECK(fb_attrib_open(&a, tmp, 0.05, 2, err, sizeof(err)) == 0, "8 rounds: table builds");
	CHECK(a.nsteps == 3 && !strcmp(a.prefix[3], "s@3"), "3 steps, prefixes in order");
	x = row(&a, "kernfs_activate", "calls");
	CHECK(only_step(x, 0), "activate calls: step 1 only");
	CHECK(x && x->step[0].exact && fabs(x->share[0] - 100) < 1e-9 && x->unexplained == 0,
	      "activate calls: exact, 100% of the total on step 1, nothing unexplained");
	x = row(&a, "kernfs_idr_lock", "acquisitions");
	CHECK(only_step(x, 2) && x->step[2].from == 1600 && x->step[2].to == 100,
	      "idr acquisitions: step 3 only, 1600 -> 100");
	x = row(&a, "get_device_parent", "mean");
	CHECK(only_step(x, 1) && x->step[1].v == FB_V_IMPROVED,
	      "gdp mean -25%: improved at step 2 only, after Holm");
	CHECK(x && x->step[1].p_holm >= x->step[1].p && x->step[1].p_holm < 0.05,
	      "Holm-adjusted p >= raw p, still below alpha");
	x = row(&a, "kernfs_new_node", "mean");
	CHECK(x && !moved(&x->step[2]), "+1% (under the minimum effect) is not attributed");
	CHECK(a.family > 10, "the Holm family spans the table");
	fb_attrib_free(&a);
}

static void test_few_rounds(void)
{
	struct fb_attrib a;
	char err[256];
	const struct fb_attrib_row *x;

	write_dir(2, 0.002);	/* overwrites rounds 1-2; remove 3-8 first */
	CHECK(fb_attrib_open(&a, tmp, 0.05, 2, err, sizeof(err)) == 0, "2 rounds: table builds");
	x = row(&a, "kernfs_activate", "calls");
	CHECK(only_step(x, 0), "2 rounds: exact counts still attributed");
	x = row(&a, "get_device_parent", "mean");
	CHECK(x && !moved(&x->step[1]) && x->step[1].v == FB_V_INCONCLUSIVE,
	      "2 rounds: a latency change is inconclusive, not attributed");
	fb_attrib_free(&a);
}

/*
 * 5+5 rounds: the rank test's best two-sided p is 0.0079, which Holm over
 * the table's cells cannot let through; icount rounds are tested as the
 * gate tests them (Welch on logs), so the -25% step is still attributed,
 * and host-clock rounds leave it inconclusive.
 */
static void test_icount_family(void)
{
	struct fb_attrib a;
	char err[256];
	const struct fb_attrib_row *x;
	char cmd[300];

	for (int k = 0; k < 2; k++) {
		clock_kind = k ? FB_CLOCK_HOST : FB_CLOCK_ICOUNT;
		snprintf(cmd, sizeof(cmd), "rm -f %s/*/round-*.json", tmp);
		if (system(cmd))
			printf("# %s failed\n", cmd);
		write_dir(5, 0.0005);
		CHECK(fb_attrib_open(&a, tmp, 0.05, 2, err, sizeof(err)) == 0, "5 rounds: table builds");
		x = row(&a, "get_device_parent", "mean");
		printf("# %s rounds: Holm family %d, step 2 p %.2g\n", k ? "host" : "icount",
		       a.family, x ? x->step[1].p : NAN);
		if (k)
			CHECK(x && x->step[1].v == FB_V_INCONCLUSIVE,
			      "host clock, 5+5 rounds: -25% inconclusive after Holm (ranks)");
		else
			CHECK(only_step(x, 1) && x->step[1].v == FB_V_IMPROVED && x->step[1].p_holm < 0.05,
			      "icount, 5+5 rounds: -25% improved at step 2 only, after Holm (Welch on logs)");
		fb_attrib_free(&a);
	}
	clock_kind = FB_CLOCK_ICOUNT;
}

/*
 * get_device_parent measured by another method in s@2 only: its steps 2 and
 * 3 compare two methods (inconclusive, no p-value, out of the Holm family),
 * the calls still count, and the whole series (fentry both ends) decides.
 */
static void test_method_family(void)
{
	struct fb_attrib a, b;
	char err[256];
	const struct fb_attrib_row *x;

	write_dir(8, 0.002);
	CHECK(fb_attrib_open(&a, tmp, 0.05, 2, err, sizeof(err)) == 0, "one method: table builds");
	gdp_method_s2 = "fsession";
	write_dir(8, 0.002);
	gdp_method_s2 = "fentry";
	CHECK(fb_attrib_open(&b, tmp, 0.05, 2, err, sizeof(err)) == 0, "s@2 by fsession: table builds");
	x = row(&b, "get_device_parent", "mean");
	CHECK(x && x->step[1].v == FB_V_INCONCLUSIVE && !x->step[1].tested &&
	      x->step[2].v == FB_V_INCONCLUSIVE && !x->step[2].tested,
	      "methods differ at steps 2 and 3: inconclusive, untested");
	CHECK(x && moved(&x->whole) && x->whole.tested, "the whole series, one method: decided");
	x = row(&b, "get_device_parent", "calls");
	CHECK(x && x->step[1].exact && x->step[1].v != FB_V_INCONCLUSIVE,
	      "calls are compared across methods");
	printf("# Holm family: %d cells one method, %d with s@2 by fsession\n", a.family, b.family);
	CHECK(b.family < a.family, "method-mismatched cells leave the Holm family");
	fb_attrib_free(&a);
	fb_attrib_free(&b);
}

static int file_has(const char *path, const char *needle)
{
	char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

/* Lines of path that start with "prefix" (at most 64 KiB read). */
static int lines_starting(const char *path, const char *prefix)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	if (f)
		fclose(f);
	return n;
}

/* The rounds-used line of each prefix, once: not again for the next step or the whole. */
static void check_rounds_listed_once(const char *log)
{
	static const char *const names[4] = { "baseline", "s@1", "s@2", "s@3" };
	char want[400];
	int once = 1;

	for (int k = 0; k < 4; k++) {
		snprintf(want, sizeof(want), "%s/%s: ", tmp, names[k]);
		once &= lines_starting(log, want) == 1;
	}
	CHECK(once, "per-patch report: each prefix's rounds used listed once");
}

static void test_render(void)
{
	char out[300], p[400], log[300];
	int rc, fd, saved;

	snprintf(out, sizeof(out), "%s/report", tmp);
	snprintf(log, sizeof(log), "%s/stderr.log", tmp);
	fflush(stdout);
	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		dup2(fd, 2);
	rc = fb_attrib_report(tmp, out, 0.05, 2, "foliobench report test");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (fd >= 0)
		close(fd);
	CHECK(rc == 0, "fb_attrib_report writes the reports");
	check_rounds_listed_once(log);
	snprintf(p, sizeof(p), "%s/report.md", out);
	CHECK(file_has(p, "| Metric | baseline | 1: p1 |") &&
	      file_has(p, "func kernfs_activate calls"), "markdown table with a column per patch");
	snprintf(p, sizeof(p), "%s/report.html", out);
	CHECK(file_has(p, "<svg") && file_has(p, "#c0392b"), "html: step plots, decided steps red");
	snprintf(p, sizeof(p), "%s/attribution.csv", out);
	CHECK(file_has(p, "func,kernfs_activate,calls,count,1,1,1000,0,-1000,"),
	      "csv: one line per cell");
}

static void bad_meta(const char *json, const char *what)
{
	struct fb_attrib a;
	char err[256] = "";

	tap_put(tmp, FB_ATTRIB_FILE, json);
	CHECK(fb_attrib_open(&a, tmp, 0.05, 2, err, sizeof(err)) == -1 && err[0] &&
	      !strchr(err, '\n'), what);
	fb_attrib_free(&a);
}

int main(void)
{
	char cmd[300];

	snprintf(tmp, sizeof(tmp), "/tmp/fb-attrib-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	test_counts_and_noise();
	snprintf(cmd, sizeof(cmd), "rm -f %s/*/round-[3-8].json", tmp);
	if (system(cmd))
		printf("# %s failed\n", cmd);
	test_few_rounds();
	test_render();
	test_icount_family();
	test_method_family();
	bad_meta("{", "unreadable per-patch.json: one error line");
	bad_meta("{ \"schema\": \"foliobench-ab\", \"prefixes\": [] }", "wrong schema: error");
	bad_meta("{ \"schema\": \"foliobench-per-patch\", "
		 "\"prefixes\": [ { \"dir\": \"baseline\" } ] }", "one prefix: error");
	bad_meta("{ \"schema\": \"foliobench-per-patch\", \"prefixes\": [ { \"dir\": \"../x\" }, "
		 "{ \"dir\": \"s@1\" } ] }", "a prefix outside DIR: error");
	bad_meta("{ \"schema\": \"foliobench-per-patch\", "
		 "\"prefixes\": [ { \"dir\": \"baseline\" }, { \"dir\": \"missing\" } ] }",
		 "a missing prefix directory: error");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		printf("# %s failed\n", cmd);
	return tap_done();
}
