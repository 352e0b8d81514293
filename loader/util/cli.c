// SPDX-License-Identifier: GPL-2.0
/* cli.c - argp with foliobench's conventions (see util/cli.h). */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"
#include "util/util.h"

/* 1 for --help, -h or -?, 2 for --usage, before any "--"; else 0 */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "-?"))
			return 1;
		if (!strcmp(argv[i], "--usage"))
			return 2;
	}
	return 0;
}

/* ---- one line for what getopt refused (argp runs with ARGP_NO_ERRS) ---- */

static int opt_end(const struct argp_option *o)
{
	return !o->key && !o->name && !o->doc && !o->group;
}

static int opt_short(const struct argp_option *o)
{
	return !(o->flags & OPTION_DOC) && o->key > 0 && o->key <= 255 && isprint(o->key);
}

/* What a long name (a unique prefix is enough, as for getopt_long) or a short key matches. */
struct look {
	const char *name;
	size_t len;
	int lng;
	const struct argp_option *exact, *hit;
	int n;				/* options matched: 0 unknown, > 1 ambiguous */
};

static void look_in(const struct argp *a, struct look *l)
{
	for (const struct argp_option *o = a->options; o && !opt_end(o); o++) {
		if (o->flags & OPTION_DOC)
			continue;
		if (l->lng ? !o->name || strncmp(o->name, l->name, l->len) :
			     !opt_short(o) || o->key != (unsigned char)l->name[0])
			continue;
		if ((!l->lng || !o->name[l->len]) && !l->exact)
			l->exact = o;
		if (!l->hit || l->hit->key != o->key)
			l->n++;
		l->hit = o;
	}
	for (const struct argp_child *c = a->children; c && c->argp; c++)
		look_in(c->argp, l);
}

/* The option, or NULL with *ambiguous set when several match a prefix. */
static const struct argp_option *find_opt(const struct argp *a, const char *name, size_t len,
					  int lng, int *ambiguous)
{
	struct look l = { .name = name, .len = len, .lng = lng };

	look_in(a, &l);
	*ambiguous = !l.exact && l.n > 1;
	return l.exact ? l.exact : l.n == 1 ? l.hit : NULL;
}

static int takes_arg(const struct argp_option *o)
{
	return o->arg && !(o->flags & OPTION_ARG_OPTIONAL);
}

/*
 * Why argv[i] (an option) is refused: 0 and one line in why, or -1 when
 * it is fine.  last: nothing follows it.
 */
static int bad_long(const struct argp *a, const char *tok, int last, char *why, size_t len)
{
	const char *eq = strchr(tok + 2, '=');
	size_t l = eq ? (size_t)(eq - tok - 2) : strlen(tok + 2);
	int amb;
	const struct argp_option *o = find_opt(a, tok + 2, l, 1, &amb);

	if (amb)
		fb_fmt(why, len, "ambiguous option '%.*s'", (int)l + 2, tok);
	else if (!o)
		fb_fmt(why, len, "unknown option '%.*s'", (int)l + 2, tok);
	else if (!o->arg && eq)
		fb_fmt(why, len, "--%s takes no value", o->name);
	else if (takes_arg(o) && !eq && last)
		fb_fmt(why, len, "--%s needs a value %s", o->name, o->arg);
	else
		return -1;
	return 0;
}

static int bad_short(const struct argp *a, const char *tok, int last, char *why, size_t len)
{
	for (const char *p = tok + 1; *p; p++) {
		int amb;
		const struct argp_option *o = find_opt(a, p, 1, 0, &amb);

		if (!o) {
			fb_fmt(why, len, "unknown option '-%c'", *p);
			return 0;
		}
		if (!takes_arg(o))
			continue;
		if (p[1] || !last)
			return -1;	/* the rest, or the next argument, is its value */
		fb_fmt(why, len, "-%c needs a value %s", *p, o->arg);
		return 0;
	}
	return -1;
}

static int bad_token(const struct argp *a, int argc, char **argv, int i, char *why, size_t len)
{
	const char *tok;

	if (i < 1 || i >= argc)
		return -1;
	tok = argv[i];
	if (tok[0] != '-' || !tok[1] || !strcmp(tok, "--"))
		return -1;
	if (tok[1] == '-')
		return bad_long(a, tok, i == argc - 1, why, len);
	return bad_short(a, tok, i == argc - 1, why, len);
}

/*
 * getopt stops at the token it refused: the one before next, or, inside a
 * cluster of short options (-xq), the one at next.  An operand no parser
 * took stops the parse at itself.
 */
static void say_bad_option(const struct argp *a, const char *cmd, int argc, char **argv,
			   int next)
{
	char why[160];

	if (bad_token(a, argc, argv, next - 1, why, sizeof(why)) &&
	    bad_token(a, argc, argv, next, why, sizeof(why))) {
		if (next > 0 && next < argc && argv[next][0] != '-')
			fb_fmt(why, sizeof(why), "unexpected argument '%s'", argv[next]);
		else
			fb_fmt(why, sizeof(why), "bad option near '%s'",
			       next > 0 && next <= argc ? argv[next - 1] : "?");
	}
	fb_err("%s: %s (see foliobench %s --help)", cmd, why, cmd);
}

/* ---- the parse ---- */

struct top {
	const struct argp *shared;
	void *input, *shared_input;
	int next;		/* where the parse stopped, on an error */
};

/* Above the command's argps: hands each its input, notes where an error stopped. */
static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top *t = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = t->input;
		if (t->shared)	/* child_inputs has a slot per child */
			state->child_inputs[1] = t->shared_input;
		return 0;
	case ARGP_KEY_ERROR:
		t->next = state->next;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

int fb_argp_parse_shared(const struct argp *a, void *input, const struct argp *shared,
			 void *shared_input, int argc, char **argv, int *idx)
{
	const struct argp_child kids[] = { { a, 0, NULL, 0 }, { shared, 0, NULL, 0 }, { 0 } };
	const struct argp top = { NULL, top_parse, NULL, NULL, kids, NULL, NULL };
	struct top t = { .shared = shared, .input = input, .shared_input = shared_input };
	const char *cmd = argc > 0 ? argv[0] : "?";
	int nerr = fb_err_count(), ret;
	char name[64];
	char **av;

	fb_fmt(name, sizeof(name), "foliobench %s", cmd);
	switch (wants_help(argc, argv)) {
	case 1:
		argp_help(&top, stdout, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK, name);
		return 1;
	case 2:
		argp_help(&top, stdout, ARGP_HELP_USAGE, name);
		return 1;
	}
	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!av) {
		fb_err("%s: out of memory", cmd);
		return 2;
	}
	memcpy(av, argv, (size_t)argc * sizeof(*av));
	av[0] = name;
	ret = argp_parse(&top, argc, av, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS |
			 ARGP_IN_ORDER, idx, &t);
	if (ret && fb_err_count() == nerr)	/* getopt's refusal: nothing said yet */
		say_bad_option(&top, cmd, argc, av, t.next);
	free(av);
	return ret ? 2 : 0;
}

int fb_argp_parse(const struct argp *a, int argc, char **argv, int *idx, void *input)
{
	return fb_argp_parse_shared(a, input, NULL, NULL, argc, argv, idx);
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

int fb_argp_ret(int r)
{
	if (r > 0)
		return ARGP_ERR_UNKNOWN;
	return r ? EINVAL : 0;
}

int fb_argv_opts(const char **argv, const char *opt, const char *const *vals, int n)
{
	for (int i = 0; i < n; i++) {
		argv[2 * i] = opt;
		argv[2 * i + 1] = vals[i];
	}
	return 2 * n;
}

void fb_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int fb_parse_double_arg(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}
