/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/pathtrust.h - may root build from this directory?  A kernel build
 * runs host programs (scripts, objtool, ccache's objects) that come out of
 * the kernel cache; if anyone but root can write there, they choose what
 * root runs (docs/cache.md).
 */
#ifndef FB_PATHTRUST_H
#define FB_PATHTRUST_H

#include <stddef.h>

/*
 * 0 if every directory of dir's real path is owned by root and writable by
 * no group or other (a sticky directory such as /tmp may hold it: nobody
 * else can replace root's entry there), and so are the subdirectories
 * named in subs (NULL-terminated; those missing are skipped).  A dir that
 * does not exist yet is judged by its nearest existing ancestor, which is
 * where it will be made.  -1 with one line in err naming the directory and
 * who can write it.
 */
int fb_root_trusts_dir(const char *dir, const char *const *subs, char *err, size_t errlen);

#endif /* FB_PATHTRUST_H */
