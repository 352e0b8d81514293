// SPDX-License-Identifier: GPL-2.0
/* test_clock.c - clock mode in results: round trip, old files, no mixing. */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "model/fb.h"
#include "tap.h"

static struct fb_result *minimal(enum fb_clock c, int shift)
{
	struct fb_result *r = calloc(1, sizeof(*r));

	r->schema_version = FB_SCHEMA_VERSION;
	strcpy(r->tool_version, FB_VERSION);
	strcpy(r->started, "2026-12-01T00:00:00Z");
	r->host.clock = c;
	r->host.icount_shift = shift;
	return r;
}

static void test_roundtrip(void)
{
	struct fb_result *r = minimal(FB_CLOCK_ICOUNT, 3), *back;
	char path[] = "/tmp/fb-test-clock-XXXXXX", err[256];
	int fd = mkstemp(path);

	close(fd);
	CHECKF(fb_result_save(r, path) == 0, "icount result written");
	back = fb_result_load(path, err, sizeof(err));
	CHECKF(back && back->host.clock == FB_CLOCK_ICOUNT && back->host.icount_shift == 3,
	       "clock mode and shift survive the JSON round trip");
	free(back);
	unlink(path);
	free(r);
}

static void test_old_and_bad(void)
{
	static const char old[] = "{\"schema\":\"foliobench-results\",\"schema_version\":1,"
		"\"tool_version\":\"0.1\",\"label\":\"\",\"started\":\"x\",\"host\":{"
		"\"kernel_release\":\"\",\"kernel_version\":\"\",\"build_id\":\"\","
		"\"config_sha256\":\"\",\"cmdline\":\"\",\"cpu_model\":\"\",\"ncpus\":1,"
		"\"arm\":\"\"%s},\"params\":[],\"probes\":[],\"workloads\":[],"
		"\"contention\":[],\"extra\":{}}";
	char buf[1024], err[256];
	struct fb_result *r;

	snprintf(buf, sizeof(buf), old, "");
	r = fb_result_parse(buf, strlen(buf), err, sizeof(err));
	CHECKF(r && r->host.clock == FB_CLOCK_HOST,
	       "a file without a clock field is a host-clock run (%s)", r ? "ok" : err);
	free(r);
	snprintf(buf, sizeof(buf), old, ",\"clock\":\"wall\"");
	r = fb_result_parse(buf, strlen(buf), err, sizeof(err));
	CHECKF(!r && strstr(err, "clock"), "an unknown clock mode is refused naming the field: %s",
	       r ? "accepted" : err);
	free(r);
}

static void test_mixing(void)
{
	struct fb_result *a = minimal(FB_CLOCK_HOST, 0), *b = minimal(FB_CLOCK_ICOUNT, 0);
	struct fb_result *c = minimal(FB_CLOCK_ICOUNT, 1);
	const struct fb_result *v[3] = { b, b, b };
	char err[256] = "";

	CHECKF(fb_results_same_clock(v, 3, "x", err, sizeof(err)) == 0, "one mode: fine");
	v[1] = a;
	CHECKF(fb_results_same_clock(v, 3, "baseline vs patched", err, sizeof(err)) < 0 &&
	       strstr(err, "icount") && strstr(err, "host"), "host and icount refused: %s", err);
	v[1] = c;
	CHECKF(fb_results_same_clock(v, 3, "x", err, sizeof(err)) < 0,
	       "icount at two shifts refused: %s", err);
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	test_roundtrip();
	test_old_and_bad();
	test_mixing();
	return tap_done();
}
