// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rounds.c - libFuzzer target for loading an arm directory
 * (model/rounds.c): the input is a recipe that builds a directory of
 * valid rounds, copies, hard links, symlinks (to files, to ".", dangling),
 * FIFOs, sockets, directories named *.json and raw bytes, in a fresh
 * directory per input.  fb_rounds_load() must return without hanging (a
 * FIFO opened for reading would: libFuzzer's -timeout catches it), and
 * either refuse with one line, or use each file and each round once and
 * never a path through a directory symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "model/rounds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"round-1.json", "round-2.json", "round-10.json", "s/round-3.json", "s/x.json",
	"again", "s/up", "d.json", "s", "ab.json", "t/round-4.json", "t",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static char dir[64], outside[80];	/* outside: a round beside the arm */

static const char *at(const char *name)
{
	static char p[2][128];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* Never waits on a FIFO the recipe made earlier (ENXIO instead). */
static FILE *create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

static void valid_round(const char *path, unsigned int started, const char *extra)
{
	FILE *f = create(path);

	if (!f)
		return;
	fprintf(f, "{\"schema\": \"foliobench-results\", \"schema_version\": 1, "
		"\"tool_version\": \"\", \"label\": \"\", \"started\": \"2026-12-01T08:00:%02uZ\", "
		"\"host\": {\"kernel_release\": \"\", \"kernel_version\": \"\", \"build_id\": \"b\", "
		"\"config_sha256\": \"\", \"cmdline\": \"\", \"cpu_model\": \"\", \"ncpus\": 1, "
		"\"arm\": \"\"}, \"params\": [], \"probes\": [], \"workloads\": [], "
		"\"contention\": [], \"extra\": {\"x\": %s}}\n", started % 60, extra);
	fclose(f);
}

static void make_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0) {
		bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
	}
}

/* One recipe step: op, name index, argument byte. */
static void step(uint8_t op, const char *name, const char *other, uint8_t arg,
		 const uint8_t *raw, size_t rawlen)
{
	static const char *const extras[] = { "1", "2.5", "NaN", "Infinity", "1e999",
					      "18446744073709551616", "-1" };
	const char *p = at(name);
	FILE *f;

	switch (op % 10) {
	case 0: case 1:
		valid_round(p, arg, "1");
		break;
	case 2:
		valid_round(p, arg, extras[arg % (sizeof(extras) / sizeof(extras[0]))]);
		break;
	case 3:
		mkfifo(p, 0600);
		break;
	case 4:
		symlink(arg & 1 ? "." : other, p);
		break;
	case 5:
		link(at(other), p);
		break;
	case 6:
		mkdir(p, 0755);
		break;
	case 7:
		symlink(arg % 3 == 0 ? "nowhere.json" : arg % 3 == 1 ? ".." : outside, p);
		break;
	case 8:
		make_socket(p);
		break;
	case 9:
		f = create(p);
		if (f) {
			fwrite(raw, 1, rawlen, f);
			fclose(f);
		}
		break;
	}
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void check(const struct fb_rounds *rs)
{
	struct stat a, b;

	if (rs->n < 1 || rs->n > 64)
		__builtin_trap();
	for (int i = 0; i < rs->n; i++) {
		/* never through a directory symlink: the path's dirs are real */
		char real[PATH_MAX], want[PATH_MAX];
		char *slash = strrchr(rs->v[i].path, '/');

		if (stat(rs->v[i].path, &a) || !S_ISREG(a.st_mode) || !slash)
			__builtin_trap();
		snprintf(want, sizeof(want), "%.*s", (int)(slash - rs->v[i].path), rs->v[i].path);
		if (!realpath(want, real) || strncmp(real, dir, strlen(dir)) ||
		    strcmp(real + strlen(dir), want + strlen(dir)))
			__builtin_trap();
		for (int j = 0; j < i; j++) {
			if (stat(rs->v[j].path, &b))
				__builtin_trap();
			if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				__builtin_trap();	/* one file twice */
			if (fb_round_same(rs->v[i].r, rs->v[j].r))
				__builtin_trap();	/* one round twice */
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fb_rounds rs;
	char err[512] = "";
	size_t i = 0;
	int ret;

	if (!dir[0]) {
		/* FB_FUZZ_TMP: where the arm directories go (tests/fuzz/run.sh removes it) */
		const char *base = getenv("FB_FUZZ_TMP");

		if (!realpath(base ? base : "/tmp", err))	/* the check compares real paths */
			snprintf(err, sizeof(err), "/tmp");
		snprintf(dir, sizeof(dir), "%s/fb-fuzz-rounds-%d", err, (int)getpid());
		snprintf(outside, sizeof(outside), "%s-outside", dir);
		mkdir(outside, 0755);
		snprintf(err, sizeof(err), "%s/round-59.json", outside);
		valid_round(err, 59, "1");
	}
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return 0;
	mkdir(at("s"), 0755);
	for (int k = 0; i + 3 <= size && k < 24; k++, i += 3) {
		size_t rawlen = 0;

		if (data[i] % 10 == 9) {	/* raw bytes: the rest of the input */
			rawlen = size - i - 3;
			step(data[i], names[data[i + 1] % NNAMES], names[data[i + 2] % NNAMES],
			     data[i + 2], data + i + 3, rawlen);
			break;
		}
		step(data[i], names[data[i + 1] % NNAMES], names[data[i + 2] % NNAMES], data[i + 2],
		     NULL, 0);
	}
	ret = fb_rounds_load(&rs, dir, 64, err, sizeof(err));
	if (!ret)
		check(&rs);
	else if (!err[0] || strchr(err, '\n') || strnlen(err, sizeof(err)) == sizeof(err))
		__builtin_trap();
	fb_rounds_free(&rs);
	return 0;
}
