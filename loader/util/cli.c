// SPDX-License-Identifier: GPL-2.0
/* cli.c - argp with foliobench's conventions (see util/cli.h). */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"
#include "util/util.h"

static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

int fb_argp_parse(const struct argp *a, int argc, char **argv, int *idx, void *input)
{
	char name[64];
	char **av;
	int ret;

	fb_fmt(name, sizeof(name), "foliobench %s", argc > 0 ? argv[0] : "?");
	if (wants_help(argc, argv)) {
		argp_help(a, stdout, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK, name);
		return 1;
	}
	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!av) {
		fb_err("%s: out of memory", name);
		return 2;
	}
	memcpy(av, argv, (size_t)argc * sizeof(*av));
	av[0] = name;
	ret = argp_parse(a, argc, av, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_IN_ORDER, idx, input);
	free(av);
	return ret ? 2 : 0;
}

int fb_opt_uint(const char *cmd, const char *opt, const char *arg, unsigned long long min,
		unsigned long long max, unsigned long long *out)
{
	uint64_t v;

	if (fb_parse_u64(arg, &v) < 0 || v < min || v > max) {
		fb_err("%s: %s wants %llu..%llu, not '%s'", cmd, opt, min, max, arg);
		return -1;
	}
	*out = v;
	return 0;
}
