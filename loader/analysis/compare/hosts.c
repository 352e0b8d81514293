// SPDX-License-Identifier: GPL-2.0
/*
 * hosts.c - is one machine unlike the others?  Rounds merged from several
 * machines are only as good as the machines are alike: a slower CPU, a
 * different qemu or a noisy neighbour shifts every round it ran.  Shards
 * give each machine both arms, so a difference does not fake a verdict by
 * itself, but it widens the noise and says a machine needs a look.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/hosts.h"
#include "util/util.h"

#define HOSTS_MAX	64

/* The distinct machines of a side's rounds, in order of first appearance. */
static int side_hosts(const struct fb_side *s, const char **h)
{
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		const char *x = s->r[i]->host.hostname;
		int k = 0;

		while (k < n && strcmp(h[k], x))
			k++;
		if (k == n && n < HOSTS_MAX)
			h[n++] = x;
	}
	return n;
}

/* Relative difference of host's median from the others' for metric values v. */
static int host_diff(const struct fb_side *s, const double *v, const char *host, double *d)
{
	double mine[FB_CMP_MAX_ROUNDS], rest[FB_CMP_MAX_ROUNDS], other;
	int nm = 0, nr = 0;

	for (int i = 0; i < s->n; i++) {
		if (!strcmp(s->r[i]->host.hostname, host))
			mine[nm++] = v[i];
		else
			rest[nr++] = v[i];
	}
	if (!nm || !nr)
		return -1;
	other = fb_median(rest, nr);
	if (!(fabs(other) > 0))
		return -1;
	*d = fb_median(mine, nm) / other - 1;
	return 0;
}

struct worst {
	double d;		/* relative difference, 0: none beyond the threshold */
	int side, nrounds;
	const char *host;
	char id[160];
};

/* The machine of one side (0 BASE, 1 NEW) whose gated metric differs most, into w. */
static void worst_of_side(const struct fb_cmp *c, int side, const char *globs, double thr,
			  struct worst *w)
{
	const struct fb_side *s = side ? &c->new : &c->base;
	const char *hosts[HOSTS_MAX];
	int nh = side_hosts(s, hosts);
	char id[160];
	double d;

	for (int h = 0; nh > 1 && h < nh; h++) {
		for (int r = 0; r < c->nrows; r++) {
			for (int k = 0; k < c->rows[r].nm; k++) {
				const struct fb_metric *m = c->rows[r].m[k];

				fb_metric_id(&c->rows[r], m, id, sizeof(id));
				if ((side ? m->nb : m->na) != s->n || !fb_match_globs(id, globs) ||
				    host_diff(s, side ? m->b : m->a, hosts[h], &d) < 0 ||
				    fabs(d) <= thr || fabs(d) <= fabs(w->d))
					continue;
				*w = (struct worst){ .d = d, .side = side, .host = hosts[h] };
				fb_fmt(w->id, sizeof(w->id), "%s", id);
			}
		}
	}
}

int fb_cmp_warn_hosts(FILE *f, const struct fb_cmp *c, const char *cmd, const char *globs,
		      double thr_pct)
{
	double thr = thr_pct / 100;
	struct worst w = { 0 };
	const struct fb_side *s;

	worst_of_side(c, 0, globs, thr, &w);
	worst_of_side(c, 1, globs, thr, &w);
	if (!w.d)
		return 0;
	s = w.side ? &c->new : &c->base;
	for (int i = 0; i < s->n; i++)
		w.nrounds += !strcmp(s->r[i]->host.hostname, w.host);
	fprintf(f, "foliobench: warning: %s: %s: the %d rounds from host '%s' differ from the "
		"other hosts' by %+.1f%% (%s; threshold %.1f%%): that machine is not like the "
		"others\n", cmd, s->name, w.nrounds, w.host[0] ? w.host : "(unknown)", 100 * w.d,
		w.id, 100 * thr);
	return 1;
}
