// SPDX-License-Identifier: GPL-2.0
/* test_catalogue.c - the probe and workload tables are consistent. */
#include <string.h>

#include "fbprobe.h"
#include "measure/attach.h"
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
	int bad = 0, dup = 0, decl = 0;

	for (int i = 0; i < fb_nworkloads; i++) {
		const struct fb_workload *w = &fb_workloads[i];

		for (int j = 0; j < i; j++)
			dup += !strcmp(w->name, fb_workloads[j].name);
		bad += !w->avail || !w->check || !w->run || !known_series(w->series) || !w->desc ||
		       !w->params;
		for (const struct fb_param_def *d = w->params; d && d->key; d++) {
			for (const struct fb_param_def *e = w->params; e < d; e++)
				decl += !strcmp(d->key, e->key);
			decl += d->min > d->def || d->def > d->max || !d->unit || !d->help ||
				!*d->help || d->type >= FB_NPARAMTYPES ||
				(d->type == FB_PARAM_BOOL && (d->min || d->max != 1));
		}
	}
	CHECKF(!dup, "workload names are unique");
	CHECKF(!bad, "workloads have entry points (avail, check, run), a known series and params");
	CHECKF(!decl, "parameter declarations: unique keys, min <= default <= max, unit and help");
	CHECKF(fb_workload_find("nft") && fb_workload_find("sysfs"), "nft and sysfs workloads exist");
}

/*
 * The catalogue's defaults are the workloads' defaults: with nothing given,
 * each workload's check() (the code its run uses to read its parameters)
 * accepts them, reads every declared key and asks for no undeclared one.
 * A constant hard-coded in a wl_*.c in place of a lookup shows up as a
 * declared key that is never read.
 */
static void test_defaults_used(void)
{
	for (int i = 0; i < fb_nworkloads; i++) {
		const struct fb_workload *w = &fb_workloads[i];
		const char *wl[] = { w->name };
		struct fb_params p;
		char err[256] = "", unread[128] = "";
		int ret, ok;

		ret = fb_params_resolve(&p, wl, 1, NULL, 0, err, sizeof(err));
		ok = !ret && !w->check(&p, err, sizeof(err));
		for (int k = 0; k < p.n; k++) {
			ok &= p.v[k].val == p.v[k].def->def;
			if (!p.v[k].reads)
				snprintf(unread + strlen(unread), sizeof(unread) - strlen(unread),
					 " %s", p.v[k].def->key);
		}
		CHECKF(ok && !unread[0] && !p.undeclared && p.n > 0,
		       "%s: %d declared defaults pass its check and are all read (%s%s%s; %d undeclared)",
		       w->name, p.n, err, unread[0] ? " never read:" : "", unread, p.undeclared);
	}
}

static int resolve(struct fb_params *p, const char *kv, char *err, size_t len)
{
	const char *wl[] = { "nft", "verifier" };

	err[0] = '\0';
	return fb_params_resolve(p, wl, 2, &kv, 1, err, len);
}

static void expect_refused(const char *kv, const char *needle)
{
	struct fb_params p;
	char err[256];
	int ret = resolve(&p, kv, err, sizeof(err));

	CHECKF(ret < 0 && strstr(err, needle) && !strchr(err, '\n'),
	       "--param %s refused: \"%s\"", kv, err);
}

static void test_params(void)
{
	const char *wl[] = { "nft" }, *kv[] = { "nft.descriptors=100", "nft.descriptors=200" };
	struct fb_params p;
	char err[256];

	CHECKF(!fb_params_resolve(&p, wl, 1, kv, 2, err, sizeof(err)) &&
	       fb_param_u64(&p, "nft", "descriptors") == 200, "last --param wins");
	CHECKF(fb_param_u64(&p, "nft", "passes") == 5 && !p.undeclared,
	       "a parameter not given has the catalogue's default");
	CHECKF(fb_param_u64(&p, "nft", "nope") == 0 && p.undeclared == 1,
	       "an undeclared lookup is counted (and printed)");
	CHECKF(!resolve(&p, "nft.descriptors=1000000", err, sizeof(err)) ||
	       strstr(err, "per batch"), "the maximum is accepted by the range (%s)", err);
	CHECKF(!resolve(&p, "verifier.state_freq=0", err, sizeof(err)) &&
	       fb_param_u64(&p, "verifier", "state_freq") == 0, "a bool takes 0");
	expect_refused("nft.descriptors=abc", "nft.descriptors is 2..1000000 descriptors");
	expect_refused("nft.descriptors=-5", "not a number");
	expect_refused("nft.descriptors= 5", "not a number");
	expect_refused("nft.descriptors=0x10", "not a number");
	expect_refused("nft.descriptors=", "not a number");
	expect_refused("nft.descriptors=999999999999", "out of range (nft.descriptors is 2..");
	expect_refused("nft.descriptors=99999999999999999999999", "nft.descriptors");
	expect_refused("nft.descriptors=1000001", "out of range");
	expect_refused("verifier.state_freq=2", "0 or 1");
	expect_refused("nft.device=1", "unknown parameter nft.device (nft takes: descriptors");
	expect_refused("sysfs.devices=5", "workload sysfs is not selected");
	expect_refused("sysfs.device=5", "unknown parameter sysfs.device");
	expect_refused("nope.x=1", "unknown workload 'nope'");
	expect_refused("nft", "WORKLOAD.KEY=VALUE");
	expect_refused(".x=1", "WORKLOAD.KEY=VALUE");
	expect_refused("nft.descriptors=20", "nft: descriptors=20 too few");
}

/* The overhead benchmark's row and workload (reports/overhead/). */
static void test_overhead_row(void)
{
	const struct fb_probe_def *d = fb_probe_find("getppid");
	const char *wl[] = { "trigger" };
	struct fb_params p;
	char err[256] = "";

	CHECKF(d && d->kind == FB_FUNC && !strcmp(d->workload, "trigger") &&
	       !strcmp(d->syms[0], "__do_sys_getppid") && !strcmp(d->syms[1], "__x64_sys_getppid"),
	       "getppid row: a function row on the syscall handler, driven by trigger");
	CHECKF(!fb_params_resolve(&p, wl, 1, NULL, 0, err, sizeof(err)) &&
	       fb_param_u64(&p, "trigger", "calls") == 200000, "trigger.calls defaults to 200000 (%s)",
	       err);
}

static void test_attach_modes(void)
{
	char err[128] = "";

	CHECKF(fb_attach_mode() == FB_ATTACH_AUTO, "attach mode is auto unless set");
	CHECKF(!fb_attach_set("kprobe") && fb_attach_mode() == FB_ATTACH_KPROBE &&
	       !fb_attach_set("fentry") && fb_attach_mode() == FB_ATTACH_FENTRY,
	       "--attach kprobe and fentry select that method");
	CHECKF(fb_attach_set("uprobe") && fb_attach_set("") && fb_attach_mode() == FB_ATTACH_FENTRY,
	       "an unknown mode is refused and leaves the mode alone");
	CHECKF(!fb_attach_set("auto") && fb_attach_mode() == FB_ATTACH_AUTO, "auto restores");
	CHECKF(fb_ablate_parse(NULL, err, sizeof(err)) == 0 && fb_ablate_parse("", err, sizeof(err)) == 0,
	       "FB_ABLATE unset or empty: nothing ablated");
	CHECKF(fb_ablate_parse("hash,stats", err, sizeof(err)) == (FB_ABL_HASH | FB_ABL_STATS) &&
	       fb_ablate_parse("empty", err, sizeof(err)) == FB_ABL_EMPTY &&
	       fb_ablate_parse("hist,", err, sizeof(err)) == FB_ABL_HIST, "FB_ABLATE words to bits");
	CHECKF(fb_ablate_parse("tidhash", err, sizeof(err)) == FB_ABL_TIDHASH, "FB_ABLATE=tidhash");
	CHECKF(fb_ablate_parse("stats,statsx", err, sizeof(err)) == -1 && strstr(err, "'statsx'") &&
	       fb_ablate_parse("hash,,x", err, sizeof(err)) == -1,
	       "an unknown FB_ABLATE part is refused, named (%s)", err);
	CHECKF(fb_ablate() == 0, "nothing ablated unless set");
	CHECKF(fb_ablate_set("hash,hist", err, sizeof(err)) == (FB_ABL_HASH | FB_ABL_HIST) &&
	       fb_ablate() == (FB_ABL_HASH | FB_ABL_HIST), "fb_ablate_set keeps the bits");
	CHECKF(fb_ablate_set("maps", err, sizeof(err)) == -1 && strstr(err, "'maps'") &&
	       fb_ablate() == (FB_ABL_HASH | FB_ABL_HIST),
	       "a bad FB_ABLATE is refused and leaves the bits alone");
	CHECKF(fb_ablate_set(NULL, err, sizeof(err)) == 0 && fb_ablate() == 0, "unset clears them");
	CHECKF(!fb_funchook_pair() && fb_lockhook() == FB_LH_SLOTS,
	       "FB_FUNCHOOK, FB_LOCKHOOK unset: the shipped methods");
	CHECKF(!fb_hooks_set("pair", "fentry-task", err, sizeof(err)) && fb_funchook_pair() &&
	       fb_lockhook() == FB_LH_FENTRY_TASK && !fb_hooks_set(NULL, "fexit", err, sizeof(err)) &&
	       !fb_funchook_pair() && fb_lockhook() == FB_LH_FEXIT,
	       "FB_FUNCHOOK=pair and FB_LOCKHOOK names select the earlier methods");
	CHECKF(fb_hooks_set("fentry", NULL, err, sizeof(err)) == -1 && strstr(err, "FB_FUNCHOOK") &&
	       strstr(err, "'fentry'") && fb_lockhook() == FB_LH_FEXIT,
	       "an unknown FB_FUNCHOOK is refused, named, and changes nothing (%s)", err);
	CHECKF(fb_hooks_set("", "fentry_task", err, sizeof(err)) == -1 && strstr(err, "FB_LOCKHOOK") &&
	       strstr(err, "'fentry_task'") && fb_lockhook() == FB_LH_FEXIT,
	       "an unknown FB_LOCKHOOK is refused, named, and changes nothing (%s)", err);
	CHECKF(!fb_hooks_set("", "", err, sizeof(err)) && fb_lockhook() == FB_LH_SLOTS &&
	       !fb_funchook_pair(), "empty values: the shipped methods again");
}

int main(void)
{
	test_probes();
	test_overhead_row();
	test_attach_modes();
	test_workloads();
	test_defaults_used();
	test_params();
	return tap_done();
}
