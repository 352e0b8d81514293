// SPDX-License-Identifier: GPL-2.0
/*
 * cmpmodel.c - the comparison model (cmpmodel.h): rows and metrics, on two
 * sides cmpvalidate.c found alike; each metric's verdict: cmpverdict.c.
 * No I/O.  Design: docs/compare.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/cmpmodel.h"
#include "util/util.h"

#define MAX_CONT_LOCKS	64
#define MAX_ROWS	512

void fb_side_free(struct fb_side *s)
{
	for (int i = 0; i < (s->nall > s->n ? s->nall : s->n); i++) {
		free(s->files ? s->files[i] : NULL);
		free(s->r ? s->r[i] : NULL);
	}
	free(s->files);
	free(s->r);
	s->files = NULL;
	s->r = NULL;
	s->n = s->nall = 0;
}

/* ---- rows and metrics ---- */

const char *fb_row_kind_name(enum fb_row_kind k)
{
	static const char *const n[] = {
		[FB_ROW_FUNC] = "func", [FB_ROW_LOCK] = "lock", [FB_ROW_OTHER] = "probe",
		[FB_ROW_WORKLOAD] = "workload", [FB_ROW_CONTENTION] = "contention",
		[FB_ROW_EXTRA] = "extra",
	};

	return k < FB_ROW_NKINDS ? n[k] : "?";
}

void fb_metric_id(const struct fb_row *row, const struct fb_metric *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s:%s", fb_row_kind_name(row->kind), row->name, m->name);
}

static struct fb_row *new_row(struct fb_cmp *c, enum fb_row_kind kind, const char *name)
{
	struct fb_row *r;

	if (c->nrows >= MAX_ROWS)
		return NULL;
	r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	snprintf(r->name, sizeof(r->name), "%.79s", name);
	return r;
}

static struct fb_metric *new_metric(struct fb_row *r, const char *name, const char *unit,
				    enum fb_metric_type t, int lower_is_better)
{
	struct fb_metric *m;

	if (r->nm >= FB_CMP_MAX_METRICS)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->type = t;
	m->lower_is_better = lower_is_better;
	r->m[r->nm++] = m;
	return m;
}

static void push(struct fb_metric *m, int side, double v)
{
	if (!m)
		return;
	if (side == 0 && m->na < FB_CMP_MAX_ROUNDS)
		m->a[m->na++] = v;
	else if (side == 1 && m->nb < FB_CMP_MAX_ROUNDS)
		m->b[m->nb++] = v;
}

static const struct fb_hist *find_stat(const struct fb_probe_result *p, const char *name, int any)
{
	for (int i = 0; i < p->nstats; i++)
		if (!strcmp(p->stats[i].name, name))
			return &p->stats[i].h;
	return any && p->nstats ? &p->stats[0].h : NULL;
}

static void note_add(struct fb_row *row, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_add(struct fb_row *row, const char *fmt, ...)
{
	size_t l = strlen(row->note);
	va_list ap;

	if (l && l + 2 < sizeof(row->note)) {
		strcpy(row->note + l, "; ");
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(row->note + l, sizeof(row->note) - l, fmt, ap);
	va_end(ap);
}

/* Was lock:contention_begin/end traced in this round? */
static int contention_on(const struct fb_result *r)
{
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].kind == FB_CONTENTION && r->probes[i].status == FB_ATTACHED)
			return 1;
	return r->ncontention > 0;
}

/* Contentions of a watched lock: run labels its entries with the probe name. */
static double contentions_of(const struct fb_result *r, const char *lock)
{
	double n = 0;

	for (int i = 0; i < r->ncontention; i++)
		if (!strcmp(r->contention[i].lock, lock))
			n += (double)r->contention[i].count;
	return n;
}

static const struct fb_side *side_of(const struct fb_cmp *c, int s)
{
	return s ? &c->new : &c->base;
}

/*
 * The probe or workload of a row in one round, if it has data there (probe
 * attached, workload ok); else NULL with *why set to the round's reason.
 */
static const void *usable(const struct fb_row *row, const struct fb_result *r, const char **why)
{
	if (row->kind == FB_ROW_WORKLOAD) {
		const struct fb_workload_result *w = fb_result_workload(r, row->name);

		if (w && w->status == FB_WL_OK)
			return w;
		if (w)
			*why = w->reason[0] ? w->reason : fb_wl_status_name(w->status);
	} else {
		const struct fb_probe_result *p = fb_result_probe(r, row->name);

		if (p && p->status == FB_ATTACHED)
			return p;
		if (p)
			*why = p->reason[0] ? p->reason : fb_probe_status_name(p->status);
	}
	return NULL;
}

typedef void (*round_fn)(const struct fb_row *row, struct fb_metric **m, int s,
			 const void *item, const struct fb_result *round, const void *first);

/* fn over the rounds of side s where the row's item has data; returns how many. */
static int side_rounds(const struct fb_cmp *c, const struct fb_row *row, struct fb_metric **m,
		       int s, round_fn fn, const void *first, const char **why)
{
	const struct fb_side *sd = side_of(c, s);
	int used = 0;

	for (int i = 0; i < sd->n; i++) {
		const void *item = usable(row, sd->r[i], why);

		if (!item)
			continue;
		used++;
		fn(row, m, s, item, sd->r[i], first);
	}
	return used;
}

/*
 * cmean: the mean of the calls within 1.5x the median, the common path.
 * Under icount it is an instruction count to 0.01%, where the median moves
 * only across 3% buckets; slow paths (nft_trans_alloc's slab refills at
 * +1.4 us, 92-202 of 10,025 calls depending on the boot) and interrupted
 * calls are left to mean, p90 and p99 (reports/clock/).
 */
#define FB_CORE_FACTOR	1.5

/* A lock row's "hold@<phase>" stat (lockrows.c), or NULL. */
static const struct fb_hist *phase_hold(const struct fb_probe_result *p, const char **phase)
{
	for (int i = 0; i < p->nstats; i++)
		if (!strncmp(p->stats[i].name, "hold@", 5)) {
			if (phase)
				*phase = p->stats[i].name + 5;
			return &p->stats[i].h;
		}
	return NULL;
}

/*
 * A lock row whose workload marked a phase: the holds released in it,
 * "<phase>_hold_p50" and "<phase>_hold_cmean" in m[0], m[1] (gdp_mutex's
 * registrations, without the removals' second mode: catalogue.c).
 */
static void phase_metrics(struct fb_row *row, const struct fb_probe_result *p0,
			  struct fb_metric **m)
{
	const char *phase;
	char nm[48];

	if (!phase_hold(p0, &phase))
		return;
	snprintf(nm, sizeof(nm), "%.16s_hold_p50", phase);
	m[0] = new_metric(row, nm, "ns", FB_M_NOISY, 1);
	snprintf(nm, sizeof(nm), "%.16s_hold_cmean", phase);
	m[1] = new_metric(row, nm, "ns", FB_M_NOISY, 1);
}

/* The metrics of a probe row; returns the row kind's metric layout in m[]. */
static void probe_metrics(struct fb_row *row, const struct fb_probe_result *p0,
			  struct fb_metric **m)
{
	static const struct mdef {
		const char *name, *unit;
		enum fb_metric_type type;
		int lower_is_better;
	} func[] = {
		{ "calls", "count", FB_M_COUNT, -1 }, { "total", "ns", FB_M_NOISY, 1 },
		{ "mean", "ns", FB_M_NOISY, 1 }, { "p50", "ns", FB_M_NOISY, 1 },
		{ "p90", "ns", FB_M_NOISY, 1 }, { "p99", "ns", FB_M_NOISY, 1 },
		{ "cmean", "ns", FB_M_NOISY, 1 }, { NULL },
	}, lock[] = {
		{ "acquisitions", "count", FB_M_COUNT, 1 }, { "wait_total", "ns", FB_M_NOISY, 1 },
		{ "wait_mean", "ns", FB_M_NOISY, 1 }, { "hold_mean", "ns", FB_M_NOISY, 1 },
		{ "hold_p99", "ns", FB_M_NOISY, 1 }, { "hold_total", "ns", FB_M_NOISY, 1 },
		{ "contentions", "count", FB_M_COUNT, 1 }, { "hold_p50", "ns", FB_M_NOISY, 1 },
		{ "hold_p90", "ns", FB_M_NOISY, 1 }, { NULL },
	};
	const struct mdef *d = row->kind == FB_ROW_FUNC ? func : row->kind == FB_ROW_LOCK ? lock : NULL;

	if (d) {
		/* m[] in this order: probe_round() fills them by index */
		for (int i = 0; d[i].name; i++)
			m[i] = new_metric(row, d[i].name, d[i].unit, d[i].type, d[i].lower_is_better);
		row->primary = row->kind == FB_ROW_FUNC ? 2 : 3;	/* mean, hold_mean */
		if (row->kind == FB_ROW_LOCK)
			phase_metrics(row, p0, m + 9);
		return;
	}
	for (int i = 0; i < p0->nstats && i < FB_MAX_STATS; i++) {
		const char *unit = p0->stats[i].h.unit[0] ? p0->stats[i].h.unit : "ns";
		int lower = strcmp(unit, "ns") ? -1 : 1;	/* sizes: no better direction */
		char nm[24];

		snprintf(nm, sizeof(nm), "%.15s_count", p0->stats[i].name);
		m[3 * i] = new_metric(row, nm, "count", FB_M_COUNT, -1);
		snprintf(nm, sizeof(nm), "%.15s_mean", p0->stats[i].name);
		m[3 * i + 1] = new_metric(row, nm, unit, FB_M_NOISY, lower);
		snprintf(nm, sizeof(nm), "%.15s_p99", p0->stats[i].name);
		m[3 * i + 2] = new_metric(row, nm, unit, FB_M_NOISY, lower);
	}
	row->primary = row->nm > 1 ? 1 : 0;
}

/* One attached round of a probe (p) into the metrics m[] of side s. */
static void probe_round(const struct fb_row *row, struct fb_metric **m, int s,
			const void *item, const struct fb_result *round, const void *first)
{
	const struct fb_probe_result *p = item, *p0 = first;
	enum fb_row_kind kind = row->kind;

	if (kind == FB_ROW_FUNC) {
		const struct fb_hist *h = find_stat(p, "latency", 1), *c = find_stat(p, "calls", 0);

		if (!h)
			return;
		/* the plugin's rows count calls apart: some are not timed (tail calls) */
		push(m[0], s, (double)(c ? c->count : h->count));
		push(m[1], s, (double)h->sum);
		if (!h->count)
			return;
		push(m[2], s, fb_hist_mean(h));
		push(m[3], s, fb_hist_percentile(h, 50));
		push(m[4], s, fb_hist_percentile(h, 90));
		push(m[5], s, fb_hist_percentile(h, 99));
		push(m[6], s, fb_hist_core_mean(h, FB_CORE_FACTOR));
	} else if (kind == FB_ROW_LOCK) {
		const struct fb_hist *w = find_stat(p, "wait", 0);
		const struct fb_hist *h = find_stat(p, "hold", 0);

		/* one hold per acquisition; lock_stat counts waits = contentions */
		if (w || h)
			push(m[0], s, (double)(h ? h->count : w->count));
		if (w) {
			push(m[1], s, (double)w->sum);
			if (w->count)
				push(m[2], s, fb_hist_mean(w));
		}
		if (w && !strcmp(p->method, "lock_stat"))
			push(m[6], s, (double)w->count);
		else if (contention_on(round))
			push(m[6], s, contentions_of(round, p0->name));
		if (h) {
			push(m[5], s, (double)h->sum);
			if (h->count)
				push(m[3], s, fb_hist_mean(h));
			/* lock_stat rows have no distribution */
			if (h->count && fb_hist_percentile(h, 100) > 0) {
				push(m[4], s, fb_hist_percentile(h, 99));
				push(m[7], s, fb_hist_percentile(h, 50));
				push(m[8], s, fb_hist_percentile(h, 90));
			}
		}
		h = phase_hold(p, NULL);
		if (h && h->count && fb_hist_percentile(h, 100) > 0) {
			push(m[9], s, fb_hist_percentile(h, 50));
			push(m[10], s, fb_hist_core_mean(h, FB_CORE_FACTOR));
		}
	} else {
		for (int k = 0; k < p0->nstats && k < FB_MAX_STATS; k++) {
			const struct fb_hist *h = find_stat(p, p0->stats[k].name, 0);

			if (!h)
				continue;
			push(m[3 * k], s, (double)h->count);
			if (h->count) {
				push(m[3 * k + 1], s, fb_hist_mean(h));
				push(m[3 * k + 2], s, fb_hist_percentile(h, 99));
			}
		}
	}
}

/* a row's timings (noisy metrics in ns) with another observer in them: no verdict */
static void timings_incomparable(struct fb_row *row)
{
	for (int k = 0; k < row->nm; k++)
		if (row->m[k])
			row->m[k]->incomparable = row->m[k]->type == FB_M_NOISY &&
						  !strcmp(row->m[k]->unit, "ns");
}

#define MAX_METHODS	4

/*
 * The observer methods of a probe row's attached rounds on side s into
 * buf, "a|b" when they differ between rounds; returns how many distinct
 * ones (at most MAX_METHODS; 0: attached in no round).
 */
static int side_methods(const struct fb_cmp *c, const struct fb_row *row, int s, char *buf,
			size_t len)
{
	const struct fb_side *sd = side_of(c, s);
	const char *m[MAX_METHODS], *why;
	size_t o = 0;
	int n = 0;

	for (int i = 0; i < sd->n; i++) {
		const struct fb_probe_result *p = usable(row, sd->r[i], &why);
		const char *name = p && p->method[0] ? p->method : "?";
		int k = 0;

		while (p && k < n && strcmp(m[k], name))
			k++;
		if (p && k == n && n < MAX_METHODS)
			m[n++] = name;
	}
	buf[0] = '\0';
	for (int k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? "|" : "", m[k]);
	return n;
}

/*
 * The observer's own cost inside a latency or a hold depends on how it was
 * measured (an fentry/fexit pair, one fsession program, kprobes, lock_stat,
 * where a hold's start is kept), and the method changes with foliobench and
 * between kernels (fsession: 7.0 on): timings measured by different methods
 * are not like-for-like, counts are.  A row whose sides differ in method,
 * or a side whose rounds do, says so and its timings get no verdict.
 */
static void method_check(const struct fb_cmp *c, struct fb_row *row)
{
	int n[2];

	for (int s = 0; s < 2; s++)
		n[s] = side_methods(c, row, s, row->method[s], sizeof(row->method[s]));
	if (!n[0] || !n[1] ||
	    (n[0] == 1 && n[1] == 1 && !strcmp(row->method[0], row->method[1])))
		return;
	row->method_differs = 1;
	note_add(row, "method differs: base %s%s, new %s%s (timings not comparable, counts are)",
		 n[0] > 1 ? "mixed " : "", row->method[0], n[1] > 1 ? "mixed " : "",
		 row->method[1]);
	timings_incomparable(row);
}

static int build_probe(struct fb_cmp *c, const struct fb_probe_result *p0)
{
	struct fb_metric *m[FB_CMP_MAX_METRICS] = { 0 };
	enum fb_row_kind kind;
	struct fb_row *row;

	if (p0->kind == FB_FUNC || (p0->kind == FB_CALLSITE && find_stat(p0, "latency", 0)))
		kind = FB_ROW_FUNC;
	else if (p0->kind == FB_LOCK)
		kind = FB_ROW_LOCK;
	else
		kind = FB_ROW_OTHER;
	row = new_row(c, kind, p0->name);
	if (!row)
		return -1;
	snprintf(row->pkind, sizeof(row->pkind), "%s", fb_kind_name(p0->kind));
	row->observer = !strcmp(p0->series, "-");
	snprintf(row->gate, sizeof(row->gate), "%s", p0->gate);
	probe_metrics(row, p0, m);
	method_check(c, row);	/* first: other notes can fill the note's room */
	for (int s = 0; s < 2; s++) {
		const char *why = "";
		int used = side_rounds(c, row, m, s, probe_round, p0, &why);

		if (!used)
			note_add(row, "not attached in %s: %s", side_of(c, s)->name,
				 why[0] ? why : "unknown");
		else if (used < side_of(c, s)->n)
			note_add(row, "attached in %d of %d rounds of %s", used, side_of(c, s)->n,
				 side_of(c, s)->name);
	}
	for (int i = 0; i < row->nm; i++)
		fb_metric_decide(c, row->m[i]);
	return 0;
}

static void workload_round(const struct fb_row *row, struct fb_metric **m, int s,
			   const void *item, const struct fb_result *round, const void *first)
{
	const struct fb_workload_result *w = item;

	push(m[0], s, (double)w->wall_ns);
	for (int k = 1; k < row->nm; k++) {
		uint64_t v;

		if (fb_count_get(&w->ops, m[k]->name + 4, &v) == 0)
			push(m[k], s, (double)v);
	}
}

/*
 * A workload's wall time has the observer's cost in it: when a probe row's
 * method differs between the sides, the wall was measured with another
 * observer, so it is no more comparable than that row's timings.  The
 * workload row's methods name the first such row ("row:method").
 */
static void observer_check(const struct fb_cmp *c, struct fb_row *row)
{
	const struct fb_row *first = NULL;
	int n = 0;

	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].method_differs && !n++)
			first = &c->rows[i];
	if (!first)
		return;
	for (int s = 0; s < 2; s++)
		snprintf(row->method[s], sizeof(row->method[s]), "%.30s:%.16s", first->name,
			 first->method[s]);
	row->method_differs = 1;
	note_add(row, "observer differs: %d probe row%s by another method (%s: base %s, new %s); "
		 "wall not comparable", n, n > 1 ? "s" : "", first->name, first->method[0],
		 first->method[1]);
	timings_incomparable(row);
}

static int build_workload(struct fb_cmp *c, const struct fb_workload_result *w0)
{
	struct fb_row *row = new_row(c, FB_ROW_WORKLOAD, w0->name);

	if (!row)
		return -1;
	new_metric(row, "wall", "ns", FB_M_NOISY, 1);
	row->primary = 0;
	for (int k = 0; k < w0->ops.n; k++) {
		char nm[sizeof(row->m[0]->name)];

		/* the whole name: a cut one finds no op in the rounds (fb_count_get) */
		snprintf(nm, sizeof(nm), "ops.%.39s", w0->ops.v[k].name);
		new_metric(row, nm, "count", FB_M_COUNT, -1);
	}
	observer_check(c, row);
	for (int s = 0; s < 2; s++) {
		const char *why = "";
		int bad = side_of(c, s)->n - side_rounds(c, row, row->m, s, workload_round, w0, &why);

		if (bad)
			note_add(row, "not ok in %d of %d rounds of %s%s%s", bad, side_of(c, s)->n,
				 side_of(c, s)->name, why[0] ? ": " : "", why);
	}
	for (int i = 0; i < row->nm; i++)
		fb_metric_decide(c, row->m[i]);
	return 0;
}

static int build_contention(struct fb_cmp *c)
{
	const struct fb_side *sd[2] = { &c->base, &c->new };
	char names[MAX_CONT_LOCKS][64];
	int n = 0;

	for (int s = 0; s < 2; s++)
		for (int i = 0; i < sd[s]->n; i++)
			for (int k = 0; k < sd[s]->r[i]->ncontention; k++) {
				const char *l = sd[s]->r[i]->contention[k].lock;
				int j;

				for (j = 0; j < n; j++)
					if (!strcmp(names[j], l))
						break;
				if (j == n && n < MAX_CONT_LOCKS)
					snprintf(names[n++], sizeof(names[0]), "%s", l);
			}
	for (int j = 0; j < n; j++) {
		struct fb_row *row = new_row(c, FB_ROW_CONTENTION, names[j]);
		struct fb_metric *wait, *cnt;

		if (!row)
			return -1;
		wait = new_metric(row, "wait", "ns", FB_M_NOISY, 1);
		cnt = new_metric(row, "contentions", "count", FB_M_COUNT, 1);
		row->primary = 0;
		for (int s = 0; s < 2; s++)
			for (int i = 0; i < sd[s]->n; i++) {
				double w = 0, k = 0;

				for (int e = 0; e < sd[s]->r[i]->ncontention; e++) {
					const struct fb_contention *ct = &sd[s]->r[i]->contention[e];

					if (strcmp(ct->lock, names[j]))
						continue;
					w += (double)ct->wait_ns;
					k += (double)ct->count;
				}
				push(wait, s, w);
				push(cnt, s, k);
			}
		fb_metric_decide(c, wait);
		fb_metric_decide(c, cnt);
	}
	return 0;
}

static int build_extra(struct fb_cmp *c)
{
	const struct fb_side *sd[2] = { &c->base, &c->new };
	const struct fb_result *r0 = c->base.r[0];

	for (int k = 0; k < r0->nextra; k++) {
		struct fb_row *row = new_row(c, FB_ROW_EXTRA, r0->extra[k].key);
		struct fb_metric *m;

		if (!row)
			return -1;
		m = new_metric(row, "value", "", FB_M_COUNT, -1);
		for (int s = 0; s < 2; s++)
			for (int i = 0; i < sd[s]->n; i++)
				for (int e = 0; e < sd[s]->r[i]->nextra; e++)
					if (!strcmp(sd[s]->r[i]->extra[e].key, r0->extra[k].key)) {
						push(m, s, sd[s]->r[i]->extra[e].val);
						break;
					}
		fb_metric_decide(c, m);
	}
	return 0;
}

int fb_cmp_build(struct fb_cmp *c, char *err, size_t errlen)
{
	const struct fb_result *r0;

	if (fb_cmp_validate(c, err, errlen))
		return -1;
	c->rows = fb_calloc_err(MAX_ROWS, sizeof(*c->rows), err, errlen);
	if (!c->rows)
		return -1;
	r0 = c->base.r[0];
	for (int i = 0; i < r0->nprobes; i++)
		if (build_probe(c, &r0->probes[i]))
			goto oom;
	for (int i = 0; i < r0->nworkloads; i++)
		if (build_workload(c, &r0->workloads[i]))
			goto oom;
	if (build_contention(c) || build_extra(c))
		goto oom;
	for (int i = 0; i < c->nrows; i++)
		for (int k = 0; k < c->rows[i].nm; k++)
			if (!c->rows[i].m[k])
				goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory or too many rows");
	return -1;
}

void fb_cmp_rows_free(struct fb_cmp *c)
{
	for (int i = 0; i < c->nrows; i++)
		for (int k = 0; k < c->rows[i].nm; k++)
			free(c->rows[i].m[k]);
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}

static void side_first(struct fb_side *s, int n)
{
	if (s->nall < s->n)
		s->nall = s->n;
	s->n = n > 0 && n < s->nall ? n : s->nall;
}

int fb_cmp_first_rounds(struct fb_cmp *c, int n, char *err, size_t errlen)
{
	side_first(&c->base, n);
	side_first(&c->new, n);
	fb_cmp_rows_free(c);
	return fb_cmp_build(c, err, errlen);
}

int fb_cmp_icount(const struct fb_cmp *c)
{
	return c->base.n && c->base.r[0]->host.clock == FB_CLOCK_ICOUNT;
}

void fb_cmp_free(struct fb_cmp *c)
{
	fb_cmp_rows_free(c);
	fb_side_free(&c->base);
	fb_side_free(&c->new);
}

