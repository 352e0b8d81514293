// SPDX-License-Identifier: GPL-2.0
/*
 * ab.c - `foliobench ab`: interleaved A/B rounds, one fresh guest boot per
 * round (A B A B ...), each running `foliobench run` in the guest through
 * fb_vm_run(); per-round results in DIR/<arm>/round-<i>.json, compare's
 * tables at the end and DIR/ab.json describing what ran.  --per-patch
 * (the base and every prefix of a series) is in ab_pp.c, --arm (kernels
 * from the user's own patches or git tree) in ab_arms.c.
 */
#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/fb.h"
#include "analysis/compare/compare.h"
#include "analysis/report/compare_cmd.h"
#include "analysis/gate/gate.h"
#include "analysis/gate/noise.h"
#include "guest/ab.h"
#include "guest/observer.h"
#include "guest/ab_env.h"
#include "guest/shard.h"
#include "guest/guest_opts.h"
#include "guest/kernel.h"
#include "guest/vm.h"
#include "util/cli.h"
#include "util/outfile.h"
#include "util/symspec.h"

#define AB_DEFAULT_ROUNDS	15	/* --clock host */
#define AB_ICOUNT_ROUNDS	5
#define AB_DEFAULT_SMP	1
#define AB_CLOCK_UNSET	((enum fb_clock)-1)
#define AB_SEQ_STEP	5	/* --until-decided: rounds between looks */
#define AB_BUILT	(-1)	/* ab_prepare(): --build-only is done */

enum { OPT_BASE = 0x200, OPT_NEW, OPT_ROUNDS, OPT_WL, OPT_PARAM, OPT_FLAVOUR, OPT_OUT,
       OPT_PROBES, OPT_PERPATCH, OPT_FROM, OPT_TO, OPT_RERUN, OPT_UNTIL,
       OPT_BASE_APPEND, OPT_NEW_APPEND, OPT_ARM };

static const struct argp_option ab_options[] = {
	{ "baseline", OPT_BASE, "K1", 0, "kernel A: bzImage, kernel directory or arm (baseline)",
	  0 },
	{ "patched", OPT_NEW, "K2", 0, "kernel B (patched)", 0 },
	{ "arm", OPT_ARM, "NAME=SRC", 0, "a kernel from your own patches: SRC is a `git "
	  "format-patch` directory or one with a quilt `series` file (applied over the pinned "
	  "base, kernel-patches/base.env), or GITDIR@REV (a kernel git tree at a revision, "
	  "built as is); cached by source tree.  One --arm is kernel B, two are A and B, or "
	  "name NAME in --baseline/--patched.  Checked before anything is built", 0 },
	{ "rounds", OPT_ROUNDS, "N", 0, "boots per kernel (icount: 5; --clock host: 15, what `foliobench gate` "
	  "needs for a 5% regression there; per-patch: 7)", 0 },
	{ "workload", OPT_WL, "W", 0, "workload to run (repeatable; default: foliobench run's)",
	  0 },
	{ "param", OPT_PARAM, "WL.KEY=V", 0, "workload parameter (repeatable)", 0 },
	{ "flavour", OPT_FLAVOUR, "F", 0, "config flavour of arm-named kernels (perf)", 0 },
	{ "out", OPT_OUT, "DIR", 0, "results directory (results/ab-<time>)", 0 },
	{ "probes", OPT_PROBES, "GLOB", 0, "only these probes in the guest runs (repeatable)", 0 },
	{ "base-append", OPT_BASE_APPEND, "ARGS", 0, "kernel command line of the baseline arm "
	  "only (after --append): A/B of a boot parameter on one kernel", 0 },
	{ "new-append", OPT_NEW_APPEND, "ARGS", 0, "kernel command line of the patched arm only",
	  0 },
	{ "until-decided", OPT_UNTIL, "MAX", 0, "after --rounds, add rounds 5 at a time up to MAX "
	  "per arm until the gate passes or fails (alpha spent over the looks, docs/compare.md); "
	  "`foliobench gate --looks N,5,MAX DIR` repeats the decision", 0 },
	{ NULL, 0, NULL, 0, "Per patch:", 5 },
	{ "per-patch", OPT_PERPATCH, "SERIES", 0, "arms: the base (baseline) and every prefix "
	  "SERIES@1..N of kernel-patches/SERIES/series; default --clock icount, "
	  "--out results/per-patch-SERIES-F; then `foliobench report DIR` attributes each "
	  "change to a patch", 0 },
	{ "from", OPT_FROM, "I", 0, "per-patch: first patch to attribute (1); the base is then "
	  "SERIES@I-1", 0 },
	{ "to", OPT_TO, "J", 0, "per-patch: last patch (the last of the series)", 0 },
	{ "rerun", OPT_RERUN, NULL, 0, "per-patch: boot every prefix again, even those whose "
	  "rounds in DIR were measured with the same kernel and arguments", 0 },
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
	char err[256];

	switch (key) {
	case OPT_BASE:
		fb_fmt(e->arms[0].spec, sizeof(e->arms[0].spec), "%s", arg);
		return 0;
	case OPT_NEW:
		fb_fmt(e->arms[1].spec, sizeof(e->arms[1].spec), "%s", arg);
		return 0;
	case OPT_ARM:
		return ab_arm_add(e, arg);
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
		if (fb_name_check("--flavour", arg, err, sizeof(err))) {	/* a cache path */
			fb_err("ab: %s", err);
			return -1;
		}
		e->flavour = arg;
		return 0;
	case OPT_OUT:
		e->out_opt = arg;
		return 0;
	case OPT_PROBES:
		return push(e->probes, &e->nprobes, AB_MAX_WL, "--probes", arg);
	case OPT_PERPATCH:
		e->series = arg;
		return 0;
	case OPT_FROM:
	case OPT_TO:
		if (fb_opt_uint("ab", key == OPT_FROM ? "--from" : "--to", arg, 1,
				64, &v) < 0)
			return -1;
		*(key == OPT_FROM ? &e->from : &e->to) = (int)v;
		return 0;
	case OPT_RERUN:
		e->rerun = 1;
		return 0;
	case OPT_BASE_APPEND:
	case OPT_NEW_APPEND:
		e->arm_append[key == OPT_NEW_APPEND] = arg;
		return 0;
	case OPT_UNTIL:
		if (fb_opt_uint("ab", "--until-decided", arg, 3, AB_MAX_ROUNDS, &v) < 0)
			return -1;
		e->seq.max = (int)v;
		return 0;
	}
	return 1;
}

static error_t ab_parse(int key, char *arg, struct argp_state *state)
{
	struct ab_env *e = state->input;

	if (key == ARGP_KEY_INIT) {
		state->child_inputs[0] = &e->sh;	/* --shard, --build-only, ... */
		state->child_inputs[1] = &e->adhoc;	/* --func, --lock */
		return 0;
	}
	return fb_argp_ret(ab_opt(e, key, arg));
}

/* the guest options come in beside these (fb_argp_parse_shared) */
static const struct argp_child ab_children[] = {
	{ &fb_shard_argp, 0, NULL, 0 }, { &fb_adhoc_argp, 0, NULL, 0 }, { 0 },
};

static const struct argp ab_argp = {
	ab_options, ab_parse, NULL,
	"Interleaved A/B measurement: for each round, boots K1 then K2 (a fresh guest per boot) "
	"and runs `foliobench run` in it.  K1/K2 are a bzImage, a kernel directory or an arm of "
	"kernel-patches/arms.conf (built for flavour F first if needed), or NAME of an --arm "
	"(your own patches or git tree).  With --per-patch SERIES: every prefix of the series "
	"instead of K1/K2."
	"\vWrites DIR/<arm>/round-<i>.json, DIR/<arm>/console-round-<i>.log and DIR/ab.json "
	"(per-patch: also DIR/per-patch.json, the attribution table instead of the medians, "
	"and DIR/attribution.csv); "
	"prints the tables of `foliobench compare DIR`, then the commands that read DIR.  Exit status 0 if every boot and "
	"run succeeded, 1 otherwise, 2 on bad options, 130 if interrupted.",
	ab_children, NULL, NULL,
};

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
		if (r->reused)
			json_object_object_add(o, "reused", json_object_new_boolean(1));
		json_object_object_add(o, "result", json_object_new_string(res));
		json_object_object_add(o, "console", json_object_new_string(con));
		json_object_array_add(a, o);
	}
	return a;
}

static int write_ab_json(const struct ab_env *e, const struct ab_run *runs, int nruns)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "schema", json_object_new_string("foliobench-ab"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "tool_version", json_object_new_string(FB_VERSION));
	json_object_object_add(o, "started", json_object_new_string(e->started));
	json_object_object_add(o, "flavour", json_object_new_string(e->flavour));
	json_object_object_add(o, "rounds", json_object_new_int(e->rounds));
	json_object_object_add(o, "clock", json_object_new_string(fb_clock_name(e->vo.clock)));
	json_object_object_add(o, "icount_shift", json_object_new_int(e->vo.icount_shift));
	json_object_object_add(o, "smp", json_object_new_int(e->vo.smp));
	json_object_object_add(o, "observer",
			       json_object_new_string(fb_observer_name(e->vo.observer)));
	for (int i = 0; i < e->narms; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "name", json_object_new_string(e->arms[i].name));
		json_object_object_add(m, "spec", json_object_new_string(e->arms[i].spec));
		json_object_object_add(m, "kernel", json_object_new_string(e->arms[i].bz));
		fb_kident_json(m, &e->arms[i].id);
		json_object_object_add(m, "append", json_object_new_string(
			i < 2 && e->arm_append[i] && !e->series ? e->arm_append[i] : ""));
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "append", json_object_new_string(e->extra_append));
	json_object_object_add(o, "arms", a);
	json_object_object_add(o, "workloads", ab_json_strs(e->wl, e->nwl));
	json_object_object_add(o, "params", ab_json_strs(e->params, e->nparams));
	json_object_object_add(o, "probes", ab_json_strs(e->probes, e->nprobes));
	json_object_object_add(o, "mem", json_object_new_string(e->vo.mem ? e->vo.mem : ""));
	fb_shard_json(o, &e->sh, e->rounds);
	if (e->seq.max) {	/* the rounds planned end at the look that decided */
		json_object *ud = json_object_new_object();

		json_object_object_add(ud, "first", json_object_new_int(e->seq.first));
		json_object_object_add(ud, "step", json_object_new_int(e->seq.step));
		json_object_object_add(ud, "max", json_object_new_int(e->seq.max));
		json_object_object_add(o, "until_decided", ud);
	}
	json_object_object_add(o, "runs", ab_runs_json(e, runs, nruns));
	return ab_write_json(e, o, "ab.json");
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
	else if (e->series)
		fb_fmt(e->out, sizeof(e->out), "results/per-patch-%s-%s", e->series, e->flavour);
	else
		fb_fmt(e->out, sizeof(e->out), "results/ab-%s", ts);
	for (int a = 0; a < e->narms; a++) {
		int r;

		if (e->narms > 2)
			fb_info("ab: kernel %d/%d: %s", a + 1, e->narms, e->arms[a].spec);
		r = fb_kernel_resolve(e->arms[a].spec, e->flavour, !e->sh.no_build,
				      e->arms[a].bz, sizeof(e->arms[a].bz));

		if (r < 0)	/* an untrusted cache is bad input, refused before building */
			return fb_stop ? 130 : e->sh.no_build || r == FB_KERNEL_UNTRUSTED ? 2 : 1;
		if (fb_stop)
			return 130;
		if (e->sh.build_only)
			printf("%s\n", e->arms[a].bz);
		else if (fb_kident_get(e->arms[a].bz, &e->arms[a].id) < 0)
			return 1;
	}
	if (e->sh.build_only)
		return AB_BUILT;
	for (int a = 0; a < e->narms; a++) {	/* the plugin's System.map: before any boot */
		struct fb_vm_obs ob;
		int r = fb_vm_obs_check(&e->vo, e->arms[a].bz, &ob);

		fb_vm_obs_free(&ob);
		if (r)
			return r;
	}
	if (!e->series && !strcmp(e->arms[1].spec, "patched") &&
	    !fb_kernel_arm_has_series("patched"))
		fb_info("ab: warning: the patched arm has no series yet, this is an A/A run");
	for (int a = 1; a < e->narms; a++)
		if (!strcmp(e->arms[a - 1].bz, e->arms[a].bz))
			fb_info("ab: warning: %s and %s boot the same kernel %s",
				e->arms[a - 1].name, e->arms[a].name, e->arms[a].bz);
	for (int a = 0; a < e->narms; a++) {
		fb_fmt(sub, sizeof(sub), "%s/%s", e->out, e->arms[a].name);
		if (fb_mkdir_p(sub) < 0) {
			fb_err("ab: cannot create %s: %s", sub, strerror(errno));
			return 1;
		}
		if (e->series) {
			ab_pp_key(e, &e->arms[a]);
			if (ab_pp_cache(e, &e->arms[a], sub) < 0)
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

/*
 * The kernel's name in the cache: the directory of its bzImage
 * (kernels/baseline-perf-920ffe4ae447/bzImage), which two builds of one
 * source share; its length in *len ("?" when there is no directory).
 */
static const char *ab_kernel_name(const char *bz, int *len)
{
	const char *e = strrchr(bz, '/'), *s;

	if (!e || e == bz) {
		*len = 1;
		return "?";
	}
	for (s = e - 1; s > bz && s[-1] != '/'; s--)
		;
	*len = (int)(e - s) < 64 ? (int)(e - s) : 63;
	if (!*len || (int)strcspn(s, " \t\n\"") < *len) {	/* not one cmdline word */
		*len = 1;
		return "?";
	}
	return s;
}

/* One boot of arm a in round r: `foliobench run` in a fresh guest. */
static void ab_boot(struct ab_env *e, struct ab_run *run, int r, int a)
{
	const char *gargv[8 + 2 * (AB_MAX_WL + AB_MAX_PARAMS + AB_MAX_WL) + FB_ADHOC_ARGV];
	char append[FB_APPEND_MAX + 256], label[64];
	const char *kn;
	int ng = 0, kl;

	run->round = r;
	run->arm = a;
	fb_fmt(run->result, sizeof(run->result), "%s/%s/round-%d.json", e->out,
	       e->arms[a].name, r);
	fb_fmt(run->console, sizeof(run->console), "%s/%s/console-round-%d.log", e->out,
	       e->arms[a].name, r);
	if (e->arms[a].keep && access(run->result, R_OK) == 0) {
		run->reused = 1;	/* same kernel and arguments as in an earlier run */
		return;
	}
	unlink(run->result);
	kn = ab_kernel_name(e->arms[a].bz, &kl);
	fb_fmt(append, sizeof(append), "foliobench.arm=%s foliobench.kernel=%.*s foliobench.host=%s "
	       "%s %s", e->arms[a].name, kl, kn, e->sh.host, e->extra_append,
	       a < 2 && e->arm_append[a] && !e->series ? e->arm_append[a] : "");
	fb_fmt(label, sizeof(label), "%s", e->arms[a].name);
	gargv[ng++] = e->exe;
	gargv[ng++] = "run";
	gargv[ng++] = "--label";
	gargv[ng++] = label;
	ng += fb_argv_opts(gargv + ng, "--workload", e->wl, e->nwl);
	ng += fb_argv_opts(gargv + ng, "--param", e->params, e->nparams);
	ng += fb_argv_opts(gargv + ng, "--probes", e->probes, e->nprobes);
	ng += fb_adhoc_argv(&e->adhoc, gargv + ng);
	gargv[ng++] = "--out";
	gargv[ng++] = run->result;
	gargv[ng] = NULL;
	e->vo.kernel = e->arms[a].bz;
	e->vo.append = append;
	e->vo.log = run->console;
	e->vo.observer_into = run->result;	/* the plugin's rows, if it observes */
	e->vo.probes = e->probes;
	e->vo.nprobes = e->nprobes;
	run->rc = fb_vm_run(&e->vo, (char *const *)gargv);
	run->boot_s = e->vo.boot_s;
	run->total_s = e->vo.total_s;
	if (run->rc == 0 && access(run->result, R_OK) < 0) {
		fb_err("ab: round %d %s: exit 0 but no %s", r, e->arms[a].name, run->result);
		run->rc = -1;
	}
	if (run->rc && e->series && access(run->result, F_OK) == 0) {
		char failed[PATH_MAX + 8];

		/* neither reused by the next run nor read by compare */
		fb_fmt(failed, sizeof(failed), "%s.failed", run->result);
		rename(run->result, failed);
	}
}

/*
 * The gate finds the noise shipped for the pinned baseline (kernel-patches/
 * noise/); a BASE kernel of the user's own has none: say how to make it.
 */
static void ab_noise_hint(const struct ab_env *e)
{
	char dir[PATH_MAX], key[PATH_MAX], *sl;
	const char *a = e->arms[0].name;

	/* the kernel's name in the cache: the directory of its bzImage */
	snprintf(key, sizeof(key), "%s", e->arms[0].bz);
	sl = strrchr(key, '/');
	if (sl)
		*sl = '\0';
	sl = strrchr(key, '/');

	if (fb_repo_dir(dir, sizeof(dir) - sizeof(FB_NOISE_SHIPPED) - 1) < 0)
		return;
	strcat(strcat(dir, "/"), FB_NOISE_SHIPPED);
	if (fb_noise_shipped_for(dir, e->arms[0].id.build_id, sl ? sl + 1 : key, e->vo.clock))
		return;
	fb_info("ab: no noise is calibrated for %s's kernel (build %.12s), so the gate's thresholds "
		"come from these rounds alone; calibrate it once: ./foliobench ab%s%s --baseline %s "
		"--patched %s --rounds 16 --out aa-%s && ./foliobench gate --calibrate aa-%s --noise "
		"%s.noise.json, then gate with --noise %s.noise.json", a, e->arms[0].id.build_id,
		strchr(e->arms[0].spec, '=') ? " --arm " : "",
		strchr(e->arms[0].spec, '=') ? e->arms[0].spec : "", a, a, a, a, a, a);
}

static void ab_progress(const struct ab_env *e, const struct ab_run *run, int booted,
			int total, uint64_t t0)
{
	double el = (double)(fb_now_ns() - t0) / 1e9;
	double eta = booted ? el / booted * (total - booted) : 0;

	if (!run->rc && !fb_progress_due(booted, total, 4))
		return;
	if (run->reused) {
		fb_info("ab: round %d/%d %s: kept from an earlier run (same kernel and arguments)",
			run->round, e->rounds, e->arms[run->arm].name);
		return;
	}
	fb_info("ab: round %d/%d %s: %s (exit %d), boot %.1fs, total %.1fs; %.0fs elapsed, "
		"ETA %.0fs", run->round, e->rounds, e->arms[run->arm].name,
		run->rc ? "FAILED" : "ok", run->rc, run->boot_s, run->total_s, el, eta);
}

/* --until-decided MAX: the first look at --rounds, the loop up to MAX; -1 if MAX < rounds */
static int ab_until_decided(struct ab_env *e)
{
	struct fb_seq *seq = &e->seq;

	if (e->series || seq->max < e->rounds || e->rounds < 3) {
		fb_err("ab: --until-decided %d wants --rounds between 3 and %d (the first look), "
		       "and no --per-patch", seq->max, seq->max);
		return -1;
	}
	seq->first = e->rounds;
	seq->step = AB_SEQ_STEP;
	seq->alpha = FB_GATE_ALPHA;
	e->rounds = seq->max;
	fb_info("ab: until decided: looks at %d, %d, ... up to %d rounds per arm", seq->first,
		fb_seq_rounds(seq, 2), seq->max);
	return 0;
}

/* Options into e; 0, or the exit status (0 after --help, 2 on bad options). */
static int ab_args(struct ab_env *e, int argc, char **argv, int *exit_status)
{
	int r = fb_argp_parse_shared(&ab_argp, e, &fb_guest_argp, &e->vo, argc, argv, NULL);

	if (!r && e->series)
		r = ab_pp_arms(e) ? 2 : 0;
	if (!r)
		r = ab_arms_resolve(e);
	if (!r && !e->series) {
		e->narms = 2;
		fb_fmt(e->arms[0].name, sizeof(e->arms[0].name), "baseline");
		fb_fmt(e->arms[1].name, sizeof(e->arms[1].name), "patched");
		for (int a = 0; a < 2; a++)
			if (!e->arms[a].spec[0])
				fb_fmt(e->arms[a].spec, sizeof(e->arms[a].spec), "%s",
				       e->arms[a].name);
		if (e->from || e->to || e->rerun) {
			fb_err("ab: --from, --to and --rerun go with --per-patch");
			r = 2;
		}
	}
	/*
	 * Instruction-paced guests by default: per-call times are instruction
	 * counts, the same from boot to boot whatever the host does (A/A CV of
	 * every per-call p50 <= 0.004% on a loaded host against 3-29% with the
	 * host clock, reports/clock/), so 5 rounds decide what 15 host-clock
	 * rounds could not.  More than one vCPU (contention) needs the host clock.
	 */
	if (e->vo.clock == AB_CLOCK_UNSET)
		e->vo.clock = e->vo.smp > 1 ? FB_CLOCK_HOST : FB_CLOCK_ICOUNT;
	if (!e->rounds)
		e->rounds = e->series ? AB_PP_ROUNDS :
			    e->vo.clock == FB_CLOCK_ICOUNT ? AB_ICOUNT_ROUNDS : AB_DEFAULT_ROUNDS;
	if (!r)
		r = fb_guest_opts_check("ab", &e->vo);
	for (int i = 0; i < 2 && !r; i++)	/* with --append: what the kernel keeps */
		if (e->arm_append[i] && strlen(e->arm_append[i]) + 1 +
		    (e->vo.append ? strlen(e->vo.append) : 0) > FB_APPEND_MAX) {
			fb_err("ab: --append and --%s-append are more than %d bytes together (the "
			       "guest kernel keeps %d bytes of command line)", i ? "new" : "base",
			       FB_APPEND_MAX, FB_CMDLINE_MAX);
			r = 2;
		}
	if (!r)
		r = fb_shard_check(&e->sh, e->rounds, e->seq.max);
	if (!r && e->seq.max && ab_until_decided(e))
		r = 2;
	if (r) {
		*exit_status = r == 1 ? 0 : 2;	/* help, or bad options */
		return -1;
	}
	/* the user's own patches apply, the revision exists: before any build */
	for (int u = 0; u < e->nuser; u++) {
		r = fb_kernel_check(e->user[u].spec, e->flavour);
		if (r) {
			*exit_status = r;
			return -1;
		}
	}
	if (!e->vo.smp)
		e->vo.smp = AB_DEFAULT_SMP;
	e->extra_append = e->vo.append ? e->vo.append : "";
	return 0;
}

int cmd_ab(int argc, char **argv)
{
	struct ab_env *e = calloc(1, sizeof(*e));
	int nruns = 0, failed = 0, booted = 0, r, look = 1, todo;
	struct ab_run *runs = NULL;
	uint64_t t0;

	if (!e)
		return 1;
	*e = (struct ab_env){
		.flavour = "perf", .extra_append = "",
		.vo = { .smp = 0, .clock = AB_CLOCK_UNSET },
	};
	if (ab_args(e, argc, argv, &r)) {
		free(e);
		return r;
	}
	r = ab_prepare(e);
	if (r == AB_BUILT) {
		free(e);
		return 0;
	}
	runs = r ? NULL : calloc((size_t)e->rounds * (size_t)e->narms, sizeof(*runs));
	if (!runs || (e->series && ab_pp_write_json(e) < 0)) {
		free(runs);
		free(e);
		return r ? r : 1;
	}
	todo = fb_shard_rounds(&e->sh, e->rounds);
	fb_info("ab: %d rounds of %d kernels, %s clock, results in %s", e->rounds, e->narms,
		fb_clock_name(e->vo.clock), e->out);
	if (e->sh.count)
		fb_info("ab: shard %d/%d on %s: %d of the %d rounds", e->sh.index, e->sh.count,
			e->sh.host, todo, e->rounds);
	for (int a = 0; a < e->narms; a++)
		fb_info("ab:   %s = %s", e->arms[a].name, e->arms[a].bz);
	e->vo.results = e->out;
	e->vo.quiet = 1;
	t0 = fb_now_ns();
	for (int rd = 1; rd <= e->rounds && !fb_stop; rd++) {
		for (int a = 0; a < e->narms && !fb_stop && fb_shard_has(&e->sh, rd); a++) {
			struct ab_run *run = &runs[nruns++];

			ab_boot(e, run, rd, a);
			failed += run->rc != 0;
			booted += !run->reused;
			ab_progress(e, run, booted, todo * e->narms - (nruns - booted), t0);
			write_ab_json(e, runs, nruns);
		}
		if (e->seq.max && rd == fb_seq_rounds(&e->seq, look) && !fb_stop &&
		    fb_gate_look(stdout, e->out, e->arms[0].name, e->arms[1].name, &e->seq,
				 look++) != FB_SEQ_CONTINUE)
			break;
	}
	if (e->series)
		ab_pp_summary(e);
	else
		fb_cmp_summary(stdout, e->out, e->arms[0].name, e->arms[1].name);
	fb_info("ab: %d boots (%d rounds kept from earlier runs), %d failed, %.0fs; results in %s",
		booted, nruns - booted, failed, (double)(fb_now_ns() - t0) / 1e9, e->out);
	if (e->sh.count)
		fb_info("ab: next: ./foliobench merge OUT %s and the other %d shards", e->out,
			e->sh.count - 1);
	else
		fb_info("ab: next: ./foliobench report %s; ./foliobench gate %s", e->out, e->out);
	if (!e->series && !e->sh.count && !fb_stop)
		ab_noise_hint(e);
	free(runs);
	free(e);
	if (fb_stop)
		return 130;
	return failed ? 1 : 0;
}
