// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - `foliobench kernel`: a thin wrapper around
 * scripts/kernel-build.sh (which does the work and the caching), plus the
 * helpers that `vm` and `ab` use to find the repository and kernels.
 */
#include <errno.h>
#include <fcntl.h>
#include <argp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"
#include "guest/kernel.h"
#include "util/pathtrust.h"
#include "guest/stock.h"
#include "util/cli.h"
#include "util/outfile.h"
#include "util/script.h"

#define MAX_ARMS	8
#define MAX_FLAVOURS	4

/* The series of arm in kernel-patches/arms.conf; -1 if no such arm. */
static int arm_series(const char *arm, char series[][64], int max)
{
	char repo[PATH_MAX], path[PATH_MAX + 32], *line = NULL;
	size_t n = 0, al = strlen(arm);
	int found = -1;
	FILE *f;

	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return -1;
	fb_fmt(path, sizeof(path), "%s/kernel-patches/arms.conf", repo);
	f = fopen(path, "r");
	if (!f) {
		fb_err("kernel: %s: %s", path, strerror(errno));
		return -1;
	}
	while (found < 0 && getline(&line, &n, f) >= 0) {
		char *tok, *save;

		if (strncmp(line, arm, al) || line[al] != ':')
			continue;
		found = 0;
		for (tok = strtok_r(line + al + 1, " \t\n", &save); tok && found < max;
		     tok = strtok_r(NULL, " \t\n", &save))
			fb_fmt(series[found++], 64, "%s", tok);
	}
	free(line);
	fclose(f);
	return found;
}

int fb_kernel_series(const char *series, char names[][128], int max)
{
	char repo[PATH_MAX], path[PATH_MAX + 128], *line = NULL;
	size_t n = 0;
	int count = 0;
	FILE *f;

	if (!series[0] || strchr(series, '/') || series[0] == '.')
		return -1;
	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return -1;
	fb_fmt(path, sizeof(path), "%s/kernel-patches/%s/series", repo, series);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &n, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (count < max)
			fb_fmt(names[count], 128, "%s", line);
		count++;
	}
	free(line);
	fclose(f);
	return count;
}

/* ---- the user's own arms: NAME=DIR, NAME=GITDIR@REV (ab --arm) ---- */

int fb_kernel_user_arm(const char *spec)
{
	size_t n = strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	struct stat st;

	/* a file that happens to be called NAME=... stays a file */
	return n > 0 && spec[n] == '=' && spec[n + 1] && stat(spec, &st) < 0;
}

int fb_kernel_conf_arm(const char *name)
{
	char s[16][64];

	return arm_series(name, s, 16) >= 0;
}

/*
 * A root build runs host programs made in the cache and ccache's objects
 * (scripts/kernel-build.sh): refused when anyone but root can write there.
 */
static int cache_untrusted(void)
{
	static const char *const subs[] = { "ccache", "work", "kernels", "src", "stock", NULL };
	const char *cache = getenv("FB_CACHE");
	char err[PATH_MAX + 200];

	if (geteuid() != 0)
		return 0;
	if (fb_root_trusts_dir(cache && *cache ? cache : "/var/cache/foliobench", subs, err,
			       sizeof(err))) {
		fb_err("kernel: FB_CACHE: %s", err);
		return 1;
	}
	return 0;
}

int fb_kernel_check(const char *spec, const char *flavour)
{
	char repo[PATH_MAX], script[PATH_MAX + 32], why[512];
	int fds[2], status = 0;
	ssize_t n, used = 0;
	pid_t pid;

	if (cache_untrusted())	/* --check runs git in the cache's source tree */
		return 2;
	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return 1;
	fb_fmt(script, sizeof(script), "%s/scripts/kernel-build.sh", repo);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fb_err("kernel: pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fb_err("kernel: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);	/* the reason it refuses, alone */
		execl("/bin/bash", "bash", script, "--check", spec, flavour, (char *)NULL);
		dprintf(STDERR_FILENO, "foliobench: error: cannot run %s: %s\n", script,
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], why + used, sizeof(why) - 1 - (size_t)used)) > 0 ||
	       (n < 0 && errno == EINTR))
		used += n > 0 ? n : 0;
	why[used] = '\0';
	why[strcspn(why, "\n")] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
		fb_err("ab: --arm %s: %s", spec, why[0] ? why : "refused by kernel-build.sh --check");
		return 2;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fb_err("kernel: %s --check %s %s failed (see the messages above)", script, spec, flavour);
	return fb_stop ? 130 : 1;
}

/* An arm of arms.conf, SERIES@N (a prefix: scripts/kernel-build.sh checks
 * N) or the user's own (NAME=SRC: kernel-build.sh checks SRC). */
static int arm_exists(const char *arm)
{
	char s[16][64], series[64];
	const char *at = strchr(arm, '@');

	if (fb_kernel_user_arm(arm))
		return 1;
	if (at && at > arm && (size_t)(at - arm) < sizeof(series) && at[1]) {
		fb_fmt(series, sizeof(series), "%.*s", (int)(at - arm), arm);
		return strspn(at + 1, "0123456789") == strlen(at + 1) &&
		       fb_kernel_series(series, NULL, 0) > 0;
	}
	return arm_series(arm, s, 16) >= 0;
}

int fb_kernel_arm_has_series(const char *arm)
{
	char s[16][64], repo[PATH_MAX], path[PATH_MAX + 128];
	int n = arm_series(arm, s, 16);

	if (n < 0)
		return 0;
	if (n == 0)
		return 1;	/* baseline: nothing to apply */
	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		fb_fmt(path, sizeof(path), "%s/kernel-patches/%s/series", repo, s[i]);
		if (access(path, R_OK) == 0)
			return 1;
	}
	return 0;
}

int fb_kernel_build(const char *arm, const char *flavour, int print_only,
		    char *dir, size_t len)
{
	const char *build[] = { arm, flavour, NULL }, *print[] = { "--print", arm, flavour, NULL };
	int sig, r;

	if (!print_only && cache_untrusted())
		return FB_KERNEL_UNTRUSTED;
	r = fb_script_run("kernel-build.sh", print_only ? print : build, dir, len, &sig);

	if (sig) {
		fb_err("kernel: interrupted");
		return -1;
	}
	if (r) {
		fb_err("kernel: scripts/kernel-build.sh %s %s failed (see the messages above)",
		       arm, flavour);
		return -1;
	}
	if (!dir[0]) {
		fb_err("kernel: scripts/kernel-build.sh printed no directory");
		return -1;
	}
	return 0;
}

int fb_kernel_resolve(const char *spec, const char *flavour, int build,
		      char *bzimage, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	int r;

	if (fb_stock_spec(spec))
		return fb_stock_bzimage(spec, bzimage, len);
	if (!fb_kernel_user_arm(spec) && (strchr(spec, '/') || stat(spec, &st) == 0)) {
		if (stat(spec, &st) < 0) {
			fb_err("kernel %s: %s", spec, strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode))
			fb_fmt(bzimage, len, "%s/bzImage", spec);
		else
			fb_fmt(bzimage, len, "%s", spec);
		if (access(bzimage, R_OK) < 0) {
			fb_err("kernel %s: %s", bzimage, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!arm_exists(spec)) {
		fb_err("kernel '%s' is neither a file/directory nor an arm of kernel-patches/arms.conf",
		       spec);
		return -1;
	}
	if (fb_kernel_build(spec, flavour, 1, dir, sizeof(dir)) < 0)
		return -1;
	fb_fmt(bzimage, len, "%s/bzImage", dir);
	if (access(bzimage, R_OK) == 0)
		return 0;
	if (!build) {
		fb_err("kernel %s/%s is not built; run: foliobench kernel build --arm %s --flavour %s",
		       spec, flavour, spec, flavour);
		return -1;
	}
	fb_info("kernel: building %s/%s (cached in %s)", spec, flavour, dir);
	r = fb_kernel_build(spec, flavour, 0, dir, sizeof(dir));
	if (r < 0)
		return r;
	fb_fmt(bzimage, len, "%s/bzImage", dir);
	if (access(bzimage, R_OK) < 0) {
		fb_err("kernel: %s missing after the build", bzimage);
		return -1;
	}
	return 0;
}

/* ---- foliobench kernel ---- */

static int list_flavours(char fl[][32], int max)
{
	static const char *const def[] = { "perf", "lockstat" };
	int n = 0;

	for (int i = 0; i < 2 && n < max; i++)
		fb_fmt(fl[n++], 32, "%s", def[i]);
	return n;
}

static int kernel_list(void)
{
	char repo[PATH_MAX], path[PATH_MAX + 32], *line = NULL, fl[MAX_FLAVOURS][32];
	int nfl = list_flavours(fl, MAX_FLAVOURS);
	size_t n = 0;
	FILE *f;

	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return 1;
	fb_fmt(path, sizeof(path), "%s/kernel-patches/arms.conf", repo);
	f = fopen(path, "r");
	if (!f) {
		fb_err("kernel: %s: %s", path, strerror(errno));
		return 1;
	}
	while (getline(&line, &n, f) >= 0) {
		char *colon = strchr(line, ':'), dir[PATH_MAX], bz[PATH_MAX + 16];

		if (line[0] == '#' || !colon)
			continue;
		*colon = '\0';
		for (int i = 0; i < nfl; i++) {
			if (fb_kernel_build(line, fl[i], 1, dir, sizeof(dir)) < 0)
				continue;
			fb_fmt(bz, sizeof(bz), "%s/bzImage", dir);
			printf("%-12s %-9s %-9s %s\n", line, fl[i],
			       access(bz, R_OK) == 0 ? "built" :
			       fb_kernel_arm_has_series(line) ? "missing" : "no-series",
			       dir);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

struct kernel_env {
	char arms[MAX_ARMS][64], fl[MAX_FLAVOURS][32];
	int narms, nfl, all;
};

/* long only: -a is --alpha and -f --format in compare, report and gate */
enum { OPT_ARM = 0x100, OPT_FLAVOUR };

static const struct argp_option kernel_options[] = {
	{ "arm", OPT_ARM, "A", 0, "arm (default baseline; repeatable), or SERIES@N: the base plus "
	  "the first N patches of kernel-patches/SERIES/series", 0 },
	{ "flavour", OPT_FLAVOUR, "F", 0, "perf|lockstat (default perf; repeatable)", 0 },
	{ "all", 'A', NULL, 0, "baseline and patched (if any of its series exists) for the "
	  "flavours given, default perf then lockstat", 0 },
	{ 0 },
};

/* arg into the next of the max rows (each width bytes) at rows, *n of them taken */
static error_t add_row(const char *opt, char *rows, size_t width, int *n, int max,
		       const char *arg)
{
	if (*n == max) {
		fb_err("kernel: too many %s", opt);
		return EINVAL;
	}
	fb_fmt(rows + (size_t)(*n)++ * width, width, "%s", arg);
	return 0;
}

static error_t kernel_parse(int key, char *arg, struct argp_state *state)
{
	struct kernel_env *e = state->input;
	char err[256];

	switch (key) {
	case OPT_ARM:
		return add_row("--arm", e->arms[0], sizeof(e->arms[0]), &e->narms, MAX_ARMS, arg);
	case OPT_FLAVOUR:
		if (fb_name_check("--flavour", arg, err, sizeof(err))) {	/* a cache path */
			fb_err("kernel: %s", err);
			return EINVAL;
		}
		return add_row("--flavour", e->fl[0], sizeof(e->fl[0]), &e->nfl, MAX_FLAVOURS, arg);
	case 'A':
		e->all = 1;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp kernel_argp = {
	kernel_options, kernel_parse, "build|path|list",
	"Builds guest kernels with scripts/kernel-build.sh: the Linux base plus the series of "
	"arm A (kernel-patches/arms.conf) with config flavour F (kernel-patches/configs/"
	"F.flavour), cached under $FB_CACHE (/var/cache/foliobench) so that an unchanged kernel "
	"is not rebuilt.\v  build   build (or reuse) and print each kernel's directory\n"
	"  path    print the directory of one kernel (--arm A [--flavour F]); exit 1 if not "
	"built\n  list    arms x flavours with their directories and state",
	NULL, NULL, NULL,
};

static int kernel_path(struct kernel_env *e)
{
	const char *fl = e->nfl ? e->fl[0] : "perf";
	char dir[PATH_MAX], bz[PATH_MAX + 16];

	if (e->narms != 1 || e->nfl > 1 || e->all) {
		fb_err("kernel: path wants one --arm (and at most one --flavour)");
		return 2;
	}
	if (!arm_exists(e->arms[0])) {
		fb_err("kernel: unknown arm '%s' (see kernel-patches/arms.conf)", e->arms[0]);
		return 2;
	}
	if (fb_kernel_build(e->arms[0], fl, 1, dir, sizeof(dir)) < 0)
		return 1;
	printf("%s\n", dir);
	fb_fmt(bz, sizeof(bz), "%s/bzImage", dir);
	if (access(bz, R_OK) < 0) {
		fb_err("kernel: %s/%s is not built yet (foliobench kernel build --arm %s --flavour %s)",
		       e->arms[0], fl, e->arms[0], fl);
		return 1;
	}
	return 0;
}

/* --all, and the defaults: baseline, perf; 0 or 2 */
static int kernel_arms(struct kernel_env *e)
{
	if (e->all) {
		if (e->narms) {
			fb_err("kernel: --all and --arm exclude each other");
			return 2;
		}
		fb_fmt(e->arms[e->narms++], sizeof(e->arms[0]), "baseline");
		if (fb_kernel_arm_has_series("patched"))
			fb_fmt(e->arms[e->narms++], sizeof(e->arms[0]), "patched");
		else
			fb_info("kernel: patched arm skipped: none of its series exists yet");
		if (!e->nfl)
			e->nfl = list_flavours(e->fl, MAX_FLAVOURS);
	}
	if (!e->narms)
		fb_fmt(e->arms[e->narms++], sizeof(e->arms[0]), "baseline");
	if (!e->nfl)
		fb_fmt(e->fl[e->nfl++], sizeof(e->fl[0]), "perf");
	for (int i = 0; i < e->narms; i++)
		if (!arm_exists(e->arms[i])) {
			fb_err("kernel: unknown arm '%s' (see kernel-patches/arms.conf)", e->arms[i]);
			return 2;
		}
	return 0;
}

static int kernel_build_all(struct kernel_env *e)
{
	char dir[PATH_MAX];
	int failed = 0, r = kernel_arms(e);

	if (r)
		return r;
	/* Flavour-major: all arms of one config share a build directory. */
	for (int f = 0; f < e->nfl && !fb_stop; f++) {
		for (int a = 0; a < e->narms && !fb_stop; a++) {
			uint64_t t0 = fb_now_ns();

			fb_info("kernel: %s/%s ...", e->arms[a], e->fl[f]);
			r = fb_kernel_build(e->arms[a], e->fl[f], 0, dir, sizeof(dir));
			if (r == FB_KERNEL_UNTRUSTED)
				return 2;
			if (r < 0) {
				failed++;
				continue;
			}
			fb_info("kernel: %s/%s ready in %.0fs: %s", e->arms[a], e->fl[f],
				(double)(fb_now_ns() - t0) / 1e9, dir);
			printf("%s\n", dir);
			fflush(stdout);
		}
	}
	if (fb_stop)
		return 130;
	return failed ? 1 : 0;
}

int cmd_kernel(int argc, char **argv)
{
	struct kernel_env e = { 0 };
	char name[32];
	const char *sub = argc > 1 ? argv[1] : "";
	int r;

	if (!strcmp(sub, "--help") || !strcmp(sub, "-h"))
		return fb_argp_parse(&kernel_argp, argc, argv, NULL, &e) == 1 ? 0 : 2;
	if (strcmp(sub, "build") && strcmp(sub, "path") && strcmp(sub, "list")) {
		fb_err("kernel: %s subcommand%s%s (build, path or list; foliobench kernel --help)",
		       *sub ? "unknown" : "missing", *sub ? " " : "", sub);
		return 2;
	}
	fb_fmt(name, sizeof(name), "kernel %s", sub);
	argv[1] = name;
	r = fb_argp_parse(&kernel_argp, argc - 1, argv + 1, NULL, &e);
	if (r)
		return r == 1 ? 0 : 2;
	if (!strcmp(sub, "list"))
		return kernel_list();
	if (!strcmp(sub, "path"))
		return kernel_path(&e);
	return kernel_build_all(&e);
}
