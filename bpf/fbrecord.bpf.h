/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbrecord.bpf.h - the histogram maps every foliobench BPF object shares
 * (the loader creates them once and reuses their fds) and record(), the
 * whole per-sample cost: one atomic add into the bucket, and count, sum,
 * min and max in a per-CPU slot.
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

static __always_inline void record(u32 s, u64 v)
{
	u32 idx = s * FB_NBUCKETS + fb_bucket(v);
	struct fb_stat *st;
	u64 *cell;

	if (s >= FB_MAX_SLOTS)
		return;
	cell = bpf_map_lookup_elem(&hist, &idx);
	if (cell)
		__sync_fetch_and_add(cell, 1);
	st = bpf_map_lookup_elem(&stats, &s);
	if (!st)
		return;
	st->count++;
	st->sum += v;
	if (!st->min || v < st->min)
		st->min = v;
	if (v > st->max)
		st->max = v;
}

#endif /* FBRECORD_BPF_H */
