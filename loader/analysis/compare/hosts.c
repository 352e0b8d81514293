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

static const char *f_build(const struct fb_result *r)
{
	return r->host.build_id;
}

static const char *f_host(const struct fb_result *r)
{
	return r->host.hostname;
}

static const char *f_cpu(const struct fb_result *r)
{
	return r->host.cpu_model;
}

static const char *f_tool(const struct fb_result *r)
{
	return r->tool_version;
}

/* The first non-empty value of field in side x that no round of y has, or NULL. */
static const char *only_in(const struct fb_side *x, const struct fb_side *y,
			   const char *(*field)(const struct fb_result *))
{
	for (int i = 0; i < x->n; i++) {
		const char *v = field(x->r[i]);
		int k = 0;

		while (v[0] && k < y->n && strcmp(v, field(y->r[k])))
			k++;
		if (v[0] && k == y->n)
			return v;
	}
	return NULL;
}

int fb_cmp_warn_mixed(FILE *f, const struct fb_cmp *c, const char *cmd)
{
	static const struct {
		const char *what;
		const char *(*field)(const struct fb_result *);
	} diff[] = { { "host", f_host }, { "CPU model", f_cpu }, { "foliobench version", f_tool } };
	const struct fb_side *side[] = { &c->base, &c->new };
	int lines = 0;

	for (int s = 0; s < 2; s++) {
		const char *a = side[s]->n ? f_build(side[s]->r[0]) : "";
		const char *b = NULL;

		for (int i = 1; i < side[s]->n && !b; i++)
			if (strcmp(a, f_build(side[s]->r[i])))
				b = f_build(side[s]->r[i]);
		if (!b)
			continue;
		fprintf(f, "foliobench: warning: %s: %s (%s) mixes kernel builds %.12s and %.12s:"
			" its rounds did not all run one kernel\n", cmd, s ? "NEW" : "BASE",
			side[s]->name, a[0] ? a : "(none)", b[0] ? b : "(none)");
		lines++;
	}
	for (size_t d = 0; d < sizeof(diff) / sizeof(diff[0]); d++) {
		const char *x = only_in(&c->base, &c->new, diff[d].field);
		const char *y = only_in(&c->new, &c->base, diff[d].field);

		if (!x && !y)
			continue;
		fprintf(f, "foliobench: warning: %s: the sides differ in %s: '%s' only in %s: the"
			" difference may be the machine's, not the kernel's\n", cmd, diff[d].what,
			x ? x : y, x ? "BASE" : "NEW");
		lines++;
	}
	return lines;
}
