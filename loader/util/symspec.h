/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/symspec.h - ad-hoc probes, `run --func SYM|GLOB` and `run --lock
 * SYM[.MEMBER]`: their options and syntax, checked without a kernel (so
 * `ab` refuses a bad one before it boots anything); `run` turns them into
 * rows in measure/adhoc.c.
 */
#ifndef FB_SYMSPEC_H
#define FB_SYMSPEC_H

#include <stddef.h>

struct argp;

/* A row name: the results model's probe names hold 47 characters. */
#define FB_SYM_MAX		47
/* Ad-hoc rows per run: functions from all --func together, and locks. */
#define FB_ADHOC_FUNCS		24
#define FB_ADHOC_LOCKS		4

struct fb_lock_spec {
	char sym[FB_SYM_MAX + 1];	/* kallsyms data symbol */
	char member[FB_SYM_MAX + 1];	/* "" for the lock itself */
	int deref;			/* SYM->MEMBER: SYM is a pointer */
};

/* 1 if s is an fnmatch(3) pattern (has *, ? or [). */
int fb_func_spec_is_glob(const char *s);
/*
 * A function name or glob: 1..47 characters of [A-Za-z0-9_.] and the glob
 * characters.  0, or -1 with one line in err.
 */
int fb_func_spec_check(const char *s, char *err, size_t len);
/*
 * SYM, SYM.MEMBER (a lock inside the variable SYM) or SYM->MEMBER (inside
 * what the pointer SYM points to); identifiers only, 47 characters at most.
 * 0 and *l, or -1 with one line in err.
 */
int fb_lock_spec_parse(const char *s, struct fb_lock_spec *l, char *err, size_t len);

/*
 * --func and --lock as given to `run` or `ab`, syntax checked: the input of
 * fb_adhoc_argp, an argp child of both commands' parsers.
 */
struct fb_adhoc_opts {
	const char *func[FB_ADHOC_FUNCS];
	const char *lock[FB_ADHOC_LOCKS];
	int nfunc, nlock;
};

extern const struct argp fb_adhoc_argp;

/* Room for fb_adhoc_argv()'s output. */
#define FB_ADHOC_ARGV		(2 * (FB_ADHOC_FUNCS + FB_ADHOC_LOCKS))
/* o as options again ("--func", SYM, "--lock", SPEC, ...) into argv: how many. */
int fb_adhoc_argv(const struct fb_adhoc_opts *o, const char **argv);

#endif /* FB_SYMSPEC_H */
