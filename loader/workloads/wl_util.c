// SPDX-License-Identifier: GPL-2.0
/*
 * wl_util.c - helpers shared by the built-in workloads.
 *
 * Workloads that change kernel state visible to the host (nf_tables
 * rulesets, network devices) run in a forked child that first enters a
 * private network namespace.  The child reports its counters back over a
 * pipe; the namespace dies with the child, so nothing that lives in it
 * can be left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workloads/wl_util.h"
#include "workloads/workloads.h"

static fb_phase_hook phase_hook;

void fb_workload_set_phase_hook(fb_phase_hook fn)
{
	phase_hook = fn;
}

void fb_workload_phase(struct fb_counts *ops, const char *phase)
{
	if (phase_hook)
		phase_hook(ops, phase);
}

/*
 * After a stop is forwarded, the child has this long to clean up and
 * report before it is killed (the parent then sweeps what it can see:
 * netdevsim ids; the private netns and its nft tables die with the child).
 */
#define WL_STOP_GRACE_NS	(10 * 1000000000ull)

struct wl_report {
	int rc;
	struct fb_counts ops;
};

static void wl_child_stop(int sig)
{
	(void)sig;
	fb_stop = 1;
}

static void wl_child_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wl_child_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * The child must not outlive the run: if the parent dies (even by
 * SIGKILL) the child gets SIGTERM, stops at its next check and removes
 * what it made.  A parent that died before the prctl() is caught by
 * comparing getppid() with the pid it had.
 */
static int wl_child_tie(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		return -1;
	if (getppid() != parent)
		fb_stop = 1;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Reads up to len bytes; returns how many arrived before EOF.  Polls so
 * that a stop request seen by the parent (even under SA_RESTART) is
 * forwarded to the child once, and the child is killed if it has not
 * reported WL_STOP_GRACE_NS later (a libnftables batch cannot be stopped).
 */
static size_t read_all(int fd, void *buf, size_t len, pid_t child, const char *wl)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t forwarded = 0;
	int killed = 0;
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (fb_stop && !forwarded) {
			kill(child, SIGTERM);
			forwarded = fb_now_ns();
		}
		if (forwarded && !killed && fb_now_ns() - forwarded > WL_STOP_GRACE_NS) {
			fb_err("%s: worker did not stop within %llu s of the stop request; killing it",
			       wl, WL_STOP_GRACE_NS / 1000000000ull);
			kill(child, SIGKILL);
			killed = 1;
		}
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = read(fd, p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static void __attribute__((noreturn))
wl_child_main(const char *wl, unsigned int flags, wl_child_fn fn,
	      const struct fb_params *p, void *arg, int fd, pid_t parent)
{
	struct wl_report rep;

	memset(&rep, 0, sizeof(rep));
	wl_child_signals();
	if (wl_child_tie(parent)) {
		fb_err("%s: prctl(PR_SET_PDEATHSIG): %s", wl, strerror(errno));
		rep.rc = -1;
	} else if ((flags & WL_NEWNET) && unshare(CLONE_NEWNET)) {
		fb_err("%s: unshare(CLONE_NEWNET): %s", wl, strerror(errno));
		rep.rc = -1;
	} else {
		rep.rc = fn(p, &rep.ops, arg);
	}
	if (write_all(fd, &rep, sizeof(rep)))
		_exit(2);
	_exit(rep.rc ? 1 : 0);
}

int wl_run_child(const char *wl, unsigned int flags, wl_child_fn fn,
		 const struct fb_params *p, void *arg, struct fb_counts *ops)
{
	struct wl_report rep;
	int pfd[2], status = 0;
	pid_t pid, parent = getpid();
	size_t got;

	if (pipe2(pfd, O_CLOEXEC)) {
		fb_err("%s: pipe: %s", wl, strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fb_err("%s: fork: %s", wl, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		wl_child_main(wl, flags, fn, p, arg, pfd[1], parent);
	}
	close(pfd[1]);
	memset(&rep, 0, sizeof(rep));
	got = read_all(pfd[0], &rep, sizeof(rep), pid, wl);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(rep)) {
		if (WIFSIGNALED(status))
			fb_err("%s: worker process killed by signal %d",
			       wl, WTERMSIG(status));
		else
			fb_err("%s: worker process exited (status %d) without a report",
			       wl, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	for (int i = 0; i < rep.ops.n && i < FB_MAX_COUNTS; i++)
		fb_count_set(ops, rep.ops.v[i].name, rep.ops.v[i].val);
	return rep.rc ? -1 : 0;
}

void wl_progress_init(struct wl_progress *pr, const char *wl,
		      const char *what, uint64_t total)
{
	pr->wl = wl;
	pr->what = what;
	pr->total = total;
	pr->start_ns = fb_now_ns();
	pr->last_ns = pr->start_ns;
}

void wl_progress(struct wl_progress *pr, uint64_t done)
{
	uint64_t now = fb_now_ns();

	if (now - pr->last_ns < 2000000000ull)
		return;
	pr->last_ns = now;
	fb_info("%s: %llu/%llu %s (%.1f s)", pr->wl, WL_U64(done),
		WL_U64(pr->total), pr->what,
		(double)(now - pr->start_ns) / 1e9);
}

int wl_write(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = write(fd, s, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

int wl_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int wl_fd_avail(int fd, const char *what, char *why, size_t len)
{
	if (fd < 0) {
		snprintf(why, len, "cannot %s: %s", what, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

void wl_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR && !fb_stop)
		;
}

uint64_t wl_cpu_busy_us(void)
{
	unsigned long long v[8] = { 0 };
	long tck = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8 || tck <= 0)
		return 0;
	/* user nice system [idle iowait] irq softirq steal */
	return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * 1000000ull / (uint64_t)tck;
}

int wl_parse_stat(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *s = line;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, key, klen) && s[klen] == ':') {
			char *end;
			unsigned long long v;

			s += klen + 1;
			errno = 0;
			v = strtoull(s, &end, 10);
			if (end == s || errno)
				return -1;
			*val = v;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

uint64_t wl_parse_stat_max(const char *text, const char *key)
{
	char k[96];
	const char *s, *eol, *m;

	snprintf(k, sizeof(k), "%s:", key);
	s = strstr(text, k);
	if (!s)
		return 0;
	eol = strchr(s, '\n');
	m = strstr(s, "[max:");
	if (!m || (eol && m > eol))
		return 0;
	return strtoull(m + 5, NULL, 10);
}

/* ---- netdevsim ---- */

int wl_nsim_cfg(const struct fb_params *p, const char *wl, struct wl_nsim_cfg *c, char *why,
		size_t len)
{
	uint64_t n;

	c->devices = (unsigned int)fb_param_u64(p, wl, "devices");
	c->threads = (unsigned int)fb_param_u64(p, wl, "threads");
	c->ports = (unsigned int)fb_param_u64(p, wl, "ports");
	c->first_id = (unsigned int)fb_param_u64(p, wl, "first_id");
	n = (uint64_t)c->devices * (c->ports ? c->ports : 1);
	if (n <= WL_MAX_NETDEVS)
		return 0;
	snprintf(why, len, "devices x ports = %llu netdevs at once; at most %d",
		 WL_U64(n), WL_MAX_NETDEVS);
	return -1;
}

int wl_nsim_free_ids(const char *wl, const struct wl_nsim_cfg *c)
{
	for (unsigned int i = 0; i < c->devices; i++) {
		if (wl_nsim_exists(c->first_id + i)) {
			fb_err("%s: netdevsim%u already exists (pick another %s.first_id)", wl,
			       c->first_id + i, wl);
			return -1;
		}
	}
	return 0;
}

int wl_nsim_new(unsigned int id, unsigned int ports)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%u %u 1", id, ports);
	return wl_write(WL_NSIM_BUS "/new_device", buf);
}

int wl_nsim_del(unsigned int id)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", id);
	return wl_write(WL_NSIM_BUS "/del_device", buf);
}

int wl_nsim_exists(unsigned int id)
{
	char path[96];

	snprintf(path, sizeof(path), WL_NSIM_BUS "/devices/netdevsim%u", id);
	return wl_exists(path);
}

int wl_netdev_count(void)
{
	struct if_nameindex *ifs, *i;
	int n = 0;

	ifs = if_nameindex();
	if (!ifs)
		return -1;
	for (i = ifs; i->if_index; i++)
		if (strcmp(i->if_name, "lo"))
			n++;
	if_freenameindex(ifs);
	return n;
}

struct nsim_job {
	const char *wl;
	unsigned int first_id, n, ports, threads;
	int create;
	unsigned char *state;
	atomic_uint done;
	atomic_int failed;
};

struct nsim_thread {
	struct nsim_job *job;
	unsigned int idx;
	pthread_t tid;
};

static void *nsim_worker(void *arg)
{
	struct nsim_thread *t = arg;
	struct nsim_job *j = t->job;

	for (unsigned int i = t->idx; i < j->n; i += j->threads) {
		unsigned int id = j->first_id + i;
		int ret;

		if (fb_stop || atomic_load(&j->failed))
			break;
		if (j->create == !!j->state[i])
			continue;
		ret = j->create ? wl_nsim_new(id, j->ports) : wl_nsim_del(id);
		if (ret) {
			if (!atomic_exchange(&j->failed, 1))
				fb_err("%s: %s netdevsim%u: %s", j->wl,
				       j->create ? "new_device" : "del_device",
				       id, strerror(-ret));
			break;
		}
		j->state[i] = (unsigned char)j->create;
		atomic_fetch_add(&j->done, 1);
	}
	return NULL;
}

/*
 * Joins t, reporting progress each second.  No polling step: the phase
 * ends when its last thread does (a 50 ms poll put up to 50 ms of sleep
 * into each phase's wall, reports/overhead/).
 */
static void join_reporting(pthread_t t, struct wl_progress *pr, atomic_uint *done)
{
	struct timespec dl;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 1;
		if (pthread_timedjoin_np(t, NULL, &dl) != ETIMEDOUT)
			return;
		wl_progress(pr, atomic_load(done));
	}
}

unsigned int wl_nsim_parallel(const char *wl, unsigned int first_id,
			      unsigned int n, unsigned int ports,
			      unsigned int threads, int create,
			      unsigned char *state, int *err)
{
	struct nsim_job job = {
		.wl = wl, .first_id = first_id, .n = n, .ports = ports,
		.threads = threads ? threads : 1, .create = create,
		.state = state,
	};
	struct nsim_thread *ts;
	struct wl_progress pr;
	unsigned int started = 0;

	*err = 0;
	ts = calloc(job.threads, sizeof(*ts));
	if (!ts) {
		fb_err("%s: out of memory", wl);
		*err = -1;
		return 0;
	}
	wl_progress_init(&pr, wl, create ? "devices created" :
			 "devices removed", n);
	for (; started < job.threads; started++) {
		ts[started].job = &job;
		ts[started].idx = started;
		if (pthread_create(&ts[started].tid, NULL, nsim_worker,
				   &ts[started])) {
			fb_err("%s: pthread_create failed", wl);
			atomic_store(&job.failed, 1);
			break;
		}
	}
	for (unsigned int k = 0; k < started; k++)
		join_reporting(ts[k].tid, &pr, &job.done);
	free(ts);
	if (atomic_load(&job.failed))
		*err = -1;
	return atomic_load(&job.done);
}

unsigned int wl_nsim_sweep(unsigned int first_id, unsigned int n)
{
	unsigned int swept = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (wl_nsim_exists(first_id + i) && !wl_nsim_del(first_id + i))
			swept++;
	}
	return swept;
}

int wl_run_nsim_child(const char *wl, wl_child_fn fn, const struct fb_params *p,
		      void *arg, struct fb_counts *ops, unsigned int first_id,
		      unsigned int n)
{
	int ret = wl_run_child(wl, WL_NEWNET, fn, p, arg, ops);
	unsigned int left = wl_nsim_sweep(first_id, n);

	if (left) {
		fb_err("%s: %u netdevsim devices were left behind; removed them", wl, left);
		return -1;
	}
	return ret;
}
