// SPDX-License-Identifier: GPL-2.0
/*
 * history_gate.c - `gate DIR --history DB` (history.h): does the newest A/B
 * run start a regressing step in its arm's history?
 *
 * The pairwise test in gate compares the two arms of one run.  A series
 * that creeps up over nights, or a step smaller than one run's noise, can
 * pass it; appended to its history, the same rounds make a change point.
 * The gate fails when a change point starts at one of the new rounds, and
 * its bootstrap CI says the metric got worse.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history.h"

struct newround {
	struct fb_hround id;
	struct fb_result *r;
};

static int cmp_new(const void *a, const void *b)
{
	const struct newround *x = a, *y = b;

	return strcmp(x->id.started, y->id.started);
}

static void free_new(struct newround *nr, int n)
{
	for (int i = 0; i < n; i++)
		free(nr[i].r);
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
			if (nr[k].r)
				k++;
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
	double v;
	int found;
};

static void pick_metric(void *ctx, const char *metric, const char *unit, double v)
{
	struct pick *p = ctx;

	if (!p->found && !strcmp(metric, p->metric) && isfinite(v)) {
		p->v = v;
		p->found = 1;
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
			dup = !strcmp(s->p[i].sha256, nr[k].id.sha256) &&
			      !strcmp(s->p[i].started, nr[k].id.started);
		if (!dup)
			x[n++] = s->p[i].v;
	}
	*nold = n;
	for (int k = 0; k < nn; k++) {
		struct pick p = { .metric = s->metric };

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

struct verdict {
	int checked, failing, nold_max;
	char first[512];
};

static int check_series(const struct fb_hseries *s, const struct newround *nr, int nn,
			const struct fb_cp_opts *o, struct verdict *v)
{
	double *x = malloc(sizeof(*x) * (size_t)(s->n + nn));
	struct fb_cp cp[FB_HIST_MAX_CPS];
	const struct fb_cp *c;
	int n, nold, ncp;

	if (!x)
		return -1;
	n = build_series(s, nr, nn, x, &nold);
	if (n == nold || nold < o->min_size) {
		free(x);
		return 0;	/* no new value, or too little history to tell */
	}
	ncp = fb_changepoints(x, n, o, cp, FB_HIST_MAX_CPS);
	free(x);
	if (ncp < 0)
		return -1;
	v->checked++;
	if (nold > v->nold_max)
		v->nold_max = nold;
	c = regressing(s, cp, ncp, nold);
	if (c && !v->failing++)
		fb_fmt(v->first, sizeof(v->first), "%s (arm %s) starts a %+.1f%% step"
		       " [95%% CI %+.1f%% .. %+.1f%%, p %.3f] at new round %d of %d",
		       s->metric, s->arm, c->pct, c->ci_lo, c->ci_hi, c->p, c->pos - nold + 1,
		       n - nold);
	return 0;
}

int fb_history_gate(const char *db, const char *ab_dir, const char *arm,
		    const struct fb_cp_opts *o, FILE *f)
{
	struct verdict v = { 0 };
	struct newround *nr = NULL;
	struct fb_hseries *s = NULL;
	struct fb_hdb *h = NULL;
	char err[512] = "";
	int nn, ns = -1, rc = 2;

	arm = arm ? arm : "patched";
	nn = load_new(ab_dir, arm, &nr, err, sizeof(err));
	if (nn < 0 || fb_hdb_open(&h, db, 0, err, sizeof(err)))
		goto out;
	ns = fb_hdb_series(h, fb_hist_default_globs, fb_hist_ndefault_globs, arm, &s, err,
			   sizeof(err));
	for (int i = 0; i < ns; i++)
		if (check_series(&s[i], nr, nn, o, &v)) {
			snprintf(err, sizeof(err), "history gate: out of memory");
			goto out;
		}
	if (ns < 0)
		goto out;
	if (v.failing)
		fprintf(f, "history: FAIL: %s; %d of %d series regress\n", v.first, v.failing,
			v.checked);
	else
		fprintf(f, "history: pass: no regressing step starts in the %d new %s rounds"
			" (%d series checked against up to %d rounds of history)\n", nn, arm,
			v.checked, v.nold_max);
	rc = v.failing ? 1 : 0;
out:
	if (rc == 2)
		fb_err("%s", err[0] ? err : "history gate: failed");
	fb_hseries_free(s, ns > 0 ? ns : 0);
	free_new(nr, nn > 0 ? nn : 0);
	fb_hdb_close(h);
	return rc;
}
