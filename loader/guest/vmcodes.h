/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/vmcodes.h - the exit codes of a guest boot besides the guest
 * command's own (fb_vm_run(), `vm`, outcome.c's mapping) and the --allow cap.
 */
#ifndef FB_VMCODES_H
#define FB_VMCODES_H

#define FB_VM_TIMEOUT	124	/* guest still running at the timeout */
#define FB_VM_SPLAT	125	/* panic/oops/WARN/BUG/lockdep in the guest log */
#define FB_VM_NOSTART	126	/* qemu did not start, or no guest to talk to */
#define FB_VM_INTR	130	/* interrupted (SIGINT/SIGTERM) */

#define FB_VM_MAX_ALLOW	16

#endif /* FB_VMCODES_H */
