/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hosts.h - rounds from several machines (merged `ab --shard` runs): a
 * warning when one machine's rounds differ from the others' (hosts.c).
 */
#ifndef FB_HOSTS_H
#define FB_HOSTS_H

#include <stdio.h>

#include "analysis/compare/cmpmodel.h"

/*
 * Where a side's rounds come from two or more machines (the results'
 * host.hostname): one warning line on f if some machine's median of a
 * metric matching globs (the gate's defaults for the rounds' clock,
 * gatedefs.h) differs from the median of the other machines' rounds on
 * that side by more than thr_pct percent (the gate's threshold), naming
 * the machine, side and metric that differ most.  cmd prefixes the line.
 * Returns the number of lines printed (0 or 1).
 */
int fb_cmp_warn_hosts(FILE *f, const struct fb_cmp *c, const char *cmd, const char *globs,
		      double thr_pct);

/*
 * Rounds that are not alike by what they say about themselves: a warning
 * line on f for each side whose rounds ran more than one kernel build
 * (host.build_id), and for each of host, CPU model and foliobench version
 * with a value on one side that the other side's rounds never have.
 * Returns the number of lines printed.
 */
int fb_cmp_warn_mixed(FILE *f, const struct fb_cmp *c, const char *cmd);

#endif /* FB_HOSTS_H */
