// SPDX-License-Identifier: GPL-2.0
/*
 * fbsess.bpf.c - a function row as one fsession program, where the kernel
 * has them (BPF_TRACE_FSESSION: the 7.3 base kernel and Debian's 7.3).
 *
 * The trampoline runs the program at the function's entry and again at its
 * exit, with a cookie on the trampoline's stack for this one call, zeroed
 * at entry: the entry time lives there.  fbfunc's fentry/fexit pair keeps
 * it in task storage instead (two lookups per call, reports/overhead/);
 * the cookie also cannot be overwritten by a nested call of the same
 * function.  The verifier inlines both kfuncs (a few loads from the
 * trampoline's frame).  The loader opens this object once per hooked
 * function like fbfunc, and falls back to fbfunc where it does not load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fbprobe.h"

char LICENSE[] SEC("license") = "GPL";

#include "fbrow.bpf.h"

extern bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

/* loaded as BPF_TRACE_FSESSION (the loader sets it; libbpf 1.1 has no section for it) */
SEC("fexit/foliobench_placeholder")
int BPF_PROG(fb_session)
{
	u64 *start = bpf_session_cookie(ctx);
	u64 arg0 = 0;

	if (bpf_session_is_return(ctx)) {
		if (*start)
			record(slot, bpf_ktime_get_ns() - *start);
		return 0;
	}
	if (!enabled())
		return 0;
	if (filter)
		bpf_get_func_arg(ctx, 0, &arg0);
	if (!row_wants(arg0))
		return 0;
	*start = bpf_ktime_get_ns();
	return 0;
}
