// SPDX-License-Identifier: GPL-2.0
/*
 * wl_lockdep.c - grow lockdep's dependency graph at run time.
 *
 * Only meaningful on a CONFIG_PROVE_LOCKING kernel.  Every netdevsim
 * device allocates a devlink instance, and devlink_alloc_ns() registers a
 * dynamic lock class key for it (lockdep_register_key(&devlink->lock_key),
 * net/devlink/core.c).  Probing the device takes many other locks while
 * that instance lock is the innermost one held, and each (class, class)
 * pair becomes a new direct dependency: two lock_list entries
 * (locks_after of one class, locks_before of the other) out of the static
 * list_entries[MAX_LOCKDEP_ENTRIES] array.  Keeping `devices` devices
 * alive at once therefore adds a few dozen entries per device; removing
 * them zaps the classes and gives the entries back (zap_class()), so the
 * graph only grows while the devices exist.  Ports (netdevs) add few
 * entries (measured ~34 per device with one port, ~31 without) but make
 * creation and removal several times slower, so the default is ports=0.
 * Each device also adds ~284 "dependency chain hlocks" (new lock chains
 * through its class) out of MAX_LOCKDEP_CHAIN_HLOCKS (327680 with
 * LOCKDEP_CHAINS_BITS=16).  Measured on the 7.3.4 lockstat guest (~3000
 * entries and ~9400 hlocks after boot): the list_entries array fills at
 * ~925 devices, the chain hlocks at ~1120.  So the default of 1000 makes
 * the baseline run out of list entries while a kernel whose list entries
 * can grow (the folio-pool lockdep patches) stays below the chain limit;
 * above ~1100 devices every kernel turns lockdep off.  When the array is
 * full, alloc_list_entry() prints "BUG: MAX_LOCKDEP_ENTRIES too low!" and
 * turns lockdep off (debug_locks = 0); the workload reports that as
 * lockdep_off=1 rather than failing.
 *
 * ops (from /proc/lockdep_stats, kernel/locking/lockdep_proc.c):
 *   lockdep_deps_before/peak/after  "direct dependencies" (nr_list_entries)
 *   lockdep_deps_max                its "[max: N]" (MAX_LOCKDEP_ENTRIES),
 *                                   0 when the kernel prints none
 *   lockdep_chain_hlocks_before/peak/after/max
 *                                   "dependency chain hlocks used"
 *   lockdep_classes_before/peak/after  "lock-classes"
 *   lockdep_off                     1 if debug_locks went 1 -> 0 in the run
 *   lockdep_on_after                debug_locks after the run (1: lockdep on)
 *   lockdep_pool_allocations/refills/failed_refills
 *                                   deltas over the run of the folio-pool
 *                                   counters of "dynamic list entries"
 *                                   (folio-pool 6/9 on; absent before):
 *                                   list entries taken from the pool, 64 kB
 *                                   chunks obtained, chunk refills failed
 *   iterations, devices (created), devices_removed
 * Runs in a private network namespace; devices are always removed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/wl_lockdep.h"
#include "workloads/wl_sysfs.h"
#include "workloads/wl_util.h"

#define WL "lockdep"
#define LOCKDEP_STATS "/proc/lockdep_stats"

struct ld_cfg {
	struct wl_nsim_cfg ns;
	unsigned int iterations;
};

struct ld_stats {
	uint64_t deps, deps_max, classes, debug_locks, hlocks, hlocks_max;
	/* "dynamic list entries: N [..., refills: R, failed refills: X, allocations: A]" */
	uint64_t pool[3];
	int has_pool;
};

static const char *const pool_field[3] = { "allocations", "refills", "failed refills" };
static const char *const pool_op[3] = {
	"lockdep_pool_allocations", "lockdep_pool_refills", "lockdep_pool_failed_refills",
};

/* FIELD: N inside the [...] of the line KEY: (FIELD after '[' or ", "); -1 if absent. */
static int bracket_field(const char *text, const char *key, const char *field, uint64_t *v)
{
	const char *s = strstr(text, key), *eol, *f;
	size_t fl = strlen(field);

	if (!s)
		return -1;
	eol = strchr(s, '\n');
	for (f = strstr(s, field); f && (!eol || f < eol); f = strstr(f + 1, field)) {
		char *end;

		if ((f[-1] != '[' && (f[-1] != ' ' || f[-2] != ',')) || f[fl] != ':')
			continue;
		*v = strtoull(f + fl + 1, &end, 10);
		return end == f + fl + 1 ? -1 : 0;
	}
	return -1;
}

static int read_stats(struct ld_stats *st)
{
	char buf[8192];

	if (fb_read_file(LOCKDEP_STATS, buf, sizeof(buf)) < 0) {
		fb_err(WL ": cannot read " LOCKDEP_STATS ": %s",
		       strerror(errno));
		return -1;
	}
	if (wl_parse_stat(buf, "direct dependencies", &st->deps) ||
	    wl_parse_stat(buf, "lock-classes", &st->classes) ||
	    wl_parse_stat(buf, "debug_locks", &st->debug_locks)) {
		fb_err(WL ": unexpected " LOCKDEP_STATS " format");
		return -1;
	}
	/* absent without PROVE_LOCKING's chain accounting: keep 0 */
	st->hlocks = 0;
	wl_parse_stat(buf, "dependency chain hlocks used", &st->hlocks);
	st->deps_max = wl_parse_stat_max(buf, "direct dependencies");
	st->has_pool = 1;
	for (int i = 0; i < 3; i++)
		if (bracket_field(buf, "dynamic list entries:", pool_field[i], &st->pool[i]))
			st->has_pool = 0;
	st->hlocks_max = wl_parse_stat_max(buf, "dependency chain hlocks used");
	return 0;
}

static int ld_cfg(const struct fb_params *p, struct ld_cfg *c, char *why, size_t len)
{
	c->iterations = (unsigned int)fb_param_u64(p, WL, "iterations");
	return wl_nsim_cfg(p, WL, &c->ns, why, len);
}

int wl_lockdep_check(const struct fb_params *p, char *why, size_t len)
{
	struct ld_cfg c;

	return ld_cfg(p, &c, why, len);
}

static void note_peak(struct fb_counts *ops, const char *name, uint64_t v)
{
	uint64_t cur = 0;

	if (fb_count_get(ops, name, &cur) || v > cur)
		fb_count_set(ops, name, v);
}

/* One iteration: all devices up, sample the graph, all devices down. */
static int iteration(const struct ld_cfg *c, unsigned char *state,
		     struct fb_counts *ops)
{
	struct ld_stats st;
	unsigned int n;
	int err, err2, saved;

	n = wl_nsim_parallel(WL, c->ns.first_id, c->ns.devices, c->ns.ports,
			     c->ns.threads, 1, state, &err);
	fb_count_add(ops, "devices", n);
	if (!err && !read_stats(&st)) {
		note_peak(ops, "lockdep_deps_peak", st.deps);
		note_peak(ops, "lockdep_classes_peak", st.classes);
		note_peak(ops, "lockdep_chain_hlocks_peak", st.hlocks);
	}
	saved = fb_stop;
	fb_stop = 0;	/* removal must finish even after Ctrl-C */
	n = wl_nsim_parallel(WL, c->ns.first_id, c->ns.devices, c->ns.ports,
			     c->ns.threads, 0, state, &err2);
	fb_stop = fb_stop || saved;
	fb_count_add(ops, "devices_removed", n);
	return err || err2 ? -1 : 0;
}

static int lockdep_child(const struct fb_params *p, struct fb_counts *ops,
			 void *arg)
{
	const struct ld_cfg *c = arg;
	struct ld_stats before, after;
	unsigned char *state;
	int ret = 0;

	(void)p;
	if (read_stats(&before))
		return -1;
	if (!before.debug_locks)
		fb_info(WL ": lockdep was already off before the run");
	fb_count_set(ops, "lockdep_deps_before", before.deps);
	fb_count_set(ops, "lockdep_deps_max", before.deps_max);
	fb_count_set(ops, "lockdep_classes_before", before.classes);
	fb_count_set(ops, "lockdep_chain_hlocks_before", before.hlocks);
	fb_count_set(ops, "lockdep_chain_hlocks_max", before.hlocks_max);
	fb_count_set(ops, "iterations", 0);
	state = calloc(c->ns.devices, 1);
	if (!state) {
		fb_err(WL ": out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < c->iterations && !fb_stop && !ret; i++) {
		ret = iteration(c, state, ops);
		fb_count_add(ops, "iterations", 1);
		if (c->iterations > 1)
			fb_info(WL ": iteration %u/%u done", i + 1,
				c->iterations);
	}
	free(state);
	if (read_stats(&after))
		return -1;
	fb_count_set(ops, "lockdep_deps_after", after.deps);
	fb_count_set(ops, "lockdep_classes_after", after.classes);
	fb_count_set(ops, "lockdep_chain_hlocks_after", after.hlocks);
	fb_count_set(ops, "lockdep_off",
		     before.debug_locks && !after.debug_locks);
	fb_count_set(ops, "lockdep_on_after", after.debug_locks != 0);
	for (int i = 0; i < 3 && before.has_pool && after.has_pool; i++)
		fb_count_set(ops, pool_op[i], after.pool[i] - before.pool[i]);
	if (before.debug_locks && !after.debug_locks)
		fb_info(WL ": lockdep turned itself off during the run (debug_locks 1 -> 0; see dmesg for \"MAX_LOCKDEP_... too low\")");
	return ret;
}

int wl_lockdep_avail(char *why, size_t len)
{
	if (!wl_exists(LOCKDEP_STATS)) {
		snprintf(why, len, "lockdep not in this kernel (%s missing; needs CONFIG_PROVE_LOCKING)",
			 LOCKDEP_STATS);
		return -1;
	}
	/* the same netdevsim devices as the sysfs workload */
	return wl_sysfs_avail(why, len);
}

int wl_lockdep_run(const struct fb_params *p, struct fb_counts *ops)
{
	struct ld_cfg c;
	char why[160];

	if (ld_cfg(p, &c, why, sizeof(why))) {
		fb_err(WL ": %s", why);
		return -1;
	}
	if (wl_nsim_free_ids(WL, &c.ns))
		return -1;
	return wl_run_nsim_child(WL, lockdep_child, p, &c, ops, c.ns.first_id, c.ns.devices);
}
