// SPDX-License-Identifier: GPL-2.0
/*
 * attrib.c - the per-patch attribution model (attrib.h): one comparison
 * (compare.h) per step of the series and one for the whole series, matched
 * by metric, a Holm correction over every cell, and each metric's whole
 * change split over the steps that decided it.  Rendering: attrib_render.c.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/attrib/attrib.h"
#include "model/jsonfile.h"
#include "util/util.h"

#define ATTRIB_MAX_ROWS	1024

int fb_attrib_is_dir(const char *dir)
{
	char p[1024];

	return fb_fmt(p, sizeof(p), "%s/%s", dir, FB_ATTRIB_FILE) > 0 && access(p, R_OK) == 0;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : "";
}

/* per-patch.json: the series and its prefix directories, in order. */
static int load_meta(struct fb_attrib *a, char *err, size_t errlen)
{
	char p[600];
	json_object *o, *pre, *fr;
	int n;

	snprintf(p, sizeof(p), "%s/%s", a->dir, FB_ATTRIB_FILE);
	o = fb_json_load(p, "a per-patch.json", err, errlen);	/* no FIFO, no device */
	if (!o)
		return -1;
	if (strcmp(jstr(o, "schema"), "foliobench-per-patch") ||
	    !json_object_object_get_ex(o, "prefixes", &pre) ||
	    !json_object_is_type(pre, json_type_array)) {
		snprintf(err, errlen, "%s: not a foliobench-per-patch file", p);
		json_object_put(o);
		return -1;
	}
	snprintf(a->series, sizeof(a->series), "%s", jstr(o, "series"));
	snprintf(a->clock, sizeof(a->clock), "%s", jstr(o, "clock"));
	snprintf(a->flavour, sizeof(a->flavour), "%s", jstr(o, "flavour"));
	a->from = json_object_object_get_ex(o, "from", &fr) ? json_object_get_int(fr) : 1;
	n = (int)json_object_array_length(pre);
	if (n < 2 || n > FB_ATTRIB_MAX_STEPS + 1) {
		snprintf(err, errlen, "%s: %d prefixes (2..%d expected)", p, n,
			 FB_ATTRIB_MAX_STEPS + 1);
		json_object_put(o);
		return -1;
	}
	a->nsteps = n - 1;
	for (int i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(pre, (size_t)i);
		const char *d = jstr(e, "dir");

		if (!d[0] || strchr(d, '/') || !strcmp(d, "..")) {
			snprintf(err, errlen, "%s: prefix %d has no usable \"dir\"", p, i);
			json_object_put(o);
			return -1;
		}
		snprintf(a->prefix[i], sizeof(a->prefix[i]), "%s", d);
		snprintf(a->patch[i], sizeof(a->patch[i]), "%s", jstr(e, "patch"));
	}
	json_object_put(o);
	return 0;
}

static struct fb_attrib_row *find_row(struct fb_attrib *a, const struct fb_row *r,
				      const struct fb_metric *m, int k)
{
	const char *kind = fb_row_kind_name(r->kind);
	struct fb_attrib_row *x;

	for (int i = 0; i < a->nrows; i++) {
		x = &a->rows[i];
		if (!strcmp(x->kind, kind) && !strcmp(x->item, r->name) &&
		    !strcmp(x->metric, m->name))
			return x;
	}
	if (a->nrows == ATTRIB_MAX_ROWS)
		return NULL;
	x = &a->rows[a->nrows++];
	memset(x, 0, sizeof(*x));
	snprintf(x->kind, sizeof(x->kind), "%s", kind);
	snprintf(x->item, sizeof(x->item), "%s", r->name);
	snprintf(x->metric, sizeof(x->metric), "%s", m->name);
	snprintf(x->unit, sizeof(x->unit), "%s", m->unit);
	x->count = m->type == FB_M_COUNT;
	x->primary = r->primary == k;
	return x;
}

/*
 * icount rounds: the Holm family's p is the gate's icount test's (Welch on
 * logs, 0.1% floor).  Ranks cannot serve there: 7+7 rounds give at best a
 * two-sided p of 5.8e-4, which Holm over a table of ~100 cells never lets
 * through, so a -50% step with rounds that agree to 0.01% stayed
 * "inconclusive".  compare's own verdict (ranks, interval, minimum effect)
 * still decides; Holm only demotes.
 */
static void fill_cell(struct fb_attrib_cell *c, const struct fb_metric *m, int icount)
{
	struct fb_mwu u;

	memset(c, 0, sizeof(*c));
	c->na = m->na;
	c->nb = m->nb;
	c->raw = c->v = m->v;
	c->p = c->p_holm = NAN;
	c->have = m->na && m->nb && m->v != FB_V_NA;
	if (!c->have)
		return;
	c->from = m->base;
	c->to = m->new;
	c->delta = m->new - m->base;
	c->pct = m->st.delta_pct;
	c->exact = m->deterministic;
	/*
	 * A timing whose two sides were measured by different observer methods
	 * is inconclusive (compare) and tests nothing: not in the Holm family,
	 * where it would only raise every other cell's adjusted p.
	 */
	c->tested = m->st.have_mwu && !c->exact && !m->incomparable;
	if (c->tested)
		c->p = m->st.mwu.p_two;
	if (c->tested && icount &&
	    !fb_welch_log(m->a, m->na, m->b, m->nb, FB_ICOUNT_FLOOR, &u))
		c->p = u.p_two;
	snprintf(c->per, sizeof(c->per), "%s", m->per);
}

/*
 * One comparison of prefixes i -> j into column step (or the whole, step <
 * 0).  Each prefix's rounds are listed once: by the step that first loads
 * it (the base by step 1, prefix k by step k), not again by the next step
 * or by the whole.
 */
static int add_cmp(struct fb_attrib *a, int i, int j, int step, char *err, size_t errlen)
{
	char bp[600], np[600], e2[400];
	char *paths[2] = { bp, np };
	struct fb_cmp c;
	int ret = 0;

	snprintf(bp, sizeof(bp), "%s/%s", a->dir, a->prefix[i]);
	snprintf(np, sizeof(np), "%s/%s", a->dir, a->prefix[j]);
	unsigned int quiet = step < 0 ? FB_CMP_QUIET_BASE | FB_CMP_QUIET_NEW :
			     step > 0 ? FB_CMP_QUIET_BASE : 0;

	if (fb_cmp_open(&c, 2, paths, NULL, NULL, a->alpha, a->min_effect, quiet, e2,
			sizeof(e2))) {
		snprintf(err, errlen, "%s -> %s: %s", a->prefix[i], a->prefix[j], e2);
		fb_cmp_free(&c);
		return -1;
	}
	a->rounds[i] = c.base.n;
	a->rounds[j] = c.new.n;
	int icount = fb_cmp_icount(&c);

	for (int r = 0; r < c.nrows && !ret; r++)
		for (int k = 0; k < c.rows[r].nm; k++) {
			struct fb_attrib_row *x = find_row(a, &c.rows[r], c.rows[r].m[k], k);

			if (!x) {
				snprintf(err, errlen, "more than %d metrics", ATTRIB_MAX_ROWS);
				ret = -1;
				break;
			}
			fill_cell(step < 0 ? &x->whole : &x->step[step], c.rows[r].m[k], icount);
		}
	fb_cmp_free(&c);
	return ret;
}

static int cmp_p(const void *x, const void *y)
{
	double a = (*(struct fb_attrib_cell *const *)x)->p;
	double b = (*(struct fb_attrib_cell *const *)y)->p;

	return a < b ? -1 : a > b;
}

static int decided(enum fb_verdict v)
{
	return v == FB_V_CHANGED || v == FB_V_IMPROVED || v == FB_V_REGRESSED;
}

/*
 * Holm step-down over every cell of the table with a p-value: adjusted p of the k-th
 * smallest (1-based) is max over j <= k of min(1, (m - j + 1) p_j).  A cell
 * that compare called improved/regressed/changed but whose adjusted p is
 * not below alpha becomes inconclusive.
 */
static int holm(struct fb_attrib *a)
{
	struct fb_attrib_cell **cells;
	int m = 0;
	double run = 0;

	cells = calloc((size_t)a->nrows * (FB_ATTRIB_MAX_STEPS + 1), sizeof(*cells));
	if (!cells)
		return -1;
	for (int i = 0; i < a->nrows; i++) {
		struct fb_attrib_row *x = &a->rows[i];

		for (int k = 0; k <= a->nsteps && x->show; k++) {
			struct fb_attrib_cell *c = k < a->nsteps ? &x->step[k] : &x->whole;

			if (c->have && c->tested && !isnan(c->p))
				cells[m++] = c;
		}
	}
	qsort(cells, (size_t)m, sizeof(*cells), cmp_p);
	for (int k = 0; k < m; k++) {
		run = fmax(run, fmin(1.0, (m - k) * cells[k]->p));
		cells[k]->p_holm = run;
		if (decided(cells[k]->v) && run >= a->alpha)
			cells[k]->v = FB_V_INCONCLUSIVE;
	}
	a->family = m;
	free(cells);
	return 0;
}

/* Whole change split over the steps that decided a change. */
static void split(struct fb_attrib_row *x, int nsteps)
{
	x->explained = 0;
	for (int k = 0; k < nsteps; k++) {
		const struct fb_attrib_cell *c = &x->step[k];

		x->share[k] = NAN;
		if (!c->have || !decided(c->v))
			continue;
		x->explained += c->delta;
		if (x->whole.have && x->whole.delta != 0)
			x->share[k] = c->delta / x->whole.delta * 100;
	}
	x->unexplained = x->whole.have ? x->whole.delta - x->explained : NAN;
}

/*
 * The table: each item's counts and its main metric (what compare's
 * verdict of the row is made of), for probes and workloads.  Not the
 * contention rows (lock:contention_begin/end: timing-driven counts; see
 * compare), not op counters per themselves, not counts that are 0 on every
 * kernel (probes of other workloads), not metrics with no data.
 * The Holm family is the cells of this table.
 */
static int attrib_show(const struct fb_attrib *a, const struct fb_attrib_row *x)
{
	char self[128];
	int data = x->whole.have;

	if (!strcmp(x->kind, "contention") || !strcmp(x->kind, "extra"))
		return 0;
	snprintf(self, sizeof(self), "%.80s.%.43s", x->item, x->metric + 4);
	if (!strncmp(x->metric, "ops.", 4) && !strcmp(x->whole.per, self))
		return 0;
	int zero = !x->whole.have || (!x->whole.from && !x->whole.to);

	for (int k = 0; k < a->nsteps; k++) {
		data |= x->step[k].have;
		zero &= !x->step[k].have || (!x->step[k].from && !x->step[k].to);
	}
	/* a probe of another workload: zero everywhere */
	return data && !(x->count && zero) && (x->count || x->primary);
}

int fb_attrib_open(struct fb_attrib *a, const char *dir, double alpha, double min_effect,
		   char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->dir, sizeof(a->dir), "%s", dir);
	a->alpha = alpha;
	a->min_effect = min_effect;
	if (load_meta(a, err, errlen))
		return -1;
	a->rows = fb_calloc_err(ATTRIB_MAX_ROWS, sizeof(*a->rows), err, errlen);
	if (!a->rows)
		return -1;
	for (int k = 1; k <= a->nsteps; k++)
		if (add_cmp(a, k - 1, k, k - 1, err, errlen))
			return -1;
	if (add_cmp(a, 0, a->nsteps, -1, err, errlen))
		return -1;
	for (int i = 0; i < a->nrows; i++) {
		a->rows[i].show = attrib_show(a, &a->rows[i]);
		a->shown += a->rows[i].show;
	}
	if (holm(a)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < a->nrows; i++)
		split(&a->rows[i], a->nsteps);
	return 0;
}

void fb_attrib_free(struct fb_attrib *a)
{
	free(a->rows);
	a->rows = NULL;
	a->nrows = 0;
}
