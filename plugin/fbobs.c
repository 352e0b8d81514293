// SPDX-License-Identifier: GPL-2.0
/*
 * fbobs.c - foliobench's observer as a QEMU TCG plugin (plugin API v1,
 * qemu 7.2): counts calls of guest kernel functions and times them in guest
 * instructions from outside the guest, so that it adds no instruction to
 * what an instruction-paced (-icount) guest measures.
 *
 *   -plugin fbobs.so,spec=SPEC,out=OUT
 *
 * SPEC (written by the host, loader/measure/obsplugin.c), one line each:
 *   on ADDR                  the window opens when the guest executes ADDR
 *   off ADDR                 ... and closes at ADDR (the marker calls of `run`)
 *   func NAME ADDR SYM END   a function [ADDR, END): calls and latency
 *   lockfn SYM ADDR END G    an acquire function of lock group G: its atomic
 *                            instructions' lock words; its ret starts the hold
 *   lockret SYM ADDR END G   a slow path an acquire function jumps to: its
 *                            ret starts the hold (the acquire's ret never runs)
 *   unlockfn SYM ADDR END G  a release function: its entry is the hold's end,
 *                            its first access to a held lock word says which
 *   phase ADDR               the first execution of ADDR snapshots the holds
 *   lockinst ADDR            a lock word always written out (else the busiest)
 *   # ...                    a comment (the host keeps its notes on rows there)
 * ADDR, END in hex: the guest kernel's virtual addresses (System.map, nokaslr).
 *
 * OUT (written at qemu's exit, by rename): "fbobs 3", then
 *   marks ON OFF                          marker executions seen
 *   insns N                               guest instructions executed
 *   func NAME WINDOW BOOT                 calls inside the windows, in the boot
 *   lat NAME COUNT SUM MIN MAX UNMATCHED  window calls timed to their return
 *   hist NAME IDX:COUNT ...               their histogram (bpf/fbhist.h buckets)
 *   lockaddr SYM ADDR COUNT               lock-prefixed accesses to lock word ADDR
 *                                         by SYM's body in the windows (one per call):
 *                                         the lockinst words, then the busiest 512
 *   lockhold ADDR N SUM MIN MAX OPENED BUSY IDX:COUNT ...
 *                                         its holds (acquire ret -> release entry,
 *                                         guest instructions), N of OPENED
 *                                         closed; BUSY: acquire rets on the
 *                                         word while held (failed trylocks)
 *   lockphase ADDR N SUM MIN MAX OPENED 0 IDX:COUNT ...
 *                                         the same by the first phase mark
 *                                         (only if one was seen)
 *   phase N                               phase marks seen
 *   locktop LEFT MIN                      words left out, each counted <= MIN times
 *   lockfull N                            accesses not counted (table full)
 *
 * Time is the guest's instruction count: an inline add of each translation
 * block's length as it starts, plus the instruction's index inside it.
 * A call ends at a `ret` inside the function's own body [ADDR, END): it
 * closes the latest open call of that function (nested calls close in
 * order).  A call that leaves by a tail call never executes its own ret
 * and is not timed (UNMATCHED); nor is one still open at the end.
 *
 * Not a memory callback on the ret's load of the return-address slot,
 * which would also end tail calls and tell tasks apart: qemu 7.2 keeps an
 * instruction's memory callbacks armed past the end of its translation
 * block (a ret always ends one), so they fire on later loads of other
 * instructions, and the ret's own load was not seen (fixed in later qemu).
 *
 * Callbacks run in qemu between guest instructions and change no guest
 * state: the guest's instruction count, hence its clock under -icount, is
 * the same with or without them.  One vCPU (icount is single-threaded), so
 * nothing here needs atomics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbobs.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_WATCH	96
#define MAX_OPEN	64
#define KERNEL_VA	0xffff800000000000ull

/* A call inside a window, waiting for a ret of its function. */
struct open_call {
	int w;
	uint64_t t0;
};

struct watch watches[MAX_WATCH];
static int nwatch;
static uint64_t lo = UINT64_MAX, hi;
int window;
uint64_t insns;		/* guest instructions: inline, per TB */
static struct open_call open_calls[MAX_OPEN];
static int nopen;
static char out_path[4096];

static void drop_open(int j)
{
	watches[open_calls[j].w].unmatched++;
	memmove(&open_calls[j], &open_calls[j + 1], sizeof(open_calls[0]) * (size_t)(nopen - j - 1));
	nopen--;
}

static void on_entry(unsigned int vcpu, void *udata)
{
	struct watch *w = &watches[unpack_w(udata)];

	(void)vcpu;
	w->boot++;
	switch (w->kind) {
	case W_FUNC:
		if (!window)
			return;
		w->window++;
		if (nopen == MAX_OPEN)
			drop_open(0);
		open_calls[nopen++] = (struct open_call){ unpack_w(udata), now(udata) };
		break;
	case W_ON:
		window = 1;
		break;
	case W_OFF:
		window = 0;
		break;
	default:
		break;
	}
}

/* A ret in the body of watches[w]: its latest open call ends. */
static void on_ret(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	for (int j = nopen - 1; j >= 0; j--) {
		struct watch *w;
		uint64_t d;

		if (open_calls[j].w != unpack_w(udata))
			continue;
		w = &watches[open_calls[j].w];
		d = now(udata) + 1 - open_calls[j].t0;	/* entry to ret, both counted */
		w->count++;
		w->sum += d;
		w->min = !w->min || d < w->min ? d : w->min;
		w->max = d > w->max ? d : w->max;
		w->hist[fb_bucket(d)]++;
		memmove(&open_calls[j], &open_calls[j + 1],
			sizeof(open_calls[0]) * (size_t)(nopen - j - 1));
		nopen--;
		return;
	}
}

static int cmp_addr(const void *a, const void *b)
{
	const struct watch *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The watch whose entry is va, or -1; *in: the function whose body holds va, or -1. */
static int find(uint64_t va, int *in)
{
	int l = 0, h = nwatch - 1, at = -1;

	*in = -1;
	if (va < lo || va > hi)
		return -1;
	while (l <= h) {	/* the last watch with addr <= va */
		int m = (l + h) / 2;

		if (watches[m].addr <= va) {
			at = m;
			l = m + 1;
		} else {
			h = m - 1;
		}
	}
	if (at < 0)
		return -1;
	if (watches[at].kind != W_ON && watches[at].kind != W_OFF && watches[at].kind != W_PHASE &&
	    va < watches[at].end)
		*in = at;
	return watches[at].addr == va ? at : -1;
}

static int is_ret(const uint8_t *b, size_t len)
{
	if (len > 1 && (b[0] == 0xf3 || b[0] == 0x2e))	/* rep ret, cs ret */
		b++, len--;
	return (len == 1 && b[0] == 0xc3) || (len == 3 && b[0] == 0xc2);
}

/* The first instruction of watches[w] */
static void entry_cb(struct qemu_plugin_insn *insn, int w, void *u)
{
	static const qemu_plugin_vcpu_udata_cb_t cb[] = {
		[W_FUNC] = on_entry, [W_ON] = on_entry, [W_OFF] = on_entry,
		[W_UNLOCKFN] = on_unlock_entry, [W_PHASE] = on_phase,
	};

	if (cb[watches[w].kind])
		qemu_plugin_register_vcpu_insn_exec_cb(insn, cb[watches[w].kind],
						       QEMU_PLUGIN_CB_NO_REGS, u);
}

/* An instruction b[0..len) in the body of watches[in] */
static void body_cb(struct qemu_plugin_insn *insn, int in, const uint8_t *b, size_t len,
		    void *u)
{
	enum kind k = watches[in].kind;

	if (k == W_LOCKFN && len > 1 && b[0] == 0xf0) {	/* lock prefix */
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_lock_arm, QEMU_PLUGIN_CB_NO_REGS,
						       u);
		qemu_plugin_register_vcpu_mem_cb(insn, on_lock_access, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, u);
	}
	if (k == W_UNLOCKFN)
		qemu_plugin_register_vcpu_mem_cb(insn, on_unlock_access, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, u);
	if (!is_ret(b, len))
		return;
	qemu_plugin_register_vcpu_insn_exec_cb(insn, k == W_FUNC ? on_ret : k == W_UNLOCKFN ?
					       on_unlock_ret : on_lock_ret,
					       QEMU_PLUGIN_CB_NO_REGS, u);
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	/* every TB counts (a timed call may sleep while user tasks run) */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
	if (qemu_plugin_tb_vaddr(tb) < KERNEL_VA || n > 0xffff)
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		int in, w = find(qemu_plugin_insn_vaddr(insn), &in);

		if (w >= 0)
			entry_cb(insn, w, pack(w, n, i));
		if (in >= 0)
			body_cb(insn, in, b, len, pack(in, n, i));
	}
}

static void write_func(FILE *f, const struct watch *w)
{
	fprintf(f, "func %s %" PRIu64 " %" PRIu64 "\n", w->name, w->window, w->boot);
	fprintf(f, "lat %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		w->name, w->count, w->sum, w->min, w->max, w->unmatched);
	fprintf(f, "hist %s", w->name);
	for (unsigned int b = 0; b < FB_NBUCKETS; b++)
		if (w->hist[b])
			fprintf(f, " %u:%" PRIu64, b, w->hist[b]);
	fputc('\n', f);
}

static void on_exit_write(qemu_plugin_id_t id, void *p)
{
	char tmp[sizeof(out_path) + 8];
	uint64_t on = 0, off = 0;
	FILE *f;

	(void)id;
	(void)p;
	snprintf(tmp, sizeof(tmp), "%s.tmp", out_path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "fbobs: %s: %s\n", tmp, strerror(errno));
		return;
	}
	for (int i = 0; i < nwatch; i++) {
		on += watches[i].kind == W_ON ? watches[i].boot : 0;
		off += watches[i].kind == W_OFF ? watches[i].boot : 0;
	}
	for (int j = 0; j < nopen; j++)	/* still open at the end */
		watches[open_calls[j].w].unmatched++;
	fprintf(f, "fbobs 3\nmarks %" PRIu64 " %" PRIu64 "\ninsns %" PRIu64 "\n", on, off, insns);
	for (int i = 0; i < nwatch; i++)
		if (watches[i].kind == W_FUNC)
			write_func(f, &watches[i]);
	holds_write(f);
	if (fclose(f) || rename(tmp, out_path))
		fprintf(stderr, "fbobs: %s: %s\n", out_path, strerror(errno));
}

static enum kind spec_kind(const char *k)
{
	static const char *const names[] = {
		[W_FUNC] = "func", [W_ON] = "on", [W_OFF] = "off", [W_LOCKFN] = "lockfn",
		[W_LOCKRET] = "lockret", [W_UNLOCKFN] = "unlockfn", [W_PHASE] = "phase",
	};

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(k, names[i]))
			return (enum kind)i;
	return (enum kind)-1;
}

/* One SPEC line into watches[]: 0, or -1 after a message. */
static int spec_line(const char *path, int ln, const char *line)
{
	struct watch *w = &watches[nwatch];
	char kind[16], name[NAME_LEN] = "";
	uint64_t addr = 0, end = 0;
	int ok;

	if (line[0] == '#' || sscanf(line, "%15s", kind) != 1)
		return 0;	/* a comment (the host's notes) or a blank line */
	if (!strcmp(kind, "lockinst")) {
		if (sscanf(line, "%*s %" SCNx64, &addr) != 1 || holds_inst(addr) < 0) {
			fprintf(stderr, "fbobs: %s:%d: at most 16 'lockinst ADDR'\n", path, ln);
			return -1;
		}
		return 0;
	}
	if (nwatch == MAX_WATCH) {
		fprintf(stderr, "fbobs: %s: more than %d entries\n", path, MAX_WATCH);
		return -1;
	}
	w->kind = spec_kind(kind);
	if (w->kind == W_FUNC)
		ok = sscanf(line, "%*s %63s %" SCNx64 " %*s %" SCNx64, name, &addr, &end) == 3 &&
		     end > addr;
	else if (w->kind == W_LOCKFN || w->kind == W_LOCKRET || w->kind == W_UNLOCKFN)
		ok = sscanf(line, "%*s %63s %" SCNx64 " %" SCNx64 " %d", name, &addr, &end,
			    &w->group) == 4 && end > addr;
	else
		ok = (int)w->kind >= 0 && sscanf(line, "%*s %" SCNx64, &addr) == 1;
	if (!ok || addr < KERNEL_VA) {
		fprintf(stderr, "fbobs: %s:%d: not 'on|off|phase ADDR', 'func NAME ADDR SYM END' "
			"or 'lockfn|lockret|unlockfn SYM ADDR END GROUP' (kernel addresses)\n",
			path, ln);
		return -1;
	}
	w->addr = addr;
	w->end = end;
	snprintf(w->name, sizeof(w->name), "%s", name[0] ? name : kind);
	nwatch++;
	return 0;
}

static int read_spec(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int ln = 0, r = 0;

	if (!f) {
		fprintf(stderr, "fbobs: spec %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!r && fgets(line, sizeof(line), f))
		r = spec_line(path, ++ln, line);
	fclose(f);
	if (r)
		return -1;
	qsort(watches, (size_t)nwatch, sizeof(watches[0]), cmp_addr);
	for (int i = 0; i < nwatch; i++) {
		if (i && watches[i].addr < watches[i - 1].end) {
			fprintf(stderr, "fbobs: %s: %s and %s overlap at 0x%" PRIx64 "\n", path,
				watches[i - 1].name, watches[i].name, watches[i].addr);
			return -1;
		}
		if (!watches[i].end)
			watches[i].end = watches[i].addr + 1;
		lo = watches[i].addr < lo ? watches[i].addr : lo;
		hi = watches[i].end > hi ? watches[i].end : hi;
	}
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *spec = NULL;

	if (!info->system_emulation) {
		fprintf(stderr, "fbobs: system emulation only\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "spec=", 5)) {
			spec = argv[i] + 5;
		} else if (!strncmp(argv[i], "out=", 4)) {
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
		} else {
			fprintf(stderr, "fbobs: unknown argument '%s' (spec=FILE,out=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (!spec || !out_path[0]) {
		fprintf(stderr, "fbobs: needs spec=FILE and out=FILE\n");
		return -1;
	}
	if (read_spec(spec) < 0)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_write, NULL);
	return 0;
}
