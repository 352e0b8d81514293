/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/qemu.h - the qemu command line of a foliobench guest, built by
 * small pure helpers (no I/O, unit-tested in tests/unit/test_vm.c), and the
 * guest clock modes.
 */
#ifndef FB_QEMU_H
#define FB_QEMU_H

#include <stddef.h>

#include "model/clock.h"


/*
 * shift=0: one instruction is one virtual nanosecond.  The lowest shift is
 * the finest resolution and the fewest timer interrupts per instruction (a
 * 1 ms tick every 10^6 instructions; at shift=3 one every 125,000), so
 * fewer interrupts land inside a measured call.  A higher shift would only
 * make the guest believe in a slower CPU.
 */
#define FB_ICOUNT_SHIFT_DEFAULT	0
#define FB_ICOUNT_SHIFT_MAX	10

/*
 * The guest kernel's command line: x86 COMMAND_LINE_SIZE is 2048 bytes
 * with its NUL, and the kernel cuts a longer one without a word.  Of it,
 * --append (with ab's --base-append/--new-append) may take FB_APPEND_MAX;
 * the rest is foliobench's own (console, root, clock, arm, init).
 */
#define FB_CMDLINE_MAX	2047
#define FB_APPEND_MAX	1024


#define FB_ARGV_MAX	80
#define FB_ARGV_STORE	8192

/* A bounded argv: strings live in store; overflow is sticky. */
struct fb_argv {
	const char *v[FB_ARGV_MAX + 1];
	int n;
	int overflow;
	size_t used;
	char store[FB_ARGV_STORE];
};

void fb_argv_init(struct fb_argv *a);
void fb_argv_add(struct fb_argv *a, const char *s);
void fb_argv_addf(struct fb_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct fb_qemu_spec {
	const char *qemu;	/* executable */
	const char *accel;	/* "kvm" or "tcg" */
	enum fb_clock clock;
	int shift;		/* FB_CLOCK_ICOUNT: -icount shift= */
	int smp;
	const char *mem;
	const char *kernel;	/* bzImage */
	const char *initrd;	/* -initrd, or NULL (stock kernels: guest/stock.h) */
	const char *cmdline;	/* kernel command line */
	const char *results;	/* shared read-write as fbres */
	const char *share;	/* the control share, fbctl */
	const char *console;	/* console log file */
	const char *fifo_dir;	/* holds the out.* and err.* FIFOs */
	const char *qlog;	/* qemu's -D log */
	const char *plugin;	/* -plugin SO,ARGS (the TCG plugin observer), or NULL */
};

/*
 * Fills a with the whole qemu command line of spec q.  0, or -1 with a
 * one-line reason in why: icount with KVM or with more than one vCPU, a
 * path that qemu's option syntax cannot carry (','), or too long a line.
 */
int fb_qemu_argv(struct fb_argv *a, const struct fb_qemu_spec *q, char *why, size_t wlen);

/*
 * The guest kernel command line: our fixed part, the clock mode for the
 * guest's results (foliobench.clock=icount foliobench.icount_shift=N), the
 * caller's extra arguments, then init.  0, or -1 with why.
 */
int fb_vm_cmdline(char *buf, size_t len, enum fb_clock clock, int shift,
		  const char *append, const char *init, char *why, size_t wlen);

#endif /* FB_QEMU_H */
