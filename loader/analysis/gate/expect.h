/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expect.h - declared trades: a versioned expectations file per series
 * (kernel-patches/<series>/expect), read by `foliobench gate --expect`.
 *
 *   foliobench-expect 1
 *   # ROW METRIC DIRECTION BOUND        (KIND:ROW when a name is two rows)
 *   kernfs_rwsem     hold_p50 rise <= +40%   may rise, by at most 40%
 *   nft_trans_alloc  cmean    fall >= 15%    must fall, by at least 15%
 *   kernfs_activate  calls    drop-to 0      must be 0 (or gone) in NEW
 *
 * Also `rise >= P%` (must rise at least P) and `fall <= P%` (may fall at
 * most P), a trailing `for METHOD` (the bound holds for rows measured by
 * that observer method: by another it is not decided), and `include PATH` (relative to the file: another expectations
 * file, e.g. one per series under an arm's file).  `claim` lines are a
 * cover letter's claims (analysis/compare/claims.h): skipped here.  Rules: docs/compare.md,
 * "Declared trades".
 */
#ifndef FB_EXPECT_H
#define FB_EXPECT_H

#include <stddef.h>

#include "analysis/compare/cmpmodel.h"

#define FB_EXPECT_MAX		64

enum fb_exp_kind {
	FB_EXP_RISE_LE,		/* may rise up to P */
	FB_EXP_RISE_GE,		/* must rise at least P */
	FB_EXP_FALL_GE,		/* must fall at least P */
	FB_EXP_FALL_LE,		/* may fall up to P */
	FB_EXP_DROP0,		/* must be 0 or absent in every NEW round */
};

struct fb_exp_line {
	int file;		/* index into fb_expect.files */
	int line;
	char kind[16];		/* row kind, or "" for any */
	char row[80];
	char metric[48];
	enum fb_exp_kind k;
	double pct;		/* the bound, positive */
	char method[32];	/* `for METHOD`: the observer method it holds for, or "" */
	char text[200];		/* the line as written, trimmed */
	char id[160];		/* resolved metric id (fb_expect_resolve) */
	int absent;		/* no such row in these rounds: a claim fails, a bound holds */
};

#define FB_EXPECT_MAX_FILES	8

struct fb_expect {
	char path[512];		/* the file given; `include PATH` adds more */
	int nfiles;
	char files[FB_EXPECT_MAX_FILES][512];
	int n;
	struct fb_exp_line l[FB_EXPECT_MAX];
	int nclaims;		/* `claim` lines (analysis/compare/claims.h reads them) */
};

/* Reads and checks the syntax; 0, or -1 with "FILE:LINE: why" in err. */
int fb_expect_read(struct fb_expect *e, const char *path, char *err, size_t errlen);
/* Parses one line (no comment, not the header); 0, or -1 with the reason. */
int fb_expect_parse_line(const char *s, struct fb_exp_line *l, char *why, size_t len);
/* The file a line came from. */
const char *fb_expect_file(const struct fb_expect *e, const struct fb_exp_line *l);
/* Resolves every line's row and metric in c; 0, or -1 with "FILE:LINE: why". */
int fb_expect_resolve(struct fb_expect *e, const struct fb_cmp *c, char *err, size_t errlen);

enum fb_exp_state { FB_EXP_MET, FB_EXP_FAILED, FB_EXP_UNKNOWN };

/*
 * The verdict of one line on a metric: ratio r = NEW / BASE when exact,
 * else the (1 - 2 beta) interval [lo, hi] and the 99% interval
 * [lo99, hi99] of the ratio (have_ci 0: no interval: unknown).
 */
struct fb_exp_eval {
	int exact, have_ci;
	double r, lo, hi, lo99, hi99;
	int nb_nonzero;		/* NEW rounds with a non-zero value (drop-to 0) */
	int na;			/* BASE rounds with a value */
};
/* 1 for a claimed change (fall >=, rise >=, drop-to 0), 0 for a bound on one */
int fb_expect_claim(const struct fb_exp_line *l);
enum fb_exp_state fb_expect_judge(const struct fb_exp_line *l, const struct fb_exp_eval *v);
const char *fb_expect_kind_name(enum fb_exp_kind k);

#endif /* FB_EXPECT_H */
