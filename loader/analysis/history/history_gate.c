// SPDX-License-Identifier: GPL-2.0
/*
 * history_gate.c - `gate DIR --history DB` (history.h): does the newest A/B
 * run start a regressing step in its arm's history?
 *
 * The pairwise test in gate compares the two arms of one run.  A series
 * that creeps up over nights, or a step smaller than one run's noise, can
 * pass it; appended to its history, the same rounds make a change point.
 * The gate fails when a change point starts at one of the new rounds, and
 * its bootstrap CI says the metric got worse.  A new round's value extends
 * only the series of its own method: measured by another observer it is
 * no evidence of a step (history_db.h).
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history/history_db.h"
#include "analysis/history/history_gate.h"
#include "analysis/history/history_metrics.h"
#include "analysis/history/history_series.h"
#include "analysis/compare/runs.h"
#include "analysis/compare/stats.h"

struct newround {
	struct fb_hround id;
	struct fb_result *r;
	char *path;
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_new(const void *a, const void *b)
{
	const struct newround *x = a, *y = b;

	return strcmp(x->id.started, y->id.started);
}

static void free_new(struct newround *nr, int n)
{
	for (int i = 0; i < n; i++) {
		free(nr[i].r);
		free(nr[i].path);
	}
	free(nr);
}

/* The results files of dir/arm, sorted by start time; count or -1 with err. */
static int load_new(const char *dir, const char *arm, struct newround **out, char *err,
		    size_t errlen)
{
	char sub[1024];
	struct dirent **ents;
	struct newround *nr;
	int n, k = 0;

	fb_fmt(sub, sizeof(sub), "%s/%s", dir, arm);
	n = scandir(sub, &ents, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "%s: no '%s' arm here (an ab directory?)", dir, arm);
		return -1;
	}
	nr = calloc((size_t)n + 1, sizeof(*nr));
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name), len;
		char path[1280], *buf;

		if (nr && l > 5 && !strcmp(ents[i]->d_name + l - 5, ".json") && err[0] == '\0') {
			fb_fmt(path, sizeof(path), "%s/%s", sub, ents[i]->d_name);
			buf = fb_hist_read(path, &len, err, errlen);
			if (buf && !fb_hdb_ident(buf, len, &nr[k].id, err, errlen))
				nr[k].r = fb_result_parse(buf, len, err, errlen);
			if (nr[k].r && !(nr[k].path = strdup(path))) {
				fb_fmt(err, errlen, "out of memory");
				free(nr[k].r);
				nr[k].r = NULL;
			} else if (nr[k].r) {
				k++;
			}
			else if (!err[0])
				fb_fmt(err, errlen, "%s: unreadable", path);
			free(buf);
		}
		free(ents[i]);
	}
	free(ents);
	if (!nr || err[0] || !k) {
		if (!err[0])
			fb_fmt(err, errlen, "%s: no results files", sub);
		free_new(nr, k);
		return -1;
	}
	qsort(nr, (size_t)k, sizeof(*nr), cmp_new);
	*out = nr;
	return k;
}

struct pick {
	const char *metric;
	const char *method;	/* NULL: any, then the one found in found_method */
	double v;
	int found;
	char found_method[32];
};

static void pick_metric(void *ctx, const char *metric, const char *method, const char *unit,
			double v)
{
	struct pick *p = ctx;

	if (!p->found && !strcmp(metric, p->metric) && isfinite(v) &&
	    (!p->method || !strcmp(method, p->method))) {
		p->v = v;
		p->found = 1;
		snprintf(p->found_method, sizeof(p->found_method), "%s", method);
	}
}

/* History points not among the new rounds, then the new rounds' values; n or -1. */
static int build_series(const struct fb_hseries *s, const struct newround *nr, int nn,
			double *x, int *nold)
{
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		int dup = 0;

		for (int k = 0; k < nn && !dup; k++)
			dup = !strcmp(s->p[i].started, nr[k].id.started) &&
			      (!strcmp(s->p[i].content, nr[k].id.content) ||
			       !strcmp(s->p[i].sha256, nr[k].id.sha256));
		if (!dup)
			x[n++] = s->p[i].v;
	}
	*nold = n;
	for (int k = 0; k < nn; k++) {
		struct pick p = { .metric = s->metric, .method = s->method };

		if (strcmp(nr[k].id.params, s->params))
			continue;
		fb_hist_metrics(nr[k].r, pick_metric, &p);
		if (p.found)
			x[n++] = p.v;
	}
	return n;
}

/* A change point starting at a new round that made the metric worse, or NULL. */
static const struct fb_cp *regressing(const struct fb_hseries *s, const struct fb_cp *cp,
				      int ncp, int nold)
{
	for (int k = ncp - 1; k >= 0; k--) {
		const struct fb_cp *c = &cp[k];

		if (c->pos < nold || isnan(c->ci_lo))
			continue;
		if ((s->lower_is_better == 1 && c->ci_lo > 0) ||
		    (s->lower_is_better == 0 && c->ci_hi < 0))
			return c;
	}
	return NULL;
}

struct armdata {
	const char *arm;
	struct newround *nr;
	int nn;
	struct fb_hseries *s;
	int ns;
};

static void arm_free(struct armdata *a)
{
	fb_hseries_free(a->s, a->ns > 0 ? a->ns : 0);
	free_new(a->nr, a->nn > 0 ? a->nn : 0);
	memset(a, 0, sizeof(*a));
}

/* The arm's new rounds in ab_dir and its series in h; 0 or -1 with err. */
static int arm_load(struct fb_hdb *h, const char *ab_dir, const char *arm, struct armdata *a,
		    char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->arm = arm;
	a->nn = load_new(ab_dir, arm, &a->nr, err, errlen);
	if (a->nn < 0)
		return -1;
	a->ns = fb_hdb_series(h, fb_hist_default_globs, fb_hist_ndefault_globs, arm, &a->s, err,
			      errlen);
	return a->ns < 0 ? -1 : 0;
}

/* One arm's series of one metric: history, then the new rounds. */
struct split {
	double *x;
	int n, nold;
	int lo;			/* the history's current level: [lo, nold) */
};

/* 0 with sp filled (free sp->x), 1 if nothing to check, -1 on error. */
static int split_build(const struct fb_hseries *s, const struct armdata *a,
		       const struct fb_cp_opts *o, struct split *sp)
{
	struct fb_cp cp[FB_HIST_MAX_CPS];
	int ncp;

	sp->x = malloc(sizeof(*sp->x) * (size_t)(s->n + a->nn));
	if (!sp->x)
		return -1;
	sp->n = build_series(s, a->nr, a->nn, sp->x, &sp->nold);
	ncp = sp->n == sp->nold || sp->nold < o->min_size || sp->n - sp->nold > FB_STATS_MAX_N ?
	      -2 : fb_changepoints(sp->x, sp->nold, o, cp, FB_HIST_MAX_CPS);
	if (ncp < 0) {
		free(sp->x);
		sp->x = NULL;
		return ncp == -2 ? 1 : -1;
	}
	sp->lo = ncp > 0 ? cp[ncp - 1].pos : 0;
	if (sp->nold - sp->lo > FB_STATS_MAX_N)
		sp->lo = sp->nold - FB_STATS_MAX_N;
	return 0;
}

/*
 * The step's place is known: the new rounds start at nold.  So test them
 * against the history's current level: rank test and bootstrap CI
 * (stats.h), worse direction only.  1 with *c filled if they regress.
 */
static int known_split(const struct fb_hseries *s, const struct split *sp,
		       const struct fb_cp_opts *o, struct fb_cp *c)
{
	int na = sp->nold - sp->lo, nb = sp->n - sp->nold;
	const double *a = sp->x + sp->lo, *b = sp->x + sp->nold;
	struct fb_mwu u;
	double rlo, rhi;

	if (s->lower_is_better < 0 || na < o->min_size || fb_mann_whitney(a, na, b, nb, &u) ||
	    fb_bootstrap_ratio_ci(a, na, b, nb, 0.95, o->boot_iters, o->seed, &rlo, &rhi))
		return 0;
	if (u.p_two >= o->alpha || (s->lower_is_better ? rlo <= 1 : rhi >= 1))
		return 0;
	memset(c, 0, sizeof(*c));
	c->pos = sp->nold;
	c->lo = sp->lo;
	c->hi = sp->n;
	c->p = u.p_two;
	c->before = fb_median(a, na);
	c->after = fb_median(b, nb);
	c->pct = c->before ? (c->after / c->before - 1) * 100 : NAN;
	c->ci_lo = (rlo - 1) * 100;
	c->ci_hi = (rhi - 1) * 100;
	return 1;
}

/* A regressing step at the new rounds: a change point there, or the known split. */
static int step_of(const struct fb_hseries *s, const struct split *sp,
		   const struct fb_cp_opts *o, struct fb_cp *c)
{
	struct fb_cp cp[FB_HIST_MAX_CPS];
	int ncp = fb_changepoints(sp->x, sp->n, o, cp, FB_HIST_MAX_CPS);
	const struct fb_cp *r = ncp < 0 ? NULL : regressing(s, cp, ncp, sp->nold);

	if (ncp < 0)
		return -1;
	if (r) {
		*c = *r;
		return 1;
	}
	return known_split(s, sp, o, c);
}

static double median_resample(const double *v, int n, struct fb_prng *r, double *buf)
{
	for (int i = 0; i < n; i++)
		buf[i] = v[fb_prng_below(r, (uint32_t)n)];
	return fb_median(buf, n);
}

/*
 * Difference in differences: the tested arm's step over the reference
 * arm's, (new/level of the arm) / (new/level of the reference), as a
 * percentile bootstrap 95% CI.  The arms of one ab run boot interleaved,
 * so a host that got slower moves both: this is the kernel's part.
 */
static int did_ci(const struct split *t, const struct split *r, const struct fb_cp_opts *o,
		  double *lo, double *hi)
{
	const struct split *g[2] = { t, r };
	double *q = malloc(sizeof(*q) * (size_t)o->boot_iters), buf[FB_STATS_MAX_N];
	struct fb_prng rng;
	int used = 0;

	if (!q)
		return -1;
	fb_prng_seed(&rng, o->seed);
	for (int it = 0; it < o->boot_iters; it++) {
		double m[4];

		for (int k = 0; k < 2; k++) {
			m[2 * k] = median_resample(g[k]->x + g[k]->lo, g[k]->nold - g[k]->lo, &rng,
						   buf);
			m[2 * k + 1] = median_resample(g[k]->x + g[k]->nold, g[k]->n - g[k]->nold,
						       &rng, buf);
		}
		if (m[0] > 0 && m[2] > 0 && m[3] > 0)
			q[used++] = (m[1] / m[0]) / (m[3] / m[2]);
	}
	if (used > o->boot_iters / 2) {
		qsort(q, (size_t)used, sizeof(*q), cmp_dbl);
		*lo = fb_quantile_sorted(q, used, 0.025);
		*hi = fb_quantile_sorted(q, used, 0.975);
	}
	free(q);
	return used > o->boot_iters / 2 ? 0 : -1;
}

/*
 * The reference arm's series of the same metric and parameters that its
 * new rounds continue (their method's), split as split_build() does: 0
 * with rsp filled, 1 if there is none to check, -1 on error.
 */
static int ref_split(const struct armdata *ref, const struct fb_hseries *s,
		     const struct fb_cp_opts *o, struct split *rsp)
{
	for (int i = 0; i < ref->ns; i++) {
		int rc;

		if (strcmp(ref->s[i].metric, s->metric) || strcmp(ref->s[i].params, s->params))
			continue;
		rc = split_build(&ref->s[i], ref, o, rsp);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/*
 * 1 if the new rounds measure s's metric by a method the history has no
 * series of: their values start a new series, they do not continue s.
 */
static int method_changed(const struct fb_hseries *s, const struct armdata *a)
{
	for (int k = 0; k < a->nn; k++) {
		struct pick p = { .metric = s->metric };
		int known = 0;

		if (strcmp(a->nr[k].id.params, s->params))
			continue;
		fb_hist_metrics(a->nr[k].r, pick_metric, &p);
		if (!p.found || !strcmp(p.found_method, s->method))
			continue;
		for (int i = 0; i < a->ns && !known; i++)
			known = !strcmp(a->s[i].metric, s->metric) &&
				!strcmp(a->s[i].params, s->params) &&
				!strcmp(a->s[i].method, p.found_method);
		if (!known)
			return 1;
	}
	return 0;
}

struct verdict {
	int checked, failing, env, nold_max;
	int nonew, short_hist;	/* series not checked: no new value; too little history */
	int moved;		/* not checked: the new rounds measure it by a new method */
	/*
	 * of nonew: the new rounds ran with the series' parameters and have its
	 * row, with no value (a probe lost, a workload that failed): no pass
	 */
	int lost;
	char first[512], first_env[256], first_lost[200];
};

/* 1 if a new round of the series' parameters has its row (probe or workload) */
static int row_in_new(const struct fb_hseries *s, const struct armdata *a)
{
	const char *b = strchr(s->metric, ':'), *e = strrchr(s->metric, ':');
	char row[160];

	if (!b || e <= b)
		return 0;
	fb_fmt(row, sizeof(row), "%.*s", (int)(e - b - 1), b + 1);
	for (int k = 0; k < a->nn; k++)
		if (!strcmp(a->nr[k].id.params, s->params) &&
		    (fb_result_probe(a->nr[k].r, row) || fb_result_workload(a->nr[k].r, row)))
			return 1;
	return 0;
}

/* 1 if the reference arm explains the step (*pct: what is left for the kernel), 0 if not. */
static int host_step(const struct fb_hseries *s, const struct split *sp,
		     const struct armdata *ref, const struct fb_cp_opts *o, double *pct)
{
	struct split rsp = { 0 };
	double lo = NAN, hi = NAN;
	int host = 0;

	if (ref->nn <= 0 || ref_split(ref, s, o, &rsp))
		return 0;
	if (!did_ci(sp, &rsp, o, &lo, &hi)) {
		host = s->lower_is_better ? lo <= 1 : hi >= 1;
		*pct = (fb_median(sp->x + sp->nold, sp->n - sp->nold) /
			fb_median(sp->x + sp->lo, sp->nold - sp->lo) /
			(fb_median(rsp.x + rsp.nold, rsp.n - rsp.nold) /
			 fb_median(rsp.x + rsp.lo, rsp.nold - rsp.lo)) - 1) * 100;
	}
	free(rsp.x);
	return host;
}

/* One series of the tested arm. */
static int check_series(const struct fb_hseries *s, const struct armdata *a,
			const struct armdata *ref, const struct fb_cp_opts *o, struct verdict *v)
{
	struct split sp = { 0 };
	struct fb_cp c;
	char name[200];
	double kpct;
	int step = split_build(s, a, o, &sp);

	if (step > 0) {
		int moved = sp.n == sp.nold && method_changed(s, a);

		v->moved += moved;
		v->nonew += sp.n == sp.nold && !moved;
		v->short_hist += sp.n != sp.nold;
		if (sp.n == sp.nold && !moved && row_in_new(s, a) && !v->lost++)
			fb_hseries_name(s, v->first_lost, sizeof(v->first_lost));
	}
	if (step)
		return step < 0 ? -1 : 0;
	v->checked++;
	if (sp.nold > v->nold_max)
		v->nold_max = sp.nold;
	step = step_of(s, &sp, o, &c);
	fb_hseries_name(s, name, sizeof(name));
	if (step > 0 && host_step(s, &sp, ref, o, &kpct)) {
		if (!v->env++)
			fb_fmt(v->first_env, sizeof(v->first_env), "%s %+.1f%%, %+.1f%% relative"
			       " to %s", name, c.pct, kpct, ref->arm);
	} else if (step > 0 && !v->failing++) {
		fb_fmt(v->first, sizeof(v->first), "%s (arm %s) starts a %+.1f%% step"
		       " [95%% CI %+.1f%% .. %+.1f%%, p %.2g] at new round %d of %d",
		       name, s->arm, c.pct, c.ci_lo, c.ci_hi, c.p, c.pos - sp.nold + 1,
		       sp.n - sp.nold);
	}
	free(sp.x);
	return step < 0 ? -1 : 0;
}

/* ", 2 measured by a method new to the history (new series)", or "" */
static void say_moved(const struct verdict *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (v->moved)
		fb_fmt(buf, len, ", %d measured by a method new to the history (new series)",
		       v->moved);
}

/*
 * Nothing checked is no pass: exit 3, and why.  A series is checked when
 * the new rounds have a value in it, measured by its method, and its
 * history has --min-size rounds.
 */
static int print_unknown(FILE *f, const struct verdict *v, const struct armdata *a,
			 const struct fb_cp_opts *o)
{
	char moved[96];

	say_moved(v, moved, sizeof(moved));
	if (!a->ns)
		fprintf(f, "history: unknown: nothing checked: the history holds no series of arm"
			" %s (history add the earlier runs first)\n", a->arm);
	else
		fprintf(f, "history: unknown: nothing checked: of %d series of arm %s, %d have no"
			" value in the %d new rounds%s and %d fewer than %d rounds of history"
			" (--min-size); not shown safe\n", a->ns, a->arm, v->nonew, a->nn, moved,
			v->short_hist, o->min_size);
	return 3;
}

static void print_verdict(FILE *f, const struct verdict *v, const struct armdata *a,
			  const struct armdata *ref)
{
	char env[320] = "", moved[96];

	say_moved(v, moved, sizeof(moved));
	if (v->env)
		fb_fmt(env, sizeof(env), "; %d step%s taken by %s too: the host's (%s)", v->env,
		       v->env == 1 ? "" : "s", ref->arm, v->first_env);
	if (v->failing)
		fprintf(f, "history: FAIL: %s; %d of %d series regress%s\n", v->first, v->failing,
			v->checked, env);
	else
		fprintf(f, "history: pass: no regressing step starts in the %d new %s rounds"
			" (%d series checked against up to %d rounds of history%s%s%s)\n", a->nn,
			a->arm, v->checked, v->nold_max, moved,
			ref->nn > 0 ? "" : "; no reference arm", env);
}

/*
 * The new rounds' runs (runs.h): a fatal issue fails, any other is
 * unknown; 0 if none, else the exit status with a line per issue.
 */
static int runs_verdict(const char *ab_dir, const struct armdata *a, FILE *f)
{
	struct fb_run_issues iss = { 0 };
	struct fb_result **r = calloc((size_t)a->nn + 1, sizeof(*r));
	char **files = calloc((size_t)a->nn + 1, sizeof(*files)), err[300] = "";

	if (!r || !files) {
		free(r);
		free(files);
		return 2;
	}
	for (int k = 0; k < a->nn; k++) {
		r[k] = a->nr[k].r;
		files[k] = a->nr[k].path;
	}
	fb_runs_rounds(&iss, r, files, a->nn);
	if (fb_runs_abjson(&iss, ab_dir, a->arm, files, a->nn, err, sizeof(err)) < 0)
		fprintf(f, "history: %s: runs not checked\n", err);
	free(r);
	free(files);
	if (!iss.n)
		return 0;
	fprintf(f, "history: %s: %d run(s) of arm %s %s:\n", iss.nfatal ? "FAIL" : "unknown",
		iss.n, a->arm, iss.nfatal ? "failed (the kernel under test can have caused it)" :
		"interrupted or missing: not shown safe");
	for (int i = 0; i < iss.kept; i++)
		fprintf(f, "  %s %s\n", a->arm, iss.v[i].what);
	if (iss.kept < iss.n)
		fprintf(f, "  ... and %d more\n", iss.n - iss.kept);
	return iss.nfatal ? 1 : 3;
}

int fb_history_gate(const char *db, const char *ab_dir, const char *arm, const char *ref_arm,
		    const struct fb_cp_opts *o, FILE *f)
{
	return fb_history_gate_last(db, ab_dir, arm, ref_arm, 0, 0, o, f);
}

int fb_history_gate_last(const char *db, const char *ab_dir, const char *arm,
			 const char *ref_arm, int last, int by_added, const struct fb_cp_opts *o,
			 FILE *f)
{
	struct armdata a = { 0 }, ref = { 0 };
	struct verdict v = { 0 };
	struct fb_hdb *h = NULL;
	char err[512] = "", rerr[512] = "";
	int rc = 2, runs;

	arm = arm ? arm : "patched";
	ref_arm = ref_arm ? ref_arm : "baseline";
	if (fb_hdb_open(&h, db, 0, err, sizeof(err)))
		goto out;
	fb_hdb_set_last(h, last);
	fb_hdb_set_order(h, by_added);
	if (arm_load(h, ab_dir, arm, &a, err, sizeof(err)))
		goto out;
	/* without a reference arm in ab_dir every step counts */
	if (ref_arm[0] && strcmp(ref_arm, arm) &&
	    arm_load(h, ab_dir, ref_arm, &ref, rerr, sizeof(rerr)))
		arm_free(&ref);
	ref.arm = ref_arm;
	for (int i = 0; i < a.ns; i++)
		if (check_series(&a.s[i], &a, &ref, o, &v)) {
			snprintf(err, sizeof(err), "history gate: out of memory");
			goto out;
		}
	runs = runs_verdict(ab_dir, &a, f);
	if (runs == 2) {
		snprintf(err, sizeof(err), "history gate: out of memory");
		goto out;
	}
	if (!v.checked) {
		rc = print_unknown(f, &v, &a, o);
		rc = runs == 1 ? 1 : rc;
		goto out;
	}
	rc = v.failing || runs == 1 ? 1 : runs == 3 || v.lost ? 3 : 0;
	if (!rc || v.failing)	/* pass, or the regressing step */
		print_verdict(f, &v, &a, &ref);
	if (v.lost)
		fprintf(f, "history: unknown: %d series of the history have no value in the %d new "
			"%s rounds, whose probes or workloads they measured (first: %s): lost, not "
			"shown safe\n", v.lost, a.nn, a.arm, v.first_lost);
out:
	if (rc == 2)
		fb_err("%s", err[0] ? err : "history gate: failed");
	arm_free(&a);
	arm_free(&ref);
	fb_hdb_close(h);
	return rc;
}
