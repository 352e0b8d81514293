// SPDX-License-Identifier: GPL-2.0
/*
 * contention.c - lock:contention_begin/end by address, turned into rows
 * that mean the same lock in every kernel (see contention.h).
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "fbprobe.h"
#include "measure/contention.h"

#define MAX_ROWS	32

static void label(const struct fb_ksyms *ks, const struct fb_named_lock *named, int nnamed,
		  uint64_t addr, char *buf, size_t len)
{
	uint64_t off;
	const char *n;

	for (int i = 0; i < nnamed; i++) {
		if (named[i].addr == addr) {
			snprintf(buf, len, "%s", named[i].name);
			return;
		}
	}
	n = fb_ksym_name(ks, addr, &off);
	if (n && off < 4096)
		snprintf(buf, len, off ? "%s+0x%llx" : "%s", n, (unsigned long long)off);
	else
		snprintf(buf, len, "%s", FB_CONT_UNRESOLVED);
}

/* The entry for lbl among n (merging), or a new one; NULL when full. */
static struct fb_contention *slot_for(struct fb_contention *all, int *n, int cap, const char *lbl)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(all[i].lock, lbl))
			return &all[i];
	if (*n == cap)
		return NULL;
	memset(&all[*n], 0, sizeof(all[*n]));
	snprintf(all[*n].lock, sizeof(all[*n].lock), "%s", lbl);
	return &all[(*n)++];
}

static int by_wait_desc(const void *a, const void *b)
{
	const struct fb_contention *x = a, *y = b;

	return x->wait_ns < y->wait_ns ? 1 : x->wait_ns > y->wait_ns ? -1 : 0;
}

void fb_contention_collect(int fd, const struct fb_ksyms *ks, const struct fb_named_lock *named,
			   int nnamed, struct fb_result *res)
{
	struct fb_contention *all = calloc(FB_MAX_CONT, sizeof(*all)), *e;
	uint64_t key, next, *prev = NULL;
	struct fb_cont c;
	char lbl[64];
	int n = 0;

	res->ncontention = 0;
	if (!all)
		return;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &c))
			continue;
		label(ks, named, nnamed, key, lbl, sizeof(lbl));
		e = slot_for(all, &n, FB_MAX_CONT, lbl);
		if (!e)
			continue;
		/* a group has no one address */
		e->addr = !strcmp(lbl, FB_CONT_UNRESOLVED) || (e->count && e->addr != key) ? 0 : key;
		e->count += c.count;
		e->wait_ns += c.wait_ns;
		if (c.max_ns > e->max_ns)
			e->max_ns = c.max_ns;
	}
	qsort(all, (size_t)n, sizeof(*all), by_wait_desc);
	res->ncontention = n < MAX_ROWS ? n : MAX_ROWS;
	memcpy(res->contention, all, (size_t)res->ncontention * sizeof(*all));
	free(all);
}
