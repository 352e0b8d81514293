// SPDX-License-Identifier: GPL-2.0
/*
 * ab_pp.c - `foliobench ab --per-patch SERIES`: the arms are the base and
 * every prefix of the series (SERIES@1 .. SERIES@N, scripts/kernel-build.sh),
 * interleaved like any ab run; DIR/per-patch.json lists them for the
 * attribution table (analysis/attrib/attrib.c), and rounds of a prefix
 * whose kernel and workload arguments did not change since an earlier run
 * into DIR are kept.
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/fb.h"
#include "analysis/attrib/attrib.h"
#include "analysis/attrib/attrib_render.h"
#include "guest/ab_env.h"
#include "guest/kernel.h"
#include "guest/vm.h"
#include "util/outfile.h"
#include "util/symspec.h"

/* DIR/per-patch.json: the prefixes in order, for analysis/attrib/attrib.c. */
int ab_pp_write_json(const struct ab_env *e)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "schema", json_object_new_string("foliobench-per-patch"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "series", json_object_new_string(e->series));
	json_object_object_add(o, "from", json_object_new_int(e->from));
	json_object_object_add(o, "to", json_object_new_int(e->to));
	json_object_object_add(o, "flavour", json_object_new_string(e->flavour));
	json_object_object_add(o, "clock", json_object_new_string(fb_clock_name(e->vo.clock)));
	json_object_object_add(o, "rounds", json_object_new_int(e->rounds));
	for (int i = 0; i < e->narms; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "dir", json_object_new_string(e->arms[i].name));
		json_object_object_add(m, "patches", json_object_new_int(e->from - 1 + i));
		json_object_object_add(m, "patch", json_object_new_string(i ? e->patch[i] : ""));
		json_object_object_add(m, "kernel", json_object_new_string(e->arms[i].bz));
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "prefixes", a);
	json_object_object_add(o, "workloads", ab_json_strs(e->wl, e->nwl));
	json_object_object_add(o, "params", ab_json_strs(e->params, e->nparams));
	return ab_write_json(e, o, FB_ATTRIB_FILE);
}

/* --per-patch: the arms are SERIES@from-1 (baseline for 0) .. SERIES@to; 0 or 2. */
int ab_pp_arms(struct ab_env *e)
{
	static char names[64][128];
	int n = fb_kernel_series(e->series, names, 64);

	if (n <= 0) {
		fb_err("ab: --per-patch %s: no patches in kernel-patches/%s/series", e->series,
		       e->series);
		return 2;
	}
	if (e->arms[0].spec[0] || e->arms[1].spec[0]) {
		fb_err("ab: --per-patch chooses the kernels itself: no --baseline/--patched");
		return 2;
	}
	e->from = e->from ? e->from : 1;
	e->to = e->to ? e->to : n;
	if (e->to > n || e->to > 64 || e->from > e->to || e->to - e->from + 2 > AB_MAX_ARMS) {
		fb_err("ab: --from %d --to %d: %s has patches 1..%d, at most %d at once",
		       e->from, e->to, e->series, n, AB_MAX_ARMS - 1);
		return 2;
	}
	e->narms = 0;
	for (int k = e->from - 1; k <= e->to; k++) {
		struct ab_arm *a = &e->arms[e->narms];

		if (k)
			fb_fmt(a->spec, sizeof(a->spec), "%s@%d", e->series, k);
		else
			fb_fmt(a->spec, sizeof(a->spec), "baseline");
		fb_fmt(a->name, sizeof(a->name), "%s", a->spec);
		if (k)
			fb_fmt(e->patch[e->narms], sizeof(e->patch[0]), "%s", names[k - 1]);
		e->narms++;
	}
	return 0;
}

/* What the rounds of arm a depend on: its kernel and the guest's arguments. */
void ab_pp_key(const struct ab_env *e, struct ab_arm *a)
{
	size_t n = 0, len = sizeof(a->key);
	const char *ah[FB_ADHOC_ARGV];
	const char *const *lists[4] = { e->wl, e->params, e->probes, ah };
	const int counts[4] = { e->nwl, e->nparams, e->nprobes, fb_adhoc_argv(&e->adhoc, ah) };

	n += (size_t)fb_fmt(a->key, len, "kernel %s\nclock %s %d\nsmp %d\nmem %s\nappend %s\n"
			    "tool %s\n", a->bz, fb_clock_name(e->vo.clock), e->vo.icount_shift,
			    e->vo.smp, e->vo.mem ? e->vo.mem : "", e->extra_append, FB_VERSION);
	for (int l = 0; l < 4; l++)
		for (int i = 0; i < counts[l] && n < len; i++)
			n += (size_t)fb_fmt(a->key + n, len - n, "%d %s\n", l, lists[l][i]);
}

/* Drops the rounds of DIR/<arm> unless they were measured with the same key. */
int ab_pp_cache(const struct ab_env *e, struct ab_arm *a, const char *sub)
{
	char path[PATH_MAX], old[sizeof(a->key)], err[PATH_MAX + 128];
	struct dirent *d;
	DIR *dir;

	fb_fmt(path, sizeof(path), "%s/rounds.key", sub);
	a->keep = !e->rerun && fb_read_file(path, old, sizeof(old)) >= 0 && !strcmp(old, a->key);
	if (a->keep)
		return 0;
	dir = opendir(sub);
	while (dir && (d = readdir(dir))) {
		if (strncmp(d->d_name, "round-", 6) && strncmp(d->d_name, "console-round-", 14))
			continue;
		fb_fmt(path, sizeof(path), "%s/%s", sub, d->d_name);
		unlink(path);
	}
	if (dir)
		closedir(dir);
	fb_fmt(path, sizeof(path), "%s/rounds.key", sub);
	if (fb_out_write_str(path, a->key, err, sizeof(err))) {
		fb_err("ab: %s", err);
		return -1;
	}
	return 0;
}

/* per-patch: the attribution table of what DIR holds now, and DIR/attribution.csv. */
void ab_pp_summary(const struct ab_env *e)
{
	char err[PATH_MAX + 128] = "", path[PATH_MAX];
	struct fb_attrib at;
	struct fb_out out;

	if (fb_attrib_open(&at, e->out, 0.05, 2, err, sizeof(err)) == 0) {
		printf("\n");
		fb_attrib_print(stdout, &at, FB_FMT_TEXT);
		fb_fmt(path, sizeof(path), "%s/attribution.csv", e->out);
		if (fb_out_open(&out, path, err, sizeof(err)) == 0) {
			fb_attrib_print(out.f, &at, FB_FMT_CSV);
			fb_out_commit(&out, err, sizeof(err));
		}
		if (err[0])
			fb_err("ab: %s", err);
	} else {
		fb_err("ab: no attribution table: %s", err);
	}
	fb_attrib_free(&at);
	fflush(stdout);
}
