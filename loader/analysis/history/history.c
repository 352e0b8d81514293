// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - `foliobench history`: add, list, show, export, report and
 * selftest over the history DB (history.h).
 */
#include <dirent.h>
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis/history/cp_synth.h"
#include "analysis/history/history.h"
#include "analysis/history/history_db.h"
#include "analysis/history/history_gate.h"
#include "analysis/history/history_metrics.h"
#include "analysis/history/history_report.h"
#include "util/cli.h"

#define MAX_GLOBS	32

struct hopts {
	const char *db, *commit, *arm, *ref_arm, *format, *out;
	const char *globs[MAX_GLOBS];
	int nglobs, series_list, last, by_added;
	struct fb_cp_opts cp;
	char **ops;		/* operands, in order (argc slots) */
	int nops;
};

enum { OPT_DB = 0x100, OPT_COMMIT, OPT_ARM, OPT_REF_ARM, OPT_METRIC, OPT_FORMAT, OPT_OUT,
       OPT_SERIES, OPT_ALPHA, OPT_MIN_SIZE, OPT_SEED, OPT_NO_RANKS, OPT_NO_KAPPA, OPT_LAST,
       OPT_ORDER };

#define SUB(name, doc) { name, 0, NULL, OPTION_DOC | OPTION_NO_USAGE, doc, 1 }

static const struct argp_option history_options[] = {
	{ NULL, 0, NULL, 0, "Subcommands:", 1 },
	SUB("add DIR|FILE...", "import rounds (run results or ab directories); a round already "
	    "stored is skipped"),
	SUB("list", "stored rounds (--series: the series instead)"),
	SUB("show METRIC", "a series' points and change points (METRIC may be a glob)"),
	SUB("export", "--format csv (every point) or bmf (newest round, Bencher)"),
	SUB("report", "history.html and history.md into --out DIR (results/history-report)"),
	SUB("selftest", "the detector's rates on synthetic series"),
	SUB("gate AB_DIR", "exit 1 if the rounds of --arm (patched) in AB_DIR start a "
	    "regressing step in their history that the --ref-arm (baseline; '' none) does not "
	    "take too"),
	{ NULL, 0, NULL, 0, "Options:", 2 },
	{ "db", OPT_DB, "FILE", 0, "history DB (" FB_HDB_DEFAULT ")", 2 },
	{ "commit", OPT_COMMIT, "SHA", 0, "add: the commit the rounds measured", 2 },
	{ "metric", OPT_METRIC, "GLOB", 0, "metrics to show, export or report (repeatable; "
	  "report: func:*:mean func:*:p50 lock:*:wait_mean lock:*:hold_mean workload:*:wall)", 2 },
	{ "arm", OPT_ARM, "ARM", 0, "only this arm's rounds", 2 },
	{ "ref-arm", OPT_REF_ARM, "ARM", 0, "gate: the reference arm (baseline)", 2 },
	{ "series", OPT_SERIES, NULL, 0, "list: the series instead of the rounds", 2 },
	{ "format", OPT_FORMAT, "FMT", 0, "export: csv or bmf", 2 },
	{ "out", OPT_OUT, "DIR", 0, "report: the output directory", 2 },
	{ "order", OPT_ORDER, "time|added", 0, "series by round start time (default) or in the "
	  "order the rounds were added (a nightly job's order)", 2 },
	{ "last", OPT_LAST, "N", 0, "only each series' newest N rounds (the detector is O(N^2) "
	  "per test; thousands of rounds take minutes)", 2 },
	{ NULL, 0, NULL, 0, "Change-point detector:", 3 },
	{ "alpha", OPT_ALPHA, "P", 0, "permutation test level (0.01)", 3 },
	{ "min-size", OPT_MIN_SIZE, "N", 0, "fewest rounds in a segment (5)", 3 },
	{ "seed", OPT_SEED, "N", 0, "permutation and bootstrap seed", 3 },
	{ "no-ranks", OPT_NO_RANKS, NULL, 0, "test raw values, not ranks (outliers then weigh "
	  "more)", 3 },
	{ "no-kappa", OPT_NO_KAPPA, NULL, 0, "right part always runs to the segment's end", 3 },
	{ 0 },
};

/* --alpha, --min-size, --seed: 0, or -1 with one line printed */
static int cp_arg(struct fb_cp_opts *o, int opt, const char *arg)
{
	uint64_t u;
	char *end;
	double d;

	switch (opt) {
	case OPT_ALPHA:
		d = strtod(arg, &end);
		if (*end || !(d > 0 && d < 1))
			break;
		o->alpha = d;
		return 0;
	case OPT_MIN_SIZE:
		if (fb_parse_u64(arg, &u) || u < 2 || u > 1000)
			break;
		o->min_size = (int)u;
		return 0;
	case OPT_SEED:
		if (fb_parse_u64(arg, &u))
			break;
		o->seed = u;
		return 0;
	}
	fb_err("history: bad value '%s' for --%s", arg, opt == OPT_ALPHA ? "alpha (0 < P < 1)" :
	       opt == OPT_MIN_SIZE ? "min-size (2..1000)" : "seed");
	return -1;
}

/* ---- add ---- */

struct add_state {
	struct fb_hdb *db;
	const char *commit;
	int added, dup, files;
	char err[512];
};

static int add_file(struct add_state *a, const char *path)
{
	size_t len;
	char *buf = fb_hist_read(path, &len, a->err, sizeof(a->err));
	int rc;

	if (!buf)
		return -1;
	rc = fb_hdb_add(a->db, buf, len, path, a->commit, a->err, sizeof(a->err));
	free(buf);
	if (rc < 0)
		return -1;
	a->files++;
	if (rc)
		a->added++;
	else
		a->dup++;
	if (a->files % 250 == 0)
		fb_info("history: %d files read", a->files);
	return 0;
}

static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every *.json below dir except ab.json, sorted, recursively. */
static int add_dir(struct add_state *a, const char *dir)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, NULL), rc = 0;

	if (n < 0) {
		snprintf(a->err, sizeof(a->err), "%s: cannot read directory", dir);
		return -1;
	}
	qsort(ents, (size_t)n, sizeof(*ents), cmp_name);
	for (int i = 0; i < n && !rc && !fb_stop; i++) {
		const char *nm = ents[i]->d_name;
		size_t l = strlen(nm);
		char path[1024];
		struct stat sb;

		if (nm[0] == '.' ||
		    fb_fmt(path, sizeof(path), "%s/%s", dir, nm) >= (int)sizeof(path) ||
		    stat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode))
			rc = add_dir(a, path);
		else if (l > 5 && !strcmp(nm + l - 5, ".json") && strcmp(nm, "ab.json"))
			rc = add_file(a, path);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

/*
 * Test hook (tests/host/history-test.sh, docs/history.md): FB_HISTORY_TEST_HOLD=S
 * keeps the add's transaction open S seconds before the commit, so a test
 * can kill a writer inside it.  Ctrl-C or SIGTERM end the wait.
 */
static void hold_for_test(void)
{
	const char *v = getenv("FB_HISTORY_TEST_HOLD");
	uint64_t s;

	if (!v || fb_parse_u64(v, &s) || !s || s > 3600)
		return;
	fb_info("history add: holding the transaction %llu s (FB_HISTORY_TEST_HOLD)",
		(unsigned long long)s);
	for (uint64_t i = 0; i < 10 * s && !fb_stop; i++)
		usleep(100000);
}

static int do_add(const struct hopts *o, int argc, char **argv)
{
	struct add_state a = { .commit = o->commit ? o->commit : "" };
	int rc = 0;

	if (argc < 1) {
		fb_err("history add: which directories or files? (foliobench history --help)");
		return 2;
	}
	if (fb_hdb_open(&a.db, o->db, 1, a.err, sizeof(a.err))) {
		fb_err("%s", a.err);
		return 2;
	}
	if (fb_hdb_begin(a.db)) {
		fb_err("%s: history DB busy: cannot start a transaction within %d s (%s)", o->db,
		       FB_HDB_BUSY_MS / 1000, fb_hdb_errmsg(a.db));
		fb_hdb_close(a.db);
		return 1;
	}
	for (int i = 0; i < argc && !rc && !fb_stop; i++) {
		struct stat sb;

		if (stat(argv[i], &sb)) {
			snprintf(a.err, sizeof(a.err), "%s: no such file or directory", argv[i]);
			rc = -1;
		} else {
			rc = S_ISDIR(sb.st_mode) ? add_dir(&a, argv[i]) : add_file(&a, argv[i]);
		}
	}
	hold_for_test();
	if (rc || fb_stop || fb_hdb_commit(a.db)) {
		fb_hdb_rollback(a.db);
		fb_hdb_close(a.db);
		fb_err("%s", rc ? a.err : fb_stop ? "history add: interrupted, nothing added" :
		       "history add: commit failed, nothing added");
		return rc ? 2 : 1;
	}
	fb_hdb_close(a.db);
	printf("history: %d rounds added, %d already stored (%s)\n", a.added, a.dup, o->db);
	return 0;
}

/* ---- list ---- */

static int print_round(const struct fb_hround *r, void *ctx)
{
	int *n = ctx;

	if (!(*n)++)
		printf("%-5s %-20s %-16s %-16s %-12s %-7s %-18s %s\n", "id", "started", "arm",
		       "label", "build", "metrics", "params", "source");
	printf("%-5lld %-20s %-16s %-16s %-12.12s %-7d %-18s %s\n", r->id, r->started, r->arm,
	       r->label, r->build_id[0] ? r->build_id : "-", r->nsamples,
	       r->params[0] ? r->params : "-", r->source);
	return 0;
}

static int do_list(const struct hopts *o, struct fb_hdb *db)
{
	struct fb_hseries *s;
	char err[256];
	int n = 0;

	if (!o->series_list) {
		if (fb_hdb_rounds(db, print_round, &n))
			return 1;
		printf("%d rounds\n", n);
		return 0;
	}
	n = fb_hdb_series(db, o->globs, o->nglobs, o->arm, &s, err, sizeof(err));
	if (n < 0) {
		fb_err("%s", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char name[200];

		printf("%-56s %-16s %-20s %4d %s\n", fb_hseries_name(&s[i], name, sizeof(name)),
		       s[i].arm, s[i].params[0] ? s[i].params : "-", s[i].n, s[i].unit);
	}
	printf("%d series\n", n);
	fb_hseries_free(s, n);
	return 0;
}

/* ---- show ---- */

static void show_series(const struct fb_hseries *s, const struct fb_cp_opts *cpo)
{
	struct fb_cp cp[FB_HIST_MAX_CPS];
	int ncp = fb_hist_detect(s, cpo, cp, FB_HIST_MAX_CPS);
	struct fb_hist_kstat ks;
	char name[200];

	printf("%s  arm %s  params %s  (%d rounds, %s)\n", fb_hseries_name(s, name, sizeof(name)),
	       s->arm, s->params[0] ? s->params : "-", s->n, s->unit[0] ? s->unit : "-");
	printf("  %-5s %-20s %-12s %-16s %s\n", "#", "started", "build", "label", "value");
	for (int i = 0, k = 0; i < s->n; i++) {
		if (k < ncp && cp[k].pos == i)
			printf("  ----- change point %d -----\n", ++k);
		printf("  %-5d %-20s %-12.12s %-16s %.6g\n", i, s->p[i].started,
		       s->p[i].build_id[0] ? s->p[i].build_id : "-", s->p[i].label, s->p[i].v);
	}
	if (ncp < 0) {
		printf("  change points: out of memory\n");
		return;
	}
	printf("  %d change point%s (E-divisive means, permutation test alpha %g,"
	       " min segment %d)\n", ncp, ncp == 1 ? "" : "s", cpo->alpha, cpo->min_size);
	fb_hist_kernel_steps(s, cp, ncp, FB_HIST_KTOL, &ks);
	printf("  kernel changes: %d, %d with a change point within %d rounds; %d of the %d change"
	       " points lie at a kernel change\n", ks.changes, ks.found, FB_HIST_KTOL, ks.cps_at,
	       ncp);
	for (int k = 0; k < ncp; k++) {
		char line[512];

		fb_hist_cp_line(s, &cp[k], line, sizeof(line));
		printf("  %s\n", line);
	}
}

static int do_show(const struct hopts *o, struct fb_hdb *db, int argc, char **argv)
{
	struct fb_hseries *s;
	char err[256];
	int n;

	if (argc != 1) {
		fb_err("history show: one METRIC (a name or glob; history list --series)");
		return 2;
	}
	n = fb_hdb_series(db, (const char *const *)argv, 1, o->arm, &s, err, sizeof(err));
	if (n < 0) {
		fb_err("%s", err);
		return 1;
	}
	if (!n) {
		fb_err("history show: no series matches '%s'%s%s (history list --series)", argv[0],
		       o->arm ? " in arm " : "", o->arm ? o->arm : "");
		fb_hseries_free(s, n);
		return 2;
	}
	for (int i = 0; i < n; i++)
		show_series(&s[i], &o->cp);
	fb_hseries_free(s, n);
	return 0;
}

/* ---- export ---- */

/* Always quoted, inner quotes doubled. */
static void csv_str(FILE *f, const char *s)
{
	const char *q;

	fputc('"', f);
	while ((q = strchr(s, '"'))) {
		fwrite(s, 1, (size_t)(q - s) + 1, f);
		fputc('"', f);
		s = q + 1;
	}
	fprintf(f, "%s\"", s);
}

/* The method is the last column, so readers of the columns before it still work. */
static void export_csv(FILE *f, const struct fb_hseries *s, int n)
{
	fprintf(f, "metric,unit,arm,params,round,started,build_id,commit,label,value,method\n");
	for (int i = 0; i < n; i++)
		for (int k = 0; k < s[i].n; k++) {
			const struct fb_hpoint *p = &s[i].p[k];
			const char *t[] = { s[i].metric, s[i].unit, s[i].arm, s[i].params };

			for (int j = 0; j < 4; j++) {
				csv_str(f, t[j]);
				fputc(',', f);
			}
			fprintf(f, "%lld,%s,%s,%s,", p->round, p->started, p->build_id, p->commit);
			csv_str(f, p->label);
			fprintf(f, ",%.17g,", p->v);
			csv_str(f, s[i].method);
			fputc('\n', f);
		}
}

/*
 * 1 if another series of the same metric, arm and params (another method)
 * has a newer last round than a: a is a method no longer measured.
 */
static int superseded(const struct fb_hseries *s, int n, const struct fb_hseries *a,
		      int by_added)
{
	const struct fb_hpoint *pa = &a->p[a->n - 1];

	for (int i = 0; i < n; i++) {
		const struct fb_hpoint *p;
		int c;

		if (&s[i] == a || !s[i].n || strcmp(s[i].metric, a->metric) ||
		    strcmp(s[i].arm, a->arm) || strcmp(s[i].params, a->params))
			continue;
		p = &s[i].p[s[i].n - 1];
		c = by_added ? 0 : strcmp(p->started, pa->started);
		if (c > 0 || (!c && p->round > pa->round))
			return 1;
	}
	return 0;
}

/*
 * Bencher Metric Format: {"benchmark": {"measure": {"value": v}}}, the
 * newest round of each series; benchmark "ARM[ PARAMS]/kind:row[ [METHOD]]",
 * measure the metric ("p50", "wall").  Of the series of one metric measured
 * by several methods only the newest is current: a changed method is a new
 * benchmark in Bencher, and the old one gets no more values.
 */
static void export_bmf(FILE *f, const struct fb_hseries *s, int n, int by_added)
{
	json_object *root = json_object_new_object();

	for (int i = 0; i < n; i++) {
		const char *m = strrchr(s[i].metric, ':');
		char bench[512];
		json_object *b, *v;

		if (!m || !s[i].n || superseded(s, n, &s[i], by_added))
			continue;
		fb_fmt(bench, sizeof(bench), "%s%s%s/%.*s%s%s%s", s[i].arm,
		       s[i].params[0] ? " " : "", s[i].params, (int)(m - s[i].metric),
		       s[i].metric, s[i].method[0] ? " [" : "", s[i].method,
		       s[i].method[0] ? "]" : "");
		if (!json_object_object_get_ex(root, bench, &b)) {
			b = json_object_new_object();
			json_object_object_add(root, bench, b);
		}
		v = json_object_new_object();
		json_object_object_add(v, "value", json_object_new_double(s[i].p[s[i].n - 1].v));
		json_object_object_add(b, m + 1, v);
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static int do_export(const struct hopts *o, struct fb_hdb *db)
{
	int csv = !o->format || !strcmp(o->format, "csv"), n;
	struct fb_hseries *s;
	char err[256];

	if (!csv && strcmp(o->format, "bmf")) {
		fb_err("history export: --format csv or bmf, not '%s'", o->format);
		return 2;
	}
	n = fb_hdb_series(db, o->globs, o->nglobs, o->arm, &s, err, sizeof(err));
	if (n < 0) {
		fb_err("%s", err);
		return 1;
	}
	if (csv)
		export_csv(stdout, s, n);
	else
		export_bmf(stdout, s, n, o->by_added);
	fb_hseries_free(s, n);
	return 0;
}

/* ---- selftest ---- */

static int do_selftest(const struct hopts *o)
{
	printf("E-divisive means, permutation test alpha %g (%d permutations), min segment %d,"
	       " ranks %s, kappa search %s\n", o->cp.alpha, o->cp.perms, o->cp.min_size,
	       o->cp.ranks ? "on" : "off", o->cp.kappa ? "on" : "off");
	printf("%-32s %7s %6s %6s %9s %12s\n", "case", "series", "points", "steps", "detected",
	       "false/100pt");
	for (int i = 0; i < fb_cp_ncases && !fb_stop; i++) {
		const struct fb_cp_case *c = &fb_cp_cases[i];
		struct fb_cp_rates r;
		char det[16] = "-";

		if (fb_cp_eval(&c->s, c->series, c->tol, c->seed, &o->cp, &r)) {
			fb_err("history selftest: out of memory");
			return 1;
		}
		if (r.steps)
			fb_fmt(det, sizeof(det), "%.1f%%", 100 * r.detect_rate);
		printf("%-32s %7d %6d %6d %9s %12.2f\n", c->name, r.series, r.points, r.steps, det,
		       r.false_per_100);
		fflush(stdout);
	}
	printf("a step counts as detected when a change point lies within 3 rounds of it;\n"
	       "every other change point is false.  Noise: Gaussian, sd 2%% of the level;\n"
	       "outliers x1.5..x3.\n");
	return 0;
}

/* ---- dispatch ---- */

/* The options with a value to check: 0, or -1 with one line printed. */
static int checked_opt(struct hopts *o, int c, const char *arg)
{
	uint64_t u;

	switch (c) {
	case OPT_LAST:
		if (fb_parse_u64(arg, &u) || u > 1000000) {
			fb_err("history: bad value '%s' for --last (rounds, 0: all)", arg);
			return -1;
		}
		o->last = (int)u;
		return 0;
	case OPT_ORDER:
		if (strcmp(arg, "time") && strcmp(arg, "added")) {
			fb_err("history: --order time or added, not '%s'", arg);
			return -1;
		}
		o->by_added = !strcmp(arg, "added");
		return 0;
	case OPT_METRIC:
		if (o->nglobs == MAX_GLOBS) {
			fb_err("history: at most %d --metric", MAX_GLOBS);
			return -1;
		}
		o->globs[o->nglobs++] = arg;
		return 0;
	}
	return cp_arg(&o->cp, c, arg);	/* --alpha, --min-size, --seed */
}

static error_t history_parse(int key, char *arg, struct argp_state *state)
{
	struct hopts *o = state->input;
	const char **str[] = {
		[OPT_DB - OPT_DB] = &o->db, [OPT_COMMIT - OPT_DB] = &o->commit,
		[OPT_ARM - OPT_DB] = &o->arm, [OPT_REF_ARM - OPT_DB] = &o->ref_arm,
		[OPT_FORMAT - OPT_DB] = &o->format, [OPT_OUT - OPT_DB] = &o->out,
	};

	if (key >= OPT_DB && key < OPT_DB + (int)(sizeof(str) / sizeof(str[0])) &&
	    str[key - OPT_DB]) {
		*str[key - OPT_DB] = arg;
		return 0;
	}
	switch (key) {
	case OPT_SERIES:
		o->series_list = 1;
		return 0;
	case OPT_NO_RANKS:
		o->cp.ranks = 0;
		return 0;
	case OPT_NO_KAPPA:
		o->cp.kappa = 0;
		return 0;
	case ARGP_KEY_ARG:
		o->ops[o->nops++] = arg;
		return 0;
	case OPT_METRIC:
	case OPT_LAST:
	case OPT_ORDER:
	case OPT_ALPHA:
	case OPT_MIN_SIZE:
	case OPT_SEED:
		return checked_opt(o, key, arg) ? EINVAL : 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp history_argp = {
	history_options, history_parse, "SUBCOMMAND [ARG...]",
	"The run history: rounds of many runs in one SQLite file, the series of each metric "
	"and the change points in them (docs/history.md)."
	"\vExit status: 0 ok, 1 failed, 2 bad input (one line on stderr).",
	NULL, NULL, NULL,
};

static void on_signal(int sig)
{
	fb_stop = 1;
}

/* Ctrl-C or SIGTERM: stop between files or series; add rolls back, report writes nothing. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* 1 if the long option name[0..len) (a unique prefix is enough) takes a value. */
static int takes_value(const char *name, size_t len)
{
	const struct argp_option *hit = NULL;
	int n = 0;

	for (const struct argp_option *op = history_options; op->name || op->doc; op++) {
		if (!op->name || (op->flags & OPTION_DOC) || strncmp(op->name, name, len))
			continue;
		if (!op->name[len])
			return op->arg != NULL;
		hit = op;
		n++;
	}
	return n == 1 && hit->arg;
}

/*
 * Where the subcommand is: the first operand, options and their values
 * before it skipped (`history --db=X list` and `history --db X list` as
 * `history list --db=X`).  0 if there is none.
 */
static int find_sub(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *t = argv[i];

		if (!strcmp(t, "--"))
			return i + 1 < argc ? i + 1 : 0;
		if (t[0] != '-' || !t[1])
			return i;
		if (t[1] == '-' && !strchr(t, '=') && takes_value(t + 2, strlen(t + 2)))
			i++;
	}
	return 0;
}

/* The subcommand's options and operands into o: 0 go on, 1 exit 0 (help), 2 exit 2. */
static int history_args(struct hopts *o, const char **subp, int argc, char **argv)
{
	static const char *const subs[] = {
		"add", "list", "show", "export", "report", "selftest", "gate",
	};
	int at = find_sub(argc, argv), known = 0, r, n = 1;
	const char *sub = at ? argv[at] : NULL;
	char name[32], **av;

	o->ops = calloc((size_t)argc + 1, sizeof(*o->ops));
	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!o->ops || !av) {
		free(av);
		fb_err("history: out of memory");
		return 2;
	}
	for (size_t i = 0; sub && i < sizeof(subs) / sizeof(subs[0]); i++)
		known |= !strcmp(sub, subs[i]);
	if (!known) {
		free(av);
		if (!sub && (r = fb_argp_parse(&history_argp, argc, argv, NULL, o)))
			return r;	/* --help, or a bad option */
		fb_err("history: %s '%s' (add, list, show, export, report, selftest, gate; --help)",
		       sub ? "unknown subcommand" : "which subcommand?", sub ? sub : "");
		return 2;
	}
	fb_fmt(name, sizeof(name), "history %s", sub);
	av[0] = name;
	for (int i = 1; i < argc; i++)
		if (i != at)
			av[n++] = argv[i];
	r = fb_argp_parse(&history_argp, n, av, NULL, o);
	free(av);
	*subp = sub;
	return r;
}

static int history_run(const struct hopts *o, const char *sub)
{
	struct fb_hdb *db;
	char err[512];
	int rc;

	if (!strcmp(sub, "selftest"))
		return do_selftest(o);
	if (!strcmp(sub, "add"))
		return do_add(o, o->nops, o->ops);
	if (!strcmp(sub, "gate")) {
		if (o->nops != 1) {
			fb_err("history gate: one ab directory (foliobench history --help)");
			return 2;
		}
		return fb_history_gate_last(o->db, o->ops[0], o->arm, o->ref_arm, o->last,
					    o->by_added, &o->cp, stdout);
	}
	if (strcmp(sub, "show") && o->nops) {
		fb_err("history %s: unexpected argument '%s'", sub, o->ops[0]);
		return 2;
	}
	if (fb_hdb_open(&db, o->db, 0, err, sizeof(err))) {
		fb_err("%s", err);
		return 2;
	}
	fb_hdb_set_last(db, o->last);
	fb_hdb_set_order(db, o->by_added);
	if (!strcmp(sub, "list"))
		rc = do_list(o, db);
	else if (!strcmp(sub, "show"))
		rc = do_show(o, db, o->nops, o->ops);
	else if (!strcmp(sub, "export"))
		rc = do_export(o, db);
	else
		rc = fb_hist_report(db, o->db, o->out, o->globs, o->nglobs, o->arm, &o->cp);
	fb_hdb_close(db);
	return rc;
}

int cmd_history(int argc, char **argv)
{
	struct hopts o = { .db = FB_HDB_DEFAULT };
	const char *sub = NULL;
	int rc;

	fb_cp_defaults(&o.cp);
	rc = history_args(&o, &sub, argc, argv);
	if (rc) {
		free(o.ops);
		return rc == 1 ? 0 : 2;
	}
	catch_signals();
	rc = history_run(&o, sub);
	free(o.ops);
	return rc;
}
