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
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
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
#include "guest/vm.h"

#define QEMU		"qemu-system-x86_64"
#define MSIZE		"512000"
#define GRACE_S		15	/* after rc appears, time allowed to power off */
#define EXCERPT_BEFORE	4
#define EXCERPT_AFTER	20

extern char **environ;

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

static const char *cache_dir(void)
{
	const char *c = getenv("FB_CACHE");

	return c && *c ? c : "/var/cache/foliobench";
}

/* ---- small helpers ---- */

static void shq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	if (remove(path) < 0)
		fb_err("vm: cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* Removes the private control directory and whatever the guest left in it. */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* First line of `qemu-system-x86_64 --version`. */
static void qemu_version(char *buf, size_t len)
{
	FILE *f = popen(QEMU " --version 2>/dev/null", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	pclose(f);
}

/* ---- splat scanning ---- */

static const char *const splat_res[] = {
	"Kernel panic",
	"(^|[^A-Za-z_])BUG:",
	"kernel BUG at",
	"(^|[^A-Za-z_])WARNING:",
	"(^|[^A-Za-z_])Oops[: ]",
	"general protection fault",
	"Unable to handle kernel",
	"possible circular locking",
	"possible recursive locking",
	"(^|[^A-Za-z_])INFO: ",
	"UBSAN:",
	"DEBUG_LOCKS_WARN_ON",
	"turning off the locking correctness validator",
	"Call Trace:",	/* a stack dump without one of the headers above */
	NULL,
};
#define CALL_TRACE_RE	"Call Trace:"
#define ALLOWED_SPAN	100	/* lines of an allowed splat's body */

/* Drops the "[    1.234567] " printk time prefix. */
static const char *strip_ts(const char *l)
{
	if (*l != '[')
		return l;
	const char *e = strchr(l, ']');

	if (!e)
		return l;
	e++;
	while (*e == ' ')
		e++;
	return e;
}

/*
 * Scans the console log; on a splat line no --allow regex matches, prints
 * one error line and an excerpt around it and returns 1, else 0.
 */
static int scan_splats(const char *log, const struct fb_vm_opts *o,
		       const char *why)
{
	regex_t res[32], allow[FB_VM_MAX_ALLOW];
	int nres = 0, nallow = 0, found = -1, nlines = 0, cap = 0;
	char **lines = NULL, *line = NULL;
	size_t n = 0;
	ssize_t len;
	FILE *f;

	f = fopen(log, "r");
	if (!f)
		return 0;
	while ((len = getline(&line, &n, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (nlines == cap) {
			cap = cap ? cap * 2 : 1024;
			lines = realloc(lines, (size_t)cap * sizeof(*lines));
			if (!lines) {
				fclose(f);
				free(line);
				return 0;
			}
		}
		lines[nlines++] = strdup(line);
	}
	free(line);
	fclose(f);

	for (int i = 0; splat_res[i]; i++)
		if (!regcomp(&res[nres], splat_res[i], REG_EXTENDED | REG_NOSUB))
			nres++;
	for (int i = 0; i < o->nallow; i++)
		if (!regcomp(&allow[nallow], o->allow[i], REG_EXTENDED | REG_NOSUB))
			nallow++;

	for (int i = 0, quiet_until = -1; i < nlines && found < 0; i++) {
		const char *l = lines[i] ? strip_ts(lines[i]) : "";
		int hit = 0;

		for (int r = 0; r < nres && !hit; r++)
			hit = !regexec(&res[r], l, 0, NULL, 0);
		if (!hit)
			continue;
		/* the stack dump of an allowed splat is allowed too */
		if (i <= quiet_until && strstr(l, CALL_TRACE_RE))
			continue;
		for (int a = 0; a < nallow && hit; a++)
			if (!regexec(&allow[a], lines[i], 0, NULL, 0))
				hit = 0;
		if (hit)
			found = i;
		else
			quiet_until = i + ALLOWED_SPAN;
	}

	if (found >= 0) {
		int from = found > EXCERPT_BEFORE ? found - EXCERPT_BEFORE : 0;
		int to = found + EXCERPT_AFTER < nlines ? found + EXCERPT_AFTER : nlines;

		vm_fail("guest kernel %s: %s (console log %s)", why,
			strip_ts(lines[found]), log);
		if (!vm_silent) {
			fprintf(stderr, "---- console excerpt (lines %d-%d) ----\n",
				from + 1, to);
			for (int i = from; i < to; i++)
				fprintf(stderr, "%s\n", lines[i] ? lines[i] : "");
			fprintf(stderr, "----\n");
		}
	}
	for (int i = 0; i < nres; i++)
		regfree(&res[i]);
	for (int i = 0; i < nallow; i++)
		regfree(&allow[i]);
	for (int i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	return found >= 0;
}

static void print_tail(const char *log, int n)
{
	char *buf = malloc(1 << 20);
	int len, start, cnt = 0;

	if (!buf)
		return;
	len = fb_read_file(log, buf, 1 << 20);
	if (len <= 0 || vm_silent) {
		free(buf);
		return;
	}
	start = len;
	while (start > 0 && cnt <= n) {
		start--;
		if (buf[start] == '\n' && start != len - 1)
			cnt++;
	}
	if (buf[start] == '\n')
		start++;
	fprintf(stderr, "---- last console lines (%s) ----\n%s%s----\n", log,
		buf + start, buf[len - 1] == '\n' ? "" : "\n");
	free(buf);
}

/* ---- the boot ---- */

struct relay {
	int fd;		/* our read end of a FIFO, -1 when done */
	int dst;	/* where the bytes go */
	char *keep;	/* or kept here (qemu's stderr) */
	size_t keep_len, keep_cap;
};

static void relay_read(struct relay *r)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(r->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(r->fd);
			r->fd = -1;
			return;
		}
		if (r->keep) {
			size_t room = r->keep_cap - 1 - r->keep_len;

			if ((size_t)n > room)
				n = (ssize_t)room;
			memcpy(r->keep + r->keep_len, buf, (size_t)n);
			r->keep_len += (size_t)n;
			r->keep[r->keep_len] = '\0';
			continue;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(r->dst, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;	/* reader gone: drop */
			off += w;
		}
	}
}

/* Opens our ends of FIFO base.out (read) and base.in (kept for qemu). */
static int make_fifo_pair(const char *dir, const char *name, int *rfd, int *wfd)
{
	char in[PATH_MAX], out[PATH_MAX];

	fb_fmt(in, sizeof(in), "%s/%s.in", dir, name);
	fb_fmt(out, sizeof(out), "%s/%s.out", dir, name);
	if (mkfifo(in, 0600) < 0 || mkfifo(out, 0600) < 0)
		return -1;
	*rfd = open(out, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*rfd < 0)
		return -1;
	/* A writer of our own: no EOF before we stop reading. */
	*wfd = open(out, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (*wfd < 0)
		return -1;
	return 0;
}

/*
 * 1 once qemu (pid) has exited; it stays a zombie, so its pid and process
 * group id cannot be reused before reap().
 */
static int exited_nowait(pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

/* Kills what is left of qemu's process group and reaps qemu. */
static void reap(pid_t pid, int *status)
{
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* SIGTERM to qemu's group, SIGKILL after 3 s; reaps qemu. */
static void kill_group(pid_t pid, int *status)
{
	kill(-pid, SIGTERM);
	for (int i = 0; i < 30 && !exited_nowait(pid); i++)
		usleep(100000);
	reap(pid, status);
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

static int write_job(const char *path, const char *cwd, const char *results,
		     char *const argv[])
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("# written by foliobench vm, sourced by guest-init.sh\nFB_CWD=", f);
	shq(f, cwd);
	fputs("\nFB_RESULTS=", f);
	shq(f, results);
	fputc('\n', f);
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t nl;

		if (strncmp(*e, "FB_", 3) || !eq)
			continue;
		nl = (size_t)(eq - *e);
		if (nl == 9 && !strncmp(*e, "FB_RESULTS", 9))
			continue;
		/* only names the shell accepts */
		if (strspn(*e, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != nl)
			continue;
		fprintf(f, "export %.*s=", (int)nl, *e);
		shq(f, eq + 1);
		fputc('\n', f);
	}
	fputs("set --", f);
	for (int i = 0; argv[i]; i++) {
		fputc(' ', f);
		shq(f, argv[i]);
	}
	fputc('\n', f);
	return fclose(f) ? -1 : 0;
}

/*
 * qemu's -d cpu_reset log says "Triple fault" when the guest kernel crashed
 * too hard to print anything (TCG).  Notes it at the end of the console log
 * (with whatever qemu logged after it); 1 if there was one.
 */
static int triple_fault(const char *qlog, const char *log)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap), *tf;
	int len, found = 0;
	FILE *f;

	if (!buf)
		return 0;
	len = fb_read_file(qlog, buf, cap);
	tf = len > 0 ? strstr(buf, "Triple fault") : NULL;
	if (tf) {
		found = 1;
		f = fopen(log, "a");
		if (f) {
			fprintf(f, "\n---- foliobench: qemu's -d cpu_reset log ----\n%.4000s\n",
				tf);
			fclose(f);
		}
	}
	free(buf);
	return found;
}

static double secs_since(uint64_t t0)
{
	return (double)(fb_now_ns() - t0) / 1e9;
}

/*
 * One boot with a fixed accel.  kvm_check: this is the KVM probe; stop as
 * soon as qemu reports a KVM internal error.
 */
static int vm_boot(struct fb_vm_opts *o, const char *bz, const char *accel,
		   int kvm_check, char *const argv[])
{
	char tmpl[PATH_MAX], share[PATH_MAX], p[PATH_MAX], cwd[PATH_MAX];
	char results[PATH_MAX], log[PATH_MAX], repo[PATH_MAX], init[PATH_MAX];
	char cmdline[4096], smp[16], fs_root[PATH_MAX + 128], fs_res[PATH_MAX + 128];
	char fs_ctl[PATH_MAX + 128], ch_out[PATH_MAX + 64], ch_err[PATH_MAX + 64];
	char ch_con[PATH_MAX + 64], buf[64], qlog[PATH_MAX];
	struct relay rl[3] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	int wfd[2] = { -1, -1 }, qerr[2] = { -1, -1 };
	int ret = FB_VM_NOSTART, status = 0, timed_out = 0, started = 0;
	int have_rc = 0, rc = 0, exited = 0, kvm_err = 0, lingered = 0;
	struct sigaction sa, old_int, old_term, old_hup, old_pipe;
	uint64_t t0, rc_at = 0;
	const char *tmpdir = getenv("TMPDIR");
	pid_t pid = -1;
	const char *qa[64];
	int na = 0;

	if (fb_repo_dir(repo, sizeof(repo)) < 0)
		return FB_VM_NOSTART;
	fb_fmt(init, sizeof(init), "%s/scripts/guest-init.sh", repo);
	if (access(init, R_OK) < 0) {
		fb_err("vm: %s: %s", init, strerror(errno));
		return FB_VM_NOSTART;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		fb_err("vm: getcwd: %s", strerror(errno));
		return FB_VM_NOSTART;
	}
	if (fb_mkdir_p(o->results ? o->results : "results") < 0 ||
	    !realpath(o->results ? o->results : "results", results)) {
		fb_err("vm: results directory %s: %s",
		       o->results ? o->results : "results", strerror(errno));
		return FB_VM_NOSTART;
	}
	if (o->log) {
		fb_fmt(log, sizeof(log), "%s", o->log);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
		fb_fmt(log, sizeof(log), "%s/console-%s-%d.log", results, buf,
		    (int)getpid());
	}
	/* qemu opens the log itself; make sure it can and that it is new. */
	{
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			fb_err("vm: console log %s: %s", log, strerror(errno));
			return FB_VM_NOSTART;
		}
		close(fd);
	}

	fb_fmt(tmpl, sizeof(tmpl), "%s/foliobench-vm.XXXXXX",
	    tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmpl)) {
		fb_err("vm: mkdtemp %s: %s", tmpl, strerror(errno));
		return FB_VM_NOSTART;
	}
	fb_fmt(share, sizeof(share), "%s/share", tmpl);
	fb_fmt(p, sizeof(p), "%s/job", share);
	if (mkdir(share, 0755) < 0 || write_job(p, cwd, results, argv) < 0) {
		fb_err("vm: cannot write the job to %s: %s", share, strerror(errno));
		goto out;
	}
	if (make_fifo_pair(tmpl, "out", &rl[0].fd, &wfd[0]) < 0 ||
	    make_fifo_pair(tmpl, "err", &rl[1].fd, &wfd[1]) < 0 ||
	    pipe2(qerr, O_CLOEXEC) < 0) {
		fb_err("vm: cannot create the relay FIFOs in %s: %s", tmpl,
		       strerror(errno));
		goto out;
	}
	rl[0].dst = STDOUT_FILENO;
	rl[1].dst = STDERR_FILENO;
	rl[2].fd = qerr[0];
	rl[2].keep_cap = 16384;
	rl[2].keep = calloc(1, rl[2].keep_cap);
	if (!rl[2].keep) {
		fb_err("vm: out of memory");
		goto out;
	}
	fcntl(qerr[0], F_SETFL, O_NONBLOCK);

	fb_fmt(cmdline, sizeof(cmdline),
	    "console=ttyS0 oops=panic panic=-1 no_timer_check tsc=reliable acpi=noirq "
	    "root=fbroot rootfstype=9p "
	    "rootflags=trans=virtio,version=9p2000.L,msize=" MSIZE
	    ",cache=loose ro init=/bin/sh%s%s -- %s",
	    o->append && *o->append ? " " : "",
	    o->append ? o->append : "", init);
	fb_fmt(smp, sizeof(smp), "%d", o->smp > 0 ? o->smp : 2);
	fb_fmt(fs_root, sizeof(fs_root),
	    "local,id=fbroot,path=/,security_model=none,readonly=on,multidevs=remap");
	fb_fmt(fs_res, sizeof(fs_res),
	    "local,id=fbres,path=%s,security_model=none,multidevs=remap", results);
	fb_fmt(fs_ctl, sizeof(fs_ctl),
	    "local,id=fbctl,path=%s,security_model=none", share);
	fb_fmt(qlog, sizeof(qlog), "%s/qemu.log", tmpl);
	fb_fmt(ch_con, sizeof(ch_con), "file,id=con,path=%s", log);
	fb_fmt(ch_out, sizeof(ch_out), "pipe,id=fbout,path=%s/out", tmpl);
	fb_fmt(ch_err, sizeof(ch_err), "pipe,id=fberr,path=%s/err", tmpl);
	if (strchr(results, ',') || strchr(log, ',') || strchr(tmpl, ',')) {
		fb_err("vm: paths in qemu options must not contain ',' (%s, %s, %s)",
		       results, log, tmpl);
		goto out;
	}
	if (strpbrk(init, " \t\n\"")) {
		fb_err("vm: %s: the kernel command line cannot carry a path with blanks",
		       init);
		goto out;
	}

	qa[na++] = QEMU;
	qa[na++] = "-name";
	qa[na++] = "foliobench";
	qa[na++] = "-nodefaults";
	qa[na++] = "-no-user-config";
	qa[na++] = "-display";
	qa[na++] = "none";
	qa[na++] = "-no-reboot";
	qa[na++] = "-machine";
	qa[na++] = "pc";
	qa[na++] = "-accel";
	qa[na++] = accel;
	qa[na++] = "-cpu";
	qa[na++] = strcmp(accel, "kvm") ? "max" : "host";
	qa[na++] = "-smp";
	qa[na++] = smp;
	qa[na++] = "-m";
	qa[na++] = o->mem ? o->mem : "2G";
	qa[na++] = "-kernel";
	qa[na++] = bz;
	qa[na++] = "-append";
	qa[na++] = cmdline;
	qa[na++] = "-chardev";
	qa[na++] = ch_con;
	qa[na++] = "-serial";
	qa[na++] = "chardev:con";
	qa[na++] = "-fsdev";
	qa[na++] = fs_root;
	qa[na++] = "-device";
	qa[na++] = "virtio-9p-pci,fsdev=fbroot,mount_tag=fbroot";
	qa[na++] = "-fsdev";
	qa[na++] = fs_res;
	qa[na++] = "-device";
	qa[na++] = "virtio-9p-pci,fsdev=fbres,mount_tag=fbres";
	qa[na++] = "-fsdev";
	qa[na++] = fs_ctl;
	qa[na++] = "-device";
	qa[na++] = "virtio-9p-pci,fsdev=fbctl,mount_tag=fbctl";
	qa[na++] = "-device";
	qa[na++] = "virtio-serial-pci,id=vser";
	qa[na++] = "-chardev";
	qa[na++] = ch_out;
	qa[na++] = "-device";
	qa[na++] = "virtserialport,bus=vser.0,nr=1,chardev=fbout,name=fb.out";
	qa[na++] = "-chardev";
	qa[na++] = ch_err;
	qa[na++] = "-device";
	qa[na++] = "virtserialport,bus=vser.0,nr=2,chardev=fberr,name=fb.err";
	qa[na++] = "-d";
	qa[na++] = "cpu_reset";	/* logs "Triple fault" (TCG) */
	qa[na++] = "-D";
	qa[na++] = qlog;
	qa[na] = NULL;

	if (fb_verbose()) {
		fprintf(stderr, "foliobench: vm: qemu command:");
		for (int i = 0; i < na; i++)
			fprintf(stderr, " '%s'", qa[i]);
		fputc('\n', stderr);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = vm_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);
	vm_sig = 0;

	fflush(NULL);
	t0 = fb_now_ns();
	pid = fork();
	if (pid < 0) {
		fb_err("vm: fork: %s", strerror(errno));
		goto restore;
	}
	if (pid == 0) {
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
		dup2(qerr[1], STDERR_FILENO);
		execvp(QEMU, (char *const *)qa);
		dprintf(STDERR_FILENO, "cannot execute %s: %s\n", QEMU, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(qerr[1]);
	qerr[1] = -1;
	if (!o->quiet)
		fb_info("vm: booting %s (%s, %s CPUs, %s), console log %s", bz,
			accel, smp, o->mem ? o->mem : "2G", log);

	for (;;) {
		struct pollfd pf[3];
		int np = 0, idx[3];

		for (int i = 0; i < 3; i++) {
			if (rl[i].fd < 0)
				continue;
			pf[np].fd = rl[i].fd;
			pf[np].events = POLLIN;
			idx[np++] = i;
		}
		if (poll(pf, (nfds_t)np, 100) > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					relay_read(&rl[idx[i]]);
		if (exited_nowait(pid)) {
			exited = 1;
			break;
		}
		if (!started) {
			fb_fmt(p, sizeof(p), "%s/started", share);
			if (file_exists(p)) {
				started = 1;
				o->boot_s = secs_since(t0);
			}
		}
		if (!rc_at) {
			fb_fmt(p, sizeof(p), "%s/rc", share);
			if (file_exists(p))
				rc_at = fb_now_ns();
			fb_fmt(p, sizeof(p), "%s/setup-error", share);
			if (!rc_at && file_exists(p))
				rc_at = fb_now_ns();
		} else if (secs_since(rc_at) > GRACE_S) {
			lingered = 1;
			break;
		}
		if (kvm_check && rl[2].keep && strstr(rl[2].keep, "KVM internal error")) {
			kvm_err = 1;
			break;
		}
		if (vm_sig)
			break;
		if (secs_since(t0) > (o->timeout > 0 ? o->timeout : 600)) {
			timed_out = 1;
			break;
		}
	}
	if (!exited)
		kill_group(pid, &status);
	else
		reap(pid, &status);	/* and stray children, if any */
	o->total_s = secs_since(t0);
	/* Drain what the guest wrote before it went away. */
	close(wfd[0]);
	close(wfd[1]);
	wfd[0] = wfd[1] = -1;
	for (int i = 0; i < 3; i++) {
		for (int n = 0; rl[i].fd >= 0 && n < 64; n++)
			relay_read(&rl[i]);
		if (rl[i].fd >= 0) {
			close(rl[i].fd);
			rl[i].fd = -1;
		}
	}

	fb_fmt(p, sizeof(p), "%s/rc", share);
	if (fb_read_file(p, buf, sizeof(buf)) > 0) {
		have_rc = 1;
		rc = atoi(buf);
	}

	if (vm_sig) {
		fb_err("vm: interrupted by signal %d, guest killed", (int)vm_sig);
		ret = FB_VM_INTR;
	} else if (kvm_err) {
		vm_fail("qemu: %s", strstr(rl[2].keep, "KVM internal error"));
		ret = FB_VM_NOSTART;
	} else if (!started && !have_rc && !timed_out && exited &&
		   (!WIFEXITED(status) || WEXITSTATUS(status))) {
		char *e = rl[2].keep ? rl[2].keep : "";
		size_t el = strlen(e);

		while (el && (e[el - 1] == '\n' || e[el - 1] == ' '))
			e[--el] = '\0';

		vm_fail("qemu failed (%s %d)%s%s",
			WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			*e ? ": " : "", e);
		ret = FB_VM_NOSTART;
	} else if (timed_out) {
		vm_fail("timeout: guest still running after %ds, qemu killed (console log %s)",
			o->timeout > 0 ? o->timeout : 600, log);
		if (!scan_splats(log, o, "splat before the timeout"))
			print_tail(log, 10);
		ret = FB_VM_TIMEOUT;
	} else if (scan_splats(log, o, "panic/oops/warning")) {
		ret = FB_VM_SPLAT;
	} else if (have_rc) {
		ret = rc;
		if (lingered && !o->quiet)
			fb_info("vm: guest did not power off within %ds of the command's end; killed",
				GRACE_S);
	} else if (triple_fault(qlog, log)) {
		vm_fail("guest kernel triple-faulted (qemu: \"Triple fault\", nothing in the console) %s the command (console log %s)",
			started ? "while running" : "before running", log);
		print_tail(log, 12);
		ret = FB_VM_SPLAT;
	} else if (started) {
		vm_fail("guest reset or powered off while the command ran: no exit status, no splat in the console log %s",
			log);
		print_tail(log, 15);
		ret = FB_VM_SPLAT;
	} else {
		fb_fmt(p, sizeof(p), "%s/setup-error", share);
		if (fb_read_file(p, buf, sizeof(buf)) > 0) {
			buf[strcspn(buf, "\n")] = '\0';
			vm_fail("guest setup failed: %s (console log %s)", buf, log);
		} else {
			vm_fail("guest stopped without running the command (console log %s)",
				log);
			print_tail(log, 15);
		}
		ret = FB_VM_NOSTART;
	}
	if (!o->quiet && !vm_sig && started) {
		double up = 0;

		fb_fmt(p, sizeof(p), "%s/started", share);
		if (fb_read_file(p, buf, sizeof(buf)) > 0)
			up = atof(buf);
		fb_info("vm: exit %d; boot to command %.1fs (guest uptime %.1fs), total %.1fs",
			ret, o->boot_s, up, o->total_s);
	} else if (!o->quiet && !vm_sig) {
		fb_info("vm: exit %d after %.1fs", ret, o->total_s);
	}

restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
out:
	for (int i = 0; i < 3; i++)
		if (rl[i].fd >= 0)
			close(rl[i].fd);
	for (int i = 0; i < 2; i++) {
		if (wfd[i] >= 0)
			close(wfd[i]);
		if (qerr[i] >= 0)
			close(qerr[i]);
	}
	free(rl[2].keep);
	rm_tree(tmpl);
	return ret;
}

/* ---- KVM verdict ---- */

static void verdict_key(const char *bz, char *key, size_t len)
{
	char ver[128], real[PATH_MAX];
	struct utsname u;
	struct stat st;

	uname(&u);
	qemu_version(ver, sizeof(ver));
	if (!realpath(bz, real))
		fb_fmt(real, sizeof(real), "%s", bz);
	if (stat(real, &st) < 0)
		st.st_mtime = 0;
	fb_fmt(key, len, "%s|%s|%s|%lld", u.release, ver, real,
	    (long long)st.st_mtime);
	for (char *c = key; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
}

/* Returns 1 kvm, 0 tcg, -1 unknown; why gets the cached reason. */
static int verdict_lookup(const char *key, char *why, size_t wlen)
{
	char path[PATH_MAX], *line = NULL;
	size_t n = 0;
	int v = -1;
	FILE *f;

	fb_fmt(path, sizeof(path), "%s/kvm-verdict", cache_dir());
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &n, f) >= 0) {
		char *t1 = strchr(line, '\t'), *t2;

		if (!t1)
			continue;
		*t1++ = '\0';
		t2 = strchr(t1, '\t');
		if (!t2 || strcmp(line, key))
			continue;
		*t2++ = '\0';
		t2[strcspn(t2, "\n")] = '\0';
		v = !strcmp(t1, "kvm");
		fb_fmt(why, wlen, "%s", t2);
	}
	free(line);
	fclose(f);
	return v;
}

static void verdict_store(const char *key, int kvm, const char *why)
{
	char path[PATH_MAX];
	FILE *f;

	if (fb_mkdir_p(cache_dir()) < 0)
		return;
	fb_fmt(path, sizeof(path), "%s/kvm-verdict", cache_dir());
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s\t%s\t%s\n", key, kvm ? "kvm" : "tcg", why);
	fclose(f);
}

static int kvm_usable(struct fb_vm_opts *o, const char *bz, char *why, size_t wlen)
{
	char key[PATH_MAX + 512], log[PATH_MAX];
	struct fb_vm_opts po = *o;
	char *const t[] = { "true", NULL };
	int fd, v, r;

	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fb_fmt(why, wlen, "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	close(fd);
	verdict_key(bz, key, sizeof(key));
	v = verdict_lookup(key, why, wlen);
	if (v >= 0) {
		size_t l = strlen(why);

		fb_fmt(why + l, wlen - l, " (cached in %s/kvm-verdict)", cache_dir());
		return v;
	}

	if (!o->quiet)
		fb_info("vm: probing whether KVM can boot %s", bz);
	fb_fmt(log, sizeof(log), "%s/kvm-probe.log", cache_dir());
	if (fb_mkdir_p(cache_dir()) < 0)
		fb_fmt(log, sizeof(log), "/dev/null");
	po.quiet = 1;
	po.nallow = 0;
	po.log = log;
	po.timeout = 30;
	po.append = NULL;
	vm_silent = 1;
	vm_reason[0] = '\0';
	r = vm_boot(&po, bz, "kvm", 1, t);
	vm_silent = 0;
	if (fb_stop)
		return 0;
	/* one line: qemu's messages may span several */
	for (char *c = vm_reason; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	for (size_t l = strlen(vm_reason); l && vm_reason[l - 1] == ' '; l--)
		vm_reason[l - 1] = '\0';
	if (r == 0)
		fb_fmt(why, wlen, "a KVM probe boot ran `true` in %.1fs", po.total_s);
	else
		fb_fmt(why, wlen, "a KVM probe boot failed (exit %d: %.300s)", r,
		    vm_reason[0] ? vm_reason : "no reason given");
	verdict_store(key, r == 0, why);
	return r == 0;
}

int fb_vm_run(struct fb_vm_opts *o, char *const argv[])
{
	char bz[PATH_MAX], why[PATH_MAX + 128];
	const char *accel = o->accel ? o->accel : "auto";

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
	if (!strcmp(accel, "auto")) {
		accel = kvm_usable(o, bz, why, sizeof(why)) ? "kvm" : "tcg";
		if (fb_stop)
			return FB_VM_INTR;
		if (!o->quiet)
			fb_info("vm: using %s: %s", accel, why);
	} else if (strcmp(accel, "kvm") && strcmp(accel, "tcg")) {
		fb_err("vm: --accel must be auto, kvm or tcg, not '%s'", accel);
		return FB_VM_NOSTART;
	}
	return vm_boot(o, bz, accel, 0, argv);
}

/* ---- foliobench vm ---- */

static void vm_usage(FILE *f)
{
	fprintf(f,
"usage: foliobench vm --kernel K [options] -- COMMAND [ARG...]\n"
"\n"
"Boots kernel K (a bzImage or a directory holding one) under qemu with this\n"
"machine's root read-only over 9p and runs COMMAND as root in the guest, in\n"
"the current directory, with its stdout/stderr relayed here.  The results\n"
"directory is shared read-write at the same path ($RESULTS in the guest);\n"
"/tmp, /run and /var/tmp are tmpfs.  FB_* variables are passed through.\n"
"\n"
"  --kernel K        bzImage or kernel build directory (required)\n"
"  --smp N           guest CPUs (2)\n"
"  --mem M           guest memory (2G)\n"
"  --timeout S       kill the guest after S seconds, boot included (600)\n"
"  --results DIR     read-write shared directory (./results)\n"
"  --append ARGS     extra kernel command line\n"
"  --accel A         auto|kvm|tcg (auto: KVM only if a probe boot works;\n"
"                    the verdict is cached in $FB_CACHE/kvm-verdict)\n"
"  --log FILE        console log (DIR/console-<time>-<pid>.log)\n"
"  --allow REGEX     a console line matching REGEX is not a splat (repeatable)\n"
"  -v, --verbose     show the qemu command line\n"
"\n"
"Exit status: COMMAND's; 125 if the guest kernel panicked, oopsed or printed\n"
"a WARN/BUG/lockdep splat (an excerpt is printed); 124 if the guest was still\n"
"running at the timeout; 126 if qemu or the guest setup failed; 130 if\n"
"interrupted.\n");
}

int cmd_vm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "smp", required_argument, NULL, 's' },
		{ "mem", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "results", required_argument, NULL, 'r' },
		{ "append", required_argument, NULL, 'a' },
		{ "accel", required_argument, NULL, 'A' },
		{ "log", required_argument, NULL, 'l' },
		{ "allow", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fb_vm_opts o = { 0 };
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			o.kernel = optarg;
			break;
		case 's':
			if (fb_parse_u64(optarg, &v) < 0 || !v || v > 64) {
				fb_err("vm: --smp wants 1..64, not '%s'", optarg);
				return 2;
			}
			o.smp = (int)v;
			break;
		case 'm':
			o.mem = optarg;
			break;
		case 't':
			if (fb_parse_u64(optarg, &v) < 0 || !v || v > 86400) {
				fb_err("vm: --timeout wants seconds (1..86400), not '%s'", optarg);
				return 2;
			}
			o.timeout = (int)v;
			break;
		case 'r':
			o.results = optarg;
			break;
		case 'a':
			o.append = optarg;
			break;
		case 'A':
			o.accel = optarg;
			break;
		case 'l':
			o.log = optarg;
			break;
		case 'w': {
			regex_t re;

			if (o.nallow == FB_VM_MAX_ALLOW) {
				fb_err("vm: at most %d --allow", FB_VM_MAX_ALLOW);
				return 2;
			}
			if (regcomp(&re, optarg, REG_EXTENDED | REG_NOSUB)) {
				fb_err("vm: --allow '%s' is not a valid regular expression", optarg);
				return 2;
			}
			regfree(&re);
			o.allow[o.nallow++] = optarg;
			break;
		}
		case 'v':
			fb_set_verbose(1);
			break;
		case 'h':
			vm_usage(stdout);
			return 0;
		default:
			vm_usage(stderr);
			return 2;
		}
	}
	if (!o.kernel) {
		fb_err("vm: --kernel is required (see foliobench vm --help)");
		return 2;
	}
	if (optind >= argc) {
		fb_err("vm: no command given: foliobench vm --kernel K -- COMMAND...");
		return 2;
	}
	if (o.accel && strcmp(o.accel, "auto") && strcmp(o.accel, "kvm") &&
	    strcmp(o.accel, "tcg")) {
		fb_err("vm: --accel must be auto, kvm or tcg, not '%s'", o.accel);
		return 2;
	}
	return fb_vm_run(&o, argv + optind);
}
