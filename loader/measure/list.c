// SPDX-License-Identifier: GPL-2.0
/*
 * list.c - `foliobench list`: every probe of the catalogue with its status
 * on the running kernel, and every workload with its parameters.
 */
#include <argp.h>
#include <stdlib.h>
#include <unistd.h>

#include "measure/attach.h"
#include "measure/catalogue.h"
#include "measure/list.h"
#include "measure/probes.h"
#include "util/cli.h"
#include "util/util.h"
#include "workloads/workloads.h"

enum { OPT_NO_PROBE = 0x100 };

static const struct argp_option list_options[] = {
	{ "no-probe", OPT_NO_PROBE, NULL, 0, "only print the catalogue: attach nothing", 0 },
	{ 0 },
};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	int *probe = state->input;

	if (key != OPT_NO_PROBE)
		return ARGP_ERR_UNKNOWN;
	*probe = 0;
	return 0;
}

static const struct argp list_argp = {
	list_options, list_parse, NULL,
	"Every probe of the catalogue with its status on the running kernel (attaching needs "
	"root: without it, or with --no-probe, the catalogue only), and every workload with "
	"its parameters and whether it can run here.",
	NULL, NULL, NULL,
};

static void print_probes(const struct fb_result *r)
{
	printf("%-30s %-12s %-11s %-11s %-8s %s\n", "PROBE", "SERIES", "KIND", "STATUS",
	       "METHOD", "WHAT IT SHOWS / WHY NOT");
	for (int i = 0; i < fb_nprobes; i++) {
		const struct fb_probe_def *d = &fb_probes[i];
		const struct fb_probe_result *p = r ? fb_result_probe(r, d->name) : NULL;

		printf("%-30s %-12s %-11s %-11s %-8s %s\n", d->name, d->series,
		       fb_kind_name(d->kind), p ? fb_probe_status_name(p->status) : "-",
		       p ? p->method : "-", p && p->status != FB_ATTACHED ? p->reason : d->proves);
	}
}

static void print_workloads(void)
{
	printf("\n%-10s %-12s %-12s %s\n", "WORKLOAD", "SERIES", "STATUS", "DESCRIPTION");
	printf("    %-22s %-4s %8s  %-26s %s\n", "PARAMETER", "TYPE", "DEFAULT", "RANGE", "HELP");
	for (int i = 0; i < fb_nworkloads; i++) {
		const struct fb_workload *w = &fb_workloads[i];
		char why[192] = "";
		int ok = w->avail(why, sizeof(why)) == 0;

		printf("%-10s %-12s %-12s %s%s%s\n", w->name, w->series,
		       ok ? "available" : "unavailable", w->desc, ok ? "" : " -- ", ok ? "" : why);
		fb_workload_print_params(stdout, w);
	}
}

/*
 * FB_ABLATE, FB_FUNCHOOK and FB_LOCKHOOK as `run` takes them: a bad value is
 * said, and only the catalogue listed.
 */
static int ablate_ok(void)
{
	char err[160];

	if (fb_ablate_set(getenv("FB_ABLATE"), err, sizeof(err)) >= 0 &&
	    fb_hooks_set(getenv("FB_FUNCHOOK"), getenv("FB_LOCKHOOK"), err, sizeof(err)) == 0)
		return 1;
	fb_err("%s", err);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct fb_session *s = NULL;
	struct fb_result *r = NULL;
	int probe = 1, ret = fb_argp_parse(&list_argp, argc, argv, NULL, &probe);

	if (ret)
		return ret == 1 ? 0 : 2;
	if (probe && geteuid() == 0 && ablate_ok()) {
		r = calloc(1, sizeof(*r));
		s = r ? fb_session_open(NULL, 0, NULL, 0) : NULL;
		if (s)
			fb_session_collect(s, r);
	}
	print_probes(s ? r : NULL);
	print_workloads();
	fb_session_close(s);
	free(r);
	return 0;
}
