// SPDX-License-Identifier: GPL-2.0
/*
 * catalogue.c - every probe and workload foliobench knows, in one place.
 *
 * Adding a hook is one row in fb_probes[]; adding a workload is one row in
 * fb_workloads[] plus its wl_*.c.  run.c, list and the tests iterate these
 * tables; nothing else names a kernel symbol.
 */
#include <fnmatch.h>
#include <string.h>

#include "measure/catalogue.h"
#include "workloads/wl_lockdep.h"
#include "workloads/wl_mapbatch.h"
#include "workloads/wl_nft.h"
#include "workloads/wl_sysfs.h"
#include "workloads/wl_trigger.h"
#include "workloads/wl_verifier.h"

/* The common row: one function, traced under its own name, no filter. */
#define FUNC_ROW(sym, ser, wl, why)							\
	{ .name = sym, .series = ser, .kind = FB_FUNC, .syms = { sym }, .workload = wl,	\
	  .proves = why }
/* The same for a function of a module (loaded before attaching: kmod.h). */
#define FUNC_ROW_IN(mod, sym, ser, wl, why)						\
	{ .name = sym, .series = ser, .kind = FB_FUNC, .syms = { sym }, .workload = wl,	\
	  .module = mod, .proves = why }

const struct fb_probe_def fb_probes[] = {
	/* ---- folio-pool series ---- */
	/* on 6.1 and 6.12 nft_trans_alloc() is an inline wrapper of nft_trans_alloc_gfp() */
	{ .name = "nft_trans_alloc", .series = "folio-pool", .kind = FB_FUNC,
	  .syms = { "nft_trans_alloc", "nft_trans_alloc_gfp" }, .workload = "nft",
	  .module = "nf_tables",
	  .proves = "latency of one nf_tables transaction descriptor allocation (kzalloc on baseline, scratchpad bump when patched)" },
	{
		.name = "nft_trans_alloc.kmalloc", .series = "folio-pool", .kind = FB_CALLSITE,
		.syms = { "nft_trans_alloc", "nft_trans_alloc_gfp" }, .workload = "nft",
		.module = "nf_tables",
		.proves = "SLUB allocations made from nft_trans_alloc (kmem:kmalloc "
			  "tracepoint): one per descriptor on baseline; with the scratchpad only "
			  "one per batch that finds no spare scratchpad",
	},
	FUNC_ROW_IN("nf_tables", "nf_tables_trans_destroy_work", "folio-pool", "nft", "one asynchronous teardown pass: O(N) kfree vs bulk reset"),
	FUNC_ROW("push_stack", "folio-pool", "verifier", "verifier state push: kzalloc vs folio_pool slot"),
	FUNC_ROW("generic_map_update_batch", "folio-pool", "mapbatch", "one BPF_MAP_UPDATE_BATCH call: kvmalloc buffers vs scratchpad"),
	{
		.name = "lockdep_list_entry_alloc", .series = "folio-pool", .kind = FB_FUNC,
		/*
		 * Baseline: alloc_list_entry() is inlined and lockdep.c has
		 * no ftrace, so this row is unavailable there.  Patched:
		 * nothing traceable runs under lockdep's graph lock; the row
		 * counts the 64 kB chunk refills of lockdep's list-entry pool,
		 * made ahead of time without the lock by
		 * folio_scratchpad_alloc_chunk() (lib/folio_pool_chunk.c),
		 * filtered by its first argument, the pool's scratchpad.
		 * Entries = calls x entries per chunk (docs/lockdep-hook.md).
		 */
		.syms = { "alloc_list_entry", "folio_scratchpad_alloc_chunk" },
		.inst_sym = "lockdep_list_pool", .inst_member = "folio_pool.sp",
		.filter_from = 1, .workload = "lockdep",
		.proves = "lockdep dependency-graph growth: list-entry chunk refills outside the graph lock",
	},
	/* ---- kernfs-bulk series ---- */
	FUNC_ROW("kernfs_new_node", "kernfs-bulk", "sysfs", "kernfs node creation incl. inode ID allocation (idr batching)"),
	FUNC_ROW("kernfs_add_one", "kernfs-bulk", "sysfs", "linking a node (and, patched, activating it in the same hold)"),
	FUNC_ROW("kernfs_activate", "kernfs-bulk", "sysfs", "separate activation pass: one more kernfs_rwsem write hold per node on baseline"),
	FUNC_ROW("get_device_parent", "kernfs-bulk", "sysfs", "class glue dir lookup: list walk vs rbtree"),
	{
		.name = "kernfs_rwsem", .series = "kernfs-bulk", .kind = FB_LOCK,
		.inst_sym = "sysfs_root", .inst_deref = 1,
		.inst_member = "kernfs_root.kernfs_rwsem",
		.lock_class = "&root->kernfs_rwsem", .lock_type = FB_LK_RWSEM,
		.workload = "sysfs",
		.proves = "write acquisitions of the sysfs root's rwsem per node: 2 -> 1 "
			  "(stats hold/wait: write side; hold_read/wait_read: read side)",
	},
	{
		.name = "kernfs_idr_lock", .series = "kernfs-bulk", .kind = FB_LOCK,
		.inst_sym = "sysfs_root", .inst_deref = 1,
		.inst_member = "kernfs_root.kernfs_idr_lock",
		.inst_old = "kernfs_idr_lock",	/* 6.1, 6.12: one global spinlock */
		.lock_class = "&root->kernfs_idr_lock", .lock_type = FB_LK_SPIN,
		.workload = "sysfs",
		.proves = "inode ID allocations under the idr lock: batched 16 per acquisition",
	},
	{
		.name = "gdp_mutex", .series = "kernfs-bulk", .kind = FB_LOCK,
		.inst_sym = "gdp_mutex",
		.lock_class = "gdp_mutex", .lock_type = FB_LK_MUTEX, .workload = "sysfs",
		.proves = "get_device_parent()'s global mutex: hold time shrinks with the rbtree",
		/*
		 * Its whole-run holds are two modes of equal mass (~200
		 * registrations, 9.5-12.5 us; ~200 removals, 5.8 us, some
		 * lengthened by an interrupt), so the whole-run median
		 * falls into either mode from one boot to the next (2 of
		 * 48, -38%: reports/gate/README.md).  The registration
		 * phase's holds are one mode, and they are the ones the
		 * rbtree shortens.
		 */
		.gate = "register_hold_cmean",
	},
	/* ---- both ---- */
	{
		/*
		 * The overhead benchmark's hook (reports/overhead/): a
		 * syscall handler that does almost nothing, so the trigger
		 * workload's loop time with and without it is the probe's
		 * own cost per event.  __do_sys_getppid first: where it is
		 * an alias of __x64_sys_getppid (same address), only it is in
		 * BTF, so only it takes fentry.
		 */
		.name = "getppid", .series = "-", .kind = FB_FUNC,
		.syms = { "__do_sys_getppid", "__x64_sys_getppid" },
		.workload = "trigger",
		.proves = "probe overhead: one event per getppid(2) of the trigger workload",
	},
	{
		.name = "contention", .series = "-", .kind = FB_CONTENTION,
		.proves = "lock:contention_begin/end wait time per lock: catalogue lock, "
			  "symbol(+offset), or one [unresolved] group",
	},
};

const int fb_nprobes = sizeof(fb_probes) / sizeof(fb_probes[0]);

/*
 * Workload parameters: the one place their defaults and limits live.  The
 * maxima keep a run inside this project's machines (2 CPUs, 24 GiB host,
 * 2 GiB qemu guests): nft.descriptors=100000 peaked at 33 MB RSS in the
 * workload child and took 3 s on the host, so the cap of 1000000 stays
 * near 0.3 GB and minutes under TCG (999999999999 grew a 17 GB child).
 */
#define FB_ID_MAX	2000000000ull	/* netdevsim ids: u32, kept below 2^31 */

static const struct fb_param_def nft_params[] = {
	{ "descriptors", FB_PARAM_U64, 10025, 2, 1000000, "descriptors",
	  "nft_trans objects in total (the seed's 10,025)" },
	{ "passes", FB_PARAM_U64, 5, 1, 1000, "commits",
	  "commits with deletions, each one teardown pass" },
	{ "aborts", FB_PARAM_U64, 5, 0, 1000, "batches", "aborted (dry-run) batches" },
	{ "chains", FB_PARAM_U64, 1, 1, 1000, "chains", "chains per table" },
	{}
};

/* sysfs and lockdep drive the same netdevsim devices (wl_nsim_cfg()) */
#define NSIM_PARAMS(devices, ports, first_id, devices_help)				\
	{ "devices", FB_PARAM_U64, devices, 1, 5000, "devices", devices_help },		\
	{ "threads", FB_PARAM_U64, 2, 1, 16, "threads",					\
	  "threads writing new_device/del_device" },					\
	{ "ports", FB_PARAM_U64, ports, 0, 8, "ports", "ports (netdevs) per device" },	\
	{ "first_id", FB_PARAM_U64, first_id, 0, FB_ID_MAX, "id",			\
	  "first netdevsim id; the range must be free" }

static const struct fb_param_def sysfs_params[] = {
	NSIM_PARAMS(200, 1, 4200, "netdevsim devices registered, then removed"),
	{}
};

static const struct fb_param_def verifier_params[] = {
	{ "progs", FB_PARAM_U64, 20, 1, 10000, "programs", "socket filters loaded" },
	{ "branches", FB_PARAM_U64, 2000, 0, 8000, "branches",
	  "conditional jumps per program (BPF_COMPLEXITY_LIMIT_JMP_SEQ is 8192)" },
	{ "state_freq", FB_PARAM_BOOL, 1, 0, 1, "",
	  "BPF_F_TEST_STATE_FREQ: exactly one push_stack() per branch" },
	{}
};

static const struct fb_param_def mapbatch_params[] = {
	{ "entries", FB_PARAM_U64, 65536, 1, 1u << 22, "entries", "map size" },
	{ "batch", FB_PARAM_U64, 4096, 1, 1u << 22, "elements",
	  "elements per BPF_MAP_UPDATE_BATCH (at most entries)" },
	{ "rounds", FB_PARAM_U64, 20, 1, 10000, "rounds", "passes over every key" },
	{ "value_size", FB_PARAM_U64, 64, 8, 4096, "bytes",
	  "value size, a multiple of 8; entries x value_size <= 256 MiB" },
	{ "map_type", FB_PARAM_U64, 0, 0, 1, "", "0: BPF_MAP_TYPE_HASH, 1: BPF_MAP_TYPE_ARRAY" },
	{}
};

static const struct fb_param_def lockdep_params[] = {
	NSIM_PARAMS(1000, 0, 5200,
		    "netdevsim devices alive at once (lockdep's list entries fill near 925)"),
	{ "iterations", FB_PARAM_U64, 1, 1, 100, "iterations", "create-all/remove-all cycles" },
	{}
};

static const struct fb_param_def trigger_params[] = {
	{ "calls", FB_PARAM_U64, 200000, 1, 100000000, "calls",
	  "getppid(2) calls in one timed loop (op loop_ns)" },
	{}
};

#define WORKLOAD(n, series, desc)					\
	{ #n, series, desc, n##_params, wl_##n##_avail, wl_##n##_check, wl_##n##_run }

const struct fb_workload fb_workloads[] = {
	WORKLOAD(nft, "folio-pool",
		 "nf_tables transaction batches (commit and abort) in a private netns"),
	WORKLOAD(sysfs, "kernfs-bulk", "parallel netdevsim device registration and removal"),
	WORKLOAD(verifier, "folio-pool", "BPF programs whose verification pushes many states"),
	WORKLOAD(mapbatch, "folio-pool", "BPF_MAP_UPDATE_BATCH with large batches"),
	WORKLOAD(lockdep, "folio-pool", "grows lockdep's dependency graph (PROVE_LOCKING kernels)"),
	WORKLOAD(trigger, "-", "getppid(2) in a tight timed loop: probe overhead per event"),
};

const int fb_nworkloads = sizeof(fb_workloads) / sizeof(fb_workloads[0]);

const struct fb_probe_def *fb_probe_find(const char *name)
{
	for (int i = 0; i < fb_nprobes; i++)
		if (!strcmp(fb_probes[i].name, name))
			return &fb_probes[i];
	return NULL;
}

int fb_probe_wanted(const struct fb_probe_def *d, const char *const *pat, int npat)
{
	if (!npat)
		return 1;
	for (int i = 0; i < npat; i++)
		if (!fnmatch(pat[i], d->name, 0))
			return 1;
	return 0;
}

int fb_probe_slots(const struct fb_probe_def *d)
{
	switch (d->kind) {
	case FB_FUNC:
	case FB_CALLSITE:
		return 1;
	case FB_LOCK:	/* hold, wait (and hold_read, wait_read) */
		return d->lock_type == FB_LK_RWSEM || d->lock_type == FB_LK_ANY ? 4 : 2;
	default:
		return 0;
	}
}

const struct fb_workload *fb_workload_find(const char *name)
{
	for (int i = 0; i < fb_nworkloads; i++)
		if (!strcmp(fb_workloads[i].name, name))
			return &fb_workloads[i];
	return NULL;
}

/* "nft.descriptors=10025" -> wl "nft", key "descriptors", val "10025" */
static int split_param(const char *kv, char *wl, size_t wlen, char *key, size_t klen,
		       const char **val)
{
	const char *dot = strchr(kv, '.'), *eq = strchr(kv, '=');

	if (!dot || !eq || dot > eq || dot == kv || eq == dot + 1 ||
	    (size_t)(dot - kv) >= wlen || (size_t)(eq - dot - 1) >= klen)
		return -1;
	snprintf(wl, wlen, "%.*s", (int)(dot - kv), kv);
	snprintf(key, klen, "%.*s", (int)(eq - dot - 1), dot + 1);
	*val = eq + 1;
	return 0;
}

static int selected(const char *const *wl, int nwl, const char *name)
{
	for (int i = 0; i < nwl; i++)
		if (!strcmp(wl[i], name))
			return 1;
	return 0;
}

static int declared(const struct fb_workload *w, const char *key)
{
	for (const struct fb_param_def *d = w->params; d->key; d++)
		if (!strcmp(d->key, key))
			return 1;
	return 0;
}

int fb_params_resolve(struct fb_params *p, const char *const *wl, int nwl,
		      const char *const *kv, int nkv, char *err, size_t errlen)
{
	char why[192];

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < nwl; i++) {
		const struct fb_workload *w = fb_workload_find(wl[i]);

		if (!w) {
			snprintf(err, errlen, "unknown workload '%s' (see foliobench list)", wl[i]);
			return -1;
		}
		if (!selected(wl, i, wl[i]) && fb_params_declare(p, w->name, w->params)) {
			snprintf(err, errlen, "more than %d workload parameters", FB_MAX_PARAMS);
			return -1;
		}
	}
	for (int i = 0; i < nkv; i++) {
		char name[32], key[48];
		const char *val;

		if (split_param(kv[i], name, sizeof(name), key, sizeof(key), &val)) {
			snprintf(err, errlen, "--param wants WORKLOAD.KEY=VALUE, got '%s'", kv[i]);
			return -1;
		}
		if (!fb_workload_find(name)) {
			snprintf(err, errlen, "--param %s: unknown workload '%s' (see foliobench list)",
				 kv[i], name);
			return -1;
		}
		if (!declared(fb_workload_find(name), key)) {
			struct fb_params all = { 0 };

			fb_params_declare(&all, fb_workload_find(name)->name,
					  fb_workload_find(name)->params);
			fb_params_set(&all, fb_workload_find(name)->name, key, val, err, errlen);
			return -1;
		}
		if (!selected(wl, nwl, name)) {
			snprintf(err, errlen, "--param %s: workload %s is not selected (add --workload %s)",
				 kv[i], name, name);
			return -1;
		}
		if (fb_params_set(p, fb_workload_find(name)->name, key, val, err, errlen))
			return -1;
	}
	for (int i = 0; i < nwl; i++) {
		const struct fb_workload *w = fb_workload_find(wl[i]);

		if (!selected(wl, i, wl[i]) && w->check(p, why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", w->name, why);
			return -1;
		}
	}
	return 0;
}

void fb_workload_print_params(FILE *f, const struct fb_workload *w)
{
	for (const struct fb_param_def *d = w->params; d && d->key; d++) {
		char name[48], range[96];

		snprintf(name, sizeof(name), "%s.%s", w->name, d->key);
		fb_param_range(d, range, sizeof(range));
		fprintf(f, "    %-22s %-4s %8llu  %-26s %s\n", name, fb_param_type_name(d->type),
			(unsigned long long)d->def, range, d->help);
	}
}
