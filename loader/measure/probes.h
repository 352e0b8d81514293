/* SPDX-License-Identifier: GPL-2.0 */
/* probes.h - attach the catalogue's probes, collect their histograms. */
#ifndef PROBES_H
#define PROBES_H

#include "measure/catalogue.h"
#include "model/fb.h"

struct fb_session;

/*
 * Opens a session for the catalogue rows whose name matches one of the
 * fnmatch(3) patterns (all rows if npat == 0), then the rows extra[0..nextra)
 * (ad-hoc rows, measure/adhoc.c; they must outlive the session), and
 * attaches each with the best method this kernel allows, recording per row
 * why not where it cannot.  Returns NULL only on a setup failure (fb_err
 * printed).
 */
struct fb_session *fb_session_open(const char *const *pat, int npat,
				   const struct fb_probe_def *extra, int nextra);
/* Fills r->probes and r->contention from the maps. */
void fb_session_collect(struct fb_session *s, struct fb_result *r);
/*
 * Recording on (1) or off (0); a session opens with it off.  Every row
 * counts only the events (calls, holds, waits, allocations) that start
 * while it is on: the run turns it on for the measured phases (each
 * workload's run) and off after.  The first time it is turned on,
 * /proc/lock_stat is zeroed for the lock_stat rows.
 */
void fb_session_enable(struct fb_session *s, int on);
/* Number of rows attached. */
int fb_session_attached(const struct fb_session *s);
/*
 * The function and lock rows (the ones that time something): how many
 * there are (*n) and how many attached (returned); *why is the reason of
 * the first one the kernel refused (EPERM for BPF tracing, no kprobes),
 * or NULL if none was refused that way (a missing symbol, say).
 */
int fb_session_timing_rows(const struct fb_session *s, int *n, const char **why);
void fb_session_close(struct fb_session *s);
/*
 * For workloads with phases: the catalogue's lock classes as /proc/lock_stat
 * counts them now (write acquisitions and hold total since recording was
 * first enabled), as ops "<phase>_<row>" and "<phase>_<row>_hold_ns".  Nothing on
 * kernels without lock_stat.
 */
void fb_lock_stat_snapshot(struct fb_counts *ops, const char *phase);

#endif /* PROBES_H */
