// SPDX-License-Identifier: GPL-2.0
/*
 * wl_verifier.c - make the BPF verifier push many states.
 *
 * Loads `progs` socket filters (raw bpf_prog_load, closed right away),
 * each a chain of `branches` groups:
 *
 *	r6 = *(u32 *)(r1 + offsetof(struct __sk_buff, len))	unknown
 *	if r6 > i goto +1					unknown outcome
 *	r7 += 1
 *
 * then r0 = 0; exit.  Each ctx load yields a fresh unknown scalar, so
 * every conditional jump on the first path has both outcomes possible
 * and check_cond_jmp_op() calls push_stack() once for the taken branch:
 * `branches` push_stack() calls per program on the first path.  The
 * popped states differ only in r6 (dead: reloaded) and r7 (live but not
 * precise), so they are pruned at the next checkpoint.  With
 * state_freq=1 (BPF_F_TEST_STATE_FREQ, a checkpoint at every prune
 * point) they are pruned at the very next jump and push_stack() runs
 * exactly `branches` times per program; with state_freq=0 the
 * verifier's checkpoint heuristics let some popped states cross a few
 * more jumps first, so the count is higher (see docs/workloads.md).
 * ops: cond_branches = progs * branches (push_stack() lower bound, exact
 * with state_freq=1), insns_processed and states from the verifier's
 * "processed N insns ... total_states T peak_states P" line.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/wl_verifier.h"
#include "workloads/wl_util.h"

#define WL "verifier"
#define MAX_BRANCHES 8000	/* BPF_COMPLEXITY_LIMIT_JMP_SEQ is 8192 */
#define LOG_SIZE 4096

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off,
			    __s32 imm)
{
	struct bpf_insn i = {
		.code = code, .dst_reg = dst, .src_reg = src,
		.off = off, .imm = imm,
	};

	return i;
}

unsigned int wl_verifier_build(struct bpf_insn *insns, unsigned int max,
			       unsigned int branches)
{
	unsigned int n = 0;

	if (max < 3 + 3 * (uint64_t)branches)
		return 0;
	insns[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_7, 0, 0, 0);
	for (unsigned int i = 0; i < branches; i++) {
		insns[n++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_6,
				  BPF_REG_1, offsetof(struct __sk_buff, len), 0);
		insns[n++] = insn(BPF_JMP | BPF_JGT | BPF_K, BPF_REG_6, 0, 1,
				  (__s32)(i & 0xffff));
		insns[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_7, 0, 0,
				  1);
	}
	insns[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	insns[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* Adds the numbers after `key` in the verifier's stats log to ops. */
static void log_stat(const char *log, const char *key, const char *op,
		     struct fb_counts *ops)
{
	const char *s = strstr(log, key);

	if (s)
		fb_count_add(ops, op, strtoull(s + strlen(key), NULL, 10));
}

static int load_one(const struct bpf_insn *insns, unsigned int n,
		    __u32 flags, char *log, struct fb_counts *ops)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .log_buf = log, .log_size = LOG_SIZE,
		    .log_level = 4 /* BPF_LOG_STATS */,
		    .prog_flags = flags);
	int fd;

	log[0] = '\0';
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "fb_verifier", "GPL",
			   insns, n, &o);
	if (fd < 0) {
		int err = errno;

		fb_err(WL ": BPF_PROG_LOAD: %s; verifier: %.*s", strerror(err),
		       (int)strcspn(log, "\n"), log);
		return -1;
	}
	close(fd);
	if (!strstr(log, "processed ")) {
		fb_err(WL ": no \"processed N insns\" line in the verifier log");
		return -1;
	}
	log_stat(log, "processed ", "insns_processed", ops);
	log_stat(log, "total_states ", "states_total", ops);
	log_stat(log, "peak_states ", "states_peak", ops);
	log_stat(log, "verification time ", "verify_time_us", ops);
	return 0;
}

int wl_verifier_avail(char *why, size_t len)
{
	struct bpf_insn prog[4];
	unsigned int n = wl_verifier_build(prog, 4, 0);

	return wl_fd_avail(bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "fb_probe", "GPL",
					 prog, n, NULL), "load a socket filter", why, len);
}

struct vf_cfg {
	uint64_t progs, branches, freq;
};

static int vf_cfg(const struct fb_params *p, struct vf_cfg *c, char *why, size_t len)
{
	c->progs = fb_param_u64(p, WL, "progs");
	c->branches = fb_param_u64(p, WL, "branches");
	c->freq = fb_param_u64(p, WL, "state_freq");
	if (c->branches > MAX_BRANCHES) {
		snprintf(why, len, "branches=%llu: at most %d", WL_U64(c->branches), MAX_BRANCHES);
		return -1;
	}
	return 0;
}

int wl_verifier_check(const struct fb_params *p, char *why, size_t len)
{
	struct vf_cfg c;

	return vf_cfg(p, &c, why, len);
}

int wl_verifier_run(const struct fb_params *p, struct fb_counts *ops)
{
	struct vf_cfg c;
	uint64_t progs, branches;
	__u32 flags;
	struct wl_progress pr;
	struct bpf_insn *insns;
	unsigned int n, max;
	char *log, why[160];
	int ret = 0;

	if (vf_cfg(p, &c, why, sizeof(why))) {
		fb_err(WL ": %s", why);
		return -1;
	}
	progs = c.progs;
	branches = c.branches;
	flags = c.freq ? BPF_F_TEST_STATE_FREQ : 0;
	max = 3 + 3 * (unsigned int)branches;
	insns = calloc(max, sizeof(*insns));
	log = malloc(LOG_SIZE);
	if (!insns || !log) {
		fb_err(WL ": out of memory");
		free(insns);
		free(log);
		return -1;
	}
	n = wl_verifier_build(insns, max, (unsigned int)branches);
	fb_count_set(ops, "progs_loaded", 0);
	fb_count_set(ops, "cond_branches", 0);
	fb_count_set(ops, "prog_insns", n);
	wl_progress_init(&pr, WL, "programs verified", progs);
	for (uint64_t i = 0; i < progs && !fb_stop; i++) {
		ret = load_one(insns, n, flags, log, ops);
		if (ret)
			break;
		fb_count_add(ops, "progs_loaded", 1);
		fb_count_add(ops, "cond_branches", branches);
		wl_progress(&pr, i + 1);
	}
	free(insns);
	free(log);
	return ret;
}
