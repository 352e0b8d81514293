// SPDX-License-Identifier: GPL-2.0
/*
 * gate_pool.c - the gate's A/A and detection rates on a pool of REAL
 * rounds: A/A ab directories (both arms one kernel) are pooled; each trial
 * draws R rounds for BASE and R other rounds for NEW without replacement,
 * optionally multiplies NEW's values of chosen metrics by 1 + PCT/100 (an
 * injected change applied to the recorded values, not a kernel change),
 * and runs the same model and gate as `foliobench gate` (fb_cmp_build,
 * fb_gate_eval; fb_seq_decide with --looks), with --noise if given.
 *
 *   make sim   (builds build/sim/gate_pool)
 *   build/sim/gate_pool [--noise FILE] [--rounds R] [--looks F,S,M] [--trials N]
 *       [--seed S] [--shift ID=PCT]... [--metrics GLOBS] AB_DIR...
 *
 * Prints pass / fail / unknown counts; with --shift, the fails that name
 * each shifted metric (detections).  Trials share rounds (resampled).
 *
 * A study, not a test: make test never runs it (`make unit` builds it, so
 * it keeps compiling); scripts/studies/gate-noise-study.sh runs it for
 * reports/gate/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/compare.h"
#include "analysis/gate/gate.h"

#define MAX_POOL	1024
#define MAX_SHIFT	8

struct pool {
	int n;
	struct fb_result *r[MAX_POOL];
	char *f[MAX_POOL];
};

struct shift {
	char id[160];
	double ratio;
	int named;
};

static int load(struct pool *p, const char *dir)
{
	static const char *const arms[] = { "baseline", "patched" };
	char path[600], err[512];

	for (int a = 0; a < 2; a++) {
		struct fb_side s = { 0 };

		snprintf(path, sizeof(path), "%s/%s", dir, arms[a]);
		if (fb_side_load(&s, path, 1, err, sizeof(err))) {
			fprintf(stderr, "gate_pool: %s\n", err);
			return -1;
		}
		for (int i = 0; i < s.n && p->n < MAX_POOL; i++) {
			p->r[p->n] = s.r[i];
			p->f[p->n++] = s.files[i];
		}
		free(s.r);	/* the rounds now belong to the pool */
		free(s.files);
	}
	return 0;
}

static unsigned long long rng;

static unsigned long long next(void)
{
	unsigned long long z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* first k of a shuffled index */
static void draw(int *idx, int n, int k)
{
	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int i = 0; i < k && i < n; i++) {
		int j = i + (int)(next() % (unsigned long long)(n - i)), t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
	}
}

static void set_side(struct fb_side *s, const char *name, const struct pool *p,
		     const int *idx, int n)
{
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->n = n;
	for (int i = 0; i < n; i++) {
		s->r[i] = p->r[idx[i]];
		s->files[i] = p->f[idx[i]];
	}
}

/* NEW's values of the shifted metrics times their ratio */
static void apply_shifts(struct fb_cmp *c, const struct shift *sh, int nsh)
{
	for (int i = 0; i < c->nrows; i++)
		for (int k = 0; k < c->rows[i].nm; k++) {
			struct fb_metric *m = c->rows[i].m[k];
			char id[160];

			fb_metric_id(&c->rows[i], m, id, sizeof(id));
			for (int s = 0; s < nsh; s++) {
				if (strcmp(id, sh[s].id))
					continue;
				for (int j = 0; j < m->nb; j++)
					m->b[j] *= sh[s].ratio;
				if (m->nb)
					m->new = fb_median(m->b, m->nb);
				m->deterministic = 0;
			}
		}
}

struct tally {
	int pass, fail, unknown, error;
	long rounds;
	int named_other;	/* fails naming an unshifted metric */
};

/* after a fail: which metrics it named */
static void named(const struct fb_gate *gt, struct shift *sh, int nsh, struct tally *t)
{
	int other = 0;

	for (int s = 0; s < nsh; s++)
		for (int i = 0; i < gt->ng; i++)
			if (gt->g[i].state == FB_GM_REGRESSED && !strcmp(gt->g[i].id, sh[s].id))
				sh[s].named++;
	for (int i = 0; i < gt->ng; i++) {
		int shifted = 0;

		for (int s = 0; s < nsh; s++)
			shifted |= !strcmp(gt->g[i].id, sh[s].id);
		other |= !shifted && (gt->g[i].state == FB_GM_REGRESSED ||
				      gt->g[i].state == FB_GM_LOST);
	}
	t->named_other += other;
}

struct run {
	const struct pool *p;
	struct shift sh[MAX_SHIFT];
	int nsh;
	struct fb_gate_opts o;
	const char *metrics;
	double thr_pct;
	struct fb_seq sq;	/* max 0: fixed */
	int rounds;
};

/*
 * n rounds per side from the shuffled idx, look k (0: fixed gate): 0 pass,
 * 1 fail, 3 unknown, 4 continue, -1 error; names counted on a fail.
 */
static int look(struct run *u, const int *idx, int n, int k, struct tally *t)
{
	struct fb_result *rb[2][FB_CMP_MAX_ROUNDS];
	char *fb[2][FB_CMP_MAX_ROUNDS], err[512] = "";
	struct fb_gate gt = { 0 };
	struct fb_cmp c = { 0 };
	int ret = -1;

	c.base.r = rb[0];
	c.base.files = fb[0];
	c.new.r = rb[1];
	c.new.files = fb[1];
	set_side(&c.base, "base", u->p, idx, n);
	set_side(&c.new, "new", u->p, idx + n, n);
	c.alpha = FB_CMP_DEFAULT_ALPHA;
	c.min_effect = FB_CMP_DEFAULT_MIN_EFFECT;
	if (fb_cmp_build(&c, err, sizeof(err)))
		goto out;
	if (u->o.noise && fb_noise_check(u->o.noise, &c, err, sizeof(err)))
		goto out;
	apply_shifts(&c, u->sh, u->nsh);
	u->o.metrics = fb_gate_metrics_for(&c, u->metrics);
	u->o.metrics_chosen = u->metrics != NULL;	/* as gate --metrics */
	u->o.thr_pct = fb_gate_thr_for(&c, u->thr_pct);
	if (k) {
		enum fb_seq_decision d = fb_seq_decide(&u->sq, k, &c, &u->o, &gt, err,
						       sizeof(err));

		if (!err[0])
			ret = d == FB_SEQ_PASS ? 0 : d == FB_SEQ_FAIL ? 1 :
			      d == FB_SEQ_UNKNOWN ? 3 : 4;
	} else if (!fb_gate_eval(&gt, &c, &u->o, err, sizeof(err))) {
		ret = gt.outcome == FB_GATE_PASS && gt.cannot ? 3 : (int)gt.outcome;
	}
	if (ret == 1)
		named(&gt, u->sh, u->nsh, t);
	for (int i = 0; getenv("GATE_POOL_VERBOSE") && ret != 4 && i < gt.ng; i++)
		if (gt.g[i].state == FB_GM_UNDECIDED || gt.g[i].state == FB_GM_REGRESSED ||
		    gt.g[i].state == FB_GM_LOST)
			fprintf(stderr, "trial: %s %d (%s)\n", gt.g[i].id, (int)gt.g[i].state,
				gt.g[i].why);
out:
	if (ret < 0)
		fprintf(stderr, "gate_pool: %s\n", err);
	fb_gate_free(&gt);
	fb_cmp_rows_free(&c);	/* the rounds stay in the pool */
	return ret;
}

static void trial(struct run *u, struct tally *t)
{
	int idx[MAX_POOL], n = u->sq.max ? u->sq.max : u->rounds, ret = 3, used = n;

	draw(idx, u->p->n, 2 * n);
	if (!u->sq.max) {
		ret = look(u, idx, n, 0, t);
	} else {
		int mix[MAX_POOL];

		/* look k uses the first rounds(k) of each side's MAX */
		for (int k = 1; k <= fb_seq_looks(&u->sq); k++) {
			used = fb_seq_rounds(&u->sq, k);
			memcpy(mix, idx, sizeof(int) * (size_t)used);
			memcpy(mix + used, idx + n, sizeof(int) * (size_t)used);
			ret = look(u, mix, used, k, t);
			if (ret != 4)
				break;
		}
	}
	t->rounds += used;
	if (ret < 0)
		t->error++;
	else
		*(ret == 0 ? &t->pass : ret == 1 ? &t->fail : &t->unknown) += 1;
}

static int parse_shift(const char *s, struct run *u)
{
	const char *eq = strrchr(s, '=');

	if (!eq || u->nsh >= MAX_SHIFT || (size_t)(eq - s) >= sizeof(u->sh[0].id))
		return -1;
	snprintf(u->sh[u->nsh].id, sizeof(u->sh[0].id), "%.*s", (int)(eq - s), s);
	u->sh[u->nsh++].ratio = 1 + atof(eq + 1) / 100;
	return 0;
}

static void usage(void)
{
	fputs("usage: gate_pool [--noise FILE] [--rounds R | --looks F,S,M] [--trials N] "
	      "[--seed S] [--shift ID=PCT]... [--metrics GLOBS] [--max-regression PCT] "
	      "AB_DIR...\n", stderr);
}

static int options(int argc, char **argv, struct run *u, int *trials, struct pool *p,
		   struct fb_noise *nz)
{
	char err[1024];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			if (load(p, a))
				return -1;
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(a, "--noise")) {
			if (fb_noise_read(nz, v, err, sizeof(err))) {
				fprintf(stderr, "gate_pool: %s\n", err);
				return -1;
			}
			u->o.noise = nz;
		} else if (!strcmp(a, "--rounds")) {
			u->rounds = atoi(v);
		} else if (!strcmp(a, "--looks")) {
			if (sscanf(v, "%d,%d,%d", &u->sq.first, &u->sq.step, &u->sq.max) != 3)
				return -1;
		} else if (!strcmp(a, "--trials")) {
			*trials = atoi(v);
		} else if (!strcmp(a, "--seed")) {
			rng = strtoull(v, NULL, 10);
		} else if (!strcmp(a, "--shift")) {
			if (parse_shift(v, u))
				return -1;
		} else if (!strcmp(a, "--metrics")) {
			u->metrics = v;
		} else if (!strcmp(a, "--max-regression")) {
			u->thr_pct = atof(v);
		} else {
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct pool p;
	static struct fb_noise nz;
	struct run u = { .p = &p, .rounds = 5, .thr_pct = -1,
			 .o = { .alpha = FB_GATE_ALPHA, .beta = FB_GATE_BETA, .allow_missing = "" },
			 .sq = { .alpha = FB_GATE_ALPHA, .spending = FB_SPEND_POCOCK } };
	struct tally t = { 0 };
	int trials = 1000;

	rng = 1;
	if (options(argc, argv, &u, &trials, &p, &nz) || trials < 1 ||
	    (u.sq.max && !fb_seq_looks(&u.sq)) || u.rounds < 1) {
		usage();
		return 2;
	}
	if (p.n < 2 * (u.sq.max ? u.sq.max : u.rounds)) {
		fprintf(stderr, "gate_pool: %d rounds in the pool, a trial needs %d\n", p.n,
			2 * (u.sq.max ? u.sq.max : u.rounds));
		return 2;
	}
	for (int i = 0; i < trials; i++)
		trial(&u, &t);
	printf("gate_pool: %d pooled rounds, %s, %d trials, noise %s\n", p.n,
	       u.sq.max ? "sequential" : "fixed", trials, u.o.noise ? nz.path : "none");
	if (u.sq.max)
		printf("  looks %d,%d,%d: rounds per side used: mean %.1f\n", u.sq.first, u.sq.step,
		       u.sq.max, (double)t.rounds / trials);
	else
		printf("  %d rounds per side\n", u.rounds);
	printf("  pass %d, fail %d, unknown %d, errors %d; fails naming an unshifted metric %d\n",
	       t.pass, t.fail, t.unknown, t.error, t.named_other);
	for (int s = 0; s < u.nsh; s++)
		printf("  shift %s x%.4f: named in %d of %d trials\n", u.sh[s].id, u.sh[s].ratio,
		       u.sh[s].named, trials);
	return t.error ? 1 : 0;
}
