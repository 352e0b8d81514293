/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/vm_kvm.h - the cached verdict whether KVM can boot a kernel here.
 * The probe boot itself is vm.c's (passed in), so vm_kvm.c needs nothing
 * from the file that calls it.
 */
#ifndef FB_VM_KVM_H
#define FB_VM_KVM_H

#include <stddef.h>

#include "guest/vm.h"

/* One quiet boot running `true` with --accel kvm: its exit code, why in reason. */
typedef int fb_vm_probe_fn(struct fb_vm_opts *o, const char *bz, const char *initrd,
			   char *reason, size_t len);

/* 1 if KVM boots bz here (probed once with probe, cached), 0 if not; why says so. */
int fb_vm_kvm_usable(struct fb_vm_opts *o, const char *bz, const char *initrd,
		     fb_vm_probe_fn *probe, char *why, size_t wlen);

#endif /* FB_VM_KVM_H */
