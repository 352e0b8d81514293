/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbrecord.bpf.h - the maps every foliobench BPF object shares (the loader
 * creates them once and reuses their fds): the histograms, and `ctl`, whose
 * ctl[0] is the enabled flag; record(), the whole per-sample cost: one
 * atomic add into the bucket, and count, sum, min and max in a per-CPU slot.
 *
 * The enabled flag (as perf's lock contention has one): programs start an
 * event (a call, a hold, a wait, an allocation) only while it is set, and
 * the loader sets it for the measured phases only, so attaching, loading
 * the other objects and what happens between workloads are never counted.
 * An event that started while enabled is still recorded when it ends.
 */
#ifndef FBRECORD_BPF_H
#define FBRECORD_BPF_H

#include "fbprobe.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, FB_MAX_SLOTS * FB_NBUCKETS);
	__type(key, u32);
	__type(value, u64);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FB_MAX_SLOTS);
	__type(key, u32);
	__type(value, struct fb_stat);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} ctl SEC(".maps");

static __always_inline int enabled(void)
{
	u32 zero = 0, *on = bpf_map_lookup_elem(&ctl, &zero);

	return on && *on;
}

/* skip: FB_ABL_HIST, FB_ABL_STATS (a constant: the verifier drops the part) */
static __always_inline void record_parts(u32 s, u64 v, unsigned int skip)
{
	u32 idx = s * FB_NBUCKETS + fb_bucket(v);
	struct fb_stat *st;
	u64 *cell;

	if (s >= FB_MAX_SLOTS)
		return;
	cell = (skip & FB_ABL_HIST) ? NULL : bpf_map_lookup_elem(&hist, &idx);
	if (cell)
		__sync_fetch_and_add(cell, 1);
	st = (skip & FB_ABL_STATS) ? NULL : bpf_map_lookup_elem(&stats, &s);
	if (!st)
		return;
	st->count++;
	st->sum += v;
	if (!st->min || v < st->min)
		st->min = v;
	if (v > st->max)
		st->max = v;
}

static __always_inline void record(u32 s, u64 v)
{
	record_parts(s, v, 0);
}

#endif /* FBRECORD_BPF_H */
