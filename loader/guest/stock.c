// SPDX-License-Identifier: GPL-2.0
/*
 * stock.c - `--kernel debian:V`: runs scripts/stock-kernel.sh (fetch,
 * sha256 check against the Packages index, unpack, initramfs, all cached
 * under $FB_CACHE/stock/) and hands vm the kernel directory.
 */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "guest/kernel.h"
#include "guest/stock.h"
#include "util/script.h"
#include "util/util.h"

#define PREFIX	"debian:"

int fb_stock_spec(const char *spec)
{
	return spec && !strncmp(spec, PREFIX, strlen(PREFIX));
}

int fb_stock_dir(const char *spec, char *dir, size_t len)
{
	const char *args[] = { spec, NULL };
	int sig, r = fb_script_run("stock-kernel.sh", args, dir, len, &sig);

	if (r == 2)
		return 2;
	if (sig)
		return 130;
	if (r) {
		fb_err("kernel %s: scripts/stock-kernel.sh failed (exit %d)", spec, r);
		return -1;
	}
	if (!dir[0]) {
		fb_err("kernel %s: scripts/stock-kernel.sh printed no directory", spec);
		return -1;
	}
	return 0;
}

int fb_stock_bzimage(const char *spec, char *bzimage, size_t len)
{
	char dir[PATH_MAX];

	if (fb_stock_dir(spec, dir, sizeof(dir)))
		return -1;
	fb_fmt(bzimage, len, "%s/bzImage", dir);
	return 0;
}

int fb_stock_initrd(const char *bz, char *buf, size_t len)
{
	const char *slash = strrchr(bz, '/');
	int dl = slash ? (int)(slash - bz) : 1;

	fb_fmt(buf, len, "%.*s/initrd.cpio", dl, slash ? bz : ".");
	return access(buf, R_OK) == 0;
}
