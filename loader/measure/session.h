/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - the probe session's insides, shared by the files that attach
 * its rows (measure/ only): probes.c (the session, function rows, instance
 * resolution), lockrows.c (lock rows: BPF holds or /proc/lock_stat),
 * tprows.c (the tracepoint object: contention, kmalloc call sites, the
 * pointer resolver).
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdint.h>

#include "fbhist.h"
#include "measure/catalogue.h"
#include "measure/probes.h"
#include "measure/record.h"
#include "model/fb.h"

struct fbcont_bpf;
struct fbfunc_bpf;
struct fb_locks;
struct fb_ksyms;
struct btf;

#define MAX_INST 48

struct row {
	const struct fb_probe_def *def;
	struct fb_probe_result res;
	int slot[FB_MAX_STATS];
	uint64_t inst;			/* resolved instance address */
};

/*
 * A BPF lock row's write holds at the workload's first phase mark
 * (lockrows.c).  In memory shared with the workloads' forked children:
 * they mark the phases.
 */
struct fb_phase_snap {
	/* short enough that "hold@<phase>" fits a stat's name */
	char phase[sizeof(((struct fb_probe_result *)0)->stats[0].name) - sizeof("hold@") + 1];
	struct fb_hist hold;
};

struct inst {
	struct fbfunc_bpf *skel;	/* fentry/fexit or kprobe/kretprobe, or */
	struct fbsess_bpf *sess;	/* one fsession program */
	char fn[64];
	unsigned int slot;
	char method[32];
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
	struct fb_phase_snap *phase;	/* [FB_MAX_PROBES], MAP_SHARED; NULL: none kept */
	int nrows;
	int nslots;
	int ablate;			/* FB_ABLATE bits, diagnostics only */
	int stash_task;			/* entry times in task storage (fbfunc.bpf.c) */
	int fsession;			/* function rows try fsession (fbsess.bpf.c) */
	char liblog[4096];		/* last libbpf messages, for reasons */
};

extern struct fb_session *fb_active_session;	/* the open session, for the phase hook */

/* probes.c: a row's reasons, histogram slots and status */
void reason_add(struct row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int new_slot(struct fb_session *s, struct row *r, const char *name, const char *unit);
void set_status(struct row *r, enum fb_probe_status status, const char *method,
		const char *sym);

/* lockrows.c */
void lock_row_slots(struct fb_session *s, struct row *r);
void attach_locks(struct fb_session *s);
void collect_lock_stat(struct fb_session *s);
void collect_child_holds(const struct fb_session *s, struct fb_result *res);

/* tprows.c */
int open_cont(struct fb_session *s, int want_cont);
uint64_t cont_deref(struct fb_session *s, const char *sym);
int attach_cont(struct fb_session *s);
void attach_tracepoints(struct fb_session *s);
void collect_contention(struct fb_session *s, struct fb_result *res);

#endif /* SESSION_H */
