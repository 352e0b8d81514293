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
#include "analysis/report/hist_svg.h"
#include "analysis/report/report.h"
#include "util/cli.h"
#include "util/outfile.h"


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
static void method_note(FILE *f, const struct fb_cmp *c, int html, const char *tail)
{
	const char *co = html ? "<code>" : "`", *cc = html ? "</code>" : "`";

	fprintf(f, "%s Values are medians across rounds. A gated row's Delta and Verdict are "
		"%sfoliobench gate%s's (without options), on the statistic it decides, named in "
		"the cell with its test: one-sided, per-call cmean (icount) or p50 and p90, lock "
		"hold p50 (not the Hold avg beside it) or the row's declared metric, Welch's t on "
		"logs (icount) or Mann-Whitney, Holm over the gated rows, a %s threshold: the "
		"same word as the gate's line.  The other rows (counts, contention, the "
		"observer's own): two-sided Mann-Whitney U at alpha %g, bootstrap 95%% CI of the "
		"ratio of medians, minimum effect %g%%; counts compared exactly when "
		"deterministic%s", co, cc, fb_cmp_clock_note(c), fb_cmp_icount(c) ? "0.5%" : "5%",
		c->alpha, c->min_effect, tail);
}

/* ---- the two files ---- */

static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:1440px;margin:2em auto;padding:0 1em;color:#222}"
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
	".hists svg{flex:1 1 560px;max-width:700px;height:auto}"
	"h2.verdict{font-size:1.4em;border:0;padding:.3em .5em;border-radius:4px}"
	".v-pass{background:#dafbe1;color:#1a7f37}.v-fail{background:#ffebe9;color:#cf222e}"
	".v-unknown,.v-error{background:#fff8c5;color:#9a6700}"
	".wrap{white-space:normal;overflow-wrap:anywhere;max-width:480px}"
	"td.ops{white-space:normal;min-width:14em;max-width:32em}"
	"td:last-child{white-space:normal;min-width:14em}";

/* What the report's files are written from. */
struct rctx {
	const struct fb_cmp *c;
	const char *cmd, *when;
	struct arminfo ai[16];
	int nai, nh, cur;	/* cur: the histogram an SVG file is written for */
	struct fb_hpair *hp;
	char (*svgnames)[160];
	const struct fb_claims *claims;	/* the second section */
	struct fb_gate_sum gs;		/* the first: the bare gate's verdict */
};

/* The first section: the bare gate's verdict on these rounds, both formats. */
static void verdict(FILE *f, const struct fb_gate_sum *g, int html)
{
	static const char *const word[] = { "pass", "FAIL", "cannot decide", "not shown safe" };
	static const char *const cls[] = { "pass", "fail", "error", "unknown" };
	const char *co = html ? "<code>" : "`", *cc = html ? "</code>" : "`";
	int rc = g->ran ? g->rc : 2;

	if (html)
		fprintf(f, "<h2 id=\"verdict\" class=\"verdict v-%s\">Verdict: %s</h2>\n<p>",
			cls[rc & 3], word[rc & 3]);
	else
		fprintf(f, "## Verdict: %s\n\n", word[rc & 3]);
	if (!g->ran) {
		fprintf(f, "The gate could not run on these rounds (%sfoliobench gate%s says why).%s",
			co, cc, html ? "</p>\n" : "\n\n");
		return;
	}
	fprintf(f, "%sfoliobench gate%s on these rounds (no options) exits %d. Of %d gated "
		"metrics: %d ok, %d REGRESSED, %d LOST, %d undecided%s", co, cc, rc, g->ngated,
		g->nok, g->nreg, g->nlost, g->nundecided,
		g->nrun_fail || g->nrun_unknown ? "; some runs failed or were interrupted" : "");
	fputc('.', f);
	if (rc == 3)
		fprintf(f, " Not shown safe: too noisy for the rounds run; more rounds may decide "
			"(%sab --until-decided 15%s).", co, cc);
	fprintf(f, " Declared trades (%sgate --expect FILE%s) and the claims below can change "
		"it (docs/gate.md).%s", co, cc, html ? "</p>\n" : "\n\n");
}

static void write_md(FILE *f, const struct rctx *x)
{
	const struct fb_cmp *c = x->c;
	const char *cmd = x->cmd, *when = x->when;
	const struct arminfo *ai = x->ai;
	const struct fb_hpair *hp = x->hp;
	int nai = x->nai, nh = x->nh;
	fputs("# foliobench report: ", f);
	fb_md_esc(f, c->base.name);
	fputs(" vs ", f);
	fb_md_esc(f, c->new.name);
	fputs("\n\n", f);
	verdict(f, &x->gs, 0);
	fputs("## Claims\n\n", f);
	fb_claims_print(f, x->claims, FB_FMT_MD);
	fputs("\n## Arms\n\nProduced by `", f);
	fb_md_esc(f, cmd);
	fprintf(f, "` on %s.\n\n| | ", when);
	fb_md_esc(f, c->base.name);
	fputs(" (BASE) | ", f);
	fb_md_esc(f, c->new.name);
	fputs(" (NEW) |\n|:---|:---|:---|\n", f);
	fprintf(f, "| rounds | %d | %d |\n", c->base.n, c->new.n);
	arm_rows(f, &md_rows, ai, nai);
	fputs("\n## Results\n\n", f);
	method_note(f, c, 0, " (docs/compare.md).\n\n");
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
	const struct fb_hpair *hp = x->hp;
	int nai = x->nai, nh = x->nh;
	char title[2 * sizeof(c->base.name) + 32];

	fb_fmt(title, sizeof(title), "foliobench: %s vs %s", c->base.name, c->new.name);
	fb_html_begin(f, title, css);
	fputs("<h1>foliobench report: ", f);
	fb_html_esc(f, c->base.name);
	fputs(" vs ", f);
	fb_html_esc(f, c->new.name);
	fputs("</h1>\n", f);
	verdict(f, &x->gs, 1);
	fputs("<h2 id=\"claims\">Claims</h2>\n", f);
	fb_claims_print(f, x->claims, FB_FMT_HTML);
	fputs("<h2>Arms</h2>\n<p>Produced by <code>", f);
	fb_html_esc(f, cmd);
	fprintf(f, "</code> on %s.</p>\n", when);
	fputs("<table><thead><tr><th class=\"l\"></th><th class=\"l\">", f);
	fb_html_esc(f, c->base.name);
	fputs(" (BASE)</th><th class=\"l\">", f);
	fb_html_esc(f, c->new.name);
	fprintf(f, " (NEW)</th></tr></thead><tbody>\n<tr><td class=\"l\">rounds</td>"
		"<td class=\"l\">%d</td><td class=\"l\">%d</td></tr>\n", c->base.n, c->new.n);
	arm_rows(f, &html_rows, ai, nai);
	fputs("</tbody></table>\n<h2>Results</h2>\n<p>", f);
	method_note(f, c, 1, ".</p>\n");
	fb_cmp_print(f, c, FB_FMT_HTML);
	if (nh) {
		fputs("<h2>Histograms</h2>\n<p>BASE blue, NEW orange, log-x; dashed lines are "
		      "medians. Merged over all rounds of each arm.</p>\n<div class=\"hists\">\n", f);
		for (int i = 0; i < nh; i++)
			fb_svg_hist(f, &hp[i], names);
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
	fb_svg_hist(f, &x->hp[x->cur], names);
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
	x->nh = fb_hist_collect(x->c, &x->hp);
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
	if (fb_gate_rows_sum(&c, &x.gs))	/* a gated row's verdict is the gate's */
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
