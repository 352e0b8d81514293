// SPDX-License-Identifier: GPL-2.0
/* main.c - `foliobench <command>`: dispatch to the subcommands. */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/compare.h"
#include "analysis/report/compare_cmd.h"
#include "analysis/gate/gate.h"
#include "analysis/history/history.h"
#include "analysis/report/report.h"
#include "analysis/shard/merge.h"
#include "guest/ab.h"
#include "guest/kernel.h"
#include "guest/vm.h"
#include "measure/list.h"
#include "measure/run.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "list", cmd_list, "probes and workloads, with their status on this kernel" },
	{ "run", cmd_run, "attach probes, run workloads, write results JSON" },
	{ "compare", cmd_compare, "before/after tables with verdicts from two results" },
	{ "report", cmd_report, "markdown + HTML report of an A/B directory" },
	{ "gate", cmd_gate, "CI regression gate: exit 0 pass, 1 regression, 3 unknown, 2 bad input" },
	{ "history", cmd_history, "run history in SQLite: trends and change points per metric" },
	{ "vm", cmd_vm, "boot a kernel in qemu and run a command in it" },
	{ "ab", cmd_ab, "interleaved A/B rounds of baseline and patched kernels" },
	{ "merge", cmd_merge, "join the shard directories of one `ab --shard` run into one" },
	{ "kernel", cmd_kernel, "build the baseline and patched guest kernels" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: foliobench <command> [options]   (foliobench <command> --help;"
		" -V/--version anywhere)\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nfoliobench %s - eBPF A/B benchmarks for the folio_pool and kernfs bulk "
		"registration series\n", FB_VERSION);
}

/*
 * -V or --version anywhere before "--": every command and subcommand
 * answers it (no subcommand has a -V of its own).
 */
static int wants_version(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V"))
			return 1;
	return 0;
}

static int is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "-?") || !strcmp(a, "--help") || !strcmp(a, "help");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (wants_version(argc, argv)) {
		printf("foliobench %s\n", FB_VERSION);
		return 0;
	}
	if (is_help(argv[1])) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--usage")) {
		printf("usage: foliobench [-V|--version] [-?|-h|--help] [--usage] <command> "
		       "[options]\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fb_err("unknown command '%s' (foliobench --help)", argv[1]);
	return 2;
}
