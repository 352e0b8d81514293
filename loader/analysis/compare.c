// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - `foliobench compare BASE NEW`: the model (model.h) printed
 * by the renderer (render.h).  Design: docs/compare.md.
 */
#include <getopt.h>
#include <string.h>

#include "analysis/compare.h"
#include "util/util.h"

static void compare_usage(FILE *f)
{
	fputs("usage: foliobench compare BASE NEW | AB_DIR [--format text|md|csv]\n"
	      "                          [--alpha A] [--min-effect PCT]\n"
	      "                          [--base-arm NAME] [--new-arm NAME]\n"
	      "  BASE, NEW: a results file or a directory of rounds (*.json, recursively)\n"
	      "  AB_DIR:    an `foliobench ab` directory: compares baseline/ with patched/\n", f);
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
	struct fb_cmp_args ca = { .cmd = "compare", .alpha = FB_CMP_DEFAULT_ALPHA, .alpha_max = 0.5,
				   .min_effect = FB_CMP_DEFAULT_MIN_EFFECT };
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
			  FB_CMP_DEFAULT_MIN_EFFECT, err, sizeof(err));
	if (ret) {
		fb_one_line(err);
		fb_err("summary: %s", err);
	} else {
		fputc('\n', f);
		fb_cmp_print_header(f, &c, FB_FMT_TEXT);
		fb_cmp_print(f, &c, FB_FMT_TEXT);
	}
	fb_cmp_free(&c);
	fflush(f);
	return ret ? -1 : 0;
}
