/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbprobe.h - map layouts and array sizes shared by the BPF programs
 * (fbfunc, fbcont, fblock) and the loader.
 */
#ifndef FBPROBE_H
#define FBPROBE_H

#include "fbhist.h"

/*
 * fbfunc's `watched` map: first-argument values an instance with `filter`
 * set records (e.g. &lockdep_list_pool among all folio pools), mapped to
 * the histogram slot of the row that asked for it.
 */
#define FB_MAX_WATCHED	16

/*
 * Entries of the maps that hold an event in flight (fbfunc's `starts`,
 * fblock's `held`, fbcont's `cstart`): calls, holds or waits open at once.
 * The loader creates `starts` and `held` with the same size.
 */
#define FB_MAX_INFLIGHT	16384

/*
 * fbfunc's `ablate` rodata (FB_ABLATE, loader/measure/attach.h): parts of
 * the per-event work switched off to measure their cost.  Never set in a
 * normal run.
 */
#define FB_ABL_STATS	(1 << 0)	/* no per-CPU count/sum/min/max */
#define FB_ABL_HIST	(1 << 1)	/* no histogram add */
#define FB_ABL_HASH	(1 << 2)	/* start time in a per-CPU slot, not the hash */
#define FB_ABL_EMPTY	(1 << 3)	/* both programs return at once */
#define FB_ABL_TIDHASH	(1 << 4)	/* start time in the (tid, slot) hash, not task storage */
#define FB_ABL_CLOCK	(1 << 5)	/* fblock: no clock read (every hold 1 ns) */
#define FB_ABL_NOMATCH	(1 << 6)	/* fblock: the address compare only, no hold */

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

/*
 * Lock rows: watched lock instances (fblock hold, fbcont wait), a power of
 * two so the BPF side can mask an index.
 */
#define FB_MAX_LOCKS	8

/* fblock's `stash` rodata: where a lock function's open holds start */
#define FB_STASH_TASK	0	/* task storage: shared holds (rwsem read) */
#define FB_STASH_HASH	1	/* the (tid, slot) hash: no task storage here */
#define FB_STASH_CPU	2	/* this CPU's slot: spinlocks */
#define FB_STASH_EXCL	3	/* the lock's slot, set at fexit: mutex, rwsem write */

/* fbcont's rodata: kmalloc call-site ranges, and pointers the resolver reads */
#define FB_MAX_SITES	4
#define FB_MAX_DEREF	4

/* lock:contention_begin's flags (include/trace/events/lock.h) */
#define FB_LCB_F_READ	(1U << 1)

/* fbcont's contention_begin stash: when, which lock, read or write */
struct fb_cstart {
	unsigned long long ts;
	unsigned long long lock;
	unsigned int flags;
	unsigned int pad;
};

#endif /* FBPROBE_H */
