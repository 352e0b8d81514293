// SPDX-License-Identifier: GPL-2.0
/*
 * ab.c - `foliobench ab`: interleaved A/B rounds, one fresh guest boot per
 * round (A B A B ...), each running `foliobench run` in the guest through
 * fb_vm_run(); per-round results in DIR/<arm>/round-<i>.json, a summary of
 * medians at the end and DIR/ab.json describing what ran.
 */
#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/fb.h"
#include "analysis/stats.h"
#include "guest/vm.h"
#include "util/cli.h"

#define AB_MAX_ROUNDS	FB_STATS_MAX_N
#define AB_DEFAULT_ROUNDS	15
#define AB_DEFAULT_SMP	1
#define AB_MAX_WL	FB_MAX_WORKLOADS
#define AB_MAX_PARAMS	32

struct ab_arm {
	const char *name;	/* baseline | patched */
	const char *spec;	/* as given */
	char bz[PATH_MAX];
};

struct ab_run {
	int round, arm, rc;
	double boot_s, total_s;
	char result[PATH_MAX];
	char console[PATH_MAX];
};

/* Everything `ab` was asked for, filled by the option parser. */
struct ab_env {
	struct ab_arm arms[2];
	const char *wl[AB_MAX_WL], *params[AB_MAX_PARAMS], *probes[AB_MAX_WL];
	int nwl, nparams, nprobes, rounds;
	const char *flavour, *out_opt, *extra_append;
	struct fb_vm_opts vo;
	char out[PATH_MAX], exe[PATH_MAX], started[32];
};

enum { OPT_BASE = 0x200, OPT_NEW, OPT_ROUNDS, OPT_WL, OPT_PARAM, OPT_FLAVOUR, OPT_OUT,
       OPT_PROBES, OPT_FLAVOR };

static const struct argp_option ab_options[] = {
	{ "baseline", OPT_BASE, "K1", 0, "kernel A: bzImage, kernel directory or arm (baseline)",
	  0 },
	{ "patched", OPT_NEW, "K2", 0, "kernel B (patched)", 0 },
	{ "rounds", OPT_ROUNDS, "N", 0, "boots per kernel (15: what `foliobench gate` needs to "
	  "catch a 5% regression under host-clock TCG, docs/compare.md)", 0 },
	{ "workload", OPT_WL, "W", 0, "workload to run (repeatable; default: foliobench run's)",
	  0 },
	{ "param", OPT_PARAM, "WL.KEY=V", 0, "workload parameter (repeatable)", 0 },
	{ "flavour", OPT_FLAVOUR, "F", 0, "config flavour of arm-named kernels (perf)", 0 },
	{ "flavor", OPT_FLAVOR, "F", OPTION_HIDDEN, NULL, 0 },
	{ "out", OPT_OUT, "DIR", 0, "results directory (results/ab-<time>)", 0 },
	{ "probes", OPT_PROBES, "GLOB", 0, "only these probes in the guest runs (repeatable)", 0 },
	{ 0 },
};

static int push(const char **arr, int *n, int max, const char *what, const char *v)
{
	if (*n == max) {
		fb_err("ab: at most %d %s", max, what);
		return -1;
	}
	arr[(*n)++] = v;
	return 0;
}

static int ab_opt(struct ab_env *e, int key, char *arg)
{
	unsigned long long v;

	switch (key) {
	case OPT_BASE:
		e->arms[0].spec = arg;
		return 0;
	case OPT_NEW:
		e->arms[1].spec = arg;
		return 0;
	case OPT_ROUNDS:
		if (fb_opt_uint("ab", "--rounds", arg, 1, AB_MAX_ROUNDS, &v) < 0)
			return -1;
		e->rounds = (int)v;
		return 0;
	case OPT_WL:
		return push(e->wl, &e->nwl, AB_MAX_WL, "--workload", arg);
	case OPT_PARAM:
		if (!strchr(arg, '=')) {
			fb_err("ab: --param wants WORKLOAD.KEY=VALUE, not '%s'", arg);
			return -1;
		}
		return push(e->params, &e->nparams, AB_MAX_PARAMS, "--param", arg);
	case OPT_FLAVOUR:
	case OPT_FLAVOR:
		e->flavour = arg;
		return 0;
	case OPT_OUT:
		e->out_opt = arg;
		return 0;
	case OPT_PROBES:
		return push(e->probes, &e->nprobes, AB_MAX_WL, "--probes", arg);
	}
	return 1;
}

static error_t ab_parse(int key, char *arg, struct argp_state *state)
{
	struct ab_env *e = state->input;
	int r;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &e->vo;
		return 0;
	case ARGP_KEY_ARG:
		fb_err("ab: unexpected argument '%s' (see foliobench ab --help)", arg);
		return EINVAL;
	}
	r = ab_opt(e, key, arg);
	if (r > 0)
		return ARGP_ERR_UNKNOWN;
	return r ? EINVAL : 0;
}

static const struct argp_child ab_children[] = {
	{ &fb_guest_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp ab_argp = {
	ab_options, ab_parse, NULL,
	"Interleaved A/B measurement: for each round, boots K1 then K2 (a fresh guest per boot) "
	"and runs `foliobench run` in it.  K1/K2 are a bzImage, a kernel directory or an arm of "
	"kernel-patches/arms.conf (built for flavour F first if needed)."
	"\vWrites DIR/<arm>/round-<i>.json, DIR/<arm>/console-round-<i>.log and DIR/ab.json; "
	"prints per workload the median wall time and per probe the median count and mean "
	"latency of each arm, then the commands that read DIR.  Exit status 0 if every boot and "
	"run succeeded, 1 otherwise, 2 on bad options, 130 if interrupted.",
	ab_children, NULL, NULL,
};

static json_object *json_strs(const char *const *v, int n)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *ab_runs_json(const struct ab_env *e, const struct ab_run *runs, int nruns)
{
	json_object *a = json_object_new_array();
	size_t dl = strlen(e->out);

	for (int i = 0; i < nruns; i++) {
		const struct ab_run *r = &runs[i];
		json_object *o = json_object_new_object();
		const char *res = r->result, *con = r->console;

		/* relative to DIR, so the directory can move */
		if (!strncmp(res, e->out, dl) && res[dl] == '/')
			res += dl + 1;
		if (!strncmp(con, e->out, dl) && con[dl] == '/')
			con += dl + 1;
		json_object_object_add(o, "round", json_object_new_int(r->round));
		json_object_object_add(o, "arm", json_object_new_string(e->arms[r->arm].name));
		json_object_object_add(o, "exit", json_object_new_int(r->rc));
		json_object_object_add(o, "boot_s", json_object_new_double(r->boot_s));
		json_object_object_add(o, "total_s", json_object_new_double(r->total_s));
		json_object_object_add(o, "result", json_object_new_string(res));
		json_object_object_add(o, "console", json_object_new_string(con));
		json_object_array_add(a, o);
	}
	return a;
}

static int write_ab_json(const struct ab_env *e, const struct ab_run *runs, int nruns)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	char path[PATH_MAX], tmp[PATH_MAX];
	int ret = 0;

	json_object_object_add(o, "schema", json_object_new_string("foliobench-ab"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "tool_version", json_object_new_string(FB_VERSION));
	json_object_object_add(o, "started", json_object_new_string(e->started));
	json_object_object_add(o, "flavour", json_object_new_string(e->flavour));
	json_object_object_add(o, "rounds", json_object_new_int(e->rounds));
	json_object_object_add(o, "clock", json_object_new_string(fb_clock_name(e->vo.clock)));
	json_object_object_add(o, "icount_shift", json_object_new_int(e->vo.icount_shift));
	json_object_object_add(o, "smp", json_object_new_int(e->vo.smp));
	for (int i = 0; i < 2; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "name", json_object_new_string(e->arms[i].name));
		json_object_object_add(m, "spec", json_object_new_string(e->arms[i].spec));
		json_object_object_add(m, "kernel", json_object_new_string(e->arms[i].bz));
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "arms", a);
	json_object_object_add(o, "workloads", json_strs(e->wl, e->nwl));
	json_object_object_add(o, "params", json_strs(e->params, e->nparams));
	json_object_object_add(o, "runs", ab_runs_json(e, runs, nruns));

	fb_fmt(path, sizeof(path), "%s/ab.json", e->out);
	fb_fmt(tmp, sizeof(tmp), "%s/.ab.json.tmp", e->out);
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_SPACED |
				    JSON_C_TO_STRING_NOSLASHESCAPE) < 0 ||
	    rename(tmp, path) < 0) {
		fb_err("ab: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		ret = -1;
	}
	json_object_put(o);
	return ret;
}

static void pct(char *buf, size_t len, double a, double b)
{
	if (isnan(a) || isnan(b) || a == 0)
		fb_fmt(buf, len, "-");
	else
		fb_fmt(buf, len, "%+.1f%%", (b - a) / a * 100.0);
}

static void num(char *buf, size_t len, double v, int prec, const char *unit)
{
	if (isnan(v)) {
		fb_fmt(buf, len, "-");
		return;
	}
	/* nanoseconds: scale to a readable unit */
	if (!strcmp(unit, "ns") && v >= 1e6) {
		v /= 1e6;
		unit = "ms";
		prec = 2;
	} else if (!strcmp(unit, "ns") && v >= 1e4) {
		v /= 1e3;
		unit = "us";
		prec = 1;
	}
	fb_fmt(buf, len, "%.*f%s%s", prec, v, *unit ? " " : "", unit);
}

/* Per workload and per probe medians over the rounds of each arm. */
static void summarise(const struct ab_arm *arms, const struct ab_run *runs, int nruns)
{
	struct fb_result *res[2][AB_MAX_ROUNDS] = { { NULL } };
	int nres[2] = { 0, 0 };
	char names[FB_MAX_PROBES + FB_MAX_WORKLOADS][64];
	int nnames;
	static double v[2][3][AB_MAX_ROUNDS];

	for (int i = 0; i < nruns; i++) {
		char err[256];
		struct fb_result *r;

		if (access(runs[i].result, R_OK) < 0)
			continue;
		r = fb_result_load(runs[i].result, err, sizeof(err));
		if (!r) {
			fb_err("ab: %s: %s", runs[i].result, err);
			continue;
		}
		res[runs[i].arm][nres[runs[i].arm]++] = r;
	}
	printf("\nfoliobench ab: %d+%d results (%s | %s)\n", nres[0], nres[1],
	       arms[0].name, arms[1].name);
	if (!nres[0] && !nres[1])
		goto out;

	/* workloads: union of names, in order of appearance */
	nnames = 0;
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < nres[a]; i++)
			for (int w = 0; w < res[a][i]->nworkloads; w++) {
				const char *n = res[a][i]->workloads[w].name;
				int k;

				for (k = 0; k < nnames && strcmp(names[k], n); k++)
					;
				if (k == nnames && nnames < FB_MAX_WORKLOADS)
					fb_fmt(names[nnames++], sizeof(names[0]), "%s", n);
			}
	printf("\n%-24s %14s %14s %9s\n", "workload (median wall)", arms[0].name,
	       arms[1].name, "delta");
	for (int k = 0; k < nnames; k++) {
		double m[2];
		char s0[32], s1[32], d[32];

		for (int a = 0; a < 2; a++) {
			int n = 0;

			for (int i = 0; i < nres[a]; i++) {
				const struct fb_workload_result *w =
					fb_result_workload(res[a][i], names[k]);

				if (w && w->status == FB_WL_OK)
					v[a][0][n++] = (double)w->wall_ns / 1e6;
			}
			m[a] = fb_median(v[a][0], n);
		}
		num(s0, sizeof(s0), m[0], 1, "ms");
		num(s1, sizeof(s1), m[1], 1, "ms");
		pct(d, sizeof(d), m[0], m[1]);
		printf("%-24s %14s %14s %9s\n", names[k], s0, s1, d);
	}

	/* probes: union of attached probe names */
	nnames = 0;
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < nres[a]; i++)
			for (int p = 0; p < res[a][i]->nprobes; p++) {
				const struct fb_probe_result *pr = &res[a][i]->probes[p];
				int k;

				if (pr->status != FB_ATTACHED || !pr->nstats)
					continue;
				for (k = 0; k < nnames && strcmp(names[k], pr->name); k++)
					;
				if (k == nnames && nnames < FB_MAX_PROBES)
					fb_fmt(names[nnames++], sizeof(names[0]), "%s", pr->name);
			}
	if (!nnames)
		goto out;
	printf("\n%-28s %12s %12s %12s %12s %9s\n", "probe (medians)",
	       "count A", "count B", "mean A", "mean B", "mean d");
	for (int k = 0; k < nnames; k++) {
		double cnt[2], mean[2];
		char c0[32], c1[32], m0[32], m1[32], d[32];
		const char *unit = "ns";

		for (int a = 0; a < 2; a++) {
			int n = 0, nm = 0;

			for (int i = 0; i < nres[a]; i++) {
				const struct fb_probe_result *pr =
					fb_result_probe(res[a][i], names[k]);

				if (!pr || pr->status != FB_ATTACHED || !pr->nstats)
					continue;
				if (pr->stats[0].h.unit[0])
					unit = pr->stats[0].h.unit;
				v[a][1][n++] = (double)pr->stats[0].h.count;
				if (pr->stats[0].h.count)
					v[a][2][nm++] = fb_hist_mean(&pr->stats[0].h);
			}
			cnt[a] = fb_median(v[a][1], n);
			mean[a] = fb_median(v[a][2], nm);
		}
		num(c0, sizeof(c0), cnt[0], 0, "");
		num(c1, sizeof(c1), cnt[1], 0, "");
		num(m0, sizeof(m0), mean[0], 0, unit);
		num(m1, sizeof(m1), mean[1], 0, unit);
		pct(d, sizeof(d), mean[0], mean[1]);
		printf("%-28s %12s %12s %12s %12s %9s\n", names[k], c0, c1, m0, m1, d);
	}
out:
	printf("\n");
	fflush(stdout);
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < nres[a]; i++)
			free(res[a][i]);
}

/* Kernels first (building them is the long part on a fresh machine), then DIR. */
static int ab_prepare(struct ab_env *e)
{
	char repo[PATH_MAX], ts[32], sub[PATH_MAX], real[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;

	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return 1;
	fb_fmt(e->exe, sizeof(e->exe), "%s/foliobench", repo);
	gmtime_r(&now, &tm);
	strftime(e->started, sizeof(e->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	if (e->out_opt)
		fb_fmt(e->out, sizeof(e->out), "%s", e->out_opt);
	else
		fb_fmt(e->out, sizeof(e->out), "results/ab-%s", ts);
	for (int a = 0; a < 2; a++) {
		if (fb_kernel_resolve(e->arms[a].spec, e->flavour, 1, e->arms[a].bz,
				      sizeof(e->arms[a].bz)) < 0)
			return 1;
		if (fb_stop)
			return 130;
	}
	if (!strcmp(e->arms[1].spec, "patched") && !fb_kernel_arm_has_series("patched"))
		fb_info("ab: warning: the patched arm has no series yet, this is an A/A run");
	if (!strcmp(e->arms[0].bz, e->arms[1].bz))
		fb_info("ab: warning: both arms boot the same kernel %s", e->arms[0].bz);
	for (int a = 0; a < 2; a++) {
		fb_fmt(sub, sizeof(sub), "%s/%s", e->out, e->arms[a].name);
		if (fb_mkdir_p(sub) < 0) {
			fb_err("ab: cannot create %s: %s", sub, strerror(errno));
			return 1;
		}
	}
	if (!realpath(e->out, real)) {
		fb_err("ab: %s: %s", e->out, strerror(errno));
		return 1;
	}
	fb_fmt(e->out, sizeof(e->out), "%s", real);
	return 0;
}

/* One boot of arm a in round r: `foliobench run` in a fresh guest. */
static void ab_boot(struct ab_env *e, struct ab_run *run, int r, int a)
{
	const char *gargv[8 + 2 * (AB_MAX_WL + AB_MAX_PARAMS + AB_MAX_WL)];
	char append[640], label[64];
	int ng = 0;

	run->round = r;
	run->arm = a;
	fb_fmt(run->result, sizeof(run->result), "%s/%s/round-%d.json", e->out,
	       e->arms[a].name, r);
	fb_fmt(run->console, sizeof(run->console), "%s/%s/console-round-%d.log", e->out,
	       e->arms[a].name, r);
	unlink(run->result);
	fb_fmt(append, sizeof(append), "foliobench.arm=%s %s", e->arms[a].name,
	       e->extra_append);
	fb_fmt(label, sizeof(label), "%s", e->arms[a].name);
	gargv[ng++] = e->exe;
	gargv[ng++] = "run";
	gargv[ng++] = "--label";
	gargv[ng++] = label;
	for (int i = 0; i < e->nwl; i++) {
		gargv[ng++] = "--workload";
		gargv[ng++] = e->wl[i];
	}
	for (int i = 0; i < e->nparams; i++) {
		gargv[ng++] = "--param";
		gargv[ng++] = e->params[i];
	}
	for (int i = 0; i < e->nprobes; i++) {
		gargv[ng++] = "--probes";
		gargv[ng++] = e->probes[i];
	}
	gargv[ng++] = "--out";
	gargv[ng++] = run->result;
	gargv[ng] = NULL;
	e->vo.kernel = e->arms[a].bz;
	e->vo.append = append;
	e->vo.log = run->console;
	run->rc = fb_vm_run(&e->vo, (char *const *)gargv);
	run->boot_s = e->vo.boot_s;
	run->total_s = e->vo.total_s;
	if (run->rc == 0 && access(run->result, R_OK) < 0) {
		fb_err("ab: round %d %s: exit 0 but no %s", r, e->arms[a].name, run->result);
		run->rc = -1;
	}
}

static void ab_progress(const struct ab_env *e, const struct ab_run *run, int done,
			uint64_t t0)
{
	double el = (double)(fb_now_ns() - t0) / 1e9;
	double eta = el / done * (2 * e->rounds - done);

	fb_info("ab: round %d/%d %s: %s (exit %d), boot %.1fs, total %.1fs; %.0fs elapsed, "
		"ETA %.0fs", run->round, e->rounds, e->arms[run->arm].name,
		run->rc ? "FAILED" : "ok", run->rc, run->boot_s, run->total_s, el, eta);
}

int cmd_ab(int argc, char **argv)
{
	struct ab_env *e = calloc(1, sizeof(*e));
	int nruns = 0, failed = 0, r;
	struct ab_run *runs = NULL;
	uint64_t t0;

	if (!e)
		return 1;
	*e = (struct ab_env){
		.arms = { { .name = "baseline", .spec = "baseline" },
			  { .name = "patched", .spec = "patched" } },
		.rounds = AB_DEFAULT_ROUNDS, .flavour = "perf", .extra_append = "",
		.vo = { .smp = 0 },
	};
	r = fb_argp_parse(&ab_argp, argc, argv, NULL, e);
	if (!r)
		r = fb_guest_opts_check("ab", &e->vo);
	if (r) {
		free(e);
		return r == 1 ? 0 : 2;	/* help, or bad options */
	}
	if (!e->vo.smp)
		e->vo.smp = AB_DEFAULT_SMP;
	e->extra_append = e->vo.append ? e->vo.append : "";
	r = ab_prepare(e);
	runs = r ? NULL : calloc((size_t)e->rounds * 2, sizeof(*runs));
	if (!runs) {
		free(e);
		return r ? r : 1;
	}
	fb_info("ab: %d rounds, %s clock, %s = %s, %s = %s, results in %s", e->rounds,
		fb_clock_name(e->vo.clock), e->arms[0].name, e->arms[0].bz, e->arms[1].name,
		e->arms[1].bz, e->out);
	e->vo.results = e->out;
	e->vo.quiet = 1;
	t0 = fb_now_ns();
	for (int rd = 1; rd <= e->rounds && !fb_stop; rd++) {
		for (int a = 0; a < 2 && !fb_stop; a++) {
			fb_info("ab: round %d/%d %s: booting", rd, e->rounds, e->arms[a].name);
			ab_boot(e, &runs[nruns], rd, a);
			failed += runs[nruns].rc != 0;
			nruns++;
			ab_progress(e, &runs[nruns - 1], nruns, t0);
			write_ab_json(e, runs, nruns);
		}
	}
	summarise(e->arms, runs, nruns);
	fb_info("ab: %d boots, %d failed, %.0fs; results in %s (ab.json)", nruns,
		failed, (double)(fb_now_ns() - t0) / 1e9, e->out);
	fb_info("ab: next: ./foliobench report %s; ./foliobench gate %s", e->out, e->out);
	free(runs);
	free(e);
	if (fb_stop)
		return 130;
	return failed ? 1 : 0;
}
