// SPDX-License-Identifier: GPL-2.0
/* test_catalogue.c - the probe and workload tables are consistent. */
#include <string.h>

#include "measure/catalogue.h"
#include "model/fb.h"
#include "workloads/workloads.h"
#include "tap.h"

static int known_series(const char *s)
{
	return !strcmp(s, "folio-pool") || !strcmp(s, "kernfs-bulk") || !strcmp(s, "-");
}

static void test_probes(void)
{
	int dup = 0, series = 0, syms = 0, locks = 0, wl = 0, slots = 0, doc = 0;

	for (int i = 0; i < fb_nprobes; i++) {
		const struct fb_probe_def *d = &fb_probes[i];

		for (int j = 0; j < i; j++)
			dup += !strcmp(d->name, fb_probes[j].name);
		series += !known_series(d->series);
		syms += (d->kind == FB_FUNC || d->kind == FB_CALLSITE) && !d->syms[0];
		locks += d->kind == FB_LOCK && (!d->inst_sym || !d->lock_class);
		wl += d->workload && !fb_workload_find(d->workload);
		doc += !d->proves || !*d->proves;
		slots += d->kind == FB_LOCK ? 2 : d->kind == FB_CONTENTION ? 0 : 1;
		if (d->inst_member && !strchr(d->inst_member, '.'))
			locks++;
	}
	CHECKF(!dup, "probe names are unique");
	CHECKF(!series, "every probe names a known series");
	CHECKF(!syms, "function and call-site rows name a symbol");
	CHECKF(!locks, "lock rows name an instance and its lock_stat class");
	CHECKF(!wl, "every probe's workload exists");
	CHECKF(!doc, "every probe says what it shows");
	CHECKF(slots <= FB_MAX_SLOTS && fb_nprobes <= FB_MAX_PROBES,
	       "%d histogram slots fit in %d", slots, FB_MAX_SLOTS);
	CHECKF(fb_probe_find("nft_trans_alloc") && fb_probe_find("kernfs_new_node") &&
	       fb_probe_find("get_device_parent") && fb_probe_find("nf_tables_trans_destroy_work") &&
	       fb_probe_find("lockdep_list_entry_alloc") && fb_probe_find("kernfs_rwsem") &&
	       fb_probe_find("kernfs_idr_lock") && fb_probe_find("gdp_mutex") &&
	       fb_probe_find("contention"), "the issue's required rows are present");
}

static void test_workloads(void)
{
	int bad = 0, dup = 0;

	for (int i = 0; i < fb_nworkloads; i++) {
		const struct fb_workload *w = &fb_workloads[i];
		char buf[128], *save = NULL;

		for (int j = 0; j < i; j++)
			dup += !strcmp(w->name, fb_workloads[j].name);
		bad += !w->avail || !w->run || !known_series(w->series) || !w->desc;
		snprintf(buf, sizeof(buf), "%s", w->params);
		for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(t, '=');
			uint64_t v;

			bad += !eq || fb_parse_u64(eq + 1, &v) < 0;
		}
	}
	CHECKF(!dup, "workload names are unique");
	CHECKF(!bad, "workloads have entry points, a known series and KEY=NUMBER params");
	CHECKF(fb_workload_find("nft") && fb_workload_find("sysfs"), "nft and sysfs workloads exist");
}

static void test_params(void)
{
	struct fb_params p = { .n = 3, .kv = { "nft.descriptors=100", "sysfs.devices=7",
					       "nft.descriptors=200" } };

	CHECKF(fb_param_u64(&p, "nft", "descriptors", 1) == 200, "last --param wins");
	CHECKF(fb_param_u64(&p, "nft", "passes", 5) == 5, "missing param gives the default");
	CHECKF(fb_param_u64(&p, "sysfs", "devices", 1) == 7, "params are per workload");
	CHECKF(fb_param_u64(&p, "nf", "descriptors", 9) == 9, "workload prefix must match whole");
}

int main(void)
{
	test_probes();
	test_workloads();
	test_params();
	return tap_done();
}
