// SPDX-License-Identifier: GPL-2.0
/*
 * fbfunc.bpf.c - one generic probe, retargeted per catalogue row.
 *
 * The loader opens this object once per hooked function, points the
 * fentry/fexit (or kprobe/kretprobe) programs at the function with
 * bpf_program__set_attach_target() / attach_kprobe(), sets the rodata below
 * and shares all maps between instances.  Per event the hot path is: an
 * optional `watched` lookup (lock and pool filters), a stash of the entry
 * time, and on exit one atomic add into the histogram plus the per-CPU
 * count/sum/min/max.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fbprobe.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * LATENCY: the histogram slot of this instance.  ACQUIRE: a stash id of
 * the instance (>= FB_MAX_SLOTS); the histograms come from `watched`.
 */
const volatile unsigned int slot;
const volatile unsigned int mode;	/* enum fb_mode */
const volatile unsigned int filter;	/* only events whose arg0 is watched */

/* Shared, created by the loader (hist is mmap()ed by it). */
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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FB_MAX_LOCKS);
	__type(key, u64);
	__type(value, struct fb_watch);
} watched SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct fb_start_key);
	__type(value, struct fb_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FB_MAX_LOCKS);
	__type(key, u32);
	__type(value, u64);
} held SEC(".maps");

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

static __always_inline int on_entry(u64 arg0)
{
	struct fb_start_key key = { .tid = (u32)bpf_get_current_pid_tgid(), .slot = slot };
	struct fb_start start = { .arg0 = arg0 };
	struct fb_watch *w = NULL;
	u64 now;

	if (filter || mode != FB_MODE_LATENCY) {
		w = bpf_map_lookup_elem(&watched, &arg0);
		if (!w)
			return 0;
	}
	now = bpf_ktime_get_ns();
	if (mode == FB_MODE_RELEASE) {
		u32 lock = w->lock;
		u64 *t = bpf_map_lookup_elem(&held, &lock);

		if (t && *t) {
			record(w->hold_slot, now - *t);
			*t = 0;
		}
		return 0;
	}
	start.ts = now;
	bpf_map_update_elem(&starts, &key, &start, BPF_ANY);
	return 0;
}

static __always_inline int on_exit(void)
{
	struct fb_start_key key = { .tid = (u32)bpf_get_current_pid_tgid(), .slot = slot };
	struct fb_start *start;
	u64 now = bpf_ktime_get_ns();

	if (mode == FB_MODE_RELEASE)
		return 0;
	start = bpf_map_lookup_elem(&starts, &key);
	if (!start)
		return 0;
	if (mode == FB_MODE_ACQUIRE) {
		struct fb_watch *w = bpf_map_lookup_elem(&watched, &start->arg0);

		if (w) {
			u32 lock = w->lock;
			u64 *t = bpf_map_lookup_elem(&held, &lock);

			record(w->wait_slot, now - start->ts);
			if (t)
				*t = now;
		}
		bpf_map_delete_elem(&starts, &key);
		return 0;
	}
	record(slot, now - start->ts);
	bpf_map_delete_elem(&starts, &key);
	return 0;
}

SEC("fentry/foliobench_placeholder")
int BPF_PROG(fb_fentry)
{
	u64 arg0 = 0;

	bpf_get_func_arg(ctx, 0, &arg0);
	return on_entry(arg0);
}

SEC("fexit/foliobench_placeholder")
int BPF_PROG(fb_fexit)
{
	return on_exit();
}

SEC("kprobe/foliobench_placeholder")
int BPF_KPROBE(fb_kprobe)
{
	return on_entry((u64)PT_REGS_PARM1(ctx));
}

SEC("kretprobe/foliobench_placeholder")
int BPF_KRETPROBE(fb_kretprobe)
{
	return on_exit();
}
