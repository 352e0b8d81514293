// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - the one renderer of the comparison model (render.h): numbers,
 * escapers, and the tables in text, Markdown, HTML and CSV.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/render.h"

#define MAX_ROWS	512	/* rows of a model (model.c) */

/* ---- number formatting ---- */

void fb_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);

	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (a < 1e3)
		snprintf(buf, len, "%.1f ns", ns);
	else	/* 4 significant digits: 1.024 us, 21.42 us, 360.3 us */
		for (int i = 0; i < 3; i++) {
			static const char *const u[] = { "us", "ms", "s" };
			double v = ns / pow(10, 3 * (i + 1)), av = fabs(v);

			if (av >= 999.95 && i < 2)
				continue;
			snprintf(buf, len, "%.*f %s", av < 9.9995 ? 3 : av < 99.995 ? 2 : 1, v, u[i]);
			return;
		}
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

void fb_fmt_value(const struct fb_metric *m, double v, char *buf, size_t len)
{
	char tmp[64];

	if (!strcmp(m->unit, "ns")) {
		fb_fmt_ns(v, buf, len);
		return;
	}
	fb_fmt_count(v, tmp, sizeof(tmp));
	if (m->unit[0] && strcmp(m->unit, "count"))
		snprintf(buf, len, "%s %s", tmp, m->unit);
	else
		snprintf(buf, len, "%s", tmp);
}

/* a count's ratio NEW/BASE, 3 significant digits: x0.998, x1.5, x1/10,025, x2,048 */
static void ratio_str(double r, char *buf, size_t len)
{
	char n[48];

	if (r > 0 && r < 0.01) {
		fb_fmt_count(round(1 / r), n, sizeof(n));
		snprintf(buf, len, "x1/%s", n);
	} else if (r >= 1000) {
		fb_fmt_count(round(r), n, sizeof(n));
		snprintf(buf, len, "x%s", n);
	} else {
		snprintf(buf, len, "x%.3g", r);
	}
}

/* ---- tables ---- */

#define TMAXC	12
#define TMAXR	(MAX_ROWS * 2)
#define TCELL	1024	/* a workload's ops cell lists every op count (26 with lock rows: ~700) */

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

void fb_csv_esc(FILE *f, const char *s)
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

/* Markdown: backslash before what would end a cell or start code or a link */
/* Markdown from data: no HTML, no table-breaking pipe or newline, no control. */
void fb_md_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '&')
			fputs("&amp;", f);
		else if (ch < 0x20 || ch == 0x7f)
			fputc(' ', f);
		else if (strchr("|`[]\\", ch) && ch)
			fprintf(f, "\\%c", ch);
		else
			fputc(ch, f);
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
			fb_md_esc(f, t->hdr[c]);
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
				fb_md_esc(f, t->cell[r][c]);
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
				fprintf(f, "<td%s>", t->left[c] == 2 ? " class=\"l ops\"" :
				t->left[c] ? " class=\"l\"" : "");
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

	if (m->gated) {		/* the gate's word, on the statistic it decides */
		snprintf(buf, len, "%s (%s)", m->gate_word, m->gate_why);
		return;
	}
	if (m->incomparable && m->v == FB_V_INCONCLUSIVE) {	/* the row's note says which */
		snprintf(buf, len, "%s (method differs)", v);
		return;
	}
	if (m->type == FB_M_COUNT && (m->deterministic || m->v == FB_V_NOCHANGE) &&
	    !m->st.have_mwu) {
		snprintf(buf, len, "%s%s", v, m->deterministic ? " (exact)" : "");
		return;
	}
	if (m->st.have_mwu && m->st.have_ci) {
		double lo = (m->st.ci_lo - 1) * 100, hi = (m->st.ci_hi - 1) * 100;

		/* 3 significant digits up to +/-999%: -14.2%..+98.5%, -100%..+1100% */
		snprintf(buf, len, "%s (p=%.2g, CI %+.*f%%..%+.*f%%)", v, m->st.mwu.p_two,
			 fabs(lo) < 99.95 ? 1 : 0, lo, fabs(hi) < 99.95 ? 1 : 0, hi);
	} else if (m->st.have_mwu)
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
	fb_fmt_value(m, v, buf, len);
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
	for (int k = 0; k < row->nm; k++) {
		const struct fb_metric *m = row->m[k];
		char v[40], one[120];
		int n;

		if (strncmp(m->name, "ops.", 4) || !(side ? m->nb : m->na))
			continue;
		fb_fmt_count(fb_median(side ? m->b : m->a, side ? m->nb : m->na), v, sizeof(v));
		n = snprintf(one, sizeof(one), "%s%s=%s", o ? " " : "", m->name + 4, v);
		if (n < 0 || o + (size_t)n + 5 > len) {	/* room for " ..." */
			snprintf(buf + o, len - o, " ...");
			break;
		}
		memcpy(buf + o, one, (size_t)n + 1);
		o += (size_t)n;
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
		fb_md_esc(f, s);
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
	      "base_cv_pct,new_cv_pct,base_method,new_method,gate_verdict\n", f);
	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];

		for (int k = 0; k < row->nm; k++) {
			const struct fb_metric *m = row->m[k];

			fprintf(f, "%s,", fb_row_kind_name(row->kind));
			fb_csv_esc(f, row->name);
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
			fb_csv_esc(f, m->per);
			fprintf(f, ",%d,%s,", m->deterministic, fb_verdict_name(m->v));
			csv_pct(f, fb_rel_sd(m->a, m->na));
			fputc(',', f);
			csv_pct(f, fb_rel_sd(m->b, m->nb));
			fputc(',', f);
			fb_csv_esc(f, row->method[0]);
			fputc(',', f);
			fb_csv_esc(f, row->method[1]);
			fprintf(f, ",%s\n", m->gated ? m->gate_word : "");
		}
	}
}

/* The function, lock, other-probe and workload tables: an arm per line. */
static void print_arm_tables(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt)
{
	static const char *const fh[] = { "Function", "Arm", "Calls", "Total", "Avg/call",
					   "p50", "p90", "p99", "cmean", "Delta", "Verdict" };
	static const char *const lh[] = { "Lock", "Arm", "Acquisitions", "Contentions",
					  "Wait total", "Wait avg", "Hold p50", "Hold avg", "Hold p99",
					  "Delta", "Verdict" };
	static const char *const oh[] = { "Probe", "Arm", "Count", "Mean", "p99", "Delta", "Verdict" };
	static const char *const wh[] = { "Workload", "Arm", "Wall time", "Ops", "Delta", "Verdict" };
	static const struct {
		const char *title;
		enum fb_row_kind kind;
		int ncols, ndata;
		const char *const *hdr;
		int cols[7];
	} tabs[] = {
		{ "Function probes: latency per call (Delta and verdict: the statistic the gate "
		  "decides, named in the verdict, with the gate's word; else Avg/call; cmean: the "
		  "mean of the common path, the icount gate's)", FB_ROW_FUNC,
		  11, 7, fh, { 0, 1, 2, 3, 4, 5, 6 } },
		{ "Lock probes (Delta and verdict: the statistic the gate decides, named in the "
		  "verdict, with the gate's word; else Hold avg)", FB_ROW_LOCK, 11, 7, lh,
		  { 0, 6, 1, 2, 7, 3, 4 } },
		{ "Other probes (first statistic)", FB_ROW_OTHER, 7, 3, oh, { 0, 1, 2 } },
		{ "Workloads: wall time (op counts: median per round)", FB_ROW_WORKLOAD, 6, 2, wh,
		  { 0, -1 } },
	};
	struct table t;

	for (size_t k = 0; k < sizeof(tabs) / sizeof(tabs[0]); k++) {
		t_init(&t, tabs[k].title, tabs[k].ncols, tabs[k].hdr, 2);
		if (tabs[k].kind == FB_ROW_WORKLOAD)
			t.left[3] = 2;	/* left, and wraps in HTML (td.ops) */
		for (int i = 0; i < c->nrows; i++) {
			const struct fb_row *row = &c->rows[i];
			int first = t.nrows;

			if (row->kind != tabs[k].kind || (row->kind == FB_ROW_OTHER && row->nm < 3))
				continue;
			arm_rows(c, &t, row, tabs[k].cols, tabs[k].ndata);
			if (row->kind == FB_ROW_WORKLOAD)
				for (int r = first; r < t.nrows; r++)
					ops_cell(row, r - first, t.cell[r][3], TCELL);
		}
		t_print(f, &t, fmt);
		t_free(&t);
	}
}

/*
 * "Before After" tables of one-line items: contention (wait, contentions)
 * and extra values (value); Delta and verdict of the first metric.
 */
static void print_before_after(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt,
			       enum fb_row_kind kind)
{
	static const char *const ch[] = { "Lock", "wait: Before", "After", "contentions: Before",
					  "After", "Delta (wait)", "Verdict" };
	static const char *const xh[] = { "Value", "Before", "After", "Delta", "Verdict" };
	int nval = kind == FB_ROW_CONTENTION ? 2 : 1;
	struct table t;

	if (kind == FB_ROW_CONTENTION)
		t_init(&t, "Contention (lock:contention_begin/end)", 7, ch, 1);
	else
		t_init(&t, "Other values (extra)", 5, xh, 1);
	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];
		char (*cell)[TCELL];

		if (row->kind != kind || row->nm < nval)
			continue;
		cell = t_row(&t, 1, (int)row->m[0]->v);
		if (!cell)
			break;
		snprintf(cell[0], TCELL, "%s", row->name);
		for (int k = 0; k < nval; k++) {
			val_str(row->m[k], 0, cell[1 + 2 * k], TCELL);
			val_str(row->m[k], 1, cell[2 + 2 * k], TCELL);
		}
		delta_str(row->m[0], cell[1 + 2 * nval], TCELL);
		verdict_str(row->m[0], cell[2 + 2 * nval], TCELL);
	}
	t_print(f, &t, fmt);
	t_free(&t);
}

static void print_counts(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt)
{
	static const char *const kh[] = { "Count", "Before", "After", "Per", "Ratio", "Verdict" };
	struct table t;

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
			snprintf(cell[0], TCELL, "%.70s %.47s", row->name, m->name);
			val_str(m, 0, cell[1], TCELL);
			val_str(m, 1, cell[2], TCELL);
			snprintf(cell[3], TCELL, "%s", m->per[0] ? m->per : "run");
			if (m->na && m->nb && m->base)
				ratio_str(m->new / m->base, cell[4], TCELL);
			else
				snprintf(cell[4], TCELL, "-");
			verdict_str(m, cell[5], TCELL);
		}
	}
	t_print(f, &t, fmt);
	t_free(&t);
}

void fb_cmp_print(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt)
{
	if (fmt == FB_FMT_CSV) {
		print_csv(f, c);
		return;
	}
	print_arm_tables(f, c, fmt);
	print_before_after(f, c, fmt, FB_ROW_CONTENTION);
	print_counts(f, c, fmt);
	print_before_after(f, c, fmt, FB_ROW_EXTRA);
	for (int i = 0; i < c->nrows; i++)
		if (c->rows[i].note[0]) {
			char line[400];

			snprintf(line, sizeof(line), "%s %s: %s", fb_row_kind_name(c->rows[i].kind),
				 c->rows[i].name, c->rows[i].note);
			notes_print(f, fmt, line);
		}
	/* what went wrong in the runs (runs.h): the gate passes none of it */
	for (int s = 0; s < 2; s++) {
		const struct fb_side *sd = s ? &c->new : &c->base;

		for (int i = 0; i < sd->iss.kept; i++) {
			char line[400];

			snprintf(line, sizeof(line), "run: %s %s %s%s", s ? "NEW" : "BASE", sd->name,
				 sd->iss.v[i].what, i + 1 == sd->iss.kept && sd->iss.n > sd->iss.kept ?
				 " (and more)" : "");
			notes_print(f, fmt, line);
		}
	}
}

const char *fb_cmp_clock_note(const struct fb_cmp *c)
{
	if (fb_cmp_icount(c))
		return "Times are instruction-paced virtual time (qemu icount: 1 ns = 2^shift "
		       "ns per instruction executed), not host time.";
	return "Times are guest time under the host's clock.";
}

void fb_cmp_print_header(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt)
{
	if (fmt == FB_FMT_TEXT || fmt == FB_FMT_MD)
		fprintf(f, "%s\n", fb_cmp_clock_note(c));
	if (fmt == FB_FMT_TEXT)
		fprintf(f, "BASE %s: %d round(s) from %s\nNEW  %s: %d round(s) from %s\n"
			"Values are medians across rounds. Verdict of a gated row: the gate's "
			"(`foliobench gate` without options) on the statistic it decides, named "
			"in the cell; of the rest: two-sided Mann-Whitney U "
			"(alpha %g) + bootstrap 95%% CI of the median ratio + minimum effect %g%%; "
			"counts compared exactly when deterministic.\n\n",
			c->base.name, c->base.n, c->base.path, c->new.name, c->new.n, c->new.path,
			c->alpha, c->min_effect);
	else if (fmt == FB_FMT_MD)
		fprintf(f, "BASE `%s`: %d round(s), NEW `%s`: %d round(s). Values are medians "
			"across rounds; a gated row's verdict is the gate's (`foliobench gate` "
			"without options) on the statistic it decides, named in the cell; the "
			"rest from a two-sided Mann-Whitney U test (alpha %g), a "
			"bootstrap 95%% CI of the median ratio and a minimum effect of %g%%; counts "
			"are compared exactly when deterministic.\n\n",
			c->base.name, c->base.n, c->new.name, c->new.n, c->alpha, c->min_effect);
}
