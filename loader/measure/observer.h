/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure/observer.h - who observes the guest kernel (issue 39): the BPF
 * programs `run` attaches in the kernel (bpf, the default), a QEMU TCG
 * plugin outside it (plugin: adds no guest instruction, icount guests only),
 * or both in one boot.  The host side of the plugin (the spec it is given,
 * its counts merged into a results file) is obsplugin.h.
 */
#ifndef FB_OBSERVER_H
#define FB_OBSERVER_H

enum fb_observer { FB_OBS_BPF, FB_OBS_PLUGIN, FB_OBS_BOTH };

/* "bpf", "plugin", "both" -> *o: 0, or -1 */
int fb_observer_parse(const char *s, enum fb_observer *o);
const char *fb_observer_name(enum fb_observer o);

/*
 * In the guest: foliobench.observer= of the kernel command line (set by
 * `vm --observer`), read once; FB_OBS_BPF if absent.
 */
enum fb_observer fb_observer_guest(void);
/*
 * The plugin's window marks around each measured phase: one syscall whose
 * kernel entry the plugin watches (on: sched_get_priority_max, off:
 * sched_get_priority_min, nothing else in a guest calls them), made only
 * when a plugin observes.  Outside the BPF window: none of the BPF rows
 * counts it.
 */
void fb_observer_mark(int on);
#define FB_OBS_MARK_ON	"__x64_sys_sched_get_priority_max"
#define FB_OBS_MARK_OFF	"__x64_sys_sched_get_priority_min"
/*
 * The first phase a workload marks (sysfs: "register"), inside the window:
 * a sched_rr_get_interval syscall (measure/lockrows.c), and the workload's
 * count "<phase>_plugin_mark" 1 names the phase for the host.  The plugin
 * keeps each lock word's holds up to there (a row's stat "hold@<phase>").
 */
#define FB_OBS_MARK_PHASE	"__x64_sys_sched_rr_get_interval"

#endif /* FB_OBSERVER_H */
