// SPDX-License-Identifier: GPL-2.0
/*
 * tprows.c - the tracepoint object (fbcont): kmalloc call-site rows,
 * lock:contention_begin/end for the contention table and the lock rows'
 * waits, and the one-shot pointer resolver for instances behind a pointer.
 * It loads on kernels that refuse tracing programs.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fbcont.skel.h"
#include "fbprobe.h"
#include "measure/contention.h"
#include "measure/ksyms.h"
#include "measure/session.h"

/* The address range of a call-site row's function: its first candidate in kallsyms. */
static int callsite(struct fb_session *s, const struct fb_probe_def *d, uint64_t *lo, uint64_t *hi)
{
	for (int i = 0; i < FB_MAX_CAND && d->syms[i]; i++)
		if (fb_ksym_lookup(s->ks, d->syms[i], lo, hi) == 0)
			return 0;
	return -1;
}

int open_cont(struct fb_session *s, int want_cont)
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
uint64_t cont_deref(struct fb_session *s, const char *sym)
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
int attach_cont(struct fb_session *s)
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

void attach_tracepoints(struct fb_session *s)
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

void collect_contention(struct fb_session *s, struct fb_result *res)
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

