// SPDX-License-Identifier: GPL-2.0
/*
 * test_obslocks.c - the TCG plugin's lock words as lock rows
 * (measure/obslocks.c), from a synthetic spec and plugin output: a global
 * instance, the kernfs_root found from two members' words (and not from a
 * busier word with no partner), holds in ns at shift 0 and 1, the phase's
 * stats, and the unavailable cases.
 */
#include <stdlib.h>
#include <string.h>

#include "measure/obsplugin.h"
#include "model/fb.h"
#include "tap.h"

#define SPEC								\
	"# lock kernfs_rwsem down_write,down_write_killable - kernfs_root.kernfs_rwsem 104\n" \
	"# lock kernfs_idr_lock do_raw_spin_lock - kernfs_root.kernfs_idr_lock 40\n" \
	"lockinst ffffffff82083290\n"					\
	"# lock gdp_mutex mutex_lock,mutex_lock_killable ffffffff82083290\n"

/* two kernfs_roots: 0x...f900 (busy, both words) and 0x...a000 (a busier rwsem alone) */
#define OUT								\
	"fbobs 3\nmarks 2 2\ninsns 1\n"					\
	"lockaddr mutex_lock ffffffff82083290 87\n"			\
	"lockhold ffffffff82083290 87 8700 50 300 87 0 100:87\n"	\
	"lockphase ffffffff82083290 46 4600 50 300 46 0 100:46\n"	\
	"lockaddr down_write ff1100000000a068 90000\n"			\
	"lockhold ff1100000000a068 90000 9 0 1 90000 0 1:90000\n"	\
	"lockphase ff1100000000a068 0 0 0 0 0 0\n"			\
	"lockaddr down_write ff1100000013f968 11926\n"			\
	"lockhold ff1100000013f968 11920 119200 8 900 11926 3 10:11920\n" \
	"lockphase ff1100000013f968 7932 79320 8 900 7932 0 10:7932\n"	\
	"lockaddr do_raw_spin_lock ff1100000013f928 7636\n"		\
	"lockhold ff1100000013f928 7636 76360 5 50 7636 0 10:7636\n"	\
	"lockphase ff1100000013f928 4008 40080 5 50 4008 0 10:4008\n"	\
	"locktop 0 0\nlockfull 0\nlockpend 0\nphase 1\n"

static const struct fb_probe_result *row(const struct fb_result *r, const char *name)
{
	for (int i = 0; i < r->nprobes; i++)
		if (!strcmp(r->probes[i].name, name))
			return &r->probes[i];
	return NULL;
}

static const struct fb_hist *stat(const struct fb_probe_result *p, const char *name)
{
	for (int i = 0; p && i < p->nstats; i++)
		if (!strcmp(p->stats[i].name, name))
			return &p->stats[i].h;
	return NULL;
}

/* every "# lock" line of spec merged into a fresh result; 0, or -1 */
static int merge(struct fb_result *r, const char *spec, const char *out, int shift)
{
	char why[256];

	memset(r, 0, sizeof(*r));
	r->nworkloads = 1;
	fb_count_set(&r->workloads[0].ops, "register_plugin_mark", 1);
	for (const char *p = spec; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "# lock ", 7) && fb_obsplugin_lock_row(r, p, spec, out, shift, why,
									 sizeof(why)) < 0)
			return -1;
	return 0;
}

static void test_rows(struct fb_result *r)
{
	const struct fb_probe_result *p;
	const struct fb_hist *h;

	CHECKF(merge(r, SPEC, OUT, 0) == 0 && r->nprobes == 3, "three lock rows merged");
	p = row(r, "kernfs_rwsem");
	CHECKF(p && p->status == FB_ATTACHED && !strcmp(p->method, "plugin") &&
	       strstr(p->reason, "instance 0xff1100000013f968"),
	       "kernfs_rwsem: the root whose two members were both taken, not a busier lone "
	       "word");
	h = stat(p, "hold");
	CHECKF(h && h->count == 11920 && h->sum == 119200 && !strcmp(h->unit, "ns"),
	       "kernfs_rwsem: hold count and sum (ns, shift 0)");
	CHECKF(stat(p, "acquire") && stat(p, "acquire")->count == 11926,
	       "kernfs_rwsem: acquire = holds opened");
	CHECKF(strstr(p->reason, "3 on it while held") && strstr(p->reason, "6 not closed"),
	       "kernfs_rwsem: failed trylocks and holds not closed in the reason");
	h = stat(p, "hold@register");
	CHECKF(h && h->count == 7932 && stat(p, "acq@register")->count == 7932,
	       "kernfs_rwsem: the registration phase's holds and acquisitions");
	p = row(r, "kernfs_idr_lock");
	CHECKF(p && p->status == FB_ATTACHED && strstr(p->reason, "instance 0xff1100000013f928"),
	       "kernfs_idr_lock: the same root's member");
	p = row(r, "gdp_mutex");
	CHECKF(p && stat(p, "hold") && stat(p, "hold")->count == 87 &&
	       strstr(p->reason, "a global in System.map"), "gdp_mutex: the global's holds");
	CHECKF(merge(r, SPEC, OUT, 1) == 0 && stat(row(r, "gdp_mutex"), "hold")->sum == 17400 &&
	       stat(row(r, "gdp_mutex"), "hold")->max == 600, "shift 1: 2 ns per instruction");
}

static void test_unavailable(struct fb_result *r)
{
	/* the idr word gone: no root has both members */
	CHECKF(merge(r, SPEC, "fbobs 3\nlockaddr down_write ff1100000013f968 5\n"
		     "lockhold ff1100000013f968 5 5 1 1 5 0 1:5\n"
		     "locktop 0 0\nlockfull 0\nphase 0\n", 0) == 0 &&
	       row(r, "kernfs_rwsem")->status == FB_UNAVAILABLE &&
	       strstr(row(r, "kernfs_rwsem")->reason, "no kernfs_root"),
	       "one member's word alone: unavailable, says why");
	CHECKF(row(r, "gdp_mutex")->status == FB_ATTACHED &&
	       stat(row(r, "gdp_mutex"), "acquire")->count == 0 &&
	       !stat(row(r, "gdp_mutex"), "hold@register"),
	       "a global not taken, no word left out: attached with 0; no phase, no hold@");
	CHECKF(merge(r, SPEC, "fbobs 3\nlocktop 0 0\nlockfull 3\nphase 0\n", 0) == 0 &&
	       row(r, "gdp_mutex")->status == FB_UNAVAILABLE,
	       "the plugin's table of words full: unavailable");
	CHECKF(merge(r, "# lock kernfs_rwsem down_write -\n", OUT, 0) == 0 &&
	       row(r, "kernfs_rwsem")->status == FB_UNAVAILABLE &&
	       strstr(row(r, "kernfs_rwsem")->reason, "BTF"),
	       "no BTF offset: unavailable, says why");
}

int main(void)
{
	struct fb_result *r = calloc(1, sizeof(*r));

	if (!r)
		return 1;
	test_rows(r);
	test_unavailable(r);
	free(r);
	return tap_done();
}
