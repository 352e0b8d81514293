// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - probe-then-choose attachment of the catalogue's rows.
 *
 * Function rows: fentry/fexit, else kprobe/kretprobe, else unavailable with
 * the reasons of both attempts.  Each hooked function gets its own instance
 * of the generic fbfunc object (rodata: slot, filter), retargeted with
 * bpf_program__set_attach_target(); all instances share the loader-created
 * maps.  Lock rows resolve their instance address here (kallsyms, an
 * optional pointer read by a raw tracepoint program, a BTF member offset)
 * and get hold histograms from locks.c and wait histograms from fbcont's
 * contention programs; where that cannot attach they fall back to their
 * class in /proc/lock_stat (zeroed when recording is first enabled) on
 * LOCK_STAT kernels.
 * Tracepoint rows (contention, kmalloc call sites) use fbcont, which also
 * loads on kernels that refuse tracing programs.
 *
 * Every object shares one enabled flag (fbrecord.bpf.h): a session opens
 * with it clear, so loading and attaching (the verifier's push_stack, BPF
 * links, ...) are never counted, and fb_session_enable() sets it for the
 * measured phases.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fbcont.skel.h"
#include "fbfunc.skel.h"
#include "fbprobe.h"
#include "measure/attach.h"
#include "measure/contention.h"
#include "measure/ksyms.h"
#include "measure/locks.h"
#include "measure/probes.h"
#include "measure/record.h"

#define MAX_INST 48

struct row {
	const struct fb_probe_def *def;
	struct fb_probe_result res;
	int slot[FB_MAX_STATS];
	uint64_t inst;			/* resolved instance address */
};

struct inst {
	struct fbfunc_bpf *skel;
	char fn[64];
	unsigned int slot;
	char method[16];
};

struct fb_session {
	struct fb_ksyms *ks;
	struct btf *btf;
	struct fb_record rec;		/* the maps every object records into */
	int watched_fd, starts_fd;	/* fbfunc's, shared by its instances */
	int started;			/* recording was enabled once */
	struct fbcont_bpf *cont;
	struct fb_locks *locks;
	struct inst inst[MAX_INST];
	int ninst;
	struct row rows[FB_MAX_PROBES];
	int nrows;
	int nslots;
	int ablate;			/* FB_ABLATE bits, diagnostics only */
	int stash_task;			/* entry times in task storage (fbfunc.bpf.c) */
	char liblog[4096];		/* last libbpf messages, for reasons */
};

static struct fb_session *cur;	/* for the libbpf print callback */
static struct fb_session *active;	/* for fb_lock_stat_snapshot() */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];
	size_t len;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (fb_verbose() > 1 || (fb_verbose() && level != LIBBPF_DEBUG))
		fprintf(stderr, "libbpf: %s", buf);
	if (cur && level != LIBBPF_DEBUG) {
		len = strlen(cur->liblog);
		if (len + strlen(buf) + 1 >= sizeof(cur->liblog))
			len = 0;
		snprintf(cur->liblog + len, sizeof(cur->liblog) - len, "%s", buf);
	}
	return 0;
}

/* ---- shared maps ---- */

static int create_maps(struct fb_session *s)
{
	if (fb_record_create(&s->rec))
		return -1;
	s->watched_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "fb_watched", 8, 4,
				       FB_MAX_WATCHED, NULL);
	s->starts_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "fb_starts",
				      sizeof(struct fb_start_key), sizeof(struct fb_start),
				      FB_MAX_INFLIGHT, NULL);
	if (s->watched_fd < 0 || s->starts_fd < 0) {
		fb_err("cannot create BPF maps: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- reasons ---- */

static void reason_add(struct row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void reason_add(struct row *r, const char *fmt, ...)
{
	size_t len = strlen(r->res.reason);
	va_list ap;

	if (len && len + 2 < sizeof(r->res.reason)) {
		strcpy(r->res.reason + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->res.reason + len, sizeof(r->res.reason) - len, fmt, ap);
	va_end(ap);
}

static const char *errno_hint(int err)
{
	switch (err) {
	case EPERM:
		return "EPERM: the kernel refuses BPF tracing programs";
	case ENOENT:
	case ESRCH:
		return "not found in BTF";
	case EINVAL:
		return "EINVAL: not traceable here (notrace or no ftrace in that file)";
	case EOPNOTSUPP:
		return "EOPNOTSUPP: not supported by this kernel";
	default:
		return strerror(err);
	}
}

/* ---- function instances ---- */

static int reuse_maps(struct fb_session *s, struct fbfunc_bpf *k)
{
	int err = fb_record_reuse(&s->rec, k->maps.hist, k->maps.stats, k->maps.ctl);

	if (!err)
		err = bpf_map__reuse_fd(k->maps.watched, s->watched_fd);
	if (!err)
		err = bpf_map__reuse_fd(k->maps.starts, s->starts_fd);
	return err;
}

/* One attempt with one method and one stash; returns 0 or -errno. */
static int try_stash(struct fb_session *s, struct inst *in, int filter, int kprobe)
{
	struct fbfunc_bpf *k = fbfunc_bpf__open();
	int err;

	if (!k)
		return -errno;
	k->rodata->slot = in->slot;
	k->rodata->filter = (unsigned int)filter;
	k->rodata->ablate = (unsigned int)s->ablate;
	k->rodata->stash_task = (unsigned int)s->stash_task;
	bpf_map__set_autocreate(k->maps.task_start, s->stash_task && !(s->ablate & FB_ABL_HASH));
	err = reuse_maps(s, k);
	bpf_program__set_autoload(k->progs.fb_fentry, !kprobe);
	bpf_program__set_autoload(k->progs.fb_fexit, !kprobe);
	bpf_program__set_autoload(k->progs.fb_kprobe, kprobe);
	bpf_program__set_autoload(k->progs.fb_kretprobe, kprobe);
	if (!err && !kprobe) {
		err = bpf_program__set_attach_target(k->progs.fb_fentry, 0, in->fn);
		if (!err)
			err = bpf_program__set_attach_target(k->progs.fb_fexit, 0, in->fn);
	}
	s->liblog[0] = '\0';
	if (!err)
		err = fbfunc_bpf__load(k);
	if (!err && !kprobe) {
		k->links.fb_fentry = bpf_program__attach(k->progs.fb_fentry);
		err = k->links.fb_fentry ? 0 : -errno;
		if (!err) {
			k->links.fb_fexit = bpf_program__attach(k->progs.fb_fexit);
			err = k->links.fb_fexit ? 0 : -errno;
		}
	} else if (!err) {
		k->links.fb_kprobe = bpf_program__attach_kprobe(k->progs.fb_kprobe, false, in->fn);
		err = k->links.fb_kprobe ? 0 : -errno;
		if (!err) {
			k->links.fb_kretprobe = bpf_program__attach_kprobe(k->progs.fb_kretprobe,
									   true, in->fn);
			err = k->links.fb_kretprobe ? 0 : -errno;
		}
	}
	if (err) {
		fbfunc_bpf__destroy(k);
		return err < 0 ? err : -EINVAL;
	}
	in->skel = k;
	snprintf(in->method, sizeof(in->method), "%s%s", kprobe ? "kprobe" : "fentry",
		 s->ablate ? "+ablate" : "");
	return 0;
}

/*
 * Entry times go to task storage; where the verifier refuses that helper
 * in a tracing program (before 5.11: -EINVAL or -EACCES at load), the
 * (tid, slot) hash is used for the rest of the session.  Other failures
 * (tracing refused, no such function, no kprobes) are not retried.
 */
static int try_instance(struct fb_session *s, struct inst *in, int filter, int kprobe)
{
	int err = try_stash(s, in, filter, kprobe);

	if (!err || !s->stash_task || (err != -EINVAL && err != -EACCES))
		return err;
	s->stash_task = 0;
	if (!try_stash(s, in, filter, kprobe)) {
		fb_info("no task storage for tracing programs here: start times in a hash");
		return 0;
	}
	s->stash_task = 1;
	return err;
}

/*
 * Attaches fn, trying fentry/fexit then kprobe/kretprobe (never both at
 * once).  Returns the instance or NULL with the reasons in r.
 */
static struct inst *attach_fn(struct fb_session *s, struct row *r, const char *fn,
			      unsigned int slot, int filter)
{
	struct inst *in;
	uint64_t addr;
	int err;

	if (fb_ksym_lookup(s->ks, fn, &addr, NULL) < 0) {
		reason_add(r, "%s: not in kallsyms (inlined or not built)", fn);
		return NULL;
	}
	if (s->ninst == MAX_INST) {
		reason_add(r, "%s: too many instances", fn);
		return NULL;
	}
	in = &s->inst[s->ninst];
	memset(in, 0, sizeof(*in));
	snprintf(in->fn, sizeof(in->fn), "%s", fn);
	in->slot = slot;
	err = fb_attach_mode() == FB_ATTACH_KPROBE ? -ECANCELED : try_instance(s, in, filter, 0);
	if (!err) {
		s->ninst++;
		return in;
	}
	reason_add(r, "%s fentry: %s", fn, err == -ECANCELED ? "not tried (--attach kprobe)" :
		   errno_hint(-err));
	if (fb_attach_mode() == FB_ATTACH_FENTRY) {
		reason_add(r, "%s kprobe: not tried (--attach fentry)", fn);
		return NULL;
	}
	err = try_instance(s, in, filter, 1);
	if (!err) {
		s->ninst++;
		return in;
	}
	reason_add(r, "%s kprobe: %s", fn, err == -ENOENT || err == -EOPNOTSUPP ?
		   "no kprobe support in this kernel" : errno_hint(-err));
	return NULL;
}

static int new_slot(struct fb_session *s, struct row *r, const char *name, const char *unit)
{
	int i = r->res.nstats++;

	snprintf(r->res.stats[i].name, sizeof(r->res.stats[i].name), "%s", name);
	snprintf(r->res.stats[i].h.unit, sizeof(r->res.stats[i].h.unit), "%s", unit);
	r->slot[i] = s->nslots++;
	return r->slot[i];
}

static void set_status(struct row *r, enum fb_probe_status status, const char *method,
		       const char *sym)
{
	r->res.status = status;
	snprintf(r->res.method, sizeof(r->res.method), "%s", method);
	snprintf(r->res.symbol, sizeof(r->res.symbol), "%s", sym);
}

static int watch(struct fb_session *s, uint64_t addr, int slot)
{
	uint32_t v = (uint32_t)slot;

	return bpf_map_update_elem(s->watched_fd, &addr, &v, BPF_ANY);
}

static void attach_func_row(struct fb_session *s, struct row *r)
{
	const struct fb_probe_def *d = r->def;
	int slot = new_slot(s, r, "latency", "ns");

	for (int i = 0; i < FB_MAX_CAND && d->syms[i]; i++) {
		int filter = d->inst_sym && i >= d->filter_from;
		struct inst *in;

		if (filter && !r->inst) {
			reason_add(r, "%s: filter instance %s unresolved", d->syms[i], d->inst_sym);
			continue;
		}
		if (filter && watch(s, r->inst, slot) < 0) {
			reason_add(r, "cannot watch %s", d->inst_sym);
			continue;
		}
		in = attach_fn(s, r, d->syms[i], (unsigned int)slot, filter);
		if (!in)
			continue;
		set_status(r, FB_ATTACHED, in->method, d->syms[i]);
		return;
	}
	set_status(r, FB_UNAVAILABLE, "-", "-");
}

/* ---- instance resolution: kallsyms, pointer read, BTF member ---- */

/* Pointer-valued instances are read by fbcont's one-shot sys_enter program. */
static void resolve(struct fb_session *s, struct row *r, uint64_t ptrval)
{
	const struct fb_probe_def *d = r->def;
	uint64_t addr;
	long off = 0;
	int k;

	if (d->inst_old && d->inst_member && fb_btf_member_offset(&s->btf, d->inst_member) < 0 &&
	    fb_ksym_data(s->ks, d->inst_old, &addr) == 0) {
		reason_add(r, "no %s in this kernel's BTF: its global %s", d->inst_member,
			   d->inst_old);
		r->inst = addr;
		return;
	}
	k = fb_ksym_data(s->ks, d->inst_sym, &addr);

	if (k < 0) {
		reason_add(r, k == -2 ? "%s: several symbols of that name in kallsyms, none beside "
			   "its own file's" : "%s: not in kallsyms (not in this kernel, or no "
			   "CONFIG_KALLSYMS_ALL)", d->inst_sym);
		return;
	}
	if (d->inst_deref) {
		if (!ptrval) {
			reason_add(r, "%s: could not read the pointer (raw tracepoint refused?)",
				   d->inst_sym);
			return;
		}
		addr = ptrval;
	}
	if (d->inst_member) {
		off = fb_btf_member_offset(&s->btf, d->inst_member);
		if (off < 0) {
			reason_add(r, "%s: not in this kernel's BTF", d->inst_member);
			return;
		}
	}
	r->inst = addr + (uint64_t)off;
}

/* ---- lock rows: BPF hold histograms (locks.c), else /proc/lock_stat ---- */

/*
 * Stats of a lock row: hold and wait (exclusive side: the write side of an
 * rwsem), and for rwsems hold_read and wait_read.  Attached later, all at
 * once, by attach_locks().
 */
static void lock_row_slots(struct fb_session *s, struct row *r)
{
	new_slot(s, r, "hold", "ns");
	new_slot(s, r, "wait", "ns");
	if (fb_probe_slots(r->def) == 4) {
		new_slot(s, r, "hold_read", "ns");
		new_slot(s, r, "wait_read", "ns");
	}
}

/*
 * The fallback where BPF cannot attach: the lock_stat class (every instance
 * of it, write side, averages only).
 */
static void lock_stat_row(struct row *r)
{
	if (access("/proc/lock_stat", R_OK | W_OK) || !r->def->lock_class) {
		set_status(r, FB_UNAVAILABLE, "-", "-");
		reason_add(r, "%s", r->def->lock_class ? "no /proc/lock_stat: needs "
			   "CONFIG_LOCK_STAT (lockstat flavour)" : "no lock_stat class known");
		return;
	}
	set_status(r, FB_ATTACHED, "lock_stat", r->def->lock_class);
	reason_add(r, "lock_stat class %s: every instance of the class, write side; "
		   "no per-sample histogram", r->def->lock_class);
}

static int attach_cont(struct fb_session *s);

/* Tells fbcont which addresses are lock rows, so their waits get histograms. */
static void watch_waits(struct fb_session *s, const struct row *r, int i)
{
	if (!s->cont || i >= FB_MAX_LOCKS)
		return;
	s->cont->bss->wlock_slot[i] = (unsigned int)r->slot[1];
	s->cont->bss->wlock_rslot[i] = (unsigned int)r->slot[r->res.nstats > 2 ? 3 : 1];
	s->cont->bss->wlock_addr[i] = r->inst;
}

static void attach_locks(struct fb_session *s)
{
	struct fb_lock_watch w[FB_MAX_LOCKS] = {};
	struct row *rows[FB_MAX_LOCKS];
	int n = 0;

	for (int i = 0; i < s->nrows && n < FB_MAX_LOCKS; i++) {
		struct row *r = &s->rows[i];

		if (r->def->kind != FB_LOCK)
			continue;
		rows[n] = r;
		w[n].addr = r->inst;
		w[n].type = r->def->lock_type;
		w[n].hold_slot = r->slot[0];
		w[n++].read_slot = r->res.nstats > 2 ? r->slot[2] : -1;
	}
	if (!n)
		return;
	s->locks = fb_locks_open(w, n, &s->rec);
	for (int i = 0; i < n; i++) {
		struct row *r = rows[i];

		if (!s->locks || !w[i].ok || attach_cont(s)) {
			if (!r->inst)
				reason_add(r, "no instance address");
			else if (!s->cont || !s->cont->links.fb_cont_end)
				reason_add(r, "lock:contention_begin/end (wait times) not attached");
			else
				reason_add(r, "%s", w[i].reason);
			lock_stat_row(r);
			continue;
		}
		set_status(r, FB_ATTACHED, w[i].method, w[i].symbol);
		reason_add(r, "instance 0x%llx; hold: acquire return to release entry, same task; "
			   "wait: lock:contention_begin/end on the instance",
			   (unsigned long long)r->inst);
		watch_waits(s, r, i);
	}
}

static void collect_lock_stat(struct fb_session *s)
{
	for (int i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		if (r->def->kind == FB_LOCK && !strcmp(r->res.method, "lock_stat"))
			fb_lock_stat_read(r->def->lock_class, &r->res.stats[0].h,
					  &r->res.stats[1].h);
	}
}

/* ---- tracepoint object (contention, kmalloc call sites, resolver) ---- */

/* The address range of a call-site row's function: its first candidate in kallsyms. */
static int callsite(struct fb_session *s, const struct fb_probe_def *d, uint64_t *lo, uint64_t *hi)
{
	for (int i = 0; i < FB_MAX_CAND && d->syms[i]; i++)
		if (fb_ksym_lookup(s->ks, d->syms[i], lo, hi) == 0)
			return 0;
	return -1;
}

static int open_cont(struct fb_session *s, int want_cont)
{
	struct fbcont_bpf *c = fbcont_bpf__open();
	unsigned int nsites = 0, nderef = 0;
	int err;

	if (!c)
		return -errno;
	c->rodata->resolver_tgid = (unsigned int)getpid();
	for (int i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];
		uint64_t lo, hi;

		if (r->def->kind == FB_CALLSITE && nsites < FB_MAX_SITES &&
		    callsite(s, r->def, &lo, &hi) == 0) {
			c->rodata->site_lo[nsites] = lo;
			c->rodata->site_hi[nsites] = hi;
			c->rodata->site_slot[nsites++] = (unsigned int)r->slot[0];
		}
		if (r->def->inst_deref && nderef < FB_MAX_DEREF &&
		    fb_ksym_data(s->ks, r->def->inst_sym, &lo) == 0)
			c->rodata->deref_addr[nderef++] = lo;
	}
	c->rodata->nsites = nsites;
	bpf_program__set_autoload(c->progs.fb_kmalloc, nsites > 0);
	bpf_program__set_autoload(c->progs.fb_cont_begin, want_cont);
	bpf_program__set_autoload(c->progs.fb_cont_end, want_cont);
	err = fb_record_reuse(&s->rec, c->maps.hist, c->maps.stats, c->maps.ctl);
	if (!err)
		err = fbcont_bpf__load(c);
	if (err) {
		fbcont_bpf__destroy(c);
		return err < 0 ? err : -EINVAL;
	}
	s->cont = c;
	return 0;
}

/* Runs the one-shot resolver and returns the pointer read for sym. */
static uint64_t deref(struct fb_session *s, const char *sym)
{
	struct bpf_link *l;
	uint64_t addr;

	if (!s->cont || fb_ksym_data(s->ks, sym, &addr) < 0)
		return 0;
	if (!s->cont->bss->deref_done) {
		l = bpf_program__attach(s->cont->progs.fb_resolve);
		if (!l)
			return 0;
		for (int i = 0; i < 100 && !s->cont->bss->deref_done; i++)
			usleep(1000);	/* any syscall of ours triggers it */
		bpf_link__destroy(l);
	}
	for (int i = 0; i < FB_MAX_DEREF; i++)
		if (s->cont->rodata->deref_addr[i] == addr)
			return s->cont->bss->deref_val[i];
	return 0;
}

/* lock:contention_begin/end, for the contention table and lock rows' waits */
static int attach_cont(struct fb_session *s)
{
	struct bpf_link *l1, *l2;

	if (s->cont && s->cont->links.fb_cont_end)
		return 0;
	l1 = s->cont ? bpf_program__attach(s->cont->progs.fb_cont_begin) : NULL;
	l2 = l1 ? bpf_program__attach(s->cont->progs.fb_cont_end) : NULL;
	if (!l2) {
		bpf_link__destroy(l1);
		return -1;
	}
	s->cont->links.fb_cont_begin = l1;
	s->cont->links.fb_cont_end = l2;
	return 0;
}

static void attach_tracepoints(struct fb_session *s)
{
	for (int i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		if (r->def->kind == FB_CALLSITE) {
			if (!s->cont || !s->cont->rodata->nsites) {
				reason_add(r, "%s: not in kallsyms or tracepoint object not loaded",
					   r->def->syms[0]);
				set_status(r, FB_UNAVAILABLE, "-", "-");
				continue;
			}
			if (!s->cont->links.fb_kmalloc)
				s->cont->links.fb_kmalloc = bpf_program__attach(s->cont->progs.fb_kmalloc);
			if (s->cont->links.fb_kmalloc)
				set_status(r, FB_ATTACHED, "raw_tp", "kmalloc");
			else
				set_status(r, FB_UNAVAILABLE, "-", "-");
		} else if (r->def->kind == FB_CONTENTION) {
			if (!attach_cont(s)) {
				set_status(r, FB_ATTACHED, "raw_tp", "contention_begin/end");
				continue;
			}
			reason_add(r, "lock:contention_begin/end raw tracepoints: %s",
				   strerror(errno));
			set_status(r, FB_UNAVAILABLE, "-", "-");
		}
	}
}

/* ---- session ---- */

static void add_row(struct fb_session *s, const struct fb_probe_def *d, int *want_cont)
{
	struct row *r;

	if (s->nrows == FB_MAX_PROBES)
		return;
	r = &s->rows[s->nrows++];
	r->def = d;
	snprintf(r->res.name, sizeof(r->res.name), "%s", d->name);
	snprintf(r->res.series, sizeof(r->res.series), "%s", d->series);
	r->res.kind = d->kind;
	r->res.adhoc = d->adhoc;
	set_status(r, FB_UNAVAILABLE, "-", "-");
	if (d->unresolved)
		reason_add(r, "%s", d->unresolved);
	if (d->kind == FB_CALLSITE)
		new_slot(s, r, "size", "B");
	if (d->kind == FB_CONTENTION || d->kind == FB_LOCK)
		*want_cont = 1;
}

struct fb_session *fb_session_open(const char *const *pat, int npat,
				   const struct fb_probe_def *extra, int nextra)
{
	struct fb_session *s = calloc(1, sizeof(*s));
	int want_cont = 0, err;

	if (!s) {
		fb_err("out of memory");
		return NULL;
	}
	s->ablate = fb_ablate();	/* FB_ABLATE, as `run` parsed it */
	s->stash_task = !(s->ablate & FB_ABL_TIDHASH);
	cur = s;
	libbpf_set_print(libbpf_print);
	s->ks = fb_ksyms_load();
	if (!s->ks || create_maps(s) < 0) {
		if (!s->ks)
			fb_err("cannot read /proc/kallsyms");
		fb_session_close(s);
		return NULL;
	}
	for (int i = 0; i < fb_nprobes; i++)
		if (fb_probe_wanted(&fb_probes[i], pat, npat))
			add_row(s, &fb_probes[i], &want_cont);
	for (int i = 0; i < nextra; i++)
		add_row(s, &extra[i], &want_cont);
	err = open_cont(s, want_cont);
	if (err)
		fb_info("tracepoint programs did not load: %s", strerror(-err));
	for (int i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		if (r->def->inst_sym && !r->def->unresolved)
			resolve(s, r, r->def->inst_deref ? deref(s, r->def->inst_sym) : 0);
		if (r->def->kind == FB_FUNC)
			attach_func_row(s, r);
		else if (r->def->kind == FB_LOCK)
			lock_row_slots(s, r);
	}
	attach_tracepoints(s);
	attach_locks(s);
	active = s;
	return s;	/* recording disabled: nothing of the setup is counted */
}

/*
 * The enabled flag of every program (fbrecord.bpf.h).  The first time it is
 * set, /proc/lock_stat (LOCK_STAT kernels) is zeroed too, so the lock_stat
 * rows also count from the first measured phase on.
 */
void fb_session_enable(struct fb_session *s, int on)
{
	if (!s)
		return;
	if (on && !s->started && !access("/proc/lock_stat", W_OK))
		fb_write_file("/proc/lock_stat", "0\n");
	s->started |= on;
	fb_record_enable(&s->rec, on);
}

int fb_session_attached(const struct fb_session *s)
{
	int n = 0;

	for (int i = 0; i < s->nrows; i++)
		n += s->rows[i].res.status == FB_ATTACHED;
	return n;
}

static void collect_contention(struct fb_session *s, struct fb_result *res)
{
	struct fb_named_lock named[FB_MAX_PROBES];
	int n = 0;

	if (!s->cont || !s->cont->links.fb_cont_end)
		return;
	for (int i = 0; i < s->nrows; i++)
		if (s->rows[i].def->kind == FB_LOCK && s->rows[i].inst)
			named[n++] = (struct fb_named_lock){ s->rows[i].inst, s->rows[i].def->name };
	fb_contention_collect(bpf_map__fd(s->cont->maps.cont), s->ks, named, n, res);
}

static void phase_set(struct fb_counts *ops, const char *phase, const char *row,
		      const char *suffix, const struct fb_hist *h)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_%s%s", phase, row, suffix);
	fb_count_set(ops, key, h->count);
	snprintf(key, sizeof(key), "%s_%s%s_hold_ns", phase, row, suffix);
	fb_count_set(ops, key, h->sum);
}

/*
 * The phase hook: each lock row's write (exclusive) acquisitions and hold
 * total so far, as "<phase>_<row>" and "<phase>_<row>_hold_ns" (BPF rows
 * also "<phase>_<row>_read..." for rwsem readers); where /proc/lock_stat
 * exists too, its class figures as "<phase>_<row>_lockstat...".
 */
void fb_lock_stat_snapshot(struct fb_counts *ops, const char *phase)
{
	for (int i = 0; i < fb_nprobes; i++) {
		const struct fb_probe_def *d = &fb_probes[i];
		const struct row *r = NULL;
		struct fb_hist h = {}, w = {};
		int bpf;

		for (int j = 0; active && j < active->nrows; j++)
			if (active->rows[j].def == d)
				r = &active->rows[j];
		if (d->kind != FB_LOCK)
			continue;
		bpf = r && r->res.status == FB_ATTACHED && strcmp(r->res.method, "lock_stat");
		if (bpf) {
			fb_record_read(&active->rec, r->slot[0], &h);
			phase_set(ops, phase, d->name, "", &h);
		}
		if (bpf && r->res.nstats > 2) {
			memset(&h, 0, sizeof(h));
			fb_record_read(&active->rec, r->slot[2], &h);
			phase_set(ops, phase, d->name, "_read", &h);
		}
		memset(&h, 0, sizeof(h));
		if (!fb_lock_stat_read(d->lock_class, &h, &w))
			phase_set(ops, phase, d->name, bpf ? "_lockstat" : "", &h);
	}
}

void fb_session_collect(struct fb_session *s, struct fb_result *res)
{
	res->nprobes = 0;
	for (int i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		if (!strcmp(r->res.method, "lock_stat"))
			continue;	/* filled from lock_stat below */
		for (int j = 0; j < r->res.nstats; j++) {
			char unit[8];

			memcpy(unit, r->res.stats[j].h.unit, sizeof(unit));
			memset(&r->res.stats[j].h, 0, sizeof(r->res.stats[j].h));
			memcpy(r->res.stats[j].h.unit, unit, sizeof(unit));
			if (r->res.status == FB_ATTACHED)
				fb_record_read(&s->rec, r->slot[j], &r->res.stats[j].h);
		}
	}
	collect_lock_stat(s);
	for (int i = 0; i < s->nrows; i++)
		res->probes[res->nprobes++] = s->rows[i].res;
	collect_contention(s, res);
}

void fb_session_close(struct fb_session *s)
{
	if (!s)
		return;
	fb_locks_close(s->locks);
	for (int i = 0; i < s->ninst; i++)
		fbfunc_bpf__destroy(s->inst[i].skel);
	fbcont_bpf__destroy(s->cont);
	fb_record_close(&s->rec);
	for (int *fd = &s->watched_fd; fd <= &s->starts_fd; fd++)
		if (*fd > 0)
			close(*fd);
	btf__free(s->btf);
	fb_ksyms_free(s->ks);
	if (cur == s)
		cur = NULL;
	if (active == s)
		active = NULL;
	free(s);
}
