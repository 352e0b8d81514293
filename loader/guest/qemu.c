// SPDX-License-Identifier: GPL-2.0
/*
 * qemu.c - the qemu command line of a guest, from a spec, with bounds
 * checks; pure (no I/O) so that tests/unit/test_vm.c covers every option.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "guest/qemu.h"
#include "util/util.h"

#define MSIZE	"512000"

void fb_argv_init(struct fb_argv *a)
{
	memset(a, 0, sizeof(*a));
}

static void argv_put(struct fb_argv *a, const char *s, size_t len)
{
	char *dst;

	if (a->n == FB_ARGV_MAX || a->used + len + 1 > sizeof(a->store)) {
		a->overflow = 1;
		return;
	}
	dst = a->store + a->used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	a->used += len + 1;
	a->v[a->n++] = dst;
	a->v[a->n] = NULL;
}

void fb_argv_add(struct fb_argv *a, const char *s)
{
	argv_put(a, s, strlen(s));
}

void fb_argv_addf(struct fb_argv *a, const char *fmt, ...)
{
	char buf[FB_ARGV_STORE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		a->overflow = 1;
		return;
	}
	argv_put(a, buf, (size_t)n);
}

/* One virtio-9p share: the -fsdev/-device pair, written once. */
static void add_9p(struct fb_argv *a, const char *id, const char *path, const char *extra)
{
	fb_argv_add(a, "-fsdev");
	fb_argv_addf(a, "local,id=%s,path=%s,security_model=none%s", id, path, extra);
	fb_argv_add(a, "-device");
	fb_argv_addf(a, "virtio-9p-pci,fsdev=%s,mount_tag=%s", id, id);
}

/* One virtio-serial port fed into FIFO DIR/NAME.{in,out}. */
static void add_port(struct fb_argv *a, const char *dir, const char *name, int nr)
{
	fb_argv_add(a, "-chardev");
	fb_argv_addf(a, "pipe,id=fb%s,path=%s/%s", name, dir, name);
	fb_argv_add(a, "-device");
	fb_argv_addf(a, "virtserialport,bus=vser.0,nr=%d,chardev=fb%s,name=fb.%s", nr, name, name);
}

static int check_spec(const struct fb_qemu_spec *q, char *why, size_t wlen)
{
	const char *paths[] = { q->results, q->share, q->console, q->fifo_dir, q->qlog,
				q->initrd };

	if (q->plugin && q->clock != FB_CLOCK_ICOUNT) {
		fb_fmt(why, wlen, "a TCG plugin observer needs --clock icount");
		return -1;
	}

	if (q->shift < 0 || q->shift > FB_ICOUNT_SHIFT_MAX) {
		fb_fmt(why, wlen, "icount shift %d is not in 0..%d", q->shift, FB_ICOUNT_SHIFT_MAX);
		return -1;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (paths[i] && strchr(paths[i], ',')) {
			fb_fmt(why, wlen, "paths in qemu options must not contain ',' (%s)",
			       paths[i]);
			return -1;
		}
	return 0;
}

static void add_machine(struct fb_argv *a, const struct fb_qemu_spec *q)
{
	const char *fixed[] = { "-name", "foliobench", "-nodefaults", "-no-user-config",
				"-display", "none", "-no-reboot", "-machine", "pc" };

	fb_argv_add(a, q->qemu);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		fb_argv_add(a, fixed[i]);
	fb_argv_add(a, "-accel");
	if (q->clock == FB_CLOCK_ICOUNT) {
		/* icount is only defined for one TCG thread */
		fb_argv_add(a, "tcg,thread=single");
		fb_argv_add(a, "-icount");
		fb_argv_addf(a, "shift=%d,sleep=off", q->shift);
	} else {
		fb_argv_add(a, q->accel);
	}
	fb_argv_add(a, "-cpu");
	fb_argv_add(a, strcmp(q->accel, "kvm") ? "max" : "host");
	fb_argv_add(a, "-smp");
	fb_argv_addf(a, "%d", q->smp);
	fb_argv_add(a, "-m");
	fb_argv_add(a, q->mem);
}

int fb_qemu_argv(struct fb_argv *a, const struct fb_qemu_spec *q, char *why, size_t wlen)
{
	fb_argv_init(a);
	if (check_spec(q, why, wlen) < 0)
		return -1;
	add_machine(a, q);
	fb_argv_add(a, "-kernel");
	fb_argv_add(a, q->kernel);
	if (q->initrd) {
		fb_argv_add(a, "-initrd");
		fb_argv_add(a, q->initrd);
	}
	fb_argv_add(a, "-append");
	fb_argv_add(a, q->cmdline);
	fb_argv_add(a, "-chardev");
	fb_argv_addf(a, "file,id=con,path=%s", q->console);
	fb_argv_add(a, "-serial");
	fb_argv_add(a, "chardev:con");
	add_9p(a, "fbroot", "/", ",readonly=on,multidevs=remap");
	add_9p(a, "fbres", q->results, ",multidevs=remap");
	add_9p(a, "fbctl", q->share, "");
	fb_argv_add(a, "-device");
	fb_argv_add(a, "virtio-serial-pci,id=vser");
	add_port(a, q->fifo_dir, "out", 1);
	add_port(a, q->fifo_dir, "err", 2);
	if (q->plugin) {
		fb_argv_add(a, "-plugin");
		fb_argv_add(a, q->plugin);
	}
	fb_argv_add(a, "-d");
	fb_argv_add(a, "cpu_reset");	/* logs "Triple fault" (TCG) */
	fb_argv_add(a, "-D");
	fb_argv_add(a, q->qlog);
	if (a->overflow) {
		fb_fmt(why, wlen, "the qemu command line is longer than %d arguments or %d bytes",
		       FB_ARGV_MAX, FB_ARGV_STORE);
		return -1;
	}
	return 0;
}

int fb_vm_cmdline(char *buf, size_t len, enum fb_clock clock, int shift,
		  const char *append, const char *init, char *why, size_t wlen)
{
	char clk[96] = "";
	int n;

	if (strpbrk(init, " \t\n\"")) {
		fb_fmt(why, wlen, "%s: the kernel command line cannot carry a path with blanks",
		       init);
		return -1;
	}
	if (clock == FB_CLOCK_ICOUNT)
		fb_fmt(clk, sizeof(clk), " foliobench.clock=icount foliobench.icount_shift=%d",
		       shift);
	n = snprintf(buf, len,
		     "console=ttyS0 oops=panic panic=-1 no_timer_check tsc=reliable acpi=noirq "
		     "root=fbroot rootfstype=9p "
		     "rootflags=trans=virtio,version=9p2000.L,msize=" MSIZE
		     ",cache=loose ro init=/bin/sh%s%s%s -- %s",
		     clk, append && *append ? " " : "", append ? append : "", init);
	if (n < 0 || (size_t)n >= len || n > FB_CMDLINE_MAX) {
		fb_fmt(why, wlen, "the kernel command line is longer than the %d bytes the guest "
		       "kernel keeps (x86 COMMAND_LINE_SIZE)", FB_CMDLINE_MAX);
		return -1;
	}
	return 0;
}
