// SPDX-License-Identifier: GPL-2.0
/*
 * cmpvalidate.c - before a comparison (cmpmodel.h): every round of both
 * sides has the same probes, of the same kinds, and the same workloads.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/compare/cmpmodel.h"

static const char *short_path(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Names in x missing from y, as one message; 0 if x is a subset of y. */
static int check_subset(const struct fb_result *x, const struct fb_result *y,
			const char *xn, const char *yn, char *err, size_t errlen)
{
	for (int i = 0; i < x->nprobes; i++) {
		const struct fb_probe_result *p = fb_result_probe(y, x->probes[i].name);

		if (!p) {
			snprintf(err, errlen, "mismatched probe sets: probe '%s' is in %s but not in %s",
				 x->probes[i].name, xn, yn);
			return -1;
		}
		if (p->kind != x->probes[i].kind) {
			snprintf(err, errlen, "mismatched probes: '%s' is a %s probe in %s but a %s probe in %s",
				 p->name, fb_kind_name(x->probes[i].kind), xn, fb_kind_name(p->kind), yn);
			return -1;
		}
	}
	for (int i = 0; i < x->nworkloads; i++)
		if (!fb_result_workload(y, x->workloads[i].name)) {
			snprintf(err, errlen, "mismatched workloads: '%s' is in %s but not in %s",
				 x->workloads[i].name, xn, yn);
			return -1;
		}
	return 0;
}

static int check_pair(const struct fb_result *x, const struct fb_result *y,
		      const char *xn, const char *yn, char *err, size_t errlen)
{
	if (check_subset(x, y, xn, yn, err, errlen) || check_subset(y, x, yn, xn, err, errlen))
		return -1;
	return 0;
}

int fb_cmp_validate(const struct fb_cmp *c, char *err, size_t errlen)
{
	const struct fb_side *sd[2] = { &c->base, &c->new };
	char xn[300], yn[300];

	for (int s = 0; s < 2; s++)
		for (int i = 1; i < sd[s]->n; i++) {
			snprintf(xn, sizeof(xn), "%s", sd[s]->files[0]);
			snprintf(yn, sizeof(yn), "%s", sd[s]->files[i]);
			if (check_pair(sd[s]->r[0], sd[s]->r[i], xn, yn, err, errlen))
				return -1;
		}
	snprintf(xn, sizeof(xn), "BASE (%s)", c->base.n > 1 ? c->base.path : short_path(c->base.files[0]));
	snprintf(yn, sizeof(yn), "NEW (%s)", c->new.n > 1 ? c->new.path : short_path(c->new.files[0]));
	if (check_pair(c->base.r[0], c->new.r[0], xn, yn, err, errlen))
		return -1;
	if (!c->base.r[0]->nprobes && !c->base.r[0]->nworkloads && !c->base.r[0]->ncontention) {
		snprintf(err, errlen, "nothing to compare: the results hold no probes, workloads or contention");
		return -1;
	}
	return 0;
}
