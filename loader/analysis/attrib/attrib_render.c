// SPDX-License-Identifier: GPL-2.0
/*
 * attrib_render.c - the per-patch attribution table (attrib.h) as text,
 * Markdown (for a cover letter), an HTML fragment with one step plot per
 * metric (inline SVG), and CSV; and `foliobench report` on a per-patch
 * directory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/attrib/attrib_render.h"
#include "analysis/compare/html.h"
#include "analysis/compare/render.h"
#include "util/outfile.h"
#include "util/util.h"

static const char attrib_css[] = "body{font-family:sans-serif}"
	"table.attrib{border-collapse:collapse;font-size:13px}"
	"table.attrib td,table.attrib th{border:1px solid #ccc;padding:2px 6px}"
	"td.hot{background:#fde2df;font-weight:bold}";

#define ACELL	160
#define AMAXC	(FB_ATTRIB_MAX_STEPS + 4)

struct grid {
	int ncols, nrows;
	char hdr[AMAXC][ACELL];
	char (*cell)[AMAXC][ACELL];
	int (*hot)[AMAXC];		/* a decided change: bold / coloured */
	const struct fb_attrib_row **row;
};

static int is_decided(enum fb_verdict v)
{
	return v == FB_V_CHANGED || v == FB_V_IMPROVED || v == FB_V_REGRESSED;
}

static void fmt_val(const struct fb_attrib_row *x, const char *per, double v, char *buf,
		    size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (per[0])
		snprintf(buf, len, "%.4g/op", v);
	else if (!strcmp(x->unit, "ns"))
		fb_fmt_ns(v, buf, len);
	else
		fb_fmt_count(v, buf, len);
}

static void fmt_delta(const struct fb_attrib_row *x, const struct fb_attrib_cell *c,
		      char *buf, size_t len)
{
	char v[48], p[24];

	fmt_val(x, c->per, fabs(c->delta), v, sizeof(v));
	fb_fmt_pct(c->pct, p, sizeof(p));
	snprintf(buf, len, "%s%s (%s)", c->delta < 0 ? "-" : "+", v, p);
}

/*
 * "-36,136 (-100.0%) changed exact, 100% of total"; compact (text):
 * "-36,136 (-100.0%) CHANGED [100%]", "=" for no change, "?" inconclusive.
 */
static void cell_str(const struct fb_attrib_row *x, const struct fb_attrib_cell *c,
		     double share, int compact, char *buf, size_t len)
{
	char d[80], sh[32] = "", v[32];

	if (!c->have) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (c->delta == 0 && c->v == FB_V_NOCHANGE) {
		snprintf(buf, len, compact ? "=" : "0 (no change%s)", c->exact ? ", exact" : "");
		return;
	}
	fmt_delta(x, c, d, sizeof(d));
	if (!compact) {
		if (!isnan(share))
			snprintf(sh, sizeof(sh), ", %.0f%% of total", share);
		snprintf(buf, len, "%s %s%s%s", d, fb_verdict_name(c->v), c->exact ? " exact" :
			 c->tested ? "" : c->v == FB_V_INCONCLUSIVE ? " (few rounds)" : "", sh);
		return;
	}
	if (!isnan(share))
		snprintf(sh, sizeof(sh), " [%.0f%%]", share);
	if (is_decided(c->v)) {
		snprintf(v, sizeof(v), "%s", fb_verdict_name(c->v));
		for (char *q = v; *q; q++)
			*q = (char)(*q - 32 * (*q >= 'a' && *q <= 'z'));
	} else {
		snprintf(v, sizeof(v), "%s", c->v == FB_V_NOCHANGE ? "~" : "?");
	}
	snprintf(buf, len, "%s %s%s", d, v, sh);
}

/* "kernfs_activate calls" (with the op counter if normalised) */
static void label_str(const struct fb_attrib_row *x, char *buf, size_t len)
{
	const char *per = x->whole.per[0] ? x->whole.per : "";

	snprintf(buf, len, "%.11s %.50s %.47s%s%.30s", x->kind, x->item, x->metric,
		 per[0] ? " per " : "", per);
}

/* "0001-kernfs-activate-nodes-while-linking-them.patch" -> "kernfs-activate-nodes-whi" */
static void short_patch(const char *p, char *buf, size_t len)
{
	size_t n;

	if (strlen(p) > 5 && p[4] == '-' && strspn(p, "0123456789") == 4)
		p += 5;
	snprintf(buf, len, "%.28s", p);
	n = strlen(buf);
	if (n > 6 && !strcmp(buf + n - 6, ".patch"))
		buf[n - 6] = '\0';
}

static int grid_build(struct grid *g, const struct fb_attrib *a, int compact)
{
	int n = a->nsteps;

	memset(g, 0, sizeof(*g));
	g->cell = calloc((size_t)a->shown + 1, sizeof(*g->cell));
	g->hot = calloc((size_t)a->shown + 1, sizeof(*g->hot));
	g->row = calloc((size_t)a->shown + 1, sizeof(*g->row));
	if (!g->cell || !g->hot || !g->row)
		return -1;
	g->ncols = n + 4;
	snprintf(g->hdr[0], ACELL, "Metric");
	snprintf(g->hdr[1], ACELL, "%s", a->prefix[0]);
	for (int k = 0; k < n; k++) {
		char sp[32];

		short_patch(a->patch[k + 1], sp, sizeof(sp));
		snprintf(g->hdr[k + 2], ACELL, "%d: %s", a->from + k, sp);
	}
	snprintf(g->hdr[n + 2], ACELL, "series: %.60s", a->prefix[n]);
	snprintf(g->hdr[n + 3], ACELL, "unexplained");
	for (int i = 0; i < a->nrows; i++) {
		const struct fb_attrib_row *x = &a->rows[i];
		char (*c)[ACELL];
		const struct fb_attrib_cell *b = x->step[0].have ? &x->step[0] : &x->whole;

		if (!x->show)
			continue;
		c = g->cell[g->nrows];
		g->row[g->nrows] = x;
		label_str(x, c[0], ACELL);
		fmt_val(x, b->per, b->have ? b->from : NAN, c[1], ACELL);
		for (int k = 0; k < n; k++) {
			cell_str(x, &x->step[k], x->share[k], compact, c[k + 2], ACELL);
			g->hot[g->nrows][k + 2] = x->step[k].have && is_decided(x->step[k].v);
		}
		cell_str(x, &x->whole, NAN, compact, c[n + 2], ACELL);
		g->hot[g->nrows][n + 2] = x->whole.have && is_decided(x->whole.v);
		if (isnan(x->unexplained) || !is_decided(x->whole.v))
			snprintf(c[n + 3], ACELL, "-");
		else if (x->whole.delta && fabs(x->unexplained / x->whole.delta) >= 0.005)
			snprintf(c[n + 3], ACELL, "%.0f%%", x->unexplained / x->whole.delta * 100);
		else
			snprintf(c[n + 3], ACELL, "0");
		g->nrows++;
	}
	return 0;
}

static void grid_free(struct grid *g)
{
	free(g->cell);
	free(g->hot);
	free(g->row);
}

static void legend(FILE *f, const struct fb_attrib *a, enum fb_fmt fmt)
{
	const char *b = fmt == FB_FMT_MD ? "- " : "  ", *cont = fmt == FB_FMT_MD ? "  " : b;

	fprintf(f, "%sSeries %s, flavour %s, clock %s; rounds per kernel:", b, a->series,
		a->flavour, a->clock);
	for (int k = 0; k <= a->nsteps; k++)
		fprintf(f, " %s=%d", a->prefix[k], a->rounds[k]);
	fprintf(f, ".\n");
	for (int k = 1; k <= a->nsteps; k++)
		fprintf(f, "%sstep %d: %s\n", b, a->from + k - 1, a->patch[k]);
	fprintf(f, "%sA step: the change from the previous kernel (medians), with the verdict of "
		"`foliobench compare` (alpha %g, minimum effect %g%%),\n%sHolm-corrected over the "
		"%d cells with a p-value; exact: a count constant across rounds, compared exactly "
		"(not in that family).\n", b, a->alpha, a->min_effect, cont, a->family);
	fprintf(f, "%s%s: the step's share of the series' change.  Unexplained: the series' "
		"change minus the decided steps\n%s(noise, small steps; with prefixes only, "
		"interactions between patches are not told apart).\n", b,
		fmt == FB_FMT_TEXT ? "[N%]" : "\"% of total\"", cont);
	if (fmt == FB_FMT_TEXT)
		fprintf(f, "%s= no change (exact or 0), ~ no change, ? inconclusive (fewer than 3 "
			"rounds, not significant after Holm,\n%s  or timed by different observer "
			"methods: outside the Holm family).\n", b, b);
	if (!strcmp(a->clock, "icount"))
		fprintf(f, "%sicount clock: times are virtual ns (instructions x 2^shift); the Holm "
			"family's p-values are Welch's t on logs (the gate's icount test).\n", b);
}

static void print_text(FILE *f, const struct grid *g)
{
	int w[AMAXC];

	for (int j = 0; j < g->ncols; j++) {
		w[j] = (int)strlen(g->hdr[j]);
		for (int i = 0; i < g->nrows; i++)
			if ((int)strlen(g->cell[i][j]) > w[j])
				w[j] = (int)strlen(g->cell[i][j]);
	}
	w[g->ncols - 1] = 0;	/* no trailing blanks */
	for (int j = 0; j < g->ncols; j++)
		fprintf(f, "%-*s%s", w[j], g->hdr[j], j + 1 < g->ncols ? "  " : "\n");
	for (int i = 0; i < g->nrows; i++)
		for (int j = 0; j < g->ncols; j++)
			fprintf(f, "%-*s%s", w[j], g->cell[i][j], j + 1 < g->ncols ? "  " : "\n");
}

static void print_md(FILE *f, const struct grid *g)
{
	for (int j = 0; j < g->ncols; j++) {	/* names from data: escaped */
		fputs("| ", f);
		fb_md_esc(f, g->hdr[j]);
		fputc(' ', f);
	}
	fprintf(f, "|\n");
	for (int j = 0; j < g->ncols; j++)
		fprintf(f, "|%s", j ? "---:" : ":---");
	fprintf(f, "|\n");
	for (int i = 0; i < g->nrows; i++) {
		for (int j = 0; j < g->ncols; j++) {
			fputs(g->hot[i][j] ? "| **" : "| ", f);
			fb_md_esc(f, g->cell[i][j]);
			fputs(g->hot[i][j] ? "** " : " ", f);
		}
		fprintf(f, "|\n");
	}
}

/* Value after each prefix; NaN where unknown. */
static void prefix_values(const struct fb_attrib_row *x, int n, double *v)
{
	v[0] = x->step[0].have ? x->step[0].from : NAN;
	for (int k = 0; k < n; k++)
		v[k + 1] = x->step[k].have ? x->step[k].to : NAN;
}

/* A step plot of the metric over the prefixes; decided steps in red. */
static void svg_steps(FILE *f, const struct fb_attrib_row *x, int n)
{
	double v[FB_ATTRIB_MAX_STEPS + 1], lo = INFINITY, hi = -INFINITY;
	const double W = 160, H = 36, pad = 3, dx = (W - 2 * pad) / (n + 1);

	prefix_values(x, n, v);
	for (int k = 0; k <= n; k++)
		if (!isnan(v[k])) {
			lo = fmin(lo, v[k]);
			hi = fmax(hi, v[k]);
		}
	if (hi - lo <= 0.005 * fmax(fabs(hi), fabs(lo)))
		lo = hi;	/* under 0.5%: flat, not noise blown up to full height */
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\"><rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>", W, H);
	if (isinf(lo)) {
		fprintf(f, "</svg>");
		return;
	}
	for (int k = 0; k <= n; k++) {
		double y, yp, x0 = pad + k * dx;

		if (isnan(v[k]))
			continue;
		y = hi > lo ? pad + (hi - v[k]) / (hi - lo) * (H - 2 * pad) : H / 2;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
			"stroke-width=\"2\"/>", x0, y, x0 + dx, y);
		if (!k || isnan(v[k - 1]))
			continue;
		yp = hi > lo ? pad + (hi - v[k - 1]) / (hi - lo) * (H - 2 * pad) : H / 2;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"%s\"/>", x0, yp, x0, y,
			is_decided(x->step[k - 1].v) ? "#c0392b" : "#999",
			is_decided(x->step[k - 1].v) ? "2" : "1");
	}
	fprintf(f, "</svg>");
}

static void print_html(FILE *f, const struct grid *g, int nsteps)
{
	fprintf(f, "<table class=\"attrib\">\n<tr>");
	for (int j = 0; j < g->ncols; j++) {
		fprintf(f, "<th>");
		fb_html_esc(f, g->hdr[j]);
		fprintf(f, "</th>%s", j ? "" : "<th>steps</th>");
	}
	fprintf(f, "</tr>\n");
	for (int i = 0; i < g->nrows; i++) {
		fprintf(f, "<tr>");
		for (int j = 0; j < g->ncols; j++) {
			fprintf(f, "<td%s>", g->hot[i][j] ? " class=\"hot\"" : "");
			fb_html_esc(f, g->cell[i][j]);
			fprintf(f, "</td>");
			if (!j) {
				fprintf(f, "<td>");
				svg_steps(f, g->row[i], nsteps);
				fprintf(f, "</td>");
			}
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

static void csv_cell(FILE *f, const struct fb_attrib_row *x, const char *col,
		     const struct fb_attrib_cell *c, double share, double unexplained)
{
	fprintf(f, "%s,%s,%s,%s,%d,%s,%.17g,%.17g,%.17g,%.6g,%s,%s,%d,%.6g,%.6g,%.6g,%.17g\n",
		x->kind, x->item, x->metric, x->unit, x->show, col, c->from, c->to, c->delta,
		c->pct, fb_verdict_name(c->v), fb_verdict_name(c->raw), c->exact, c->p,
		c->p_holm, share, unexplained);
}

/* One line per cell; column is the patch number or "series". */
static void print_csv(FILE *f, const struct fb_attrib *a)
{
	fprintf(f, "kind,item,metric,unit,shown,column,from,to,delta,pct,verdict,raw_verdict,"
		"exact,p,p_holm,share_pct,unexplained\n");
	for (int i = 0; i < a->nrows; i++) {
		const struct fb_attrib_row *x = &a->rows[i];
		char col[16];

		if (strchr(x->item, ',') || strchr(x->item, '"'))
			continue;	/* names from files: keep the CSV trivially parsable */
		for (int k = 0; k < a->nsteps; k++) {
			snprintf(col, sizeof(col), "%d", a->from + k);
			if (x->step[k].have)
				csv_cell(f, x, col, &x->step[k], x->share[k], NAN);
		}
		if (x->whole.have)
			csv_cell(f, x, "series", &x->whole, NAN, x->unexplained);
	}
}

void fb_attrib_print(FILE *f, const struct fb_attrib *a, enum fb_fmt fmt)
{
	struct grid g;

	if (fmt == FB_FMT_CSV) {
		print_csv(f, a);
		return;
	}
	if (grid_build(&g, a, fmt == FB_FMT_TEXT)) {
		fb_err("attribution: out of memory");
		grid_free(&g);
		return;
	}
	if (fmt == FB_FMT_HTML) {
		fprintf(f, "<p>");
		legend(f, a, fmt);
		fprintf(f, "</p>\n");
		print_html(f, &g, a->nsteps);
	} else {
		if (fmt == FB_FMT_TEXT)
			fprintf(f, "Attribution of %s (%s)\n", a->series, a->dir);
		legend(f, a, fmt);
		fprintf(f, "\n");
		if (fmt == FB_FMT_MD)
			print_md(f, &g);
		else
			print_text(f, &g);
	}
	grid_free(&g);
}

static int write_one(const char *path, const struct fb_attrib *a, enum fb_fmt fmt,
		     const char *cmd)
{
	char err[PATH_MAX + 128];
	struct fb_out o;
	FILE *f;

	if (fb_out_open(&o, path, err, sizeof(err))) {
		fb_err("report: %s", err);
		return -1;
	}
	f = o.f;
	if (fmt == FB_FMT_MD) {
		fprintf(f, "# Per-patch attribution: %s\n\nProduced by `%s`.\n\n", a->series,
			cmd);
	} else if (fmt == FB_FMT_HTML) {
		fb_html_begin(f, "per-patch attribution", attrib_css);
		fputs("<h1>Per-patch attribution: ", f);
		fb_html_esc(f, a->series);
		fprintf(f, "</h1>\n<p>Produced by <code>");
		fb_html_esc(f, cmd);
		fprintf(f, "</code>.</p>\n");
	}
	fb_attrib_print(f, a, fmt);
	if (fmt == FB_FMT_HTML)
		fb_html_end(f);
	if (fb_out_commit(&o, err, sizeof(err))) {
		fb_err("report: %s", err);
		return -1;
	}
	return 0;
}

int fb_attrib_report(const char *dir, const char *out, double alpha, double min_effect,
		     const char *cmd)
{
	static const struct { const char *name; enum fb_fmt fmt; } files[] = {
		{ "report.md", FB_FMT_MD },
		{ "report.html", FB_FMT_HTML },
		{ "attribution.csv", FB_FMT_CSV },
	};
	char o[600], p[700], err[512], tmp[512];
	struct fb_attrib a;
	int ret = 2;
	size_t l;

	if (fb_attrib_open(&a, dir, alpha, min_effect, err, sizeof(err))) {
		fb_err("report: %s", err);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (l = strlen(tmp); l > 1 && tmp[l - 1] == '/'; l--)
		tmp[l - 1] = '\0';
	snprintf(o, sizeof(o), "%s", out ? out : "");
	if (!out)	/* next to its input, never into the tracked reports/ */
		snprintf(o, sizeof(o), "%s", tmp);
	if (fb_mkdir_p(o) < 0) {
		fb_err("report: cannot create %s: %s", o, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", o, files[i].name);
		if (write_one(p, &a, files[i].fmt, cmd))
			goto out;
	}
	fb_attrib_print(stdout, &a, FB_FMT_TEXT);
	printf("\nreport: wrote %s/report.md, %s/report.html and %s/attribution.csv\n", o, o, o);
	ret = 0;
out:
	fb_attrib_free(&a);
	return ret;
}
