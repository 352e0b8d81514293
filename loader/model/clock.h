/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/clock.h - the clock modes a guest can run under (clock.c).
 */
#ifndef FB_CLOCK_H
#define FB_CLOCK_H

#include <stddef.h>

/*
 * How guest time relates to host time.
 *  FB_CLOCK_HOST    TCG or KVM; guest time follows the host's clock, so
 *                   per-call times carry the host's load (CV 2% idle, 30%+
 *                   loaded, measured).
 *  FB_CLOCK_ICOUNT  single-threaded TCG with -icount shift=N,sleep=off:
 *                   guest time advances 2^N ns per instruction executed, so
 *                   a per-call time is an instruction count and does not
 *                   depend on what else the host does.  One vCPU, no KVM.
 */
enum fb_clock { FB_CLOCK_HOST, FB_CLOCK_ICOUNT };

const char *fb_clock_name(enum fb_clock c);
/* "host" | "icount": 0 and *c set, or -1. */
int fb_clock_parse(const char *s, enum fb_clock *c);
/*
 * 0 if the n results ran under one clock mode (and icount shift), else -1
 * with a one-line reason naming what (e.g. "baseline vs patched") in err.
 */
struct fb_result;
int fb_results_same_clock(const struct fb_result *const *r, int n, const char *what,
			  char *err, size_t len);

#endif /* FB_CLOCK_H */
