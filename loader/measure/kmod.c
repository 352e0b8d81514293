// SPDX-License-Identifier: GPL-2.0
/*
 * kmod.c - a distribution kernel builds nf_tables as a module that is
 * loaded on the workload's first nft batch, after the rows were attached:
 * its functions were "not in kallsyms" at attach time.  So the modules of
 * the rows are loaded first, by the same modprobe the kernel would run.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/catalogue.h"
#include "measure/kmod.h"
#include "util/util.h"

static int module_loaded(const char *mod)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "/sys/module/%s", mod);
	return access(p, F_OK) == 0;
}

static void modprobe(const char *mod)
{
	char path[PATH_MAX] = "/sbin/modprobe";
	int st;
	pid_t pid;

	if (fb_read_file("/proc/sys/kernel/modprobe", path, sizeof(path)) > 0)
		path[strcspn(path, "\n")] = '\0';
	if (!path[0])
		return;		/* module loading switched off */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl(path, path, "-q", "--", mod, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

static int runs(const char *wl, const char *const *wls, int nwl)
{
	for (int i = 0; i < nwl; i++)
		if (wl && !strcmp(wl, wls[i]))
			return 1;
	return 0;
}

int fb_load_row_modules(const char *const *pat, int npat, const char *const *wl, int nwl)
{
	int n = 0;

	for (int i = 0; i < fb_nprobes; i++) {
		const char *mod = fb_probes[i].module;

		if (!mod || !fb_probe_wanted(&fb_probes[i], pat, npat) ||
		    !runs(fb_probes[i].workload, wl, nwl) || module_loaded(mod))
			continue;
		modprobe(mod);
		if (module_loaded(mod)) {
			fb_info("loaded module %s (row %s)", mod, fb_probes[i].name);
			n++;
		}
	}
	return n;
}
