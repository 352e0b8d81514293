/* SPDX-License-Identifier: GPL-2.0 */
/* workloads.h - entry points of the built-in workloads (wl_*.c). */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#include "fb.h"

#define FB_WORKLOAD(n)							\
	int wl_##n##_avail(char *why, size_t len);			\
	int wl_##n##_run(const struct fb_params *p, struct fb_counts *ops)

FB_WORKLOAD(nft);
FB_WORKLOAD(sysfs);
FB_WORKLOAD(verifier);
FB_WORKLOAD(mapbatch);
FB_WORKLOAD(lockdep);

#endif /* WORKLOADS_H */
