// SPDX-License-Identifier: GPL-2.0
/*
 * history_metrics.c - the metrics of one round, named as compare names
 * them ("kind:row:metric"), so a metric in `history` and in `compare`
 * output is the same thing measured the same way.  A probe row's metrics
 * carry the row's method ("fentry", "fsession", "lock_stat", ...), the
 * others "": the history keeps one series per method (docs/history.md).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/history/history_metrics.h"

typedef void (*emit_fn)(void *ctx, const char *metric, const char *method, const char *unit,
			double v);

const char *const fb_hist_default_globs[] = {
	"func:*:mean", "func:*:p50", "lock:*:wait_mean", "lock:*:hold_mean", "workload:*:wall",
};
const int fb_hist_ndefault_globs = sizeof(fb_hist_default_globs) / sizeof(fb_hist_default_globs[0]);

static const struct fb_hist *find_stat(const struct fb_probe_result *p, const char *name, int any)
{
	for (int i = 0; i < p->nstats; i++)
		if (!strcmp(p->stats[i].name, name))
			return &p->stats[i].h;
	return any && p->nstats ? &p->stats[0].h : NULL;
}

/* A metric of a workload, contention or extra: no probe measured it, method "". */
static void put(emit_fn emit, void *ctx, const char *kind, const char *row, const char *m,
		const char *unit, double v)
{
	char name[160];

	snprintf(name, sizeof(name), "%s:%s:%s", kind, row, m);
	emit(ctx, name, "", unit, v);
}

/* A metric of probe row p, with the method that measured it. */
static void pput(emit_fn emit, void *ctx, const char *kind, const struct fb_probe_result *p,
		 const char *m, const char *unit, double v)
{
	char name[160];

	snprintf(name, sizeof(name), "%s:%s:%s", kind, p->name, m);
	emit(ctx, name, p->method, unit, v);
}

static void func_metrics(const struct fb_probe_result *p, emit_fn emit, void *ctx)
{
	const struct fb_hist *h = find_stat(p, "latency", 1), *c = find_stat(p, "calls", 0);

	if (!h)
		return;
	/* the plugin's rows count calls apart: some are not timed (tail calls) */
	pput(emit, ctx, "func", p, "calls", "count", (double)(c ? c->count : h->count));
	pput(emit, ctx, "func", p, "total", "ns", (double)h->sum);
	if (!h->count)
		return;
	pput(emit, ctx, "func", p, "mean", "ns", fb_hist_mean(h));
	pput(emit, ctx, "func", p, "p50", "ns", fb_hist_percentile(h, 50));
	pput(emit, ctx, "func", p, "p90", "ns", fb_hist_percentile(h, 90));
	pput(emit, ctx, "func", p, "p99", "ns", fb_hist_percentile(h, 99));
}

static void lock_metrics(const struct fb_probe_result *p, emit_fn emit, void *ctx)
{
	const struct fb_hist *w = find_stat(p, "wait", 0), *h = find_stat(p, "hold", 0);

	if (w || h)
		pput(emit, ctx, "lock", p, "acquisitions", "count",
		     (double)(h ? h->count : w->count));
	if (w) {
		pput(emit, ctx, "lock", p, "wait_total", "ns", (double)w->sum);
		if (w->count)
			pput(emit, ctx, "lock", p, "wait_mean", "ns", fb_hist_mean(w));
	}
	if (!h)
		return;
	pput(emit, ctx, "lock", p, "hold_total", "ns", (double)h->sum);
	if (h->count)
		pput(emit, ctx, "lock", p, "hold_mean", "ns", fb_hist_mean(h));
	if (h->count && fb_hist_percentile(h, 100) > 0)
		pput(emit, ctx, "lock", p, "hold_p99", "ns", fb_hist_percentile(h, 99));
}

static void other_metrics(const struct fb_probe_result *p, emit_fn emit, void *ctx)
{
	for (int i = 0; i < p->nstats && i < FB_MAX_STATS; i++) {
		const struct fb_hist *h = &p->stats[i].h;
		const char *unit = h->unit[0] ? h->unit : "ns";
		char m[24];

		snprintf(m, sizeof(m), "%.15s_count", p->stats[i].name);
		pput(emit, ctx, "probe", p, m, "count", (double)h->count);
		if (!h->count)
			continue;
		snprintf(m, sizeof(m), "%.15s_mean", p->stats[i].name);
		pput(emit, ctx, "probe", p, m, unit, fb_hist_mean(h));
		snprintf(m, sizeof(m), "%.15s_p99", p->stats[i].name);
		pput(emit, ctx, "probe", p, m, unit, fb_hist_percentile(h, 99));
	}
}

static void contention_metrics(const struct fb_result *r, emit_fn emit, void *ctx)
{
	for (int i = 0; i < r->ncontention; i++) {
		double w = 0, n = 0;
		int seen = 0;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(r->contention[j].lock, r->contention[i].lock);
		if (seen)
			continue;
		for (int j = i; j < r->ncontention; j++)
			if (!strcmp(r->contention[j].lock, r->contention[i].lock)) {
				w += (double)r->contention[j].wait_ns;
				n += (double)r->contention[j].count;
			}
		put(emit, ctx, "contention", r->contention[i].lock, "wait", "ns", w);
		put(emit, ctx, "contention", r->contention[i].lock, "contentions", "count", n);
	}
}

void fb_hist_metrics(const struct fb_result *r, emit_fn emit, void *ctx)
{
	for (int i = 0; i < r->nprobes; i++) {
		const struct fb_probe_result *p = &r->probes[i];

		if (p->status != FB_ATTACHED)
			continue;
		if (p->kind == FB_FUNC || (p->kind == FB_CALLSITE && find_stat(p, "latency", 0)))
			func_metrics(p, emit, ctx);
		else if (p->kind == FB_LOCK)
			lock_metrics(p, emit, ctx);
		else
			other_metrics(p, emit, ctx);
	}
	for (int i = 0; i < r->nworkloads; i++) {
		const struct fb_workload_result *w = &r->workloads[i];

		if (w->status != FB_WL_OK)
			continue;
		put(emit, ctx, "workload", w->name, "wall", "ns", (double)w->wall_ns);
		for (int k = 0; k < w->ops.n; k++) {
			char m[48];

			snprintf(m, sizeof(m), "ops.%s", w->ops.v[k].name);
			put(emit, ctx, "workload", w->name, m, "count", (double)w->ops.v[k].val);
		}
	}
	contention_metrics(r, emit, ctx);
	for (int i = 0; i < r->nextra; i++)
		put(emit, ctx, "extra", r->extra[i].key, "value", "", r->extra[i].val);
}

int fb_hist_metric_direction(const char *metric, const char *unit)
{
	return strcmp(unit, "ns") ? -1 : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void fb_hist_params(const struct fb_result *r, char *buf, size_t len)
{
	const char *v[32];
	size_t off = 0;
	int n = r->nparams < 32 ? r->nparams : 32;

	for (int i = 0; i < n; i++)
		v[i] = r->params[i];
	qsort(v, (size_t)n, sizeof(v[0]), cmp_str);
	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", v[i]);
}
