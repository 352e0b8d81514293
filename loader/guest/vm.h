/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - booting a guest kernel under qemu (vm.c) and finding/building
 * kernels (kernel.c); shared by `foliobench vm`, `ab` and `kernel`.
 */
#ifndef FB_VM_H
#define FB_VM_H

#include <stddef.h>

#include "guest/qemu.h"

struct argp;

/* Exit codes of fb_vm_run() besides the guest command's own. */
#define FB_VM_TIMEOUT	124	/* guest still running at the timeout */
#define FB_VM_SPLAT	125	/* panic/oops/WARN/BUG/lockdep in the guest log */
#define FB_VM_NOSTART	126	/* qemu did not start, or no guest to talk to */
#define FB_VM_INTR	130	/* interrupted (SIGINT/SIGTERM) */

#define FB_VM_MAX_ALLOW	16

struct fb_vm_opts {
	const char *kernel;	/* bzImage, or a directory holding one */
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
	double boot_s;		/* out: qemu start to guest command start */
	double total_s;		/* out: qemu start to qemu gone */
};

/*
 * Boots o->kernel, runs argv (argv[0] looked up in the guest's PATH, cwd =
 * the caller's cwd) as root in the guest with stdout/stderr relayed to ours,
 * and returns its exit code, or one of FB_VM_* above after printing one
 * error line (and a console excerpt for FB_VM_SPLAT).  No qemu process or
 * temporary directory survives the call.
 */
int fb_vm_run(struct fb_vm_opts *o, char *const argv[]);

/*
 * The guest options shared by `vm` and `ab` (--smp, --mem, --timeout,
 * --accel, --clock, --icount-shift, --append, --allow, -v): an argp child
 * whose input is a struct fb_vm_opts (guest_opts.c).
 */
extern const struct argp fb_guest_argp;
/* After parsing: the combination is consistent (icount: tcg, 1 vCPU). 0, or 2 after fb_err. */
int fb_guest_opts_check(const char *cmd, const struct fb_vm_opts *o);

/* The directory holding the running foliobench binary (the repository). */
int fb_repo_dir(char *buf, size_t len);

/*
 * Resolves a kernel given as a bzImage path, a directory holding bzImage,
 * an arm name of kernel-patches/arms.conf, SERIES@N or the user's own
 * NAME=DIR / NAME=GITDIR@REV (built with
 * scripts/kernel-build.sh for flavour if build is set and it is missing).
 * Stores the bzImage path; 0, or -1 after fb_err().
 */
int fb_kernel_resolve(const char *spec, const char *flavour, int build,
		      char *bzimage, size_t len);
/*
 * The user's own arms (`ab --arm`): spec is NAME=DIR (a patch directory)
 * or NAME=GITDIR@REV, and no file of that name exists.
 */
int fb_kernel_user_arm(const char *spec);
/* name is a row of kernel-patches/arms.conf */
int fb_kernel_conf_arm(const char *name);
/*
 * scripts/kernel-build.sh --check spec flavour: 0 if the arm can be built,
 * 2 on bad input (the script printed one line naming it), 1 otherwise.
 * Builds nothing.
 */
int fb_kernel_check(const char *spec, const char *flavour);
/* Runs scripts/kernel-build.sh [--print] arm flavour; dir gets its output. */
int fb_kernel_build(const char *arm, const char *flavour, int print_only,
		    char *dir, size_t len);
/*
 * The patch files of kernel-patches/SERIES/series, in order: their number
 * (the first max of them in names), or -1 if there is no such series.
 */
int fb_kernel_series(const char *series, char names[][128], int max);
/* 1 if some series of the arm has a series file (baseline: always 1). */
int fb_kernel_arm_has_series(const char *arm);

/* subcommands: vm.c, ab.c, kernel.c */
int cmd_vm(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_kernel(int argc, char **argv);

#endif /* FB_VM_H */
