/* SPDX-License-Identifier: GPL-2.0 */
/*
 * claims.h - a cover letter's claims as an executable check: one `claim`
 * line per claim, in a series' kernel-patches/SERIES/claims (an
 * expectations file: same header, included by SERIES/expect), judged on
 * the comparison model by `report` (its first section, the Claims table)
 * and `gate --expect` (a claim not met fails the gate).
 *
 *   claim "QUOTE" seed SEED within TOL% measure METRIC [per METRIC]
 *         in WORKLOAD [at METRIC >= V] as "WHAT IT MEASURES"
 *   claim "QUOTE" seed SEED not-measured "WHY"
 *
 * QUOTE is the letter's words, SEED its number: Nx (N times fewer), -P% or
 * +P% (a relative change), or A->B (a value, e.g. per node, from A to B).
 * The bound is the claim less its tolerance TOL: 16x within 25% needs at
 * least 12x fewer, -19.4% within 25% at least -14.55%, 2->1 within 10% at
 * most 1.1 (and BASE beyond it).  METRIC is a metric id of the model
 * (KIND:ROW:METRIC, `foliobench compare --format csv`), per round divided
 * by the per METRIC's (e.g. per kernfs node).  The claim is measured only
 * where WORKLOAD ran and, with `at`, where both sides reach V (the claim's
 * scale); otherwise it reads "not measured: why", as a claim this suite
 * cannot measure does.  Rules: docs/compare.md, "Claims".
 */
#ifndef FB_CLAIMS_H
#define FB_CLAIMS_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/compare/cmpmodel.h"
#include "analysis/compare/render.h"

#define FB_CLAIMS_MAX		32

enum fb_claim_seed {
	FB_SEED_NONE,		/* free text (a claim not measured here) */
	FB_SEED_FACTOR,		/* Nx: N times fewer */
	FB_SEED_PCT,		/* -P% / +P% */
	FB_SEED_FROMTO,		/* A->B */
};

enum fb_claim_state {
	FB_CLAIM_MET,
	FB_CLAIM_NOT_MET,
	FB_CLAIM_UNKNOWN,	/* measurable here, but not decided on these rounds */
	FB_CLAIM_NOT_MEASURED,	/* not by this suite, or not by these rounds: why */
};

struct fb_claim {
	char file[256];
	int line;
	char quote[200];	/* the cover letter's words */
	char seed[40];		/* its number, as written */
	enum fb_claim_seed sk;
	double from, to;	/* FROMTO: A, B; FACTOR: to = N; PCT: to = P */
	double tol;		/* the tolerance, a fraction of the claimed change */
	char metric[120], per[120], at[120];
	double at_min;
	char in[32];		/* the workload that measures it */
	char as[200];		/* what the metric is */
	char why[200];		/* not-measured: the reason as written */

	/* fb_claims_eval() */
	enum fb_claim_state state;
	int exact;		/* every round of a side alike: compared as is */
	int have_ci;
	double base, new;	/* medians (per METRIC when per) */
	double lo, hi;		/* 95% bootstrap interval of NEW / BASE */
	double bound;		/* ratio (FACTOR, PCT) or NEW's value (FROMTO) */
	char unit[8];		/* "ns" or "" for the measured values */
	char reason[240];	/* unknown or not measured: why, from the rounds */
};

struct fb_claims {
	int n;
	struct fb_claim c[FB_CLAIMS_MAX];
	char source[300];	/* the file(s) they were read from, for the reader */
	int nstate[4];		/* per enum fb_claim_state, after fb_claims_eval() */
};

/* One `claim` line (no comment, the leading "claim" included); 0, or -1 with why. */
int fb_claim_parse(const char *s, struct fb_claim *cl, char *why, size_t len);

/*
 * The claim lines of an expectations file and of what it includes (other
 * lines are the gate's, skipped here), appended to cs; 0, or -1 with
 * "FILE:LINE: why" in err.
 */
int fb_claims_read(struct fb_claims *cs, const char *path, char *err, size_t errlen);

/*
 * The claims of the series NEW was built from: its arm (the rounds'
 * host.arm, else the side's name) in kernel-patches/arms.conf, each
 * series' kernel-patches/SERIES/claims.  0 (none found is not an error:
 * cs->n == 0, cs->source says why), or -1 with err for a bad claims file.
 */
int fb_claims_for_new(struct fb_claims *cs, const struct fb_cmp *c, char *err, size_t errlen);

/* A metric id of a claim that names a row of c without that metric: -1 with err. */
int fb_claims_check(const struct fb_claims *cs, const struct fb_cmp *c, char *err,
		    size_t errlen);

/* Judges every claim on c (fills the evaluation fields and cs->nstate). */
void fb_claims_eval(struct fb_claims *cs, const struct fb_cmp *c);

const char *fb_claim_state_name(enum fb_claim_state s);
/* The series a claim came from: the name of its file's directory. */
void fb_claim_series(const struct fb_claim *cl, char *buf, size_t len);
/* "at least 12x fewer (16x, 25% tolerance)" */
void fb_claim_bound(const struct fb_claim *cl, char *buf, size_t len);
/* "18,408 -> 1,278: 14.4x fewer (exact)"; "-" when not measured */
void fb_claim_measured(const struct fb_claim *cl, char *buf, size_t len);

/* The Claims table: Markdown or an HTML fragment (FB_FMT_MD, FB_FMT_HTML). */
void fb_claims_print(FILE *f, const struct fb_claims *cs, enum fb_fmt fmt);

/*
 * The gate's claims block: one line per claim, then each claim not met
 * (FAIL) and not decided (UNKNOWN) named by FILE:LINE and quote.  Returns
 * the gate's outcome with the claims' folded in (0 pass, 1 fail, 3 unknown):
 * a claim not met fails, an unknown one makes a pass unknown.
 */
int fb_claims_gate(FILE *f, const struct fb_claims *cs, int outcome);

#endif /* FB_CLAIMS_H */
