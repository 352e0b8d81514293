// SPDX-License-Identifier: GPL-2.0
/*
 * ab_arms.c - `foliobench ab --arm NAME=SRC`: kernels from the user's own
 * patches.  SRC is a patch directory (`git format-patch` output, or a
 * quilt-style `series` file) applied over the pinned base, or GITDIR@REV, a
 * kernel git tree at a revision.  scripts/kernel-build.sh builds both like
 * the arms of kernel-patches/arms.conf (same cache, worktree, build
 * directory and checks), keyed by the source tree's hash; here they get a
 * side (baseline or patched), an absolute SRC, and the script's --check
 * before anything is built.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/fb.h"
#include "guest/ab_env.h"
#include "guest/kernel.h"
#include "guest/vm.h"
#include "util/outfile.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

/* SRC with its directory made absolute (DIR, or the GITDIR of GITDIR@REV). */
static void abs_src(const char *src, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *at = strrchr(src, '@');
	struct stat st;

	if (stat(src, &st) == 0 || !at || (size_t)(at - src) >= sizeof(dir)) {
		fb_fmt(out, len, "%s", realpath(src, real) ? real : src);
		return;
	}
	fb_fmt(dir, sizeof(dir), "%.*s", (int)(at - src), src);
	if (realpath(dir, real))
		fb_fmt(out, len, "%s%s", real, at);
	else
		fb_fmt(out, len, "%s", src);
}

int ab_arm_add(struct ab_env *e, const char *arg)
{
	size_t n = strspn(arg, NAME_CHARS);
	struct ab_user_arm *u = &e->user[e->nuser];
	char src[PATH_MAX + 16];

	if (!n || arg[n] != '=' || !arg[n + 1] || n >= sizeof(u->name)) {
		fb_err("ab: --arm wants NAME=DIR or NAME=GITDIR@REV (NAME: letters, digits, _ "
		       "and -, at most %zu), not '%s'", sizeof(u->name) - 1, arg);
		return -1;
	}
	if (e->nuser == AB_MAX_USER) {
		fb_err("ab: at most %d --arm (one per side), '%s' is one more", AB_MAX_USER, arg);
		return -1;
	}
	fb_fmt(u->name, sizeof(u->name), "%.*s", (int)n, arg);
	if (fb_name_check("--arm", u->name, src, sizeof(src))) {	/* a directory of OUT */
		fb_err("ab: %s", src);
		return -1;
	}
	for (int i = 0; i < e->nuser; i++)
		if (!strcmp(e->user[i].name, u->name)) {
			fb_err("ab: --arm %s: the name %s is given twice", arg, u->name);
			return -1;
		}
	if (fb_kernel_conf_arm(u->name)) {
		fb_err("ab: --arm %s: '%s' is an arm of kernel-patches/arms.conf; choose another "
		       "name", arg, u->name);
		return -1;
	}
	abs_src(arg + n + 1, src, sizeof(src));
	fb_fmt(u->spec, sizeof(u->spec), "%s=%s", u->name, src);
	e->nuser++;
	return 0;
}

/* The --arm named by a --baseline/--patched value, or -1. */
static int user_named(const struct ab_env *e, const char *spec)
{
	for (int i = 0; i < e->nuser; i++)
		if (!strcmp(e->user[i].name, spec))
			return i;
	return -1;
}

int ab_arms_resolve(struct ab_env *e)
{
	int used[AB_MAX_USER] = { 0 };
	/* one --arm: kernel B (against the base); two: A then B */
	const int order[2][2] = { { 1, 0 }, { 0, 1 } };

	if (!e->nuser)
		return 0;
	if (e->series) {
		fb_err("ab: --arm and --per-patch exclude each other (per-patch arms are the "
		       "prefixes of the series)");
		return 2;
	}
	for (int side = 0; side < 2; side++) {
		int u = user_named(e, e->arms[side].spec);

		if (u < 0)
			continue;
		fb_fmt(e->arms[side].spec, sizeof(e->arms[side].spec), "%s", e->user[u].spec);
		used[u] = 1;
	}
	for (int u = 0; u < e->nuser; u++) {
		int side = -1;

		for (int k = 0; k < 2 && !used[u] && side < 0; k++)
			if (!e->arms[order[e->nuser - 1][k]].spec[0])
				side = order[e->nuser - 1][k];
		if (used[u])
			continue;
		if (side < 0) {
			fb_err("ab: --arm %s: --baseline and --patched name other kernels; "
			       "name it in one of them", e->user[u].name);
			return 2;
		}
		fb_fmt(e->arms[side].spec, sizeof(e->arms[side].spec), "%s", e->user[u].spec);
	}
	return 0;
}
