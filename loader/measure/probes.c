// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - probe-then-choose attachment of the catalogue's rows: the
 * session, function rows and instance resolution (lock rows: lockrows.c;
 * tracepoint rows: tprows.c; their shared insides: session.h).
 *
 * Function rows: one fsession program (fbsess) where the kernel has them,
 * else fentry/fexit, else kprobe/kretprobe, else unavailable with the
 * reasons of the attempts.  Each hooked function gets its own instance of
 * the generic fbsess or fbfunc object (rodata: slot, filter), retargeted
 * with bpf_program__set_attach_target(); all instances share the
 * loader-created maps.  Lock rows resolve their instance address here
 * (kallsyms, an optional pointer read by a raw tracepoint program, a BTF
 * member offset)
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fbcont.skel.h"
#include "fbfunc.skel.h"
#include "fbsess.skel.h"
#include "fbprobe.h"
#include "measure/attach.h"
#include "measure/ksyms.h"
#include "measure/locks.h"
#include "measure/probes.h"
#include "measure/record.h"
#include "measure/session.h"

static struct fb_session *cur;	/* for the libbpf print callback */

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

/* a function row instance's shared maps (bpf/fbrow.bpf.h), either object */
static int reuse_row_maps(struct fb_session *s, struct bpf_map *hist, struct bpf_map *stats,
			  struct bpf_map *ctl, struct bpf_map *watched)
{
	int err = fb_record_reuse(&s->rec, hist, stats, ctl);

	return err ? err : bpf_map__reuse_fd(watched, s->watched_fd);
}

static int reuse_maps(struct fb_session *s, struct fbfunc_bpf *k)
{
	int err = reuse_row_maps(s, k->maps.hist, k->maps.stats, k->maps.ctl, k->maps.watched);

	return err ? err : bpf_map__reuse_fd(k->maps.starts, s->starts_fd);
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

/* BPF_TRACE_FSESSION (uapi since 7.0); libbpf 1.1 knows no section for it */
#define FB_TRACE_FSESSION 58

/* fn's row as one fsession program; 0 or -errno (no such kernel support: -EINVAL) */
static int try_session(struct fb_session *s, struct inst *in, int filter)
{
	struct fbsess_bpf *k = fbsess_bpf__open();
	int err;

	if (!k)
		return -errno;
	k->rodata->slot = in->slot;
	k->rodata->filter = (unsigned int)filter;
	err = reuse_row_maps(s, k->maps.hist, k->maps.stats, k->maps.ctl, k->maps.watched);
	if (!err)
		err = bpf_program__set_expected_attach_type(k->progs.fb_session,
							    (enum bpf_attach_type)FB_TRACE_FSESSION);
	if (!err)
		err = bpf_program__set_attach_target(k->progs.fb_session, 0, in->fn);
	if (!err)
		err = fbsess_bpf__load(k);
	if (!err) {
		k->links.fb_session = bpf_program__attach(k->progs.fb_session);
		err = k->links.fb_session ? 0 : -errno;
	}
	if (err) {
		fbsess_bpf__destroy(k);
		return err < 0 ? err : -EINVAL;
	}
	in->sess = k;
	snprintf(in->method, sizeof(in->method), "fsession");
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
 * fsession first (FB_FUNCHOOK=pair or any FB_ABLATE: the fentry/fexit
 * pair, whose parts the diagnostics switch off); a kernel where fsession
 * fails and the pair attaches has none: the session stops trying it.
 */
static int try_func(struct fb_session *s, struct inst *in, int filter)
{
	int err;

	if (!s->fsession)
		return try_instance(s, in, filter, 0);
	if (!try_session(s, in, filter))
		return 0;
	err = try_instance(s, in, filter, 0);
	if (!err) {
		s->fsession = 0;
		fb_info("no fsession programs here (BPF_TRACE_FSESSION): fentry/fexit");
	}
	return err;
}

/*
 * Attaches fn, trying fsession or fentry/fexit, then kprobe/kretprobe (never
 * two at once).  Returns the instance or NULL with the reasons in r.
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
	err = fb_attach_mode() == FB_ATTACH_KPROBE ? -ECANCELED : try_func(s, in, filter);
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
	snprintf(r->res.gate, sizeof(r->res.gate), "%s", d->gate ? d->gate : "");
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
	s->fsession = !s->ablate && !fb_funchook_pair();
	cur = s;
	libbpf_set_print(libbpf_print);
	s->ks = fb_ksyms_load();
	s->phase = mmap(NULL, sizeof(*s->phase) * FB_MAX_PROBES, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->phase == MAP_FAILED)
		s->phase = NULL;	/* the rows' phase stats are left out */
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
			resolve(s, r, r->def->inst_deref ? cont_deref(s, r->def->inst_sym) : 0);
		if (r->def->kind == FB_FUNC)
			attach_func_row(s, r);
		else if (r->def->kind == FB_LOCK)
			lock_row_slots(s, r);
	}
	attach_tracepoints(s);
	attach_locks(s);
	fb_active_session = s;
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

/* a reason that says the kernel cannot trace functions at all, not that one symbol is missing */
static int kernel_refuses(const char *why)
{
	return strstr(why, errno_hint(EPERM)) || strstr(why, "no kprobe support");
}

int fb_session_timing_rows(const struct fb_session *s, int *n, const char **why)
{
	int att = 0;

	*n = 0;
	*why = NULL;
	for (int i = 0; i < s->nrows; i++) {
		const struct fb_probe_result *p = &s->rows[i].res;

		if (p->kind != FB_FUNC && p->kind != FB_LOCK)
			continue;
		(*n)++;
		if (p->status == FB_ATTACHED)
			att++;
		else if (!*why && kernel_refuses(p->reason))
			*why = p->reason;
	}
	return att;
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
	for (int i = 0; i < s->nrows; i++) {
		struct fb_probe_result *p = &res->probes[res->nprobes++];

		*p = s->rows[i].res;
		if (s->phase && s->phase[i].phase[0] && p->nstats < FB_MAX_STATS) {
			snprintf(p->stats[p->nstats].name, sizeof(p->stats[0].name), "hold@%s",
				 s->phase[i].phase);
			p->stats[p->nstats++].h = s->phase[i].hold;
		}
	}
	collect_contention(s, res);
	collect_child_holds(s, res);
}

void fb_session_close(struct fb_session *s)
{
	if (!s)
		return;
	fb_locks_close(s->locks);
	for (int i = 0; i < s->ninst; i++) {
		fbfunc_bpf__destroy(s->inst[i].skel);
		fbsess_bpf__destroy(s->inst[i].sess);
	}
	fbcont_bpf__destroy(s->cont);
	fb_record_close(&s->rec);
	for (int *fd = &s->watched_fd; fd <= &s->starts_fd; fd++)
		if (*fd > 0)
			close(*fd);
	btf__free(s->btf);
	fb_ksyms_free(s->ks);
	if (s->phase)
		munmap(s->phase, sizeof(*s->phase) * FB_MAX_PROBES);
	if (cur == s)
		cur = NULL;
	if (fb_active_session == s)
		fb_active_session = NULL;
	free(s);
}
