/* SPDX-License-Identifier: GPL-2.0 */
/*
 * locks.h - hold-time programs (fblock) for a few lock instances, one BPF
 * program per lock function, all attached before the workload starts.
 */
#ifndef LOCKS_H
#define LOCKS_H

#include <stdint.h>

#include "measure/catalogue.h"
#include "measure/record.h"
#include "model/hist.h"

struct fb_locks;

struct fb_lock_watch {
	uint64_t addr;			/* the lock instance */
	enum fb_lock_type type;
	int hold_slot;			/* exclusive (write) side */
	int read_slot;			/* rwsem read side, else -1 */
	/* out: */
	int ok;				/* every function it needs is attached */
	char method[32];		/* hooks/start: fexit+fentry/lock, fentry/cpu, ... */
	char symbol[64];		/* "down_write/up_write,down_read/up_read" */
	char reason[160];		/* why not */
};

/*
 * Attaches what the watches need, recording into rec (holds start only
 * while its enabled flag is set).  Fills each watch's ok, method, symbol or
 * reason.  Returns NULL when nothing could be attached.
 */
struct fb_locks *fb_locks_open(struct fb_lock_watch *w, int n, const struct fb_record *rec);
/*
 * Holds of slot released by foliobench's children (the workloads' forked
 * processes and their threads) while recording was enabled: their whole
 * life is in the measured window, so a peer that counts per task (klockstat
 * -P) counts them too, exactly (reports/peers/).  0 for NULL.
 */
uint64_t fb_locks_child_holds(const struct fb_locks *l, int slot);
/* Detaches everything (NULL is fine). */
void fb_locks_close(struct fb_locks *l);

/*
 * /proc/lock_stat (LOCK_STAT kernels): 0 and a lockdep class's write side
 * (acquisitions and hold totals into hold, contentions and wait totals into
 * wait; no buckets), or -1 when the class is not listed.
 */
int fb_lock_stat_read(const char *cls, struct fb_hist *hold, struct fb_hist *wait);

#endif /* LOCKS_H */
