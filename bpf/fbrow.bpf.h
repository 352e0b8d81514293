/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbrow.bpf.h - what an instance of a function row knows, in both of its
 * objects (fbsess: one fsession program; fbfunc: fentry/fexit or
 * kprobe/kretprobe): its histogram slot, whether it records only the
 * calls whose first argument is watched (e.g. &lockdep_list_pool among
 * all folio pools), and the shared map of watched values, which the
 * loader creates once and reuses in every instance.
 */
#ifndef FBROW_BPF_H
#define FBROW_BPF_H

#include "fbrecord.bpf.h"

const volatile unsigned int slot;	/* histogram of this instance */
const volatile unsigned int filter;	/* only events whose arg0 is watched */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FB_MAX_WATCHED);
	__type(key, u64);
	__type(value, u32);
} watched SEC(".maps");

/* 1 if this instance records a call whose first argument is arg0 */
static __always_inline int row_wants(u64 arg0)
{
	return !filter || bpf_map_lookup_elem(&watched, &arg0);
}

#endif /* FBROW_BPF_H */
