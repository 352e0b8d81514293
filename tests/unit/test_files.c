// SPDX-License-Identifier: GPL-2.0
/*
 * test_files.c - util/infile.c (inputs: regular files only, a FIFO never
 * waited on) and util/pathtrust.c (which kernel caches root builds from;
 * the ownership cases need root and are skipped without it).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/infile.h"
#include "util/pathtrust.h"
#include "util/util.h"
#include "tap.h"

static char tmp[] = "/tmp/fb-files.XXXXXX";

static void test_infile(void)
{
	char p[256], err[512] = "";
	size_t len = 0;
	char *buf;

	fb_fmt(p, sizeof(p), "%s/f.json", tmp);
	tap_put(NULL, p, "{\"a\": 1}\n");
	buf = fb_in_read(p, 1024, &len, "a results file", err, sizeof(err));
	CHECKF(buf && len == 9 && !strcmp(buf, "{\"a\": 1}\n"), "a regular file is read whole");
	free(buf);
	buf = fb_in_read(p, 8, &len, "a results file", err, sizeof(err));
	CHECKF(!buf && strstr(err, "larger than"), "past max: refused (%s)", err);
	free(buf);
	fb_fmt(p, sizeof(p), "%s/fifo.json", tmp);
	mkfifo(p, 0600);
	alarm(10);	/* a hang fails the test instead of stopping it */
	buf = fb_in_read(p, 1024, &len, "a results file", err, sizeof(err));
	alarm(0);
	CHECKF(!buf && strstr(err, "fifo.json: a FIFO, not a results file"),
	       "a FIFO: refused at once, never opened for a writer (%s)", err);
	CHECKF(fb_in_open("/dev/null", "an expect file", err, sizeof(err)) < 0 &&
	       strstr(err, "/dev/null: a character device, not an expect file"),
	       "a character device: refused (%s)", err);
	CHECKF(!fb_in_fopen(tmp, "a noise file", err, sizeof(err)) &&
	       strstr(err, "a directory, not a noise file"), "a directory: refused (%s)", err);
	fb_fmt(p, sizeof(p), "%s/none.json", tmp);
	CHECKF(fb_in_open(p, "a results file", err, sizeof(err)) < 0 &&
	       strstr(err, "No such file or directory"), "a missing file: says so (%s)", err);
}

/* dir tmp/name made with mode and owner uid; its path into p */
static void mkdir_as(char *p, size_t len, const char *name, mode_t mode, uid_t uid)
{
	fb_fmt(p, len, "%s/%s", tmp, name);
	fb_mkdir_p(p);
	chmod(p, mode);
	if (chown(p, uid, 0))
		return;
}

static void test_pathtrust(void)
{
	static const char *const subs[] = { "ccache", NULL };
	char p[256], q[300], err[512] = "";

	if (geteuid() != 0) {
		printf("# skip - pathtrust: ownership cases need root\n");
		return;
	}
	chmod(tmp, 0755);
	mkdir_as(p, sizeof(p), "root", 0755, 0);
	CHECKF(!fb_root_trusts_dir(p, subs, err, sizeof(err)), "root-owned 0755: trusted (%s)",
	       err);
	fb_fmt(q, sizeof(q), "%s/not/made/yet", p);
	CHECKF(!fb_root_trusts_dir(q, subs, err, sizeof(err)),
	       "not made yet below a trusted one: trusted (%s)", err);
	mkdir_as(p, sizeof(p), "world", 0777, 0);
	CHECKF(fb_root_trusts_dir(p, subs, err, sizeof(err)) && strstr(err, "writable by every user"),
	       "0777: refused (%s)", err);
	mkdir_as(p, sizeof(p), "group", 0775, 0);
	CHECKF(fb_root_trusts_dir(p, subs, err, sizeof(err)) && strstr(err, "writable by its group"),
	       "0775: refused (%s)", err);
	mkdir_as(p, sizeof(p), "user", 0755, 65534);
	CHECKF(fb_root_trusts_dir(p, subs, err, sizeof(err)) && strstr(err, "another user"),
	       "owned by nobody: refused (%s)", err);
	fb_fmt(q, sizeof(q), "%s/below", p);
	CHECKF(fb_root_trusts_dir(q, subs, err, sizeof(err)) && strstr(err, "/user is owned"),
	       "a cache not made yet below a user's directory: refused (%s)", err);
	mkdir_as(p, sizeof(p), "sticky", 01777, 0);
	fb_fmt(q, sizeof(q), "%s/cache", p);
	CHECKF(!fb_root_trusts_dir(q, subs, err, sizeof(err)),
	       "to be made in a sticky directory (/tmp): trusted (%s)", err);
	CHECKF(fb_root_trusts_dir(p, subs, err, sizeof(err)),
	       "the sticky directory itself as the cache: refused (%s)", err);
	mkdir_as(p, sizeof(p), "withcc", 0755, 0);
	mkdir_as(q, sizeof(q), "withcc/ccache", 0757, 0);
	CHECKF(fb_root_trusts_dir(p, subs, err, sizeof(err)) && strstr(err, "withcc/ccache is"),
	       "its ccache writable by others: refused (%s)", err);
	fb_fmt(q, sizeof(q), "%s/link", tmp);
	fb_fmt(p, sizeof(p), "%s/user", tmp);
	if (symlink(p, q) == 0)
		CHECKF(fb_root_trusts_dir(q, subs, err, sizeof(err)) && strstr(err, "/user is owned"),
		       "a symlink to a user's directory: judged where it leads (%s)", err);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(tmp))
		return 1;
	test_infile();
	test_pathtrust();
	fb_fmt(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		printf("# could not remove %s\n", tmp);
	return tap_done();
}
