// SPDX-License-Identifier: GPL-2.0
/*
 * test_expfile.c - the lines of an expectations file (analysis/compare/
 * expfile.h) as its two readers see them: the gate's expectations
 * (fb_expect_read) and the claims (fb_claims_read) take the same lines,
 * comments, includes and errors from one file.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/compare/claims.h"
#include "analysis/compare/expfile.h"
#include "analysis/gate/expect.h"
#include "tap.h"

static char dir[] = "/tmp/fb-test-expfile.XXXXXX";
static struct fb_expect e;
static struct fb_claims cs;

/* fb_expect_read and fb_claims_read of dir/name: their results; err of the first failing */
static void read_both(const char *name, int *re, int *rc, char *err, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&cs, 0, sizeof(cs));
	err[0] = '\0';
	*re = fb_expect_read(&e, path, err, len);
	*rc = fb_claims_read(&cs, path, *re ? err + strlen(err) + 1 : err,
			     *re ? len - strlen(err) - 1 : len);
}

static void test_lines(void)
{
	char err[1024], long_line[700], *s;
	struct fb_expfile x;
	int re, rc, n = 0;

	tap_put(dir, "e", "\n# head\nfoliobench-expect 1   # the magic\n\n"
		"a_func p50 fall >= 5%  # a comment\n"
		"claim \"a # in quotes\" seed 2x not-measured \"no #\"  # a comment\n"
		"  include  sub/more  \n");
	snprintf(long_line, sizeof(long_line), "%s/sub", dir);
	mkdir(long_line, 0755);
	tap_put(dir, "sub/more", "foliobench-expect 1\nb_func p90 rise <= +3%\n");
	read_both("e", &re, &rc, err, sizeof(err));
	CHECKF(!re && !rc && e.n == 2 && e.nclaims == 1 && e.l[0].line == 5 &&
	       strstr(fb_expect_file(&e, &e.l[1]), "/sub/more") && e.l[1].line == 2 &&
	       cs.n == 1 && cs.c[0].line == 6 && !strcmp(cs.c[0].quote, "a # in quotes") &&
	       !strcmp(cs.c[0].why, "no #"), "one file, both readers: 2 expectations (the "
	       "included one at sub/more:2), 1 claim at line 6 with its quoted '#' (%s)", err);

	snprintf(long_line, sizeof(long_line), "%s/e", dir);
	CHECKF(!fb_expfile_open(&x, long_line, err, sizeof(err)), "opened");
	while (fb_expfile_next(&x, &s, err, sizeof(err)) == 1)
		n++;
	fb_expfile_close(&x);
	CHECKF(n == 3 && x.header && x.ln == 7, "3 lines with content after the magic one, 7 "
	       "read (%d, %d)", n, x.ln);

	tap_put(dir, "e", "foliobench-expect  1\na_func p50 fall >= 5%\n");
	read_both("e", &re, &rc, err, sizeof(err));
	CHECKF(re && rc && strstr(err, "/e:1: the first line must be 'foliobench-expect 1'") &&
	       !strcmp(err, err + strlen(err) + 1), "a magic line with two blanks: refused by "
	       "both, the same FILE:1 message (%s)", err);

	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	tap_put(dir, "e", "foliobench-expect 1\n");
	snprintf(err, sizeof(err), "%s/e", dir);
	{
		FILE *f = fopen(err, "a");

		if (f) {
			fprintf(f, "# %s\n", long_line);
			fclose(f);
		}
	}
	read_both("e", &re, &rc, err, sizeof(err));
	CHECKF(re && rc && strstr(err, "/e:2: line longer than 512 characters") &&
	       !strcmp(err, err + strlen(err) + 1), "a line of 700 characters: both refuse it "
	       "at FILE:2 (%s)", err);
}

static void test_open(void)
{
	char path[128], err[512];
	int re, rc;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECKF(mkfifo(path, 0600) == 0, "mkfifo");
	read_both("fifo", &re, &rc, err, sizeof(err));
	CHECKF(re && rc && strstr(err, "/fifo: a FIFO, not an expect file") &&
	       !strcmp(err, err + strlen(err) + 1), "a FIFO: both refuse it without waiting (%s)",
	       err);
	tap_put(dir, "e", "foliobench-expect 1\nclaim \"x\" seed 2x not-measured \"y\"\n"
		"include nowhere\n");
	read_both("e", &re, &rc, err, sizeof(err));
	CHECKF(re && rc && strstr(err, "/e:3: include ") && strstr(err, "/nowhere: No such file") &&
	       strstr(err + strlen(err) + 1, "/nowhere: No such file"),
	       "an include that is not there: both fail naming it (%s)", err);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir)) {
		CHECKF(0, "mkdtemp");
		return tap_done();
	}
	test_lines();
	test_open();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	return tap_done();
}
