// SPDX-License-Identifier: GPL-2.0
/*
 * fbholds.c - the plugin's lock words (fbobs.h): per lock word address,
 * the acquisitions its acquire functions made and how long each was held,
 * in guest instructions, with no register read (plugin API v1).
 *
 * Acquire: an atomic (lock-prefixed) instruction of an acquire function
 * ("lockfn") names the lock word by its memory access.  qemu 7.2 leaves an
 * instruction's memory callbacks armed past its translation block, so they
 * also fire for later accesses of other instructions: the instruction's
 * exec callback arms, the memory callback counts once and disarms.  The
 * acquisition waits, per lock group, for its acquire function's ret (or
 * the ret of the slow path it jumps to, "lockret"): there the hold starts.
 *
 * Release: the entry of a release function ("unlockfn") is the hold's
 * end; the first access its body then makes to a held lock word says
 * which word (a mutex's owner cmpxchg, an rwsem's count xadd, a spinlock's
 * byte store); a ret in its body ends the release.  Releases nest (BPF's
 * programs inside a release function release their own spinlocks): the
 * innermost one that has not yet closed a hold takes the access.  An entry within CHAIN
 * instructions of the last (a tail call: _raw_spin_unlock_irqrestore
 * jumping to __raw_spin_unlock_irqrestore) keeps the first entry's time.
 *
 * An acquisition whose word is still held (a trylock that failed: lockdep
 * kernels try first, and API v1 cannot read its result) opens nothing and
 * counts as busy.
 *
 * So a hold is the guest instructions from the acquire's return to the
 * release's entry, as BPF's fexit method defines it, without BPF's own.
 * Words, not tasks: a word is held by one task at a time (exclusive locks
 * only: mutex, rwsem write side, spinlock).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fbobs.h"

#define LOCK_SLOTS	(1 << 17)
#define LOCK_PROBES	256	/* then the word is not counted (lockfull) */
#define LOCK_TOP	512	/* lock words written besides the spec's lockinst ones */
#define MAX_INST	16
#define MAX_PENDING	64
#define CHAIN		8

/* A histogram of fbhist.h's buckets, sparse: a lock's holds fill a few. */
struct hstat {
	uint64_t n, sum, min, max;
	uint32_t nb, cap;
	struct bucket {
		uint32_t b;
		uint64_t c;
	} *e;
};

struct lock_word {
	uint64_t addr, count;	/* addr 0: an empty slot */
	uint64_t t0;		/* the open hold's start */
	uint64_t opened, busy;	/* holds opened; attempts on a held word */
	uint64_t phase_opened;	/* opened by the first phase mark */
	int w, open;
	struct hstat hold, phase;
};

/* An acquisition whose atomic was seen, waiting for its function's ret. */
struct pending {
	struct lock_word *l;
	int group;
};

static struct lock_word lock_words[LOCK_SLOTS];
static int lock_armed = -1, lock_full;
static uint64_t lock_inst[MAX_INST];	/* always written */
static int ninst;
static struct pending pending[MAX_PENDING];
static int npending;
static uint64_t pending_lost;
#define MAX_GROUP	8
#define MAX_NEST	16
/*
 * Per group, the releases in progress, innermost last: their entries, and
 * whether each has closed its hold (a release inside a release: BPF's
 * programs inside a release function take and drop their own spinlocks).
 */
static struct rel {
	uint64_t t;
	int done;
} rels[MAX_GROUP][MAX_NEST];
static int nrel[MAX_GROUP];
static int phased;

static struct lock_word *word(uint64_t va, int create)
{
	uint64_t h = ((va ^ (va >> 12)) * 0x9e3779b97f4a7c15ull) >> 40;

	for (unsigned int k = 0; k < LOCK_PROBES; k++) {
		struct lock_word *l = &lock_words[(h + k) % LOCK_SLOTS];

		if (l->addr == va)
			return l;
		if (!l->addr) {
			if (!create)
				return NULL;
			l->addr = va;
			return l;
		}
	}
	lock_full += create;
	return NULL;
}

static void hstat_add(struct hstat *s, uint64_t d)
{
	uint32_t b = fb_bucket(d), i;

	s->n++;
	s->sum += d;
	s->min = s->n == 1 || d < s->min ? d : s->min;
	s->max = d > s->max ? d : s->max;
	for (i = 0; i < s->nb && s->e[i].b != b; i++)
		;
	if (i == s->nb) {
		if (s->nb == s->cap) {
			uint32_t cap = s->cap ? 2 * s->cap : 8;
			struct bucket *e = realloc(s->e, cap * sizeof(*e));

			if (!e)
				return;	/* n and sum stay right; the histogram short */
			s->e = e;
			s->cap = cap;
		}
		s->e[s->nb++] = (struct bucket){ b, 0 };
	}
	s->e[i].c++;
}

void on_lock_arm(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	lock_armed = window ? unpack_w(udata) : -1;
}

void on_lock_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va, void *udata)
{
	int w = unpack_w(udata);
	struct lock_word *l;

	(void)vcpu;
	(void)info;
	if (lock_armed != w)
		return;
	lock_armed = -1;
	l = word(va, 1);
	if (!l)
		return;
	if (!l->count++)
		l->w = w;
	if (npending == MAX_PENDING) {
		memmove(&pending[0], &pending[1], sizeof(pending[0]) * (MAX_PENDING - 1));
		npending--;
		pending_lost++;
	}
	pending[npending++] = (struct pending){ l, watches[w].group };
}

/* A ret of an acquire function or its slow path: the latest pending hold starts. */
void on_lock_ret(unsigned int vcpu, void *udata)
{
	int g = watches[unpack_w(udata)].group;

	(void)vcpu;
	for (int j = npending - 1; j >= 0; j--) {
		struct lock_word *l = pending[j].l;

		if (pending[j].group != g)
			continue;
		memmove(&pending[j], &pending[j + 1],
			sizeof(pending[0]) * (size_t)(npending - j - 1));
		npending--;
		if (l->open) {	/* held: a trylock that failed (no register says) */
			l->busy++;
			return;
		}
		l->opened++;
		l->open = 1;
		l->t0 = now(udata) + 1;	/* after the ret */
		return;
	}
}

void on_unlock_entry(unsigned int vcpu, void *udata)
{
	int g = watches[unpack_w(udata)].group & (MAX_GROUP - 1);
	struct rel *r = rels[g];
	uint64_t t = now(udata);

	(void)vcpu;
	if (nrel[g] && !r[nrel[g] - 1].done && t - r[nrel[g] - 1].t <= CHAIN)
		return;		/* a tail call of the release in progress */
	if (nrel[g] == MAX_NEST) {	/* left by tail calls out of a release */
		memmove(&r[0], &r[1], sizeof(r[0]) * (MAX_NEST - 1));
		nrel[g]--;
	}
	r[nrel[g]++] = (struct rel){ t, 0 };
}

void on_unlock_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va,
		      void *udata)
{
	int g = watches[unpack_w(udata)].group & (MAX_GROUP - 1), j = nrel[g] - 1;
	struct lock_word *l;

	(void)vcpu;
	(void)info;
	while (j >= 0 && rels[g][j].done)
		j--;
	if (j < 0)
		return;
	l = word(va, 0);
	if (!l || !l->open)
		return;
	l->open = 0;
	rels[g][j].done = 1;
	hstat_add(&l->hold, rels[g][j].t >= l->t0 ? rels[g][j].t - l->t0 : 0);
}

void on_unlock_ret(unsigned int vcpu, void *udata)
{
	int g = watches[unpack_w(udata)].group & (MAX_GROUP - 1);

	(void)vcpu;
	if (nrel[g])
		nrel[g]--;
}

/* The first phase mark: each word's holds so far become its phase's. */
void on_phase(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	watches[unpack_w(udata)].boot++;
	if (phased++ || !window)
		return;
	for (int k = 0; k < LOCK_SLOTS; k++) {
		struct lock_word *l = &lock_words[k];

		if (!l->count)
			continue;
		l->phase_opened = l->opened;
		l->phase = l->hold;
		l->phase.e = malloc(l->hold.nb * sizeof(*l->hold.e));
		if (l->phase.e)
			memcpy(l->phase.e, l->hold.e, l->hold.nb * sizeof(*l->hold.e));
		l->phase.nb = l->phase.e ? l->hold.nb : 0;
		l->phase.cap = l->phase.nb;
	}
}

int holds_inst(uint64_t addr)
{
	if (ninst == MAX_INST)
		return -1;
	lock_inst[ninst++] = addr;
	return 0;
}

static void write_hstat(FILE *f, const char *key, const struct lock_word *l,
			const struct hstat *s, uint64_t opened, uint64_t busy)
{
	fprintf(f, "%s %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64, key, l->addr, s->n, s->sum, s->min, s->max, opened, busy);
	for (uint32_t i = 0; i < s->nb; i++)
		fprintf(f, " %u:%" PRIu64, s->e[i].b, s->e[i].c);
	fputc('\n', f);
}

static void write_word(FILE *f, const struct lock_word *l)
{
	fprintf(f, "lockaddr %s %" PRIx64 " %" PRIu64 "\n", watches[l->w].name, l->addr, l->count);
	write_hstat(f, "lockhold", l, &l->hold, l->opened, l->busy);
	if (phased)
		write_hstat(f, "lockphase", l, &l->phase, l->phase_opened, 0);
}

static int cmp_count_desc(const void *a, const void *b)
{
	const struct lock_word *x = *(struct lock_word *const *)a;
	const struct lock_word *y = *(struct lock_word *const *)b;

	return x->count > y->count ? -1 : x->count < y->count;
}

/*
 * The spec's instances, then the LOCK_TOP busiest other words; "locktop N
 * MIN": N words left out, none counted more than MIN (0 0: none left out).
 */
void holds_write(FILE *f)
{
	struct lock_word **v = calloc(LOCK_SLOTS, sizeof(*v));
	int n = 0, shown = 0;
	uint64_t min = 0;

	for (int k = 0; v && k < LOCK_SLOTS; k++) {
		int keep = 0;

		if (!lock_words[k].count)
			continue;
		for (int j = 0; j < ninst; j++)
			keep |= lock_words[k].addr == lock_inst[j];
		if (keep)
			write_word(f, &lock_words[k]);
		else
			v[n++] = &lock_words[k];
	}
	if (v)
		qsort(v, (size_t)n, sizeof(*v), cmp_count_desc);
	for (; shown < n && shown < LOCK_TOP; shown++)
		write_word(f, v[shown]);
	if (shown < n)
		min = v[shown]->count;
	fprintf(f, "locktop %d %" PRIu64 "\nlockfull %d\nlockpend %" PRIu64 "\nphase %d\n",
		n - shown, min, lock_full, pending_lost, phased);
	free(v);
}
