// SPDX-License-Identifier: GPL-2.0
/*
 * fblock.bpf.c - hold time of a few watched lock instances.
 *
 * The loader opens this object once per lock function and attaches exactly
 * ONE trampoline program to it (under TCG a second trampoline program on a
 * busy lock function oopsed guests): fentry on the acquire function
 * (down_write, down_read, mutex_lock, _raw_spin_lock) or on the release
 * function (up_write, up_read, mutex_unlock, _raw_spin_unlock).  An fentry
 * trampoline is cheaper than an fexit one, which calls the function from
 * the trampoline between two more enter/exit calls; these programs run on
 * every acquisition of every lock of the kind, so that difference is most
 * of a lock row's cost (reports/overhead/).  FB_LOCKHOOK=fexit (locks.c)
 * attaches fb_acq_fexit instead, the method before, to measure both.
 *
 * Hold = acquired -> release entry, on the same task and lock.  With fentry
 * on the acquire function the hold starts at its entry and, when the
 * acquisition had to wait, restarts at lock:contention_end, which the lock
 * slow paths fire once the lock is taken (fb_acq_waited, a tracepoint, so
 * not a second trampoline): the wait is not in the hold, only the
 * uncontended fast path's few instructions are.  A release on a task that
 * did not acquire (an rwsem read hold handed to another task, or one
 * acquired before attaching) finds no start and is not counted, so every
 * hold counted is one acquisition with its release.
 *
 * The watched addresses and their histogram slots are rodata (resolved
 * before loading), so the per-call cost on unwatched locks is a few compares;
 * a hold starts only while the enabled flag is set (fbrecord.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fbprobe.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 lock_addr[FB_MAX_LOCKS];
const volatile __u32 lock_slot[FB_MAX_LOCKS];	/* hold slot of this side */
const volatile __u32 nlocks;
/*
 * Where this function's open holds keep their start (FB_STASH_*, the same
 * on both sides of a lock): a spinlock's in this CPU's slot (its holder
 * cannot migrate), an exclusive sleeping hold's (mutex, rwsem write) in
 * the lock's own slot, written by fexit once the lock is held, and a
 * shared hold's (rwsem read) in task storage, else the (tid, slot) hash.
 */
const volatile __u32 stash;
/*
 * FB_ABLATE (diagnostics only, FB_ABL_*): empty (every program returns at
 * once), nomatch (the address compare, then return), hash (open holds in
 * one per-CPU slot: no task storage or hash), clock (no clock read),
 * stats, hist (record's parts).  The verifier drops what a constant skips.
 */
const volatile __u32 ablate;
/* the lock argument by bpf_get_func_arg() (FB_LOCKFN, see lock_arg()) */
const volatile __u32 arg_helper;
/*
 * foliobench's own process: the holds its children released (the
 * workloads' forked children and their threads, whose whole life is in
 * the measured window) are counted apart, per slot, for the peers, whose
 * windows differ from ours but for those tasks (reports/peers/).
 */
const volatile __u32 fb_tgid;
__u64 child_holds[FB_MAX_SLOTS];

#include "fbrecord.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FB_MAX_INFLIGHT);
	__type(key, struct fb_start_key);
	__type(value, u64);
} held SEC(".maps");

/*
 * The open holds of a task, by hold slot: no hash insert and delete per
 * hold (that cost fbfunc's rows 717 instructions per event, reports/
 * overhead/).  Created only when a function stashes there; shared by every
 * instance (the loader reuses the first one's fd).
 */
struct fb_held {
	u64 ts[FB_MAX_SLOTS];
};

/*
 * The open spinlock holds of this CPU (FB_STASH_CPU; FB_ABLATE=hash puts
 * every hold here, diagnostics only, one vCPU).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct fb_held);
} held_cpu SEC(".maps");

/*
 * The open exclusive holds (FB_STASH_EXCL): one owner at a time, the only
 * task that writes its slot (at the acquire function's exit) and reads
 * and clears it (at the release function's entry).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct fb_held);
} held_excl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fb_held);
} held_task SEC(".maps");

static __always_inline int stash_in_cell(void)
{
	return stash != FB_STASH_HASH || (ablate & FB_ABL_HASH);
}

/* index of a watched lock, or -1 */
static __always_inline int lock_index(u64 lock)
{
	for (u32 i = 0; i < FB_MAX_LOCKS; i++) {
		if (i >= nlocks)
			break;
		if (lock_addr[i] == lock)
			return (int)i;
	}
	return -1;
}

/*
 * &h->ts[slot], or NULL.  The empty asm keeps clang from adding the offset
 * before the null check (a select of h + off and NULL), which verifiers
 * before 7.x refuse ("pointer arithmetic on map_value_or_null").
 */
static __always_inline u64 *cell(struct fb_held *h, u32 slot)
{
	if (!h)
		return NULL;
	asm volatile("" : "+r"(h));
	return &h->ts[slot];
}

/* this task's start cell for slot, or NULL (created only when asked) */
static __always_inline u64 *start_cell(u32 slot, int create)
{
	struct fb_start_key key;
	struct fb_held *h;
	u32 zero = 0;

	if (slot >= FB_MAX_SLOTS)
		return NULL;
	if (stash == FB_STASH_CPU || (ablate & FB_ABL_HASH)) {
		h = bpf_map_lookup_elem(&held_cpu, &zero);
		return cell(h, slot);
	}
	if (stash == FB_STASH_EXCL) {
		h = bpf_map_lookup_elem(&held_excl, &zero);
		return cell(h, slot);
	}
	if (stash == FB_STASH_HASH) {
		key.tid = (u32)bpf_get_current_pid_tgid();
		key.slot = slot;
		return bpf_map_lookup_elem(&held, &key);
	}
	h = bpf_task_storage_get(&held_task, bpf_get_current_task_btf(), 0,
				 create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	return cell(h, slot);
}

/* the clock, or 1 under FB_ABLATE=clock */
static __always_inline u64 now(void)
{
	return (ablate & FB_ABL_CLOCK) ? 1 : bpf_ktime_get_ns();
}

static __always_inline int on_acquired(u64 lock)
{
	int i = lock_index(lock);
	struct fb_start_key key;
	u64 ts, *cell;

	if (i < 0 || (ablate & FB_ABL_NOMATCH) || !enabled())
		return 0;
	key.slot = lock_slot[i & (FB_MAX_LOCKS - 1)];	/* unique per lock and side */
	if (!stash_in_cell()) {
		key.tid = (u32)bpf_get_current_pid_tgid();
		ts = now();
		bpf_map_update_elem(&held, &key, &ts, BPF_ANY);
		return 0;
	}
	/* the clock after the cell: a task's first hold creates its storage */
	cell = start_cell(key.slot, 1);
	if (cell)
		*cell = now();
	return 0;
}

/* a hold released by a child of foliobench's: count it in child_holds */
static __always_inline void count_child(u32 slot)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (fb_tgid && slot < FB_MAX_SLOTS && t->real_parent->tgid == (int)fb_tgid)
		__sync_fetch_and_add(&child_holds[slot], 1);
}

static __always_inline int on_release(u64 lock)
{
	int i = lock_index(lock);
	struct fb_start_key key;
	u64 *ts;

	if (i < 0 || (ablate & FB_ABL_NOMATCH))
		return 0;
	key.slot = lock_slot[i & (FB_MAX_LOCKS - 1)];
	ts = start_cell(key.slot, 0);
	if (!ts || !*ts)
		return 0;
	record_parts(key.slot, now() - *ts + ((ablate & FB_ABL_CLOCK) ? 1 : 0),
		     ablate & (FB_ABL_STATS | FB_ABL_HIST));
	count_child(key.slot);
	if (stash_in_cell()) {
		*ts = 0;
		return 0;
	}
	key.tid = (u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&held, &key);
	return 0;
}

/*
 * The lock: every lock function takes it as its first argument, one load
 * from the trampoline's context.  FB_LOCKFN's functions (diagnostics) may
 * take none, and the verifier refuses that load there: bpf_get_func_arg()
 * then, which the verifier inlines as ~14 instructions, every call.
 */
static __always_inline u64 lock_arg(u64 *ctx)
{
	u64 lock = 0;

	if (!arg_helper)
		return ctx[0];
	bpf_get_func_arg(ctx, 0, &lock);
	return lock;
}

SEC("fexit/foliobench_placeholder")
int BPF_PROG(fb_acq_fexit)
{
	if (ablate & FB_ABL_EMPTY)
		return 0;
	return on_acquired(lock_arg(ctx));
}

SEC("fentry/foliobench_placeholder")
int BPF_PROG(fb_acq_fentry)
{
	if (ablate & FB_ABL_EMPTY)
		return 0;
	return on_acquired(lock_arg(ctx));
}

/* a waited-for acquisition: the hold starts now that the lock is taken */
SEC("raw_tp/contention_end")
int BPF_PROG(fb_acq_waited, void *lock, int ret)
{
	int i = lock_index((u64)lock);
	u64 *ts;

	if (i < 0 || (ablate & (FB_ABL_NOMATCH | FB_ABL_EMPTY)))
		return 0;
	ts = start_cell(lock_slot[i & (FB_MAX_LOCKS - 1)], 0);
	if (ts && *ts)
		*ts = now();
	return 0;
}

SEC("fentry/foliobench_placeholder")
int BPF_PROG(fb_rel_fentry)
{
	if (ablate & FB_ABL_EMPTY)
		return 0;
	return on_release(lock_arg(ctx));
}
