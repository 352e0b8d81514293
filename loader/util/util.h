/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/util.h - the bottom floor: messages, files, numbers.  Includes
 * nothing of foliobench's own; everything else may include it.
 */
#ifndef FB_UTIL_H
#define FB_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FB_VERSION		"0.1"

/* Set by the SIGINT/SIGTERM handler; long loops poll it and stop early. */
extern volatile sig_atomic_t fb_stop;

/* ---- small utilities (util.c) ---- */
void fb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fb_err() lines printed so far (a caller can tell whether one was said). */
int fb_err_count(void);
void fb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fb_verbose(void);
void fb_set_verbose(int v);
/*
 * Quiet mode for CI logs (--quiet, or FB_QUIET=1 in the environment, which
 * scripts/kernel-build.sh reads too): progress lines are thinned out, never
 * errors, results or verdicts.  fb_set_quiet() also exports FB_QUIET for
 * the scripts that foliobench runs.
 */
int fb_quiet(void);
void fb_set_quiet(int q);
/*
 * Whether item DONE of TOTAL gets a progress line: always when not quiet;
 * when quiet, the first item of each of STEPS equal shares and the last.
 */
int fb_progress_due(int done, int total, int steps);
uint64_t fb_now_ns(void);			/* CLOCK_MONOTONIC */
int fb_read_file(const char *path, char *buf, size_t len);	/* bytes or -1 */
int fb_write_file(const char *path, const char *s);		/* 0 or -1 */
int fb_parse_u64(const char *s, uint64_t *out);			/* 0 or -1 */
/* 1 if s matches one of the comma-separated fnmatch(3) globs (NULL: none) */
int fb_match_globs(const char *s, const char *globs);
/* snprintf without the truncation warning: callers check the length. */
/* The directory of the running foliobench binary: the repository. */
int fb_repo_dir(char *buf, size_t len);
int fb_fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
int fb_mkdir_p(const char *path);				/* 0 or -1, errno */
/* calloc(n, size), or NULL with "out of memory" in err (for callers that say why in err) */
void *fb_calloc_err(size_t n, size_t size, char *err, size_t errlen);

#endif /* FB_UTIL_H */
