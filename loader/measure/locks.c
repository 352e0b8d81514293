// SPDX-License-Identifier: GPL-2.0
/*
 * locks.c - lock hold histograms per instance, for kernels without lockdep.
 *
 * Method (and why): one instance of the generic fblock object per lock
 * function, carrying exactly one trampoline program.  Measured under TCG: a
 * second trampoline program on a busy lock function oopsed guests,
 * cross-vCPU text poking oopsed 2-vCPU guests; one program per lock
 * function in a one-vCPU guest did not.  So every function gets one
 * program, attached before the workload starts and detached after it ends,
 * with the watched instances' addresses in rodata (unwatched locks cost a
 * few compares).  These programs run on every acquisition of every lock of
 * their kind, so the trampoline is what an unwatched acquisition costs, and
 * a watched hold's own cost is where its start is kept
 * (reports/overhead/lock-rows.md):
 *  - a spinlock hold starts at _raw_spin_lock's entry (fentry), restarted
 *    at lock:contention_end when it spun, in this CPU's slot: the holder
 *    cannot migrate, and no other CPU writes that slot;
 *  - an exclusive sleeping hold (mutex, rwsem write) starts at the acquire
 *    function's exit (fexit): the lock is held then, so its one owner is
 *    the only task that writes the lock's slot, and reads and clears it at
 *    the release function's entry;
 *  - a shared hold (rwsem read) starts at down_read's entry, restarted at
 *    contention_end, in task storage (a (tid, slot) hash on kernels without
 *    task storage for tracing programs).
 * Task storage cost ~780 instructions per watched hold (two lookups), the
 * slots a few.  Its wait is lock:contention_begin/end filtered to the
 * address (fbcont), i.e. the contended acquisitions only, as lock_stat
 * counts them.  FB_LOCKHOOK selects the methods before, to measure them in
 * one boot (scripts/studies/overhead.sh): fexit (fexit on every acquire
 * function, the hash), fentry-hash, fentry-task (fentry on every acquire
 * function, task storage).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fblock.skel.h"
#include "fbprobe.h"
#include "measure/attach.h"
#include "measure/locks.h"

/* Each lock function, with its candidates (first present wins). */
static const struct lock_fn {
	enum fb_lock_type type;
	int read;			/* rwsem read side */
	int acquire;
	const char *fn[2];
} lock_fns[] = {
	{ FB_LK_RWSEM, 0, 1, { "down_write" } },
	{ FB_LK_RWSEM, 0, 0, { "up_write" } },
	{ FB_LK_RWSEM, 1, 1, { "down_read" } },
	{ FB_LK_RWSEM, 1, 0, { "up_read" } },
	/* lockdep kernels: mutex_lock() is a macro for mutex_lock_nested() */
	{ FB_LK_MUTEX, 0, 1, { "mutex_lock", "mutex_lock_nested" } },
	{ FB_LK_MUTEX, 0, 0, { "mutex_unlock" } },
	{ FB_LK_SPIN, 0, 1, { "_raw_spin_lock" } },
	{ FB_LK_SPIN, 0, 0, { "_raw_spin_unlock" } },
};

#define NFNS ((int)(sizeof(lock_fns) / sizeof(lock_fns[0])))

/* the maps every program shares: the session's record maps and the stashes */
struct fb_locks {
	const struct fb_record *rec;
	int held_fd;
	enum fb_lockhook hook;		/* FB_LOCKHOOK (attach.h) */
	int task_ok;			/* task storage loads here, else `held` */
	int task_fd;			/* the shared task storage map, once created */
	int cpu_fd;			/* the per-CPU slots (spinlocks) */
	int excl_fd;			/* the lock slots (mutex, rwsem write) */
	struct btf *btf;		/* vmlinux BTF, loaded once for FB_LOCKFN */
	struct fblock_bpf *skel[NFNS];
};

/* FB_STASH_* of lock function f's holds, on both its sides */
static unsigned int fn_stash(const struct fb_locks *l, const struct lock_fn *f)
{
	if (l->hook == FB_LH_FEXIT || l->hook == FB_LH_FENTRY_HASH)
		return FB_STASH_HASH;
	if (l->hook == FB_LH_FENTRY_TASK || f->read)
		return l->task_ok ? FB_STASH_TASK : FB_STASH_HASH;
	return f->type == FB_LK_SPIN ? FB_STASH_CPU : FB_STASH_EXCL;
}

/* 1 if f is an acquire function hooked at its exit */
static int fn_fexit(const struct fb_locks *l, const struct lock_fn *f)
{
	return f->acquire && (l->hook == FB_LH_FEXIT || fn_stash(l, f) == FB_STASH_EXCL);
}

/* the one program an instance attaches to its lock function */
static struct bpf_program *fn_prog(struct fblock_bpf *k, const struct fb_locks *l,
				   const struct lock_fn *f)
{
	if (!f->acquire)
		return k->progs.fb_rel_fentry;
	return fn_fexit(l, f) ? k->progs.fb_acq_fexit : k->progs.fb_acq_fentry;
}

static void watch_note(struct fb_lock_watch *w, const char *fn, int fexit, int err)
{
	size_t len = strlen(w->reason);

	w->ok = 0;
	snprintf(w->reason + len, sizeof(w->reason) - len, "%s%s %s: %s", len ? "; " : "",
		 fn, fexit ? "fexit" : "fentry", strerror(-err));
}

static void watch_sym(struct fb_lock_watch *w, const char *fn, int acquire)
{
	size_t len = strlen(w->symbol);

	snprintf(w->symbol + len, sizeof(w->symbol) - len, "%s%s",
		 acquire ? (len ? "," : "") : "/", fn);
}

/* 1 if lock function f takes watch w's lock (FB_LK_ANY: every type's do). */
static int serves(const struct lock_fn *f, const struct fb_lock_watch *w)
{
	return w->addr && (w->type == f->type || w->type == FB_LK_ANY) &&
	       (!f->read || w->read_slot >= 0);
}

/* Attaches p (and the wait fix-up with an fentry acquire side). */
static int attach_progs(struct fblock_bpf *k, struct bpf_program *p)
{
	struct bpf_link *link = bpf_program__attach(p);

	if (!link)
		return -errno;
	if (p == k->progs.fb_acq_fexit)
		k->links.fb_acq_fexit = link;
	else if (p == k->progs.fb_rel_fentry)
		k->links.fb_rel_fentry = link;
	else
		k->links.fb_acq_fentry = link;
	if (p != k->progs.fb_acq_fentry)
		return 0;
	k->links.fb_acq_waited = bpf_program__attach(k->progs.fb_acq_waited);
	return k->links.fb_acq_waited ? 0 : -errno;
}

/*
 * FB_LOCKFN=SYM (diagnostics, scripts/studies/overhead.sh): the acquire-side
 * program goes on SYM instead, e.g. a function the getppid handler calls
 * once, to count what one call that takes no watched lock costs under each
 * method.  One lock row only.
 */
static const char *acquire_fn(const struct lock_fn *f, int c)
{
	const char *v = getenv("FB_LOCKFN");

	return f->acquire && v && *v ? (c ? NULL : v) : f->fn[c];
}

/*
 * 1 if fn takes no argument in the kernel's BTF (an FB_LOCKFN target such
 * as __do_sys_getppid): its program reads none from the context.
 */
static int no_args(struct fb_locks *l, const char *fn)
{
	const struct btf_type *t = NULL;
	int id;

	if (!l->btf)
		l->btf = btf__load_vmlinux_btf();
	id = l->btf ? btf__find_by_name_kind(l->btf, fn, BTF_KIND_FUNC) : -1;
	if (id > 0)
		t = btf__type_by_id(l->btf, btf__type_by_id(l->btf, (__u32)id)->type);
	return t && btf_is_func_proto(t) && !btf_vlen(t);
}

/* Opens an instance of function f (fn) with its watches; NULL with errno set. */
static struct fblock_bpf *open_one(struct fb_locks *l, const struct lock_fn *f,
				   const char *fn, const struct fb_lock_watch *w, int n)
{
	struct fblock_bpf *k = fblock_bpf__open();
	unsigned int nl = 0;

	if (!k)
		return NULL;
	for (int i = 0; i < n && nl < FB_MAX_LOCKS; i++) {
		if (!serves(f, &w[i]))
			continue;
		k->rodata->lock_addr[nl] = w[i].addr;
		k->rodata->lock_slot[nl++] = (unsigned int)(f->read ? w[i].read_slot :
							    w[i].hold_slot);
	}
	k->rodata->nlocks = nl;
	k->rodata->stash = fn_stash(l, f);
	k->rodata->ablate = (unsigned int)fb_ablate();
	k->rodata->fb_tgid = (unsigned int)getpid();
	k->rodata->arg_helper = f->acquire && acquire_fn(f, 0) != f->fn[0] && no_args(l, fn);
	bpf_map__set_autocreate(k->maps.held_task, k->rodata->stash == FB_STASH_TASK);
	return k;
}

/* Loads instance k with p, the maps shared, and attaches it. */
static int load_one(struct fb_locks *l, struct fblock_bpf *k, struct bpf_program *p,
		    const char *fn)
{
	int err;

	bpf_program__set_autoload(k->progs.fb_acq_fexit, p == k->progs.fb_acq_fexit);
	bpf_program__set_autoload(k->progs.fb_acq_fentry, p == k->progs.fb_acq_fentry);
	bpf_program__set_autoload(k->progs.fb_rel_fentry, p == k->progs.fb_rel_fentry);
	/* the wait fix-up, where the hold starts at the acquire function's entry */
	bpf_program__set_autoload(k->progs.fb_acq_waited, p == k->progs.fb_acq_fentry);
	err = bpf_program__set_attach_target(p, 0, fn);
	if (!err)
		err = fb_record_reuse(l->rec, k->maps.hist, k->maps.stats, k->maps.ctl);
	if (!err)
		err = bpf_map__reuse_fd(k->maps.held, l->held_fd);
	if (!err)
		err = bpf_map__reuse_fd(k->maps.held_cpu, l->cpu_fd);
	if (!err)
		err = bpf_map__reuse_fd(k->maps.held_excl, l->excl_fd);
	if (!err && k->rodata->stash == FB_STASH_TASK && l->task_fd >= 0)
		err = bpf_map__reuse_fd(k->maps.held_task, l->task_fd);
	if (!err)
		err = fblock_bpf__load(k);
	if (!err && k->rodata->stash == FB_STASH_TASK && l->task_fd < 0)
		l->task_fd = dup(bpf_map__fd(k->maps.held_task));
	if (!err)
		err = attach_progs(k, p);
	return err;
}

/*
 * Loads and attaches one function's program for the watches it serves.  A
 * kernel without task storage for tracing programs fails the first load:
 * then every instance keeps its holds in the (tid, slot) hash instead.
 */
static int attach_one(struct fb_locks *l, const char *fn, const struct lock_fn *f,
		      struct fb_lock_watch *w, int n, struct fblock_bpf **out)
{
	struct fblock_bpf *k = open_one(l, f, fn, w, n);
	int err, retry;

	if (!k)
		return -errno;
	err = load_one(l, k, fn_prog(k, l, f), fn);
	retry = err && k->rodata->stash == FB_STASH_TASK && l->task_fd < 0 &&
		(err == -EINVAL || err == -EACCES);
	if (retry) {
		fblock_bpf__destroy(k);
		l->task_ok = 0;
		k = open_one(l, f, fn, w, n);
		err = k ? load_one(l, k, fn_prog(k, l, f), fn) : -errno;
	}
	if (err) {
		fblock_bpf__destroy(k);
		return err < 0 ? err : -EINVAL;
	}
	*out = k;
	return 0;
}

static int needed(const struct lock_fn *f, const struct fb_lock_watch *w, int n)
{
	for (int i = 0; i < n; i++)
		if (serves(f, &w[i]))
			return 1;
	return 0;
}

static void attach_fn(struct fb_locks *l, int j, struct fb_lock_watch *w, int n)
{
	const struct lock_fn *f = &lock_fns[j];
	int err = -ENOENT;
	const char *fn = f->fn[0];

	for (int c = 0; c < 2 && acquire_fn(f, c) && err; c++) {
		fn = acquire_fn(f, c);
		err = attach_one(l, fn, f, w, n, &l->skel[j]);
	}
	for (int i = 0; i < n; i++) {
		if (!serves(f, &w[i]))
			continue;
		if (err)
			watch_note(&w[i], f->fn[0], fn_fexit(l, f), err);
		else if (w[i].type != FB_LK_ANY)
			watch_sym(&w[i], fn, f->acquire);
	}
}

/*
 * A TCG guest with more than one vCPU: attaching trampolines to the lock
 * functions pokes text that another vCPU is executing, and that oopsed our
 * guests ("Oops: int3" in _raw_spin_unlock from a timer interrupt, 2 vCPUs).
 * With one vCPU it never did (30+ boots).  Real CPUs are not affected.
 */
static int tcg_smp(void)
{
	char buf[4096];
	int n = fb_read_file("/proc/cpuinfo", buf, sizeof(buf));

	return n > 0 && strstr(buf, "QEMU TCG CPU") && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/* The stashes every instance shares, created once; -1 on failure. */
static int stash_maps(struct fb_locks *l)
{
	unsigned int sz = FB_MAX_SLOTS * sizeof(uint64_t);

	l->held_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "fb_lock_held",
				    sizeof(struct fb_start_key), 8, FB_MAX_INFLIGHT, NULL);
	l->cpu_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "fb_held_cpu", 4, sz, 1, NULL);
	l->excl_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fb_held_excl", 4, sz, 1, NULL);
	return l->held_fd < 0 || l->cpu_fd < 0 || l->excl_fd < 0 ? -1 : 0;
}

/* the acquire side's hook then the release side's; "fentry,fexit": both kinds */
static const char *watch_hooks(const struct fb_locks *l, const struct fb_lock_watch *w)
{
	int fx = 0, fe = 0;

	for (int j = 0; j < NFNS; j++) {
		if (!lock_fns[j].acquire || lock_fns[j].read || !serves(&lock_fns[j], w))
			continue;
		fx |= fn_fexit(l, &lock_fns[j]);
		fe |= !fn_fexit(l, &lock_fns[j]);
	}
	return fx && fe ? "fentry,fexit" : fx ? "fexit+fentry" : "fentry";
}

/*
 * Where an exclusive hold's start is kept, after the hooks: "/lock" (the
 * lock's slot), "/cpu", "/task", "/hash"; a watch of several lock types may
 * name several.  Read holds are always in task storage (or the hash).  The
 * start's place decides how much of the observer is inside a hold, so holds
 * measured with different methods are not comparable (compare, history).
 */
static void watch_method(const struct fb_locks *l, const struct fb_lock_watch *w,
			 char *buf, size_t len)
{
	static const char *const names[] = {
		[FB_STASH_TASK] = "task", [FB_STASH_HASH] = "hash",
		[FB_STASH_CPU] = "cpu", [FB_STASH_EXCL] = "lock",
	};
	unsigned int seen = 0;
	size_t off = (size_t)snprintf(buf, len, "%s", watch_hooks(l, w));

	for (int j = 0; j < NFNS && off < len; j++) {
		unsigned int st = fn_stash(l, &lock_fns[j]);

		if (!lock_fns[j].acquire || lock_fns[j].read || !serves(&lock_fns[j], w) ||
		    (seen & 1u << st))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", seen ? "," : "/", names[st]);
		seen |= 1u << st;
	}
	if (off < len && (fb_ablate() & FB_ABL_EMPTY))
		snprintf(buf + off, len - off, "+ablate");
}

struct fb_locks *fb_locks_open(struct fb_lock_watch *w, int n, const struct fb_record *rec)
{
	struct fb_locks *l;
	int any = 0;

	if (tcg_smp()) {
		for (int i = 0; i < n; i++) {
			w[i].ok = 0;
			snprintf(w[i].reason, sizeof(w[i].reason), "BPF lock rows need one vCPU "
				 "under TCG (cross-vCPU text poking oopsed guests): --smp 1");
		}
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->rec = rec;
	l->hook = fb_lockhook();
	l->task_ok = 1;
	l->task_fd = -1;
	if (stash_maps(l) < 0) {
		fb_locks_close(l);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		w[i].ok = w[i].addr != 0;
		if (w[i].type == FB_LK_ANY)
			snprintf(w[i].symbol, sizeof(w[i].symbol), "rwsem+mutex+spinlock functions");
	}
	for (int j = 0; j < NFNS; j++)
		if (needed(&lock_fns[j], w, n))
			attach_fn(l, j, w, n);
	/* after attaching: task storage may have fallen back to the hash */
	for (int i = 0; i < n; i++)
		watch_method(l, &w[i], w[i].method, sizeof(w[i].method));
	for (int j = 0; j < NFNS; j++)
		any |= l->skel[j] != NULL;
	if (!any) {
		fb_locks_close(l);
		return NULL;
	}
	return l;
}

uint64_t fb_locks_child_holds(const struct fb_locks *l, int slot)
{
	uint64_t n = 0;

	for (int j = 0; l && slot >= 0 && slot < FB_MAX_SLOTS && j < NFNS; j++)
		if (l->skel[j] && l->skel[j]->bss)
			n += l->skel[j]->bss->child_holds[slot];
	return n;
}

void fb_locks_close(struct fb_locks *l)
{
	if (!l)
		return;
	for (int j = 0; j < NFNS; j++)
		fblock_bpf__destroy(l->skel[j]);
	if (l->held_fd >= 0)
		close(l->held_fd);
	if (l->task_fd >= 0)
		close(l->task_fd);
	if (l->cpu_fd >= 0)
		close(l->cpu_fd);
	if (l->excl_fd >= 0)
		close(l->excl_fd);
	btf__free(l->btf);
	free(l);
}

/* ---- the fallback and the reference: /proc/lock_stat (LOCK_STAT kernels) ---- */

/* lock_stat prints microseconds with two decimals */
static uint64_t us_to_ns(double us)
{
	return us > 0 ? (uint64_t)(us * 1000.0 + 0.5) : 0;
}

struct lock_stat_row {
	char cls[128];
	double v[12];	/* con-bounces contentions wait(min max total avg)
			 * acq-bounces acquisitions hold(min max total avg) */
};

/*
 * One class line, "name[-W|-R]: 12 numbers"; the read side is skipped
 * (the rows count write acquisitions).  Returns 0 for a write-side line.
 */
static int lock_stat_parse(const char *line, struct lock_stat_row *l)
{
	double *v = l->v;
	size_t n;

	if (sscanf(line, " %127[^:]: %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
		   l->cls, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
		   &v[9], &v[10], &v[11]) != 13)
		return -1;
	n = strlen(l->cls);
	if (n > 2 && !strcmp(l->cls + n - 2, "-R"))
		return -1;
	if (n > 2 && !strcmp(l->cls + n - 2, "-W"))
		l->cls[n - 2] = '\0';
	return 0;
}

/* 0 and the class's write side into hold and wait, or -1 if not listed. */
int fb_lock_stat_read(const char *cls, struct fb_hist *hold, struct fb_hist *wait)
{
	struct lock_stat_row l;
	char line[512];
	FILE *f = fopen("/proc/lock_stat", "r");
	int found = -1;

	while (f && fgets(line, sizeof(line), f)) {
		if (lock_stat_parse(line, &l) < 0 || strcmp(l.cls, cls))
			continue;
		wait->count = (uint64_t)l.v[1];
		wait->min = us_to_ns(l.v[2]);
		wait->max = us_to_ns(l.v[3]);
		wait->sum = us_to_ns(l.v[4]);
		hold->count = (uint64_t)l.v[7];
		hold->min = us_to_ns(l.v[8]);
		hold->max = us_to_ns(l.v[9]);
		hold->sum = us_to_ns(l.v[10]);
		found = 0;
	}
	if (f)
		fclose(f);
	return found;
}
