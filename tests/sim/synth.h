/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synth.h - synthetic rounds for the gate's unit tests (tests/unit/
 * test_gate.c, test_expect.c) and its simulation (tests/sim/gate_sim.c).
 * Not kernel data: each round is a results file with two func probes
 * (a_func, b_func) and one workload (w).  Per round, every probe's latency scale and the wall
 * time get gaussian noise of relative SD sd; a_func's scale is shifted by
 * shift in NEW, its slowest 20% of calls by tail, and a_func can be
 * unavailable in the first lost rounds.  Each histogram holds `calls`
 * samples uniform in [0.5, 1.5] x scale, so p50 ~ scale and p90 ~ 1.4 scale.
 */
#ifndef FB_SYNTH_H
#define FB_SYNTH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/cmpmodel.h"

struct synth {
	double shift;		/* a_func scale x (1 + shift) */
	double tail;		/* a_func calls above its p80 x (1 + tail) */
	double sd;		/* round-to-round relative SD */
	int lost;		/* a_func unavailable in the first `lost` rounds */
	int calls;		/* samples per histogram (default 2000) */
};

static uint64_t synth_state = 7;

static double synth_u(void)
{
	synth_state = synth_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(synth_state >> 11) / 9007199254740992.0;
}

static double synth_gauss(void)
{
	return sqrt(-2 * log(synth_u() + 1e-12)) * cos(2 * M_PI * synth_u());
}

static void synth_probe(struct fb_result *r, const char *name, double scale, double tail,
			int calls, int lost)
{
	struct fb_probe_result *pr = &r->probes[r->nprobes++];

	snprintf(pr->name, sizeof(pr->name), "%s", name);
	pr->kind = FB_FUNC;
	pr->status = lost ? FB_UNAVAILABLE : FB_ATTACHED;
	if (lost) {
		snprintf(pr->reason, sizeof(pr->reason), "synthetic: lost");
		return;
	}
	pr->nstats = 1;
	snprintf(pr->stats[0].name, sizeof(pr->stats[0].name), "latency");
	snprintf(pr->stats[0].h.unit, sizeof(pr->stats[0].h.unit), "ns");
	for (int i = 0; i < calls; i++) {
		double u = synth_u();

		fb_hist_add(&pr->stats[0].h, (uint64_t)(scale * (0.5 + u) * (u > 0.8 ? 1 + tail : 1)));
	}
}

/* Round i (0-based) of a side; NEW when is_new.  Free with free(). */
static struct fb_result *synth_round(const struct synth *s, int is_new, int i)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	int calls = s->calls ? s->calls : 2000;

	if (!r)
		return NULL;
	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	synth_probe(r, "a_func", 1000 * (1 + (is_new ? s->shift : 0)) * (1 + s->sd * synth_gauss()),
		    is_new ? s->tail : 0, calls, is_new && i < s->lost);
	synth_probe(r, "b_func", 1000 * (1 + s->sd * synth_gauss()), 0, calls, 0);
	r->nworkloads = 1;
	snprintf(r->workloads[0].name, sizeof(r->workloads[0].name), "w");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = (uint64_t)(1e7 * (1 + s->sd * synth_gauss()));
	return r;
}

/* Appends one more round to an in-memory side; 0 or -1. */
static int synth_add(struct fb_side *side, const struct synth *s, int is_new)
{
	struct fb_result **r = realloc(side->r, sizeof(*r) * (size_t)(side->n + 1));
	char **f = r ? realloc(side->files, sizeof(*f) * (size_t)(side->n + 1)) : NULL;
	char name[32];

	if (r)
		side->r = r;
	if (!r || !f)
		return -1;
	side->files = f;
	snprintf(name, sizeof(name), "%s-%d.json", is_new ? "new" : "base", side->n + 1);
	side->files[side->n] = strdup(name);
	side->r[side->n] = synth_round(s, is_new, side->n);
	if (!side->files[side->n] || !side->r[side->n])
		return -1;
	snprintf(side->name, sizeof(side->name), "%s", is_new ? "new" : "base");
	side->n++;
	return 0;
}

/*
 * The model of the two in-memory sides (rows rebuilt from scratch, so it
 * can be called again after synth_add()); 0 or -1.
 */
static int synth_build(struct fb_cmp *c)
{
	char err[256];

	fb_cmp_rows_free(c);
	c->alpha = 0.05;
	c->min_effect = 2;
	return fb_cmp_build(c, err, sizeof(err));
}

#endif /* FB_SYNTH_H */
