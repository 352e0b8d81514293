// SPDX-License-Identifier: GPL-2.0
/*
 * test_adhoc.c - ad-hoc rows (run --func/--lock): glob expansion against a
 * synthetic kallsyms file, the rows built from it, the option syntax and
 * the arguments `ab` passes on.  No kernel: --lock's BTF lookups are
 * exercised in the guest (tests/guest/core-test.sh).
 */
#include <argp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/adhoc.h"
#include "util/cli.h"
#include "tap.h"

static char path[] = "/tmp/fb-test-kallsyms-XXXXXX";

/* kernfs_* functions (three of them catalogue rows) among what a glob must skip */
static struct fb_ksyms *synthetic(void)
{
	static const char *const lines[] = {
		"ffffffff81000000 T _stext",
		"ffffffff81000100 t __pfx_kernfs_new_node",
		"ffffffff81000110 T kernfs_new_node",
		"ffffffff81000200 T kernfs_add_one",
		"ffffffff81000300 t kernfs_activate",
		"ffffffff81000400 t kernfs_put.cold",
		"ffffffff81000500 T kernfs_put",
		"ffffffff81000600 t kernfs_iop_getattr",
		"ffffffff81000680 t kernfs_iop_getattr",	/* two statics, one name */
		"ffffffff81000700 t __cfi_kernfs_get",
		"ffffffff81000780 t kernfs_seq_show.isra.0",
		"ffffffff81000800 T vfs_read",
		"ffffffff81000900 t kernfs_mod_fn\t[kernfs_mod]",
		"0000000000000000 T kernfs_hidden",		/* unprivileged reader: no address */
		"ffffffff82000000 D kernfs_node_cache",
		"ffffffff82000100 b kernfs_rename_lock",
		/* Debian 7.3.4: a driver's static sysfs_root before fs/sysfs' */
		"ffffffff83000000 d cpuidle_state_table",
		"ffffffff83000008 d icpu",
		"ffffffff83000010 d sysfs_root",
		"ffffffff83000018 d ipmi_dmi_nr",
		"ffffffff83000020 d acpi_initrd_files",
		"ffffffff83000028 d acpi_initrd_files_n",
		"ffffffff83000030 d acpi_pad_ids",
		"ffffffff83000038 d acpi_pad_driver",
		"ffffffff84000000 B sysfs_symlink_target_lock",
		"ffffffff84000008 B sysfs_root_kn",
		"ffffffff84000010 b sysfs_root",
		"ffffffff84000018 b pty_count",
		"ffffffff85000000 d twin",
		"ffffffff86000000 d twin",
	};
	FILE *f;
	int fd = mkstemp(path);

	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return NULL;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%s\n", lines[i]);
	for (int i = 0; i < 30; i++)
		fprintf(f, "ffffffff8110%04x t many_%03d\n", i * 16, i);
	fclose(f);
	return fb_ksyms_load_path(path);
}

static void test_glob(const struct fb_ksyms *ks)
{
	const char *out[FB_ADHOC_FUNCS + 1];
	uint64_t addr;
	int n;

	CHECKF(fb_ksym_lookup(ks, "vfs_read", &addr, NULL) == 0 && addr == 0xffffffff81000800ull,
	       "the synthetic kallsyms file loads");
	n = fb_ksym_funcs(ks, "kernfs_*", out, FB_ADHOC_FUNCS);
	CHECKF(n == 6, "kernfs_* matches 6 distinct functions (%d): no __pfx_/__cfi_ stubs, "
	       ".cold/.isra clones, data, or symbols without an address", n);
	CHECKF(fb_ksym_funcs(ks, "kernfs_iop_*", out, 4) == 1, "a name twice in kallsyms is one match");
	CHECKF(fb_ksym_funcs(ks, "kernfs_mod_fn", out, 4) == 1, "module functions match");
	CHECKF(fb_ksym_funcs(ks, "nothing*", out, 4) == 0, "no match: 0");
	CHECKF(fb_ksym_funcs(ks, "many_*", out, FB_ADHOC_FUNCS) == FB_ADHOC_FUNCS + 1,
	       "30 matches with room for %d: %d + 1", FB_ADHOC_FUNCS, FB_ADHOC_FUNCS);
	CHECKF(fb_ksym_funcs(ks, "many_00[0-4]", out, FB_ADHOC_FUNCS) == 5, "bracket globs match");
	CHECKF(fb_ksym_data(ks, "sysfs_root", &addr) == 0 && addr == 0xffffffff84000010ull,
	       "of two statics sysfs_root, the one beside sysfs_* symbols (%llx)",
	       (unsigned long long)addr);
	CHECKF(fb_ksym_data(ks, "kernfs_rename_lock", &addr) == 0 &&
	       addr == 0xffffffff82000100ull, "a unique data symbol");
	CHECKF(fb_ksym_data(ks, "twin", &addr) == -2, "two statics, no neighbours: ambiguous");
	CHECKF(fb_ksym_data(ks, "absent", &addr) == -1, "absent: -1");
}

/* fb_adhoc_build() of funcs, with the catalogue selection pat: 0 or -1 and err */
static int build(struct fb_adhoc *a, const struct fb_ksyms *ks, const char *const *func, int nfunc,
		 const char *const *pat, int npat, char *err)
{
	const struct fb_adhoc_args in = { .func = func, .nfunc = nfunc, .pat = pat, .npat = npat };

	err[0] = '\0';
	return fb_adhoc_build(a, ks, &in, err, 256);
}

static void test_rows(const struct fb_ksyms *ks)
{
	struct fb_adhoc *a = calloc(1, sizeof(*a));
	const char *nft[] = { "nft*" }, *kf[] = { "kernfs_*" };
	const char *two[] = { "vfs_read", "vfs_rea?", "not_in_kallsyms" };
	const char *many[] = { "many_00*", "many_01*", "many_02*" };
	char err[256];

	CHECKF(build(a, ks, kf, 1, NULL, 0, err) == 0 && a->n == 3 &&
	       !strcmp(a->defs[0].name, "kernfs_iop_getattr") &&
	       !strcmp(a->defs[1].name, "kernfs_mod_fn") && !strcmp(a->defs[2].name, "kernfs_put"),
	       "kernfs_* with every catalogue row: the 3 that are not catalogue rows, by name");
	CHECKF(a->defs[0].kind == FB_FUNC && a->defs[0].adhoc && !strcmp(a->defs[0].syms[0],
	       "kernfs_iop_getattr") && !a->defs[0].syms[1] && !a->defs[0].unresolved,
	       "an ad-hoc function row: one candidate, marked adhoc");
	CHECKF(build(a, ks, kf, 1, nft, 1, err) == 0 && a->n == 6 &&
	       !strcmp(a->defs[0].name, "kernfs_activate"),
	       "with --probes 'nft*' the kernfs catalogue rows are not taken: 6 rows");
	CHECKF(build(a, ks, two, 3, NULL, 0, err) == 0 && a->n == 2 &&
	       !strcmp(a->defs[1].name, "not_in_kallsyms"),
	       "a name given twice is one row; a literal name is a row even if not in kallsyms");
	CHECKF(build(a, ks, (const char *[]){ "nothing*" }, 1, NULL, 0, err) < 0 &&
	       strstr(err, "--func 'nothing*' matches no function"), "no match refused: %s", err);
	CHECKF(build(a, ks, (const char *[]){ "many_*" }, 1, NULL, 0, err) < 0 &&
	       strstr(err, "matches more than 24 functions"), "too many refused: %s", err);
	CHECKF(build(a, ks, many, 3, NULL, 0, err) < 0 && strstr(err, "more than 24 functions in all"),
	       "three globs of 10 refused together: %s", err);
	CHECKF(build(a, ks, many, 2, NULL, 0, err) == 0 && a->n == 20, "two globs of 10: 20 rows");
	{
		const struct fb_adhoc_args in = {
			.lock = (const char *[]){ "a", "b", "c", "d", "e" }, .nlock = 5,
		};

		CHECKF(fb_adhoc_build(a, ks, &in, err, sizeof(err)) < 0 && strstr(err, "at most 4"),
		       "five --lock refused: %s", err);
	}
	free(a);
}

static void test_syntax(void)
{
	static const char *const good[] = { "gdp_mutex", "init_mm.mmap_lock",
					     "sysfs_root->kernfs_rwsem", "_x1" };
	static const char *const bad[] = { "", "a.", "a->", ".a", "a.b.c", "a-b", "1a", "a b",
					   "a->b.c", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv" };
	struct fb_lock_spec l;
	char err[256];
	int ok = 0, refused = 0;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok += fb_lock_spec_parse(good[i], &l, err, sizeof(err)) == 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused += fb_lock_spec_parse(bad[i], &l, err, sizeof(err)) < 0 &&
			   strstr(err, "wants SYMBOL");
	CHECKF(ok == 4 && refused == 10, "--lock syntax: %d/4 accepted, %d/10 refused", ok, refused);
	fb_lock_spec_parse("sysfs_root->kernfs_rwsem", &l, err, sizeof(err));
	CHECKF(!strcmp(l.sym, "sysfs_root") && !strcmp(l.member, "kernfs_rwsem") && l.deref,
	       "SYM->MEMBER: symbol, member, pointer");
	fb_lock_spec_parse("init_mm.mmap_lock", &l, err, sizeof(err));
	CHECKF(!strcmp(l.sym, "init_mm") && !strcmp(l.member, "mmap_lock") && !l.deref,
	       "SYM.MEMBER: symbol, member, no pointer");
	CHECKF(!fb_func_spec_check("vfs_read", err, 256) && !fb_func_spec_check("kernfs_[an]*", err, 256) &&
	       !fb_func_spec_check("f.isra.0", err, 256) && fb_func_spec_check("", err, 256) &&
	       fb_func_spec_check("a b", err, 256) && fb_func_spec_check("a;b", err, 256),
	       "--func syntax");
}

static const struct argp_child children[] = { { &fb_adhoc_argp, 0, NULL, 0 }, { 0 } };

static error_t parent_parse(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_INIT)
		state->child_inputs[0] = state->input;
	return ARGP_ERR_UNKNOWN;
}

static const struct argp parent = { NULL, parent_parse, NULL, NULL, children, NULL, NULL };

static void test_options(void)
{
	char *ok[] = { "t", "--func", "vfs_read", "--lock", "a->b", "--func=kernfs_*", NULL };
	char *badlock[] = { "t", "--lock", "a..b", NULL };
	char *five[] = { "t", "--lock", "a", "--lock", "b", "--lock", "c", "--lock", "d",
			 "--lock", "e", NULL };
	struct fb_adhoc_opts o = { 0 };
	const char *argv[FB_ADHOC_ARGV];
	int n;

	CHECKF(fb_argp_parse(&parent, 6, ok, NULL, &o) == 0 && o.nfunc == 2 && o.nlock == 1,
	       "the argp child takes --func and --lock");
	n = fb_adhoc_argv(&o, argv);
	CHECKF(n == 6 && !strcmp(argv[0], "--func") && !strcmp(argv[1], "vfs_read") &&
	       !strcmp(argv[3], "kernfs_*") && !strcmp(argv[4], "--lock") && !strcmp(argv[5], "a->b"),
	       "ab passes them on as --func SYM ... --lock SPEC");
	memset(&o, 0, sizeof(o));
	CHECKF(fb_argp_parse(&parent, 3, badlock, NULL, &o) == 2 && !o.nlock, "a bad --lock: 2");
	memset(&o, 0, sizeof(o));
	CHECKF(fb_argp_parse(&parent, 11, five, NULL, &o) == 2, "a fifth --lock: 2");
}

int main(void)
{
	struct fb_ksyms *ks = synthetic();

	CHECKF(ks != NULL, "fb_ksyms_load_path(%s)", path);
	if (ks) {
		test_glob(ks);
		test_rows(ks);
	}
	test_syntax();
	test_options();
	fb_ksyms_free(ks);
	unlink(path);
	return tap_done();
}
