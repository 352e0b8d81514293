// SPDX-License-Identifier: GPL-2.0
/*
 * test_claims.c - the claims check (analysis/compare/claims.h): the claim
 * line's syntax, the bound at the claim's strength less its tolerance, and
 * the verdicts on a hand-built comparison model: met, not met (a fraction
 * of the claim), unknown (a round without the value, an interval across
 * the bound), not measured (another scale, a workload not run, the
 * claim's starting point not in BASE), and the gate's outcome with them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/claims.h"
#include "tap.h"

#define N	5

static struct fb_row rows[8];
static struct fb_cmp cmp = { .rows = rows, .base = { .n = N }, .new = { .n = N } };

static struct fb_metric *metric(struct fb_row *r, const char *name, const char *unit,
				double a, double da, double b, double db, int n)
{
	struct fb_metric *m = calloc(1, sizeof(*m));

	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	for (int i = 0; i < n; i++) {
		m->a[m->na++] = a + da * i;
		m->b[m->nb++] = b + db * i;
	}
	m->base = a;
	m->new = b;
	r->m[r->nm++] = m;
	return m;
}

static struct fb_row *row(enum fb_row_kind k, const char *name)
{
	struct fb_row *r = &rows[cmp.nrows++];

	r->kind = k;
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

static void build(void)
{
	struct fb_row *w = row(FB_ROW_WORKLOAD, "sysfs"), *f = row(FB_ROW_FUNC, "kernfs_new_node");
	struct fb_row *n = row(FB_ROW_FUNC, "nft_trans_alloc");

	row(FB_ROW_WORKLOAD, "nft");
	metric(w, "ops.register_kernfs_idr_lock", "count", 18408, 0, 1278, 0, N);
	metric(w, "ops.register_weak", "count", 18408, 0, 9204, 0, N);
	metric(w, "ops.register_kernfs_rwsem", "count", 36892, 0, 18620, 0, N);
	metric(w, "ops.devices_created", "count", 200, 0, 200, 0, N);
	metric(w, "ops.lost_one", "count", 100, 0, 10, 0, N - 1);
	metric(f, "calls", "count", 18272, 0, 18272, 0, N);
	metric(n, "mean", "ns", 894, 1, 442, 1, N);
	metric(n, "straddle", "ns", 1000, 40, 880, 40, N);
}

static struct fb_claim *claim(struct fb_claims *cs, const char *line)
{
	char why[200] = "";
	struct fb_claim *cl = &cs->c[cs->n];

	if (fb_claim_parse(line, cl, why, sizeof(why))) {
		printf("# parse: %s: %s\n", line, why);
		return NULL;
	}
	snprintf(cl->file, sizeof(cl->file), "kernel-patches/kernfs-bulk/claims");
	cl->line = ++cs->n;
	return cl;
}

#define IDR "claim \"16x\" seed 16x within 25% in sysfs as \"x\" measure workload:sysfs:ops."

static void test_parse(void)
{
	struct fb_claim cl;
	char why[200], b[120];
	static const char *const bad[] = {
		"claim \"q\" seed 16x",
		"claim \"q\" within 25% measure func:a:mean in nft as \"x\"",
		"claim \"q\" seed 1x within 25% measure func:a:mean in nft as \"x\"",
		"claim \"q\" seed 16x within 100% measure func:a:mean in nft as \"x\"",
		"claim \"q\" seed 16x within 25% measure a:mean in nft as \"x\"",
		"claim \"q\" seed 16x within 25% measure func:a:mean in nft as x",
		"claim \"q\" seed 16x not-measured \"w\" measure func:a:mean",
		"claim \"q\" seed 16x within 25% measure func:a:mean in nft as \"x\" at func:a:calls > 3",
		"claim q seed 16x not-measured \"w\"",
		"claim \"q seed 16x",
	};
	int nbad = 0;

	CHECKF(!fb_claim_parse(IDR "register_kernfs_idr_lock", &cl, why, sizeof(why)) &&
	       cl.sk == FB_SEED_FACTOR && cl.to == 16 && fabs(cl.tol - 0.25) < 1e-12,
	       "16x within 25%%: a factor claim, 25%% tolerance");
	fb_claim_bound(&cl, b, sizeof(b));
	CHECKF(!strcmp(b, "at least 12x fewer (91.7% fewer; 25% tolerance)"),
	       "16x within 25%%: bound '%s' (at least 12x fewer, >= 90%% fewer)", b);
	CHECKF(!fb_claim_parse("claim \"a # b\" seed -19.4% within 25% measure func:n:mean in nft "
			       "as \"x # y\"", &cl, why, sizeof(why)) && cl.sk == FB_SEED_PCT &&
	       !strcmp(cl.quote, "a # b"), "a '#' inside quotes is text");
	fb_claim_bound(&cl, b, sizeof(b));
	CHECKF(!strcmp(b, "at most -14.5% (25% tolerance)"), "-19.4%% within 25%%: '%s'", b);
	CHECKF(!fb_claim_parse("claim \"q\" seed 2->1 within 10% measure workload:sysfs:ops.a per "
			       "func:f:calls in sysfs as \"x\"", &cl, why, sizeof(why)) &&
	       cl.sk == FB_SEED_FROMTO && cl.from == 2 && cl.to == 1 && !strcmp(cl.per, "func:f:calls"),
	       "2->1 per a node count");
	fb_claim_bound(&cl, b, sizeof(b));
	CHECKF(!strcmp(b, "NEW <= 1.1, BASE beyond it (10% tolerance)"), "2->1 within 10%%: '%s'", b);
	CHECKF(!fb_claim_parse("claim \"q\" seed 3027->991ms not-measured \"no VFs\"", &cl, why,
			       sizeof(why)) && !strcmp(cl.why, "no VFs"),
	       "a claim not measured takes any seed text and its reason");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		nbad += fb_claim_parse(bad[i], &cl, why, sizeof(why)) == -1;
	CHECKF(nbad == (int)(sizeof(bad) / sizeof(bad[0])), "%d of %zu malformed lines refused", nbad,
	       sizeof(bad) / sizeof(bad[0]));
}

static void test_eval(void)
{
	struct fb_claims *cs = calloc(1, sizeof(*cs));
	struct fb_claim *c[12];
	char m[160];

	build();
	c[0] = claim(cs, IDR "register_kernfs_idr_lock");
	c[1] = claim(cs, IDR "register_weak");
	c[2] = claim(cs, "claim \"2/node -> 1/node\" seed 2->1 within 10% measure "
		     "workload:sysfs:ops.register_kernfs_rwsem per func:kernfs_new_node:calls "
		     "in sysfs as \"x\"");
	c[3] = claim(cs, "claim \"-19.4%\" seed -19.4% within 25% measure func:nft_trans_alloc:mean "
		     "in nft as \"x\"");
	c[4] = claim(cs, "claim \"-8.6%\" seed -8.6% within 25% measure "
		     "func:nft_trans_alloc:straddle in nft as \"x\"");
	c[5] = claim(cs, IDR "lost_one");
	c[6] = claim(cs, IDR "register_kernfs_idr_lock at workload:sysfs:ops.devices_created >= 1020");
	c[7] = claim(cs, "claim \"on\" seed 0->1 within 0% measure workload:lockdep:ops.on in "
		     "lockdep as \"x\"");
	c[8] = claim(cs, "claim \"4->2.5\" seed 4->2.5 within 10% measure "
		     "workload:sysfs:ops.register_kernfs_rwsem per func:kernfs_new_node:calls in "
		     "sysfs as \"x\"");
	c[9] = claim(cs, "claim \"SR-IOV\" seed -65% not-measured \"no SR-IOV device here\"");
	c[10] = claim(cs, IDR "no_such_op");
	for (int i = 0; i < 11; i++)
		if (!c[i])
			return;
	fb_claims_eval(cs, &cmp);
	fb_claim_measured(c[0], m, sizeof(m));
	CHECKF(c[0]->state == FB_CLAIM_MET && !strcmp(m, "18,408 -> 1,278 (14.4x fewer, exact)"),
	       "14.4x of a 16x claim (bound 12x): met, '%s'", m);
	fb_claim_measured(c[1], m, sizeof(m));
	CHECKF(c[1]->state == FB_CLAIM_NOT_MET && !strcmp(m, "18,408 -> 9,204 (2x fewer, exact)"),
	       "2x of a 16x claim: not met, '%s'", m);
	CHECKF(c[2]->state == FB_CLAIM_MET && fabs(c[2]->new - 18620.0 / 18272) < 1e-9,
	       "per node: %.4g -> %.4g write acquisitions, met", c[2]->base, c[2]->new);
	CHECKF(c[3]->state == FB_CLAIM_MET && c[3]->have_ci && c[3]->hi < 0.8,
	       "a timing: -50%% with its interval below the -14.55%% bound: met");
	CHECKF(c[4]->state == FB_CLAIM_UNKNOWN && strstr(c[4]->reason, "straddles the bound"),
	       "a timing whose interval spans the bound: unknown (%s)", c[4]->reason);
	CHECKF(c[5]->state == FB_CLAIM_UNKNOWN &&
	       strstr(c[5]->reason, "a value in only 4 of 5 rounds of BASE"),
	       "a round without the value: unknown, never met (%s)", c[5]->reason);
	CHECKF(c[6]->state == FB_CLAIM_NOT_MEASURED && strstr(c[6]->reason, ">= 1020") &&
	       c[6]->base == 18408, "another scale: not measured, its numbers still shown (%s)",
	       c[6]->reason);
	CHECKF(c[7]->state == FB_CLAIM_NOT_MEASURED &&
	       strstr(c[7]->reason, "the lockdep workload is not in these rounds"),
	       "its workload not run: not measured (%s)", c[7]->reason);
	CHECKF(c[8]->state == FB_CLAIM_NOT_MEASURED && strstr(c[8]->reason, "starting point 4"),
	       "A->B with BASE already past the bound: not measured (%s)", c[8]->reason);
	CHECKF(c[9]->state == FB_CLAIM_NOT_MEASURED, "a claim this suite cannot measure");
	CHECKF(c[10]->state == FB_CLAIM_UNKNOWN && strstr(c[10]->reason, "no metric"),
	       "a count the rounds lack: unknown (%s)", c[10]->reason);
	CHECKF(cs->nstate[FB_CLAIM_MET] == 3 && cs->nstate[FB_CLAIM_NOT_MET] == 1 &&
	       cs->nstate[FB_CLAIM_UNKNOWN] == 3 && cs->nstate[FB_CLAIM_NOT_MEASURED] == 4,
	       "counts per verdict: 3 met, 1 not met, 3 unknown, 4 not measured");
	free(cs);
}

static void test_gate(void)
{
	struct fb_claims *cs = calloc(1, sizeof(*cs));
	FILE *f = fopen("/dev/null", "w");

	cs->n = 1;
	cs->nstate[FB_CLAIM_NOT_MEASURED] = 1;
	CHECKF(fb_claims_gate(f, cs, 0) == 0, "only claims not measured: a pass stays a pass");
	cs->nstate[FB_CLAIM_UNKNOWN] = 1;
	CHECKF(fb_claims_gate(f, cs, 0) == 3 && fb_claims_gate(f, cs, 1) == 1,
	       "an unknown claim: a pass becomes unknown, a fail stays a fail");
	cs->nstate[FB_CLAIM_NOT_MET] = 1;
	CHECKF(fb_claims_gate(f, cs, 0) == 1 && fb_claims_gate(f, cs, 3) == 1,
	       "a claim not met: fail");
	fclose(f);
	free(cs);
}

int main(void)
{
	test_parse();
	test_eval();
	test_gate();
	return tap_done();
}
