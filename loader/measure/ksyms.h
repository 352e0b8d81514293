/* SPDX-License-Identifier: GPL-2.0 */
/* ksyms.h - /proc/kallsyms, loaded once and sorted by address. */
#ifndef KSYMS_H
#define KSYMS_H

#include <stdint.h>

struct fb_ksyms;

struct fb_ksyms *fb_ksyms_load(void);		/* /proc/kallsyms */
/* A file in kallsyms' format (tests); NULL if it cannot be opened. */
struct fb_ksyms *fb_ksyms_load_path(const char *path);
void fb_ksyms_free(struct fb_ksyms *ks);
/* 0 and the address (and the end of the symbol, if end != NULL), or -1. */
int fb_ksym_lookup(const struct fb_ksyms *ks, const char *name, uint64_t *addr, uint64_t *end);
/* The symbol containing addr, or NULL; *off gets the offset into it. */
/*
 * A data symbol for an instance: two files may have a static of the same
 * name (Debian's 7.3.4 has two sysfs_root).  Statics of one file sit side by
 * side in kallsyms, so of several it takes the one with the most neighbours
 * (4 places either side) sharing its prefix up to the first '_'.  0, -1 if
 * absent, -2 if still ambiguous.
 */
int fb_ksym_data(const struct fb_ksyms *ks, const char *name, uint64_t *addr);
const char *fb_ksym_name(const struct fb_ksyms *ks, uint64_t addr, uint64_t *off);

/*
 * The distinct function names (text symbols, no .isra/.cold clones or
 * __pfx_/__cfi_ stubs) matching the fnmatch(3) pattern pat, into out[]
 * (pointers into ks, valid until fb_ksyms_free): their number, or max + 1
 * if there are more than max.
 */
int fb_ksym_funcs(const struct fb_ksyms *ks, const char *pat, const char **out, int max);

struct btf;
/*
 * Byte offset of "struct.member" in the running kernel's BTF (loaded into
 * *btf on first use; the caller frees it with btf__free()), or -1.
 */
long fb_btf_member_offset(struct btf **btf, const char *path);

#endif /* KSYMS_H */
