/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wl_util.h - helpers shared by the built-in workloads (wl_*.c):
 * running a workload in a forked child inside private namespaces,
 * progress lines, small sysfs/procfs accessors.
 */
#ifndef WL_UTIL_H
#define WL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/counts.h"
#include "util/util.h"

/* wl_run_child() flags */
#define WL_NEWNET	(1u << 0)	/* unshare(CLONE_NEWNET) in the child */

/*
 * Body of a workload run in a child process.  Returns 0 or -1 after one
 * fb_err() line.  Polls fb_stop (the child sets it on SIGINT/SIGTERM).
 */
typedef int (*wl_child_fn)(const struct fb_params *p, struct fb_counts *ops,
			   void *arg);

/*
 * Forks, optionally enters private namespaces, runs fn in the child and
 * copies the child's counters into ops over a pipe.  A SIGINT/SIGTERM
 * seen by the parent is forwarded once so the child can clean up.
 * Returns fn's result, or -1 (with an fb_err() line naming wl) if the
 * child could not be started or died without reporting.
 */
int wl_run_child(const char *wl, unsigned int flags, wl_child_fn fn,
		 const struct fb_params *p, void *arg, struct fb_counts *ops);

/* Progress: one fb_info() line at most every 2 s, none for short runs. */
struct wl_progress {
	const char *wl;
	const char *what;
	uint64_t total;
	uint64_t start_ns;
	uint64_t last_ns;
};

void wl_progress_init(struct wl_progress *pr, const char *wl,
		      const char *what, uint64_t total);
void wl_progress(struct wl_progress *pr, uint64_t done);

/* Writes s to path in one write(2).  0 or -errno. */
int wl_write(const char *path, const char *s);
/* 1 if path exists, else 0. */
int wl_exists(const char *path);
/*
 * For the avail checks: fd, just returned by the create or load that shows
 * whether this kernel can (errno still its own): 0 after closing it, or -1
 * with "cannot WHAT: <strerror(errno)>" in why.
 */
int wl_fd_avail(int fd, const char *what, char *why, size_t len);
void wl_sleep_ms(unsigned int ms);
/* CPU time all CPUs spent outside idle since boot, in us (/proc/stat: 10 ms steps); 0 if unknown */
uint64_t wl_cpu_busy_us(void);

/*
 * Finds "key:" at the start of a line (leading blanks ignored) in text
 * and parses the unsigned number after it.  0, or -1 if absent.
 */
int wl_parse_stat(const char *text, const char *key, uint64_t *val);
/*
 * N of a "[max: N]" on the "key:" line, or 0 if that line has none (the
 * folio-pool lockdep patches print "[dynamic: ...]" there instead).
 */
uint64_t wl_parse_stat_max(const char *text, const char *key);

/* For printf of uint64_t with %llu. */
#define WL_U64(x) ((unsigned long long)(x))

/* ---- netdevsim (wl_sysfs.c, wl_lockdep.c) ---- */
#define WL_NSIM_BUS	"/sys/bus/netdevsim"
/* devices x max(ports, 1) at once: keeps a 2 GiB guest out of the OOM killer */
#define WL_MAX_NETDEVS	20000

/* The netdevsim parameters the sysfs and lockdep workloads share. */
struct wl_nsim_cfg {
	unsigned int devices, threads, ports, first_id;
};

/*
 * Reads wl.devices, wl.threads, wl.ports and wl.first_id; 0, or -1 with
 * one line in why if devices x max(ports, 1) exceeds WL_MAX_NETDEVS.
 */
int wl_nsim_cfg(const struct fb_params *p, const char *wl, struct wl_nsim_cfg *c, char *why,
		size_t len);
/* 0 if no device of the range exists yet, else -1 with one fb_err() line. */
int wl_nsim_free_ids(const char *wl, const struct wl_nsim_cfg *c);
/* new_device "id ports 1": 0 or -errno. */
int wl_nsim_new(unsigned int id, unsigned int ports);
/* del_device "id": 0 or -errno. */
int wl_nsim_del(unsigned int id);
/* 1 if /sys/bus/netdevsim/devices/netdevsim<id> exists. */
int wl_nsim_exists(unsigned int id);
/* Network interfaces in the caller's netns other than lo; -1 on error. */
int wl_netdev_count(void);

/*
 * Creates (create=1) or deletes devices first_id..first_id+n-1 from
 * `threads` threads, each taking every threads-th id.  Stops early on
 * fb_stop or the first error (one fb_err() line naming wl).  Marks done
 * ids in state[] (1 = exists) and returns how many were handled; *err is
 * set to -1 on error.  Prints progress from the calling thread.
 */
unsigned int wl_nsim_parallel(const char *wl, unsigned int first_id,
			      unsigned int n, unsigned int ports,
			      unsigned int threads, int create,
			      unsigned char *state, int *err);
/* Deletes every device in the range that still exists; returns count. */
unsigned int wl_nsim_sweep(unsigned int first_id, unsigned int n);
/*
 * wl_run_child() in a private netns, then wl_nsim_sweep() of the child's id
 * range [first_id, first_id + n): a device left behind is removed and
 * makes the run fail.
 */
int wl_run_nsim_child(const char *wl, wl_child_fn fn, const struct fb_params *p,
		      void *arg, struct fb_counts *ops, unsigned int first_id,
		      unsigned int n);

/*
 * nft workload plan (wl_nft.c), exposed for the unit tests.
 *
 * Every created table holds 1 table + chains chains + rules rules, so it
 * costs (1 + chains + rules) nft_trans objects to add and the same to
 * delete.  There are passes + 1 commits: commit k (0..passes) deletes
 * committed table k-1 (if k >= 1) and adds table k (if k < passes), so
 * commits 1..passes each hold deletions, i.e. one teardown pass each.
 * Aborted batches only add (and are rolled back).
 */
struct wl_nft_plan {
	uint64_t descriptors;	/* nft_trans objects in total */
	uint64_t passes;	/* commits with deletions (teardown passes) */
	uint64_t aborts;	/* aborted (dry-run) batches */
	uint64_t chains;	/* chains per table */
	uint64_t size;		/* trans objects of one table, before rem */
	uint64_t rem;		/* spread over abort tables (or committed) */
};

/* 0, or -1 with a one-line reason in why. */
int wl_nft_plan_init(struct wl_nft_plan *pl, uint64_t descriptors,
		     uint64_t passes, uint64_t aborts, uint64_t chains,
		     char *why, size_t len);
/* nft_trans objects of committed table k (k < passes). */
uint64_t wl_nft_commit_table(const struct wl_nft_plan *pl, uint64_t k);
/* nft_trans objects of aborted table j (j < aborts). */
uint64_t wl_nft_abort_table(const struct wl_nft_plan *pl, uint64_t j);
/* nft_trans objects of commit k (0..passes): deletes table k-1, adds k. */
uint64_t wl_nft_commit_trans(const struct wl_nft_plan *pl, uint64_t k);

/* verifier workload (wl_verifier.c), exposed for the unit tests. */
struct bpf_insn;
/* Builds the test program; returns its length in insns (<= max). */
unsigned int wl_verifier_build(struct bpf_insn *insns, unsigned int max,
			       unsigned int branches);

#endif /* WL_UTIL_H */
