// SPDX-License-Identifier: GPL-2.0
/*
 * test_workloads.c - unit tests for the workloads' pure parts: the nft
 * plan arithmetic (every nft_trans object accounted for), the
 * /proc/lockdep_stats parser, the verifier program builder and the
 * fork/pipe runner (tap.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/counts.h"
#include "workloads/wl_trigger.h"
#include "workloads/wl_util.h"
#include "tap.h"

/* Sum of nft_trans objects over the plan's batches, as wl_nft runs them. */
static uint64_t plan_total(const struct wl_nft_plan *pl, uint64_t *minsz)
{
	uint64_t t = 0;

	*minsz = UINT64_MAX;
	for (uint64_t k = 0; k <= pl->passes; k++)
		t += wl_nft_commit_trans(pl, k);
	for (uint64_t k = 0; k < pl->passes; k++)
		if (wl_nft_commit_table(pl, k) < *minsz)
			*minsz = wl_nft_commit_table(pl, k);
	for (uint64_t j = 0; j < pl->aborts; j++) {
		t += wl_nft_abort_table(pl, j);
		if (wl_nft_abort_table(pl, j) < *minsz)
			*minsz = wl_nft_abort_table(pl, j);
	}
	return t;
}

static void test_nft_plan(void)
{
	static const uint64_t cases[][4] = {
		/* descriptors, passes, aborts, chains */
		{ 10025, 5, 5, 1 }, { 10025, 5, 1, 3 }, { 10024, 5, 0, 1 },
		{ 12, 2, 0, 2 }, { 11, 2, 1, 1 }, { 1000003, 50, 7, 4 },
		{ 4, 1, 0, 1 }, { 100, 3, 20, 1 }, { 6, 1, 1, 1 },
	};
	struct wl_nft_plan pl;
	char why[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const uint64_t *c = cases[i];
		uint64_t total, minsz;
		int ret;

		ret = wl_nft_plan_init(&pl, c[0], c[1], c[2], c[3], why,
				       sizeof(why));
		total = ret ? 0 : plan_total(&pl, &minsz);
		CHECKF(!ret && total == c[0] && minsz >= 1 + c[3],
		      "nft plan N=%llu P=%llu A=%llu C=%llu: %llu trans, smallest table %llu",
		      WL_U64(c[0]), WL_U64(c[1]), WL_U64(c[2]), WL_U64(c[3]),
		      WL_U64(total), WL_U64(ret ? 0 : minsz));
	}
	/* seed defaults: 15 tables of 668, the 5 abort tables get +1 */
	wl_nft_plan_init(&pl, 10025, 5, 5, 1, why, sizeof(why));
	CHECKF(wl_nft_commit_trans(&pl, 0) == 668 &&
	      wl_nft_commit_trans(&pl, 1) == 1336 &&
	      wl_nft_commit_trans(&pl, 5) == 668 &&
	      wl_nft_abort_table(&pl, 0) == 669 &&
	      wl_nft_abort_table(&pl, 4) == 669,
	      "nft plan seed defaults: commits 668,1336,..,668, aborts 669");
	CHECKF(wl_nft_plan_init(&pl, 10025, 0, 5, 1, why, sizeof(why)) < 0,
	      "nft plan rejects passes=0 (%s)", why);
	CHECKF(wl_nft_plan_init(&pl, 10025, 5, 0, 1, why, sizeof(why)) < 0,
	      "nft plan rejects odd descriptors with aborts=0");
	CHECKF(wl_nft_plan_init(&pl, 20, 5, 5, 1, why, sizeof(why)) < 0,
	      "nft plan rejects too few descriptors (%s)", why);
}

static const char lockdep_stats[] =
	" lock-classes:                         1702 [max: 8192]\n"
	" dynamic-keys:                           40\n"
	" direct dependencies:                 32768 [max: 32768]\n"
	" indirect dependencies:               61234\n"
	" all direct dependencies:            123456\n"
	" debug_locks:                             0\n";

static const char patched_stats[] =
	" direct dependencies:                  3002 [dynamic: 3 x 64 kB, tail: 36 kB/64 kB]\n"
	" dependency chains:                    3005 [max: 65536]\n";

static void expect_stat(const char *key, uint64_t want)
{
	uint64_t v = 0;
	int ret = wl_parse_stat(lockdep_stats, key, &v);

	CHECKF(!ret && v == want, "parse \"%s\" = %llu (want %llu)", key,
	      WL_U64(v), WL_U64(want));
}

static void test_parse_stat(void)
{
	uint64_t v = 7;

	expect_stat("direct dependencies", 32768);
	expect_stat("lock-classes", 1702);
	expect_stat("debug_locks", 0);
	CHECKF(wl_parse_stat(lockdep_stats, "dependencies", &v) < 0,
	      "parse does not match a key's suffix");
	CHECKF(wl_parse_stat("x: y\n", "x", &v) < 0,
	      "parse rejects a non-number");
	v = wl_parse_stat_max(lockdep_stats, "direct dependencies");
	CHECKF(v == 32768, "parse [max:] of direct dependencies = %llu",
	      WL_U64(v));
	v = wl_parse_stat_max(patched_stats, "direct dependencies");
	CHECKF(v == 0, "no [max:] on a [dynamic:] line (got %llu, not the next line's)",
	      WL_U64(v));
	v = wl_parse_stat_max(patched_stats, "dependency chains");
	CHECKF(v == 65536, "parse [max:] of dependency chains = %llu",
	      WL_U64(v));
}

static void test_verifier_build(void)
{
	struct bpf_insn insns[64];
	unsigned int n, jumps = 0, loads = 0;

	n = wl_verifier_build(insns, 64, 20);
	for (unsigned int i = 0; i < n; i++) {
		if (insns[i].code == (BPF_JMP | BPF_JGT | BPF_K) &&
		    insns[i].off == 1)
			jumps++;
		if (insns[i].code == (BPF_LDX | BPF_MEM | BPF_W))
			loads++;
	}
	CHECKF(n == 63 && jumps == 20 && loads == 20 &&
	      insns[n - 1].code == (BPF_JMP | BPF_EXIT),
	      "verifier program: %u insns, %u cond jumps, %u ctx loads",
	      n, jumps, loads);
	CHECKF(wl_verifier_build(insns, 64, 21) == 0,
	      "verifier builder refuses to overflow its buffer");
}

static int child_ok(const struct fb_params *p, struct fb_counts *ops,
		    void *arg)
{
	(void)p;
	fb_count_set(ops, "alpha", 41);
	fb_count_add(ops, "alpha", 1);
	fb_count_set(ops, "pid_differs", getpid() != *(pid_t *)arg);
	return 0;
}

static int child_fail(const struct fb_params *p, struct fb_counts *ops,
		      void *arg)
{
	(void)p;
	(void)arg;
	fb_count_set(ops, "partial", 3);
	return -1;
}

static int child_crash(const struct fb_params *p, struct fb_counts *ops,
		       void *arg)
{
	(void)p;
	(void)ops;
	(void)arg;
	raise(SIGKILL);
	return 0;
}

static void test_run_child(void)
{
	struct fb_counts ops = { 0 };
	pid_t me = getpid();
	uint64_t a = 0, d = 0;
	int ret;

	ret = wl_run_child("test", 0, child_ok, NULL, &me, &ops);
	fb_count_get(&ops, "alpha", &a);
	fb_count_get(&ops, "pid_differs", &d);
	CHECKF(ret == 0 && a == 42 && d == 1,
	      "run_child returns the child's counters (alpha=%llu)", WL_U64(a));
	memset(&ops, 0, sizeof(ops));
	ret = wl_run_child("test", 0, child_fail, NULL, NULL, &ops);
	CHECKF(ret == -1 && !fb_count_get(&ops, "partial", &a) && a == 3,
	      "run_child passes a failure and partial counters back");
	ret = wl_run_child("test", 0, child_crash, NULL, NULL, &ops);
	CHECKF(ret == -1, "run_child reports a child killed by a signal");
}

/*
 * The trigger workload really makes its syscalls: every call answered with
 * the parent's pid, the loop timed, and a stop request ends it at once.
 */
static void test_trigger(void)
{
	static const struct fb_param_def defs[] = {
		{ "calls", FB_PARAM_U64, 5000, 1, 100000000, "calls", "calls" },
		{}
	};
	struct fb_params p = { 0 };
	struct fb_counts ops = { 0 };
	uint64_t calls = 0, ns = 0, bad = 1;
	char why[64];
	int ret;

	fb_params_declare(&p, "trigger", defs);
	CHECKF(!wl_trigger_avail(why, sizeof(why)) && !wl_trigger_check(&p, why, sizeof(why)),
	      "trigger: available and its parameters pass");
	ret = wl_trigger_run(&p, &ops);
	fb_count_get(&ops, "calls", &calls);
	fb_count_get(&ops, "loop_ns", &ns);
	fb_count_get(&ops, "ppid_mismatch", &bad);
	CHECKF(ret == 0 && calls == 5000 && bad == 0 && ns > 0,
	      "trigger: 5000 getppid calls, all answered with the parent (%llu calls, %llu ns)",
	      WL_U64(calls), WL_U64(ns));
	memset(&ops, 0, sizeof(ops));
	fb_stop = 1;
	ret = wl_trigger_run(&p, &ops);
	fb_stop = 0;
	fb_count_get(&ops, "calls", &calls);
	CHECKF(ret == 0 && calls == 0, "trigger: a stop request ends the loop (%llu calls)",
	      WL_U64(calls));
}

static void test_fd_avail(void)
{
	char why[128] = "";
	int fd = open("/dev/null", O_RDONLY);

	CHECKF(fd >= 0 && wl_fd_avail(fd, "open /dev/null", why, sizeof(why)) == 0 && !why[0] &&
	       fcntl(fd, F_GETFD) < 0, "wl_fd_avail: a good fd is closed, nothing said");
	errno = EPERM;
	CHECKF(wl_fd_avail(-1, "create a BPF hash map", why, sizeof(why)) == -1 &&
	       !strcmp(why, "cannot create a BPF hash map: Operation not permitted"),
	       "wl_fd_avail: a failed create says what and why (%s)", why);
}

int main(void)
{
	test_nft_plan();
	test_parse_stat();
	test_verifier_build();
	test_run_child();
	test_trigger();
	test_fd_avail();
	return tap_done();
}
