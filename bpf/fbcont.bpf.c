// SPDX-License-Identifier: GPL-2.0
/*
 * fbcont.bpf.c - tracepoint-only programs: these load where BPF tracing
 * programs (fentry/kprobe) are refused.
 *
 *  - lock:contention_begin/end: wait time per lock address (raw tracepoints)
 *  - kmem:kmalloc: allocations whose call site lies inside one function
 *    (e.g. nft_trans_alloc), counted with their size, into a histogram slot
 *  - sys_enter: a one-shot pointer reader used by the loader to resolve lock
 *    instances that live behind a pointer (sysfs_root->kernfs_rwsem)
 *
 * Waits and allocations are recorded only while the enabled flag is set
 * (fbrecord.bpf.h); the resolver runs during setup and ignores it.
 *
 * Not here, on purpose: programs on lockdep's lock:lock_acquire/release.
 * On our PROVE_LOCKING guests under TCG even a bpftrace count() there
 * stalled RCU, and a filtered foliobench program triple-faulted the guest;
 * lock rows time holds from the lock functions instead (fblock.bpf.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fbprobe.h"

char LICENSE[] SEC("license") = "GPL";

/* kmalloc call-site ranges [lo, hi) -> histogram slot */
const volatile __u64 site_lo[FB_MAX_SITES];
const volatile __u64 site_hi[FB_MAX_SITES];
const volatile __u32 site_slot[FB_MAX_SITES];
const volatile __u32 nsites;
/* pointers to read once, for the process resolver_tgid */
const volatile __u64 deref_addr[FB_MAX_DEREF];
const volatile __u32 resolver_tgid;
__u64 deref_val[FB_MAX_DEREF];
__u32 deref_done;
/*
 * Lock rows' instances (set by the loader after loading): their waits are
 * also recorded as histograms, in the read-side slot when the waiter is an
 * rwsem reader (LCB_F_READ), else in the exclusive one.
 */
__u64 wlock_addr[FB_MAX_LOCKS];
__u32 wlock_slot[FB_MAX_LOCKS];
__u32 wlock_rslot[FB_MAX_LOCKS];

#include "fbrecord.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FB_MAX_CONT);
	__type(key, u64);
	__type(value, struct fb_cont);
} cont SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FB_MAX_INFLIGHT);
	__type(key, u32);
	__type(value, struct fb_cstart);
} cstart SEC(".maps");

SEC("raw_tp/contention_begin")
int BPF_PROG(fb_cont_begin, void *lock, unsigned int flags)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct fb_cstart s = { .ts = bpf_ktime_get_ns(), .lock = (u64)lock, .flags = flags };

	if (enabled())
		bpf_map_update_elem(&cstart, &tid, &s, BPF_ANY);
	return 0;
}

SEC("raw_tp/contention_end")
int BPF_PROG(fb_cont_end, void *lock, int ret)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct fb_cont zero = {}, *c;
	struct fb_cstart *s;
	u64 d;

	s = bpf_map_lookup_elem(&cstart, &tid);
	if (!s)
		return 0;
	d = bpf_ktime_get_ns() - s->ts;
	for (u32 i = 0; i < FB_MAX_LOCKS; i++) {
		if (wlock_addr[i] && wlock_addr[i] == s->lock) {
			record((s->flags & FB_LCB_F_READ) ? wlock_rslot[i] : wlock_slot[i], d);
			break;
		}
	}
	c = bpf_map_lookup_elem(&cont, &s->lock);
	if (!c) {
		bpf_map_update_elem(&cont, &s->lock, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&cont, &s->lock);
	}
	if (c) {
		__sync_fetch_and_add(&c->count, 1);
		__sync_fetch_and_add(&c->wait_ns, d);
		if (d > c->max_ns)
			c->max_ns = d;
	}
	bpf_map_delete_elem(&cstart, &tid);
	return 0;
}

SEC("raw_tp/kmalloc")
int BPF_PROG(fb_kmalloc, unsigned long call_site, const void *ptr,
	     size_t bytes_req, size_t bytes_alloc)
{
	for (u32 i = 0; i < FB_MAX_SITES; i++) {
		if (i >= nsites)
			break;
		if (call_site >= site_lo[i] && call_site < site_hi[i]) {
			if (enabled())
				record(site_slot[i], bytes_alloc);
			break;
		}
	}
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(fb_resolve)
{
	if (deref_done || (u32)(bpf_get_current_pid_tgid() >> 32) != resolver_tgid)
		return 0;
	for (u32 i = 0; i < FB_MAX_DEREF; i++)
		if (deref_addr[i])
			bpf_probe_read_kernel(&deref_val[i], sizeof(u64),
					      (const void *)deref_addr[i]);
	deref_done = 1;
	return 0;
}
