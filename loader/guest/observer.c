// SPDX-License-Identifier: GPL-2.0
/*
 * observer.c - a guest boot observed by the TCG plugin (observer.h).  The
 * plugin (plugin/fbobs.c) counts the catalogue's function rows at their
 * System.map addresses inside the windows `foliobench run` marks; the
 * guest kernel runs with nokaslr so that those addresses hold.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/observer.h"
#include "measure/obsplugin.h"
#include "util/util.h"

/* path := s, created (fb_write_file writes existing files only) */
static int put_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(s, f);
	return fclose(f) ? -1 : 0;
}

/* 1 if the .config beside bz says CONFIG_RANDOMIZE_BASE=y */
static int kaslr_config(const char *bz)
{
	char path[4096 + 16], line[256];
	const char *slash = strrchr(bz, '/');
	FILE *f;
	int y = 0;

	fb_fmt(path, sizeof(path), "%.*s/.config", slash ? (int)(slash - bz) : 1,
	       slash ? bz : ".");
	f = fopen(path, "r");
	while (f && !y && fgets(line, sizeof(line), f))
		y = !strcmp(line, "CONFIG_RANDOMIZE_BASE=y\n");
	if (f)
		fclose(f);
	return y;
}

int fb_vm_obs_check(const struct fb_vm_opts *o, const char *bz, struct fb_vm_obs *ob)
{
	const char *env = getenv("FB_PLUGIN");
	char why[4096 + 256], repo[4096];

	memset(ob, 0, sizeof(*ob));
	if (o->observer == FB_OBS_BPF)
		return 0;
	if (env && *env) {
		fb_fmt(ob->so, sizeof(ob->so), "%s", env);
	} else {
		if (fb_repo_dir(repo, sizeof(repo)) < 0)
			return 2;
		fb_fmt(ob->so, sizeof(ob->so), "%s/build/plugin/fbobs.so", repo);
	}
	if (access(ob->so, R_OK) < 0) {
		fb_err("vm: --observer %s: the plugin %s: %s (make builds it)",
		       fb_observer_name(o->observer), ob->so, strerror(errno));
		return 2;
	}
	if (strchr(ob->so, ',')) {
		fb_err("vm: the plugin's path %s must not contain ','", ob->so);
		return 2;
	}
	ob->spec = fb_obsplugin_spec(bz, o->sysmap, o->probes, o->nprobes, why, sizeof(why));
	if (!ob->spec) {
		fb_err("vm: %s", why);
		return 2;
	}
	ob->nokaslr = kaslr_config(bz);
	return 0;
}

int fb_vm_obs_setup(struct fb_vm_obs *ob, const char *dir)
{
	if (!ob->spec)
		return 0;
	fb_fmt(ob->spec_path, sizeof(ob->spec_path), "%s/plugin.spec", dir);
	fb_fmt(ob->out_path, sizeof(ob->out_path), "%s/plugin.out", dir);
	if (put_file(ob->spec_path, ob->spec) < 0) {
		fb_err("vm: cannot write %s: %s", ob->spec_path, strerror(errno));
		return -1;
	}
	fb_fmt(ob->arg, sizeof(ob->arg), "%s,spec=%s,out=%s", ob->so, ob->spec_path,
	       ob->out_path);
	return 0;
}

const char *fb_vm_obs_cmdline(const struct fb_vm_opts *o, const struct fb_vm_obs *ob)
{
	if (!ob || o->observer == FB_OBS_BPF)
		return "";
	if (o->observer == FB_OBS_PLUGIN)
		return ob->nokaslr ? "nokaslr foliobench.observer=plugin" : "foliobench.observer=plugin";
	return ob->nokaslr ? "nokaslr foliobench.observer=both" : "foliobench.observer=both";
}

/* The plugin's raw counts beside the console log, for a look by hand. */
static void keep_counts(const struct fb_vm_obs *ob, const char *log, int quiet)
{
	char dst[4096 + 16], *buf = malloc(1 << 20);

	fb_fmt(dst, sizeof(dst), "%s.plugin", log);
	if (buf && fb_read_file(ob->out_path, buf, 1 << 20) > 0 && put_file(dst, buf) == 0 &&
	    !quiet)
		fb_info("vm: the plugin's counts: %s", dst);
	free(buf);
}

int fb_vm_obs_finish(const struct fb_vm_opts *o, struct fb_vm_obs *ob, const char *log, int ret)
{
	char why[4096 + 256];

	if (!ob->spec || !ob->out_path[0])
		return ret;
	keep_counts(ob, log, o->quiet);
	if (ret || !o->observer_into)
		return ret;
	if (fb_obsplugin_merge(ob->spec, ob->out_path, o->observer_into, o->icount_shift, why,
			       sizeof(why)) < 0) {
		fb_err("vm: plugin observer: %s", why);
		return FB_VM_NOSTART;
	}
	return ret;
}

void fb_vm_obs_free(struct fb_vm_obs *ob)
{
	free(ob->spec);
	ob->spec = NULL;
}
