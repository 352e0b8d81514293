/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/stock.h - Debian stock kernels as guest kernels: `--kernel
 * debian:V` (vm, ab) runs scripts/stock-kernel.sh, which fetches, checks and
 * caches the image with an initramfs that mounts the host's root.
 */
#ifndef FB_STOCK_H
#define FB_STOCK_H

#include <stddef.h>

/* 1 if spec names a stock kernel ("debian:..."). */
int fb_stock_spec(const char *spec);

/*
 * The cached directory of stock kernel spec (fetched and built if
 * missing) into dir.  0; 2 on bad input (unknown version, no BTF, a
 * download that is not the index's), 130 when interrupted (SIGINT/SIGTERM:
 * the script removes its temporary directory), -1 on other failures; the
 * script has printed the one-line reason.
 */
int fb_stock_dir(const char *spec, char *dir, size_t len);

/* The same, as the bzImage path in it (for fb_kernel_resolve). */
int fb_stock_bzimage(const char *spec, char *bzimage, size_t len);

/*
 * The initramfs that goes with kernel image bz: initrd.cpio beside it
 * (stock kernels have one).  1 with its path in buf, else 0.
 */
int fb_stock_initrd(const char *bz, char *buf, size_t len);

#endif /* FB_STOCK_H */
