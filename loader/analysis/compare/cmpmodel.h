/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmpmodel.h - the comparison model: sides -> rows -> metrics -> verdicts.
 *
 * Pure: no file, no terminal.  Each side (BASE, NEW) is a list of loaded
 * rounds (side.h loads them).  fb_cmp_build() matches probes, workloads,
 * contended locks and extra values by name and makes one row per item;
 * each row holds metrics with one value per round per side, their medians
 * and a verdict (stats.h).  compare, report, gate and ab's summary read
 * the rows; render.h prints them.
 */
#ifndef FB_CMPMODEL_H
#define FB_CMPMODEL_H

#include <stddef.h>

#include "model/fb.h"
#include "analysis/compare/runs.h"
#include "analysis/compare/stats.h"

#define FB_CMP_MAX_ROUNDS	FB_STATS_MAX_N
/* a workload row: its wall and every op count (FB_MAX_COUNTS), none dropped */
#define FB_CMP_MAX_METRICS	(FB_MAX_COUNTS + 1)

struct fb_side {
	char path[512];		/* file or directory as given */
	char name[64];		/* arm: directory name, else host.arm, else "base"/"new" */
	int n;
	int nall;		/* rounds loaded; n < nall: fb_cmp_first_rounds() */
	char **files;
	struct fb_result **r;
	struct fb_run_issues iss;	/* failed, interrupted, missing rounds (runs.h) */
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
	char name[48];		/* calls, total, mean, p50, ..., wall, ops.X (X: up to 39) */
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
	int incomparable;	/* a timing of a row whose sides' methods differ: inconclusive */
	/*
	 * set when the gate decides this metric (analysis/gate/rowverdict.c,
	 * the bare gate's rules): v is then the gate's state in compare's
	 * words, and every output prints gate_word, the gate's own word
	 */
	int gated;
	char gate_word[12];	/* "ok", "REGRESSED", "LOST", "undecided", ... */
	char gate_why[120];	/* "welch-log p=8e-05, 90% CI +1.2%..+2.3%, thr +0.5%" */
};

struct fb_row {
	enum fb_row_kind kind;
	char name[80];
	char pkind[16];		/* probe kind as in the results file */
	char note[240];		/* unavailable on a side, failed rounds, ... */
	int nm;
	/*
	 * metric whose verdict is the row's: the one the gate decides when the
	 * row is gated (its worst gated metric), else the row kind's headline
	 */
	int primary;
	int observer;		/* the catalogue's series "-": the observer's own cost */
	char gate[24];		/* the catalogue's gated metric for the row (results' "gate") */
	/*
	 * probe rows: the observer method of each side's attached rounds
	 * ("fentry", "fsession", ...; "a|b" when its rounds differ); when the
	 * sides differ, or a side is mixed, method_differs is set, the note
	 * says so and the row's timings are incomparable (cmpmodel.c)
	 */
	char method[2][48];
	int method_differs;
	struct fb_metric *m[FB_CMP_MAX_METRICS];
};

struct fb_cmp {
	struct fb_side base, new;
	double alpha, min_effect;
	int nrows;
	struct fb_row *rows;
};

/* 0 if every round of both sides has the same probes and workloads; -1 with err. */
int fb_cmp_validate(const struct fb_cmp *c, char *err, size_t errlen);
/* Builds rows from loaded sides; -1 with err on mismatched sets. */
int fb_cmp_build(struct fb_cmp *c, char *err, size_t errlen);
/* Frees the rows and both sides' rounds; or only the rows (to build again). */
void fb_cmp_free(struct fb_cmp *c);
/* Rounds of instruction-paced guests (icount): every round of a comparison has one clock. */
int fb_cmp_icount(const struct fb_cmp *c);
void fb_cmp_rows_free(struct fb_cmp *c);
/*
 * The model of each side's first n rounds (n <= 0: all of them again): the
 * sequential gate's earlier looks.  0, or -1 with err.
 */
int fb_cmp_first_rounds(struct fb_cmp *c, int n, char *err, size_t errlen);
void fb_side_free(struct fb_side *s);

/*
 * The medians and verdict of one metric from its values (cmpverdict.c):
 * counts exactly when deterministic (per round, or per some op counter),
 * else as noisy; an incomparable timing is at most inconclusive.
 */
void fb_metric_decide(const struct fb_cmp *c, struct fb_metric *m);
/* "func:nft_trans_alloc:mean" */
void fb_metric_id(const struct fb_row *row, const struct fb_metric *m, char *buf, size_t len);
const char *fb_row_kind_name(enum fb_row_kind k);

#endif /* FB_CMPMODEL_H */
