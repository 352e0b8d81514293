// SPDX-License-Identifier: GPL-2.0
/*
 * hist_svg.c - the report's histograms (hist_svg.h).  Every axis has a
 * title and tick labels in the statistic's own unit (a kmalloc size in
 * bytes, not "100ns"); a range too narrow for 1-2-5 ticks gets 1..9 x 10^d
 * ticks; the legend's rounds are the rounds that have the statistic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/render.h"
#include "analysis/report/hist_svg.h"

#define SVG_W	680
#define SVG_H	270
#define ML	62	/* margins */
#define MR	16
#define MT	60
#define MB	40

static double xpos(double v, double lmin, double lmax)
{
	double l = log10(v < 0.5 ? 0.5 : v);

	return ML + (l - lmin) / (lmax - lmin) * (SVG_W - ML - MR);
}

/* a tick or legend value in unit: ns as ns/us/ms/s, B as B/kB/MB/GB, else as is */
static void unit_label(double v, const char *unit, int tick, char *buf, size_t len)
{
	static const char *const tu[] = { "ns", "us", "ms", "s" }, *const bu[] = { "B", "kB", "MB", "GB" };
	const char *const *u = !strcmp(unit, "ns") ? tu : !strcmp(unit, "B") ? bu : NULL;
	int i = 0;
	char n[24];

	if (!tick && u == tu) {
		fb_fmt_ns(v, buf, len);
		return;
	}
	if (!u) {
		fb_fmt_count(round(v), n, sizeof(n));
		snprintf(buf, len, "%s%s%s", n, unit[0] ? " " : "", unit);
		return;
	}
	for (; i < 3 && v >= 1e3; i++)
		v /= 1e3;
	snprintf(buf, len, tick ? "%g%s" : "%.4g %s", v, u[i]);
}

/* the x ticks: the coarsest of decades, 1-2-5, 1..9 x 10^d that gives 3 (else 2) */
static int x_ticks(double lmin, double lmax, double *t, int max)
{
	static const double sets[3][9] = { { 1 }, { 1, 2, 5 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 } };
	static const int nset[3] = { 1, 3, 9 };

	for (int want = 3; want >= 2; want--)
		for (int s = 0; s < 3; s++) {
			int n = 0;

			for (double d = floor(lmin); d <= ceil(lmax); d++)
				for (int k = 0; k < nset[s]; k++) {
					double v = sets[s][k] * pow(10, d);

					if (log10(v) >= lmin && log10(v) <= lmax && n < max)
						t[n++] = v;
				}
			if (n >= want && n <= 12)
				return n;
		}
	t[0] = pow(10, lmin + (lmax - lmin) * 0.1);	/* no round value fits: the ends */
	t[1] = pow(10, lmax - (lmax - lmin) * 0.1);
	return 2;
}

/* a 1-2-5 step that gives 2 to 5 ticks up to peak */
static double y_step(double peak)
{
	double d = pow(10, floor(log10(peak)));

	for (int k = 0; k < 3; k++) {
		static const double m[3] = { 1, 2, 5 };

		if (peak / (m[k] * d) <= 5)
			return m[k] * d / (peak / (m[k] * d) < 2 ? 2 : 1);
	}
	return 10 * d;
}

static void line(FILE *f, double x1, double y1, double x2, double y2, const char *col)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
		x1, y1, x2, y2, col);
}

/* grid, tick labels on both axes, axis titles and the axes */
static void hist_axes(FILE *f, double lmin, double lmax, double peak, const struct fb_hpair *hp)
{
	const char *unit = hp->h[0].unit[0] ? hp->h[0].unit : hp->h[1].unit[0] ? hp->h[1].unit : "ns";
	double t[64], y0 = SVG_H - MB, hgt = SVG_H - MB - MT - 4, st = y_step(peak);
	int n = x_ticks(lmin, lmax, t, 64);
	char lab[48];

	fputs("<g class=\"x-axis\" fill=\"#333\" text-anchor=\"middle\">\n", f);
	for (int i = 0; i < n; i++) {
		line(f, xpos(t[i], lmin, lmax), MT, xpos(t[i], lmin, lmax), y0, "#ddd");
		unit_label(t[i], unit, 1, lab, sizeof(lab));
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\">%s</text>\n",
			xpos(t[i], lmin, lmax), y0 + 14, lab);
	}
	fprintf(f, "<text class=\"label\" x=\"%d\" y=\"%d\">", (ML + SVG_W - MR) / 2, SVG_H - 8);
	fb_html_esc(f, hp->stat);
	fprintf(f, " (%s, log scale)</text>\n</g>\n", !strcmp(unit, "B") ? "bytes" : unit);
	fputs("<g class=\"y-axis\" fill=\"#333\" text-anchor=\"end\">\n", f);
	for (int k = 0; k * st <= peak * 1.0001; k++) {
		double y = y0 - k * st / peak * hgt;

		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%g</text>\n", ML - 4, y + 4,
			k * st);
		line(f, ML - 3, y, ML, y, "#333");
	}
	fprintf(f, "<text class=\"label\" x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" "
		"text-anchor=\"middle\">share of samples per decade</text>\n</g>\n",
		(MT + SVG_H - MB) / 2, (MT + SVG_H - MB) / 2);
	line(f, ML, y0, SVG_W - MR, y0, "#333");
	line(f, ML, MT, ML, y0, "#333");
}

/*
 * Density per log10 unit of each side's buckets (bucket fraction / log
 * width, so the curve does not depend on the bucket layout) into dens, the
 * buckets either side has from *imin to *imax (imax -1: none); returns the
 * highest density (both arms are drawn on its scale).
 */
static double hist_density(const struct fb_hpair *hp, double dens[2][FB_NBUCKETS], int *imin,
			   int *imax)
{
	double peak = 0;

	for (int s = 0; s < 2; s++) {
		uint64_t tot = 0;

		for (int i = 0; i < (int)FB_NBUCKETS; i++)
			tot += hp->h[s].buckets[i];
		for (int i = 0; i < (int)FB_NBUCKETS; i++) {
			double lo = fb_bucket_lo((unsigned int)i), hi = (double)fb_bucket_hi((unsigned int)i) + 1;
			double w = log10(hi) - log10(lo < 0.5 ? 0.5 : lo);

			dens[s][i] = 0;
			if (!hp->h[s].buckets[i] || !tot)
				continue;
			if (i == (int)FB_NBUCKETS - 1)
				w = 1;
			dens[s][i] = (double)hp->h[s].buckets[i] / (double)tot / w;
			if (dens[s][i] > peak)
				peak = dens[s][i];
			if (i < *imin)
				*imin = i;
			if (i > *imax)
				*imax = i;
		}
	}
	return peak;
}

/* side s's curve, its median (dashed) and its legend line */
static void hist_side(FILE *f, const struct fb_hpair *hp, int s, const double *dens, double peak,
		      int imin, int imax, double lmin, double lmax, const char *name)
{
	static const char *const col[2] = { "#1f77b4", "#ff7f0e" };
	double y0 = SVG_H - MB, hgt = SVG_H - MB - MT - 4, med;
	const char *unit = hp->h[s].unit[0] ? hp->h[s].unit : "ns";
	char lab[48], a[48];

	fprintf(f, "<path fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\" stroke-width=\"1.2\" "
		"d=\"M%.1f %.1f", col[s], s ? "0.15" : "0.25", col[s],
		xpos(fmax(0.5, (double)fb_bucket_lo((unsigned int)imin)), lmin, lmax), y0);
	for (int i = imin; i <= imax; i++) {
		double x1 = xpos(fmax(0.5, (double)fb_bucket_lo((unsigned int)i)), lmin, lmax);
		double x2 = xpos((double)fb_bucket_hi((unsigned int)i) + 1, lmin, lmax);
		double y = y0 - (peak > 0 ? dens[i] / peak : 0) * hgt;

		fprintf(f, " L%.1f %.1f L%.1f %.1f", x1, y, x2, y);
	}
	fprintf(f, " L%.1f %.1f Z\"/>\n",
		xpos((double)fb_bucket_hi((unsigned int)imax) + 1, lmin, lmax), y0);
	med = fb_hist_percentile(&hp->h[s], 50);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-dasharray=\"4 3\"/>\n", xpos(med, lmin, lmax), MT,
		xpos(med, lmin, lmax), y0, col[s]);
	unit_label(med, unit, 0, a, sizeof(a));
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		"<text class=\"legend\" x=\"%d\" y=\"%d\">", ML, 24 + 16 * s, col[s], ML + 14,
		33 + 16 * s);
	fb_html_esc(f, name);
	fb_fmt_count((double)hp->h[s].count, lab, sizeof(lab));
	fprintf(f, ": %s samples in %d round%s, median %s</text>\n", lab, hp->rounds[s],
		hp->rounds[s] == 1 ? "" : "s", a);
}

void fb_svg_hist(FILE *f, const struct fb_hpair *hp, const char *const names[2])
{
	int imin = FB_NBUCKETS, imax = -1;
	double dens[2][FB_NBUCKETS], peak, lmin, lmax, pad;

	peak = hist_density(hp, dens, &imin, &imax);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", SVG_W, SVG_H);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">",
		ML);
	fb_html_esc(f, hp->probe);
	fputs(" &#8212; ", f);
	fb_html_esc(f, hp->stat);
	fputs("</text>\n", f);
	if (imax < 0) {
		fprintf(f, "<text x=\"%d\" y=\"%d\">no samples on either side</text>\n</svg>\n",
			ML, SVG_H / 2);
		return;
	}
	lmin = log10(fmax(0.5, (double)fb_bucket_lo((unsigned int)imin)));
	lmax = log10((double)fb_bucket_hi((unsigned int)imax) + 1);
	pad = fmax(0.08, (lmax - lmin) * 0.06);
	lmin -= pad;
	lmax += pad;
	hist_axes(f, lmin, lmax, peak, hp);
	for (int s = 0; s < 2; s++)
		if (hp->h[s].count)
			hist_side(f, hp, s, dens[s], peak, imin, imax, lmin, lmax, names[s]);
	fputs("</svg>\n", f);
}

/* probe p's statistic k merged over side sd's rounds into x */
static void collect_one(struct fb_hpair *x, int s, const struct fb_side *sd)
{
	for (int i = 0; i < sd->n; i++) {
		const struct fb_probe_result *pr = fb_result_probe(sd->r[i], x->probe);
		int had = 0;

		if (!pr || pr->status != FB_ATTACHED)
			continue;
		for (int j = 0; j < pr->nstats; j++)
			if (!strcmp(pr->stats[j].name, x->stat) && pr->stats[j].h.count) {
				fb_hist_merge(&x->h[s], &pr->stats[j].h);
				had = 1;
			}
		x->rounds[s] += had;
	}
}

int fb_hist_collect(const struct fb_cmp *c, struct fb_hpair **out)
{
	const struct fb_result *r0 = c->base.r[0];
	struct fb_hpair *hp = calloc((size_t)r0->nprobes * FB_MAX_STATS + 1, sizeof(*hp));
	int n = 0;

	if (!hp)
		return -1;
	for (int p = 0; p < r0->nprobes; p++)
		for (int k = 0; k < r0->probes[p].nstats && k < FB_MAX_STATS; k++) {
			struct fb_hpair *x = &hp[n];

			memset(x, 0, sizeof(*x));	/* a pair without samples is reused */
			snprintf(x->probe, sizeof(x->probe), "%s", r0->probes[p].name);
			snprintf(x->stat, sizeof(x->stat), "%s", r0->probes[p].stats[k].name);
			collect_one(x, 0, &c->base);
			collect_one(x, 1, &c->new);
			if (x->h[0].count || x->h[1].count)
				n++;
		}
	*out = hp;
	return n;
}
