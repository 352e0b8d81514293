// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - `foliobench vm`: boot a kernel under qemu with the host's root
 * read-only over 9p and run one command in it.
 *
 * Shares (virtio-9p): fbroot = / (read-only, the guest's root), fbres = the
 * results directory (read-write, mounted at the same path in the guest),
 * fbctl = a private temporary directory holding the job (cwd, env, argv as
 * a quoted shell script) and, when the command has run, its exit status.
 * The command's stdout/stderr come back on two virtio-serial ports relayed
 * to ours; the kernel console (ttyS0) goes to a log file that is scanned for
 * panics, oopses, WARN/BUG and lockdep splats when the guest is gone.
 * scripts/guest-init.sh is the guest's init.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/fb.h"
#include "guest/outcome.h"
#include "guest/qemu.h"
#include "guest/kernel.h"
#include "guest/observer.h"
#include "guest/stock.h"
#include "guest/vm.h"
#include "guest/vm_kvm.h"
#include "guest/vm_log.h"
#include "guest/vmio.h"

#define QEMU		"qemu-system-x86_64"
#define GRACE_S		15	/* after rc appears, time allowed to power off */


static volatile sig_atomic_t vm_sig;
/* The KVM probe boot: failures are a verdict, not errors; why in vm_reason. */
static int vm_silent;
static char vm_reason[512];

static void vm_fail(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void vm_fail(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(vm_reason, sizeof(vm_reason), f, ap);
	va_end(ap);
	if (!vm_silent)
		fb_err("vm: %s", vm_reason);
}

static void vm_on_signal(int sig)
{
	vm_sig = sig;
	fb_stop = 1;
}

static const char *resolve_bzimage(const char *k, char *buf, size_t len)
{
	struct stat st;

	if (stat(k, &st) < 0) {
		fb_err("vm: kernel %s: %s", k, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		fb_fmt(buf, len, "%s/bzImage", k);
		if (access(buf, R_OK) < 0) {
			fb_err("vm: no readable bzImage in %s", k);
			return NULL;
		}
	} else {
		fb_fmt(buf, len, "%s", k);
	}
	if (access(buf, R_OK) < 0) {
		fb_err("vm: kernel %s: %s", buf, strerror(errno));
		return NULL;
	}
	return buf;
}

/* ---- console log: splats (vm_log.c) ---- */

/*
 * Scans the console log; on a splat line no --allow regex matches, prints
 * one error line and an excerpt around it and returns 1, else 0.
 */
static int scan_splats(const char *log, const struct fb_vm_opts *o, const char *why)
{
	char line[512];
	int found = fb_vm_log_splat(log, o->allow, o->nallow, line, sizeof(line));

	if (found < 0)
		return 0;
	vm_fail("guest kernel %s: %s (console log %s)", why, line, log);
	if (!vm_silent)
		fb_vm_log_excerpt(log, found);
	return 1;
}

/* ---- the boot: setup, spawn, poll, collect, report, cleanup ---- */

struct vm_boot {
	struct fb_vm_opts *o;
	struct fb_vm_obs *ob;	/* the plugin observer, or NULL */
	const char *bz, *initrd, *accel;
	int kvm_check;
	char tmpl[PATH_MAX], share[PATH_MAX], cwd[PATH_MAX], results[PATH_MAX];
	char log[PATH_MAX], init[PATH_MAX], qlog[PATH_MAX], cmdline[4096];
	struct relay rl[3];
	int wfd[2], qerr[2];
	pid_t pid;
	int status, exited, lingered;
	uint64_t t0, rc_at;
	struct fb_vm_events ev;
	struct sigaction old_int, old_term, old_hup, old_pipe;
	struct fb_argv qa;
};

static double secs_since(uint64_t t0)
{
	return (double)(fb_now_ns() - t0) / 1e9;
}

static int smp_of(const struct fb_vm_opts *o)
{
	return o->smp > 0 ? o->smp : (o->clock == FB_CLOCK_ICOUNT ? 1 : 2);
}

static int timeout_of(const struct fb_vm_opts *o)
{
	return o->timeout > 0 ? o->timeout : 600;
}

/* The console log path, created empty (qemu opens it itself). */
static int open_log(struct vm_boot *b)
{
	char ts[32];
	int fd;

	if (b->o->log) {
		fb_fmt(b->log, sizeof(b->log), "%s", b->o->log);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
		fb_fmt(b->log, sizeof(b->log), "%s/console-%s-%d.log", b->results, ts,
		       (int)getpid());
	}
	fd = open(b->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fb_err("vm: console log %s: %s", b->log, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* Paths of this boot: init script, cwd, results directory, console log. */
static int vm_paths(struct vm_boot *b)
{
	const char *res = b->o->results ? b->o->results : "results";
	char repo[PATH_MAX];

	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return -1;
	fb_fmt(b->init, sizeof(b->init), "%s/scripts/guest-init.sh", repo);
	if (access(b->init, R_OK) < 0) {
		fb_err("vm: %s: %s", b->init, strerror(errno));
		return -1;
	}
	if (!getcwd(b->cwd, sizeof(b->cwd))) {
		fb_err("vm: getcwd: %s", strerror(errno));
		return -1;
	}
	if (fb_mkdir_p(res) < 0 || !realpath(res, b->results)) {
		fb_err("vm: results directory %s: %s", res, strerror(errno));
		return -1;
	}
	return open_log(b);
}

/* The private directory: job file, relay FIFOs, qemu's stderr pipe. */
static int vm_share(struct vm_boot *b, char *const argv[])
{
	const char *tmpdir = getenv("TMPDIR");
	char p[PATH_MAX];

	fb_fmt(b->tmpl, sizeof(b->tmpl), "%s/foliobench-vm.XXXXXX",
	       tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(b->tmpl)) {
		fb_err("vm: mkdtemp %s: %s", b->tmpl, strerror(errno));
		b->tmpl[0] = '\0';
		return -1;
	}
	fb_fmt(b->share, sizeof(b->share), "%s/share", b->tmpl);
	fb_fmt(p, sizeof(p), "%s/job", b->share);
	if (mkdir(b->share, 0755) < 0 || vmio_write_job(p, b->cwd, b->results, argv) < 0) {
		fb_err("vm: cannot write the job to %s: %s", b->share, strerror(errno));
		return -1;
	}
	if (vmio_fifo_pair(b->tmpl, "out", &b->rl[0].fd, &b->wfd[0]) < 0 ||
	    vmio_fifo_pair(b->tmpl, "err", &b->rl[1].fd, &b->wfd[1]) < 0 ||
	    pipe2(b->qerr, O_CLOEXEC) < 0) {
		fb_err("vm: cannot create the relay FIFOs in %s: %s", b->tmpl, strerror(errno));
		return -1;
	}
	b->rl[0].dst = STDOUT_FILENO;
	b->rl[1].dst = STDERR_FILENO;
	b->rl[2].fd = b->qerr[0];
	b->rl[2].keep_cap = 16384;
	b->rl[2].keep = calloc(1, b->rl[2].keep_cap);
	if (!b->rl[2].keep) {
		fb_err("vm: out of memory");
		return -1;
	}
	fcntl(b->qerr[0], F_SETFL, O_NONBLOCK);
	fb_fmt(b->qlog, sizeof(b->qlog), "%s/qemu.log", b->tmpl);
	return 0;
}

static int vm_argv(struct vm_boot *b)
{
	const struct fb_vm_opts *o = b->o;
	char why[PATH_MAX + 128], app[2048];
	struct fb_qemu_spec q = {
		.qemu = QEMU, .accel = b->accel, .clock = o->clock, .shift = o->icount_shift,
		.smp = smp_of(o), .mem = o->mem ? o->mem : "2G", .kernel = b->bz,
		.initrd = b->initrd,
		.cmdline = b->cmdline, .results = b->results, .share = b->share,
		.console = b->log, .fifo_dir = b->tmpl, .qlog = b->qlog,
		.plugin = b->ob && b->ob->arg[0] ? b->ob->arg : NULL,
	};

	fb_fmt(app, sizeof(app), "%s %s", o->append ? o->append : "", fb_vm_obs_cmdline(o, b->ob));
	if (fb_vm_cmdline(b->cmdline, sizeof(b->cmdline), o->clock, o->icount_shift,
			  app, b->init, why, sizeof(why)) < 0 ||
	    fb_qemu_argv(&b->qa, &q, why, sizeof(why)) < 0) {
		fb_err("vm: %s", why);
		return -1;
	}
	if (fb_verbose()) {
		fprintf(stderr, "foliobench: vm: qemu command:");
		for (int i = 0; i < b->qa.n; i++)
			fprintf(stderr, " '%s'", b->qa.v[i]);
		fputc('\n', stderr);
	}
	return 0;
}

static void vm_signals(struct vm_boot *b)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = vm_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &b->old_int);
	sigaction(SIGTERM, &sa, &b->old_term);
	sigaction(SIGHUP, &sa, &b->old_hup);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &b->old_pipe);
	vm_sig = 0;
}

static void vm_signals_restore(struct vm_boot *b)
{
	sigaction(SIGINT, &b->old_int, NULL);
	sigaction(SIGTERM, &b->old_term, NULL);
	sigaction(SIGHUP, &b->old_hup, NULL);
	sigaction(SIGPIPE, &b->old_pipe, NULL);
}

/* qemu in a process group of its own that dies with us. */
static int vm_spawn(struct vm_boot *b)
{
	fflush(NULL);
	b->t0 = fb_now_ns();
	b->pid = fork();
	if (b->pid < 0) {
		fb_err("vm: fork: %s", strerror(errno));
		return -1;
	}
	if (b->pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		dup2(nul, STDIN_FILENO);
		dup2(nul, STDOUT_FILENO);
		dup2(b->qerr[1], STDERR_FILENO);
		execvp(QEMU, (char *const *)b->qa.v);
		dprintf(STDERR_FILENO, "cannot execute %s: %s\n", QEMU, strerror(errno));
		_exit(127);
	}
	setpgid(b->pid, b->pid);
	close(b->qerr[1]);
	b->qerr[1] = -1;
	if (!b->o->quiet)
		fb_info("vm: booting %s%s%s (%s, %s clock, %d CPUs, %s), console log %s", b->bz,
			b->initrd ? " with " : "", b->initrd ? b->initrd : "", b->accel,
			fb_clock_name(b->o->clock), smp_of(b->o), b->o->mem ? b->o->mem : "2G",
			b->log);
	return 0;
}

static int share_has(const struct vm_boot *b, const char *name)
{
	char p[PATH_MAX];

	fb_fmt(p, sizeof(p), "%s/%s", b->share, name);
	return vmio_exists(p);
}

/* One look at the guest: 1 to stop polling. */
static int vm_look(struct vm_boot *b)
{
	if (vmio_exited(b->pid)) {
		b->exited = 1;
		return 1;
	}
	if (!b->ev.started && share_has(b, "started")) {
		b->ev.started = 1;
		b->o->boot_s = secs_since(b->t0);
	}
	if (!b->rc_at) {
		if (share_has(b, "rc") || share_has(b, "setup-error"))
			b->rc_at = fb_now_ns();
	} else if (secs_since(b->rc_at) > GRACE_S) {
		b->lingered = 1;
		return 1;
	}
	if (b->kvm_check && strstr(b->rl[2].keep, "KVM internal error")) {
		b->ev.kvm_err = 1;
		return 1;
	}
	if (vm_sig)
		return 1;
	if (secs_since(b->t0) > timeout_of(b->o)) {
		b->ev.timed_out = 1;
		return 1;
	}
	return 0;
}

/* Relays the guest's output until it ends, times out or we are stopped. */
static void vm_poll(struct vm_boot *b)
{
	for (;;) {
		struct pollfd pf[3];
		int np = 0, idx[3];

		for (int i = 0; i < 3; i++) {
			if (b->rl[i].fd < 0)
				continue;
			pf[np].fd = b->rl[i].fd;
			pf[np].events = POLLIN;
			idx[np++] = i;
		}
		if (poll(pf, (nfds_t)np, 100) > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					vmio_relay_read(&b->rl[idx[i]]);
		if (vm_look(b))
			break;
	}
}

/* qemu gone (killed if needed), output drained, events filled in. */
static void vm_collect(struct vm_boot *b)
{
	char p[PATH_MAX], buf[64];

	if (!b->exited)
		vmio_kill_group(b->pid, &b->status);
	else
		vmio_reap(b->pid, &b->status);	/* and stray children, if any */
	b->o->total_s = secs_since(b->t0);
	for (int i = 0; i < 2; i++) {
		close(b->wfd[i]);
		b->wfd[i] = -1;
	}
	for (int i = 0; i < 3; i++) {
		for (int n = 0; b->rl[i].fd >= 0 && n < 64; n++)
			vmio_relay_read(&b->rl[i]);
		if (b->rl[i].fd >= 0) {
			close(b->rl[i].fd);
			b->rl[i].fd = -1;
		}
	}
	fb_fmt(p, sizeof(p), "%s/rc", b->share);
	if (fb_read_file(p, buf, sizeof(buf)) > 0) {
		b->ev.have_rc = 1;
		b->ev.rc = atoi(buf);
	}
	b->ev.sig = vm_sig;
	b->ev.qemu_failed = b->exited &&
		(!WIFEXITED(b->status) || WEXITSTATUS(b->status));
	b->ev.setup_error = share_has(b, "setup-error");
}

static void show_tail(const struct vm_boot *b, int n)
{
	if (!vm_silent)
		vmio_print_tail(b->log, n);
}

static void report_qemu_failure(struct vm_boot *b)
{
	char *e = b->rl[2].keep ? b->rl[2].keep : "";
	size_t el = strlen(e);
	int st = b->status;

	while (el && (e[el - 1] == '\n' || e[el - 1] == ' '))
		e[--el] = '\0';
	vm_fail("qemu failed (%s %d)%s%s", WIFEXITED(st) ? "exit" : "signal",
		WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), *e ? ": " : "", e);
}

static void report_nocmd(struct vm_boot *b)
{
	char p[PATH_MAX], buf[256];

	fb_fmt(p, sizeof(p), "%s/setup-error", b->share);
	if (fb_read_file(p, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		vm_fail("guest setup failed: %s (console log %s)", buf, b->log);
		return;
	}
	vm_fail("guest stopped without running the command (console log %s)", b->log);
	show_tail(b, 15);
}

/* One error line (and an excerpt) for the outcome. */
static void report_outcome(struct vm_boot *b, enum fb_vm_outcome out)
{
	switch (out) {
	case FB_OUT_INTR:
		fb_err("vm: interrupted by signal %d, guest killed", b->ev.sig);
		break;
	case FB_OUT_KVM:
		vm_fail("qemu: %s", strstr(b->rl[2].keep, "KVM internal error"));
		break;
	case FB_OUT_QEMU:
		report_qemu_failure(b);
		break;
	case FB_OUT_TIMEOUT:
		vm_fail("timeout: guest still running after %ds, qemu killed (console log %s)",
			timeout_of(b->o), b->log);
		if (!scan_splats(b->log, b->o, "splat before the timeout"))
			show_tail(b, 10);
		break;
	case FB_OUT_SPLAT:
		scan_splats(b->log, b->o, "panic/oops/warning");
		break;
	case FB_OUT_RC:
		if (b->lingered && !b->o->quiet)
			fb_info("vm: guest did not power off within %ds of the command's end; killed",
				GRACE_S);
		break;
	case FB_OUT_TRIPLE:
		vmio_triple_fault(b->qlog, b->log, 1);
		vm_fail("guest kernel triple-faulted (qemu: \"Triple fault\", nothing in the console) %s the command (console log %s)",
			b->ev.started ? "while running" : "before running", b->log);
		show_tail(b, 12);
		break;
	case FB_OUT_RESET:
		vm_fail("guest reset or powered off while the command ran: no exit status, no splat in the console log %s",
			b->log);
		show_tail(b, 15);
		break;
	case FB_OUT_SETUP:
	case FB_OUT_NOCMD:
		report_nocmd(b);
		break;
	}
}

static int vm_finish(struct vm_boot *b)
{
	enum fb_vm_outcome out;
	int ret;

	b->ev.splat = !b->ev.sig && !b->ev.kvm_err && fb_vm_log_splat(b->log, b->o->allow, b->o->nallow, NULL, 0) >= 0;
	b->ev.triple_fault = vmio_triple_fault(b->qlog, b->log, 0);
	out = fb_vm_outcome(&b->ev);
	ret = fb_vm_exit_code(out, b->ev.rc);
	report_outcome(b, out);
	if (!b->o->quiet && !vm_sig && b->ev.started) {
		char p[PATH_MAX], buf[64];
		double up = 0;

		fb_fmt(p, sizeof(p), "%s/started", b->share);
		if (fb_read_file(p, buf, sizeof(buf)) > 0)
			up = atof(buf);
		fb_info("vm: exit %d; boot to command %.1fs (guest uptime %.1fs), total %.1fs",
			ret, b->o->boot_s, up, b->o->total_s);
	} else if (!b->o->quiet && !vm_sig) {
		fb_info("vm: exit %d after %.1fs", ret, b->o->total_s);
	}
	return ret;
}

static void vm_cleanup(struct vm_boot *b)
{
	for (int i = 0; i < 3; i++)
		if (b->rl[i].fd >= 0)
			close(b->rl[i].fd);
	for (int i = 0; i < 2; i++) {
		if (b->wfd[i] >= 0)
			close(b->wfd[i]);
		if (b->qerr[i] >= 0)
			close(b->qerr[i]);
	}
	free(b->rl[2].keep);
	if (b->tmpl[0])
		vmio_rm_tree(b->tmpl);
}

/*
 * One boot with a fixed accel.  kvm_check: this is the KVM probe; stop as
 * soon as qemu reports a KVM internal error.
 */
static int vm_boot(struct fb_vm_opts *o, struct fb_vm_obs *ob, const char *bz,
		   const char *initrd, const char *accel, int kvm_check, char *const argv[])
{
	struct vm_boot *b = calloc(1, sizeof(*b));
	int ret = FB_VM_NOSTART;

	if (!b) {
		fb_err("vm: out of memory");
		return FB_VM_NOSTART;
	}
	*b = (struct vm_boot){ .o = o, .ob = ob, .bz = bz, .initrd = initrd, .accel = accel,
			       .kvm_check = kvm_check,
			       .rl = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } },
			       .wfd = { -1, -1 }, .qerr = { -1, -1 }, .pid = -1 };
	if (vm_paths(b) < 0) {
		free(b);
		return FB_VM_NOSTART;
	}
	if (vm_share(b, argv) == 0 && (!ob || fb_vm_obs_setup(ob, b->tmpl) == 0) &&
	    vm_argv(b) == 0) {
		vm_signals(b);
		if (vm_spawn(b) == 0) {
			vm_poll(b);
			vm_collect(b);
			ret = vm_finish(b);
			if (ob)
				ret = fb_vm_obs_finish(o, ob, b->log, ret);
		}
		vm_signals_restore(b);
	}
	vm_cleanup(b);
	free(b);
	return ret;
}

/* The KVM probe boot (vm_kvm.c): quiet, failures are a verdict; why in reason. */
static int probe_boot(struct fb_vm_opts *o, const char *bz, const char *initrd,
		      char *reason, size_t len)
{
	char *const t[] = { "true", NULL };
	int r;

	vm_silent = 1;
	vm_reason[0] = '\0';
	r = vm_boot(o, NULL, bz, initrd, "kvm", 1, t);
	vm_silent = 0;
	fb_fmt(reason, len, "%s", vm_reason);
	return r;
}

int fb_vm_run(struct fb_vm_opts *o, char *const argv[])
{
	char bz[PATH_MAX], ird[PATH_MAX], why[PATH_MAX + 128];
	const char *initrd;
	const char *accel = o->accel ? o->accel : "auto";
	struct fb_vm_obs ob;
	int ret;

	o->boot_s = o->total_s = 0;
	/* Closed stdio (CI, daemons) must not be reused by our FIFOs. */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0)
			return FB_VM_NOSTART;
	if (!argv || !argv[0]) {
		fb_err("vm: no command to run");
		return FB_VM_NOSTART;
	}
	if (!o->kernel || !resolve_bzimage(o->kernel, bz, sizeof(bz))) {
		if (!o->kernel)
			fb_err("vm: no kernel given (--kernel)");
		return FB_VM_NOSTART;
	}
	initrd = fb_stock_initrd(bz, ird, sizeof(ird)) ? ird : NULL;
	ret = fb_vm_obs_check(o, bz, &ob);	/* --observer plugin: before any work */
	if (ret)
		return ret;
	if (o->clock == FB_CLOCK_ICOUNT && !strcmp(accel, "auto")) {
		accel = "tcg";	/* icount exists only where qemu translates */
	} else if (!strcmp(accel, "auto")) {
		accel = fb_vm_kvm_usable(o, bz, initrd, probe_boot, why, sizeof(why)) ? "kvm" : "tcg";
		if (fb_stop) {
			fb_vm_obs_free(&ob);
			return FB_VM_INTR;
		}
		if (!o->quiet)
			fb_info("vm: using %s: %s", accel, why);
	}
	ret = vm_boot(o, ob.spec ? &ob : NULL, bz, initrd, accel, 0, argv);
	fb_vm_obs_free(&ob);
	return ret;
}

