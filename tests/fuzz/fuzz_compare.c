// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_compare.c - libFuzzer target for the comparison model: whatever
 * the reader accepts must compare and print (text, md, html, csv) without
 * crashing or undefined behaviour, including names with odd characters,
 * zero or huge counts and sums, and probes/workloads missing on a side.
 *
 * The gate (fixed, and look 1 of the sequential gate) runs on the same
 * model.
 *
 * The input is one or two results documents separated by a line "----";
 * with one, it is compared against itself (A/A).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate/gate.h"
#include "analysis/compare/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int side(struct fb_side *s, const char *json, size_t len)
{
	char err[256];

	memset(s, 0, sizeof(*s));
	s->r = calloc(1, sizeof(*s->r));
	s->files = calloc(1, sizeof(*s->files));
	if (!s->r || !s->files)
		return -1;
	s->r[0] = fb_result_parse(json, len, err, sizeof(err));
	s->files[0] = strdup("fuzz.json");
	s->n = 1;
	snprintf(s->name, sizeof(s->name), "side");
	return s->r[0] ? 0 : -1;
}

static void gate(const struct fb_cmp *c, char *err, size_t len)
{
	static const struct fb_gate_opts o = {
		.metrics = "*", .allow_missing = "func:*", .alpha = FB_GATE_ALPHA,
		.beta = FB_GATE_BETA, .thr_pct = FB_GATE_THR_PCT,
	};
	static const struct fb_seq sq = { .first = 1, .step = 1, .max = 3, .alpha = FB_GATE_ALPHA };
	struct fb_gate gt;

	if (!fb_gate_eval(&gt, c, &o, err, len))
		fb_gate_free(&gt);
	fb_seq_decide(&sq, 1, c, &o, &gt, err, len);
	fb_gate_free(&gt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	const char *sep = memmem(data, size, "\n----\n", 6);
	size_t la = sep ? (size_t)(sep - (const char *)data) : size;
	const char *b = sep ? sep + 6 : (const char *)data;
	size_t lb = sep ? size - la - 6 : size;
	struct fb_cmp c;
	char err[512];

	if (!null)
		null = fopen("/dev/null", "w");
	memset(&c, 0, sizeof(c));
	c.alpha = 0.05;
	c.min_effect = 2;
	if (side(&c.base, (const char *)data, la) == 0 && side(&c.new, b, lb) == 0 &&
	    fb_cmp_build(&c, err, sizeof(err)) == 0) {
		fb_cmp_print(null, &c, FB_FMT_TEXT);
		fb_cmp_print(null, &c, FB_FMT_MD);
		fb_cmp_print(null, &c, FB_FMT_HTML);
		fb_cmp_print(null, &c, FB_FMT_CSV);
		gate(&c, err, sizeof(err));
	}
	fb_cmp_free(&c);
	return 0;
}
