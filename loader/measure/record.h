/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the loader's side of fbrecord.bpf.h: the maps every BPF object
 * records into (histograms, per-CPU stats) and the enabled flag, created
 * once per session and shared by every object through bpf_map__reuse_fd().
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdint.h>

#include "model/hist.h"

struct bpf_map;

struct fb_record {
	int hist_fd, stats_fd, ctl_fd;
	uint64_t *hist;		/* the histogram map, mmapped */
};

/* Creates the maps, recording off: 0, or -1 with one line printed. */
int fb_record_create(struct fb_record *m);
/* Unmaps and closes (a zeroed struct is fine). */
void fb_record_close(struct fb_record *m);
/* Points an object's hist, stats and ctl maps at m's, before it loads: 0 or -errno. */
int fb_record_reuse(const struct fb_record *m, struct bpf_map *hist, struct bpf_map *stats,
		    struct bpf_map *ctl);
/* Sets or clears the enabled flag of every program sharing m. */
void fb_record_enable(const struct fb_record *m, int on);
/* Histogram slot into h: buckets, count, sum, min and max over the CPUs. */
void fb_record_read(const struct fb_record *m, int slot, struct fb_hist *h);

#endif /* RECORD_H */
