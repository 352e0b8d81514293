// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_results.c - libFuzzer target for the results reader.
 *
 * fb_result_parse() must, for any bytes, either return a result whose
 * counts are within the struct's bounds, or NULL with a one-line reason;
 * never crash, leak, read out of bounds or hit undefined behaviour, never
 * accept a non-finite number or buckets summing past their count
 * (built with -fsanitize=fuzzer,address,undefined by tests/fuzz/run.sh).
 * The input is passed exactly as given, without a terminating NUL: the
 * API takes a length.
 *
 * FB_FUZZ_EXPECT_VALID=1 makes every input that does not parse a crash;
 * run.sh uses it once over its seed corpus to check the seeds are valid.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(const struct fb_result *r)
{
	volatile double sink = 0;

	if (r->nprobes < 0 || r->nprobes > FB_MAX_PROBES ||
	    r->nworkloads < 0 || r->nworkloads > FB_MAX_WORKLOADS ||
	    r->ncontention < 0 || r->ncontention > 32 ||
	    r->nextra < 0 || r->nextra > FB_MAX_EXTRA ||
	    r->nparams < 0 || r->nparams > 32)
		__builtin_trap();
	for (int i = 0; i < r->nprobes; i++) {
		const struct fb_probe_result *p = &r->probes[i];

		if (p->nstats < 0 || p->nstats > FB_MAX_STATS || (p->adhoc != 0 && p->adhoc != 1))
			__builtin_trap();
		if (fb_result_probe(r, p->name) == NULL)
			__builtin_trap();
		for (int k = 0; k < p->nstats; k++) {
			const struct fb_hist *h = &p->stats[k].h;
			uint64_t total = 0;

			/* accepted buckets never sum past count, nor overflow */
			for (unsigned int b = 0; b < FB_NBUCKETS; b++)
				if (__builtin_add_overflow(total, h->buckets[b], &total))
					__builtin_trap();
			if (total > h->count)
				__builtin_trap();
			sink += fb_hist_percentile(&p->stats[k].h, 50);
			sink += fb_hist_percentile(&p->stats[k].h, 99);
			sink += fb_hist_mean(&p->stats[k].h);
		}
	}
	for (int i = 0; i < r->nextra; i++)	/* NaN/Infinity never accepted */
		if (!isfinite(r->extra[i].val))
			__builtin_trap();
	for (int i = 0; i < r->nworkloads; i++) {
		if (r->workloads[i].ops.n < 0 || r->workloads[i].ops.n > FB_MAX_COUNTS)
			__builtin_trap();
		if (fb_result_workload(r, r->workloads[i].name) == NULL)
			__builtin_trap();
	}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int expect_valid = -1;
	char err[256];
	struct fb_result *r;

	if (expect_valid < 0)
		expect_valid = getenv("FB_FUZZ_EXPECT_VALID") != NULL;
	err[0] = '\0';
	r = fb_result_parse((const char *)data, size, err, sizeof(err));
	if (r) {
		use(r);
		free(r);
		return 0;
	}
	if (expect_valid && size) {	/* libFuzzer always tries an empty input */
		fprintf(stderr, "seed does not parse: %s\n", err);
		abort();
	}
	/* a rejection must say why, on one line */
	if (!err[0] || strchr(err, '\n') || strnlen(err, sizeof(err)) == sizeof(err)) {
		fprintf(stderr, "rejected without a one-line reason: \"%.*s\"\n",
			(int)strnlen(err, sizeof(err)), err);
		abort();
	}
	return 0;
}
