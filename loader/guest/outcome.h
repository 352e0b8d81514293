/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/outcome.h - what a guest boot's end means: the splat scanner over
 * console lines and the pure mapping from what happened to `vm`'s exit code
 * (the contract in guest/vm.h), unit-tested on sample console logs.
 */
#ifndef FB_OUTCOME_H
#define FB_OUTCOME_H

/* What the harness saw of one boot. */
struct fb_vm_events {
	int sig;		/* we were interrupted by this signal */
	int kvm_err;		/* qemu printed "KVM internal error" */
	int qemu_failed;	/* qemu exited non-zero or by a signal */
	int started;		/* the guest command started */
	int have_rc;		/* the guest command's exit status came back */
	int rc;
	int timed_out;
	int splat;		/* a splat line no --allow regex matched */
	int triple_fault;	/* qemu's cpu_reset log says "Triple fault" */
	int setup_error;	/* guest-init wrote a setup-error line */
};

enum fb_vm_outcome {
	FB_OUT_RC,		/* the command's own exit status */
	FB_OUT_INTR,
	FB_OUT_KVM,
	FB_OUT_QEMU,		/* qemu failed before the guest ran anything */
	FB_OUT_TIMEOUT,
	FB_OUT_SPLAT,
	FB_OUT_TRIPLE,
	FB_OUT_RESET,		/* reset or powered off while the command ran */
	FB_OUT_SETUP,		/* guest setup failed */
	FB_OUT_NOCMD,		/* stopped without running the command */
};

/* The first matching rule wins; the order is the contract's precedence. */
enum fb_vm_outcome fb_vm_outcome(const struct fb_vm_events *e);
/* vm's exit code for an outcome (FB_VM_* of guest/vm.h, or rc). */
int fb_vm_exit_code(enum fb_vm_outcome out, int rc);

/*
 * Index of the first splat line in lines[0..n) that no allow regex
 * (extended) matches, or -1.  A stack dump ("Call Trace:") within 100
 * lines after an allowed splat is part of that splat.  Lines may carry
 * printk's "[    1.234567] " prefix.
 */
int fb_splat_find(char *const *lines, int n, const char *const *allow, int nallow);
/* printk's time prefix skipped. */
const char *fb_strip_ts(const char *l);

#endif /* FB_OUTCOME_H */
