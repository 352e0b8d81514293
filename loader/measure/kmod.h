/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure/kmod.h - loading the kernel modules that catalogue rows live in
 * (fb_probe_def.module) before anything is attached.
 */
#ifndef FB_KMOD_H
#define FB_KMOD_H

/*
 * For every row matching pat[0..npat) (all if npat == 0) driven by one of
 * the workloads wl[0..nwl) whose functions live in a module that is not
 * loaded, runs the kernel's own modprobe
 * (/proc/sys/kernel/modprobe), as the workload's first use would.  A
 * module that cannot be loaded is left to the row's attach, which says
 * why.  Returns the number of modules loaded.
 */
int fb_load_row_modules(const char *const *pat, int npat, const char *const *wl, int nwl);

#endif /* FB_KMOD_H */
