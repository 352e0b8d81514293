// SPDX-License-Identifier: GPL-2.0
/*
 * history_report.c - change points of the stored series and `history
 * report`: Markdown (a CI comment) and a self-contained HTML page with one
 * inline SVG trend plot per series: rounds as points, the running median
 * (5 rounds) as a line, each segment's median as a step line, and the
 * change points as red verticals.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/compare/compare.h"
#include "analysis/compare/html.h"
#include "analysis/history/history_metrics.h"
#include "analysis/history/history_report.h"
#include "util/outfile.h"

#define W	760
#define H	220
#define ML	78
#define MR	12
#define MT	12
#define MB	34

/* why one metric can have several series */
static const char per_method[] =
	"One series per arm, parameters and probe method (in brackets after the metric:"
	" the observer's own cost is inside the measured window), so a change of method"
	" starts a new series and is never reported as a step.";

/* how the series are ordered, for the plots' x axis */
static const char *x_order = "by start time";

int fb_hist_detect(const struct fb_hseries *s, const struct fb_cp_opts *o, struct fb_cp *cp,
		   int max)
{
	double *x = malloc(sizeof(*x) * (size_t)(s->n ? s->n : 1));
	int n;

	if (!x)
		return -1;
	for (int i = 0; i < s->n; i++)
		x[i] = s->p[i].v;
	n = fb_changepoints(x, s->n, o, cp, max);
	free(x);
	return n;
}

static void fmt_val(const struct fb_hseries *s, double v, char *buf, size_t len)
{
	if (!strcmp(s->unit, "ns"))
		fb_fmt_ns(v, buf, len);
	else
		snprintf(buf, len, "%.4g", v);
}

/* "build 328a85c41ecc (commit abc)" of point i */
static void kernel_of(const struct fb_hpoint *p, char *buf, size_t len)
{
	fb_fmt(buf, len, "%.40s %.12s%s%.12s", p->label, p->build_id[0] ? p->build_id : "-",
	       p->commit[0] ? " commit " : "", p->commit);
}

static void ci_str(const struct fb_cp *c, char *buf, size_t len)
{
	if (isnan(c->ci_lo))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%% .. %+.1f%%", c->ci_lo, c->ci_hi);
}

void fb_hist_cp_line(const struct fb_hseries *s, const struct fb_cp *c, char *buf, size_t len)
{
	char b[32], a[32], ci[48], kb[96], ka[96];

	fmt_val(s, c->before, b, sizeof(b));
	fmt_val(s, c->after, a, sizeof(a));
	ci_str(c, ci, sizeof(ci));
	kernel_of(&s->p[c->pos - 1], kb, sizeof(kb));
	kernel_of(&s->p[c->pos], ka, sizeof(ka));
	snprintf(buf, len, "step at #%d (%s): %s -> %s, %+.1f%% [95%% CI %s], p %.3f; "
		 "last before: %s, first after: %s", c->pos, s->p[c->pos].started, b, a, c->pct,
		 ci, c->p, kb, ka);
}

void fb_hist_kernel_steps(const struct fb_hseries *s, const struct fb_cp *cp, int ncp, int tol,
			  struct fb_hist_kstat *k)
{
	memset(k, 0, sizeof(*k));
	for (int i = 1; i < s->n; i++) {
		int near = 0;

		if (!strcmp(s->p[i].build_id, s->p[i - 1].build_id))
			continue;
		k->changes++;
		for (int c = 0; c < ncp && !near; c++)
			near = abs(cp[c].pos - i) <= tol;
		k->found += near;
	}
	for (int c = 0; c < ncp; c++) {
		int near = 0;

		for (int i = cp[c].pos - tol; i <= cp[c].pos + tol && !near; i++)
			near = i > 0 && i < s->n && strcmp(s->p[i].build_id, s->p[i - 1].build_id);
		k->cps_at += near;
	}
}

struct found {
	const struct fb_hseries *s;
	int ncp;
	struct fb_cp cp[FB_HIST_MAX_CPS];
};

/* A change point's cells as text. */
struct cells {
	const struct fb_hseries *s;
	const struct fb_cp *c;
	int series;		/* index in the report, for links */
	char before[32], after[32], ci[48], kb[96], ka[96];
};

/* Calls row(f, cells, first) for each change point of each series; how many. */
static int each_cp(FILE *f, const struct found *fd, int n,
		   void (*row)(FILE *f, const struct cells *x, int first))
{
	int count = 0;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < fd[i].ncp; k++) {
			struct cells x = { .s = fd[i].s, .c = &fd[i].cp[k], .series = i };

			fmt_val(x.s, x.c->before, x.before, sizeof(x.before));
			fmt_val(x.s, x.c->after, x.after, sizeof(x.after));
			ci_str(x.c, x.ci, sizeof(x.ci));
			kernel_of(&x.s->p[x.c->pos - 1], x.kb, sizeof(x.kb));
			kernel_of(&x.s->p[x.c->pos], x.ka, sizeof(x.ka));
			row(f, &x, !count++);
		}
	return count;
}

/* " [fsession]" after a series' metric, or nothing when its method is "". */
static void method_suffix(const struct fb_hseries *s, char *buf, size_t len)
{
	if (s->method[0])
		fb_fmt(buf, len, " [%s]", s->method);
	else
		buf[0] = '\0';
}

/* "| `metric`[method] | arm | params": names from data, escaped */
static void md_names(FILE *f, const struct fb_hseries *s, const char *meth)
{
	fputs("| `", f);
	fb_md_esc(f, s->metric);
	fprintf(f, "`%s | ", meth);
	fb_md_esc(f, s->arm);
	fputs(" | ", f);
	fb_md_esc(f, s->params[0] ? s->params : "-");
}

static void md_cp_row(FILE *f, const struct cells *x, int first)
{
	char m[40];

	if (first)
		fprintf(f, "| metric | arm | params | at | started | before | after |"
			" change | 95%% CI | p | last before | first after |\n"
			"|---|---|---|--:|---|--:|--:|--:|--:|--:|---|---|\n");
	method_suffix(x->s, m, sizeof(m));
	md_names(f, x->s, m);
	fprintf(f, " | #%d | ", x->c->pos);
	fb_md_esc(f, x->s->p[x->c->pos].started);
	fprintf(f, " | %s | %s | %+.1f%% | %s | %.3f | ", x->before, x->after, x->c->pct, x->ci,
		x->c->p);
	fb_md_esc(f, x->kb);
	fputs(" | ", f);
	fb_md_esc(f, x->ka);
	fputs(" |\n", f);
}

static void md_cp_rows(FILE *f, const struct found *fd, int n)
{
	if (!each_cp(f, fd, n, md_cp_row))
		fprintf(f, "No change points in %d series.\n", n);
}

static void md_series_rows(FILE *f, const struct found *fd, int n)
{
	fprintf(f, "| metric | arm | params | rounds | first | last | newest segment median |"
		" change points | at a kernel change | kernel changes | found |\n"
		"|---|---|---|--:|---|---|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < n; i++) {
		const struct fb_hseries *s = fd[i].s;
		int lo = fd[i].ncp ? fd[i].cp[fd[i].ncp - 1].pos : 0;
		double *v = malloc(sizeof(*v) * (size_t)(s->n - lo));
		struct fb_hist_kstat ks;
		char m[32] = "-", meth[40];

		if (v) {
			for (int k = lo; k < s->n; k++)
				v[k - lo] = s->p[k].v;
			fmt_val(s, fb_median(v, s->n - lo), m, sizeof(m));
			free(v);
		}
		fb_hist_kernel_steps(s, fd[i].cp, fd[i].ncp, FB_HIST_KTOL, &ks);
		method_suffix(s, meth, sizeof(meth));
		md_names(f, s, meth);
		fprintf(f, " | %d | ", s->n);
		fb_md_esc(f, s->p[0].started);
		fputs(" | ", f);
		fb_md_esc(f, s->p[s->n - 1].started);
		fprintf(f, " | %s | %d | %d | %d | %d |\n", m, fd[i].ncp, ks.cps_at, ks.changes,
			ks.found);
	}
}

static void when_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm);
}

static void md_doc(FILE *f, const struct found *fd, int n, const struct fb_cp_opts *o,
		   const char *db)
{
	int ncp = 0;
	char when[40];

	for (int i = 0; i < n; i++)
		ncp += fd[i].ncp;
	when_now(when, sizeof(when));
	fprintf(f, "# foliobench history\n\n%d change point%s in %d series from `%s` (%s).\n"
		"E-divisive means on ranks, permutation test alpha %g (%d permutations),"
		" segments of at least %d rounds, seed %llu; CI: bootstrap of the ratio of"
		" segment medians. Rounds %s. %s\n\n## Change points\n\n", ncp, ncp == 1 ? "" : "s",
		n, db, when, o->alpha, o->perms, o->min_size, (unsigned long long)o->seed, x_order,
		per_method);
	md_cp_rows(f, fd, n);
	fprintf(f, "\n## Series\n\n");
	md_series_rows(f, fd, n);
}

static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;"
	"color:#222}"
	"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em}"
	"h3{font-size:1em;margin:1.4em 0 .3em}"
	"table{border-collapse:collapse;font-size:.85em;margin:.5em 0}"
	"th,td{padding:.25em .6em;text-align:right;border-bottom:1px solid #eee;white-space:nowrap}"
	"th{background:#f4f4f4}.l{text-align:left}code{background:#f6f8fa;padding:.1em .3em}"
	".note{color:#555;font-size:.85em;margin:.2em 0}"
	"svg{font:11px system-ui,sans-serif}.pt{fill:#555;fill-opacity:.55}"
	".out{fill:none;stroke:#555}.run{fill:none;stroke:#1f6feb;stroke-width:1.5}"
	".seg{stroke:#bf8700;stroke-width:2.5}.cp{stroke:#cf222e;stroke-dasharray:4 3}"
	".ax{stroke:#999}.grid{stroke:#eee}.wide{overflow-x:auto}";

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct plot {
	double lo, hi;
	int n;
};

static double px(const struct plot *p, int i)
{
	return ML + (p->n > 1 ? (double)i * (W - ML - MR) / (p->n - 1) : (W - ML - MR) / 2.0);
}

static double py(const struct plot *p, double v)
{
	double t = (v - p->lo) / (p->hi - p->lo);

	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return H - MB - t * (H - MT - MB);
}

/* y range: the 1st to 99th percentile plus a margin, so one outlier does not flatten the plot */
static void plot_range(const struct fb_hseries *s, struct plot *p)
{
	double *v = malloc(sizeof(*v) * (size_t)s->n), pad;

	p->n = s->n;
	p->lo = p->hi = s->p[0].v;
	if (v) {
		for (int i = 0; i < s->n; i++)
			v[i] = s->p[i].v;
		p->lo = fb_median(v, s->n);
		p->hi = p->lo;
		for (int i = 0; i < s->n; i++) {
			p->lo = fmin(p->lo, v[i]);
			p->hi = fmax(p->hi, v[i]);
		}
		if (s->n >= 20) {
			qsort(v, (size_t)s->n, sizeof(*v), cmp_dbl);
			p->lo = fb_quantile_sorted(v, s->n, 0.01);
			p->hi = fb_quantile_sorted(v, s->n, 0.99);
		}
		free(v);
	}
	pad = (p->hi - p->lo) * 0.12;
	if (pad <= 0)
		pad = fabs(p->hi) * 0.05 + 1;
	p->lo -= pad;
	p->hi += pad;
}

static void series_axes(FILE *f, const struct fb_hseries *s, const struct plot *p)
{
	for (int t = 0; t <= 3; t++) {
		double v = p->lo + (p->hi - p->lo) * t / 3;
		char buf[32];

		fmt_val(s, v, buf, sizeof(buf));
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML, W - MR,
			py(p, v), py(p, v), ML - 6, py(p, v) + 4, buf);
	}
	fprintf(f, "<line class=\"ax\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", ML, W - MR,
		H - MB, H - MB);
	fprintf(f, "<text x=\"%d\" y=\"%d\">#0 %.10s</text><text x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">#%d %.10s</text>\n", ML, H - MB + 16, s->p[0].started, W - MR,
		H - MB + 16, s->n - 1, s->p[s->n - 1].started);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">round (%s)</text>\n",
		(ML + W - MR) / 2, H - 4, x_order);
}

static void svg_lines(FILE *f, const struct fb_hseries *s, const struct found *fd,
		      const struct plot *p)
{
	double win[5];

	/* running median of 5 rounds */
	fputs("<polyline class=\"run\" points=\"", f);
	for (int i = 0; i < s->n; i++) {
		int k = 0;

		for (int j = i - 2; j <= i + 2; j++)
			if (j >= 0 && j < s->n)
				win[k++] = s->p[j].v;
		fprintf(f, "%.1f,%.1f ", px(p, i), py(p, fb_median(win, k)));
	}
	fputs("\"/>\n", f);
	/* segment medians and change points */
	for (int k = 0; k <= fd->ncp; k++) {
		int lo = k ? fd->cp[k - 1].pos : 0, hi = k < fd->ncp ? fd->cp[k].pos : s->n;
		double m = k < fd->ncp ? fd->cp[k].before : fd->ncp ? fd->cp[k - 1].after : NAN;
		double cx;

		if (isnan(m)) {
			double *v = malloc(sizeof(*v) * (size_t)s->n);

			if (!v)
				continue;
			for (int i = 0; i < s->n; i++)
				v[i] = s->p[i].v;
			m = fb_median(v, s->n);
			free(v);
		}
		fprintf(f, "<line class=\"seg\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\""
			" y2=\"%.1f\"/>\n", px(p, lo), px(p, hi - 1), py(p, m), py(p, m));
		cx = (px(p, hi - 1) + px(p, hi)) / 2;
		if (k < fd->ncp)
			fprintf(f, "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\">"
				"<title>change point at #%d: %+.1f%%</title></line>\n", cx, cx, MT,
				H - MB, hi, fd->cp[k].pct);
	}
}

static void svg_plot(FILE *f, const struct found *fd)
{
	const struct fb_hseries *s = fd->s;
	struct plot p;

	plot_range(s, &p);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\">\n", W, H, W, H);
	series_axes(f, s, &p);
	for (int i = 0; i < s->n; i++) {
		double v = s->p[i].v;
		int out = v < p.lo || v > p.hi;

		fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\"><title>#%d %s ",
			out ? "out" : "pt", px(&p, i), py(&p, v), i, s->p[i].started);
		fb_html_esc(f, s->p[i].label);
		fprintf(f, " %.6g</title></circle>\n", v);
	}
	svg_lines(f, s, fd, &p);
	fputs("</svg>\n", f);
}

/* " [fsession]" after a series' metric, or nothing when its method is "". */
static void html_method(FILE *f, const struct fb_hseries *s)
{
	if (!s->method[0])
		return;
	fputs(" [", f);
	fb_html_esc(f, s->method);
	fputc(']', f);
}

static void html_cp_row(FILE *f, const struct cells *x, int first)
{
	if (first)
		fputs("<div class=\"wide\"><table><thead><tr><th class=\"l\">metric</th>"
		      "<th class=\"l\">arm</th>"
		      "<th class=\"l\">params</th><th>at</th><th class=\"l\">started</th>"
		      "<th>before</th><th>after</th><th>change</th><th>95% CI</th><th>p</th>"
		      "<th class=\"l\">last before</th><th class=\"l\">first after</th></tr>"
		      "</thead><tbody>\n", f);
	fprintf(f, "<tr><td class=\"l\"><a href=\"#s%d\">", x->series);
	fb_html_esc(f, x->s->metric);
	fputs("</a>", f);
	html_method(f, x->s);
	fputs("</td><td class=\"l\">", f);
	fb_html_esc(f, x->s->arm);
	fputs("</td><td class=\"l\">", f);
	fb_html_esc(f, x->s->params[0] ? x->s->params : "-");
	fprintf(f, "</td><td>#%d</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%+.1f%%"
		"</td><td>%s</td><td>%.3f</td><td class=\"l\">", x->c->pos,
		x->s->p[x->c->pos].started, x->before, x->after, x->c->pct, x->ci, x->c->p);
	fb_html_esc(f, x->kb);
	fputs("</td><td class=\"l\">", f);
	fb_html_esc(f, x->ka);
	fputs("</td></tr>\n", f);
}

static void html_cp_table(FILE *f, const struct found *fd, int n)
{
	if (each_cp(f, fd, n, html_cp_row))
		fputs("</tbody></table></div>\n", f);
	else
		fprintf(f, "<p>No change points in %d series.</p>\n", n);
}

static void html_doc(FILE *f, const struct found *fd, int n, const struct fb_cp_opts *o,
		     const char *db)
{
	char when[40];

	when_now(when, sizeof(when));
	fb_html_begin(f, "foliobench history", css);
	fprintf(f, "<h1>foliobench history</h1>\n<p class=\"note\">%d series from <code>", n);
	fb_html_esc(f, db);
	fprintf(f, "</code>, %s. Change points: E-divisive means on ranks, permutation test alpha"
		" %g (%d permutations), segments of at least %d rounds; CI: bootstrap of the ratio"
		" of segment medians. Rounds %s. %s Plots: rounds as points (hollow: outside the"
		" 1st..99th percentile, drawn at the edge), blue: running median of 5 rounds,"
		" orange: segment medians, red: change points.</p>\n<h2>Change points</h2>\n",
		when, o->alpha, o->perms, o->min_size, x_order, per_method);
	html_cp_table(f, fd, n);
	fputs("<h2>Series</h2>\n", f);
	for (int i = 0; i < n; i++) {
		const struct fb_hseries *s = fd[i].s;

		fprintf(f, "<h3 id=\"s%d\"><code>", i);
		fb_html_esc(f, s->metric);
		fputs("</code>", f);
		html_method(f, s);
		fputs(" arm ", f);
		fb_html_esc(f, s->arm);
		if (s->params[0]) {
			fputs(", ", f);
			fb_html_esc(f, s->params);
		}
		fprintf(f, " &mdash; %d rounds, %d change point%s</h3>\n", s->n, fd[i].ncp,
			fd[i].ncp == 1 ? "" : "s");
		svg_plot(f, &fd[i]);
	}
	fb_html_end(f);
}

static int write_to(const char *dir, const char *name, const struct found *fd, int n,
		    const struct fb_cp_opts *o, const char *db, int html)
{
	char path[1024], err[PATH_MAX + 128];
	struct fb_out out;

	fb_fmt(path, sizeof(path), "%s/%s", dir, name);
	if (fb_out_open(&out, path, err, sizeof(err))) {
		fb_err("history report: %s", err);
		return -1;
	}
	if (html)
		html_doc(out.f, fd, n, o, db);
	else
		md_doc(out.f, fd, n, o, db);
	if (fb_stop) {			/* Ctrl-C: the old report stays */
		fb_out_abort(&out);
		fb_err("history report: interrupted; %s not written", path);
		return -1;
	}
	if (fb_out_commit(&out, err, sizeof(err))) {
		fb_err("history report: %s", err);
		return -1;
	}
	printf("%s\n", path);
	return 0;
}

/* DIR a directory or absent, its history.md and .html regular or absent; 0 or -1 (said) */
static int outs_ok(const char *dir)
{
	static const char *const names[] = { "history.md", "history.html" };
	char p[PATH_MAX], err[PATH_MAX + 128];
	struct stat st;

	if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) {
		fb_err("history report: --out %s: not a directory", dir);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		fb_fmt(p, sizeof(p), "%s/%s", dir, names[i]);
		if (fb_out_check(p, err, sizeof(err))) {
			fb_err("history report: %s", err);
			return -1;
		}
	}
	return 0;
}

int fb_hist_report(struct fb_hdb *db, const char *dbpath, const char *out,
		   const char *const *globs, int nglobs, const char *arm,
		   const struct fb_cp_opts *o)
{
	const char *dir = out ? out : "results/history-report";
	struct fb_hseries *s;
	struct found *fd;
	char err[256];
	int n, m = 0, rc = 1;

	if (outs_ok(dir))
		return 2;
	x_order = fb_hdb_order(db) ? "in the order added" : "by start time";
	if (!nglobs) {
		globs = fb_hist_default_globs;
		nglobs = fb_hist_ndefault_globs;
	}
	n = fb_hdb_series(db, globs, nglobs, arm, &s, err, sizeof(err));
	if (n < 0) {
		fb_err("%s", err);
		return 1;
	}
	fd = calloc((size_t)n + 1, sizeof(*fd));
	if (!fd || fb_mkdir_p(dir)) {
		fb_err("history report: %s",
		       fd ? "cannot create the output directory" : "no memory");
		goto out;
	}
	for (int i = 0; i < n && !fb_stop; i++) {
		if (s[i].n < 3)
			continue;	/* nothing to plot */
		fd[m].s = &s[i];
		fd[m].ncp = fb_hist_detect(&s[i], o, fd[m].cp, FB_HIST_MAX_CPS);
		if (fd[m].ncp < 0)
			goto out;
		m++;
	}
	if (!fb_stop && !write_to(dir, "history.md", fd, m, o, dbpath, 0) &&
	    !write_to(dir, "history.html", fd, m, o, dbpath, 1))
		rc = 0;
out:
	free(fd);
	fb_hseries_free(s, n);
	return rc;
}
