// SPDX-License-Identifier: GPL-2.0
/* symspec.c - the options and syntax of --func and --lock (util/symspec.h). */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cli.h"
#include "util/symspec.h"
#include "util/util.h"

#define IDENT_FIRST	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
#define IDENT_CHARS	IDENT_FIRST "0123456789"
#define STR_(x)		#x
#define STR(x)		STR_(x)

int fb_func_spec_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int fb_func_spec_check(const char *s, char *err, size_t len)
{
	size_t n = strlen(s);

	if (!n || n > FB_SYM_MAX || strspn(s, IDENT_CHARS ".*?[]!-") != n) {
		snprintf(err, len, "--func '%.60s': wants a kernel function name or glob "
			 "(1..%d of A-Z a-z 0-9 _ . * ? [ ] ! -)", s, FB_SYM_MAX);
		return -1;
	}
	return 0;
}

/* Length of the identifier at s, 0 if there is none. */
static size_t ident(const char *s)
{
	return *s && strchr(IDENT_FIRST, *s) ? strspn(s, IDENT_CHARS) : 0;
}

int fb_lock_spec_parse(const char *s, struct fb_lock_spec *l, char *err, size_t len)
{
	size_t n = ident(s), sep = 0, m = 0;

	memset(l, 0, sizeof(*l));
	if (n && s[n] == '.')
		sep = 1;
	else if (n && !strncmp(s + n, "->", 2))
		sep = 2;
	if (sep)
		m = ident(s + n + sep);
	if (!n || strlen(s) > FB_SYM_MAX || (sep && !m) || s[n + sep + m]) {
		snprintf(err, len, "--lock '%.60s': wants SYMBOL, SYMBOL.MEMBER or SYMBOL->MEMBER "
			 "(C identifiers, %d characters at most)", s, FB_SYM_MAX);
		return -1;
	}
	snprintf(l->sym, sizeof(l->sym), "%.*s", (int)n, s);
	snprintf(l->member, sizeof(l->member), "%.*s", (int)m, s + n + sep);
	l->deref = sep == 2;
	return 0;
}

enum { OPT_FUNC = 0x300, OPT_LOCK };

static const struct argp_option adhoc_options[] = {
	{ NULL, 0, NULL, 0, "Ad-hoc rows (like the catalogue's, marked \"adhoc\" in the results):",
	  8 },
	{ "func", OPT_FUNC, "SYM", 0, "a function row for SYM, or one for each function a glob "
	  "('kernfs_*') matches in /proc/kallsyms: fsession or fentry/fexit, else kprobe/kretprobe "
	  "(at most "
	  STR(FB_ADHOC_FUNCS) " functions in all; repeatable)", 0 },
	{ "lock", OPT_LOCK, "SYM[.MEMBER]", 0, "a lock row for the lock SYM, SYM.MEMBER (inside "
	  "the variable SYM) or SYM->MEMBER (inside what the pointer SYM points to); its type from "
	  "BTF (at most " STR(FB_ADHOC_LOCKS) "; repeatable)", 0 },
	{ 0 },
};

static error_t adhoc_parse(int key, char *arg, struct argp_state *state)
{
	struct fb_adhoc_opts *o = state->input;
	const char *cmd = state->name;
	char err[256];

	if (key != OPT_FUNC && key != OPT_LOCK)
		return ARGP_ERR_UNKNOWN;
	if (!strncmp(cmd, "foliobench ", 11))
		cmd += 11;
	if (key == OPT_FUNC && o->nfunc == FB_ADHOC_FUNCS) {
		fb_err("%s: more than %d --func", cmd, FB_ADHOC_FUNCS);
		return EINVAL;
	}
	if (key == OPT_LOCK && o->nlock == FB_ADHOC_LOCKS) {
		fb_err("%s: more than %d --lock", cmd, FB_ADHOC_LOCKS);
		return EINVAL;
	}
	if (key == OPT_FUNC ? fb_func_spec_check(arg, err, sizeof(err)) :
	    fb_lock_spec_parse(arg, &(struct fb_lock_spec){ 0 }, err, sizeof(err))) {
		fb_err("%s: %s", cmd, err);
		return EINVAL;
	}
	if (key == OPT_FUNC)
		o->func[o->nfunc++] = arg;
	else
		o->lock[o->nlock++] = arg;
	return 0;
}

const struct argp fb_adhoc_argp = { adhoc_options, adhoc_parse, NULL, NULL, NULL, NULL, NULL };

int fb_adhoc_argv(const struct fb_adhoc_opts *o, const char **argv)
{
	int n = fb_argv_opts(argv, "--func", o->func, o->nfunc);

	return n + fb_argv_opts(argv + n, "--lock", o->lock, o->nlock);
}
