// SPDX-License-Identifier: GPL-2.0
/* ksyms.c - /proc/kallsyms, loaded once and sorted by address. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "util/util.h"
#include "measure/ksyms.h"

struct fb_sym {
	uint64_t addr;
	char *name;
	char type;			/* kallsyms' letter: t/T text */
};

struct fb_ksyms {
	struct fb_sym *syms;
	size_t n, cap;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct fb_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ksyms_add(struct fb_ksyms *ks, uint64_t addr, char type, const char *name)
{
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 65536;
		struct fb_sym *s = realloc(ks->syms, cap * sizeof(*s));

		if (!s)
			return -1;
		ks->syms = s;
		ks->cap = cap;
	}
	ks->syms[ks->n].addr = addr;
	ks->syms[ks->n].type = type;
	ks->syms[ks->n].name = strdup(name);
	if (!ks->syms[ks->n].name)
		return -1;
	ks->n++;
	return 0;
}

struct fb_ksyms *fb_ksyms_load(void)
{
	return fb_ksyms_load_path("/proc/kallsyms");
}

struct fb_ksyms *fb_ksyms_load_path(const char *path)
{
	struct fb_ksyms *ks = calloc(1, sizeof(*ks));
	FILE *f = fopen(path, "r");
	char line[512], name[256], type;
	unsigned long long addr;

	if (!ks || !f) {
		if (f)
			fclose(f);
		free(ks);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (ksyms_add(ks, addr, type, name) < 0)
			break;
	}
	fclose(f);
	qsort(ks->syms, ks->n, sizeof(*ks->syms), sym_cmp);
	return ks;
}

void fb_ksyms_free(struct fb_ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++)
		free(ks->syms[i].name);
	free(ks->syms);
	free(ks);
}

int fb_ksym_lookup(const struct fb_ksyms *ks, const char *name, uint64_t *addr, uint64_t *end)
{
	for (size_t i = 0; ks && i < ks->n; i++) {
		if (strcmp(ks->syms[i].name, name))
			continue;
		*addr = ks->syms[i].addr;
		if (end) {
			size_t j = i + 1;

			while (j < ks->n && ks->syms[j].addr == *addr)
				j++;
			*end = j < ks->n ? ks->syms[j].addr : *addr + 1;
		}
		return 0;
	}
	return -1;
}

const char *fb_ksym_name(const struct fb_ksyms *ks, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!ks || !ks->n || addr < ks->syms[0].addr)
		return NULL;
	hi = ks->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*off = addr - ks->syms[lo].addr;
	return ks->syms[lo].name;
}

/*
 * What a --func glob may expand to: text symbols, without the compiler's
 * clones (name.isra.0, name.cold: not the function as called, not in BTF)
 * and the padding/CFI stubs in front of functions.
 */
static int is_func(const struct fb_sym *s)
{
	return (s->type == 't' || s->type == 'T') && !strchr(s->name, '.') &&
	       strncmp(s->name, "__pfx_", 6) && strncmp(s->name, "__cfi_", 6);
}

int fb_ksym_funcs(const struct fb_ksyms *ks, const char *pat, const char **out, int max)
{
	int n = 0;

	for (size_t i = 0; ks && i < ks->n; i++) {
		const struct fb_sym *s = &ks->syms[i];
		int dup = 0;

		if (!is_func(s) || fnmatch(pat, s->name, 0))
			continue;
		for (int j = 0; j < n && !dup; j++)
			dup = !strcmp(out[j], s->name);
		if (dup)
			continue;
		if (n == max)
			return max + 1;
		out[n++] = s->name;
	}
	return n;
}

long fb_btf_member_offset(struct btf **btf, const char *path)
{
	char type[64];
	const char *dot = strchr(path, '.');
	const struct btf_type *t;
	const struct btf_member *m;
	int id;

	if (!dot || (size_t)(dot - path) >= sizeof(type))
		return -1;
	memcpy(type, path, (size_t)(dot - path));
	type[dot - path] = '\0';
	if (!*btf)
		*btf = btf__load_vmlinux_btf();
	if (!*btf)
		return -1;
	id = btf__find_by_name_kind(*btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	t = btf__type_by_id(*btf, (unsigned int)id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(*btf, m->name_off), dot + 1))
			return (long)(btf_member_bit_offset(t, (unsigned int)i) / 8);
	return -1;
}

/* Other names within 4 places of index i that start with prefix. */
static int kin(const struct fb_ksyms *ks, size_t i, const char *prefix, size_t pl)
{
	size_t lo = i > 4 ? i - 4 : 0, hi = i + 5 < ks->n ? i + 5 : ks->n;
	int n = 0;

	for (size_t j = lo; j < hi; j++)
		n += strcmp(ks->syms[j].name, ks->syms[i].name) &&
		     !strncmp(ks->syms[j].name, prefix, pl);
	return n;
}

int fb_ksym_data(const struct fb_ksyms *ks, const char *name, uint64_t *addr)
{
	const char *us = strchr(name, '_');
	size_t pl = us ? (size_t)(us - name + 1) : strlen(name);
	int found = 0, best = -1, tie = 0;

	for (size_t i = 0; ks && i < ks->n; i++) {
		int k;

		if (strcmp(ks->syms[i].name, name))
			continue;
		k = kin(ks, i, name, pl);
		found++;
		if (k > best) {
			best = k;
			tie = 0;
			*addr = ks->syms[i].addr;
		} else if (k == best) {
			tie = 1;
		}
	}
	if (!found)
		return -1;
	return found > 1 && (tie || best == 0) ? -2 : 0;
}
