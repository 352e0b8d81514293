// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - `foliobench history`: add, list, show, export, report and
 * selftest over the history DB (history.h).
 */
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "analysis/history.h"

#define MAX_GLOBS	32

struct hopts {
	const char *db, *commit, *arm, *ref_arm, *format, *out;
	const char *globs[MAX_GLOBS];
	int nglobs, series_list, last, by_added;
	struct fb_cp_opts cp;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: foliobench history SUBCOMMAND [options]\n"
		"  add DIR|FILE...      import rounds (run results or ab directories); a round\n"
		"                       already stored is skipped   [--commit SHA]\n"
		"  list                 stored rounds (--series: the series instead)\n"
		"  show METRIC          a series' points and change points (METRIC may be a glob)\n"
		"  export               --format csv (every point) or bmf (newest round, Bencher)\n"
		"  report               --out DIR: history.html and history.md (default\n"
		"                       results/history-report)\n"
		"  selftest             the detector's rates on synthetic series\n"
		"  gate AB_DIR          exit 1 if the rounds of --arm (default patched) in AB_DIR\n"
		"                       start a regressing step in their history that the\n"
		"                       --ref-arm (default baseline; '' none) does not take too\n"
		"options:\n"
		"  --db FILE            history DB (default %s)\n"
		"  --metric GLOB        metrics to show/export/report (repeatable; report\n"
		"                       default: func:*:mean func:*:p50 lock:*:wait_mean\n"
		"                       lock:*:hold_mean workload:*:wall)\n"
		"  --arm ARM            only this arm's rounds\n"
		"  --order time|added   series by round start time (default) or in the order\n"
		"                       the rounds were added (a nightly job's order)\n"
		"  --last N             only each series' newest N rounds (the detector is\n"
		"                       O(N^2) per test; thousands of rounds take minutes)\n"
		"  --alpha P            change-point permutation test level (default 0.01)\n"
		"  --min-size N         fewest rounds in a segment (default 5)\n"
		"  --seed N             permutation and bootstrap seed\n"
		"  --no-ranks           test raw values, not ranks (outliers then weigh more)\n"
		"  --no-kappa           right part always runs to the segment's end\n"
		"Exit: 0 ok, 1 failed, 2 bad input (one line on stderr).\n", FB_HDB_DEFAULT);
}

int fb_hist_cp_arg(struct fb_cp_opts *o, int opt, const char *arg)
{
	uint64_t u;
	char *end;
	double d;

	switch (opt) {
	case 'a':
		d = strtod(arg, &end);
		if (*end || !(d > 0 && d < 1))
			break;
		o->alpha = d;
		return 0;
	case 'm':
		if (fb_parse_u64(arg, &u) || u < 2 || u > 1000)
			break;
		o->min_size = (int)u;
		return 0;
	case 's':
		if (fb_parse_u64(arg, &u))
			break;
		o->seed = u;
		return 0;
	}
	fb_err("history: bad value '%s' for --%s", arg,
	       opt == 'a' ? "alpha (0 < P < 1)" : opt == 'm' ? "min-size (2..1000)" : "seed");
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
		fb_err("%s: cannot start a transaction (locked?)", o->db);
		fb_hdb_close(a.db);
		return 2;
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
	for (int i = 0; i < n; i++)
		printf("%-56s %-16s %-20s %4d %s\n", s[i].metric, s[i].arm,
		       s[i].params[0] ? s[i].params : "-", s[i].n, s[i].unit);
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

	printf("%s  arm %s  params %s  (%d rounds, %s)\n", s->metric, s->arm,
	       s->params[0] ? s->params : "-", s->n, s->unit[0] ? s->unit : "-");
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

static void export_csv(FILE *f, const struct fb_hseries *s, int n)
{
	fprintf(f, "metric,unit,arm,params,round,started,build_id,commit,label,value\n");
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
			fprintf(f, ",%.17g\n", p->v);
		}
}

/*
 * Bencher Metric Format: {"benchmark": {"measure": {"value": v}}}, the
 * newest round of each series; benchmark "ARM[ PARAMS]/kind:row", measure
 * the metric ("p50", "wall").
 */
static void export_bmf(FILE *f, const struct fb_hseries *s, int n)
{
	json_object *root = json_object_new_object();

	for (int i = 0; i < n; i++) {
		const char *m = strrchr(s[i].metric, ':');
		char bench[512];
		json_object *b, *v;

		if (!m || !s[i].n)
			continue;
		fb_fmt(bench, sizeof(bench), "%s%s%s/%.*s", s[i].arm, s[i].params[0] ? " " : "",
		       s[i].params, (int)(m - s[i].metric), s[i].metric);
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
		export_bmf(stdout, s, n);
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
	case 'L':
		if (fb_parse_u64(arg, &u) || u > 1000000) {
			fb_err("history: bad value '%s' for --last (rounds, 0: all)", arg);
			return -1;
		}
		o->last = (int)u;
		return 0;
	case 'O':
		if (strcmp(arg, "time") && strcmp(arg, "added")) {
			fb_err("history: --order time or added, not '%s'", arg);
			return -1;
		}
		o->by_added = !strcmp(arg, "added");
		return 0;
	case 'M':
		if (o->nglobs == MAX_GLOBS) {
			fb_err("history: at most %d --metric", MAX_GLOBS);
			return -1;
		}
		o->globs[o->nglobs++] = arg;
		return 0;
	}
	return fb_hist_cp_arg(&o->cp, c, arg);	/* 'a', 'm', 's' */
}

/* 0, 1 after --help, -1 with one line printed */
static int parse_opts(struct hopts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "commit", required_argument, NULL, 'c' },
		{ "arm", required_argument, NULL, 'A' },
		{ "ref-arm", required_argument, NULL, 'F' },
		{ "metric", required_argument, NULL, 'M' },
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "series", no_argument, NULL, 'S' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-size", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "no-ranks", no_argument, NULL, 'R' },
		{ "no-kappa", no_argument, NULL, 'K' },
		{ "last", required_argument, NULL, 'L' },
		{ "order", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char **str[128] = {
		['d'] = &o->db, ['c'] = &o->commit, ['A'] = &o->arm, ['F'] = &o->ref_arm,
		['f'] = &o->format, ['o'] = &o->out,
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c > 0 && c < 128 && str[c])
			*str[c] = optarg;
		else if (c == 'S')
			o->series_list = 1;
		else if (c == 'R')
			o->cp.ranks = 0;
		else if (c == 'K')
			o->cp.kappa = 0;
		else if (c == 'h')
			break;
		else if (c == '?' || c == ':' || checked_opt(o, c, optarg))
			break;
	}
	if (c == 'h')
		usage(stdout);
	else if (c == '?' || c == ':')
		fb_err("history: bad option '%s' (foliobench history --help)", argv[optind - 1]);
	return c == -1 ? 0 : c == 'h' ? 1 : -1;
}

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

int cmd_history(int argc, char **argv)
{
	static const char *const subs[] = {
		"add", "list", "show", "export", "report", "selftest", "gate",
	};
	struct hopts o = { .db = FB_HDB_DEFAULT };
	const char *sub = argc > 1 ? argv[1] : NULL;
	struct fb_hdb *db;
	char err[512];
	int rc, known = 0;

	fb_cp_defaults(&o.cp);
	if (sub && (!strcmp(sub, "--help") || !strcmp(sub, "-h"))) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; sub && i < sizeof(subs) / sizeof(subs[0]); i++)
		known |= !strcmp(sub, subs[i]);
	if (!known) {
		fb_err("history: %s '%s' (add, list, show, export, report, selftest, gate; --help)",
		       sub ? "unknown subcommand" : "which subcommand?", sub ? sub : "");
		return 2;
	}
	rc = parse_opts(&o, argc - 1, argv + 1);
	if (rc)
		return rc > 0 ? 0 : 2;
	argc -= optind + 1;
	argv += optind + 1;
	catch_signals();
	if (!strcmp(sub, "selftest"))
		return do_selftest(&o);
	if (!strcmp(sub, "add"))
		return do_add(&o, argc, argv);
	if (!strcmp(sub, "gate")) {
		if (argc != 1) {
			fb_err("history gate: one ab directory (foliobench history --help)");
			return 2;
		}
		return fb_history_gate_last(o.db, argv[0], o.arm, o.ref_arm, o.last, o.by_added,
					    &o.cp, stdout);
	}
	if (strcmp(sub, "show") && argc) {
		fb_err("history %s: unexpected argument '%s'", sub, argv[0]);
		return 2;
	}
	if (fb_hdb_open(&db, o.db, 0, err, sizeof(err))) {
		fb_err("%s", err);
		return 2;
	}
	fb_hdb_set_last(db, o.last);
	fb_hdb_set_order(db, o.by_added);
	if (!strcmp(sub, "list"))
		rc = do_list(&o, db);
	else if (!strcmp(sub, "show"))
		rc = do_show(&o, db, argc, argv);
	else if (!strcmp(sub, "export"))
		rc = do_export(&o, db);
	else
		rc = fb_hist_report(db, o.db, o.out, o.globs, o.nglobs, o.arm, &o.cp);
	fb_hdb_close(db);
	return rc;
}
