// SPDX-License-Identifier: GPL-2.0
/*
 * adhoc.c - rows from `run --func` and `run --lock` (measure/adhoc.h).
 *
 * A --func row is a catalogue function row with one candidate: fentry/fexit,
 * else kprobe/kretprobe, else unavailable with the reasons.  A --lock row is
 * a catalogue lock row (locks.c): its instance is the kallsyms data symbol,
 * plus MEMBER's offset (SYM.MEMBER) or after reading the pointer SYM
 * (SYM->MEMBER).  The lock type decides which functions are watched and
 * comes from BTF: MEMBER's type in the struct holding it; for a plain SYM
 * its BTF variable where the kernel has one (pahole >= 1.28 global_var),
 * else every type's functions are watched (FB_LK_ANY).  Without the
 * variable's type, SYM.MEMBER's struct is the one struct in BTF whose
 * member MEMBER is a lock; several at different offsets make the row
 * unavailable, naming them.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "measure/adhoc.h"

/* The lock type of BTF type id (typedefs and qualifiers skipped), or FB_LK_NONE. */
static enum fb_lock_type lock_type_of(const struct btf *btf, int id)
{
	static const struct {
		const char *name;
		enum fb_lock_type type;
	} locks[] = {
		{ "mutex", FB_LK_MUTEX }, { "rw_semaphore", FB_LK_RWSEM },
		{ "spinlock", FB_LK_SPIN }, { "raw_spinlock", FB_LK_SPIN },
	};
	const struct btf_type *t;
	const char *name;

	id = id > 0 ? btf__resolve_type(btf, (unsigned int)id) : -1;
	t = id > 0 ? btf__type_by_id(btf, (unsigned int)id) : NULL;
	if (!t || !btf_is_struct(t))
		return FB_LK_NONE;
	name = btf__name_by_offset(btf, t->name_off);
	for (size_t i = 0; name && i < sizeof(locks) / sizeof(locks[0]); i++)
		if (!strcmp(name, locks[i].name))
			return locks[i].type;
	return FB_LK_NONE;
}

/* The lock type and byte offset of member m of struct t; FB_LK_NONE if none. */
static enum fb_lock_type member_lock(const struct btf *btf, const struct btf_type *t,
				     const char *m, long *off)
{
	const struct btf_member *bm = btf_members(t);

	for (unsigned int i = 0; i < btf_vlen(t); i++, bm++) {
		if (strcmp(btf__name_by_offset(btf, bm->name_off), m))
			continue;
		*off = (long)(btf_member_bit_offset(t, i) / 8);
		return lock_type_of(btf, (int)bm->type);
	}
	return FB_LK_NONE;
}

/* The struct the variable sym is (deref: points to), from a BTF VAR; or NULL. */
static const struct btf_type *var_struct(const struct btf *btf, const char *sym, int deref)
{
	int id = btf__find_by_name_kind(btf, sym, BTF_KIND_VAR);
	const struct btf_type *t;

	id = id > 0 ? btf__resolve_type(btf, (unsigned int)id) : -1;
	t = id > 0 ? btf__type_by_id(btf, (unsigned int)id) : NULL;
	if (t && deref && btf_is_ptr(t)) {
		id = btf__resolve_type(btf, t->type);
		t = id > 0 ? btf__type_by_id(btf, (unsigned int)id) : NULL;
	} else if (deref) {
		t = NULL;
	}
	return t && btf_is_struct(t) ? t : NULL;
}

/*
 * The one named struct whose member MEMBER is a lock (several at one offset
 * and type count as one): its name into out, the type; else FB_LK_NONE and why.
 */
static enum fb_lock_type find_member(const struct btf *btf, const struct fb_lock_spec *l,
				     char *out, size_t olen, char *why, size_t wlen)
{
	enum fb_lock_type type = FB_LK_NONE;
	long off0 = -1, off;
	int others = 0;

	for (unsigned int id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		enum fb_lock_type lt;
		size_t n;

		if (!btf_is_struct(t) || !t->name_off || !(lt = member_lock(btf, t, l->member, &off)))
			continue;
		if (type == FB_LK_NONE) {
			type = lt;
			off0 = off;
			snprintf(out, olen, "%s", btf__name_by_offset(btf, t->name_off));
		} else if (lt != type || off != off0) {
			if (!others++)
				fb_fmt(why, wlen, "no BTF type for %s, and %s is a lock member at "
				       "different offsets of struct %s", l->sym, l->member, out);
			n = strlen(why);
			fb_fmt(why + n, wlen - n, ", %s", btf__name_by_offset(btf, t->name_off));
		}
	}
	if (type == FB_LK_NONE)
		snprintf(why, wlen, "no struct in this kernel's BTF has a lock member '%s'",
			 l->member);
	return others ? FB_LK_NONE : type;
}

/* The lock row for spec l: type, member path, or the reason it has none. */
static void resolve_lock(struct fb_adhoc *a, struct fb_probe_def *d, const struct btf *btf,
			 const struct fb_lock_spec *l)
{
	char *why = a->why[a->n], st[FB_SYM_MAX + 1] = "";
	const struct btf_type *t = btf ? var_struct(btf, l->sym, l->deref) : NULL;
	int id;
	long off;

	d->lock_type = FB_LK_ANY;
	if (!l->member[0]) {
		d->lock_class = d->inst_sym;	/* DEFINE_MUTEX(x) and friends: class "x" */
		id = btf ? btf__find_by_name_kind(btf, l->sym, BTF_KIND_VAR) : -1;
		if (id > 0 && lock_type_of(btf, id) == FB_LK_NONE)
			snprintf(why, sizeof(a->why[0]), "%s is not a mutex, rw_semaphore or "
				 "spinlock in this kernel's BTF", l->sym);
		else if (id > 0)
			d->lock_type = lock_type_of(btf, id);
	} else if (!btf) {
		snprintf(why, sizeof(a->why[0]), "no kernel BTF to find member %s", l->member);
	} else if (t) {
		d->lock_type = member_lock(btf, t, l->member, &off);
		snprintf(st, sizeof(st), "%s", btf__name_by_offset(btf, t->name_off));
		if (d->lock_type == FB_LK_NONE)
			snprintf(why, sizeof(a->why[0]), "struct %s has no lock member %s", st,
				 l->member);
	} else {
		d->lock_type = find_member(btf, l, st, sizeof(st), why, sizeof(a->why[0]));
	}
	if (why[0]) {
		d->unresolved = why;
		d->lock_type = d->lock_type ? d->lock_type : FB_LK_ANY;
		return;
	}
	if (l->member[0]) {
		snprintf(a->member[a->n], sizeof(a->member[0]), "%s.%s", st, l->member);
		d->inst_member = a->member[a->n];
	}
}

/* 1 if name is a row of the run already: a selected catalogue row or an earlier ad-hoc one. */
static int taken(const struct fb_adhoc *a, const struct fb_adhoc_args *in, const char *name)
{
	const struct fb_probe_def *d = fb_probe_find(name);

	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->defs[i].name, name))
			return 1;
	return d && fb_probe_wanted(d, in->pat, in->npat);
}

/* A new row named name (not yet a row of the run), or NULL. */
static struct fb_probe_def *new_def(struct fb_adhoc *a, const struct fb_adhoc_args *in,
				    const char *opt, const char *name)
{
	struct fb_probe_def *d = &a->defs[a->n];

	if (taken(a, in, name)) {
		fb_info("run: %s %s: already a row of this run", opt, name);
		return NULL;
	}
	snprintf(a->name[a->n], sizeof(a->name[0]), "%s", name);
	*d = (struct fb_probe_def){
		.name = a->name[a->n], .series = "-", .adhoc = 1,
		.proves = "ad-hoc row (run --func/--lock)",
	};
	return d;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* One --func argument: its name, or its glob's matches, as rows. */
static int add_funcs(struct fb_adhoc *a, const struct fb_ksyms *ks, const struct fb_adhoc_args *in,
		     const char *arg, int *nfunc, char *err, size_t len)
{
	const char *names[FB_ADHOC_FUNCS + 1] = { arg };
	int n = 1;

	if (fb_func_spec_check(arg, err, len))
		return -1;
	if (fb_func_spec_is_glob(arg))
		n = fb_ksym_funcs(ks, arg, names, FB_ADHOC_FUNCS);
	if (!n) {
		snprintf(err, len, "--func '%s' matches no function in /proc/kallsyms", arg);
		return -1;
	}
	if (n > FB_ADHOC_FUNCS) {
		snprintf(err, len, "--func '%s' matches more than %d functions: narrow the pattern",
			 arg, FB_ADHOC_FUNCS);
		return -1;
	}
	qsort(names, (size_t)n, sizeof(names[0]), by_name);
	for (int i = 0; i < n; i++) {
		struct fb_probe_def *d;

		if (strlen(names[i]) > FB_SYM_MAX) {
			snprintf(err, len, "--func '%s' matches %.60s..., longer than %d characters",
				 arg, names[i], FB_SYM_MAX);
			return -1;
		}
		d = new_def(a, in, "--func", names[i]);
		if (!d)
			continue;
		if (++*nfunc > FB_ADHOC_FUNCS) {
			snprintf(err, len, "--func: more than %d functions in all", FB_ADHOC_FUNCS);
			return -1;
		}
		d->kind = FB_FUNC;
		d->syms[0] = d->name;
		a->n++;
	}
	return 0;
}

/* One --lock argument as a row (BTF loaded on first use into *btf). */
static int add_lock(struct fb_adhoc *a, struct btf **btf, const struct fb_adhoc_args *in,
		    const char *arg, char *err, size_t len)
{
	struct fb_lock_spec l;
	struct fb_probe_def *d;

	if (fb_lock_spec_parse(arg, &l, err, len))
		return -1;
	d = new_def(a, in, "--lock", arg);
	if (!d)
		return 0;
	snprintf(a->sym[a->n], sizeof(a->sym[0]), "%s", l.sym);
	d->kind = FB_LOCK;
	d->inst_sym = a->sym[a->n];
	d->inst_deref = l.deref;
	if (!*btf)
		*btf = btf__load_vmlinux_btf();
	resolve_lock(a, d, *btf, &l);
	a->n++;
	return 0;
}

int fb_adhoc_build(struct fb_adhoc *a, const struct fb_ksyms *ks, const struct fb_adhoc_args *in,
		   char *err, size_t len)
{
	struct btf *btf = NULL;
	int nfunc = 0, slots = 0, ret = 0;

	memset(a, 0, sizeof(*a));
	if (in->nlock > FB_ADHOC_LOCKS) {
		snprintf(err, len, "--lock: at most %d ad-hoc locks per run", FB_ADHOC_LOCKS);
		return -1;
	}
	for (int i = 0; i < in->nfunc && !ret; i++)
		ret = add_funcs(a, ks, in, in->func[i], &nfunc, err, len);
	for (int i = 0; i < in->nlock && !ret; i++)
		ret = add_lock(a, &btf, in, in->lock[i], err, len);
	btf__free(btf);
	for (int i = 0; i < fb_nprobes; i++)
		if (fb_probe_wanted(&fb_probes[i], in->pat, in->npat))
			slots += fb_probe_slots(&fb_probes[i]);
	for (int i = 0; i < a->n; i++)
		slots += fb_probe_slots(&a->defs[i]);
	if (!ret && slots > FB_MAX_SLOTS) {
		snprintf(err, len, "%d histograms for the rows of this run, at most %d: fewer "
			 "--func/--lock, or leave catalogue rows out with --probes", slots,
			 FB_MAX_SLOTS);
		ret = -1;
	}
	return ret;
}
