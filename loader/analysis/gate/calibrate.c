// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate.c - `foliobench gate --calibrate DIR...`: per-row noise from
 * A/A ab directories (noise.h), and with --across-builds the build spread
 * from directories whose arms are two builds of one source.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/compare.h"
#include "analysis/gate/gate.h"
#include "analysis/gate/noise.h"
#include "model/rounds.h"
#include "util/cli.h"
#include "util/util.h"
#include "util/outfile.h"

#define GATE_MAX_CAL		64

static void fnv_put(void *ctx, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t *h = ctx;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;
}

/*
 * Each round counted once across the calibration's directories and arms
 * (compare's copy rule, fb_round_key()): the same directory given twice,
 * or one arm a copy of the other, would count its rounds twice and make
 * the noise look smaller.  0, or -1 with err.
 */
static int cal_once(uint64_t *seen, int *nseen, int max, const struct fb_cmp *c, char *err,
		    size_t errlen)
{
	const struct fb_side *side[] = { &c->base, &c->new };

	for (int k = 0; k < 2; k++)
		for (int i = 0; i < side[k]->n; i++) {
			uint64_t h = 14695981039346656037ull;
			int j = 0;

			if (!side[k]->r[i]->started[0])
				continue;	/* never a copy (fb_round_same()) */
			fb_round_key(side[k]->r[i], fnv_put, &h);
			while (j < *nseen && seen[j] != h)
				j++;
			if (j < *nseen) {
				snprintf(err, errlen, "--calibrate: %s is a round already counted (the "
					 "same start, kernel build and data; a directory given twice?):"
					 " each round counts once", side[k]->files[i]);
				return -1;
			}
			if (*nseen < max)
				seen[(*nseen)++] = h;
		}
	return 0;
}

static void print_entry(const struct fb_noise_entry *e)
{
	printf("  %-44s spread %.3g%% (%d rounds, %d dof)", e->id, fb_noise_spread(e) * 100,
	       e->n, e->dof);
	if (e->build_n)
		printf("; build spread %.3g%% (%d pairs of builds)", sqrt(e->build_var) * 100,
		       e->build_n);
	putchar('\n');
}

/* DIR's arms are one build, or (across) two; else -1 with err */
static int cal_pair(const struct fb_cmp *c, const char *dir, int across, int *two, char *err,
		    size_t errlen)
{
	*two = c->base.n && c->new.n &&
	       strcmp(c->base.r[0]->host.build_id, c->new.r[0]->host.build_id);
	if (!*two || across)
		return 0;
	snprintf(err, errlen, "%s: not an A/A run: BASE is kernel build %.12s, NEW %.12s (two "
		 "builds of one source: --across-builds)", dir, c->base.r[0]->host.build_id,
		 c->new.r[0]->host.build_id);
	return -1;
}

int fb_gate_calibrate(char **dirs, int n, const char *base_arm, const char *new_arm,
		      const char *noise_path, int across)
{
	struct fb_noise *nz = calloc(1, sizeof(*nz));
	int ret = 2, nseen = 0, maxseen = GATE_MAX_CAL * 2 * FB_CMP_MAX_ROUNDS;
	uint64_t *seen = calloc((size_t)maxseen, sizeof(*seen));
	char out[600], err[1024];

	if (!nz || !seen || !n) {
		fb_err("gate: --calibrate wants one or more A/A ab directories");
		goto out;
	}
	snprintf(out, sizeof(out), "%s%s", noise_path ? noise_path : dirs[0],
		 noise_path ? "" : "/noise.json");
	if (fb_out_check(out, err, sizeof(err))) {	/* before any work */
		fb_err("gate: --calibrate: %s", err);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct fb_cmp c;
		int two = 0, bad = fb_cmp_open(&c, 1, &dirs[i], base_arm, new_arm,
					       FB_CMP_DEFAULT_ALPHA, FB_CMP_DEFAULT_MIN_EFFECT,
					       FB_CMP_QUIET_BASE | FB_CMP_QUIET_NEW, err,
					       sizeof(err));

		bad = bad || cal_pair(&c, dirs[i], across, &two, err, sizeof(err)) ||
		      cal_once(seen, &nseen, maxseen, &c, err, sizeof(err)) ||
		      (two ? fb_noise_add_builds : fb_noise_add)(nz, &c, err, sizeof(err));
		fb_cmp_free(&c);
		if (bad) {
			fb_one_line(err);
			fb_err("gate: %s", err);
			goto out;
		}
	}
	fb_noise_finish(nz);
	if (fb_noise_write(nz, out, err, sizeof(err))) {
		fb_err("gate: --calibrate: %s", err);
		goto out;
	}
	printf("gate: calibrated %d metrics from %d rounds in %d A/A run(s) of kernel %s "
	       "(build %.12s), %s clock -> %s\n", nz->nent, nz->rounds, nz->groups, nz->release,
	       nz->build[0], fb_clock_name(nz->clock), out);
	for (int i = 0; i < nz->nent; i++)
		if (fb_gate_match(nz->e[i].id, nz->clock == FB_CLOCK_ICOUNT ?
				  FB_GATE_METRICS_ICOUNT : FB_GATE_METRICS) || nz->e[i].declared)
			print_entry(&nz->e[i]);
	ret = 0;
out:
	free(seen);
	free(nz);
	return ret;
}

