/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest/guest_opts.h - the guest options shared by `vm` and `ab` (--smp,
 * --mem, --timeout, --accel, --clock, --icount-shift, --append, --allow,
 * -v): an argp child whose input is a struct fb_vm_opts (guest_opts.c).
 */
#ifndef FB_GUEST_OPTS_H
#define FB_GUEST_OPTS_H

#include "guest/vm.h"

struct argp;

extern const struct argp fb_guest_argp;
/* After parsing: the combination is consistent (icount: tcg, 1 vCPU). 0, or 2 after fb_err. */
int fb_guest_opts_check(const char *cmd, const struct fb_vm_opts *o);

#endif /* FB_GUEST_OPTS_H */
