/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gate_fixture.h - what the gate tests share (test_gate.c: the gate's
 * rules; test_expect.c: declared trades and observer methods): the gate's
 * default options and the gate run on synthetic rounds (tests/sim/synth.h;
 * not kernel data).
 */
#ifndef GATE_FIXTURE_H
#define GATE_FIXTURE_H

#include <string.h>

#include "analysis/compare/compare.h"
#include "analysis/gate/gate.h"
#include "synth.h"
#include "tap.h"

#define CHECK(cond, name) CHECKF(cond, "%s", name)

static const struct fb_gate_opts defaults = {
	.metrics = FB_GATE_METRICS, .alpha = FB_GATE_ALPHA, .beta = FB_GATE_BETA,
	.thr_pct = FB_GATE_THR_PCT,
};

/* n + n synthetic rounds in c, built */
static inline int sides(struct fb_cmp *c, const struct synth *s, int na, int nb)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < na; i++)
		if (synth_add(&c->base, s, 0))
			return -1;
	for (int i = 0; i < nb; i++)
		if (synth_add(&c->new, s, 1))
			return -1;
	return synth_build(c);
}

static inline const struct fb_gated *find(const struct fb_gate *gt, const char *id)
{
	for (int i = 0; i < gt->ng; i++)
		if (!strcmp(gt->g[i].id, id))
			return &gt->g[i];
	return NULL;
}

/* gate outcome of na + nb rounds of s with options o; fills gt */
static inline int gate(const struct synth *s, int na, int nb, const struct fb_gate_opts *o,
		       struct fb_gate *gt, struct fb_cmp *c)
{
	char err[256];

	if (sides(c, s, na, nb) || fb_gate_eval(gt, c, o, err, sizeof(err)))
		return -1;
	return (int)gt->outcome;
}

#endif /* GATE_FIXTURE_H */
