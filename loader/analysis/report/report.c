// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `foliobench report AB_DIR | BASE NEW [--out DIR]`:
 * report.md and a self-contained report.html (inline CSS and SVG, no
 * external assets) with the compare tables, per-probe histograms of
 * baseline and patched overlaid on a log-x axis, and what each arm ran on.
 * The SVGs are also written as files so report.md can show them.
 */
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/attrib/attrib_render.h"
#include "analysis/compare/claims.h"
#include "analysis/compare/compare.h"
#include "analysis/compare/html.h"
#include "analysis/gate/rowverdict.h"
#include "analysis/report/report.h"
#include "util/cli.h"
#include "util/outfile.h"

#define SVG_W	680
#define SVG_H	270
#define ML	54	/* margins */
#define MR	16
#define MT	60
#define MB	40

/* A file name from a probe name: [A-Za-z0-9_.-] only. */
static void safe_name(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 1 < len; in++)
		out[o++] = (*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
			   (*in >= '0' && *in <= '9') || *in == '_' || *in == '-' || *in == '.' ?
			   *in : '_';
	out[o] = '\0';
}

/* ---- histograms ---- */

struct hpair {
	char probe[64], stat[16];
	struct fb_hist h[2];	/* merged over rounds: base, new */
	int rounds[2];
};

static double xpos(double v, double lmin, double lmax)
{
	double l = log10(v < 0.5 ? 0.5 : v);

	return ML + (l - lmin) / (lmax - lmin) * (SVG_W - ML - MR);
}

static void tick_label(double v, char *buf, size_t len)
{
	if (v >= 1e9)
		snprintf(buf, len, "%gs", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%gms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%gus", v / 1e3);
	else
		snprintf(buf, len, "%gns", v);
}

/* grid, tick labels at 1, 2, 5 x 10^d, and the axes */
static void hist_axes(FILE *f, double lmin, double lmax, const char *unit)
{
	char lab[48];

	for (int pass = 0; pass < 2; pass++) {
		fputs(pass ? "<g fill=\"#333\" text-anchor=\"middle\">\n" : "<g stroke=\"#ddd\">\n", f);
		for (double d = floor(lmin); d <= ceil(lmax); d++)
			for (int k = 0; k < 3; k++) {
				static const double mult[3] = { 1, 2, 5 };
				double v = mult[k] * pow(10, d), x;

				if (log10(v) < lmin || log10(v) > lmax)
					continue;
				if (k && lmax - lmin > 3)	/* wide range: decades only */
					continue;
				x = xpos(v, lmin, lmax);
				if (!pass) {
					fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
						x, MT, x, SVG_H - MB);
				} else {
					tick_label(v, lab, sizeof(lab));
					fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", x,
						SVG_H - MB + 14, lab);
				}
			}
		if (!pass)
			fputs("</g>\n", f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">", (ML + SVG_W - MR) / 2, SVG_H - 8);
	fb_html_esc(f, unit);
	fputs(" (log scale)</text>\n", f);
	fprintf(f, "</g>\n<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
		"text-anchor=\"middle\" fill=\"#333\">density (per log unit)</text>\n",
		(MT + SVG_H - MB) / 2, (MT + SVG_H - MB) / 2);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
		ML, SVG_H - MB, SVG_W - MR, SVG_H - MB);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
		ML, MT, ML, SVG_H - MB);
}

/*
 * Density per log10 unit of each bucket (bucket fraction / log width), so
 * the curve shape does not depend on the bucket layout; both arms are
 * scaled to the larger peak.
 */
/*
 * Density per log unit of each side's buckets into dens, the buckets either
 * side has from *imin to *imax (imax -1: none); returns the highest density.
 */
static double hist_density(const struct hpair *hp, double dens[2][FB_NBUCKETS], int *imin,
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

static void svg_hist(FILE *f, const struct hpair *hp, const char *const names[2])
{
	static const char *const col[2] = { "#1f77b4", "#ff7f0e" };
	int imin = FB_NBUCKETS, imax = -1;
	double dens[2][FB_NBUCKETS], peak, lmin, lmax;
	char lab[48], a[32];

	peak = hist_density(hp, dens, &imin, &imax);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", SVG_W, SVG_H);
	fprintf(f, "<text x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", ML);
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
	{
		double pad = fmax(0.08, (lmax - lmin) * 0.06);

		lmin -= pad;
		lmax += pad;
	}
	hist_axes(f, lmin, lmax, hp->h[0].unit[0] ? hp->h[0].unit : "ns");
	for (int s = 0; s < 2; s++) {
		double y0 = SVG_H - MB, hgt = SVG_H - MB - MT - 4;
		double med;

		if (!hp->h[s].count)
			continue;
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\" "
			"stroke-width=\"1.2\" d=\"M%.1f %.1f",
			col[s], s ? "0.15" : "0.25", col[s],
			xpos(fmax(0.5, (double)fb_bucket_lo((unsigned int)imin)), lmin, lmax), y0);
		for (int i = imin; i <= imax; i++) {
			double x1 = xpos(fmax(0.5, (double)fb_bucket_lo((unsigned int)i)), lmin, lmax);
			double x2 = xpos((double)fb_bucket_hi((unsigned int)i) + 1, lmin, lmax);
			double y = y0 - (peak > 0 ? dens[s][i] / peak : 0) * hgt;

			fprintf(f, " L%.1f %.1f L%.1f %.1f", x1, y, x2, y);
		}
		fprintf(f, " L%.1f %.1f Z\"/>\n",
			xpos((double)fb_bucket_hi((unsigned int)imax) + 1, lmin, lmax), y0);
		med = fb_hist_percentile(&hp->h[s], 50);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-dasharray=\"4 3\"/>\n", xpos(med, lmin, lmax), MT,
			xpos(med, lmin, lmax), y0, col[s]);
		/* legend */
		fb_fmt_ns(med, a, sizeof(a));
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\">", ML, 24 + 16 * s, col[s], ML + 14, 33 + 16 * s);
		fb_html_esc(f, names[s]);
		fb_fmt_count((double)hp->h[s].count, lab, sizeof(lab));
		fprintf(f, ": %s samples in %d round(s), median %s</text>\n", lab, hp->rounds[s], a);
	}
	fputs("</svg>\n", f);
}

static int collect_hists(const struct fb_cmp *c, struct hpair **out)
{
	const struct fb_result *r0 = c->base.r[0];
	const struct fb_side *sd[2] = { &c->base, &c->new };
	struct hpair *hp = calloc((size_t)r0->nprobes * FB_MAX_STATS + 1, sizeof(*hp));
	int n = 0;

	if (!hp)
		return -1;
	for (int p = 0; p < r0->nprobes; p++)
		for (int k = 0; k < r0->probes[p].nstats && k < FB_MAX_STATS; k++) {
			struct hpair *x = &hp[n];

			snprintf(x->probe, sizeof(x->probe), "%s", r0->probes[p].name);
			snprintf(x->stat, sizeof(x->stat), "%s", r0->probes[p].stats[k].name);
			for (int s = 0; s < 2; s++)
				for (int i = 0; i < sd[s]->n; i++) {
					const struct fb_probe_result *pr =
						fb_result_probe(sd[s]->r[i], x->probe);

					if (!pr || pr->status != FB_ATTACHED)
						continue;
					for (int j = 0; j < pr->nstats; j++)
						if (!strcmp(pr->stats[j].name, x->stat)) {
							fb_hist_merge(&x->h[s], &pr->stats[j].h);
							x->rounds[s]++;
						}
				}
			if (x->h[0].count || x->h[1].count)
				n++;
		}
	*out = hp;
	return n;
}

/* ---- arms ---- */

struct arminfo {
	const char *label;
	const char *val[2];
	int varies[2];
};

static void arm_field(const struct fb_side *s, size_t off, const char **val, int *varies)
{
	*val = (const char *)s->r[0] + off;
	*varies = 0;
	for (int i = 1; i < s->n; i++)
		if (strcmp(*val, (const char *)s->r[i] + off))
			(*varies)++;
}

#define HOST_OFF(f) offsetof(struct fb_result, host.f)

/* The Arms table after its rounds row: where each side was read from, then its hosts. */
static int arm_table(const struct fb_cmp *c, struct arminfo *ai)
{
	static const struct {
		const char *label;
		size_t off;
	} fields[] = {
		{ "kernel release", HOST_OFF(release) },
		{ "kernel version", HOST_OFF(version) },
		{ "config sha256", HOST_OFF(config_sha256) },
		{ "build id", HOST_OFF(build_id) },
		{ "cmdline", HOST_OFF(cmdline) },
		{ "cpu", HOST_OFF(cpu_model) },
		{ "arm (foliobench.arm=)", HOST_OFF(arm) },
		{ "label", offsetof(struct fb_result, label) },
		{ "tool version", offsetof(struct fb_result, tool_version) },
	};
	int n = (int)(sizeof(fields) / sizeof(fields[0]));

	ai[0] = (struct arminfo){ "source", { c->base.path, c->new.path }, { 0, 0 } };
	for (int i = 0; i < n; i++) {
		ai[i + 1].label = fields[i].label;
		arm_field(&c->base, fields[i].off, &ai[i + 1].val[0], &ai[i + 1].varies[0]);
		arm_field(&c->new, fields[i].off, &ai[i + 1].val[1], &ai[i + 1].varies[1]);
	}
	return n + 1;
}

/*
 * How one format writes the rows of the Arms table: each piece is put as
 * it stands, around the label, each side's value (escaped, "-" if empty)
 * and, where the rounds of a side disagree, the count of those that do.
 */
struct arm_fmt {
	void (*esc)(FILE *f, const char *s);
	const char *row, *label_end, *cell, *varies, *varies_end, *cell_end, *row_end;
};

static const struct arm_fmt md_rows = {
	fb_md_esc, "| ", " |", " ", " ", "", " |", "\n",
};

static const struct arm_fmt html_rows = {
	fb_html_esc, "<tr><td class=\"l\">", "</td>", "<td class=\"l wrap\">", " <em>", "</em>",
	"</td>", "</tr>\n",
};

static void arm_rows(FILE *f, const struct arm_fmt *af, const struct arminfo *ai, int nai)
{
	for (int i = 0; i < nai; i++) {
		fprintf(f, "%s%s%s", af->row, ai[i].label, af->label_end);
		for (int s = 0; s < 2; s++) {
			fputs(af->cell, f);
			af->esc(f, ai[i].val[s][0] ? ai[i].val[s] : "-");
			if (ai[i].varies[s])
				fprintf(f, "%s(differs in %d round(s))%s", af->varies,
					ai[i].varies[s], af->varies_end);
			fputs(af->cell_end, f);
		}
		fputs(af->row_end, f);
	}
}

/* The Results section's first paragraph, both formats: how rows are decided; then tail. */
static void method_note(FILE *f, const struct fb_cmp *c, const char *tail)
{
	fprintf(f, "%s Values are medians across rounds. A gated row's Delta and Verdict are "
		"`foliobench gate`'s (without options), on the statistic it decides, named in "
		"the cell with its test: one-sided, per-call cmean (icount) or p50 and p90, lock "
		"hold p50 (not the Hold avg beside it) or the row's declared metric, Welch's t on "
		"logs (icount) or Mann-Whitney, Holm over the gated rows, a %s threshold: the "
		"same word as the gate's line.  The other rows (counts, contention, the "
		"observer's own): two-sided Mann-Whitney U at alpha %g, bootstrap 95%% CI of the "
		"ratio of medians, minimum effect %g%%; counts compared exactly when "
		"deterministic%s", fb_cmp_clock_note(c), fb_cmp_icount(c) ? "0.5%" : "5%",
		c->alpha, c->min_effect, tail);
}

/* ---- the two files ---- */

static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
	"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em}"
	"h3{font-size:1.05em;margin-top:1.5em}"
	"table{border-collapse:collapse;font-size:.85em;margin:.5em 0}"
	"th,td{padding:.25em .6em;text-align:right;border-bottom:1px solid #eee;white-space:nowrap}"
	"th{background:#f4f4f4}.l{text-align:left}tr.g td{border-top:1px solid #bbb}"
	"tr.v-improved td:last-child{color:#1a7f37;font-weight:600}"
	"tr.v-regressed td:last-child{color:#cf222e;font-weight:600}"
	"tr.v-changed td:last-child{color:#9a6700;font-weight:600}"
	"tr.v-inconclusive td:last-child{color:#777}"
	"code,pre{background:#f6f8fa;padding:.1em .3em;font-size:.85em}pre{padding:.6em;overflow-x:auto}"
	".note{color:#555;font-size:.85em;margin:.2em 0}.hists{display:flex;flex-wrap:wrap;gap:1em}"
	".wrap{white-space:normal;word-break:break-all;max-width:480px}"
	"td.ops{white-space:normal;min-width:14em;max-width:32em}"
	"td:last-child{white-space:normal;min-width:14em}";

/* What the report's files are written from. */
struct rctx {
	const struct fb_cmp *c;
	const char *cmd, *when;
	struct arminfo ai[16];
	int nai, nh, cur;	/* cur: the histogram an SVG file is written for */
	struct hpair *hp;
	char (*svgnames)[160];
	const struct fb_claims *claims;	/* the first section */
};

static void write_md(FILE *f, const struct rctx *x)
{
	const struct fb_cmp *c = x->c;
	const char *cmd = x->cmd, *when = x->when;
	const struct arminfo *ai = x->ai;
	const struct hpair *hp = x->hp;
	int nai = x->nai, nh = x->nh;
	fputs("# foliobench report: ", f);
	fb_md_esc(f, c->base.name);
	fputs(" vs ", f);
	fb_md_esc(f, c->new.name);
	fprintf(f, "\n\nProduced by `");
	fb_md_esc(f, cmd);
	fprintf(f, "` on %s.\n\n## Claims\n\n", when);
	fb_claims_print(f, x->claims, FB_FMT_MD);
	fputs("\n## Arms\n\n| | ", f);
	fb_md_esc(f, c->base.name);
	fputs(" (BASE) | ", f);
	fb_md_esc(f, c->new.name);
	fputs(" (NEW) |\n|:---|:---|:---|\n", f);
	fprintf(f, "| rounds | %d | %d |\n", c->base.n, c->new.n);
	arm_rows(f, &md_rows, ai, nai);
	fputs("\n## Results\n\n", f);
	method_note(f, c, " (docs/compare.md).\n\n");
	fb_cmp_print(f, c, FB_FMT_MD);
	if (nh) {
		fprintf(f, "\n## Histograms\n\nBASE blue, NEW orange, log-x; dashed lines are medians. "
			"Also in report.html.\n\n");
		for (int i = 0; i < nh; i++) {
			fputs("![", f);
			fb_md_esc(f, hp[i].probe);
			fputc(' ', f);
			fb_md_esc(f, hp[i].stat);
			fprintf(f, "](%s)\n\n", x->svgnames[i]);
		}
	}
}

static void write_html(FILE *f, const struct rctx *x)
{
	const struct fb_cmp *c = x->c;
	const char *names[2] = { c->base.name, c->new.name };
	const char *cmd = x->cmd, *when = x->when;
	const struct arminfo *ai = x->ai;
	const struct hpair *hp = x->hp;
	int nai = x->nai, nh = x->nh;
	char title[2 * sizeof(c->base.name) + 32];

	fb_fmt(title, sizeof(title), "foliobench: %s vs %s", c->base.name, c->new.name);
	fb_html_begin(f, title, css);
	fputs("<h1>foliobench report: ", f);
	fb_html_esc(f, c->base.name);
	fputs(" vs ", f);
	fb_html_esc(f, c->new.name);
	fputs("</h1>\n<p>Produced by <code>", f);
	fb_html_esc(f, cmd);
	fprintf(f, "</code> on %s.</p>\n<h2>Claims</h2>\n", when);
	fb_claims_print(f, x->claims, FB_FMT_HTML);
	fputs("<h2>Arms</h2>\n<table><thead><tr><th class=\"l\"></th><th class=\"l\">", f);
	fb_html_esc(f, c->base.name);
	fputs(" (BASE)</th><th class=\"l\">", f);
	fb_html_esc(f, c->new.name);
	fprintf(f, " (NEW)</th></tr></thead><tbody>\n<tr><td class=\"l\">rounds</td>"
		"<td class=\"l\">%d</td><td class=\"l\">%d</td></tr>\n", c->base.n, c->new.n);
	arm_rows(f, &html_rows, ai, nai);
	fputs("</tbody></table>\n<h2>Results</h2>\n<p>", f);
	method_note(f, c, ".</p>\n");
	fb_cmp_print(f, c, FB_FMT_HTML);
	if (nh) {
		fputs("<h2>Histograms</h2>\n<p>BASE blue, NEW orange, log-x; dashed lines are "
		      "medians. Merged over all rounds of each arm.</p>\n<div class=\"hists\">\n", f);
		for (int i = 0; i < nh; i++)
			svg_hist(f, &hp[i], names);
		fputs("</div>\n", f);
	}
	fb_html_end(f);
}

static void join_cmd(int argc, char **argv, char *buf, size_t len)
{
	size_t o = 0;

	o += (size_t)snprintf(buf, len, "foliobench");
	for (int i = 0; i < argc && o < len; i++) {
		const char *a = argv[i];
		int q = !*a || strpbrk(a, " \t'\"$\\;&|<>*?()");

		o += (size_t)snprintf(buf + o, len - o, q ? " '%s'" : " %s", a);
	}
}

static void write_svg(FILE *f, const struct rctx *x)
{
	const char *names[2] = { x->c->base.name, x->c->new.name };

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	svg_hist(f, &x->hp[x->cur], names);
}

/* dir/name written by fn, whole or not at all; 0, or -1 with one line printed */
static int emit(const char *dir, const char *name, void (*fn)(FILE *, const struct rctx *),
		const struct rctx *x)
{
	char p[800], err[PATH_MAX + 128];
	struct fb_out o;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (fb_out_open(&o, p, err, sizeof(err)))
		goto fail;
	fn(o.f, x);
	if (!fb_out_commit(&o, err, sizeof(err)))
		return 0;
fail:
	fb_err("report: %s", err);
	return -1;
}

/*
 * A side's name where it becomes a directory name: a portable name, or
 * "NAME (ARM)" of one; 0, or -1 after one line (never a path from data).
 */
static int name_ok(const struct fb_side *s)
{
	char n[sizeof(s->name)], err[256];
	char *sp;

	snprintf(n, sizeof(n), "%s", s->name);
	sp = strchr(n, ' ');
	if (sp && sp[1] == '(' && sp[strlen(sp) - 1] == ')') {
		sp[strlen(sp) - 1] = '\0';
		if (fb_name_check("arm name", sp + 2, err, sizeof(err)))
			goto bad;
		*sp = '\0';
	}
	if (!fb_name_check("arm name", n, err, sizeof(err)))
		return 0;
bad:
	fb_err("report: %s: %s; give --out DIR", s->path, err);
	return -1;
}

/* AB_DIR itself, results/report-<base>-vs-<new>, or --out; 0 or -1 (said why) */
static int out_dir(const struct fb_cmp *c, const char *out, const struct fb_cmp_args *a,
		   char *dir, size_t len)
{
	char tmp[512];
	size_t l;

	if (out) {
		snprintf(dir, len, "%s", out);
		return 0;
	}
	/* next to the input (DIR/report.*), never into the tracked reports/ */
	if (a->nops != 1) {
		if (name_ok(&c->base) || name_ok(&c->new))
			return -1;
		snprintf(dir, len, "results/report-%s-vs-%s", c->base.name, c->new.name);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s", a->ops[0]);
	l = strlen(tmp);
	while (l > 1 && tmp[l - 1] == '/')
		tmp[--l] = '\0';
	snprintf(dir, len, "%s", tmp);
	return 0;
}

/* report.md, report.html in dir: absent or regular files; 0, or -1 after one line */
static int outs_ok(const char *dir)
{
	static const char *const names[] = { "report.md", "report.html" };
	char p[800], err[PATH_MAX + 128];
	struct stat st;

	if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) {
		fb_err("report: --out %s: not a directory", dir);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (fb_out_check(p, err, sizeof(err))) {
			fb_err("report: %s", err);
			return -1;
		}
	}
	return 0;
}

/* The SVGs, report.md and report.html into dir; 0 or 2 */
static int write_all(const char *dir, struct rctx *x)
{
	x->nh = collect_hists(x->c, &x->hp);
	if (x->nh >= 0)
		x->svgnames = calloc((size_t)x->nh + 1, sizeof(*x->svgnames));
	if (x->nh < 0 || !x->svgnames) {
		fb_err("report: out of memory");
		return 2;
	}
	for (x->cur = 0; x->cur < x->nh; x->cur++) {
		char a[64], b[16];

		safe_name(x->hp[x->cur].probe, a, sizeof(a));
		safe_name(x->hp[x->cur].stat, b, sizeof(b));
		snprintf(x->svgnames[x->cur], sizeof(x->svgnames[0]), "hist-%s-%s.svg", a, b);
		if (emit(dir, x->svgnames[x->cur], write_svg, x))
			return 2;
	}
	if (emit(dir, "report.md", write_md, x) || emit(dir, "report.html", write_html, x))
		return 2;
	printf("report: wrote %s/report.md, %s/report.html and %d histogram(s)\n", dir, dir, x->nh);
	return 0;
}

static const struct argp_option report_options[] = {
	{ "out", 'o', "DIR", 0, "where report.md, report.html and hist-*.svg go (AB_DIR "
	  "itself; for BASE NEW: results/report-BASE-vs-NEW)", 0 },
	{ "claims", 'c', "FILE", 0, "the cover letters' claims for the Claims table: the "
	  "`claim` lines of an expectations file and its includes (default: "
	  "kernel-patches/SERIES/claims of the series of NEW's arm, arms.conf)", 0 },
	{ 0 },
};

struct report_cli {
	const char *out, *claims;
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_cli *r = state->input;

	if (key != 'o' && key != 'c')
		return ARGP_ERR_UNKNOWN;
	*(key == 'o' ? &r->out : &r->claims) = arg;
	return 0;
}

/* --claims FILE, or those of NEW's series; judged on c.  0, or 2 after one line. */
static int report_claims(struct fb_claims *cs, const char *path, const struct fb_cmp *c)
{
	char err[600];

	if (path ? fb_claims_read(cs, path, err, sizeof(err)) :
	    fb_claims_for_new(cs, c, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("report: %s", err);
		return 2;
	}
	if (fb_claims_check(cs, c, err, sizeof(err))) {
		fb_one_line(err);
		fb_err("report: %s", err);
		return 2;
	}
	fb_claims_eval(cs, c);
	return 0;
}

static const struct argp report_argp = {
	report_options, report_parse, FB_CMP_ARGS_DOC,
	"Writes the comparison of `foliobench compare` as report.md and a self-contained "
	"report.html (inline CSS and SVG), with per-probe histograms of BASE and NEW overlaid, "
	"and what each arm ran on.  " FB_CMP_OPERANDS_DOC "  An `ab --per-patch` directory "
	"gets the attribution report instead: which patch moved which metric.\vExit status 0, "
	"or 2 on bad input or when a file cannot be written (one line on stderr).",
	NULL, NULL, NULL,
};

int cmd_report(int argc, char **argv)
{
	struct fb_cmp_args ca = FB_CMP_ARGS("report");
	char dir[600], cmd[2048], when[64];
	struct rctx x = { .cmd = cmd, .when = when };
	struct report_cli rc = { NULL, NULL };
	struct fb_claims *cs = NULL;
	struct fb_cmp c = { 0 };
	time_t now = time(NULL);
	int ret = fb_argp_parse_shared(&report_argp, &rc, &fb_cmp_effect_argp, &ca, argc, argv,
				       NULL);
	const char *out = rc.out;

	if (ret)
		return ret == 1 ? 0 : 2;
	join_cmd(argc, argv, cmd, sizeof(cmd));
	if (ca.nops == 1 && fb_attrib_is_dir(ca.ops[0]))
		return fb_attrib_report(ca.ops[0], out, ca.alpha, ca.min_effect, cmd);
	ret = 2;
	if (fb_cmp_open_args(&c, &ca))
		goto out;
	if (fb_gate_rows(&c))	/* a gated row's verdict is the gate's */
		goto out;
	cs = calloc(1, sizeof(*cs));
	if (!cs) {
		fb_err("report: out of memory");
		goto out;
	}
	if (report_claims(cs, rc.claims, &c))
		goto out;
	x.claims = cs;
	if (out_dir(&c, out, &ca, dir, sizeof(dir)) || outs_ok(dir))
		goto out;
	if (fb_mkdir_p(dir)) {
		fb_err("report: cannot create %s: %s", dir, strerror(errno));
		goto out;
	}
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	x.c = &c;
	x.nai = arm_table(&c, x.ai);
	ret = write_all(dir, &x);
out:
	free(x.hp);
	free(x.svgnames);
	free(cs);
	fb_cmp_free(&c);
	return ret;
}
