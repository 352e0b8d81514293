/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - the comparison model shared by compare, report and gate.
 *
 * Each side (BASE, NEW) is one results file or a directory of rounds.
 * fb_cmp_build() matches probes, workloads, contended locks and extra
 * values by name and makes one row per item; each row holds metrics with
 * one value per round per side, their medians and a verdict (stats.h).
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdio.h>

#include "model/fb.h"
#include "analysis/stats.h"

#define FB_CMP_MAX_ROUNDS	FB_STATS_MAX_N
#define FB_CMP_MAX_METRICS	16

struct fb_side {
	char path[512];		/* file or directory as given */
	char name[64];		/* arm: directory name, else host.arm, else "base"/"new" */
	int n;
	char **files;
	struct fb_result **r;
};

enum fb_row_kind {
	FB_ROW_FUNC,		/* func and callsite probes: latency */
	FB_ROW_LOCK,		/* lock probes: wait + hold */
	FB_ROW_OTHER,		/* other probe kinds: per stat count/mean/p99 */
	FB_ROW_WORKLOAD,
	FB_ROW_CONTENTION,	/* lock:contention_begin/end by lock */
	FB_ROW_EXTRA,		/* extra key/values */
	FB_ROW_NKINDS,
};

enum fb_metric_type {
	FB_M_NOISY,		/* latency, wall time: rank test + bootstrap */
	FB_M_COUNT,		/* compared exactly when deterministic */
};

struct fb_metric {
	char name[24];		/* calls, total, mean, p50, ..., wall, ops.X */
	char unit[8];		/* ns, count */
	enum fb_metric_type type;
	int lower_is_better;	/* 1, 0, or -1 for direction-neutral */
	int na, nb;
	double a[FB_CMP_MAX_ROUNDS], b[FB_CMP_MAX_ROUNDS];
	double base, new;	/* medians across rounds (per op if per[0]) */
	enum fb_verdict v;
	struct fb_cmp_stats st;
	int deterministic;	/* count found constant (per op if per[0]) */
	char per[48];		/* "nft.trans_objects" if normalised per op */
};

struct fb_row {
	enum fb_row_kind kind;
	char name[80];
	char pkind[16];		/* probe kind as in the results file */
	char note[240];		/* unavailable on a side, failed rounds, ... */
	int nm;
	int primary;		/* metric whose verdict is the row's */
	struct fb_metric *m[FB_CMP_MAX_METRICS];
};

struct fb_cmp {
	struct fb_side base, new;
	double alpha, min_effect;
	int nrows;
	struct fb_row *rows;
};

enum fb_fmt { FB_FMT_TEXT, FB_FMT_MD, FB_FMT_CSV, FB_FMT_HTML };

/*
 * Fills c from one (ab directory: its baseline/ and patched/, or the arms
 * named by base_arm/new_arm) or two paths.  Returns 0, or -1 with one line
 * in err.  Call fb_cmp_free() either way.
 */
int fb_cmp_open(struct fb_cmp *c, int npaths, char **paths,
		const char *base_arm, const char *new_arm,
		double alpha, double min_effect, char *err, size_t errlen);
void fb_cmp_free(struct fb_cmp *c);

/* Loads one side (file or directory of *.json rounds, recursively). */
int fb_side_load(struct fb_side *s, const char *path, char *err, size_t errlen);
void fb_side_free(struct fb_side *s);

/* Builds rows from loaded sides; -1 with err on mismatched sets. */
int fb_cmp_build(struct fb_cmp *c, char *err, size_t errlen);

/* "func:nft_trans_alloc:mean" */
void fb_metric_id(const struct fb_row *row, const struct fb_metric *m, char *buf, size_t len);
const char *fb_row_kind_name(enum fb_row_kind k);

/* s with <, >, & and " escaped for HTML */
void fb_html_esc(FILE *f, const char *s);

/* Writes the tables (text, md or html fragment) or the CSV. */
void fb_cmp_print(FILE *f, const struct fb_cmp *c, enum fb_fmt fmt);

/* Option value in [lo, hi]: 0, or -1 if not a number or out of range. */
int fb_parse_double_arg(const char *s, double lo, double hi, double *out);

/*
 * Options that compare, report and gate share: --alpha, --min-effect,
 * --base-arm, --new-arm (getopt values 'a', 'e', 'B', 'N'; FB_CMP_LONGOPTS
 * lists them for a struct option table).  Set the defaults, pass every
 * getopt value to fb_cmp_arg(), then open with fb_cmp_open_args().
 */
#define FB_CMP_LONGOPTS \
	{ "alpha", required_argument, NULL, 'a' }, \
	{ "min-effect", required_argument, NULL, 'e' }, \
	{ "base-arm", required_argument, NULL, 'B' }, \
	{ "new-arm", required_argument, NULL, 'N' }

struct fb_cmp_args {
	const char *cmd;	/* "compare", "report", "gate": for messages */
	double alpha, alpha_max, min_effect;
	const char *base_arm, *new_arm;
};

/*
 * A getopt value the command did not handle itself: 0 if it was one of the
 * shared options, else -1 with one line printed (bad value, or opt, the
 * option as typed, is unknown).
 */
int fb_cmp_arg(struct fb_cmp_args *a, int o, const char *arg, const char *opt);

/*
 * The operands after getopt (one ab directory, or BASE NEW) into c.
 * Returns 0, or 2 (the exit status) with one line printed; call
 * fb_cmp_free() either way.
 */
int fb_cmp_open_args(struct fb_cmp *c, const struct fb_cmp_args *a, int argc, char **argv);

/* Replaces control characters (from names in files) so a message stays one line. */
void fb_one_line(char *s);

/* Human number formatting, shared with report.c. */
void fb_fmt_ns(double ns, char *buf, size_t len);
void fb_fmt_count(double v, char *buf, size_t len);
void fb_fmt_pct(double pct, char *buf, size_t len);

/* subcommands: compare.c, report.c, gate.c */
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gate(int argc, char **argv);

#endif /* FB_COMPARE_H */
