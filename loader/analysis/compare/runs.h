/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs.h - what went wrong in the runs behind a side's rounds (runs.c):
 * a workload a round marks failed or interrupted, a boot that ab.json
 * records with a non-zero exit (125: a splat in the guest log), a round
 * that ab.json planned and that is not there.  The gate, `history gate`
 * and merge read them: no verdict passes rounds of a run that failed.
 *
 * Each issue is fatal or not.  Fatal (the kernel under test can have
 * caused it: a workload failed, the run exited 1, a timeout 124, a splat
 * 125) on NEW's side is a fail; everything else (interrupted, missing,
 * not started, any issue on BASE's side: the reference is broken, not the
 * change) is unknown.  docs/compare.md ("Failed runs").
 */
#ifndef FB_RUNS_H
#define FB_RUNS_H

#include <stddef.h>

#include "model/fb.h"

#define FB_RUN_ISSUES_MAX	16

struct fb_run_issue {
	int fatal;		/* the kernel under test can have caused it */
	char what[232];		/* "round 3 (patched/round-3.json): workload sysfs failed: why" */
};

struct fb_run_issues {
	int n, nfatal;		/* every issue found, and the fatal ones */
	int kept;		/* of n, described in v[] */
	struct fb_run_issue v[FB_RUN_ISSUES_MAX];
};

/* The rounds' own statuses: a workload failed (fatal) or interrupted. */
void fb_runs_rounds(struct fb_run_issues *iss, struct fb_result *const *r, char *const *files,
		    int n);

/*
 * ab.json of the ab directory abdir, for its arm arm: runs with a non-zero
 * exit, and planned rounds (1..rounds, a shard's own rounds, or up to the
 * `ab --until-decided` look its runs reached) with no run or no results
 * file among files[0..n).  Returns 1 if abdir has an ab.json naming arm, 0
 * if it has none (nothing checked), -1 with err if it is unreadable.
 */
int fb_runs_abjson(struct fb_run_issues *iss, const char *abdir, const char *arm,
		   char *const *files, int n, char *err, size_t errlen);

/*
 * Both of the above into iss (cleared first) for a side's path: a
 * directory DIR/ARM of rounds is checked against DIR/ab.json's runs of
 * ARM, when DIR has one (an unreadable ab.json is an issue, not fatal).
 */
void fb_runs_side(struct fb_run_issues *iss, const char *path, struct fb_result *const *r,
		  char *const *files, int n);

/* The exit code of a boot in words: "splat in the guest log (exit 125)" */
const char *fb_run_exit_name(int rc, int *fatal);

#endif /* FB_RUNS_H */
