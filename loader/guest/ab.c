// SPDX-License-Identifier: GPL-2.0
/*
 * ab.c - `foliobench ab`: interleaved A/B rounds, one fresh guest boot per
 * round (A B A B ...), each running `foliobench run` in the guest through
 * fb_vm_run(); per-round results in DIR/<arm>/round-<i>.json, a summary of
 * medians at the end and DIR/ab.json describing what ran.
 */
#include <errno.h>
#include <getopt.h>
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
#include "analysis/compare.h"
#include "analysis/gate.h"
#include "guest/vm.h"

#define AB_MAX_ROUNDS	FB_STATS_MAX_N
#define AB_DEFAULT_ROUNDS	15
#define AB_DEFAULT_SMP	1
#define AB_MAX_WL	FB_MAX_WORKLOADS
#define AB_MAX_PARAMS	32
#define AB_SEQ_STEP	5	/* --until-decided: rounds between looks */

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

static void ab_usage(FILE *f)
{
	fprintf(f,
"usage: foliobench ab [--baseline K1] [--patched K2] [--rounds N] [--workload W ...]\n"
"                     [--param WL.KEY=V ...] [--flavour F] [--out DIR] [--timeout S]\n"
"\n"
"Interleaved A/B measurement: for each round, boots K1 then K2 (a fresh\n"
"guest per boot) and runs `foliobench run` in it.  K1/K2 are a bzImage, a\n"
"kernel directory or an arm of kernel-patches/arms.conf (default baseline\n"
"and patched, built for flavour F first if needed).\n"
"\n"
"  --baseline K1     kernel A (baseline)\n"
"  --patched K2      kernel B (patched)\n"
"  --rounds N        boots per kernel (15: what `foliobench gate` needs\n"
"                    to catch a 5%% regression, docs/compare.md)\n"
"  --workload W      workload to run (repeatable; default: foliobench run's)\n"
"  --param KV        workload parameter WL.KEY=VALUE (repeatable)\n"
"  --flavour F       config flavour of arm-named kernels (perf)\n"
"  --out DIR         results directory (results/ab-<time>)\n"
"  --timeout S       per boot (600)\n"
"  --append ARGS     extra kernel command line for both arms\n"
"                    (e.g. nf_tables.foliobench_inject_ns=150)\n"
"  --probes GLOB     only these probes in the guest runs (repeatable)\n"
"  --smp N           guest CPUs (1: under TCG a second vCPU makes latency\n"
"                    noisier, see docs/compare.md; 2+ for contention)\n"
"  --mem M, --accel A, --allow REGEX   as for foliobench vm\n"
"  --until-decided MAX  after --rounds, add rounds 5 at a time, up to MAX per\n"
"                    arm, until the gate decides (pass or fail; alpha spent\n"
"                    over the looks, docs/compare.md); then\n"
"                    `foliobench gate --looks N,5,MAX DIR` repeats the decision\n"
"\n"
"Writes DIR/<arm>/round-<i>.json, DIR/<arm>/console-round-<i>.log and\n"
"DIR/ab.json; prints the tables of `foliobench compare DIR` at the end.\n"
"Exit status 0 if every boot and run succeeded, 1 otherwise, 130 if interrupted.\n");
}

static int write_ab_json(const char *dir, const char *started, const char *flavour,
			 int rounds, const struct ab_arm *arms,
			 const char *const *wl, int nwl, const char *const *params,
			 int nparams, const struct ab_run *runs, int nruns)
{
	json_object *o = json_object_new_object(), *a;
	char path[PATH_MAX], tmp[PATH_MAX];
	size_t dl = strlen(dir);
	int ret = 0;

	json_object_object_add(o, "schema", json_object_new_string("foliobench-ab"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "tool_version", json_object_new_string(FB_VERSION));
	json_object_object_add(o, "started", json_object_new_string(started));
	json_object_object_add(o, "flavour", json_object_new_string(flavour));
	json_object_object_add(o, "rounds", json_object_new_int(rounds));
	a = json_object_new_array();
	for (int i = 0; i < 2; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_object_new_string(arms[i].name));
		json_object_object_add(e, "spec", json_object_new_string(arms[i].spec));
		json_object_object_add(e, "kernel", json_object_new_string(arms[i].bz));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "arms", a);
	a = json_object_new_array();
	for (int i = 0; i < nwl; i++)
		json_object_array_add(a, json_object_new_string(wl[i]));
	json_object_object_add(o, "workloads", a);
	a = json_object_new_array();
	for (int i = 0; i < nparams; i++)
		json_object_array_add(a, json_object_new_string(params[i]));
	json_object_object_add(o, "params", a);
	a = json_object_new_array();
	for (int i = 0; i < nruns; i++) {
		const struct ab_run *r = &runs[i];
		json_object *e = json_object_new_object();
		const char *res = r->result, *con = r->console;

		/* relative to DIR, so the directory can move */
		if (!strncmp(res, dir, dl) && res[dl] == '/')
			res += dl + 1;
		if (!strncmp(con, dir, dl) && con[dl] == '/')
			con += dl + 1;
		json_object_object_add(e, "round", json_object_new_int(r->round));
		json_object_object_add(e, "arm", json_object_new_string(arms[r->arm].name));
		json_object_object_add(e, "exit", json_object_new_int(r->rc));
		json_object_object_add(e, "boot_s", json_object_new_double(r->boot_s));
		json_object_object_add(e, "total_s", json_object_new_double(r->total_s));
		json_object_object_add(e, "result", json_object_new_string(res));
		json_object_object_add(e, "console", json_object_new_string(con));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "runs", a);

	fb_fmt(path, sizeof(path), "%s/ab.json", dir);
	fb_fmt(tmp, sizeof(tmp), "%s/.ab.json.tmp", dir);
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

/* --until-decided MAX: the first look at --rounds, the loop up to MAX; -1 if MAX < rounds */
static int ab_until_decided(struct fb_seq *seq, int *rounds)
{
	if (seq->max < *rounds || *rounds < 3) {
		fb_err("ab: --until-decided %d wants --rounds between 3 and %d (the first look)",
		       seq->max, seq->max);
		return -1;
	}
	seq->first = *rounds;
	*rounds = seq->max;
	fb_info("ab: until decided: looks at %d, %d, ... up to %d rounds per arm", seq->first,
		fb_seq_rounds(seq, 2), seq->max);
	return 0;
}

int cmd_ab(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, 'A' },
		{ "patched", required_argument, NULL, 'B' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "workload", required_argument, NULL, 'w' },
		{ "param", required_argument, NULL, 'p' },
		{ "flavour", required_argument, NULL, 'f' },
		{ "flavor", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "smp", required_argument, NULL, 's' },
		{ "mem", required_argument, NULL, 'm' },
		{ "accel", required_argument, NULL, 'a' },
		{ "allow", required_argument, NULL, 'l' },
		{ "append", required_argument, NULL, 'x' },
		{ "probes", required_argument, NULL, 'P' },
		{ "until-decided", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ab_arm arms[2] = {
		{ .name = "baseline", .spec = "baseline" },
		{ .name = "patched", .spec = "patched" },
	};
	const char *wl[AB_MAX_WL], *params[AB_MAX_PARAMS], *flavour = "perf";
	const char *out_opt = NULL, *extra_append = "", *probes[AB_MAX_WL];
	char out[PATH_MAX], repo[PATH_MAX], exe[PATH_MAX], started[32], ts[32];
	char append[2][512], label[2][64];
	int nwl = 0, nparams = 0, nprobes = 0, rounds = AB_DEFAULT_ROUNDS, nruns = 0, failed = 0;
	struct fb_seq seq = { .step = AB_SEQ_STEP, .alpha = FB_GATE_ALPHA };	/* --until-decided */
	int look = 1;
	struct fb_vm_opts vo = { .smp = AB_DEFAULT_SMP };
	struct ab_run *runs;
	uint64_t v, t0;
	time_t now;
	struct tm tm;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'A':
			arms[0].spec = optarg;
			break;
		case 'B':
			arms[1].spec = optarg;
			break;
		case 'n':
			if (fb_parse_u64(optarg, &v) < 0 || !v || v > AB_MAX_ROUNDS) {
				fb_err("ab: --rounds wants 1..%d, not '%s'", AB_MAX_ROUNDS, optarg);
				return 2;
			}
			rounds = (int)v;
			break;
		case 'w':
			if (nwl == AB_MAX_WL) {
				fb_err("ab: at most %d --workload", AB_MAX_WL);
				return 2;
			}
			wl[nwl++] = optarg;
			break;
		case 'p':
			if (nparams == AB_MAX_PARAMS || !strchr(optarg, '=')) {
				fb_err("ab: --param wants WORKLOAD.KEY=VALUE (at most %d), not '%s'",
				       AB_MAX_PARAMS, optarg);
				return 2;
			}
			params[nparams++] = optarg;
			break;
		case 'f':
			flavour = optarg;
			break;
		case 'o':
			out_opt = optarg;
			break;
		case 't':
			if (fb_parse_u64(optarg, &v) < 0 || !v || v > 86400) {
				fb_err("ab: --timeout wants seconds, not '%s'", optarg);
				return 2;
			}
			vo.timeout = (int)v;
			break;
		case 's':
			if (fb_parse_u64(optarg, &v) < 0 || !v || v > 64) {
				fb_err("ab: --smp wants 1..64, not '%s'", optarg);
				return 2;
			}
			vo.smp = (int)v;
			break;
		case 'm':
			vo.mem = optarg;
			break;
		case 'a':
			vo.accel = optarg;
			break;
		case 'l':
			if (vo.nallow == FB_VM_MAX_ALLOW) {
				fb_err("ab: at most %d --allow", FB_VM_MAX_ALLOW);
				return 2;
			}
			vo.allow[vo.nallow++] = optarg;
			break;
		case 'x':
			extra_append = optarg;
			break;
		case 'P':
			if (nprobes == AB_MAX_WL) {
				fb_err("ab: at most %d --probes", AB_MAX_WL);
				return 2;
			}
			probes[nprobes++] = optarg;
			break;
		case 'U':
			if (fb_parse_u64(optarg, &v) < 0 || v < 3 || v > AB_MAX_ROUNDS) {
				fb_err("ab: --until-decided wants 3..%d rounds, not '%s'", AB_MAX_ROUNDS,
				       optarg);
				return 2;
			}
			seq.max = (int)v;
			break;
		case 'h':
			ab_usage(stdout);
			return 0;
		default:
			ab_usage(stderr);
			return 2;
		}
	}
	if (seq.max && ab_until_decided(&seq, &rounds))
		return 2;
	if (optind < argc) {
		fb_err("ab: unexpected argument '%s' (see foliobench ab --help)", argv[optind]);
		return 2;
	}
	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return 1;
	fb_fmt(exe, sizeof(exe), "%s/foliobench", repo);

	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	if (out_opt)
		fb_fmt(out, sizeof(out), "%s", out_opt);
	else
		fb_fmt(out, sizeof(out), "results/ab-%s", ts);

	/* Kernels first: building them is the long part on a fresh machine. */
	for (int a = 0; a < 2; a++) {
		if (fb_kernel_resolve(arms[a].spec, flavour, 1, arms[a].bz,
				      sizeof(arms[a].bz)) < 0)
			return 1;
		if (fb_stop)
			return 130;
	}
	if (!strcmp(arms[1].spec, "patched") && !fb_kernel_arm_has_series("patched"))
		fb_info("ab: warning: the patched arm has no series yet, this is an A/A run");
	if (!strcmp(arms[0].bz, arms[1].bz))
		fb_info("ab: warning: both arms boot the same kernel %s", arms[0].bz);

	{
		char sub[PATH_MAX], real[PATH_MAX];

		for (int a = 0; a < 2; a++) {
			fb_fmt(sub, sizeof(sub), "%s/%s", out, arms[a].name);
			if (fb_mkdir_p(sub) < 0) {
				fb_err("ab: cannot create %s: %s", sub, strerror(errno));
				return 1;
			}
		}
		if (!realpath(out, real)) {
			fb_err("ab: %s: %s", out, strerror(errno));
			return 1;
		}
		fb_fmt(out, sizeof(out), "%s", real);
	}
	runs = calloc((size_t)rounds * 2, sizeof(*runs));
	if (!runs) {
		fb_err("ab: out of memory");
		return 1;
	}
	fb_info("ab: %d rounds, %s = %s, %s = %s, results in %s", rounds,
		arms[0].name, arms[0].bz, arms[1].name, arms[1].bz, out);

	vo.results = out;
	vo.quiet = 1;
	t0 = fb_now_ns();
	for (int r = 1; r <= rounds && !fb_stop; r++) {
		for (int a = 0; a < 2 && !fb_stop; a++) {
			struct ab_run *run = &runs[nruns];
			const char *gargv[8 + 4 * AB_MAX_WL + 2 * AB_MAX_PARAMS];
			int ng = 0;

			run->round = r;
			run->arm = a;
			fb_fmt(run->result, sizeof(run->result), "%s/%s/round-%d.json",
			    out, arms[a].name, r);
			fb_fmt(run->console, sizeof(run->console),
			    "%s/%s/console-round-%d.log", out, arms[a].name, r);
			unlink(run->result);
			fb_fmt(append[a], sizeof(append[a]), "foliobench.arm=%s %s", arms[a].name,
			    extra_append);
			fb_fmt(label[a], sizeof(label[a]), "%s", arms[a].name);
			gargv[ng++] = exe;
			gargv[ng++] = "run";
			gargv[ng++] = "--label";
			gargv[ng++] = label[a];
			for (int i = 0; i < nwl; i++) {
				gargv[ng++] = "--workload";
				gargv[ng++] = wl[i];
			}
			for (int i = 0; i < nparams; i++) {
				gargv[ng++] = "--param";
				gargv[ng++] = params[i];
			}
			for (int i = 0; i < nprobes; i++) {
				gargv[ng++] = "--probes";
				gargv[ng++] = probes[i];
			}
			gargv[ng++] = "--out";
			gargv[ng++] = run->result;
			gargv[ng] = NULL;

			vo.kernel = arms[a].bz;
			vo.append = append[a];
			vo.log = run->console;
			fb_info("ab: round %d/%d %s: booting", r, rounds, arms[a].name);
			run->rc = fb_vm_run(&vo, (char *const *)gargv);
			run->boot_s = vo.boot_s;
			run->total_s = vo.total_s;
			nruns++;
			if (run->rc == 0 && access(run->result, R_OK) < 0) {
				fb_err("ab: round %d %s: exit 0 but no %s", r,
				       arms[a].name, run->result);
				run->rc = -1;
			}
			if (run->rc)
				failed++;
			fb_info("ab: round %d/%d %s: %s (exit %d), boot %.1fs, total %.1fs, %.0fs elapsed",
				r, rounds, arms[a].name, run->rc ? "FAILED" : "ok",
				run->rc, run->boot_s, run->total_s,
				(double)(fb_now_ns() - t0) / 1e9);
			write_ab_json(out, started, flavour, rounds, arms, wl, nwl,
				      params, nparams, runs, nruns);
		}
		if (seq.max && r == fb_seq_rounds(&seq, look) && !fb_stop &&
		    fb_gate_look(stdout, out, arms[0].name, arms[1].name, &seq, look++) !=
		    FB_SEQ_CONTINUE)
			break;
	}
	fb_cmp_summary(stdout, out, arms[0].name, arms[1].name);
	fb_info("ab: %d boots, %d failed, %.0fs; results in %s (ab.json)", nruns,
		failed, (double)(fb_now_ns() - t0) / 1e9, out);
	free(runs);
	if (fb_stop)
		return 130;
	return failed ? 1 : 0;
}
