/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - booting a guest kernel under qemu (vm.c), shared by `foliobench
 * vm` (vm_cli.c) and `ab`.  The guest options' argp: guest_opts.h; finding
 * and building kernels: kernel.h.
 */
#ifndef FB_VM_H
#define FB_VM_H

#include "guest/qemu.h"
#include "guest/vmcodes.h"
#include "measure/observer.h"

struct fb_vm_opts {
	const char *kernel;	/* bzImage, or a directory holding one (and initrd.cpio) */
	int smp;		/* 0: 2, or 1 with FB_CLOCK_ICOUNT */
	enum fb_clock clock;	/* FB_CLOCK_HOST (0) or FB_CLOCK_ICOUNT */
	int icount_shift;	/* with FB_CLOCK_ICOUNT */
	const char *mem;	/* NULL: "2G" */
	int timeout;		/* seconds, 0: 600 */
	const char *results;	/* shared rw at the same path; NULL: ./results */
	const char *append;	/* extra kernel command line, or NULL */
	const char *accel;	/* "auto" (NULL), "kvm" or "tcg" */
	const char *log;	/* console log; NULL: <results>/console-<ts>.log */
	const char *allow[FB_VM_MAX_ALLOW];	/* regexes of tolerated splat lines */
	int nallow;
	int quiet;		/* no informational lines (errors still) */
	/* --observer (measure/observer.h): 0 = BPF in the guest only; plugin, both: icount */
	enum fb_observer observer;
	const char *sysmap;	/* --system-map: the plugin's addresses; NULL: beside bzImage */
	const char *observer_into;	/* results file that gets the plugin's rows (ab: the
					 * round's); NULL: its counts kept as <log>.plugin */
	const char *const *probes;	/* the plugin's rows: catalogue rows matching these */
	int nprobes;
	double boot_s;		/* out: qemu start to guest command start */
	double total_s;		/* out: qemu start to qemu gone */
};

/*
 * Boots o->kernel (with the initrd.cpio beside it, if any: stock kernels,
 * guest/stock.h), runs argv (argv[0] looked up in the guest's PATH, cwd =
 * the caller's cwd) as root in the guest with stdout/stderr relayed to ours,
 * and returns its exit code, or one of FB_VM_* (vmcodes.h) after printing
 * one error line (and a console excerpt for FB_VM_SPLAT).  No qemu process
 * or temporary directory survives the call.
 */
int fb_vm_run(struct fb_vm_opts *o, char *const argv[]);

/* subcommand: vm_cli.c */
int cmd_vm(int argc, char **argv);

#endif /* FB_VM_H */
