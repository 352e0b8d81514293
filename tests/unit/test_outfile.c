// SPDX-License-Identifier: GPL-2.0
/*
 * test_outfile.c - util/outfile.c: an output is the new file whole or the
 * old one (a write beyond RLIMIT_FSIZE fails like a full disk), never a
 * part or a temporary; FIFOs refused, symbolic links written through, the
 * old mode kept; a whole directory renamed into place or left absent; the
 * portable-name rule; control characters for a terminal.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outfile.h"
#include "util/util.h"
#include "tap.h"

static char dir[64] = "/tmp/fb-outfile.XXXXXX";

/* entries of d whose name starts with '.' (temporaries) */
static int hidden(const char *d)
{
	struct dirent *e;
	DIR *x = opendir(d);
	int n = 0;

	while (x && (e = readdir(x)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (x)
		closedir(x);
	return n;
}

static const char *slurp(const char *p)
{
	static char buf[4096];

	return fb_read_file(p, buf, sizeof(buf)) < 0 ? "(absent)" : buf;
}

static void test_file(void)
{
	char p[128], l[128], err[512];
	struct rlimit old, small;
	struct fb_out o;
	struct stat st;
	int r;

	snprintf(p, sizeof(p), "%s/a.txt", dir);
	r = fb_out_open(&o, p, err, sizeof(err));
	if (!r) {
		fputs("new\n", o.f);
		r = fb_out_commit(&o, err, sizeof(err));
	}
	CHECKF(!r && !strcmp(slurp(p), "new\n") && !hidden(dir) && !stat(p, &st) &&
	       (st.st_mode & 0777) == (0666 & ~(mode_t)022), "a new file, whole, mode %o, %d "
	       "temporaries", st.st_mode & 0777, hidden(dir));
	chmod(p, 0600);
	r = fb_out_open(&o, p, err, sizeof(err));
	fputs("half", o.f);
	fb_out_abort(&o);
	CHECKF(!r && !strcmp(slurp(p), "new\n") && !hidden(dir), "abort: the old file stays");

	/* a write that fails (EFBIG past RLIMIT_FSIZE) mid-file */
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	small = (struct rlimit){ 64, old.rlim_max };	/* the soft limit only */
	fflush(stdout);		/* stdout may be a file: nothing of it in the window */
	setrlimit(RLIMIT_FSIZE, &small);
	r = fb_out_open(&o, p, err, sizeof(err));
	for (int i = 0; !r && i < 2000; i++)
		fputs("0123456789", o.f);
	r = r ? 0 : fb_out_commit(&o, err, sizeof(err));
	setrlimit(RLIMIT_FSIZE, &old);
	CHECKF(r == -1 && strstr(err, "not written") && !strcmp(slurp(p), "new\n") &&
	       !hidden(dir), "a failing write: -1, the old file whole (%s)", err);
	r = fb_out_write_str(p, "again\n", err, sizeof(err));
	CHECKF(!r && !stat(p, &st) && (st.st_mode & 0777) == 0600 && !strcmp(slurp(p), "again\n"),
	       "rewritten whole, the old mode 0600 kept (%o)", st.st_mode & 0777);

	snprintf(l, sizeof(l), "%s/link.txt", dir);
	r = symlink("a.txt", l) || fb_out_write_str(l, "through\n", err, sizeof(err));
	CHECKF(!r && !lstat(l, &st) && S_ISLNK(st.st_mode) && !strcmp(slurp(p), "through\n"),
	       "a symbolic link to a regular file: written through, still a link");

	snprintf(l, sizeof(l), "%s/fifo", dir);
	r = mkfifo(l, 0600) || fb_out_check(l, err, sizeof(err)) != -1 ||
	    fb_out_write_str(l, "x", err, sizeof(err)) != -1;
	CHECKF(!r && strstr(err, "a FIFO, not a regular file"), "a FIFO refused: %s", err);
	r = fb_out_write_str("/dev/null", "x", err, sizeof(err));
	CHECKF(r == -1 && strstr(err, "character device"), "a device refused: %s", err);
	snprintf(l, sizeof(l), "%s/none/x", dir);
	r = fb_out_write_str(l, "x", err, sizeof(err));
	CHECKF(r == -1 && strstr(err, "No such file"), "a missing directory: %s", err);
}

static void test_dir(void)
{
	char p[128], f[160], err[512];
	struct fb_outdir d;
	int r;

	snprintf(p, sizeof(p), "%s/sub/out", dir);
	r = fb_outdir_open(&d, p, err, sizeof(err));
	fb_fmt(f, sizeof(f), "%s/x", d.tmp);
	r = r || fb_out_write_str(f, "x", err, sizeof(err));
	fb_outdir_abort(&d);
	snprintf(f, sizeof(f), "%s/sub", dir);
	CHECKF(!r && access(p, F_OK) && !hidden(f), "abort: no OUT, no temporary directory");
	r = fb_outdir_open(&d, p, err, sizeof(err));
	fb_fmt(f, sizeof(f), "%s/x", d.tmp);
	r = r || fb_out_write_str(f, "x", err, sizeof(err)) ||
	    fb_outdir_commit(&d, err, sizeof(err));
	snprintf(f, sizeof(f), "%s/x", p);
	CHECKF(!r && !strcmp(slurp(f), "x"), "commit: OUT in place with its file");
	r = fb_outdir_open(&d, p, err, sizeof(err)) || fb_outdir_commit(&d, err, sizeof(err));
	CHECKF(r && strstr(err, "not empty") && !strcmp(slurp(f), "x"),
	       "commit over a non-empty OUT: refused, OUT as it was (%s)", err);
}

static void test_names(void)
{
	static const char *const good[] = { "baseline", "kernfs-bulk@3", "a.b_c-1", "perf" };
	static const char *const bad[] = { "", ".x", "-x", "a..b", "a/b", "a b", "x\n", "..",
					   "a/../../x" };
	char err[256], l64[65];
	int ok = 1;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok &= !fb_name_check("name", good[i], err, sizeof(err));
	memset(l64, 'x', 64);
	l64[64] = '\0';
	ok &= fb_name_check("name", l64, err, sizeof(err)) == -1;
	l64[63] = '\0';
	ok &= !fb_name_check("name", l64, err, sizeof(err));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok &= fb_name_check("name", bad[i], err, sizeof(err)) == -1 && !strchr(err, '\n');
	CHECKF(ok, "portable names: 4 good and 63 characters pass; 64 characters and 9 bad refused");
	CHECKF(!strcmp(fb_term_str("a\x1b[31m\ab\r", err, sizeof(err)), "a?[31m?b?"),
	       "terminal: ESC, BEL and CR as '?' (%s)", err);
}

int main(void)
{
	char cmd[128];

	umask(022);
	if (!mkdtemp(dir))
		return 1;
	test_file();
	test_dir();
	test_names();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
