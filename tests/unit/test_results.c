// SPDX-License-Identifier: GPL-2.0
/* test_results.c - results JSON round trip and validation of bad input. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/fb.h"
#include "tap.h"

static struct fb_result *sample(void)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	struct fb_probe_result *p;

	r->schema_version = FB_SCHEMA_VERSION;
	strcpy(r->tool_version, FB_VERSION);
	strcpy(r->label, "baseline");
	strcpy(r->host.release, "7.3.4-foliobench");
	strcpy(r->host.cmdline, "console=ttyS0 \"quoted\" foliobench.arm=baseline");
	r->host.ncpus = 2;
	strcpy(r->params[r->nparams++], "nft.descriptors=10025");
	p = &r->probes[r->nprobes++];
	strcpy(p->name, "gdp_mutex");
	p->kind = FB_LOCK;
	p->status = FB_ATTACHED;
	p->nstats = 2;
	strcpy(p->stats[0].name, "wait");
	strcpy(p->stats[1].name, "hold");
	for (uint64_t v = 1; v < 5000000; v = v * 3 / 2 + 1) {
		fb_hist_add(&p->stats[0].h, v);
		fb_hist_add(&p->stats[1].h, v * 7);
	}
	strcpy(p->stats[0].h.unit, "ns");
	strcpy(r->workloads[0].name, "nft");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = 2800000000ull;
	fb_count_set(&r->workloads[0].ops, "trans_objects", 10025);
	r->nworkloads = 1;
	strcpy(r->contention[0].lock, "gdp_mutex");
	r->contention[0].addr = 0xffffffff81234567ull;
	r->contention[0].count = 3;
	r->ncontention = 1;
	strcpy(r->extra[0].key, "lockdep_stats.after.direct dependencies");
	r->extra[0].val = 2324;
	r->nextra = 1;
	return r;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	*len = f ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static void expect_error(const char *json, const char *needle, const char *what)
{
	char err[256] = "";
	struct fb_result *r = fb_result_parse(json, strlen(json), err, sizeof(err));

	CHECKF(!r && strstr(err, needle), "%s rejected: \"%s\"", what, err);
	free(r);
}

int main(void)
{
	char path[] = "/tmp/fb-test-results-XXXXXX", err[256];
	struct fb_result *r = sample(), *back;
	const struct fb_probe_result *p;
	size_t len;
	char *text, *cut;
	int fd = mkstemp(path);

	close(fd);
	CHECKF(fb_result_save(r, path) == 0, "save");
	back = fb_result_load(path, err, sizeof(err));
	CHECKF(back != NULL, "load back (%s)", back ? "ok" : err);
	if (!back)
		return tap_done();
	p = fb_result_probe(back, "gdp_mutex");
	CHECKF(p && p->nstats == 2, "probe and its two stats survive");
	CHECKF(p && !memcmp(&p->stats[0].h, &r->probes[0].stats[0].h, sizeof(struct fb_hist)) &&
	       !memcmp(&p->stats[1].h.buckets, &r->probes[0].stats[1].h.buckets,
		       sizeof(p->stats[1].h.buckets)),
	       "histograms round-trip exactly (sparse buckets)");
	CHECKF(!strcmp(back->host.cmdline, r->host.cmdline), "strings with quotes round-trip");
	CHECKF(fb_result_workload(back, "nft") && fb_result_workload(back, "nft")->wall_ns == 2800000000ull,
	       "workload wall time round-trips");
	{
		uint64_t v = 0;

		fb_count_get(&fb_result_workload(back, "nft")->ops, "trans_objects", &v);
		CHECKF(v == 10025, "workload op counts round-trip");
	}
	CHECKF(back->nextra == 1 && back->extra[0].val == 2324, "extra values round-trip");
	CHECKF(back->ncontention == 1 && back->contention[0].addr == 0xffffffff81234567ull,
	       "contention rows round-trip");

	text = slurp(path, &len);
	cut = strndup(text, len / 2);
	expect_error(cut, "truncated", "truncated file");
	expect_error("{\"schema\": \"foliobench-results\", \"schema_version\": 2}",
		     "unsupported schema version 2", "newer schema version");
	expect_error("{\"schema\": \"other\"}", "not a foliobench results file", "foreign JSON");
	expect_error("[1, 2, 3]", "not a foliobench results file", "non-object JSON");
	expect_error("{\"schema\": \"foliobench-results\", \"schema_version\": 1}",
		     "missing", "missing fields");
	expect_error("\x01\x02garbage", "", "binary garbage");
	expect_error("", "", "empty input");
	{
		char *bad = strdup(text), *c = strstr(bad, "\"count\"");

		if (c)
			memcpy(c, "\"cnt\"  ", 7);
		expect_error(bad, "count", "a histogram without count");
		free(bad);
	}
	{
		char *trail = malloc(len + 8);

		memcpy(trail, text, len);
		strcpy(trail + len, "{}");
		expect_error(trail, "trailing", "trailing data");
		free(trail);
	}
	CHECKF(!fb_result_load("/nonexistent/x.json", err, sizeof(err)) && strstr(err, "No such file"),
	       "missing file reported: \"%s\"", err);
	unlink(path);
	free(text);
	free(cut);
	free(r);
	free(back);
	return tap_done();
}
