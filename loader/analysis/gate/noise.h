/* SPDX-License-Identifier: GPL-2.0 */
/*
 * noise.h - per-metric boot-to-boot noise measured from A/A rounds
 * (`foliobench gate --calibrate`), kept in a small versioned JSON file and
 * read back by `gate --noise FILE` (docs/compare.md, "Per-row noise").
 *
 * For every metric id the file holds the pooled between-boot spread of
 * log(value) (about the relative standard deviation), its degrees of
 * freedom and the rounds it came from.  The file names the kernel(s) and
 * the clock it was measured on (build ids, and the kernels' names in the
 * cache, which two builds of one source share); a file from another kernel
 * or clock is refused.
 */
#ifndef FB_NOISE_H
#define FB_NOISE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/compare/cmpmodel.h"

#define FB_NOISE_SCHEMA		"foliobench-noise"
#define FB_NOISE_VERSION	1
#define FB_NOISE_MAX_BUILDS	16
#define FB_NOISE_MAX		1024

struct fb_noise_entry {
	char id[160];		/* KIND:ROW:METRIC, as `compare --format csv` */
	double ss;		/* sum of squared deviations of log(value) within groups */
	int dof;		/* rounds - groups */
	int n;			/* rounds */
	/*
	 * Between builds of one source (optional, "build_spread"): the variance
	 * of log(a build's mean) about the source's (builds with other banner,
	 * host and time strings boot with other layouts and timer phases), from
	 * build_n two-build directories; 0 when not measured.  Used only when BASE and NEW are
	 * different builds (fb_noise_test()).
	 */
	double build_var;
	int build_n;
	/* calibration across builds: sum of d^2, of 1/na + 1/nb, pairs */
	double bd2, binv;
	int bpairs;
	int declared;		/* a row's declared gated metric (fb_row.gate); not written */
};

struct fb_noise {
	char path[512];
	char release[96];
	enum fb_clock clock;
	int nbuild;
	char build[FB_NOISE_MAX_BUILDS][64];
	int nkey;		/* "kernels": their names in the cache, from ab.json */
	char key[FB_NOISE_MAX_BUILDS][64];
	int rounds, groups;
	int nent;
	struct fb_noise_entry e[FB_NOISE_MAX];
};

/*
 * Calibration: adds one group of A/A rounds (both arms of c are the same
 * kernel: all their rounds are one sample).  0, or -1 with one line in err.
 */
int fb_noise_add(struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen);
/*
 * Calibration across builds: c's arms are two builds of one source (the
 * baseline and a comment-only patch, or two machines' builds).  Each arm's
 * rounds add to the boot-to-boot spread about their own build's mean, and
 * the difference d of the two means to the build spread: fb_noise_finish()
 * sets build_var = max(0, mean(d^2 - s^2 (1/na + 1/nb)) / 2) over the
 * pairs, s the pooled boot-to-boot spread.  0, or -1 with err.
 */
int fb_noise_add_builds(struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen);
void fb_noise_finish(struct fb_noise *nz);
/* Writes nz as JSON, whole or not at all (util/outfile.h); 0, or -1 with why in err. */
int fb_noise_write(const struct fb_noise *nz, const char *path, char *err, size_t errlen);
/* Reads a noise file; 0, or -1 with "FILE: why" in err. */
int fb_noise_read(struct fb_noise *nz, const char *path, char *err, size_t errlen);
/* These rounds' BASE kernel and clock are the file's; 0, or -1 with "FILE: why". */
int fb_noise_check(const struct fb_noise *nz, const struct fb_cmp *c, char *err, size_t errlen);
/*
 * The shipped noise (FB_NOISE_SHIPPED under the repository, one file per
 * kernel flavour and clock): the first file in dir (name order) whose
 * kernel and clock are every BASE round's.  0 found (in nz), 1 none, -1 a
 * file there does not read (err says which).
 */
#define FB_NOISE_SHIPPED	"kernel-patches/noise"
int fb_noise_shipped(struct fb_noise *nz, const char *dir, const struct fb_cmp *c, char *err,
		     size_t errlen);
/* A file in dir holds noise calibrated on this kernel (build id or cache name) and clock: 1, else 0. */
int fb_noise_shipped_for(const char *dir, const char *build_id, const char *key,
			 enum fb_clock clock);
/*
 * No --noise: the shipped file calibrated on BASE's kernel, in *out (the
 * caller frees it; its path relative to the repository), or *out = NULL
 * when none is.  0, or -1 (said why) when a shipped file does not read.
 */
int fb_noise_default(struct fb_noise **out, const struct fb_cmp *c);
/* For an unknown verdict without calibrated noise: how to make some. */
void fb_noise_hint(FILE *f, const struct fb_cmp *c);
/* The entry for a metric id with at least 2 degrees of freedom, or NULL. */
const struct fb_noise_entry *fb_noise_find(const struct fb_noise *nz, const char *id);
/* Its spread: sqrt(ss / dof), the sd of log(value) between boots. */
double fb_noise_spread(const struct fb_noise_entry *e);

/*
 * The calibrated test of log(NEW) - log(BASE): the pooled spread of the
 * calibration and of these rounds (floored at floor_rel), and a t test
 * with the pooled degrees of freedom; if these rounds are significantly
 * noisier than the calibration (F test, p < FB_NOISE_F_ALPHA), Welch's
 * test on their own spread instead (high = 1).  An entry without degrees
 * of freedom gives Welch's test.  With cross_build (the two sides are
 * different builds) the entry's build_var is added twice to the variance
 * of the difference: each side's build has an offset of its own that no
 * number of its boots averages away.  -1 if a value is <= 0.
 */
#define FB_NOISE_F_ALPHA	0.05
struct fb_noise_test {
	double d, se, df;	/* mean log ratio, its standard error, dof */
	double p_greater, p_less;
	int high;
};
int fb_noise_test(const struct fb_noise_entry *e, const double *a, int na, const double *b,
		  int nb, double floor_rel, int cross_build, struct fb_noise_test *out);
/* t quantile: the t with P(T > t) = p for df degrees of freedom (p in (0, 0.5]). */
double fb_t_quantile(double p, double df);
/*
 * Minimum detectable effect (log ratio): the true change that a one-sided
 * test at level alpha finds with probability 1 - beta, at standard error
 * se with df degrees of freedom.
 */
double fb_noise_mde(double se, double df, double alpha, double beta);

#endif /* FB_NOISE_H */
