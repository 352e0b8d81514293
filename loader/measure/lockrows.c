// SPDX-License-Identifier: GPL-2.0
/*
 * lockrows.c - the catalogue's lock rows: hold histograms of the instance
 * by BPF (locks.c), waits from lock:contention_begin/end (tprows.c), else
 * the instance's class in /proc/lock_stat; and the phase hook that
 * snapshots them when a workload marks the end of a phase.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "fbcont.skel.h"
#include "fbprobe.h"
#include "measure/locks.h"
#include "measure/observer.h"
#include "measure/session.h"
#include "measure/sysinfo.h"

/* ---- lock rows: BPF hold histograms (locks.c), else /proc/lock_stat ---- */

/*
 * Stats of a lock row: hold and wait (exclusive side: the write side of an
 * rwsem), and for rwsems hold_read and wait_read.  Attached later, all at
 * once, by attach_locks().
 */
void lock_row_slots(struct fb_session *s, struct row *r)
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

/* Tells fbcont which addresses are lock rows, so their waits get histograms. */
static void watch_waits(struct fb_session *s, const struct row *r, int i)
{
	if (!s->cont || i >= FB_MAX_LOCKS)
		return;
	s->cont->bss->wlock_slot[i] = (unsigned int)r->slot[1];
	s->cont->bss->wlock_rslot[i] = (unsigned int)r->slot[r->res.nstats > 2 ? 3 : 1];
	s->cont->bss->wlock_addr[i] = r->inst;
}

void attach_locks(struct fb_session *s)
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
		reason_add(r, "instance 0x%llx; hold: %s to release entry, same task; "
			   "wait: lock:contention_begin/end on the instance",
			   (unsigned long long)r->inst, strncmp(w[i].method, "fexit", 5) ?
			   "acquire entry (after a wait: contention_end)" : "acquire return");
		watch_waits(s, r, i);
	}
}

void collect_lock_stat(struct fb_session *s)
{
	for (int i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		if (r->def->kind == FB_LOCK && !strcmp(r->res.method, "lock_stat"))
			fb_lock_stat_read(r->def->lock_class, &r->res.stats[0].h,
					  &r->res.stats[1].h);
	}
}

/*
 * Each BPF lock row's holds (write + read) released by foliobench's
 * children, as the extra value "child_holds.<row>" (locks.h).
 */
void collect_child_holds(const struct fb_session *s, struct fb_result *res)
{
	for (int i = 0; s->locks && i < s->nrows; i++) {
		const struct row *r = &s->rows[i];
		char key[64];
		uint64_t n;

		if (r->def->kind != FB_LOCK || r->res.status != FB_ATTACHED ||
		    !strcmp(r->res.method, "lock_stat"))
			continue;
		n = fb_locks_child_holds(s->locks, r->slot[0]);
		if (r->res.nstats > 2)
			n += fb_locks_child_holds(s->locks, r->slot[2]);
		snprintf(key, sizeof(key), "child_holds.%s", r->res.name);
		fb_extra_set(res, key, (double)n);
	}
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

/* "<phase>_<row><suffix>_p50_ns" and _p99_ns from the histogram so far */
static void phase_pcts(struct fb_counts *ops, const char *phase, const char *row,
		       const char *suffix, const struct fb_hist *h)
{
	char key[64];

	if (!h->count)
		return;
	snprintf(key, sizeof(key), "%s_%s%s_p50_ns", phase, row, suffix);
	fb_count_set(ops, key, (uint64_t)(fb_hist_percentile(h, 50) + 0.5));
	snprintf(key, sizeof(key), "%s_%s%s_p99_ns", phase, row, suffix);
	fb_count_set(ops, key, (uint64_t)(fb_hist_percentile(h, 99) + 0.5));
}

/*
 * A function row that ran: "<phase>_<row>_calls" and "<phase>_<row>_ns"
 * (the time in it so far), so a phase's share of a call's cost (the
 * registration's get_device_parent() against the removal's) is exact.
 */
static void phase_func(struct fb_counts *ops, const char *phase, const struct row *r)
{
	struct fb_hist h = {};
	char key[64];

	if (r->res.status != FB_ATTACHED || !r->res.nstats)
		return;
	fb_record_read(&fb_active_session->rec, r->slot[0], &h);
	if (!h.count)
		return;
	snprintf(key, sizeof(key), "%s_%s_calls", phase, r->def->name);
	fb_count_set(ops, key, h.count);
	snprintf(key, sizeof(key), "%s_%s_ns", phase, r->def->name);
	fb_count_set(ops, key, h.sum);
}

/*
 * The write holds released by the end of the first phase a workload marks:
 * the row's stat "hold@<phase>" (fb_session_collect), the phase's own
 * distribution where the whole run's mixes two (gdp_mutex: registration
 * and removal holds, catalogue.c).
 */
static void keep_phase(struct fb_phase_snap *snap, const char *phase, const struct fb_hist *h)
{
	if (snap->phase[0] || strlen(phase) >= sizeof(snap->phase))
		return;
	snap->hold = *h;
	snprintf(snap->hold.unit, sizeof(snap->hold.unit), "ns");
	snprintf(snap->phase, sizeof(snap->phase), "%s", phase);
}

/* The plugin's phase mark (observer.h), once, if a plugin observes. */
static void plugin_phase(struct fb_counts *ops, const char *phase)
{
	static int marked;
	char key[40];

	if (fb_observer_guest() == FB_OBS_BPF || marked++)
		return;
	syscall(SYS_sched_rr_get_interval, 0, NULL);	/* -EFAULT: only its entry counts */
	snprintf(key, sizeof(key), "%.27s_plugin_mark", phase);
	fb_count_set(ops, key, 1);
}

/*
 * The phase hook: each lock row's write (exclusive) acquisitions and hold
 * total so far, as "<phase>_<row>" and "<phase>_<row>_hold_ns" (BPF rows
 * also "<phase>_<row>_read..." for rwsem readers, and the write holds' p50
 * and p99 so far, "<phase>_<row>_p50_ns", "..._p99_ns"); where
 * /proc/lock_stat exists too, its class figures as
 * "<phase>_<row>_lockstat...".  Function rows (catalogue and ad hoc) that
 * ran: phase_func().
 */
void fb_lock_stat_snapshot(struct fb_counts *ops, const char *phase)
{
	plugin_phase(ops, phase);
	for (int j = 0; fb_active_session && j < fb_active_session->nrows; j++)
		if (fb_active_session->rows[j].def->kind == FB_FUNC)
			phase_func(ops, phase, &fb_active_session->rows[j]);
	for (int i = 0; i < fb_nprobes; i++) {
		const struct fb_probe_def *d = &fb_probes[i];
		const struct row *r = NULL;
		struct fb_hist h = {}, w = {};
		int bpf;

		for (int j = 0; fb_active_session && j < fb_active_session->nrows; j++)
			if (fb_active_session->rows[j].def == d)
				r = &fb_active_session->rows[j];
		if (d->kind != FB_LOCK)
			continue;
		bpf = r && r->res.status == FB_ATTACHED && strcmp(r->res.method, "lock_stat");
		if (bpf) {
			fb_record_read(&fb_active_session->rec, r->slot[0], &h);
			phase_set(ops, phase, d->name, "", &h);
			phase_pcts(ops, phase, d->name, "", &h);
			if (fb_active_session->phase)
				keep_phase(&fb_active_session->phase[r - fb_active_session->rows],
					   phase, &h);
		}
		if (bpf && r->res.nstats > 2) {
			memset(&h, 0, sizeof(h));
			fb_record_read(&fb_active_session->rec, r->slot[2], &h);
			phase_set(ops, phase, d->name, "_read", &h);
		}
		memset(&h, 0, sizeof(h));
		if (!fb_lock_stat_read(d->lock_class, &h, &w))
			phase_set(ops, phase, d->name, bpf ? "_lockstat" : "", &h);
	}
}

