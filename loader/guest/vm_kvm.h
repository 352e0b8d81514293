/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/vm_kvm.h - vm.c's inner pieces shared with vm_kvm.c: the quiet probe
 * boot and the cached verdict whether KVM can boot a kernel.
 */
#ifndef FB_VM_KVM_H
#define FB_VM_KVM_H

#include <stddef.h>

#include "guest/vm.h"

/* One quiet boot running `true` with --accel kvm: its exit code, why in reason. */
int fb_vm_probe_boot(struct fb_vm_opts *o, const char *bz, const char *initrd,
		     char *reason, size_t len);

/* 1 if KVM boots bz here (probed once, cached), 0 if not; why says so. */
int fb_vm_kvm_usable(struct fb_vm_opts *o, const char *bz, const char *initrd,
		     char *why, size_t wlen);

#endif /* FB_VM_KVM_H */
