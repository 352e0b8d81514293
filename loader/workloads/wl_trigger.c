// SPDX-License-Identifier: GPL-2.0
/*
 * wl_trigger.c - one cheap hooked kernel function, called `calls` times.
 *
 * A tight loop of getppid(2) through syscall(2) (glibc caches nothing for
 * getppid, and syscall() rules out a vDSO or library shortcut).  The
 * handler, __x64_sys_getppid() on x86-64, is the catalogue's `getppid`
 * row, so the loop's time with that row attached minus its time without,
 * divided by `calls`, is what one probed event adds
 * (scripts/studies/overhead.sh, reports/overhead/).  Only the loop is timed
 * (CLOCK_MONOTONIC around it; under `vm --clock icount` an instruction
 * count): nothing in it sleeps.
 * ops: calls (getppid calls made, what the probe's count must equal),
 * loop_ns (the loop's time), ppid_mismatch (calls whose result was not
 * getppid()'s first answer: the syscall really ran and answered; 0).
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "workloads/wl_trigger.h"
#include "workloads/wl_util.h"

#define WL "trigger"
#define STOP_EVERY 4096		/* fb_stop polled once per this many calls */

int wl_trigger_avail(char *why, size_t len)
{
	if (syscall(SYS_getppid) < 0) {
		snprintf(why, len, "getppid(2) fails here");
		return -1;
	}
	return 0;
}

int wl_trigger_check(const struct fb_params *p, char *why, size_t len)
{
	if (!fb_param_u64(p, WL, "calls")) {
		snprintf(why, len, "calls must be at least 1");
		return -1;
	}
	return 0;
}

int wl_trigger_run(const struct fb_params *p, struct fb_counts *ops)
{
	uint64_t calls = fb_param_u64(p, WL, "calls"), done = 0, bad = 0, t0, t1;
	long ppid = syscall(SYS_getppid);

	t0 = fb_now_ns();
	while (done < calls && !fb_stop) {
		uint64_t n = calls - done < STOP_EVERY ? calls - done : STOP_EVERY;

		for (uint64_t i = 0; i < n; i++)
			bad += syscall(SYS_getppid) != ppid;
		done += n;
	}
	t1 = fb_now_ns();
	fb_count_set(ops, "calls", done);
	fb_count_set(ops, "loop_ns", t1 - t0);
	fb_count_set(ops, "ppid_mismatch", bad);
	if (bad)
		fb_err(WL ": %llu of %llu getppid() calls returned another parent",
		       WL_U64(bad), WL_U64(done));
	return bad ? -1 : 0;
}
