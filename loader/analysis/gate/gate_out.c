// SPDX-License-Identifier: GPL-2.0
/*
 * gate_out.c - what gate writes besides its metric lines (gate_out.h): the
 * runs that failed or are missing, and the Bencher Metric Format export.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/gate/gate_out.h"
#include "util/outfile.h"

/* One side's failed, interrupted or missing runs (runs.h): fatal ones, or the rest. */
static void print_runs(FILE *f, const struct fb_side *s, const char *side, int fatal)
{
	int n = fatal ? s->iss.nfatal : s->iss.n - s->iss.nfatal, shown = 0;

	if (!n)
		return;
	fprintf(f, "gate: %s: %s (%s): %d run(s) %s:\n", fatal ? "FAIL" : "UNKNOWN", side,
		s->name, n, fatal ? "failed (the kernel under test can have caused it)" :
		!strcmp(side, "BASE") ? "failed, interrupted or missing: the reference is not "
		"whole; not shown safe" : "interrupted or missing: not shown safe");
	for (int i = 0; i < s->iss.kept; i++)
		if (s->iss.v[i].fatal == fatal || (!fatal && !strcmp(side, "BASE"))) {
			fprintf(f, "  %s %s\n", s->name, s->iss.v[i].what);
			shown++;
		}
	if (shown < n)
		fprintf(f, "  ... and %d more\n", n - shown);
}

void fb_gate_print_runs(FILE *f, const struct fb_cmp *c)
{
	print_runs(f, &c->new, "NEW", 1);
	print_runs(f, &c->new, "NEW", 0);
	if (c->base.iss.n) {
		/* every BASE issue is unknown: print them all under one heading */
		struct fb_side b = c->base;

		b.iss.nfatal = 0;
		print_runs(f, &b, "BASE", 0);
	}
}

/* {"func:nft_trans_alloc": {"mean_ns": {"value": .., "lower_value": .., "upper_value": ..}}} */
int fb_gate_write_bmf(const struct fb_cmp *c, const char *path, char *err, size_t errlen)
{
	json_object *top = json_object_new_object();
	int ret;

	for (int i = 0; i < c->nrows; i++) {
		const struct fb_row *row = &c->rows[i];
		char bench[120];
		json_object *b = NULL;

		snprintf(bench, sizeof(bench), "%s:%s", fb_row_kind_name(row->kind), row->name);
		for (int k = 0; k < row->nm; k++) {
			const struct fb_metric *m = row->m[k];
			char meas[64];
			double lo = INFINITY, hi = -INFINITY;
			json_object *o;

			if (!m->nb)
				continue;
			for (int j = 0; j < m->nb; j++) {
				lo = fmin(lo, m->b[j]);
				hi = fmax(hi, m->b[j]);
			}
			if (m->per[0]) {	/* per-op value: bounds are the same */
				lo = hi = m->new;
			}
			if (!strcmp(m->unit, "ns"))
				snprintf(meas, sizeof(meas), "%s_ns", m->name);
			else
				snprintf(meas, sizeof(meas), "%s", m->name);
			o = json_object_new_object();
			json_object_object_add(o, "value", json_object_new_double(m->new));
			json_object_object_add(o, "lower_value", json_object_new_double(lo));
			json_object_object_add(o, "upper_value", json_object_new_double(hi));
			if (!b) {
				b = json_object_new_object();
				json_object_object_add(top, bench, b);
			}
			json_object_object_add(b, meas, o);
		}
	}
	ret = fb_out_write_str(path, json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY),
			       err, errlen);
	json_object_put(top);
	return ret;
}
