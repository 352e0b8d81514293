// SPDX-License-Identifier: GPL-2.0
/*
 * wl_mapbatch.c - BPF_MAP_UPDATE_BATCH with large batches.
 *
 * Creates a BPF_MAP_TYPE_HASH (key u32, value `value_size` bytes,
 * `entries` max entries) and, `rounds` times, writes every key in
 * BPF_MAP_UPDATE_BATCH calls of `batch` elements.  In 7.3 both hash
 * (hashtab.c BATCH_OPS) and array maps set .map_update_batch =
 * generic_map_update_batch (kernel/bpf/syscall.c), which kvmallocs one
 * key and one value buffer per call and updates the elements one by one;
 * map_type=1 selects BPF_MAP_TYPE_ARRAY instead.  The first round
 * inserts, later rounds replace existing elements.  The map fd is closed
 * at the end (nothing pinned), so the map is freed.
 * ops: batch_calls (== generic_map_update_batch calls: one per syscall,
 * count > 0 always), elements (sum of the kernel-reported counts).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/wl_mapbatch.h"
#include "workloads/wl_util.h"

#define WL "mapbatch"

struct mb_cfg {
	uint64_t entries, batch, rounds, value_size, array;
};

/* the values buffer here and the map in the kernel: each about this size */
#define MAX_BYTES (256ull << 20)

static int mb_cfg(const struct fb_params *p, struct mb_cfg *c, char *why, size_t len)
{
	c->entries = fb_param_u64(p, WL, "entries");
	c->batch = fb_param_u64(p, WL, "batch");
	c->rounds = fb_param_u64(p, WL, "rounds");
	c->value_size = fb_param_u64(p, WL, "value_size");
	c->array = fb_param_u64(p, WL, "map_type");
	if (c->batch > c->entries || c->value_size % 8 ||
	    c->entries * c->value_size > MAX_BYTES) {
		snprintf(why, len, "need batch <= entries, value_size a multiple of 8 and "
			 "entries x value_size <= %llu MiB", MAX_BYTES >> 20);
		return -1;
	}
	return 0;
}

int wl_mapbatch_check(const struct fb_params *p, char *why, size_t len)
{
	struct mb_cfg c;

	return mb_cfg(p, &c, why, len);
}

static int update_round(int fd, const struct mb_cfg *c, const __u32 *keys,
			const char *vals, struct fb_counts *ops)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);

	for (uint64_t off = 0; off < c->entries && !fb_stop; off += c->batch) {
		__u32 count = (__u32)(c->entries - off < c->batch ?
				      c->entries - off : c->batch);
		__u32 want = count;

		if (bpf_map_update_batch(fd, keys + off,
					 vals + off * c->value_size, &count,
					 &o)) {
			fb_err(WL ": BPF_MAP_UPDATE_BATCH: %s (%u of %u done)",
			       strerror(errno), count, want);
			return -1;
		}
		fb_count_add(ops, "batch_calls", 1);
		fb_count_add(ops, "elements", count);
		if (count != want) {
			fb_err(WL ": BPF_MAP_UPDATE_BATCH did %u of %u",
			       count, want);
			return -1;
		}
	}
	return 0;
}

static int run_rounds(int fd, const struct mb_cfg *c, struct fb_counts *ops)
{
	struct wl_progress pr;
	__u32 *keys;
	char *vals;
	int ret = 0;

	keys = malloc(c->entries * sizeof(*keys));
	vals = calloc(c->entries, c->value_size);
	if (!keys || !vals) {
		fb_err(WL ": out of memory");
		free(keys);
		free(vals);
		return -1;
	}
	for (uint64_t i = 0; i < c->entries; i++) {
		keys[i] = (__u32)i;
		memcpy(vals + i * c->value_size, &keys[i], sizeof(keys[i]));
	}
	wl_progress_init(&pr, WL, "rounds", c->rounds);
	for (uint64_t r = 0; r < c->rounds && !fb_stop && !ret; r++) {
		ret = update_round(fd, c, keys, vals, ops);
		fb_count_add(ops, "rounds", 1);
		wl_progress(&pr, r + 1);
	}
	free(keys);
	free(vals);
	return ret;
}

int wl_mapbatch_avail(char *why, size_t len)
{
	return wl_fd_avail(bpf_map_create(BPF_MAP_TYPE_HASH, "fb_probe", 4, 8, 1, NULL),
			   "create a BPF hash map", why, len);
}

int wl_mapbatch_run(const struct fb_params *p, struct fb_counts *ops)
{
	struct mb_cfg c;
	char why[160];
	int fd, ret;

	if (mb_cfg(p, &c, why, sizeof(why))) {
		fb_err(WL ": %s", why);
		return -1;
	}
	fd = bpf_map_create(c.array ? BPF_MAP_TYPE_ARRAY : BPF_MAP_TYPE_HASH,
			    "fb_mapbatch", 4, (__u32)c.value_size,
			    (__u32)c.entries, NULL);
	if (fd < 0) {
		fb_err(WL ": bpf_map_create(%llu entries): %s",
		       WL_U64(c.entries), strerror(errno));
		return -1;
	}
	fb_count_set(ops, "batch_calls", 0);
	fb_count_set(ops, "elements", 0);
	ret = run_rounds(fd, &c, ops);
	close(fd);
	return ret;
}
