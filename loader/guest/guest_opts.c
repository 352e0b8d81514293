// SPDX-License-Identifier: GPL-2.0
/*
 * guest_opts.c - the guest options of `vm` and `ab`, one argp table (a
 * child of each command's parser) filling a struct fb_vm_opts.
 */
#include <argp.h>
#include <regex.h>
#include <string.h>

#include "guest/guest_opts.h"
#include "guest/qemu.h"
#include "util/cli.h"
#include "util/util.h"

enum { OPT_CLOCK = 0x100, OPT_SHIFT, OPT_ACCEL, OPT_APPEND, OPT_ALLOW, OPT_MEM, OPT_OBSERVER,
       OPT_SYSMAP };

static const struct argp_option guest_options[] = {
	{ NULL, 0, NULL, 0, "Guest:", 10 },
	{ "smp", 's', "N", 0, "guest CPUs (vm: 2; ab: 1; icount: 1)", 0 },
	{ "mem", OPT_MEM, "M", 0, "guest memory (2G)", 0 },
	{ "timeout", 't', "S", 0, "kill a guest after S seconds, boot included (600)", 0 },
	{ "accel", OPT_ACCEL, "A", 0,
	  "auto|kvm|tcg (auto: KVM only if a probe boot works; the verdict is cached "
	  "in $FB_CACHE/kvm-verdict)", 0 },
	{ "clock", OPT_CLOCK, "MODE", 0,
	  "host: guest time follows the host (TCG or KVM); icount: instruction-paced "
	  "virtual time, 2^shift ns per instruction, single-threaded TCG, one vCPU: "
	  "per-call times independent of host load (docs/vm.md, reports/clock).  Default: vm host; "
	  "ab icount, or host with --smp > 1", 0 },
	{ "icount-shift", OPT_SHIFT, "N", 0, "with --clock icount: ns per instruction = 2^N (0)",
	  0 },
	{ "observer", OPT_OBSERVER, "WHO", 0, "bpf: foliobench run's BPF programs in the guest "
	  "(default); plugin: a QEMU TCG plugin measures the catalogue's function and lock "
	  "rows from outside the guest, adding no guest instruction (--clock icount only; "
	  "docs/observer.md); both: the two in one boot", 0 },
	{ "system-map", OPT_SYSMAP, "FILE", 0, "with --observer plugin: the guest kernel's "
	  "System.map (the one beside its bzImage)", 0 },
	{ "append", OPT_APPEND, "ARGS", 0, "extra kernel command line", 0 },
	{ "allow", OPT_ALLOW, "REGEX", 0, "a console line matching REGEX is not a splat "
	  "(repeatable)", 0 },
	{ "verbose", 'v', NULL, 0, "show the qemu command line", 0 },
	{ "quiet", 'q', NULL, 0, "for CI logs: progress thinned out (ab: failed rounds and "
	  "one line per quarter; kernel builds: a line per 5 minutes), never errors or "
	  "results.  FB_QUIET=1 does the same", 0 },
	{ 0 },
};

static int add_allow(struct fb_vm_opts *o, const char *re_s)
{
	regex_t re;

	if (o->nallow == FB_VM_MAX_ALLOW) {
		fb_err("at most %d --allow", FB_VM_MAX_ALLOW);
		return -1;
	}
	if (regcomp(&re, re_s, REG_EXTENDED | REG_NOSUB)) {
		fb_err("--allow '%s' is not a valid regular expression", re_s);
		return -1;
	}
	regfree(&re);
	o->allow[o->nallow++] = re_s;
	return 0;
}

static int parse_uint_opt(const char *opt, const char *arg, unsigned long long min,
			  unsigned long long max, int *dst)
{
	unsigned long long v;

	if (fb_opt_uint("foliobench", opt, arg, min, max, &v) < 0)
		return -1;
	*dst = (int)v;
	return 0;
}

static error_t guest_parse(int key, char *arg, struct argp_state *state)
{
	struct fb_vm_opts *o = state->input;
	int r = 0;

	switch (key) {
	case 's':
		r = parse_uint_opt("--smp", arg, 1, 64, &o->smp);
		break;
	case OPT_MEM:
		o->mem = arg;
		break;
	case 't':
		r = parse_uint_opt("--timeout", arg, 1, 86400, &o->timeout);
		break;
	case OPT_ACCEL:
		o->accel = arg;
		break;
	case OPT_CLOCK:
		if (fb_clock_parse(arg, &o->clock) < 0) {
			fb_err("--clock must be host or icount, not '%s'", arg);
			r = -1;
		}
		break;
	case OPT_SHIFT:
		r = parse_uint_opt("--icount-shift", arg, 0, FB_ICOUNT_SHIFT_MAX, &o->icount_shift);
		break;
	case OPT_APPEND:
		o->append = arg;
		break;
	case OPT_OBSERVER:
		if (fb_observer_parse(arg, &o->observer) < 0) {
			fb_err("--observer must be bpf, plugin or both, not '%s'", arg);
			r = -1;
		}
		break;
	case OPT_SYSMAP:
		o->sysmap = arg;
		break;
	case OPT_ALLOW:
		r = add_allow(o, arg);
		break;
	case 'v':
		fb_set_verbose(1);
		break;
	case 'q':
		fb_set_quiet(1);
		o->quiet = 1;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return r ? EINVAL : 0;
}

const struct argp fb_guest_argp = { guest_options, guest_parse, NULL, NULL, NULL, NULL, NULL };

int fb_guest_opts_check(const char *cmd, const struct fb_vm_opts *o)
{
	const char *accel = o->accel ? o->accel : "auto";

	if (strcmp(accel, "auto") && strcmp(accel, "kvm") && strcmp(accel, "tcg")) {
		fb_err("%s: --accel must be auto, kvm or tcg, not '%s'", cmd, accel);
		return 2;
	}
	if (o->clock == FB_CLOCK_ICOUNT && !strcmp(accel, "kvm")) {
		fb_err("%s: --clock icount needs TCG: it cannot run with --accel kvm", cmd);
		return 2;
	}
	if (o->clock == FB_CLOCK_ICOUNT && o->smp > 1) {
		fb_err("%s: --clock icount runs one vCPU (single-threaded TCG), not --smp %d; "
		       "cross-CPU contention needs --clock host", cmd, o->smp);
		return 2;
	}
	if (o->observer != FB_OBS_BPF && o->clock != FB_CLOCK_ICOUNT) {
		fb_err("%s: --observer %s needs --clock icount (the plugin's counts and the "
		       "guest's clock are then both instruction counts)", cmd,
		       fb_observer_name(o->observer));
		return 2;
	}
	if (o->sysmap && o->observer == FB_OBS_BPF) {
		fb_err("%s: --system-map goes with --observer plugin or both", cmd);
		return 2;
	}
	if (o->clock != FB_CLOCK_ICOUNT && o->icount_shift) {
		fb_err("%s: --icount-shift goes with --clock icount", cmd);
		return 2;
	}
	if (o->append && strlen(o->append) > FB_APPEND_MAX) {	/* the kernel would cut it */
		fb_err("%s: --append is %zu bytes, more than %d (the guest kernel keeps %d bytes "
		       "of command line)", cmd, strlen(o->append), FB_APPEND_MAX, FB_CMDLINE_MAX);
		return 2;
	}
	return 0;
}
