// SPDX-License-Identifier: GPL-2.0
/* test_results.c - results JSON round trip and validation of bad input. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	p->nstats = 3;
	strcpy(p->gate, "register_hold_cmean");
	strcpy(p->stats[0].name, "wait");
	strcpy(p->stats[1].name, "hold");
	strcpy(p->stats[2].name, "hold@register");
	for (uint64_t v = 1; v < 5000000; v = v * 3 / 2 + 1) {
		fb_hist_add(&p->stats[0].h, v);
		fb_hist_add(&p->stats[1].h, v * 7);
		if (v < 1000)
			fb_hist_add(&p->stats[2].h, v * 7);
	}
	strcpy(p->stats[0].h.unit, "ns");
	p = &r->probes[r->nprobes++];	/* an ad-hoc row (run --func) */
	strcpy(p->name, "vfs_read");
	p->kind = FB_FUNC;
	p->status = FB_UNAVAILABLE;
	p->adhoc = 1;
	p->nstats = 1;
	strcpy(p->stats[0].name, "latency");
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

/* text with the first `from` replaced by `to` must be refused naming needle */
static void expect_edit(const char *text, const char *from, const char *to, const char *needle,
			const char *what)
{
	const char *at = strstr(text, from);
	char *bad;

	if (!at) {
		CHECKF(0, "%s: '%s' not in the sample", what, from);
		return;
	}
	bad = malloc(strlen(text) + strlen(to) + 1);
	sprintf(bad, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	expect_error(bad, needle, what);
	free(bad);
}

/* Numbers json-c accepts but a results file must not hold (issue 14). */
static void test_numbers(const char *text)
{
	const char *x = "\"lockdep_stats.after.direct dependencies\":2324.0";

	expect_edit(text, x, "\"lockdep_stats.after.direct dependencies\":NaN",
		    "extra: 'lockdep_stats.after.direct dependencies' is NaN, not a finite", "NaN in extra");
	expect_edit(text, x, "\"lockdep_stats.after.direct dependencies\":Infinity",
		    "is Infinity, not a finite number", "Infinity in extra");
	expect_edit(text, x, "\"lockdep_stats.after.direct dependencies\":-Infinity",
		    "not a finite number", "-Infinity in extra");
	expect_edit(text, x, "\"lockdep_stats.after.direct dependencies\":1e400",
		    "not a finite number", "1e400 (overflows a double) in extra");
	expect_edit(text, x, "\"lockdep_stats.after.direct dependencies\":-99999999999999999999",
		    "field 'lockdep_stats.after.direct dependencies': integer -99999999999999999999 "
		    "does not fit", "an integer below -2^63 in extra");
	expect_edit(text, "\"wall_ns\":2800000000", "\"wall_ns\":18446744073709551616",
		    "field 'wall_ns': integer 18446744073709551616 does not fit in 64 bits",
		    "2^64 is refused, not clamped");
	expect_edit(text, "\"wall_ns\":2800000000", "\"wall_ns\":2.8e9",
		    "field 'wall_ns' is 2.8e9, not an integer", "a double in an integer field");
	expect_edit(text, "\"ncpus\":2", "\"ncpus\":4294967298",
		    "field 'ncpus' is 4294967298, more than", "ncpus beyond an int");
	expect_edit(text, "\"count\":3", "\"count\":-3",
		    "field 'count' is -3", "a negative count");
}

/* 2^64-1 is the largest integer, also written with leading zeros */
static void test_max_int(const char *text)
{
	const char *from = "\"wall_ns\":2800000000", *at = strstr(text, from);
	char *ok = malloc(strlen(text) + 64), err[256] = "";
	struct fb_result *r;

	sprintf(ok, "%.*s\"wall_ns\":000018446744073709551615%s", (int)(at - text), text,
		at + strlen(from));
	r = fb_result_parse(ok, strlen(ok), err, sizeof(err));
	CHECKF(r && r->workloads[0].wall_ns == UINT64_MAX, "2^64-1 (with leading zeros) is read (%s)",
	       r ? "ok" : err);
	free(r);
	free(ok);
}

static void test_buckets(void)
{
	static const char head[] =
		"{\"schema\": \"foliobench-results\", \"schema_version\": 1, \"tool_version\": \"\","
		" \"label\": \"\", \"started\": \"\", \"host\": {\"kernel_release\": \"\","
		" \"kernel_version\": \"\", \"build_id\": \"\", \"config_sha256\": \"\","
		" \"cmdline\": \"\", \"cpu_model\": \"\", \"ncpus\": 1, \"arm\": \"\"},"
		" \"params\": [], \"workloads\": [], \"contention\": [], \"extra\": {},"
		" \"probes\": [{\"name\": \"p\", \"series\": \"-\", \"kind\": \"func\","
		" \"status\": \"attached\", \"method\": \"fentry\", \"symbol\": \"\","
		" \"reason\": \"\", \"stats\": [{\"name\": \"latency\", \"unit\": \"ns\","
		" \"sum\": 100, \"min\": 1, \"max\": 9, ";
	char buf[2048], err[256];
	struct fb_result *r;

	snprintf(buf, sizeof(buf), "%s\"count\": 10, \"buckets\": [[1, 4], [8, 5]]}]}]}", head);
	r = fb_result_parse(buf, strlen(buf), err, sizeof(err));
	CHECKF(r != NULL, "bucket counts below count are read (%s)", r ? "ok" : err);
	free(r);
	snprintf(buf, sizeof(buf), "%s\"count\": 10, \"buckets\": [[1, 4], [8, -5]]}]}]}", head);
	expect_error(buf, "p: stat 'latency': bucket 1 is not a [value, count] pair of integers",
		     "a negative bucket count");
	snprintf(buf, sizeof(buf), "%s\"count\": 10, \"buckets\": [[1, 4], [8, 7]]}]}]}", head);
	expect_error(buf, "bucket counts sum to 11, more than count 10", "bucket counts above count");
	snprintf(buf, sizeof(buf), "%s\"count\": 18446744073709551615, \"buckets\": "
		 "[[1, 18446744073709551615], [8, 2]]}]}]}", head);
	expect_error(buf, "bucket counts overflow 64 bits", "bucket counts that overflow");
	snprintf(buf, sizeof(buf), "%s\"count\": 18446744073709551615, \"buckets\": "
		 "[[1, 18446744073709551615], [1, 2]]}]}]}", head);
	expect_error(buf, "bucket counts overflow 64 bits", "one bucket listed twice, overflowing");
}

static void test_fifo(void)
{
	char dir[] = "/tmp/fb-test-fifo-XXXXXX", path[64], err[256];
	struct fb_result *r;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/x.json", dir);
	mkfifo(path, 0600);
	r = fb_result_load(path, err, sizeof(err));	/* must not wait for a writer */
	CHECKF(!r && strstr(err, "a FIFO, not a results file"), "a FIFO is refused: \"%s\"", err);
	unlink(path);
	r = fb_result_load(dir, err, sizeof(err));
	CHECKF(!r && strstr(err, "a directory, not a results file"), "a directory is refused: \"%s\"",
	       err);
	rmdir(dir);
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
	CHECKF(p && p->nstats == 3 && !strcmp(p->stats[2].name, "hold@register") &&
	       p->stats[2].h.count == r->probes[0].stats[2].h.count,
	       "probe and its three stats survive (a phase's holds too)");
	CHECKF(p && !strcmp(p->gate, "register_hold_cmean") &&
	       !fb_result_probe(back, "vfs_read")->gate[0],
	       "the declared gated metric round-trips; rows without one have none");
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
	CHECKF(fb_result_probe(back, "vfs_read") && fb_result_probe(back, "vfs_read")->adhoc == 1 &&
	       fb_result_probe(back, "gdp_mutex")->adhoc == 0, "the adhoc mark round-trips");
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
	expect_error("\x01\x02garbage", "at byte 0", "binary garbage");
	expect_error("", "truncated JSON at byte 0", "empty input");
	{
		const char *a = strstr(text, "\"adhoc\"");

		CHECKF(a && !strncmp(a, "\"adhoc\":true", 12) && !strstr(a + 7, "adhoc") &&
		       a > strstr(text, "\"vfs_read\""),
		       "only the ad-hoc row carries \"adhoc\" (catalogue rows are written as before)");
	}
	expect_edit(text, "\"adhoc\":true", "\"adhoc\":1", "vfs_read: field 'adhoc' must be true or false",
		    "a non-boolean adhoc");
	expect_edit(text, "\"gate\":\"register_hold_cmean\"",
		    "\"gate\":\"register_hold_cmean_and_more\"",
		    "gdp_mutex: field 'gate' longer than 23", "an over-long gate");
	expect_edit(text, "\"gate\":\"register_hold_cmean\"", "\"gate\":7",
		    "gdp_mutex: field 'gate'", "a non-string gate");
	test_numbers(text);
	test_max_int(text);
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
	test_buckets();
	test_fifo();
	unlink(path);
	free(text);
	free(cut);
	free(r);
	free(back);
	return tap_done();
}
