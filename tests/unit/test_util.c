// SPDX-License-Identifier: GPL-2.0
/*
 * test_util.c - quiet mode (FB_QUIET, --quiet): which progress lines are
 * still printed, and that the setting reaches the scripts' environment;
 * the argp helpers of util/cli.c that need no command line.
 */
#include <argp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"
#include "util/util.h"
#include "tap.h"

/* the items of 1..total that get a line with steps shares */
static int printed(int total, int steps, char *list, size_t len)
{
	int n = 0;
	size_t off = 0;

	list[0] = 0;
	for (int i = 1; i <= total; i++) {
		if (!fb_progress_due(i, total, steps))
			continue;
		n++;
		off += (size_t)fb_fmt(list + off, len - off, "%s%d", off ? "," : "", i);
	}
	return n;
}

static void test_calloc_err(void)
{
	char err[64] = "";
	int *p = fb_calloc_err(4, sizeof(*p), err, sizeof(err));

	CHECKF(p && !p[0] && !p[3] && !err[0], "fb_calloc_err: zeroed memory, nothing said");
	free(p);
	p = fb_calloc_err(SIZE_MAX / 2, 4, err, sizeof(err));
	CHECKF(!p && !strcmp(err, "out of memory"), "fb_calloc_err: NULL and \"out of memory\" (%s)",
	       err);
}

static void test_argp_ret(void)
{
	CHECKF(fb_argp_ret(0) == 0 && fb_argp_ret(-1) == EINVAL && fb_argp_ret(1) == ARGP_ERR_UNKNOWN,
	       "fb_argp_ret: taken 0, refused EINVAL, not its key ARGP_ERR_UNKNOWN");
}

static void test_argv_opts(void)
{
	static const char *const wl[] = { "nft", "sysfs" };
	const char *argv[8] = { "run" };
	int n = 1;

	n += fb_argv_opts(argv + n, "--workload", wl, 2);
	n += fb_argv_opts(argv + n, "--probes", NULL, 0);
	CHECKF(n == 5 && !strcmp(argv[1], "--workload") && !strcmp(argv[2], "nft") &&
	       !strcmp(argv[3], "--workload") && !strcmp(argv[4], "sysfs") && !argv[5],
	       "fb_argv_opts: one \"OPT VALUE\" pair per value, none for none");
}

int main(void)
{
	char list[256];
	const char *env;

	setenv("FB_QUIET", "0", 1);
	CHECKF(!fb_quiet() && printed(30, 4, list, sizeof(list)) == 30,
	       "FB_QUIET=0: every one of 30 rounds gets a line");
	fb_set_quiet(1);
	env = getenv("FB_QUIET");
	CHECKF(fb_quiet() && env && !strcmp(env, "1"), "--quiet: quiet, and FB_QUIET=1 exported");
	CHECKF(printed(30, 4, list, sizeof(list)) == 5 && !strcmp(list, "1,8,15,23,30"),
	       "quiet, 30 rounds: the first, one per quarter and the last (%s)", list);
	CHECKF(printed(3, 4, list, sizeof(list)) == 3,
	       "quiet, 3 rounds (fewer than the shares): every round (%s)", list);
	CHECKF(printed(0, 4, list, sizeof(list)) == 0, "quiet, no rounds: no line");
	fb_set_quiet(0);
	env = getenv("FB_QUIET");
	CHECKF(!fb_quiet() && env && !strcmp(env, "0"), "quiet off again, FB_QUIET=0 exported");
	test_calloc_err();
	test_argp_ret();
	test_argv_opts();
	return tap_done();
}
