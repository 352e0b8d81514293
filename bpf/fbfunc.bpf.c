// SPDX-License-Identifier: GPL-2.0
/*
 * fbfunc.bpf.c - one generic probe, retargeted per catalogue row.
 *
 * The loader opens this object once per hooked function, points the
 * fentry/fexit (or kprobe/kretprobe) programs at the function with
 * bpf_program__set_attach_target() / attach_kprobe(), sets the rodata below
 * and shares the maps between instances (task_start and pcpu_start are
 * each instance's own).  Per event: an optional `watched` lookup (e.g.
 * lockdep's pool among all folio pools), a stash of the entry time, and on
 * exit one atomic add into the histogram plus the per-CPU
 * count/sum/min/max.
 *
 * The entry time is stashed in task-local storage (task_start, one map per
 * instance, so one cell per task and function), else in the shared (tid,
 * slot) hash `starts` where the kernel has no task storage for tracing
 * programs (the loader retries without it).  Measured per event in an
 * instruction-paced guest (reports/overhead/): a fentry/fexit event cost
 * 1,243 instructions with the hash and 526 with task storage;
 * task storage does the same job (one start per task and function, a
 * nested call of the same function overwrites it, as the hash did) for a
 * fraction, and has no FB_MAX_INFLIGHT limit.
 *
 * Lock functions are not hooked through this object: an fentry+fexit pair
 * on functions that other CPUs execute constantly (_raw_spin_lock, ...)
 * faulted guests under TCG.  Lock rows take hold times from fblock.bpf.c
 * (one program per lock function, fentry on acquire and on release,
 * and under TCG only with one vCPU) and wait times from the
 * lock:contention_begin/end raw tracepoints (fbcont.bpf.c).  lockdep's
 * lock:lock_acquire/release tracepoints are not used (see fbcont.bpf.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fbprobe.h"

char LICENSE[] SEC("license") = "GPL";

const volatile unsigned int ablate;	/* FB_ABL_*: diagnostics only (FB_ABLATE) */
const volatile unsigned int stash_task;	/* entry time in task_start, else `starts` */

#include "fbrow.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FB_MAX_INFLIGHT);
	__type(key, struct fb_start_key);
	__type(value, struct fb_start);
} starts SEC(".maps");

/*
 * FB_ABLATE=hash keeps the start time in a per-CPU slot instead (no
 * nesting, no migration: a lower bound for the diagnostics).  task_start
 * is only created when stash_task is set: older kernels have no task
 * storage in tracing programs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct fb_start);
} pcpu_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fb_start);
} task_start SEC(".maps");

/* stash_task or FB_ABL_HASH: where this event's start time is kept */
static __always_inline struct fb_start *start_cell(int create)
{
	u32 zero = 0;

	if (ablate & FB_ABL_HASH)
		return bpf_map_lookup_elem(&pcpu_start, &zero);
	return bpf_task_storage_get(&task_start, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline int on_entry(u64 arg0)
{
	struct fb_start start = { .arg0 = arg0 }, *p;
	struct fb_start_key key = { .slot = slot };

	if (ablate & FB_ABL_EMPTY)
		return 0;
	if (!enabled() || !row_wants(arg0))
		return 0;
	if (stash_task || (ablate & FB_ABL_HASH)) {
		/* The clock after the cell: a task's first call creates its
		 * storage, and that allocation is not the function's time. */
		p = start_cell(1);
		if (p) {
			start.ts = bpf_ktime_get_ns();
			*p = start;
		}
		return 0;
	}
	start.ts = bpf_ktime_get_ns();
	key.tid = (u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&starts, &key, &start, BPF_ANY);
	return 0;
}

static __always_inline int on_exit(void)
{
	struct fb_start_key key = { .slot = slot };
	struct fb_start *start;

	if (ablate & FB_ABL_EMPTY)
		return 0;
	if (stash_task || (ablate & FB_ABL_HASH)) {
		start = start_cell(0);
		if (start && start->ts) {
			record_parts(slot, bpf_ktime_get_ns() - start->ts, ablate);
			start->ts = 0;
		}
		return 0;
	}
	key.tid = (u32)bpf_get_current_pid_tgid();
	start = bpf_map_lookup_elem(&starts, &key);
	if (!start)
		return 0;
	record_parts(slot, bpf_ktime_get_ns() - start->ts, ablate);
	bpf_map_delete_elem(&starts, &key);
	return 0;
}

SEC("fentry/foliobench_placeholder")
int BPF_PROG(fb_fentry)
{
	u64 arg0 = 0;

	/* the first argument only where a filter reads it (~14 instructions) */
	if (filter)
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
