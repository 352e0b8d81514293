// SPDX-License-Identifier: GPL-2.0
/*
 * test_vm.c - the guest harness without qemu: the qemu command line per
 * clock mode, the kernel command line, the splat scanner on sample console
 * logs and the outcome -> exit code contract of guest/vm.h.
 */
#include <stdio.h>
#include <string.h>

#include "guest/guest_opts.h"
#include "guest/outcome.h"
#include "guest/qemu.h"
#include "guest/vmcodes.h"
#include "tap.h"

static const char *argv_after(const struct fb_argv *a, const char *opt)
{
	for (int i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt))
			return a->v[i + 1];
	return NULL;
}

static int argv_count(const struct fb_argv *a, const char *s)
{
	int n = 0;

	for (int i = 0; i < a->n; i++)
		n += !strcmp(a->v[i], s);
	return n;
}

static struct fb_qemu_spec spec(enum fb_clock clock, const char *accel, int smp)
{
	return (struct fb_qemu_spec){
		.qemu = "qemu-system-x86_64", .accel = accel, .clock = clock, .shift = 0,
		.smp = smp, .mem = "2G", .kernel = "/k/bzImage", .cmdline = "console=ttyS0",
		.results = "/r", .share = "/t/share", .console = "/r/con.log",
		.fifo_dir = "/t", .qlog = "/t/qemu.log",
	};
}

static void test_argv(void)
{
	struct fb_argv a;
	struct fb_qemu_spec q = spec(FB_CLOCK_HOST, "tcg", 2);
	struct fb_vm_opts o;
	char why[256];
	const char *s;

	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) == 0, "host clock: argv built");
	CHECKF(!argv_after(&a, "-icount"), "host clock: no -icount");
	s = argv_after(&a, "-accel");
	CHECKF(s && !strcmp(s, "tcg"), "host clock: -accel tcg (got %s)", s ? s : "-");
	s = argv_after(&a, "-smp");
	CHECKF(s && !strcmp(s, "2"), "host clock: -smp 2");
	CHECKF(argv_count(&a, "-fsdev") == 3 && argv_count(&a, "-chardev") == 3,
	       "three 9p shares and three chardevs (console, out, err)");
	CHECKF(a.v[a.n] == NULL && !a.overflow, "argv NULL-terminated, no overflow");
	CHECKF(!argv_after(&a, "-initrd"), "no initrd: no -initrd");

	q.initrd = "/k/initrd.cpio";	/* a stock kernel's (guest/stock.h) */
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) == 0, "with an initrd: argv built");
	s = argv_after(&a, "-initrd");
	CHECKF(s && !strcmp(s, "/k/initrd.cpio"), "-initrd /k/initrd.cpio (%s)", s ? s : "-");
	q.initrd = "/k,x/initrd.cpio";
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) < 0 && strstr(why, "','"),
	       "a ',' in the initrd path is refused: %s", why);

	q = spec(FB_CLOCK_ICOUNT, "tcg", 1);
	q.shift = 2;
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) == 0, "icount: argv built");
	s = argv_after(&a, "-icount");
	CHECKF(s && !strcmp(s, "shift=2,sleep=off"), "icount: -icount shift=2,sleep=off (%s)",
	       s ? s : "-");
	s = argv_after(&a, "-accel");
	CHECKF(s && !strcmp(s, "tcg,thread=single"), "icount: single-threaded TCG (%s)",
	       s ? s : "-");

	/* the icount rules are checked once, where vm and ab parse their options */
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_ICOUNT, .accel = "kvm" };
	CHECKF(fb_guest_opts_check("vm", &o) == 2, "icount refuses KVM (guest options: exit 2)");
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_ICOUNT, .smp = 2 };
	CHECKF(fb_guest_opts_check("vm", &o) == 2, "icount refuses 2 vCPUs (guest options: exit 2)");
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_ICOUNT, .accel = "tcg", .smp = 1 };
	CHECKF(fb_guest_opts_check("vm", &o) == 0, "icount with TCG and one vCPU is accepted");
	/* the TCG plugin observer (issue 39): icount only, one -plugin argument */
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_HOST, .observer = FB_OBS_PLUGIN };
	CHECKF(fb_guest_opts_check("vm", &o) == 2, "--observer plugin refuses the host clock");
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_HOST, .observer = FB_OBS_BOTH };
	CHECKF(fb_guest_opts_check("ab", &o) == 2, "--observer both refuses the host clock");
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_HOST, .sysmap = "/k/System.map" };
	CHECKF(fb_guest_opts_check("vm", &o) == 2, "--system-map without a plugin is refused");
	o = (struct fb_vm_opts){ .clock = FB_CLOCK_ICOUNT, .observer = FB_OBS_PLUGIN, .smp = 1 };
	CHECKF(fb_guest_opts_check("vm", &o) == 0, "--observer plugin with icount is accepted");
	q = spec(FB_CLOCK_ICOUNT, "tcg", 1);
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) == 0 && !argv_after(&a, "-plugin"),
	       "no observer: no -plugin");
	q.plugin = "/b/fbobs.so,spec=/t/plugin.spec,out=/t/plugin.out";
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) == 0 && argv_count(&a, "-plugin") == 1,
	       "plugin observer: one -plugin");
	s = argv_after(&a, "-plugin");
	CHECKF(s && !strcmp(s, q.plugin), "-plugin SO,spec=,out= (%s)", s ? s : "-");
	q.clock = FB_CLOCK_HOST;
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) < 0 && strstr(why, "icount"),
	       "a plugin under the host clock is refused: %s", why);
	for (int i = 0; i < 3; i++) {
		enum fb_observer ob;

		CHECKF(fb_observer_parse(fb_observer_name((enum fb_observer)i), &ob) == 0 &&
		       ob == (enum fb_observer)i, "observer %s parses back",
		       fb_observer_name((enum fb_observer)i));
	}
	CHECKF(fb_observer_parse("ebpf", &(enum fb_observer){ 0 }) < 0, "observer ebpf refused");

	q = spec(FB_CLOCK_HOST, "tcg", 1);
	q.results = "/a,b";
	CHECKF(fb_qemu_argv(&a, &q, why, sizeof(why)) < 0 && strstr(why, "','"),
	       "a ',' in a path is refused: %s", why);
}

static void test_argv_bounds(void)
{
	struct fb_argv a;
	char big[FB_ARGV_STORE + 16];

	fb_argv_init(&a);
	for (int i = 0; i < FB_ARGV_MAX + 5; i++)
		fb_argv_add(&a, "x");
	CHECKF(a.overflow && a.n == FB_ARGV_MAX && a.v[a.n] == NULL,
	       "more than %d arguments: overflow is sticky, argv stays terminated", FB_ARGV_MAX);
	fb_argv_init(&a);
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fb_argv_add(&a, big);
	CHECKF(a.overflow && a.n == 0, "an argument larger than the store overflows");
}

static void test_cmdline(void)
{
	char buf[1024], why[256];

	CHECKF(fb_vm_cmdline(buf, sizeof(buf), FB_CLOCK_ICOUNT, 0, "foliobench.arm=x",
			     "/repo/scripts/guest-init.sh", why, sizeof(why)) == 0 &&
	       strstr(buf, " foliobench.clock=icount foliobench.icount_shift=0 ") &&
	       strstr(buf, "foliobench.arm=x -- /repo/scripts/guest-init.sh"),
	       "icount kernel command line carries the clock for the results");
	CHECKF(fb_vm_cmdline(buf, sizeof(buf), FB_CLOCK_HOST, 0, NULL, "/i", why,
			     sizeof(why)) == 0 && !strstr(buf, "foliobench.clock"),
	       "host clock: nothing added");
	CHECKF(fb_vm_cmdline(buf, sizeof(buf), FB_CLOCK_HOST, 0, NULL, "/a b/init", why,
			     sizeof(why)) < 0, "init path with a blank refused");
	CHECKF(fb_vm_cmdline(buf, 40, FB_CLOCK_HOST, 0, NULL, "/i", why, sizeof(why)) < 0,
	       "too long a command line refused, not truncated");
}

/* Sample console logs, as a guest prints them. */
static const char *const clean_log[] = {
	"[    0.000000] Linux version 7.3.4-foliobench",
	"[    1.200000] foliobench: guest init",
	"[    3.100000] reboot: Power down",
};
static const char *const panic_log[] = {
	"[    0.5] Linux version", "[    2.0] Kernel panic - not syncing: VFS", "[    2.0] ---[ end",
};
static const char *const oops_log[] = {
	"[ 1.0] ok", "[ 2.1] Oops: int3: 0000 [#1] PREEMPT SMP", "[ 2.1] Call Trace:",
};
static const char *const warn_log[] = {
	"[ 1.0] ok", "[ 3.0] WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:4000 foo+0x1/0x2",
};
static const char *const lockdep_log[] = {
	"[ 1.0] ok", "[ 4.0] WARNING: possible circular locking dependency detected",
};
static const char *const allowed_log[] = {
	"[ 1.0] BUG: MAX_LOCKDEP_ENTRIES too low!", "[ 1.0] turning off the locking correctness validator.",
	"[ 1.0] Call Trace:", "[ 1.0]  <TASK>", "[ 9.0] reboot: Power down",
};
static const char *const not_a_splat[] = {
	"[ 1.0] DEBUG_BUGVERBOSE is set", "[ 1.0] nf_tables: (c) 2007-2009 Patrick McHardy",
	"[ 1.0] MY_BUG: nothing", "[ 1.0] INFORMATION: fine",
};

#define LINES(x) ((char *const *)(x)), (int)(sizeof(x) / sizeof((x)[0]))

static void test_splats(void)
{
	const char *allow[] = { "MAX_LOCKDEP_ENTRIES too low", "turning off the locking" };

	CHECKF(fb_splat_find(LINES(clean_log), NULL, 0) == -1, "clean boot: no splat");
	CHECKF(fb_splat_find(LINES(not_a_splat), NULL, 0) == -1,
	       "look-alike words (DEBUG_BUGVERBOSE, MY_BUG:, INFORMATION) are not splats");
	CHECKF(fb_splat_find(LINES(panic_log), NULL, 0) == 1, "panic found on its line");
	CHECKF(fb_splat_find(LINES(oops_log), NULL, 0) == 1, "oops found");
	CHECKF(fb_splat_find(LINES(warn_log), NULL, 0) == 1, "WARN found");
	CHECKF(fb_splat_find(LINES(lockdep_log), NULL, 0) == 1, "lockdep splat found");
	CHECKF(fb_splat_find(LINES(allowed_log), NULL, 0) == 0, "unallowed lockdep limit found");
	CHECKF(fb_splat_find(LINES(allowed_log), allow, 2) == -1,
	       "allowed splat and its stack dump pass");
	CHECKF(fb_splat_find(LINES(allowed_log), allow, 1) == 1,
	       "allowing one line does not allow the next header");
	CHECKF(!strcmp(fb_strip_ts("[    1.234567] x"), "x") && !strcmp(fb_strip_ts("x"), "x"),
	       "printk time prefix stripped");
}

static void test_outcome(void)
{
	struct fb_vm_events e = { .started = 1, .have_rc = 1, .rc = 3 };

	CHECKF(fb_vm_exit_code(fb_vm_outcome(&e), e.rc) == 3, "clean run: the command's exit code");
	e.splat = 1;
	CHECKF(fb_vm_exit_code(fb_vm_outcome(&e), e.rc) == FB_VM_SPLAT,
	       "a splat wins over the command's exit code (125)");
	e = (struct fb_vm_events){ .started = 1, .timed_out = 1, .splat = 1 };
	CHECKF(fb_vm_exit_code(fb_vm_outcome(&e), 0) == FB_VM_TIMEOUT,
	       "hang: timeout (124), even with a splat before it");
	e = (struct fb_vm_events){ .qemu_failed = 1 };
	CHECKF(fb_vm_exit_code(fb_vm_outcome(&e), 0) == FB_VM_NOSTART, "qemu failed: 126");
	e = (struct fb_vm_events){ .started = 1, .have_rc = 1, .sig = 2 };
	CHECKF(fb_vm_exit_code(fb_vm_outcome(&e), 0) == FB_VM_INTR, "interrupted: 130");
	e = (struct fb_vm_events){ .started = 1, .triple_fault = 1 };
	CHECKF(fb_vm_outcome(&e) == FB_OUT_TRIPLE && fb_vm_exit_code(FB_OUT_TRIPLE, 0) == 125,
	       "triple fault while running: 125");
	e = (struct fb_vm_events){ .started = 1 };
	CHECKF(fb_vm_outcome(&e) == FB_OUT_RESET, "started, no rc, nothing logged: reset (125)");
	e = (struct fb_vm_events){ .setup_error = 1 };
	CHECKF(fb_vm_outcome(&e) == FB_OUT_SETUP && fb_vm_exit_code(FB_OUT_SETUP, 0) == 126,
	       "guest setup error: 126");
	e = (struct fb_vm_events){ .kvm_err = 1, .started = 1 };
	CHECKF(fb_vm_outcome(&e) == FB_OUT_KVM, "KVM internal error reported as such");
	e = (struct fb_vm_events){ .have_rc = 1, .rc = 0, .qemu_failed = 1 };
	CHECKF(fb_vm_outcome(&e) == FB_OUT_RC,
	       "an exit status that came back wins over qemu's own exit code");
}

int main(void)
{
	test_argv();
	test_argv_bounds();
	test_cmdline();
	test_splats();
	test_outcome();
	return tap_done();
}
