/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure/obsplugin.h - the host side of the TCG plugin observer
 * (plugin/fbobs.c, issue 39): the catalogue's function rows as guest kernel
 * addresses for the plugin, and the plugin's counts as result rows of
 * method "plugin".  Called by `vm` (loader/guest/observer.c) around a boot.
 */
#ifndef FB_OBSPLUGIN_H
#define FB_OBSPLUGIN_H

#include <stddef.h>

/*
 * The plugin's spec for booting bzImage bz: the window marks and every
 * catalogue function row matching pat[0..npat) (all if npat == 0), with
 * addresses from sysmap (NULL: System.map beside bz).  The kernel must be
 * one foliobench built: a vmlinux beside bz whose linux_banner is bz's
 * version and whose symbol table agrees with sysmap on every address used.
 * A malloc'd text, or NULL with one line in why (bad input: nothing done).
 */
char *fb_obsplugin_spec(const char *bz, const char *sysmap, const char *const *pat, int npat,
			char *why, size_t wlen);

/*
 * After the boot: the plugin's counts (out) as rows of the results file
 * `results` (rewritten): one row per spec row, named as the catalogue's, or
 * NAME@plugin where the file already has a row of that name (--observer
 * both), stats latency (ns: 2^shift per guest instruction, -icount
 * shift=N) and calls, and extra plugin.marks_on/off.  0, or -1 with one
 * line in why.
 */
int fb_obsplugin_merge(const char *spec, const char *out, const char *results, int shift,
		       char *why, size_t wlen);

/* ---- between obsplugin.c and obslocks.c ---- */
struct fb_result;
struct fb_probe_result;
/* A new row of r named NAME, or NAME@plugin if r has one (method plugin). */
struct fb_probe_result *fb_obsplugin_new_row(struct fb_result *r, const char *name, char *why,
					     size_t wlen);
/*
 * A spec line "# lock ..." as a lock row of r from the plugin's out:
 * stats hold (ns), acquire (calls) and hold@PHASE.  0, or -1 with why.
 */
int fb_obsplugin_lock_row(struct fb_result *r, const char *line, const char *spec,
			  const char *out, int shift, char *why, size_t wlen);

#endif /* FB_OBSPLUGIN_H */
