// SPDX-License-Identifier: GPL-2.0
/*
 * obslocks.c - the TCG plugin's lock words (plugin/fbholds.c) as the
 * catalogue's lock rows (obsplugin.h): per instance, acquisitions, the hold
 * histogram and the holds released by the first phase mark ("hold@PHASE",
 * the stat the gate uses for gdp_mutex; "acq@PHASE" the acquisitions), in
 * guest instructions x 2^shift ns.
 *
 * The instance: a global's address from System.map; a member of an object
 * behind a pointer (kernfs_rwsem and kernfs_idr_lock in *sysfs_root, which
 * neither the host nor plugin API v1 can read) from the words the plugin
 * saw: the base B for which every such row of the same struct has its word
 * B + offset (BTF of the vmlinux) among the words its functions took, the
 * busiest such B (their acquisitions summed).  A coincidence of two lock
 * words at exactly the members' distance is what the busiest object is.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/catalogue.h"
#include "measure/obsplugin.h"
#include "model/fb.h"

#define MAX_WORDS	600

struct lw {
	char fn[64];
	uint64_t addr, count;
	const char *hold, *phase;	/* the rest of its lockhold/lockphase lines */
};

struct words {
	struct lw w[MAX_WORDS];
	int n;
	unsigned long long left, full, phases;
};

static void parse_words(const char *out, struct words *ws)
{
	unsigned long long a, c, min;
	char fn[64];

	ws->n = 0;
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		struct lw *l = ws->n ? &ws->w[ws->n - 1] : NULL;

		if (sscanf(p, "lockaddr %63s %llx %llu", fn, &a, &c) == 3 && ws->n < MAX_WORDS) {
			l = &ws->w[ws->n++];
			memset(l, 0, sizeof(*l));
			fb_fmt(l->fn, sizeof(l->fn), "%s", fn);
			l->addr = a;
			l->count = c;
		} else if (l && !strncmp(p, "lockhold ", 9)) {
			l->hold = p + 9;
		} else if (l && !strncmp(p, "lockphase ", 10)) {
			l->phase = p + 10;
		} else {
			sscanf(p, "locktop %llu %llu", &ws->left, &min);
			sscanf(p, "lockfull %llu", &ws->full);
			sscanf(p, "phase %llu", &ws->phases);
		}
	}
}

/* fn is one of fns (comma-separated) */
static int in_fns(const char *fns, const char *fn)
{
	size_t l = strlen(fn);

	for (const char *f = fns; f && *f; f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL)
		if (!strncmp(f, fn, l) && (f[l] == ',' || !f[l] || f[l] == ' '))
			return 1;
	return 0;
}

static const struct lw *find_word(const struct words *ws, const char *fns, uint64_t addr)
{
	for (int i = 0; i < ws->n; i++)
		if (ws->w[i].addr == addr && in_fns(fns, ws->w[i].fn))
			return &ws->w[i];
	return NULL;
}

/* "# lock NAME FNS - STRUCT.MEMBER OFF" lines of spec for struct st, as siblings */
struct sib {
	char fns[160];
	long off;
};

static int siblings(const char *spec, const char *st, struct sib *s, int max)
{
	char name[64], fns[160], member[96];
	long off;
	int n = 0;

	for (const char *p = spec; p && *p && n < max;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, "# lock %63s %159s - %95s %ld", name, fns, member, &off) != 4 ||
		    strncmp(member, st, strlen(st)) || member[strlen(st)] != '.')
			continue;
		fb_fmt(s[n].fns, sizeof(s[n].fns), "%s", fns);
		s[n++].off = off;
	}
	return n;
}

/*
 * The object base B (0 if none): every sibling's word B + off among the
 * words its functions took, the busiest such B.
 */
static uint64_t find_base(const struct words *ws, const struct sib *s, int ns, uint64_t *score)
{
	uint64_t best = 0;

	*score = 0;
	for (int i = 0; ns && i < ws->n; i++) {
		uint64_t b = ws->w[i].addr - (uint64_t)s[0].off, sum = 0;
		int all = in_fns(s[0].fns, ws->w[i].fn);

		for (int j = 0; all && j < ns; j++) {
			const struct lw *l = find_word(ws, s[j].fns, b + (uint64_t)s[j].off);

			all = l != NULL;
			sum += l ? l->count : 0;
		}
		if (all && sum > *score) {
			*score = sum;
			best = b;
		}
	}
	return best;
}

/*
 * "ADDR N SUM MIN MAX OPENED BUSY IDX:COUNT ..." as h (x 2^shift ns),
 * ob[0] opened, ob[1] busy; 0, or -1
 */
static int parse_hold(const char *p, int shift, struct fb_hist *h, uint64_t *ob)
{
	unsigned long long a, n, sum, mn, mx, o, b, idx, c;
	int used = 0;

	if (!p || sscanf(p, "%llx %llu %llu %llu %llu %llu %llu%n", &a, &n, &sum, &mn, &mx, &o,
			 &b, &used) != 7)
		return -1;
	p += used;
	h->count = n;
	h->sum = sum << shift;
	h->min = mn << shift;
	h->max = mx << shift;
	fb_fmt(h->unit, sizeof(h->unit), "ns");
	while (sscanf(p, " %llu:%llu%n", &idx, &c, &used) == 2 && idx < FB_NBUCKETS) {
		/* a bucket of v is the bucket of v << shift only for shift 0 */
		h->buckets[shift ? fb_bucket(fb_bucket_lo((unsigned int)idx) << shift) : idx] += c;
		p += used;
	}
	ob[0] = o;
	ob[1] = b;
	return 0;
}

/* The first phase the workloads marked for the plugin ("<phase>_plugin_mark"). */
static int phase_name(const struct fb_result *r, char *out, size_t len)
{
	const char *suf = "_plugin_mark";

	for (int i = 0; i < r->nworkloads; i++)
		for (int j = 0; j < r->workloads[i].ops.n; j++) {
			const char *k = r->workloads[i].ops.v[j].name;
			size_t l = strlen(k);

			if (l > strlen(suf) && !strcmp(k + l - strlen(suf), suf)) {
				fb_fmt(out, len, "%.*s", (int)(l - strlen(suf)), k);
				return 0;
			}
		}
	return -1;
}

/* The row's instance: 0 and why where none is known. */
static uint64_t instance(const char *line, const char *spec, const struct words *ws,
			 char *how, size_t hlen)
{
	char name[64], fns[160], member[96], st[96];
	unsigned long long a;
	struct sib s[8];
	uint64_t base, score;
	long off;
	int ns;

	if (sscanf(line, "# lock %63s %159s %llx", name, fns, &a) == 3) {
		fb_fmt(how, hlen, "a global in System.map");
		return a;
	}
	if (sscanf(line, "# lock %63s %159s - %95s %ld", name, fns, member, &off) != 4) {
		fb_fmt(how, hlen, "its instance is behind a pointer the host cannot read, and the "
		       "kernel's BTF has no offset for it");
		return 0;
	}
	fb_fmt(st, sizeof(st), "%.*s", (int)strcspn(member, "."), member);
	ns = siblings(spec, st, s, 8);
	base = find_base(ws, s, ns, &score);
	if (!base) {
		fb_fmt(how, hlen, "no %s among the lock words the plugin wrote out has every "
		       "watched member's word taken", st);
		return 0;
	}
	fb_fmt(how, hlen, "in the busiest %s 0x%" PRIx64 " whose %d members' words the lock "
	       "functions took", st, base, ns);
	return base + (uint64_t)off;
}

int fb_obsplugin_lock_row(struct fb_result *r, const char *line, const char *spec,
			  const char *out, int shift, char *why, size_t wlen)
{
	static struct words ws;
	char name[64], fns[160], how[224], phase[32];
	struct fb_probe_result *p;
	const struct lw *l;
	uint64_t addr, ob[2] = { 0 }, ph[2] = { 0 };

	if (sscanf(line, "# lock %63s %159s", name, fns) != 2)
		return 0;
	parse_words(out, &ws);
	addr = instance(line, spec, &ws, how, sizeof(how));
	if (!(p = fb_obsplugin_new_row(r, name, why, wlen)))
		return -1;
	fb_fmt(p->symbol, sizeof(p->symbol), "%s", fns);
	p->status = FB_UNAVAILABLE;
	if (!addr) {
		fb_fmt(p->reason, sizeof(p->reason), "%s", how);
		return 0;
	}
	l = find_word(&ws, fns, addr);
	if (ws.full || (!l && ws.left)) {
		fb_fmt(p->reason, sizeof(p->reason), "instance 0x%" PRIx64 ": not among the lock "
		       "words the plugin wrote out (the busiest 512), or its table of lock words "
		       "filled up", addr);
		return 0;
	}
	if (l && parse_hold(l->hold, shift, &p->stats[0].h, ob) < 0) {
		fb_fmt(why, wlen, "the plugin's holds of 0x%" PRIx64 " are unreadable", addr);
		return -1;
	}
	p->status = FB_ATTACHED;
	p->nstats = 2;
	fb_fmt(p->stats[0].name, sizeof(p->stats[0].name), "hold");
	fb_fmt(p->stats[0].h.unit, sizeof(p->stats[0].h.unit), "ns");
	fb_fmt(p->stats[1].name, sizeof(p->stats[1].name), "acquire");
	fb_fmt(p->stats[1].h.unit, sizeof(p->stats[1].h.unit), "calls");
	p->stats[1].h.count = ob[0];
	if (l && ws.phases && phase_name(r, phase, sizeof(phase)) == 0 && FB_MAX_STATS > 3 &&
	    parse_hold(l->phase, shift, &p->stats[2].h, ph) == 0) {
		fb_fmt(p->stats[2].name, sizeof(p->stats[2].name), "hold@%s", phase);
		fb_fmt(p->stats[3].name, sizeof(p->stats[3].name), "acq@%s", phase);
		fb_fmt(p->stats[3].h.unit, sizeof(p->stats[3].h.unit), "calls");
		p->stats[3].h.count = ph[0];
		p->nstats = 4;
	}
	fb_fmt(p->reason, sizeof(p->reason), "instance 0x%" PRIx64 " (%s); acquire: rets of %s "
	       "after their atomic took it, in the windows (%" PRIu64 " atomics, %" PRIu64
	       " on it while held); hold: guest instructions to the release's entry, %" PRIu64
	       " not closed; no wait times", addr, how, fns, l ? l->count : 0, ob[1],
	       ob[0] - p->stats[0].h.count);
	return 0;
}
