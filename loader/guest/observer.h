/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/observer.h - a boot with the TCG plugin observer (vm --observer
 * plugin|both, issue 39): checked before the boot, its qemu -plugin
 * argument and kernel command line, its counts after (observer.c).
 */
#ifndef FB_GUEST_OBSERVER_H
#define FB_GUEST_OBSERVER_H

#include <stddef.h>

#include "guest/vm.h"

struct fb_vm_obs {
	char *spec;		/* the plugin's spec text (measure/obsplugin.h) */
	char so[4096];		/* the plugin: build/plugin/fbobs.so, or $FB_PLUGIN */
	char arg[8192];		/* SO,spec=DIR/plugin.spec,out=DIR/plugin.out */
	char spec_path[4096], out_path[4096];
	int nokaslr;		/* the kernel's .config has RANDOMIZE_BASE=y */
};

/*
 * Before anything is done: the plugin exists, the kernel's System.map and
 * vmlinux are bz's.  0 (nothing to do for --observer bpf), or 2 after one
 * error line.
 */
int fb_vm_obs_check(const struct fb_vm_opts *o, const char *bz, struct fb_vm_obs *ob);
/* The spec written into the boot's private directory dir, ob->arg filled: 0 or -1. */
int fb_vm_obs_setup(struct fb_vm_obs *ob, const char *dir);
/*
 * The kernel command line's part for the observer ("" for bpf; nokaslr only
 * where the kernel knows it: else it would be an argument of init).
 */
const char *fb_vm_obs_cmdline(const struct fb_vm_opts *o, const struct fb_vm_obs *ob);
/*
 * After the guest: the counts merged into o->observer_into when the command
 * succeeded (ret 0), else kept as <log>.plugin.  Returns ret, or 126 after
 * one error line if the plugin's rows could not be made.
 */
int fb_vm_obs_finish(const struct fb_vm_opts *o, struct fb_vm_obs *ob, const char *log, int ret);
void fb_vm_obs_free(struct fb_vm_obs *ob);

#endif /* FB_GUEST_OBSERVER_H */
