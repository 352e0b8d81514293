// SPDX-License-Identifier: GPL-2.0
/*
 * catalogue.c - every probe and workload foliobench knows, in one place.
 *
 * Adding a hook is one row in fb_probes[]; adding a workload is one row in
 * fb_workloads[] plus its wl_*.c.  run.c, list and the tests iterate these
 * tables; nothing else names a kernel symbol.
 */
#include <string.h>

#include "measure/catalogue.h"
#include "workloads/workloads.h"

const struct fb_probe_def fb_probes[] = {
	/* ---- folio-pool series ---- */
	{
		.name = "nft_trans_alloc", .series = "folio-pool", .kind = FB_FUNC,
		.syms = { "nft_trans_alloc" }, .workload = "nft",
		.proves = "latency of one nf_tables transaction descriptor allocation "
			  "(kzalloc on baseline, scratchpad bump when patched)",
	},
	{
		.name = "nft_trans_alloc.kmalloc", .series = "folio-pool", .kind = FB_CALLSITE,
		.syms = { "nft_trans_alloc" }, .workload = "nft",
		.proves = "SLUB allocations made from nft_trans_alloc (kmem:kmalloc "
			  "tracepoint): one per descriptor on baseline; with the scratchpad only "
			  "one per batch that finds no spare scratchpad",
	},
	{
		.name = "nf_tables_trans_destroy_work", .series = "folio-pool", .kind = FB_FUNC,
		.syms = { "nf_tables_trans_destroy_work" }, .workload = "nft",
		.proves = "one asynchronous teardown pass: O(N) kfree vs bulk reset",
	},
	{
		.name = "push_stack", .series = "folio-pool", .kind = FB_FUNC,
		.syms = { "push_stack" }, .workload = "verifier",
		.proves = "verifier state push: kzalloc vs folio_pool slot",
	},
	{
		.name = "generic_map_update_batch", .series = "folio-pool", .kind = FB_FUNC,
		.syms = { "generic_map_update_batch" }, .workload = "mapbatch",
		.proves = "one BPF_MAP_UPDATE_BATCH call: kvmalloc buffers vs scratchpad",
	},
	{
		.name = "lockdep_list_entry_alloc", .series = "folio-pool", .kind = FB_FUNC,
		/*
		 * Baseline: alloc_list_entry() is inlined and lockdep.c has
		 * no ftrace, so this row is unavailable there.  Patched:
		 * entries beyond the bootstrap array come from lockdep's
		 * folio_pool through the traceable folio_pool_alloc(),
		 * filtered to lockdep's pool by its first argument.
		 */
		.syms = { "alloc_list_entry", "folio_pool_alloc" },
		.inst_sym = "lockdep_list_pool", .filter_from = 1, .workload = "lockdep",
		.proves = "lockdep dependency-graph growth beyond the static array",
	},
	/* ---- kernfs-bulk series ---- */
	{
		.name = "kernfs_new_node", .series = "kernfs-bulk", .kind = FB_FUNC,
		.syms = { "kernfs_new_node" }, .workload = "sysfs",
		.proves = "kernfs node creation incl. inode ID allocation (idr batching)",
	},
	{
		.name = "kernfs_add_one", .series = "kernfs-bulk", .kind = FB_FUNC,
		.syms = { "kernfs_add_one" }, .workload = "sysfs",
		.proves = "linking a node (and, patched, activating it in the same hold)",
	},
	{
		.name = "kernfs_activate", .series = "kernfs-bulk", .kind = FB_FUNC,
		.syms = { "kernfs_activate" }, .workload = "sysfs",
		.proves = "separate activation pass: one more kernfs_rwsem write hold per node on baseline",
	},
	{
		.name = "get_device_parent", .series = "kernfs-bulk", .kind = FB_FUNC,
		.syms = { "get_device_parent" }, .workload = "sysfs",
		.proves = "class glue dir lookup: list walk vs rbtree",
	},
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
		.lock_class = "&root->kernfs_idr_lock", .lock_type = FB_LK_SPIN,
		.workload = "sysfs",
		.proves = "inode ID allocations under the idr lock: batched 16 per acquisition",
	},
	{
		.name = "gdp_mutex", .series = "kernfs-bulk", .kind = FB_LOCK,
		.inst_sym = "gdp_mutex",
		.lock_class = "gdp_mutex", .lock_type = FB_LK_MUTEX, .workload = "sysfs",
		.proves = "get_device_parent()'s global mutex: hold time shrinks with the rbtree",
	},
	/* ---- both ---- */
	{
		.name = "contention", .series = "-", .kind = FB_CONTENTION,
		.proves = "lock:contention_begin/end wait time per lock: catalogue lock, "
			  "symbol(+offset), or one [unresolved] group",
	},
};

const int fb_nprobes = sizeof(fb_probes) / sizeof(fb_probes[0]);

const struct fb_workload fb_workloads[] = {
	{ "nft", "folio-pool", "nf_tables transaction batches (commit and abort) in a private netns",
	  "descriptors=10025 passes=5 aborts=5 chains=1", wl_nft_avail, wl_nft_run },
	{ "sysfs", "kernfs-bulk", "parallel netdevsim device registration and removal",
	  "devices=200 threads=2 ports=1 first_id=4200", wl_sysfs_avail, wl_sysfs_run },
	{ "verifier", "folio-pool", "BPF programs whose verification pushes many states",
	  "progs=20 branches=2000 state_freq=1", wl_verifier_avail, wl_verifier_run },
	{ "mapbatch", "folio-pool", "BPF_MAP_UPDATE_BATCH with large batches",
	  "entries=65536 batch=4096 rounds=20 value_size=64 map_type=0", wl_mapbatch_avail, wl_mapbatch_run },
	{ "lockdep", "folio-pool", "grows lockdep's dependency graph (PROVE_LOCKING kernels)",
	  "devices=1000 ports=0 iterations=1 threads=2 first_id=5200", wl_lockdep_avail, wl_lockdep_run },
};

const int fb_nworkloads = sizeof(fb_workloads) / sizeof(fb_workloads[0]);

const struct fb_probe_def *fb_probe_find(const char *name)
{
	for (int i = 0; i < fb_nprobes; i++)
		if (!strcmp(fb_probes[i].name, name))
			return &fb_probes[i];
	return NULL;
}

const struct fb_workload *fb_workload_find(const char *name)
{
	for (int i = 0; i < fb_nworkloads; i++)
		if (!strcmp(fb_workloads[i].name, name))
			return &fb_workloads[i];
	return NULL;
}
