// SPDX-License-Identifier: GPL-2.0
/* record.c - the shared record maps and the enabled flag (record.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fbhist.h"
#include "measure/record.h"
#include "util/util.h"

#define HIST_LEN	((size_t)FB_MAX_SLOTS * FB_NBUCKETS * sizeof(uint64_t))

int fb_record_create(struct fb_record *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);

	memset(m, 0, sizeof(*m));
	/*
	 * libbpf reads /sys/devices/system/cpu/possible once and caches it:
	 * read it here, before any workload forks, or the phase hook's first
	 * fb_record_read() in a workload's child walks /sys inside the
	 * measured window (4 kernfs_rwsem read holds in the sysfs child's
	 * count, seen against bpftrace and klockstat: reports/peers/).
	 */
	if (libbpf_num_possible_cpus() < 1)
		fb_info("cannot read the possible CPUs; per-CPU stats read one CPU");
	m->hist_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fb_hist", 4, 8,
				    FB_MAX_SLOTS * FB_NBUCKETS, &mm);
	m->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "fb_stats", 4,
				     sizeof(struct fb_stat), FB_MAX_SLOTS, NULL);
	m->ctl_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fb_ctl", 4, 4, 1, NULL);
	if (m->hist_fd < 0 || m->stats_fd < 0 || m->ctl_fd < 0) {
		fb_err("cannot create BPF maps: %s (are you root? BPF syscall disabled?)",
		       strerror(errno));
		return -1;
	}
	m->hist = mmap(NULL, HIST_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, m->hist_fd, 0);
	if (m->hist == MAP_FAILED) {
		m->hist = NULL;
		fb_err("cannot mmap the histogram map: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void fb_record_close(struct fb_record *m)
{
	if (m->hist)
		munmap(m->hist, HIST_LEN);
	for (int *fd = &m->hist_fd; fd <= &m->ctl_fd; fd++)
		if (*fd > 0)
			close(*fd);
	memset(m, 0, sizeof(*m));
}

int fb_record_reuse(const struct fb_record *m, struct bpf_map *hist, struct bpf_map *stats,
		    struct bpf_map *ctl)
{
	struct bpf_map *maps[] = { hist, stats, ctl };
	const int fds[] = { m->hist_fd, m->stats_fd, m->ctl_fd };

	for (int i = 0; i < 3; i++) {
		int err = bpf_map__reuse_fd(maps[i], fds[i]);

		if (err)
			return err < 0 ? err : -EINVAL;
	}
	return 0;
}

void fb_record_enable(const struct fb_record *m, int on)
{
	unsigned int zero = 0, v = on ? 1 : 0;

	bpf_map_update_elem(m->ctl_fd, &zero, &v, BPF_ANY);
}

void fb_record_read(const struct fb_record *m, int slot, struct fb_hist *h)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fb_stat *per = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*per));
	unsigned int key = (unsigned int)slot;

	for (unsigned int i = 0; i < FB_NBUCKETS; i++)
		h->buckets[i] = m->hist[(size_t)slot * FB_NBUCKETS + i];
	if (!per || bpf_map_lookup_elem(m->stats_fd, &key, per)) {
		free(per);
		return;
	}
	for (int c = 0; c < ncpu; c++) {
		if (!per[c].count)
			continue;
		if (!h->count || per[c].min < h->min)
			h->min = per[c].min;
		if (per[c].max > h->max)
			h->max = per[c].max;
		h->count += per[c].count;
		h->sum += per[c].sum;
	}
	free(per);
}
