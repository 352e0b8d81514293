// SPDX-License-Identifier: GPL-2.0
/*
 * obsplugin.c - the TCG plugin observer's host side (obsplugin.h): which
 * guest addresses the plugin watches, checked against the kernel that
 * boots, and its counts as result rows.
 *
 * The addresses come from System.map (nokaslr on the guest's command line).
 * A System.map of another kernel would make the plugin count whatever sits
 * at those addresses, so before a boot: the bzImage's version string (its
 * setup header) must be the linux_banner of the vmlinux beside it, and that
 * vmlinux's symbol table must give every address the spec uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "measure/catalogue.h"
#include "measure/ksyms.h"
#include "measure/obsplugin.h"
#include "measure/observer.h"
#include "measure/sysinfo.h"
#include "model/fb.h"

#define SPEC_MAX	8192
#define OUT_MAX		(4 << 20)	/* the plugin's counts and histograms */
#define MAX_ADDR	64

/* The names and System.map addresses a spec uses, checked against vmlinux. */
struct used {
	const char *name[MAX_ADDR];
	uint64_t addr[MAX_ADDR];
	int n;
};

/* bzImage's kernel_version string (boot protocol: setup header at 0x1f1). */
static int bz_version(const char *bz, char *out, size_t len)
{
	unsigned char hdr[0x210];
	int fd = open(bz, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	unsigned int off;

	if (fd < 0)
		return -1;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		close(fd);
		return -1;
	}
	off = 0x200u + (unsigned int)(hdr[0x20e] | hdr[0x20f] << 8);
	n = pread(fd, out, len - 1, off);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	return 0;
}

/* Bytes at virtual address va of an ELF file, from the section holding them. */
static int elf_read_va(Elf *e, uint64_t va, char *out, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || va < sh.sh_addr ||
		    va >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || va - sh.sh_addr >= d->d_size)
			return -1;
		fb_fmt(out, len, "%.*s", (int)(d->d_size - (va - sh.sh_addr)),
		       (const char *)d->d_buf + (va - sh.sh_addr));
		return 0;
	}
	return -1;
}

/* vals[i] = vmlinux's symbol table value of u->name[i] (0 if absent). */
static int elf_syms(Elf *e, const struct used *u, uint64_t *vals)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t k = 0; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; k++) {
			const char *nm;

			if (!gelf_getsym(d, (int)k, &sym) || !sym.st_value)
				continue;
			nm = elf_strptr(e, sh.sh_link, sym.st_name);
			for (int i = 0; nm && i < u->n; i++)
				if (!vals[i] && !strcmp(nm, u->name[i]))
					vals[i] = sym.st_value;
		}
		return 0;
	}
	return -1;
}

/*
 * The vmlinux beside bz is bz's kernel (banner) and agrees with System.map
 * on every address in u.  0, or -1 with why.
 */
static int check_kernel(const char *bz, const char *sysmap, const struct used *u,
			uint64_t banner_va, char *why, size_t wlen)
{
	char dir[PATH_MAX], vml[PATH_MAX], ver[256], banner[512], rel[128], uts[256] = "";
	uint64_t vals[MAX_ADDR] = { 0 };
	const char *hash;
	Elf *e = NULL;
	int fd, r = -1;

	fb_fmt(dir, sizeof(dir), "%s", bz);
	fb_fmt(vml, sizeof(vml), "%s/vmlinux", dirname(dir));
	if (bz_version(bz, ver, sizeof(ver)) < 0) {
		fb_fmt(why, wlen, "%s: not a bzImage (no setup header version)", bz);
		return -1;
	}
	fd = open(vml, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE ||
	    !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		fb_fmt(why, wlen, "--observer plugin needs the vmlinux beside %s (a kernel "
		       "foliobench built): %s", bz, fd < 0 ? strerror(errno) : elf_errmsg(-1));
		goto out;
	}
	fb_fmt(rel, sizeof(rel), "Linux version %.*s ", (int)strcspn(ver, " "), ver);
	hash = strchr(ver, '#');	/* UTS_VERSION: "#1 SMP ... <build date>" */
	if (hash) {
		size_t l;

		fb_fmt(uts, sizeof(uts), "%s", hash);
		l = strcspn(uts, "\n");
		while (l && uts[l - 1] == ' ')
			l--;
		uts[l] = '\0';
	}
	if (elf_read_va(e, banner_va, banner, sizeof(banner)) < 0 ||
	    strncmp(banner, rel, strlen(rel)) || !uts[0] || !strstr(banner, uts)) {
		fb_fmt(why, wlen, "%s is not the System.map of %s (version %s): its linux_banner "
		       "address reads otherwise in %s", sysmap, bz, ver, vml);
		goto out;
	}
	if (elf_syms(e, u, vals) < 0) {
		fb_fmt(why, wlen, "%s: no symbol table", vml);
		goto out;
	}
	for (int i = 0; i < u->n; i++)
		if (vals[i] != u->addr[i]) {
			fb_fmt(why, wlen, "%s is not the System.map of %s: %s at 0x%" PRIx64
			       ", vmlinux says 0x%" PRIx64, sysmap, bz, u->name[i], u->addr[i],
			       vals[i]);
			goto out;
		}
	r = 0;
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return r;
}

/* One catalogue function row as a spec line ("func" or "# unavailable"). */
static void spec_row(char *spec, size_t len, const struct fb_probe_def *d,
		     const struct fb_ksyms *ks, struct used *u)
{
	int nsyms = d->filter_from ? d->filter_from : FB_MAX_CAND;
	size_t at = strlen(spec);
	uint64_t addr, end;

	for (int i = 0; i < nsyms && d->syms[i]; i++) {
		if (fb_ksym_lookup(ks, d->syms[i], &addr, &end) < 0 || u->n == MAX_ADDR)
			continue;
		u->name[u->n] = d->syms[i];
		u->addr[u->n++] = addr;
		fb_fmt(spec + at, len - at, "func %s %" PRIx64 " %s %" PRIx64 "\n", d->name, addr,
		       d->syms[i], end);
		return;
	}
	if (d->filter_from && d->syms[d->filter_from])
		fb_fmt(spec + at, len - at, "# unavailable %s %s: only as filtered by its "
		       "argument, and plugin API v1 reads no registers\n", d->name,
		       d->syms[d->filter_from]);
	else
		fb_fmt(spec + at, len - at, "# unavailable %s %s: not in System.map (%s)\n",
		       d->name, d->syms[0], d->module ? "in a module? the plugin watches "
		       "built-in code" : "inlined, or not in this kernel");
}

/*
 * The functions of a lock type the plugin watches (plugin/fbholds.c), where
 * System.map has them: acquire functions, whose first atomic of a call is
 * on the lock word (offset 0 of a mutex, rw_semaphore, spinlock) and whose
 * ret starts the hold; the slow paths they jump to (their ret, not the
 * acquire's, ends the acquisition); and release functions, whose entry
 * ends the hold.  Write side of an rwsem only: the BPF row's "hold" stat.
 * A lockdep kernel (lockstat flavour: lock_acquire in System.map) takes its
 * locks in other functions: lock_fns_ld.
 */
static const char *const lock_fns[][3][8] = {
	[FB_LK_MUTEX] = { { "mutex_lock", "mutex_lock_killable", "mutex_lock_interruptible" },
			  { "__mutex_lock.constprop.0" }, { "mutex_unlock" } },
	[FB_LK_RWSEM] = { { "down_write", "down_write_killable" }, { 0 }, { "up_write" } },
	[FB_LK_SPIN] = { { "do_raw_spin_lock" }, { "queued_spin_lock_slowpath" },
			 { "_raw_spin_unlock", "_raw_spin_unlock_bh", "_raw_spin_unlock_irq",
			   "_raw_spin_unlock_irqrestore", "__raw_spin_unlock_irq",
			   "__raw_spin_unlock_irqrestore", "do_raw_spin_unlock" } },
};

static const char *const lock_fns_ld[][3][8] = {
	[FB_LK_MUTEX] = { { "__mutex_trylock_common" }, { 0 },
			  { "mutex_unlock", "__mutex_unlock_slowpath" } },
	[FB_LK_RWSEM] = { { "rwsem_write_trylock" }, { 0 }, { "up_write" } },
	[FB_LK_SPIN] = { { "do_raw_spin_trylock", "do_raw_spin_lock" }, { 0 },
			 { "_raw_spin_unlock", "_raw_spin_unlock_bh", "_raw_spin_unlock_irq",
			   "_raw_spin_unlock_irqrestore", "do_raw_spin_unlock" } },
};

/* fn's line already in spec (another row of the lock type) */
static int has_fn(const char *spec, const char *fn)
{
	size_t l = strlen(fn);

	for (const char *p = strstr(spec, fn); p; p = strstr(p + 1, fn))
		if (p > spec && p[-1] == ' ' && p[l] == ' ')
			return 1;
	return 0;
}

/* "lockfn|lockret|unlockfn SYM ADDR END GROUP" lines; fns: the acquire ones */
static void spec_lock_fns(char *spec, size_t len, enum fb_lock_type t, const struct fb_ksyms *ks,
			  struct used *u, char *fns, size_t flen)
{
	static const char *const kind[] = { "lockfn", "lockret", "unlockfn" };
	uint64_t addr, end;
	const char *const (*fs)[3][8] = fb_ksym_lookup(ks, "lock_acquire", &addr, &end) < 0 ?
					lock_fns : lock_fns_ld;

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 8 && fs[t][k][i]; i++) {
			const char *fn = fs[t][k][i];
			size_t at;

			if (fb_ksym_lookup(ks, fn, &addr, &end) < 0 || u->n == MAX_ADDR)
				continue;
			at = strlen(fns);
			if (!k)
				fb_fmt(fns + at, flen - at, "%s%s", at ? "," : "", fn);
			if (has_fn(spec, fn))
				continue;	/* another row's function too */
			u->name[u->n] = fn;
			u->addr[u->n++] = addr;
			at = strlen(spec);
			fb_fmt(spec + at, len - at, "%s %s %" PRIx64 " %" PRIx64 " %d\n", kind[k],
			       fn, addr, end, (int)t);
		}
}

/*
 * A lock row: its functions, and "# lock NAME FN,... ADDR" (a global) or
 * "# lock NAME FN,... - STRUCT.MEMBER OFFSET" (a member of an object the
 * host cannot find: the plugin's busiest words say which, obslocks.c) or
 * "# lock NAME FN,... -".
 */
static void spec_lock(char *spec, size_t len, const struct fb_probe_def *d,
		      const struct fb_ksyms *ks, struct used *u, struct btf **btf)
{
	char fns[160] = "";
	uint64_t inst = 0;
	long off = -1;
	size_t at;

	if (d->lock_type != FB_LK_MUTEX && d->lock_type != FB_LK_RWSEM &&
	    d->lock_type != FB_LK_SPIN)
		return;
	spec_lock_fns(spec, len, d->lock_type, ks, u, fns, sizeof(fns));
	if (!d->inst_deref && !d->inst_member && d->inst_sym)
		fb_ksym_lookup(ks, d->inst_sym, &inst, NULL);
	if (d->inst_member && *btf)
		off = fb_btf_member_offset(btf, d->inst_member);
	at = strlen(spec);
	if (inst)
		fb_fmt(spec + at, len - at, "lockinst %" PRIx64 "\n# lock %s %s %" PRIx64 "\n",
		       inst, d->name, fns, inst);
	else if (off >= 0)
		fb_fmt(spec + at, len - at, "# lock %s %s - %s %ld\n", d->name, fns, d->inst_member,
		       off);
	else
		fb_fmt(spec + at, len - at, "# lock %s %s -\n", d->name, fns);
}

char *fb_obsplugin_spec(const char *bz, const char *sysmap, const char *const *pat, int npat,
			char *why, size_t wlen)
{
	char mapbuf[PATH_MAX], dir[PATH_MAX], vml[PATH_MAX];
	struct btf *btf = NULL;
	const char *marks[] = { FB_OBS_MARK_ON, FB_OBS_MARK_OFF, "linux_banner",
				FB_OBS_MARK_PHASE };
	struct used u = { .n = 0 };
	struct fb_ksyms *ks;
	char *spec;

	if (!sysmap) {
		fb_fmt(dir, sizeof(dir), "%s", bz);
		fb_fmt(mapbuf, sizeof(mapbuf), "%s/System.map", dirname(dir));
		sysmap = mapbuf;
	}
	ks = access(sysmap, R_OK) == 0 ? fb_ksyms_load_path(sysmap) : NULL;
	spec = ks ? calloc(1, SPEC_MAX) : NULL;
	if (!spec) {
		fb_fmt(why, wlen, "--observer plugin: %s: %s", sysmap,
		       ks ? "out of memory" : "cannot read it (the plugin needs the kernel's "
		       "System.map)");
		fb_ksyms_free(ks);
		return NULL;
	}
	for (int i = 0; i < 4; i++) {
		if (fb_ksym_lookup(ks, marks[i], &u.addr[u.n], NULL) < 0) {
			fb_fmt(why, wlen, "%s: no %s (not a System.map of an x86-64 kernel?)",
			       sysmap, marks[i]);
			goto bad;
		}
		u.name[u.n++] = marks[i];
	}
	fb_fmt(spec, SPEC_MAX, "# foliobench plugin spec: %s\non %" PRIx64 "\noff %" PRIx64
	       "\nphase %" PRIx64 "\n", sysmap, u.addr[0], u.addr[1], u.addr[3]);
	fb_fmt(dir, sizeof(dir), "%s", bz);
	fb_fmt(vml, sizeof(vml), "%s/vmlinux", dirname(dir));
	btf = btf__parse(vml, NULL);	/* lock members' offsets; checked below */
	for (int i = 0; i < fb_nprobes; i++)
		if (fb_probes[i].kind == FB_FUNC && fb_probe_wanted(&fb_probes[i], pat, npat))
			spec_row(spec, SPEC_MAX, &fb_probes[i], ks, &u);
		else if (fb_probes[i].kind == FB_LOCK && fb_probe_wanted(&fb_probes[i], pat, npat))
			spec_lock(spec, SPEC_MAX, &fb_probes[i], ks, &u, &btf);
	btf__free(btf);
	if (check_kernel(bz, sysmap, &u, u.addr[2], why, wlen) == 0) {
		fb_ksyms_free(ks);
		return spec;
	}
bad:
	fb_ksyms_free(ks);
	free(spec);
	return NULL;
}

/* ---- after the boot: the counts as rows ---- */

/* The rest of the plugin's line "KEY NAME ..." (after NAME), or NULL. */
static const char *out_line(const char *out, const char *key, const char *name)
{
	size_t kl = strlen(key), nl = strlen(name);

	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ' && !strncmp(p + kl + 1, name, nl) &&
		    (p[kl + 1 + nl] == ' ' || p[kl + 1 + nl] == '\n'))
			return p + kl + 1 + nl;
	return NULL;
}

/*
 * The latency of the calls timed to their return, in ns: 2^shift per guest
 * instruction (-icount shift=N).  0, or -1 if the plugin's lines are bad.
 */
static int out_latency(const char *out, const char *name, int shift, struct fb_hist *h,
		       uint64_t *unmatched)
{
	const char *l = out_line(out, "lat", name), *b = out_line(out, "hist", name);
	unsigned long long c, sum, mn, mx, um, idx, n;
	int used;

	if (!l || !b || sscanf(l, "%llu %llu %llu %llu %llu", &c, &sum, &mn, &mx, &um) != 5)
		return -1;
	h->count = c;
	h->sum = sum << shift;
	h->min = mn << shift;
	h->max = mx << shift;
	*unmatched = um;
	while (sscanf(b, " %llu:%llu%n", &idx, &n, &used) == 2 && idx < FB_NBUCKETS) {
		/* a bucket of v is the bucket of v << shift only for shift 0 */
		if (shift)
			h->buckets[fb_bucket(fb_bucket_lo((unsigned int)idx) << shift)] += n;
		else
			h->buckets[idx] += n;
		b += used;
	}
	return 0;
}

struct fb_probe_result *fb_obsplugin_new_row(struct fb_result *r, const char *name, char *why,
					     size_t wlen)
{
	const struct fb_probe_def *d = fb_probe_find(name);
	struct fb_probe_result *p;

	if (r->nprobes == FB_MAX_PROBES) {
		fb_fmt(why, wlen, "more than %d rows", FB_MAX_PROBES);
		return NULL;
	}
	p = &r->probes[r->nprobes++];
	memset(p, 0, sizeof(*p));
	fb_fmt(p->name, sizeof(p->name), fb_result_probe(r, name) ? "%s@plugin" : "%s", name);
	fb_fmt(p->series, sizeof(p->series), "%s", d ? d->series : "-");
	fb_fmt(p->gate, sizeof(p->gate), "%s", d && d->gate ? d->gate : "");
	p->kind = d ? d->kind : FB_FUNC;
	fb_fmt(p->method, sizeof(p->method), "plugin");
	return p;
}

/* One spec line ("func ..." or "# unavailable ...") as a row of r. */
static int merge_line(struct fb_result *r, const char *line, const char *spec, const char *out,
		      int shift,
		      char *why, size_t wlen)
{
	char name[64], sym[64], note[192];
	struct fb_probe_result *p;
	unsigned long long win = 0, boot = 0;
	uint64_t addr, unmatched = 0;
	const char *f;

	if (sscanf(line, "func %63s %" SCNx64 " %63s", name, &addr, sym) == 3) {
		f = out_line(out, "func", name);
		if (!f || sscanf(f, "%llu %llu", &win, &boot) != 2) {
			fb_fmt(why, wlen, "the plugin's counts lack %s", name);
			return -1;
		}
		if (!(p = fb_obsplugin_new_row(r, name, why, wlen)))
			return -1;
		p->status = FB_ATTACHED;
		fb_fmt(p->symbol, sizeof(p->symbol), "%s", sym);
		p->nstats = 2;
		fb_fmt(p->stats[0].name, sizeof(p->stats[0].name), "latency");
		fb_fmt(p->stats[0].h.unit, sizeof(p->stats[0].h.unit), "ns");
		fb_fmt(p->stats[1].name, sizeof(p->stats[1].name), "calls");
		fb_fmt(p->stats[1].h.unit, sizeof(p->stats[1].h.unit), "calls");
		p->stats[1].h.count = win;
		if (out_latency(out, name, shift, &p->stats[0].h, &unmatched) < 0) {
			fb_fmt(why, wlen, "the plugin's latency of %s is unreadable", name);
			return -1;
		}
		fb_fmt(p->reason, sizeof(p->reason), "entries of %s at 0x%" PRIx64 " in the "
		       "windows (%llu in the boot), timed in guest instructions to a ret in its "
		       "body; %" PRIu64 " not timed (left by a tail call)", sym, addr, boot,
		       unmatched);
		return 0;
	}
	if (!strncmp(line, "# lock ", 7))
		return fb_obsplugin_lock_row(r, line, spec, out, shift, why, wlen);
	if (sscanf(line, "# unavailable %63s %191[^\n]", name, note) == 2) {
		if (!(p = fb_obsplugin_new_row(r, name, why, wlen)))
			return -1;
		p->status = FB_UNAVAILABLE;
		fb_fmt(p->symbol, sizeof(p->symbol), "-");
		fb_fmt(p->reason, sizeof(p->reason), "%s", note);
	}
	return 0;
}

int fb_obsplugin_merge(const char *spec, const char *out_path, const char *results, int shift,
		       char *why, size_t wlen)
{
	char *out = malloc(OUT_MAX), err[256];
	unsigned long long on = 0, off = 0;
	struct fb_result *r;
	const char *p, *m;
	int ret = 0;

	if (!out || fb_read_file(out_path, out, OUT_MAX) <= 0 || strncmp(out, "fbobs 3\n", 8)) {
		fb_fmt(why, wlen, "the plugin wrote no counts (%s)", out_path);
		free(out);
		return -1;
	}
	m = strstr(out, "\nmarks ");
	if (!m || sscanf(m, "\nmarks %llu %llu", &on, &off) != 2 || !on || on != off) {
		fb_fmt(why, wlen, "the plugin saw %llu window openings and %llu closings: the "
		       "guest command was not `foliobench run`, or it ran no workload", on, off);
		free(out);
		return -1;
	}
	r = fb_result_load(results, err, sizeof(err));
	if (!r) {
		fb_fmt(why, wlen, "%s", err);
		free(out);
		return -1;
	}
	for (p = spec; p && *p && !ret; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		ret = merge_line(r, p, spec, out, shift, why, wlen);
	if (!ret) {
		fb_extra_set(r, "plugin.marks_on", (double)on);
		fb_extra_set(r, "plugin.marks_off", (double)off);
		ret = fb_result_save(r, results) < 0 ? -1 : 0;
		if (ret)
			fb_fmt(why, wlen, "cannot rewrite %s", results);
	}
	free(r);
	free(out);
	return ret;
}
