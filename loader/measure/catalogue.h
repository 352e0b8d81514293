/* SPDX-License-Identifier: GPL-2.0 */
/* catalogue.h - the declarative table of probes (catalogue.c). */
#ifndef CATALOGUE_H
#define CATALOGUE_H

#include <stdio.h>

#include "model/fb.h"
#include "workloads/workloads.h"

struct fb_workload;

#define FB_MAX_CAND 4

/*
 * FB_LOCK: which acquire/release functions take the instance.  FB_LK_ANY:
 * an ad-hoc lock whose type this kernel's BTF does not tell (no BTF for
 * global variables): watched on the functions of every type, stats as an
 * rwsem's.
 */
enum fb_lock_type { FB_LK_NONE, FB_LK_RWSEM, FB_LK_MUTEX, FB_LK_SPIN, FB_LK_ANY };

struct fb_probe_def {
	const char *name;
	const char *series;		/* folio-pool | kernfs-bulk | - */
	enum fb_kind kind;
	/* FB_FUNC, FB_CALLSITE: candidate functions, first present wins */
	const char *syms[FB_MAX_CAND];
	/*
	 * FB_FUNC with a filter, FB_LOCK: the instance, as a kallsyms data
	 * symbol, optionally a pointer to follow plus "struct.member" inside
	 * what it points to (sysfs_root -> kernfs_root.kernfs_rwsem).
	 */
	const char *inst_sym;
	int filter_from;		/* FB_FUNC: syms[i >= this] filter on inst */
	int inst_deref;
	const char *inst_member;
	/* kernels whose BTF lacks inst_member: this kallsyms symbol is the instance */
	const char *inst_old;
	/* FB_LOCK: the lockdep class name as /proc/lock_stat prints it */
	const char *lock_class;
	enum fb_lock_type lock_type;	/* FB_LOCK */
	const char *workload;		/* the workload that drives it */
	const char *module;		/* its functions' module when not built in (kmod.h) */
	const char *proves;		/* what the row shows about the series */
	/*
	 * The metric the gate's default sets test for this row instead of
	 * theirs (compare's metric name, e.g. "register_hold_cmean"), where
	 * the default is unstable for the row; NULL: the defaults.
	 */
	const char *gate;
	/* ad-hoc rows (run --func/--lock, measure/adhoc.c) */
	int adhoc;
	const char *unresolved;		/* why it cannot be attached, found before */
};

extern const struct fb_probe_def fb_probes[];
extern const int fb_nprobes;

const struct fb_probe_def *fb_probe_find(const char *name);
/* 1 if d's name matches one of the fnmatch(3) patterns (or npat == 0). */
int fb_probe_wanted(const struct fb_probe_def *d, const char *const *pat, int npat);
/* Histogram slots the row takes (bpf/fbhist.h: FB_MAX_SLOTS per run). */
int fb_probe_slots(const struct fb_probe_def *d);

/*
 * Workload parameters for a run of the workloads wl[0..nwl): each one's
 * declared parameters at their defaults, then kv[] ("nft.descriptors=N",
 * the last one wins) applied, then each workload's cross-parameter check.
 * 0, or -1 with one line in err naming the key and what it allows.  Call
 * before anything is attached.
 */
int fb_params_resolve(struct fb_params *p, const char *const *wl, int nwl,
		      const char *const *kv, int nkv, char *err, size_t errlen);

/* The built-in workloads, in catalogue order, and one by name (NULL: none). */
extern const struct fb_workload fb_workloads[];
extern const int fb_nworkloads;
const struct fb_workload *fb_workload_find(const char *name);

/* One line per declared parameter of w: name, type, default, range, help. */
void fb_workload_print_params(FILE *f, const struct fb_workload *w);

#endif /* CATALOGUE_H */
