// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - `foliobench run` (`foliobench list` is list.c).
 *
 * run: attach every catalogue probe this kernel allows, drive the chosen
 * workloads, and write one results file (schema in results.c) plus a short
 * table in the shape of the seeds' cover letters.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measure/adhoc.h"
#include "measure/attach.h"
#include "measure/kmod.h"
#include "measure/observer.h"
#include "measure/catalogue.h"
#include "measure/probes.h"
#include "measure/run.h"
#include "measure/sysinfo.h"
#include "util/cli.h"
#include "workloads/workloads.h"

#define MAX_SEL 16

struct run_opts {
	const char *out;
	const char *label;
	const char *wl[MAX_SEL];
	int nwl;
	const char *probes[MAX_SEL];
	int nprobes;
	const char *kv[FB_MAX_PARAMS];	/* --param as given */
	int nkv;
	struct fb_params params;	/* resolved against the catalogue */
	struct fb_adhoc_opts adhoc;	/* --func, --lock */
};

enum { OPT_PROBES = 0x200, OPT_ATTACH };

static const struct argp_option run_options[] = {
	{ "workload", 'w', "W", 0, "workload to run (repeatable; default: nft); "
	  "`foliobench list` shows them and their parameters", 0 },
	{ "out", 'o', "FILE", 0, "results file ('-' for stdout; default "
	  "results/run-<time>.json)", 0 },
	{ "label", 'l', "L", 0, "free-form label stored in the results (e.g. the arm)", 0 },
	{ "param", 'p', "W.KEY=VAL", 0, "workload parameter, e.g. nft.descriptors=10025 "
	  "(repeatable; the table below)", 0 },
	{ "probes", OPT_PROBES, "GLOB", 0, "only the catalogue rows whose name matches "
	  "(repeatable)", 0 },
	{ "attach", OPT_ATTACH, "MODE", 0, "function rows: auto (a trampoline: one "
	  "fsession program where the kernel has them, else fentry/fexit; else "
	  "kprobe/kretprobe; the default), fentry (a trampoline only) or kprobe", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf messages (twice: debug); the table even where "
	  "tracing is refused", 0 },
	{ 0 },
};

static int run_opt(struct run_opts *o, int key, char *arg)
{
	switch (key) {
	case 'w':
		if (!fb_workload_find(arg)) {
			fb_err("run: unknown workload '%s' (see foliobench list)", arg);
			return -1;
		}
		if (o->nwl < MAX_SEL)
			o->wl[o->nwl++] = arg;
		return 0;
	case 'o':
		o->out = arg;
		return 0;
	case 'l':
		if (strlen(arg) >= sizeof(((struct fb_result *)0)->label)) {	/* never cut */
			fb_err("run: --label is longer than %zu characters",
			       sizeof(((struct fb_result *)0)->label) - 1);
			return -1;
		}
		o->label = arg;
		return 0;
	case 'p':
		if (o->nkv == FB_MAX_PARAMS) {
			fb_err("run: more than %d --param options", FB_MAX_PARAMS);
			return -1;
		}
		o->kv[o->nkv++] = arg;
		return 0;
	case OPT_PROBES:
		if (o->nprobes < MAX_SEL)
			o->probes[o->nprobes++] = arg;
		return 0;
	case OPT_ATTACH:
		if (fb_attach_set(arg)) {
			fb_err("run: --attach %s: want auto, fentry or kprobe", arg);
			return -1;
		}
		return 0;
	case 'v':
		fb_set_verbose(fb_verbose() + 1);
		return 0;
	}
	return 1;
}

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_opts *o = state->input;

	if (key == ARGP_KEY_INIT) {	/* operands: fb_argp_parse refuses them */
		state->child_inputs[0] = &o->adhoc;
		return 0;
	}
	return fb_argp_ret(run_opt(o, key, arg));
}

static const struct argp_child run_children[] = { { &fb_adhoc_argp, 0, NULL, 0 }, { 0 } };

static const struct argp run_argp = {
	run_options, run_parse, NULL,
	"Attaches the catalogue's probes (fentry, else kprobe, else tracepoint, else "
	"'unavailable' with the reason) and the ad-hoc rows asked for, runs the workloads, "
	"writes the results JSON and prints a table.  Must run as root.  Ctrl-C, SIGTERM or "
	"SIGHUP stops the workload, detaches, still writes the results and exits 128 + the "
	"signal number."
	"  With -o - the JSON alone goes to stdout, the table to stderr.  If the kernel "
	"refused every function and lock row (a host that refuses BPF tracing), one line says "
	"so and names the next step instead of the table (-v: the table too).\vExit status 0, 1 if a "
	"workload failed or the results could not be written, 2 on bad input or without root "
	"(nothing attached), 3 if the kernel refused every function and lock row (BPF tracing "
	"EPERM, no kprobes; the results JSON is written, with each row's reason).\n\nFB_ABLATE=stats,hist,hash,tidhash,empty,clock,nomatch (diagnostics, "
	"scripts/studies/overhead.sh) switches parts of the function probes off; their method gets a "
	"\"+ablate\" suffix.  FB_FUNCHOOK=pair keeps function rows on fentry/fexit where fsession "
	"loads; FB_LOCKHOOK=fexit, fentry-hash or fentry-task puts lock rows on an earlier method "
	"(reports/overhead/lock-rows.md).\n\nWorkload parameters (--param W.KEY=VALUE; name, type, "
	"default, range):",
	run_children, NULL, NULL,
};

/* 0 to go on, 1 after --help, 2 after an error line */
static int parse_run(int argc, char **argv, struct run_opts *o)
{
	char err[256];
	int r = fb_argp_parse(&run_argp, argc, argv, NULL, o);

	if (r == 1) {
		for (int i = 0; i < fb_nworkloads; i++)
			fb_workload_print_params(stdout, &fb_workloads[i]);
		return 1;
	}
	if (r)
		return 2;
	if (!o->nwl)
		o->wl[o->nwl++] = "nft";
	if (fb_params_resolve(&o->params, o->wl, o->nwl, o->kv, o->nkv, err, sizeof(err)) ||
	    fb_ablate_set(getenv("FB_ABLATE"), err, sizeof(err)) < 0 ||
	    fb_hooks_set(getenv("FB_FUNCHOOK"), getenv("FB_LOCKHOOK"), err, sizeof(err)) < 0) {
		fb_err("run: %s", err);
		return 2;
	}
	return 0;
}

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	fb_stop = 1;
	stop_sig = sig;
}

/*
 * SIGINT, SIGTERM and SIGHUP all stop the run the same way: the workload
 * child is told, everything is detached and the results are written.  No
 * SA_RESTART: a wait in progress returns EINTR and looks at fb_stop.
 */
static void catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/*
 * --out is checked before anything is attached: a directory, FIFO or a
 * path that cannot be created would otherwise be found after the run.
 * The file is opened for writing (not truncated; O_NONBLOCK so a FIFO
 * swapped in cannot hang) and removed again if this created it.
 */
static int check_out(const char *out)
{
	struct stat st;
	int fd, existed;

	if (!strcmp(out, "-"))
		return 0;
	existed = !stat(out, &st);
	if (existed && !S_ISREG(st.st_mode)) {	/* a device too: written by rename */
		fb_err("run: --out %s: %s", out,
		       S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		return -1;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0) {
		fb_err("run: --out %s: cannot write: %s", out, strerror(errno));
		return -1;
	}
	close(fd);
	if (!existed)
		unlink(out);
	return 0;
}

static void run_workload(const struct fb_workload *w, const struct fb_params *p,
			 struct fb_workload_result *wr, int quiet)
{
	uint64_t t0;
	int ret;

	snprintf(wr->name, sizeof(wr->name), "%s", w->name);
	if (w->avail(wr->reason, sizeof(wr->reason)) < 0) {
		wr->status = FB_WL_UNAVAILABLE;
		fb_info("workload %s: unavailable: %s", w->name, wr->reason);
		return;
	}
	if (!quiet)
		fb_info("workload %s: running", w->name);
	t0 = fb_now_ns();
	ret = w->run(p, &wr->ops);
	wr->wall_ns = fb_now_ns() - t0;
	if (fb_stop)
		wr->status = FB_WL_INTERRUPTED;
	else
		wr->status = ret ? FB_WL_FAILED : FB_WL_OK;
	if (ret && !fb_stop)
		snprintf(wr->reason, sizeof(wr->reason), "see the error above");
	if (!quiet || wr->status != FB_WL_OK)
		fb_info("workload %s: %s in %.2f s", w->name, fb_wl_status_name(wr->status),
			(double)wr->wall_ns / 1e9);
}

/*
 * One line of the table: times in us (the histograms hold ns), other units
 * as they are, named in the last column; a row that measured nothing has
 * dashes, never zeros.
 */
static void print_stat(FILE *f, const char *name, const struct fb_probe_result *p,
		       const struct fb_hist *h)
{
	int ns = !strcmp(h->unit, "ns");
	double div = ns ? 1000.0 : 1;
	char cnt[24] = "-", sum[24] = "-", avg[24] = "-", p50[24] = "-", p99[24] = "-";

	if (p->status == FB_ATTACHED) {
		snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)h->count);
		snprintf(sum, sizeof(sum), "%.2f", (double)h->sum / div);
		if (h->count)
			snprintf(avg, sizeof(avg), "%.3f", fb_hist_mean(h) / div);
	}
	if (p->status == FB_ATTACHED && fb_hist_percentile(h, 100) > 0) {	/* has buckets */
		snprintf(p50, sizeof(p50), "%.3f", fb_hist_percentile(h, 50) / div);
		snprintf(p99, sizeof(p99), "%.3f", fb_hist_percentile(h, 99) / div);
	}
	fprintf(f, "%-30s %-11s %-9s %10s %14s %11s %11s %11s  %s\n", name,
		fb_probe_status_name(p->status), p->method, cnt, sum, avg, p50, p99,
		ns ? "us" : !strcmp(h->unit, "B") ? "bytes" : h->unit);
}

static void print_table(FILE *f, const struct fb_result *r)
{
	fprintf(f, "\n%-30s %-11s %-9s %10s %14s %11s %11s %11s  %s\n", "Probe", "Status",
		"Method", "Calls", "Total", "Avg", "p50", "p99", "Unit");
	for (int i = 0; i < r->nprobes; i++) {
		const struct fb_probe_result *p = &r->probes[i];

		for (int j = 0; j < p->nstats; j++) {
			char name[64];

			snprintf(name, sizeof(name), p->nstats > 1 ? "%s.%s" : "%s", p->name,
				 p->stats[j].name);
			print_stat(f, name, p, &p->stats[j].h);
		}
		if (!p->nstats)
			fprintf(f, "%-30s %-11s %-9s\n", p->name, fb_probe_status_name(p->status),
				p->method);
		if (p->status != FB_ATTACHED && p->reason[0])
			fprintf(f, "    why: %s\n", p->reason);
	}
	for (int i = 0; i < r->nworkloads; i++) {
		const struct fb_workload_result *w = &r->workloads[i];

		fprintf(f, "\nworkload %s: %s, %.3f s", w->name, fb_wl_status_name(w->status),
			(double)w->wall_ns / 1e9);
		for (int j = 0; j < w->ops.n; j++)
			fprintf(f, "%s %s=%llu", j ? "," : ";", w->ops.v[j].name,
				(unsigned long long)w->ops.v[j].val);
		fprintf(f, "\n");
	}
}

/*
 * A run none of whose function or lock rows attached (a host that refuses
 * BPF tracing): one line instead of the table, with the first reason and
 * where to measure instead.
 */
static void say_blind(const struct run_opts *o, const struct fb_result *r, int ntiming,
		      const char *why)
{
	char wl[160] = "", first[160];
	size_t n = 0;
	int tp = 0;

	for (int i = 0; i < r->nprobes; i++)
		tp += r->probes[i].status == FB_ATTACHED;
	for (int i = 0; i < o->nwl && n < sizeof(wl); i++)
		n += (size_t)snprintf(wl + n, sizeof(wl) - n, " --workload %s", o->wl[i]);
	fb_fmt(first, sizeof(first), "%s", why ? why : "no reason recorded");
	first[strcspn(first, ";")] = 0;
	fprintf(stderr, "foliobench run: none of the %d function and lock rows attached on this "
		"kernel (%s); %d tracepoint rows measured, results in %s (exit 3); measure in a "
		"guest: ./foliobench vm --kernel debian:7.3 -- ./foliobench run%s\n", ntiming, first,
		tp, strcmp(o->out, "-") ? o->out : "stdout", wl);
}

static const char *default_out(char *buf, size_t len)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	mkdir("results", 0755);
	snprintf(buf, len, "results/run-%s.json", ts);
	return buf;
}

static void record_params(struct fb_result *r, const struct fb_params *p)
{
	for (int i = 0; i < p->n && r->nparams < FB_MAX_PARAMS; i++)
		snprintf(r->params[r->nparams++], sizeof(r->params[0]), "%s.%s=%llu", p->v[i].wl,
			 p->v[i].def->key, (unsigned long long)p->v[i].val);
}

/* --func/--lock as rows, before anything is attached: 0, or -1 after one error line */
static int adhoc_rows(const struct run_opts *o, struct fb_adhoc *a)
{
	const struct fb_adhoc_args in = {
		.func = o->adhoc.func, .nfunc = o->adhoc.nfunc,
		.lock = o->adhoc.lock, .nlock = o->adhoc.nlock,
		.pat = o->probes, .npat = o->nprobes,
	};
	struct fb_ksyms *ks = NULL;
	char err[256];
	int glob = 0, ret;

	for (int i = 0; i < o->adhoc.nfunc; i++)
		glob |= fb_func_spec_is_glob(o->adhoc.func[i]);
	if (glob && !(ks = fb_ksyms_load())) {
		fb_err("run: cannot read /proc/kallsyms to expand --func");
		return -1;
	}
	ret = fb_adhoc_build(a, ks, &in, err, sizeof(err));
	if (ret)
		fb_err("run: %s", err);
	fb_ksyms_free(ks);
	return ret;
}

/*
 * Attach, run the workloads, collect.  *blind: no function or lock row
 * attached and the kernel refused them (EPERM, no kprobes): then, unless
 * -v, nothing is said until the one summary line.
 * 0, or 1 on a setup failure.
 */
static int measure(const struct run_opts *o, struct fb_adhoc *a, struct fb_result *r,
		   int *ntiming, const char **why, int *blind)
{
	struct fb_session *s;

	fb_load_row_modules(o->probes, o->nprobes, o->wl, o->nwl);
	if (fb_observer_guest() == FB_OBS_PLUGIN) {
		static const char *const none[] = { "" };	/* matches no row */

		fb_info("observer: a TCG plugin outside this guest; no BPF rows attached");
		s = fb_session_open(none, 1, NULL, 0);
	} else {
		s = fb_session_open(o->probes, o->nprobes, a->defs, a->n);
	}
	fb_workload_set_phase_hook(fb_lock_stat_snapshot);
	if (!s)
		return 1;
	/* blind: the kernel refused every function and lock row, not one missing symbol */
	*blind = !fb_session_timing_rows(s, ntiming, why) && *ntiming && *why;
	if (!*blind || fb_verbose())
		fb_info("%d probes attached on %s", fb_session_attached(s), r->host.release);
	fb_extra_from_proc(r, "/proc/lockdep_stats", "lockdep_stats.before");
	for (int i = 0; i < o->nwl && !fb_stop; i++) {
		fb_session_enable(s, 1);	/* the measured phase: the workload's run */
		fb_observer_mark(1);		/* ... and the plugin's window, inside it */
		run_workload(fb_workload_find(o->wl[i]), &o->params, &r->workloads[r->nworkloads++],
			     *blind && !fb_verbose());
		fb_observer_mark(0);
		fb_session_enable(s, 0);
	}
	fb_session_collect(s, r);
	/* the reason outlives the session: copy it out of r */
	for (int i = 0; *why && i < r->nprobes; i++)
		if (!strcmp(r->probes[i].reason, *why)) {
			*why = r->probes[i].reason;
			break;
		}
	fb_session_close(s);
	fb_extra_from_proc(r, "/proc/lockdep_stats", "lockdep_stats.after");
	return 0;
}

/*
 * Exit status: 0; 1 if a workload failed or the results could not be
 * written; 2 on bad input or without root; 3 if the kernel refused every
 * function and lock row (nothing timed: the results hold the reasons);
 * 128 + signal.
 */
int cmd_run(int argc, char **argv)
{
	struct run_opts o = {};
	struct fb_result *r;
	struct fb_adhoc *a;
	const char *why = NULL;
	char outbuf[128];
	int ntiming = 0, blind = 0, ret = parse_run(argc, argv, &o);
	FILE *tf;

	if (ret)
		return ret == 1 ? 0 : 2;
	if (geteuid() != 0) {
		fb_err("run: must be run as root (it loads BPF programs): sudo ./foliobench run");
		return 2;
	}
	if (!o.out)
		o.out = default_out(outbuf, sizeof(outbuf));
	if (check_out(o.out))
		return 2;
	tf = strcmp(o.out, "-") ? stdout : stderr;	/* -o -: the JSON alone on stdout */
	a = calloc(1, sizeof(*a));
	r = a ? calloc(1, sizeof(*r)) : NULL;
	if (!r || adhoc_rows(&o, a)) {
		free(a);
		free(r);
		return r ? 2 : 1;
	}
	fb_sysinfo(r, o.out);
	snprintf(r->label, sizeof(r->label), "%s", o.label ? o.label : r->host.arm);
	record_params(r, &o.params);
	catch_stop_signals();
	if (measure(&o, a, r, &ntiming, &why, &blind)) {
		free(a);
		free(r);
		return 1;
	}
	if (!blind || fb_verbose())
		print_table(tf, r);
	fflush(tf);	/* the whole table before stderr's lines when both go to one file */
	if (fb_result_save(r, o.out) < 0)
		ret = 1;
	else if (strcmp(o.out, "-") && !blind)
		fb_info("results written to %s", o.out);
	for (int i = 0; i < r->nworkloads; i++)
		if (r->workloads[i].status == FB_WL_FAILED)
			ret = 1;
	if (blind && !fb_stop) {
		say_blind(&o, r, ntiming, why);
		ret = ret ? ret : 3;
	}
	if (fb_stop)
		ret = 128 + (stop_sig ? stop_sig : SIGINT);
	free(a);
	free(r);
	return ret;
}
