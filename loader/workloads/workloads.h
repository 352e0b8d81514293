/* SPDX-License-Identifier: GPL-2.0 */
/* workloads.h - entry points of the built-in workloads (wl_*.c). */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#include <stdio.h>

#include "model/counts.h"
#include "util/util.h"

/* ---- workloads (measure/catalogue.c lists them; wl_*.c implement them) ---- */
struct fb_workload {
	const char *name;
	const char *series;	/* which patch series it exercises */
	const char *desc;
	/* declared in catalogue.c, {NULL}-terminated; nothing else has defaults */
	const struct fb_param_def *params;
	/* 0 if it can run here, else -1 with a one-line reason in why. */
	int (*avail)(char *why, size_t len);
	/*
	 * Limits across parameters (the per-key ranges are in params), checked
	 * before anything is attached: 0, or -1 with one line in why.  Reads
	 * every parameter the workload uses, through the same code as run.
	 */
	int (*check)(const struct fb_params *p, char *why, size_t len);
	/*
	 * Runs the workload; fills ops with its own op counts (what probe
	 * counts are checked against).  Prints progress for anything longer
	 * than a few seconds.  Returns 0, or -1 after printing one line with
	 * fb_err().  Must leave nothing behind, also when fb_stop is set.
	 */
	int (*run)(const struct fb_params *p, struct fb_counts *ops);
};

/*
 * Phase marks: a workload calls fb_workload_phase(ops, "register") where a
 * phase of interest ends; the measuring side (run.c) installs the hook that
 * snapshots what it measures there (lock_stat counts today).  Workloads do
 * not know who listens.
 */
typedef void (*fb_phase_hook)(struct fb_counts *ops, const char *phase);
void fb_workload_set_phase_hook(fb_phase_hook fn);
void fb_workload_phase(struct fb_counts *ops, const char *phase);

/*
 * The workloads themselves, one header each (wl_nft.h, ...), declare their
 * avail, check and run with FB_WORKLOAD(); the catalogue lists them
 * (measure/catalogue.h: fb_workloads[], fb_workload_find()).
 */
#define FB_WORKLOAD(n)							\
	int wl_##n##_avail(char *why, size_t len);			\
	int wl_##n##_check(const struct fb_params *p, char *why, size_t len); \
	int wl_##n##_run(const struct fb_params *p, struct fb_counts *ops)

#endif /* WORKLOADS_H */
