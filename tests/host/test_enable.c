// SPDX-License-Identifier: GPL-2.0
/*
 * test_enable.c - the BPF enabled flag on this host (root; run by
 * tests/host/host-test.sh): a session opens with recording off, records only
 * between fb_session_enable(s, 1) and (s, 0), and what ran while it was off
 * is not counted.  The kmalloc call-site row of nft_trans_alloc (a raw
 * tracepoint: it attaches where tracing programs are refused) is checked
 * against nft workloads run with the flag off, on, and off again.
 */
#include <stdlib.h>
#include <unistd.h>

#include "measure/catalogue.h"
#include "measure/probes.h"
#include "workloads/workloads.h"
#include "tap.h"

#define ROW		"nft_trans_alloc.kmalloc"
#define DESCRIPTORS	500

/* The row's allocation count now, or -1 when it is not attached. */
static long long row_count(struct fb_session *s)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	const struct fb_probe_result *p;
	long long n = -1;

	if (!r)
		return -1;
	fb_session_collect(s, r);
	p = fb_result_probe(r, ROW);
	if (p && p->status == FB_ATTACHED && p->nstats)
		n = (long long)p->stats[0].h.count;
	free(r);
	return n;
}

static int run_nft(const struct fb_params *p)
{
	struct fb_counts ops = { 0 };

	return fb_workload_find("nft")->run(p, &ops);
}

int main(void)
{
	const char *pat[] = { ROW }, *wl[] = { "nft" }, *kv[] = { "nft.descriptors=500" };
	struct fb_session *s;
	struct fb_params p;
	long long off, on, after;
	char err[256];

	if (geteuid() != 0 || fb_params_resolve(&p, wl, 1, kv, 1, err, sizeof(err))) {
		CHECKF(0, "enabled flag: needs root and the nft workload's parameters");
		return tap_done();
	}
	s = fb_session_open(pat, 1, NULL, 0);
	off = s ? row_count(s) : -1;
	CHECKF(off >= 0, "enabled flag: %s attached", ROW);
	if (off < 0) {
		fb_session_close(s);
		return tap_done();
	}
	CHECKF(off == 0, "a new session has counted nothing (%lld)", off);
	CHECKF(run_nft(&p) == 0, "nft workload ran with recording off");
	off = row_count(s);
	CHECKF(off == 0, "recording off: %lld allocations counted, want 0", off);
	fb_session_enable(s, 1);
	CHECKF(run_nft(&p) == 0, "nft workload ran with recording on");
	fb_session_enable(s, 0);
	on = row_count(s);
	CHECKF(on > DESCRIPTORS * 9 / 10 && on <= DESCRIPTORS,
	       "recording on: %lld allocations from nft_trans_alloc for %d descriptors", on,
	       DESCRIPTORS);
	CHECKF(run_nft(&p) == 0, "nft workload ran with recording off again");
	after = row_count(s);
	CHECKF(after == on, "recording off again: the count stays %lld (got %lld)", on, after);
	fb_session_close(s);
	return tap_done();
}
