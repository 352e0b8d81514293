// SPDX-License-Identifier: GPL-2.0
/*
 * fbobs.c - foliobench's observer as a QEMU TCG plugin (plugin API v1,
 * qemu 7.2): counts calls of guest kernel functions from outside the guest,
 * so that it adds no instruction to what an instruction-paced (-icount)
 * guest measures.
 *
 *   -plugin fbobs.so,spec=SPEC,out=OUT
 *
 * SPEC (written by the host, loader/measure/obsplugin.c), one line each:
 *   on ADDR          the window opens when the guest executes ADDR
 *   off ADDR         ... and closes at ADDR (the marker calls of `run`)
 *   func NAME ADDR   count calls: executions of the instruction at ADDR
 *   # ...            a comment (the host keeps its notes on the rows there)
 * ADDR in hex, the guest kernel's virtual addresses (System.map, nokaslr).
 *
 * OUT (written at qemu's exit, by rename): "fbobs 1", then
 *   marks ON OFF               marker executions seen
 *   func NAME WINDOW BOOT      calls inside the windows, calls in the boot
 *
 * An instruction callback runs in qemu, between guest instructions, and
 * changes no guest state: the guest's instruction count, hence its clock
 * under -icount, is the same with or without it.  One vCPU (icount is
 * single-threaded), so the counters need no atomics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_WATCH	64
#define NAME_LEN	64

enum kind { W_FUNC, W_ON, W_OFF };

struct watch {
	uint64_t addr;
	enum kind kind;
	char name[NAME_LEN];
	uint64_t window, boot;	/* W_FUNC: calls; W_ON/W_OFF: marks */
};

static struct watch watches[MAX_WATCH];
static int nwatch;
static uint64_t lo = UINT64_MAX, hi;
static int window;
static char out_path[4096];

static void on_exec(unsigned int vcpu, void *udata)
{
	struct watch *w = udata;

	(void)vcpu;
	w->boot++;
	switch (w->kind) {
	case W_FUNC:
		w->window += window;
		break;
	case W_ON:
		window = 1;
		break;
	case W_OFF:
		window = 0;
		break;
	}
}

static int cmp_addr(const void *a, const void *b)
{
	const struct watch *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct watch *find(uint64_t va)
{
	struct watch key = { .addr = va };

	if (va < lo || va > hi)
		return NULL;
	return bsearch(&key, watches, (size_t)nwatch, sizeof(watches[0]), cmp_addr);
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct watch *w = find(qemu_plugin_insn_vaddr(insn));

		if (w)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec,
							       QEMU_PLUGIN_CB_NO_REGS, w);
	}
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
	fprintf(f, "fbobs 1\nmarks %" PRIu64 " %" PRIu64 "\n", on, off);
	for (int i = 0; i < nwatch; i++)
		if (watches[i].kind == W_FUNC)
			fprintf(f, "func %s %" PRIu64 " %" PRIu64 "\n", watches[i].name,
				watches[i].window, watches[i].boot);
	if (fclose(f) || rename(tmp, out_path))
		fprintf(stderr, "fbobs: %s: %s\n", out_path, strerror(errno));
}

/* One SPEC line into watches[]: 0, or -1 after a message. */
static int spec_line(const char *path, int ln, const char *line)
{
	struct watch *w = &watches[nwatch];
	char kind[8], name[NAME_LEN] = "";
	uint64_t addr;
	int n;

	if (nwatch == MAX_WATCH) {
		fprintf(stderr, "fbobs: %s: more than %d entries\n", path, MAX_WATCH);
		return -1;
	}
	if (line[0] == '#' || sscanf(line, "%7s", kind) != 1)
		return 0;	/* a comment (the host's notes) or a blank line */
	if (!strcmp(kind, "func"))
		n = sscanf(line, "%*s %63s %" SCNx64, name, &addr) == 2;
	else
		n = sscanf(line, "%*s %" SCNx64, &addr) == 1 &&
		    (!strcmp(kind, "on") || !strcmp(kind, "off"));
	if (!n || !addr) {
		fprintf(stderr, "fbobs: %s:%d: not 'on ADDR', 'off ADDR' or 'func NAME ADDR'\n",
			path, ln);
		return -1;
	}
	w->kind = !strcmp(kind, "func") ? W_FUNC : !strcmp(kind, "on") ? W_ON : W_OFF;
	w->addr = addr;
	snprintf(w->name, sizeof(w->name), "%s", w->kind == W_FUNC ? name : kind);
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
		if (i && watches[i].addr == watches[i - 1].addr) {
			fprintf(stderr, "fbobs: %s: %s and %s share address 0x%" PRIx64 "\n", path,
				watches[i - 1].name, watches[i].name, watches[i].addr);
			return -1;
		}
		lo = watches[i].addr < lo ? watches[i].addr : lo;
		hi = watches[i].addr > hi ? watches[i].addr : hi;
	}
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *spec = NULL;

	if (info->system_emulation == false) {
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
