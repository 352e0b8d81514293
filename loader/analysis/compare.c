// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - `foliobench compare BASE NEW` and the comparison model that
 * report.c and gate.c share (compare.h).  Design: docs/compare.md.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/compare.h"

#define MAX_CONT_LOCKS	64
#define MAX_ROWS	512

/* ---- number formatting ---- */

void fb_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);

	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (a < 1e3)
		snprintf(buf, len, "%.1f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

void fb_fmt_count(double v, char *buf, size_t len)
{
	char tmp[48], *o = buf;
	int n, lead;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (v != floor(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, fabs(v) < 10 ? "%.3f" : "%.1f", v);
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.0f", fabs(v));
	if (len < (size_t)n + (size_t)n / 3 + 2) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	if (v < 0)
		*o++ = '-';
	lead = n % 3 ? n % 3 : 3;
	for (int i = 0; i < n; i++) {
		if (i && (i - lead) % 3 == 0)
			*o++ = ',';
		*o++ = tmp[i];
	}
	*o = '\0';
}

void fb_fmt_pct(double pct, char *buf, size_t len)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (isinf(pct))
		snprintf(buf, len, "%s", pct > 0 ? "+inf" : "-inf");
	else
		snprintf(buf, len, "%+.1f%%", pct);
}

/* ---- loading a side ---- */

static int add_file(struct fb_side *s, const char *path)
{
	char **f;

	if (s->n >= FB_CMP_MAX_ROUNDS)
		return -1;
	f = realloc(s->files, sizeof(*f) * (size_t)(s->n + 1));
	if (!f)
		return -1;
	s->files = f;
	s->files[s->n] = strdup(path);
	if (!s->files[s->n])
		return -1;
	s->n++;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Collects *.json below dir (not ab.json, the ab run's own summary). */
static int scan_dir(struct fb_side *s, const char *dir, int depth, char *err, size_t errlen)
{
	struct dirent **ents;
	int n, ret = 0;

	if (depth > 8)
		return 0;
	n = scandir(dir, &ents, NULL, versionsort);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char p[1024];
		struct stat st;
		const char *nm = ents[i]->d_name;

		if (ret || nm[0] == '.')
			goto next;
		if (snprintf(p, sizeof(p), "%s/%s", dir, nm) >= (int)sizeof(p))
			goto next;
		if (stat(p, &st))
			goto next;
		if (S_ISDIR(st.st_mode)) {
			ret = scan_dir(s, p, depth + 1, err, errlen);
		} else if (S_ISREG(st.st_mode) && ends_with(nm, ".json") && strcmp(nm, "ab.json")) {
			if (add_file(s, p)) {
				snprintf(err, errlen, "%s: more than %d results files", dir,
					 FB_CMP_MAX_ROUNDS);
				ret = -1;
			}
		}
next:
		free(ents[i]);
	}
	free(ents);
	return ret;
}

void fb_side_free(struct fb_side *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->files ? s->files[i] : NULL);
		free(s->r ? s->r[i] : NULL);
	}
	free(s->files);
	free(s->r);
	s->files = NULL;
	s->r = NULL;
	s->n = 0;
}

int fb_side_load(struct fb_side *s, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char e[400];
	const char *base;
	size_t l;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (scan_dir(s, path, 0, err, errlen))
			return -1;
		if (!s->n) {
			snprintf(err, errlen, "%s: no *.json results files in this directory", path);
			return -1;
		}
	} else if (add_file(s, path)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->r = calloc((size_t)s->n, sizeof(*s->r));
	if (!s->r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < s->n; i++) {
		s->r[i] = fb_result_load(s->files[i], e, sizeof(e));
		if (!s->r[i]) {
			snprintf(err, errlen, "%s", e);
			return -1;
		}
	}
	/* name: directory name, else the arm the kernel was booted as */
	l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	base = path;
	for (size_t i = 0; i < l; i++)
		if (path[i] == '/' && i + 1 < l)
			base = path + i + 1;
	if (S_ISDIR(st.st_mode)) {
		const char *arm = s->r[0]->host.arm;

		for (int i = 1; i < s->n && arm[0]; i++)
			if (strcmp(s->r[i]->host.arm, arm))
				arm = "";
		/* an ab arm directory booted as another arm: "patched (regress)" */
		if (arm[0] && (strlen(arm) != l - (size_t)(base - path) ||
			       strncmp(arm, base, strlen(arm))))
			snprintf(s->name, sizeof(s->name), "%.*s (%.24s)",
				 (int)(l - (size_t)(base - path) > 32 ? 32 : l - (size_t)(base - path)),
				 base, arm);
		else
			snprintf(s->name, sizeof(s->name), "%.*s", (int)(l - (size_t)(base - path)),
				 base);
	}
	else if (s->r[0]->host.arm[0])
		snprintf(s->name, sizeof(s->name), "%s", s->r[0]->host.arm);
	else
		snprintf(s->name, sizeof(s->name), "%.*s", (int)(l - (size_t)(base - path) -
			 (ends_with(path, ".json") ? 5 : 0)), base);
	return 0;
}

/* ---- validation: same probes and workloads everywhere ---- */

static const char *short_path(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Names in x missing from y, as one message; 0 if x is a subset of y. */
static int check_subset(const struct fb_result *x, const struct fb_result *y,
			const char *xn, const char *yn, char *err, size_t errlen)
{
	for (int i = 0; i < x->nprobes; i++) {
		const struct fb_probe_result *p = fb_result_probe(y, x->probes[i].name);

		if (!p) {
			snprintf(err, errlen, "mismatched probe sets: probe '%s' is in %s but not in %s",
				 x->probes[i].name, xn, yn);
			return -1;
		}
		if (p->kind != x->probes[i].kind) {
			snprintf(err, errlen, "mismatched probes: '%s' is a %s probe in %s but a %s probe in %s",
				 p->name, fb_kind_name(x->probes[i].kind), xn, fb_kind_name(p->kind), yn);
			return -1;
		}
	}
	for (int i = 0; i < x->nworkloads; i++)
		if (!fb_result_workload(y, x->workloads[i].name)) {
			snprintf(err, errlen, "mismatched workloads: '%s' is in %s but not in %s",
				 x->workloads[i].name, xn, yn);
			return -1;
		}
	return 0;
}

static int check_pair(const struct fb_result *x, const struct fb_result *y,
		      const char *xn, const char *yn, char *err, size_t errlen)
{
	if (check_subset(x, y, xn, yn, err, errlen) || check_subset(y, x, yn, xn, err, errlen))
		return -1;
	return 0;
}

static int validate(const struct fb_cmp *c, char *err, size_t errlen)
{
	const struct fb_side *sd[2] = { &c->base, &c->new };
	char xn[300], yn[300];

	for (int s = 0; s < 2; s++)
		for (int i = 1; i < sd[s]->n; i++) {
			snprintf(xn, sizeof(xn), "%s", sd[s]->files[0]);
			snprintf(yn, sizeof(yn), "%s", sd[s]->files[i]);
			if (check_pair(sd[s]->r[0], sd[s]->r[i], xn, yn, err, errlen))
				return -1;
		}
	snprintf(xn, sizeof(xn), "BASE (%s)", c->base.n > 1 ? c->base.path : short_path(c->base.files[0]));
	snprintf(yn, sizeof(yn), "NEW (%s)", c->new.n > 1 ? c->new.path : short_path(c->new.files[0]));
	if (check_pair(c->base.r[0], c->new.r[0], xn, yn, err, errlen))
		return -1;
	if (!c->base.r[0]->nprobes && !c->base.r[0]->nworkloads && !c->base.r[0]->ncontention) {
		snprintf(err, errlen, "nothing to compare: the results hold no probes, workloads or contention");
		return -1;
	}
	return 0;
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

static int all_equal(const double *v, int n, double rel)
{
	for (int i = 1; i < n; i++)
		if (fabs(v[i] - v[0]) > rel * fmax(fabs(v[0]), 1e-300))
			return 0;
	return 1;
}

/* Op counters of one round as "workload.op" = value; -1 if absent. */
static double round_op(const struct fb_result *r, const char *id)
{
	const char *dot = strchr(id, '.');

	if (!dot)
		return -1;
	for (int i = 0; i < r->nworkloads; i++) {
		const struct fb_workload_result *w = &r->workloads[i];
		uint64_t v;

		if (strncmp(w->name, id, (size_t)(dot - id)) || w->name[dot - id])
			continue;
		if (fb_count_get(&w->ops, dot + 1, &v) == 0)
			return (double)v;
	}
	return -1;
}

/*
 * A count per round is deterministic if it is the same in every round of
 * a side, or if its ratio to some op counter of the workloads is (e.g.
 * nft_trans_alloc calls per nft.trans_objects when the number of objects
 * varies).  Deterministic counts are compared exactly; others as noisy.
 */
static void decide_count(const struct fb_cmp *c, struct fb_metric *m)
{
	int neutral = m->lower_is_better < 0;

	m->base = fb_median(m->a, m->na);
	m->new = fb_median(m->b, m->nb);
	memset(&m->st, 0, sizeof(m->st));
	m->st.na = m->na;
	m->st.nb = m->nb;
	m->st.ci_lo = m->st.ci_hi = NAN;
	if (!m->na || !m->nb) {
		m->v = FB_V_NA;
		return;
	}
	if (all_equal(m->a, m->na, 0) && all_equal(m->b, m->nb, 0)) {
		m->deterministic = m->na >= 2 && m->nb >= 2;
		goto exact;
	}
	/* per op: only if every round contributed, so indices line up */
	if (m->na == c->base.n && m->nb == c->new.n) {
		const struct fb_result *r0 = c->base.r[0];

		for (int w = 0; w < r0->nworkloads; w++)
			for (int k = 0; k < r0->workloads[w].ops.n; k++) {
				char id[80];
				double ra[FB_CMP_MAX_ROUNDS] = { 0 }, rb[FB_CMP_MAX_ROUNDS] = { 0 };
				int ok = 1;

				snprintf(id, sizeof(id), "%s.%s", r0->workloads[w].name,
					 r0->workloads[w].ops.v[k].name);
				for (int i = 0; i < m->na && ok; i++) {
					double o = round_op(c->base.r[i], id);

					ok = o > 0;
					ra[i] = ok ? m->a[i] / o : 0;
				}
				for (int i = 0; i < m->nb && ok; i++) {
					double o = round_op(c->new.r[i], id);

					ok = o > 0;
					rb[i] = ok ? m->b[i] / o : 0;
				}
				if (!ok || !all_equal(ra, m->na, 1e-9) || !all_equal(rb, m->nb, 1e-9))
					continue;
				snprintf(m->per, sizeof(m->per), "%.47s", id);
				m->deterministic = m->na >= 2 && m->nb >= 2;
				m->base = ra[0];
				m->new = rb[0];
				goto exact;
			}
	}
	m->v = fb_verdict_noisy(m->a, m->na, m->b, m->nb, c->alpha, c->min_effect,
				neutral ? 1 : m->lower_is_better, &m->st);
	if (neutral && (m->v == FB_V_IMPROVED || m->v == FB_V_REGRESSED))
		m->v = FB_V_CHANGED;
	return;
exact:
	m->st.med_a = m->base;
	m->st.med_b = m->new;
	m->st.delta_pct = m->base ? (m->new / m->base - 1) * 100 : m->new ? INFINITY : 0;
	if (m->base == m->new)
		m->v = FB_V_NOCHANGE;
	else
		m->v = m->deterministic ? FB_V_CHANGED : FB_V_INCONCLUSIVE;
}

static void decide(const struct fb_cmp *c, struct fb_metric *m)
{
	int neutral = m->lower_is_better < 0;

	if (m->type == FB_M_COUNT) {
		decide_count(c, m);
		return;
	}
	m->v = fb_verdict_noisy(m->a, m->na, m->b, m->nb, c->alpha, c->min_effect,
				neutral ? 1 : m->lower_is_better, &m->st);
	if (neutral && (m->v == FB_V_IMPROVED || m->v == FB_V_REGRESSED))
		m->v = FB_V_CHANGED;
	m->base = m->st.med_a;
	m->new = m->st.med_b;
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

static int build_probe(struct fb_cmp *c, const struct fb_probe_result *p0)
{
	const struct fb_side *sd[2] = { &c->base, &c->new };
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
	if (kind == FB_ROW_FUNC) {
		m[0] = new_metric(row, "calls", "count", FB_M_COUNT, -1);
		m[1] = new_metric(row, "total", "ns", FB_M_NOISY, 1);
		m[2] = new_metric(row, "mean", "ns", FB_M_NOISY, 1);
		m[3] = new_metric(row, "p50", "ns", FB_M_NOISY, 1);
		m[4] = new_metric(row, "p90", "ns", FB_M_NOISY, 1);
		m[5] = new_metric(row, "p99", "ns", FB_M_NOISY, 1);
		row->primary = 2;
	} else if (kind == FB_ROW_LOCK) {
		m[0] = new_metric(row, "acquisitions", "count", FB_M_COUNT, 1);
		m[1] = new_metric(row, "wait_total", "ns", FB_M_NOISY, 1);
		m[2] = new_metric(row, "wait_mean", "ns", FB_M_NOISY, 1);
		m[3] = new_metric(row, "hold_mean", "ns", FB_M_NOISY, 1);
		m[4] = new_metric(row, "hold_p99", "ns", FB_M_NOISY, 1);
		m[5] = new_metric(row, "hold_total", "ns", FB_M_NOISY, 1);
		m[6] = new_metric(row, "contentions", "count", FB_M_COUNT, 1);
		row->primary = 3;
	} else {
		for (int i = 0; i < p0->nstats && i < FB_MAX_STATS; i++) {
			char nm[24];

			snprintf(nm, sizeof(nm), "%.15s_count", p0->stats[i].name);
			m[3 * i] = new_metric(row, nm, "count", FB_M_COUNT, -1);
			const char *unit = p0->stats[i].h.unit[0] ? p0->stats[i].h.unit : "ns";
			int lower = strcmp(unit, "ns") ? -1 : 1;	/* sizes: no better direction */

			snprintf(nm, sizeof(nm), "%.15s_mean", p0->stats[i].name);
			m[3 * i + 1] = new_metric(row, nm, unit, FB_M_NOISY, lower);
			snprintf(nm, sizeof(nm), "%.15s_p99", p0->stats[i].name);
			m[3 * i + 2] = new_metric(row, nm, unit, FB_M_NOISY, lower);
		}
		row->primary = row->nm > 1 ? 1 : 0;
	}
	for (int s = 0; s < 2; s++) {
		int attached = 0;
		const char *why = "";

		for (int i = 0; i < sd[s]->n; i++) {
			const struct fb_probe_result *p = fb_result_probe(sd[s]->r[i], p0->name);

			if (!p || p->status != FB_ATTACHED) {
				if (p && p->reason[0])
					why = p->reason;
				else if (p)
					why = fb_probe_status_name(p->status);
				continue;
			}
			attached++;
			if (kind == FB_ROW_FUNC) {
				const struct fb_hist *h = find_stat(p, "latency", 1);

				if (!h)
					continue;
				push(m[0], s, (double)h->count);
				push(m[1], s, (double)h->sum);
				if (!h->count)
					continue;
				push(m[2], s, fb_hist_mean(h));
				push(m[3], s, fb_hist_percentile(h, 50));
				push(m[4], s, fb_hist_percentile(h, 90));
				push(m[5], s, fb_hist_percentile(h, 99));
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
				else if (contention_on(sd[s]->r[i]))
					push(m[6], s, contentions_of(sd[s]->r[i], p0->name));
				if (h) {
					push(m[5], s, (double)h->sum);
					if (h->count)
						push(m[3], s, fb_hist_mean(h));
					/* lock_stat rows have no distribution */
					if (h->count && fb_hist_percentile(h, 100) > 0)
						push(m[4], s, fb_hist_percentile(h, 99));
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
		if (!attached)
			note_add(row, "not attached in %s: %s", sd[s]->name, why[0] ? why : "unknown");
		else if (attached < sd[s]->n)
			note_add(row, "attached in %d of %d rounds of %s", attached, sd[s]->n, sd[s]->name);
	}
	for (int i = 0; i < row->nm; i++)
		decide(c, row->m[i]);
	return 0;
}

static int build_workload(struct fb_cmp *c, const struct fb_workload_result *w0)
{
	const struct fb_side *sd[2] = { &c->base, &c->new };
	struct fb_row *row = new_row(c, FB_ROW_WORKLOAD, w0->name);
	struct fb_metric *wall;

	if (!row)
		return -1;
	wall = new_metric(row, "wall", "ns", FB_M_NOISY, 1);
	row->primary = 0;
	for (int k = 0; k < w0->ops.n; k++) {
		char nm[24];

		snprintf(nm, sizeof(nm), "ops.%.19s", w0->ops.v[k].name);
		new_metric(row, nm, "count", FB_M_COUNT, -1);
	}
	for (int s = 0; s < 2; s++) {
		int bad = 0;
		const char *why = "";

		for (int i = 0; i < sd[s]->n; i++) {
			const struct fb_workload_result *w = fb_result_workload(sd[s]->r[i], w0->name);

			if (!w || w->status != FB_WL_OK) {
				bad++;
				if (w)
					why = w->reason[0] ? w->reason : fb_wl_status_name(w->status);
				continue;
			}
			push(wall, s, (double)w->wall_ns);
			for (int k = 1; k < row->nm; k++) {
				uint64_t v;

				if (fb_count_get(&w->ops, row->m[k]->name + 4, &v) == 0)
					push(row->m[k], s, (double)v);
			}
		}
		if (bad)
			note_add(row, "not ok in %d of %d rounds of %s%s%s", bad, sd[s]->n,
				 sd[s]->name, why[0] ? ": " : "", why);
	}
	for (int i = 0; i < row->nm; i++)
		decide(c, row->m[i]);
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
		decide(c, wait);
		decide(c, cnt);
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
		decide(c, m);
	}
	return 0;
}

int fb_cmp_build(struct fb_cmp *c, char *err, size_t errlen)
{
	const struct fb_result *r0;

	if (validate(c, err, errlen))
		return -1;
	c->rows = calloc(MAX_ROWS, sizeof(*c->rows));
	if (!c->rows) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
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

void fb_cmp_free(struct fb_cmp *c)
{
	for (int i = 0; i < c->nrows; i++)
		for (int k = 0; k < c->rows[i].nm; k++)
			free(c->rows[i].m[k]);
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
	fb_side_free(&c->base);
	fb_side_free(&c->new);
}

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int fb_cmp_open(struct fb_cmp *c, int npaths, char **paths,
		const char *base_arm, const char *new_arm,
		double alpha, double min_effect, char *err, size_t errlen)
{
	char bp[600], np[600];

	memset(c, 0, sizeof(*c));
	c->alpha = alpha;
	c->min_effect = min_effect;
	if (npaths == 1) {
		if (!is_dir(paths[0])) {
			snprintf(err, errlen, "%s: not a directory (give an ab directory, or BASE NEW)",
				 paths[0]);
			return -1;
		}
		snprintf(bp, sizeof(bp), "%s/%s", paths[0], base_arm ? base_arm : "baseline");
		snprintf(np, sizeof(np), "%s/%s", paths[0], new_arm ? new_arm : "patched");
		if (!is_dir(bp) || !is_dir(np)) {
			snprintf(err, errlen, "%s: expected arm directories %s/ and %s/ in it "
				 "(choose with --base-arm/--new-arm, or give BASE NEW)", paths[0],
				 base_arm ? base_arm : "baseline", new_arm ? new_arm : "patched");
			return -1;
		}
	} else if (npaths == 2) {
		snprintf(bp, sizeof(bp), "%s", paths[0]);
		snprintf(np, sizeof(np), "%s", paths[1]);
	} else {
		snprintf(err, errlen, "expected BASE NEW, or one ab directory");
		return -1;
	}
	if (fb_side_load(&c->base, bp, err, errlen) || fb_side_load(&c->new, np, err, errlen))
		return -1;
	if (!strcmp(c->base.name, c->new.name)) {	/* A/A: keep the arms apart */
		snprintf(c->base.name, sizeof(c->base.name), "base");
		snprintf(c->new.name, sizeof(c->new.name), "new");
	}
	return fb_cmp_build(c, err, errlen);
}

/* ---- tables ---- */

#define TMAXC	12
#define TMAXR	(MAX_ROWS * 2)
#define TCELL	96

struct table {
	char title[200];
	int ncols, nrows;
	const char *hdr[TMAXC];
	int left[TMAXC];
	char (*cell)[TMAXC][TCELL];
	int *vclass;		/* verdict of the row, for HTML colours */
	int *group;		/* first row of an item: draws a rule in text */
};

static void t_init(struct table *t, const char *title, int ncols, const char *const *hdr, int nleft)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->title, sizeof(t->title), "%s", title);
	t->ncols = ncols;
	for (int i = 0; i < ncols; i++) {
		t->hdr[i] = hdr[i];
		t->left[i] = i < nleft || !strcmp(hdr[i], "Verdict");
	}
	t->cell = calloc(TMAXR, sizeof(*t->cell));
	t->vclass = calloc(TMAXR, sizeof(int));
	t->group = calloc(TMAXR, sizeof(int));
}

static void t_free(struct table *t)
{
	free(t->cell);
	free(t->vclass);
	free(t->group);
}

static char (*t_row(struct table *t, int group, int vclass))[TCELL]
{
	if (!t->cell || !t->vclass || !t->group || t->nrows >= TMAXR)
		return NULL;
	t->group[t->nrows] = group;
	t->vclass[t->nrows] = vclass;
	return t->cell[t->nrows++];
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void fb_html_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static const char *vclass_name(int v)
{
	switch (v) {
	case FB_V_IMPROVED: return "improved";
	case FB_V_REGRESSED: return "regressed";
	case FB_V_CHANGED: return "changed";
	case FB_V_INCONCLUSIVE: return "inconclusive";
	case FB_V_NOCHANGE: return "nochange";
	default: return "na";
	}
}

/* One aligned text line, without trailing blanks. */
static void t_line(FILE *f, const struct table *t, const char *const *cells, const int *w)
{
	char line[TMAXC * (TCELL + 2) + 2];
	size_t o = 0, len;

	for (int c = 0; c < t->ncols; c++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%*s", c ? "  " : "",
				      t->left[c] ? -w[c] : w[c], cells[c]);
	len = strlen(line);
	while (len && line[len - 1] == ' ')
		line[--len] = '\0';
	fprintf(f, "%s\n", line);
}

static void t_print(FILE *f, const struct table *t, enum fb_fmt fmt)
{
	int w[TMAXC] = { 0 }, total = 0;

	if (!t->nrows)
		return;
	if (fmt == FB_FMT_MD) {
		fprintf(f, "### %s\n\n|", t->title);
		for (int c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			md_cell(f, t->hdr[c]);
			fputs(" |", f);
		}
		fputs("\n|", f);
		for (int c = 0; c < t->ncols; c++)
			fputs(t->left[c] ? ":---|" : "---:|", f);
		fputc('\n', f);
		for (int r = 0; r < t->nrows; r++) {
			fputc('|', f);
			for (int c = 0; c < t->ncols; c++) {
				fputc(' ', f);
				md_cell(f, t->cell[r][c]);
				fputs(" |", f);
			}
			fputc('\n', f);
		}
		fputc('\n', f);
		return;
	}
	if (fmt == FB_FMT_HTML) {
		fputs("<h3>", f);
		fb_html_esc(f, t->title);
		fputs("</h3>\n<table>\n<thead><tr>", f);
		for (int c = 0; c < t->ncols; c++) {
			fprintf(f, "<th%s>", t->left[c] ? " class=\"l\"" : "");
			fb_html_esc(f, t->hdr[c]);
			fputs("</th>", f);
		}
		fputs("</tr></thead>\n<tbody>\n", f);
		for (int r = 0; r < t->nrows; r++) {
			fprintf(f, "<tr class=\"v-%s%s\">", vclass_name(t->vclass[r]),
				t->group[r] ? " g" : "");
			for (int c = 0; c < t->ncols; c++) {
				fprintf(f, "<td%s>", t->left[c] ? " class=\"l\"" : "");
				fb_html_esc(f, t->cell[r][c]);
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
		return;
	}
	for (int c = 0; c < t->ncols; c++) {
		w[c] = (int)strlen(t->hdr[c]);
		for (int r = 0; r < t->nrows; r++)
			if ((int)strlen(t->cell[r][c]) > w[c])
				w[c] = (int)strlen(t->cell[r][c]);
		total += w[c] + (c ? 2 : 0);
	}
	fprintf(f, "%s\n", t->title);
	for (int i = 0; i < total; i++)
		fputc('-', f);
	fputc('\n', f);
	t_line(f, t, t->hdr, w);
	for (int i = 0; i < total; i++)
		fputc('-', f);
	fputc('\n', f);
	for (int r = 0; r < t->nrows; r++) {
		const char *cells[TMAXC];

		for (int c = 0; c < t->ncols; c++)
			cells[c] = t->cell[r][c];
		t_line(f, t, cells, w);
	}
	for (int i = 0; i < total; i++)
		fputc('-', f);
	fputs("\n\n", f);
}

/* "improved (p=0.0012, CI -21.0%..-17.9%)" */
static void verdict_str(const struct fb_metric *m, char *buf, size_t len)
{
	const char *v = fb_verdict_name(m->v);

	if (m->type == FB_M_COUNT && (m->deterministic || m->v == FB_V_NOCHANGE) &&
	    !m->st.have_mwu) {
		snprintf(buf, len, "%s%s", v, m->deterministic ? " (exact)" : "");
		return;
	}
	if (m->st.have_mwu && m->st.have_ci)
		snprintf(buf, len, "%s (p=%.2g, CI %+.1f%%..%+.1f%%)", v, m->st.mwu.p_two,
			 (m->st.ci_lo - 1) * 100, (m->st.ci_hi - 1) * 100);
	else if (m->st.have_mwu)
		snprintf(buf, len, "%s (p=%.2g)", v, m->st.mwu.p_two);
	else if (m->v == FB_V_INCONCLUSIVE && (m->na < 3 || m->nb < 3))
		snprintf(buf, len, "%s (%d+%d rounds)", v, m->na, m->nb);
	else
		snprintf(buf, len, "%s", v);
}

static void val_str(const struct fb_metric *m, int side, char *buf, size_t len)
{
	double v = side ? m->new : m->base;
	int n = side ? m->nb : m->na;

	if (!n) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (!strcmp(m->unit, "ns")) {
		fb_fmt_ns(v, buf, len);
	} else {
		char tmp[64];

		fb_fmt_count(v, tmp, sizeof(tmp));
		if (m->unit[0] && strcmp(m->unit, "count"))
			snprintf(buf, len, "%s %s", tmp, m->unit);
		else
			snprintf(buf, len, "%s", tmp);
	}
}

static void delta_str(const struct fb_metric *m, char *buf, size_t len)
{
	if (!m->na || !m->nb)
		snprintf(buf, len, "-");
	else
		fb_fmt_pct(m->st.delta_pct, buf, len);
}

/* one item, two arm lines: cols[] are metric indices or -1 for blank */
static void arm_rows(const struct fb_cmp *c, struct table *t, const struct fb_row *row,
		     const int *cols, int ncols)
{
	const struct fb_metric *pm = row->m[row->primary];

	if (!pm->na && !pm->nb)		/* unavailable on both sides: see the notes */
		return;
	for (int s = 0; s < 2; s++) {
		char (*cell)[TCELL] = t_row(t, !s, s ? (int)pm->v : FB_V_NA);

		if (!cell)
			return;
		snprintf(cell[0], TCELL, "%s", s ? "" : row->name);
		snprintf(cell[1], TCELL, "%s", s ? c->new.name : c->base.name);
		for (int k = 0; k < ncols; k++)
			if (cols[k] >= 0 && cols[k] < row->nm)
				val_str(row->m[cols[k]], s, cell[2 + k], TCELL);
		if (!s) {
			snprintf(cell[2 + ncols], TCELL, "Baseline");
		} else {
			delta_str(pm, cell[2 + ncols], TCELL);
			verdict_str(pm, cell[3 + ncols], TCELL);
		}
	}
}

/* "trans_objects=10,025 destroy_passes=5" for one arm */
static void ops_cell(const struct fb_row *row, int side, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int k = 0; k < row->nm && o + 1 < len; k++) {
		const struct fb_metric *m = row->m[k];
		char v[40];

		if (strncmp(m->name, "ops.", 4) || !(side ? m->nb : m->na))
			continue;
		fb_fmt_count(fb_median(side ? m->b : m->a, side ? m->nb : m->na), v, sizeof(v));
		o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", o ? " " : "", m->name + 4, v);
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

static void notes_print(FILE *f, enum fb_fmt fmt, const char *s)
{
	if (fmt == FB_FMT_HTML) {
		fputs("<p class=\"note\">", f);
		fb_html_esc(f, s);
		fputs("</p>\n", f);
	} else if (fmt == FB_FMT_MD) {
		fprintf(f, "- ");
		md_cell(f, s);
		fputc('\n', f);
	} else {
		fprintf(f, "  note: %s\n", s);
	}
}

/* a percentage from a fraction, empty when undefined */
static void csv_pct(FILE *f, double frac)
{
	if (isfinite(frac))
		fprintf(f, "%.3f", frac * 100);
}

static void print_csv(FILE *f, const struct fb_cmp *c)
{
	fputs("kind,name,metric,unit,type,base_rounds,new_rounds,base,new,delta_pct,"
	      "ratio_ci_lo,ratio_ci_hi,p_value,per_op,deterministic,verdict,"
	      "base_cv_pct,new_cv_pct\n", f);
	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];

		for (int k = 0; k < row->nm; k++) {
			const struct fb_metric *m = row->m[k];

			fprintf(f, "%s,", fb_row_kind_name(row->kind));
			csv_field(f, row->name);
			fprintf(f, ",%s,%s,%s,%d,%d,", m->name, m->unit,
				m->type == FB_M_COUNT ? "count" : "noisy", m->na, m->nb);
			if (m->na)
				fprintf(f, "%.6g", m->base);
			fputc(',', f);
			if (m->nb)
				fprintf(f, "%.6g", m->new);
			fputc(',', f);
			if (m->na && m->nb && isfinite(m->st.delta_pct))
				fprintf(f, "%.3f", m->st.delta_pct);
			fputc(',', f);
			if (m->st.have_ci)
				fprintf(f, "%.5f,%.5f", m->st.ci_lo, m->st.ci_hi);
			else
				fputc(',', f);
			fputc(',', f);
			if (m->st.have_mwu)
				fprintf(f, "%.4g", m->st.mwu.p_two);
			fputc(',', f);
			csv_field(f, m->per);
			fprintf(f, ",%d,%s,", m->deterministic, fb_verdict_name(m->v));
			csv_pct(f, fb_rel_sd(m->a, m->na));
			fputc(',', f);
			csv_pct(f, fb_rel_sd(m->b, m->nb));
			fputc('\n', f);
		}
	}
}

void fb_cmp_print(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt)
{
	static const char *const fh[] = { "Function", "Arm", "Calls", "Total", "Avg/call",
					   "p50", "p90", "p99", "Delta", "Verdict" };
	static const char *const lh[] = { "Lock", "Arm", "Acquisitions", "Contentions",
					  "Wait total", "Wait avg", "Hold avg", "Hold p99", "Delta",
					  "Verdict" };
	static const char *const oh[] = { "Probe", "Arm", "Count", "Mean", "p99", "Delta", "Verdict" };
	static const char *const wh[] = { "Workload", "Arm", "Wall time", "Ops", "Delta", "Verdict" };
	static const char *const ch[] = { "Lock", "wait: Before", "After", "contentions: Before",
					  "After", "Delta (wait)", "Verdict" };
	static const char *const kh[] = { "Count", "Before", "After", "Per", "Ratio", "Verdict" };
	static const char *const xh[] = { "Value", "Before", "After", "Delta", "Verdict" };
	static const int fcols[] = { 0, 1, 2, 3, 4, 5 }, lcols[] = { 0, 6, 1, 2, 3, 4 };
	static const int ocols[] = { 0, 1, 2 }, wcols[] = { 0, -1 };
	struct table t;
	char title[200];

	if (fmt == FB_FMT_CSV) {
		print_csv(f, c);
		return;
	}
	snprintf(title, sizeof(title), "Function probes: latency per call (Delta and verdict: Avg/call)");
	t_init(&t, title, 10, fh, 2);
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == FB_ROW_FUNC)
			arm_rows(c, &t, &c->rows[i], fcols, 6);
	t_print(f, &t, fmt);
	t_free(&t);

	t_init(&t, "Lock probes (Delta and verdict: Hold avg)", 10, lh, 2);
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == FB_ROW_LOCK)
			arm_rows(c, &t, &c->rows[i], lcols, 6);
	t_print(f, &t, fmt);
	t_free(&t);

	t_init(&t, "Other probes (first statistic)", 7, oh, 2);
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == FB_ROW_OTHER && c->rows[i].nm >= 3)
			arm_rows(c, &t, &c->rows[i], ocols, 3);
	t_print(f, &t, fmt);
	t_free(&t);

	t_init(&t, "Workloads: wall time (op counts: median per round)", 6, wh, 2);
	t.left[3] = 1;
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == FB_ROW_WORKLOAD) {
			int first = t.nrows;

			arm_rows(c, &t, &c->rows[i], wcols, 2);
			for (int r = first; r < t.nrows; r++)
				ops_cell(&c->rows[i], r - first, t.cell[r][3], TCELL);
		}
	t_print(f, &t, fmt);
	t_free(&t);

	t_init(&t, "Contention (lock:contention_begin/end)", 7, ch, 1);
	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];
		char (*cell)[TCELL];

		if (row->kind != FB_ROW_CONTENTION || row->nm < 2)
			continue;
		cell = t_row(&t, 1, (int)row->m[0]->v);
		if (!cell)
			break;
		snprintf(cell[0], TCELL, "%s", row->name);
		val_str(row->m[0], 0, cell[1], TCELL);
		val_str(row->m[0], 1, cell[2], TCELL);
		val_str(row->m[1], 0, cell[3], TCELL);
		val_str(row->m[1], 1, cell[4], TCELL);
		delta_str(row->m[0], cell[5], TCELL);
		verdict_str(row->m[0], cell[6], TCELL);
	}
	t_print(f, &t, fmt);
	t_free(&t);

	t_init(&t, "Counts (compared exactly when deterministic: the same in every round, "
	       "or the same per workload op)", 6, kh, 1);
	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];

		if (row->kind == FB_ROW_EXTRA)
			continue;
		for (int k = 0; k < row->nm; k++) {
			const struct fb_metric *m = row->m[k];
			char (*cell)[TCELL];

			if (m->type != FB_M_COUNT || (!m->na && !m->nb))
				continue;
			cell = t_row(&t, 1, (int)m->v);
			if (!cell)
				break;
			snprintf(cell[0], TCELL, "%.70s %.23s", row->name, m->name);
			val_str(m, 0, cell[1], TCELL);
			val_str(m, 1, cell[2], TCELL);
			snprintf(cell[3], TCELL, "%s", m->per[0] ? m->per : "run");
			if (m->na && m->nb && m->base)
				snprintf(cell[4], TCELL, "x%.4g", m->new / m->base);
			else
				snprintf(cell[4], TCELL, "-");
			verdict_str(m, cell[5], TCELL);
		}
	}
	t_print(f, &t, fmt);
	t_free(&t);

	t_init(&t, "Other values (extra)", 5, xh, 1);
	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];
		char (*cell)[TCELL];

		if (row->kind != FB_ROW_EXTRA || !row->nm)
			continue;
		cell = t_row(&t, 1, (int)row->m[0]->v);
		if (!cell)
			break;
		snprintf(cell[0], TCELL, "%s", row->name);
		val_str(row->m[0], 0, cell[1], TCELL);
		val_str(row->m[0], 1, cell[2], TCELL);
		delta_str(row->m[0], cell[3], TCELL);
		verdict_str(row->m[0], cell[4], TCELL);
	}
	t_print(f, &t, fmt);
	t_free(&t);

	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].note[0]) {
			char line[400];

			snprintf(line, sizeof(line), "%s %s: %s", fb_row_kind_name(c->rows[i].kind),
				 c->rows[i].name, c->rows[i].note);
			notes_print(f, fmt, line);
		}
}

/* ---- the subcommand ---- */

void fb_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void compare_usage(FILE *f)
{
	fputs("usage: foliobench compare BASE NEW | AB_DIR [--format text|md|csv]\n"
	      "                          [--alpha A] [--min-effect PCT]\n"
	      "                          [--base-arm NAME] [--new-arm NAME]\n"
	      "  BASE, NEW: a results file or a directory of rounds (*.json, recursively)\n"
	      "  AB_DIR:    an `foliobench ab` directory: compares baseline/ with patched/\n", f);
}

int fb_parse_double_arg(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

int fb_cmp_arg(struct fb_cmp_args *a, int o, const char *arg, const char *opt)
{
	switch (o) {
	case 'a':
		if (!fb_parse_double_arg(arg, 1e-9, a->alpha_max, &a->alpha))
			return 0;
		fb_err("%s: --alpha wants a number in (0, %g], got '%s'", a->cmd, a->alpha_max, arg);
		return -1;
	case 'e':
		if (!fb_parse_double_arg(arg, 0, 1000, &a->min_effect))
			return 0;
		fb_err("%s: --min-effect wants a percentage in [0, 1000], got '%s'", a->cmd, arg);
		return -1;
	case 'B':
		a->base_arm = arg;
		return 0;
	case 'N':
		a->new_arm = arg;
		return 0;
	}
	fb_err("%s: unknown option '%s' (see foliobench %s --help)", a->cmd, opt, a->cmd);
	return -1;
}

int fb_cmp_open_args(struct fb_cmp *c, const struct fb_cmp_args *a, int argc, char **argv)
{
	char err[512];

	memset(c, 0, sizeof(*c));
	if (argc - optind < 1 || argc - optind > 2) {
		fb_err("%s: expected BASE NEW, or one ab directory (see foliobench %s --help)",
		       a->cmd, a->cmd);
		return 2;
	}
	if (fb_cmp_open(c, argc - optind, argv + optind, a->base_arm, a->new_arm, a->alpha,
			a->min_effect, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("%s: %s", a->cmd, err);
		return 2;
	}
	return 0;
}

static int parse_format(const char *s, enum fb_fmt *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = FB_FMT_TEXT;
	else if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		*fmt = FB_FMT_MD;
	else if (!strcmp(s, "csv"))
		*fmt = FB_FMT_CSV;
	else
		return -1;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		FB_CMP_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fb_cmp_args ca = { .cmd = "compare", .alpha = 0.05, .alpha_max = 0.5, .min_effect = 2 };
	enum fb_fmt fmt = FB_FMT_TEXT;
	struct fb_cmp c;
	int o;

	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "f:a:e:h", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			if (parse_format(optarg, &fmt)) {
				fb_err("compare: unknown --format '%s' (text, md or csv)", optarg);
				return 2;
			}
			break;
		case 'h':
			compare_usage(stdout);
			return 0;
		default:
			if (fb_cmp_arg(&ca, o, optarg, argv[optind - 1]))
				return 2;
			break;
		}
	}
	if (fb_cmp_open_args(&c, &ca, argc, argv)) {
		fb_cmp_free(&c);
		return 2;
	}
	if (fmt == FB_FMT_TEXT)
		printf("BASE %s: %d round(s) from %s\nNEW  %s: %d round(s) from %s\n"
		       "Values are medians across rounds. Verdict: two-sided Mann-Whitney U "
		       "(alpha %g) + bootstrap 95%% CI of the median ratio + minimum effect %g%%; "
		       "counts compared exactly when deterministic.\n\n",
		       c.base.name, c.base.n, c.base.path, c.new.name, c.new.n, c.new.path,
		       c.alpha, c.min_effect);
	else if (fmt == FB_FMT_MD)
		printf("BASE `%s`: %d round(s), NEW `%s`: %d round(s). Values are medians across "
		       "rounds; verdicts from a two-sided Mann-Whitney U test (alpha %g), a bootstrap "
		       "95%% CI of the median ratio and a minimum effect of %g%%; counts are compared "
		       "exactly when deterministic.\n\n",
		       c.base.name, c.base.n, c.new.name, c.new.n, c.alpha, c.min_effect);
	fb_cmp_print(stdout, &c, fmt);
	fb_cmp_free(&c);
	return fflush(stdout) ? 2 : 0;
}
