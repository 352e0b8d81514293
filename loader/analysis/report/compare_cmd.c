// SPDX-License-Identifier: GPL-2.0
/*
 * compare_cmd.c - `foliobench compare BASE NEW`: the model (cmpmodel.h),
 * with the gate's verdict on each gated row (gate/rowverdict.h), printed
 * by the renderer (render.h).  Design: docs/compare.md.
 */
#include <argp.h>
#include <errno.h>
#include <string.h>

#include "analysis/compare/compare.h"
#include "analysis/gate/rowverdict.h"
#include "analysis/report/compare_cmd.h"
#include "util/cli.h"
#include "util/outfile.h"
#include "util/util.h"

static const struct argp_option compare_options[] = {
	{ "format", 'f', "FMT", 0, "text (default), md or csv", 0 },
	{ 0 },
};

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

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	enum fb_fmt *fmt = state->input;

	if (key != 'f')
		return ARGP_ERR_UNKNOWN;
	if (!parse_format(arg, fmt))
		return 0;
	fb_err("compare: unknown --format '%s' (text, md or csv)", arg);
	return EINVAL;
}

static const struct argp compare_argp = {
	compare_options, compare_parse, FB_CMP_ARGS_DOC,
	"Compares two sides of rounds, metric by metric, with a verdict for each.  "
	FB_CMP_OPERANDS_DOC "\vThe statistics and the verdicts: docs/compare.md.  Exit status "
	"0, or 2 on bad input (one line on stderr).",
	NULL, NULL, NULL,
};

int cmd_compare(int argc, char **argv)
{
	struct fb_cmp_args ca = FB_CMP_ARGS("compare");
	enum fb_fmt fmt = FB_FMT_TEXT;
	struct fb_cmp c;
	int r = fb_argp_parse_shared(&compare_argp, &fmt, &fb_cmp_effect_argp, &ca, argc, argv,
				     NULL);

	if (r)
		return r == 1 ? 0 : 2;
	if (fb_cmp_open_args(&c, &ca)) {
		fb_cmp_free(&c);
		return 2;
	}
	if (fb_gate_rows(&c)) {	/* no row printed with a verdict it does not have */
		fb_cmp_free(&c);
		return 2;
	}
	fb_term_stdout();	/* nothing from data reaches the terminal as a control */
	fb_cmp_print_header(stdout, &c, fmt);
	fb_cmp_print(stdout, &c, fmt);
	fb_cmp_free(&c);
	return fflush(stdout) ? 2 : 0;
}

int fb_cmp_summary(FILE *f, const char *dir, const char *base_arm, const char *new_arm)
{
	char err[512], *paths[1] = { (char *)dir };
	struct fb_cmp c;
	int ret;

	ret = fb_cmp_open(&c, 1, paths, base_arm, new_arm, FB_CMP_DEFAULT_ALPHA,
			  FB_CMP_DEFAULT_MIN_EFFECT, 0, err, sizeof(err));
	if (ret) {
		fb_one_line(err);
		fb_err("summary: %s", err);
	} else if (fb_gate_rows(&c)) {
		ret = -1;
	} else {
		fputc('\n', f);
		fb_cmp_print_header(f, &c, FB_FMT_TEXT);
		fb_cmp_print(f, &c, FB_FMT_TEXT);
	}
	fb_cmp_free(&c);
	fflush(f);
	return ret ? -1 : 0;
}
