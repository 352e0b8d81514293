// SPDX-License-Identifier: GPL-2.0
/* counts.c - named counters (workload op counts) and workload parameters. */
#include <stdio.h>
#include <string.h>

#include "model/fb.h"

static int count_index(const struct fb_counts *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return i;
	return -1;
}

void fb_count_set(struct fb_counts *c, const char *name, uint64_t val)
{
	int i = count_index(c, name);

	if (i < 0) {
		if (c->n == FB_MAX_COUNTS)
			return;
		i = c->n++;
		snprintf(c->v[i].name, sizeof(c->v[i].name), "%s", name);
	}
	c->v[i].val = val;
}

void fb_count_add(struct fb_counts *c, const char *name, uint64_t val)
{
	uint64_t cur = 0;

	fb_count_get(c, name, &cur);
	fb_count_set(c, name, cur + val);
}

int fb_count_get(const struct fb_counts *c, const char *name, uint64_t *val)
{
	int i = count_index(c, name);

	if (i < 0)
		return -1;
	*val = c->v[i].val;
	return 0;
}

/* "--param nft.descriptors=10025": the last matching one wins. */
uint64_t fb_param_u64(const struct fb_params *p, const char *workload,
		      const char *key, uint64_t def)
{
	size_t wl = strlen(workload), kl = strlen(key);
	uint64_t v = def;

	for (int i = 0; p && i < p->n; i++) {
		const char *s = p->kv[i];

		if (strncmp(s, workload, wl) || s[wl] != '.' ||
		    strncmp(s + wl + 1, key, kl) || s[wl + 1 + kl] != '=')
			continue;
		if (fb_parse_u64(s + wl + 2 + kl, &v) < 0)
			v = def;
	}
	return v;
}
