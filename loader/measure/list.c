// SPDX-License-Identifier: GPL-2.0
/*
 * list.c - `foliobench list`: every probe of the catalogue with its status
 * on the running kernel, and every workload with its parameters.
 */
#include <argp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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
	{ "verbose", 'v', NULL, 0, "every reason and description in full, wrapped at the "
	  "terminal's width (default: cut at a word to fit one line)", 0 },
	{ 0 },
};

struct list_env {
	int probe, verbose;
	int width;	/* the terminal's columns: $COLUMNS, else stdout's, else 80 */
};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	struct list_env *e = state->input;

	(void)arg;
	if (key == OPT_NO_PROBE)
		e->probe = 0;
	else if (key == 'v')
		e->verbose = 1;
	else
		return ARGP_ERR_UNKNOWN;
	return 0;
}

static int term_width(void)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (c && *c) {
		v = strtol(c, &end, 10);
		if (!*end && v > 0 && v < 10000)
			return (int)v;
	}
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/*
 * One line: head (the first columns, padded), then text in the last
 * column: cut at a word to fit the width (with " ..."), or with e->verbose
 * wrapped onto lines indented to that column.  Where fewer than 30 columns
 * are left, text starts on a line of its own, indented 4.  A word is never
 * cut; one longer than the room overflows.
 */
static void fit(const struct list_env *e, const char *head, const char *text)
{
	int col = (int)strlen(head), room = e->width - col;

	if (room < 30) {	/* head without its padding, text below */
		int n = col;

		while (n > 0 && head[n - 1] == ' ')
			n--;
		printf("%.*s\n", n, head);
		col = 4;
		room = e->width - col;
		printf("%*s", col, "");
	} else {
		fputs(head, stdout);
	}
	while (*text) {
		int n = (int)strlen(text), cut = n;

		if (n > room) {	/* the last blank that leaves the line within room */
			int lim = e->verbose ? room : room - 4;

			for (cut = lim; cut > 0 && text[cut] != ' '; cut--)
				;
			if (!cut)	/* one long word: up to its end */
				cut = (int)strcspn(text, " ");
		}
		printf("%.*s", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (!*text)
			break;
		if (!e->verbose) {
			printf(" ...");
			break;
		}
		printf("\n%*s", col, "");
	}
	printf("\n");
}

static const struct argp list_argp = {
	list_options, list_parse, NULL,
	"Every probe of the catalogue with its status on the running kernel (attaching needs "
	"root: without it, or with --no-probe, the catalogue only), and every workload with "
	"its parameters and whether it can run here.  Lines fit the terminal ($COLUMNS, else "
	"its width, else 80 columns); -v shows every reason in full.",
	NULL, NULL, NULL,
};

static void print_probes(const struct list_env *e, const struct fb_result *r)
{
	char head[160];

	fb_fmt(head, sizeof(head), "%-30s %-12s %-11s %-11s %-8s ", "PROBE", "SERIES", "KIND",
	       "STATUS", "METHOD");
	fit(e, head, "WHAT IT SHOWS / WHY NOT");
	for (int i = 0; i < fb_nprobes; i++) {
		const struct fb_probe_def *d = &fb_probes[i];
		const struct fb_probe_result *p = r ? fb_result_probe(r, d->name) : NULL;

		fb_fmt(head, sizeof(head), "%-30s %-12s %-11s %-11s %-8s ", d->name, d->series,
		       fb_kind_name(d->kind), p ? fb_probe_status_name(p->status) : "-",
		       p ? p->method : "-");
		fit(e, head, p && p->status != FB_ATTACHED ? p->reason : d->proves);
	}
}

static void print_workloads(const struct list_env *e)
{
	char line[256], range[96], head[160];

	printf("\n%-10s %-12s %-12s %s\n", "WORKLOAD", "SERIES", "STATUS", "DESCRIPTION");
	printf("    %-22s %-4s %8s  %-26s %s\n", "PARAMETER", "TYPE", "DEFAULT", "RANGE", "HELP");
	for (int i = 0; i < fb_nworkloads; i++) {
		const struct fb_workload *w = &fb_workloads[i];
		char why[192] = "";
		int ok = w->avail(why, sizeof(why)) == 0;

		fb_fmt(line, sizeof(line), "%s%s%s", w->desc, ok ? "" : " -- ", ok ? "" : why);
		fb_fmt(head, sizeof(head), "%-10s %-12s %-12s ", w->name, w->series,
		       ok ? "available" : "unavailable");
		fit(e, head, line);
		for (const struct fb_param_def *d = w->params; d && d->key; d++) {
			fb_fmt(line, sizeof(line), "%s.%s", w->name, d->key);
			fb_param_range(d, range, sizeof(range));
			fb_fmt(head, sizeof(head), "    %-22s %-4s %8llu  %-26s ", line,
			       fb_param_type_name(d->type), (unsigned long long)d->def, range);
			fit(e, head, d->help);
		}
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
	struct list_env e = { .probe = 1 };
	int ret = fb_argp_parse(&list_argp, argc, argv, NULL, &e);

	if (ret)
		return ret == 1 ? 0 : 2;
	e.width = term_width();
	if (e.probe && geteuid() == 0 && ablate_ok()) {
		r = calloc(1, sizeof(*r));
		s = r ? fb_session_open(NULL, 0, NULL, 0) : NULL;
		if (s)
			fb_session_collect(s, r);
	}
	print_probes(&e, s ? r : NULL);
	print_workloads(&e);
	fb_session_close(s);
	free(r);
	return 0;
}
