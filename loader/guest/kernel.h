/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/kernel.h - finding and building guest kernels (kernel.c), the
 * repository directory, and `foliobench kernel`.
 */
#ifndef FB_KERNEL_H
#define FB_KERNEL_H

#include <stddef.h>

/* The directory holding the running foliobench binary (the repository). */

/*
 * Resolves a kernel given as a bzImage path, a directory holding bzImage,
 * a stock kernel debian:V (guest/stock.h), an arm name of
 * kernel-patches/arms.conf, SERIES@N, or the user's own NAME=DIR /
 * NAME=GITDIR@REV (built with scripts/kernel-build.sh for flavour if build
 * is set and it is missing).  Stores the bzImage
 * path; 0, or -1 (FB_KERNEL_UNTRUSTED: bad input, exit 2) after fb_err().
 */
int fb_kernel_resolve(const char *spec, const char *flavour, int build,
		      char *bzimage, size_t len);
/*
 * The user's own arms (`ab --arm`): spec is NAME=DIR (a patch directory)
 * or NAME=GITDIR@REV, and no file of that name exists.
 */
int fb_kernel_user_arm(const char *spec);
/* name is a row of kernel-patches/arms.conf */
int fb_kernel_conf_arm(const char *name);
/*
 * scripts/kernel-build.sh --check spec flavour: 0 if the arm can be built,
 * 2 on bad input (one error line naming it printed), 1 otherwise.  Builds
 * nothing.
 */
int fb_kernel_check(const char *spec, const char *flavour);
/*
 * Runs scripts/kernel-build.sh [--print] arm flavour; dir gets its output.
 * 0, or -1 after fb_err(); FB_KERNEL_UNTRUSTED when root would build from
 * a cache others can write ($FB_CACHE or its ccache, util/pathtrust.h).
 */
#define FB_KERNEL_UNTRUSTED	(-2)
int fb_kernel_build(const char *arm, const char *flavour, int print_only,
		    char *dir, size_t len);
/*
 * The patch files of kernel-patches/SERIES/series, in order: their number
 * (the first max of them in names), or -1 if there is no such series.
 */
int fb_kernel_series(const char *series, char names[][128], int max);
/* 1 if some series of the arm has a series file (baseline: always 1). */
int fb_kernel_arm_has_series(const char *arm);

/* subcommand */
int cmd_kernel(int argc, char **argv);

#endif /* FB_KERNEL_H */
