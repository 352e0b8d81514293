// SPDX-License-Identifier: GPL-2.0
/*
 * junit.c - JUnit XML of a gate verdict (junit.h).  The schema is the
 * common one of Jenkins, GitLab and the GitHub test reporters:
 * testsuites > testsuite(name, tests, failures, errors, skipped) >
 * testcase(classname, name) > failure(message, type) | skipped(message).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare/claims.h"
#include "analysis/gate/junit.h"
#include "util/outfile.h"

/* s with &, <, >, " and control characters escaped, as an attribute value */
static void xml_attr(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '&')
			fputs("&amp;", f);
		else if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '"')
			fputs("&quot;", f);
		else if (ch < 0x20)
			fputc(' ', f);
		else
			fputc(ch, f);
	}
}

/* "+24.9% (90% CI +24.9%..+24.9%)" or "exact x0.5" */
static void change_str(const struct fb_gated *x, double beta, char *buf, size_t len)
{
	const struct fb_metric *m = x->m;
	double d = m->na && m->nb && m->base ? (m->new / m->base - 1) * 100 : NAN;

	if ((m->incomparable && !x->exact && !x->have_ci) || x->other_method)
		snprintf(buf, len, "%+.1f%%, not comparable: %s", d, x->why);
	else if (x->exact)
		snprintf(buf, len, "%+.1f%% (exact count)", d);
	else if (x->have_ci)
		snprintf(buf, len, "%+.1f%% (%.0f%% CI %+.1f%%..%+.1f%%, %s p=%.2g, Holm %.2g)", d,
			 (1 - 2 * beta) * 100, (x->lo - 1) * 100, (x->hi - 1) * 100,
			 x->test ? x->test : "test", x->p, x->p_adj);
	else
		snprintf(buf, len, "%+.1f%% (no interval)", d);
}

enum tc { TC_PASS, TC_FAIL, TC_SKIP };

static enum tc classify(const struct fb_gated *x)
{
	if (x->exp)
		return x->exp_state == FB_EXP_MET ? TC_PASS :
		       x->exp_state == FB_EXP_FAILED ? TC_FAIL : TC_SKIP;
	switch (x->state) {
	case FB_GM_REGRESSED:
	case FB_GM_LOST:
		return TC_FAIL;
	case FB_GM_UNDECIDED:
	case FB_GM_UNTESTED:
	case FB_GM_REPORTED:
		return TC_SKIP;
	case FB_GM_OK:
		break;
	}
	return TC_PASS;
}

static void testcase(FILE *f, const struct fb_gated *x, const struct fb_gate_opts *o)
{
	char ch[200], msg[1100];
	enum tc t = classify(x);

	change_str(x, o->beta, ch, sizeof(ch));
	fputs("    <testcase classname=\"foliobench.gate\" name=\"", f);
	xml_attr(f, x->id);
	fputs("\">\n", f);
	if (x->exp)
		snprintf(msg, sizeof(msg), "declared %s:%d '%s': %s; measured %s",
			 fb_expect_file(o->expect, x->exp), x->exp->line, x->exp->text,
			 t == TC_PASS ? "met" : t == TC_FAIL ? "NOT met" : "not decided", ch);
	else if (x->state == FB_GM_REGRESSED)
		snprintf(msg, sizeof(msg), "regressed beyond +%.2g%%: %s", x->thr * 100, ch);
	else if (x->state == FB_GM_LOST || x->state == FB_GM_UNTESTED ||
		 x->state == FB_GM_REPORTED)
		snprintf(msg, sizeof(msg), "%s", x->why);
	else if (x->state == FB_GM_UNDECIDED && x->m->incomparable)
		snprintf(msg, sizeof(msg), "unknown: measured %s", ch);
	else if (x->state == FB_GM_UNDECIDED)
		snprintf(msg, sizeof(msg), "unknown: %s; measured %s", x->why[0] ? x->why :
			 "undecided", ch);
	else
		snprintf(msg, sizeof(msg), "ok: %s", ch);
	if (t == TC_FAIL) {
		fputs("      <failure type=\"", f);
		fputs(x->exp ? "expectation" : x->state == FB_GM_LOST ? "lost" : "regression", f);
		fputs("\" message=\"", f);
		xml_attr(f, msg);
		fputs("\"/>\n", f);
	} else if (t == TC_SKIP) {
		fputs("      <skipped message=\"", f);
		xml_attr(f, msg);
		fputs("\"/>\n", f);
	} else {
		fputs("      <system-out>", f);
		xml_attr(f, msg);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

/* One testcase per side whose runs failed (failure: NEW's fatal ones) or are not whole. */
static void runs_case(FILE *f, const struct fb_side *s, const char *side, int fail)
{
	fprintf(f, "    <testcase classname=\"foliobench.gate\" name=\"runs:%s\">\n      <%s "
		"%smessage=\"", side, fail ? "failure" : "skipped", fail ? "type=\"run\" " : "");
	fprintf(f, "%d run(s) of %s ", s->iss.n, side);
	xml_attr(f, s->name);
	fputs(fail ? " failed: " : " not whole: ", f);
	xml_attr(f, s->iss.kept ? s->iss.v[0].what : "");
	fprintf(f, "%s\"/>\n    </testcase>\n", s->iss.n > 1 ? "; ..." : "");
}

/* A claim's testcase: met passes, not met fails, unknown or not measured skips. */
static enum tc claim_tc(const struct fb_claim *cl)
{
	return cl->state == FB_CLAIM_MET ? TC_PASS : cl->state == FB_CLAIM_NOT_MET ? TC_FAIL :
	       TC_SKIP;
}

static void claim_case(FILE *f, const struct fb_claim *cl)
{
	char bound[160], meas[200], msg[900];
	enum tc t = claim_tc(cl);

	fb_claim_bound(cl, bound, sizeof(bound));
	fb_claim_measured(cl, meas, sizeof(meas));
	if (cl->state == FB_CLAIM_NOT_MEASURED || cl->state == FB_CLAIM_UNKNOWN)
		snprintf(msg, sizeof(msg), "%s: %s; claim \"%s\" (%s)",
			 fb_claim_state_name(cl->state), cl->reason[0] ? cl->reason : cl->why,
			 cl->quote, cl->seed);
	else
		snprintf(msg, sizeof(msg), "%s: claim \"%s\" (%s) needs %s; measured %s",
			 fb_claim_state_name(cl->state), cl->quote, cl->seed, bound, meas);
	fprintf(f, "    <testcase classname=\"foliobench.claims\" name=\"claim:");
	xml_attr(f, cl->file);
	fprintf(f, ":%d\">\n", cl->line);
	if (t == TC_FAIL)
		fputs("      <failure type=\"claim\" message=\"", f);
	else if (t == TC_SKIP)
		fputs("      <skipped message=\"", f);
	else
		fputs("      <system-out>", f);
	xml_attr(f, msg);
	fputs(t == TC_PASS ? "</system-out>\n" : "\"/>\n", f);
	fputs("    </testcase>\n", f);
}

int fb_junit_write(FILE *f, const struct fb_gate *gt, const struct fb_cmp *c,
		   const struct fb_gate_opts *o)
{
	int nf = !!c->new.iss.nfatal, ns = (c->new.iss.n && !c->new.iss.nfatal) + !!c->base.iss.n;
	int ncl = o->claims ? o->claims->n : 0, nt = gt->ng + nf + ns + ncl;

	for (int i = 0; i < gt->ng; i++) {
		nf += classify(&gt->g[i]) == TC_FAIL;
		ns += classify(&gt->g[i]) == TC_SKIP;
	}
	for (int i = 0; i < ncl; i++) {
		nf += claim_tc(&o->claims->c[i]) == TC_FAIL;
		ns += claim_tc(&o->claims->c[i]) == TC_SKIP;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"foliobench gate\" tests=\"%d\" failures=\"%d\" "
		"errors=\"0\" skipped=\"%d\">\n", nt, nf, ns);
	fputs("  <testsuite name=\"", f);
	xml_attr(f, c->base.name);
	fputs(" vs ", f);
	xml_attr(f, c->new.name);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", nt, nf,
		ns);
	fprintf(f, "    <properties>\n      <property name=\"outcome\" value=\"%s\"/>\n"
		"      <property name=\"exit_status\" value=\"%d\"/>\n    </properties>\n",
		gt->outcome == FB_GATE_PASS ? "pass" : gt->outcome == FB_GATE_FAIL ? "fail" :
		"unknown", (int)gt->outcome);
	if (c->new.iss.n)
		runs_case(f, &c->new, "NEW", !!c->new.iss.nfatal);
	if (c->base.iss.n)
		runs_case(f, &c->base, "BASE", 0);
	for (int i = 0; i < gt->ng; i++)
		testcase(f, &gt->g[i], o);
	for (int i = 0; i < ncl; i++)
		claim_case(f, &o->claims->c[i]);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -1 : 0;
}

int fb_junit_save(const char *path, const struct fb_gate *gt, const struct fb_cmp *c,
		  const struct fb_gate_opts *o, char *err, size_t errlen)
{
	struct fb_out j;

	if (fb_out_open(&j, path, err, errlen))
		return -1;
	fb_junit_write(j.f, gt, c, o);		/* a write error: in j, for the commit */
	return fb_out_commit(&j, err, errlen);
}
