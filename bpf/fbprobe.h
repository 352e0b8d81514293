/* SPDX-License-Identifier: GPL-2.0 */
/* fbprobe.h - map layouts shared by fbfunc.bpf.c, fbcont.bpf.c and the loader. */
#ifndef FBPROBE_H
#define FBPROBE_H

#include "fbhist.h"

/* What one instance of the generic function program does. */
enum fb_mode {
	FB_MODE_LATENCY = 0,	/* entry -> exit time into slot */
	FB_MODE_ACQUIRE = 1,	/* lock acquire: wait into watched wait_slot, start hold */
	FB_MODE_RELEASE = 2,	/* lock release: hold into watched hold_slot */
};

/* Value of the `watched` map, keyed by the instance's first argument. */
struct fb_watch {
	unsigned int wait_slot;
	unsigned int hold_slot;
	unsigned int lock;	/* index into `held` */
	unsigned int pad;
};

struct fb_start_key {
	unsigned int tid;
	unsigned int slot;	/* or FB_MAX_SLOTS + lock for acquisitions */
};

struct fb_start {
	unsigned long long ts;
	unsigned long long arg0;
};

/* Contention by lock address (lock:contention_begin/end). */
struct fb_cont {
	unsigned long long count;
	unsigned long long wait_ns;
	unsigned long long max_ns;
};

#define FB_MAX_CONT	4096

#endif /* FBPROBE_H */
