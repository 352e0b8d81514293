/* SPDX-License-Identifier: GPL-2.0 */
/* fbprobe.h - map layouts shared by fbfunc.bpf.c, fbcont.bpf.c and the loader. */
#ifndef FBPROBE_H
#define FBPROBE_H

#include "fbhist.h"

/*
 * Value of the `watched` maps: fbfunc's is keyed by a function's first
 * argument (filter), fbcont's by a lock's struct lockdep_map address.
 */
struct fb_watch {
	unsigned int wait_slot;
	unsigned int hold_slot;
	unsigned int lock;	/* index into `owner` */
	unsigned int pad;
};

/* Current write holder of a watched lock. */
struct fb_owner {
	unsigned int tid;
	unsigned int pad;
	unsigned long long ts;	/* lock_acquire, or lock_acquired after a wait */
};

struct fb_start_key {
	unsigned int tid;
	unsigned int slot;
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
