// SPDX-License-Identifier: GPL-2.0
/*
 * wl_nft.c - the folio-pool seed's nf_tables scenario: N transaction
 * descriptors (nft_trans objects) submitted in netlink batches, some
 * committed and some aborted, with every commit's asynchronous teardown
 * pass (nf_tables_trans_destroy_work) run on its own.
 *
 * What the kernel allocates (net/netfilter/nf_tables_api.c, 7.3):
 *   NEWTABLE (new table)   1 nft_trans (nft_trans_table_add)
 *   NEWCHAIN (non-base)    1 (nf_tables_addchain -> nft_trans_chain_add)
 *   NEWRULE (append)       1 (nft_trans_rule_add)
 *   DELTABLE               1 per active rule (nft_delrule_by_chain) +
 *                          1 per chain (nft_delchain) + 1 (nft_deltable)
 * No sets, objects, flowtables, base chains, table flags or rule
 * replacement are used, so nothing else allocates one.  The expressions
 * used (meta, cmp, immediate) are in nf_tables core: no module autoload,
 * hence no batch replay (which would allocate everything twice).
 *
 * Commit: nf_tables_commit() frees the trans objects of additions
 * (NEWTABLE, NEWCHAIN, NEWRULE, ...) inline with nft_trans_destroy();
 * only deletions (DELTABLE/DELCHAIN/DELRULE, ...) stay on the commit list,
 * which nf_tables_commit_release() splices onto the per-netns
 * destroy_list before schedule_work()ing nf_tables_trans_destroy_work.
 * That work frees them (and the deleted objects) after synchronize_rcu().
 * A commit that only adds schedules no work at all, so the plan is a
 * rolling reload: commit 0 adds table fb_c0, commit k deletes fb_c<k-1>
 * and adds fb_c<k>, the last commit only deletes; commits 1..passes are
 * the teardown passes.  Two quick commits could share one run of the
 * work, so after each one we close a bound NETLINK_NETFILTER socket: its
 * NETLINK_URELEASE notifier (nft_rcv_nl_event) calls
 * nf_tables_trans_destroy_flush_work(), and the close returns only after
 * the pending work has finished.  The function thus runs exactly once per
 * teardown pass (measured: see docs/workloads.md).
 *
 * Abort: a batch sent with libnftables' dry-run flag has no BATCH_END, so
 * nfnetlink aborts it (NFNL_ABORT_VALIDATE) and __nf_tables_abort() frees
 * its nft_trans objects synchronously: no destroy work.
 *
 * Everything runs in a forked child inside a private network namespace.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <nftables/libnftables.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "workloads/wl_nft.h"
#include "workloads/wl_util.h"

#define WL "nft"
/* one table is one batch, parsed by libnftables without a stop check */
#define MAX_TABLE 50000

int wl_nft_plan_init(struct wl_nft_plan *pl, uint64_t descriptors,
		     uint64_t passes, uint64_t aborts, uint64_t chains,
		     char *why, size_t len)
{
	uint64_t weight;

	memset(pl, 0, sizeof(*pl));
	if (passes < 1 || chains < 1) {
		snprintf(why, len, "need passes >= 1 and chains >= 1");
		return -1;
	}
	/* each committed table counts twice (add + delete), aborted once */
	weight = 2 * passes + aborts;
	pl->descriptors = descriptors;
	pl->passes = passes;
	pl->aborts = aborts;
	pl->chains = chains;
	pl->size = descriptors / weight;
	pl->rem = descriptors - pl->size * weight;
	if (pl->size < 1 + chains) {
		snprintf(why, len, "descriptors=%llu too few for %llu tables of %llu chains",
			 WL_U64(descriptors), WL_U64(weight), WL_U64(chains));
		return -1;
	}
	if (!aborts && (pl->rem & 1)) {
		snprintf(why, len, "with aborts=0 descriptors must be even (each committed table is added and deleted)");
		return -1;
	}
	return 0;
}

uint64_t wl_nft_commit_table(const struct wl_nft_plan *pl, uint64_t k)
{
	uint64_t half, n = pl->passes;

	if (pl->aborts)
		return pl->size;
	half = pl->rem / 2;
	return pl->size + half / n + (k < half % n);
}

uint64_t wl_nft_abort_table(const struct wl_nft_plan *pl, uint64_t j)
{
	return pl->size + pl->rem / pl->aborts + (j < pl->rem % pl->aborts);
}

uint64_t wl_nft_commit_trans(const struct wl_nft_plan *pl, uint64_t k)
{
	uint64_t t = 0;

	if (k >= 1)
		t += wl_nft_commit_table(pl, k - 1);
	if (k < pl->passes)
		t += wl_nft_commit_table(pl, k);
	return t;
}

struct nft_run {
	struct nft_ctx *nft;
	struct wl_nft_plan pl;
	struct fb_counts *ops;
	struct wl_progress prog;
	uint64_t done;		/* nft_trans objects so far */
	int live;		/* committed table alive, or -1 */
};

/* Appends "add table" + chains + rules costing size nft_trans objects. */
static void emit_table(FILE *f, const char *name, uint64_t size,
		       uint64_t chains, struct fb_counts *ops)
{
	uint64_t rules = size - 1 - chains;

	fprintf(f, "add table inet %s\n", name);
	for (uint64_t c = 0; c < chains; c++)
		fprintf(f, "add chain inet %s c%llu\n", name, WL_U64(c));
	for (uint64_t r = 0; r < rules; r++) {
		if (!(r & 1023) && fb_stop)
			return;		/* run_batch() drops the partial batch */
		fprintf(f, "add rule inet %s c%llu meta mark 0x%llx accept\n",
			name, WL_U64(r % chains), WL_U64(r + 1));
	}
	fb_count_add(ops, "tables_added", 1);
	fb_count_add(ops, "chains_added", chains);
	fb_count_add(ops, "rules_added", rules);
}

static void emit_delete(FILE *f, const char *name, uint64_t size,
			uint64_t chains, struct fb_counts *ops)
{
	fprintf(f, "delete table inet %s\n", name);
	fb_count_add(ops, "rules_deleted", size - 1 - chains);
}

/* First line of libnftables' buffered error output. */
static void nft_error(struct nft_ctx *nft, const char *what)
{
	const char *e = nft_ctx_get_error_buffer(nft);
	int n = (int)strcspn(e, "\n");

	fb_err(WL ": %s failed: %.*s", what, n, n ? e : "(no message)");
}

/*
 * Waits until the nf_tables destroy work queued by the last commit has
 * run: closing a bound NETLINK_NETFILTER socket flushes it (see top).
 */
static int flush_destroy_work(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0) {
		fb_err(WL ": netlink socket: %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fb_err(WL ": netlink bind: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int submit(struct nft_run *r, char *buf, bool commit, bool deletes,
		  uint64_t trans)
{
	const char *what = commit ? "commit" : "aborted (dry-run) batch";

	nft_ctx_set_dry_run(r->nft, !commit);
	if (nft_run_cmd_from_buffer(r->nft, buf)) {
		nft_error(r->nft, what);
		return -1;
	}
	fb_count_add(r->ops, "trans_objects", trans);
	fb_count_add(r->ops, commit ? "trans_committed" : "trans_aborted",
		     trans);
	fb_count_add(r->ops, "batches", 1);
	fb_count_add(r->ops, commit ? "commits" : "aborts", 1);
	r->done += trans;
	if (commit && deletes) {
		if (flush_destroy_work())
			return -1;
		fb_count_add(r->ops, "destroy_passes", 1);
	}
	wl_progress(&r->prog, r->done);
	return 0;
}

/* Builds one batch with a memstream and submits it. */
static int run_batch(struct nft_run *r, bool commit, uint64_t idx)
{
	const struct wl_nft_plan *pl = &r->pl;
	uint64_t trans = 0, sz;
	char name[32], *buf = NULL;
	size_t blen = 0;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &blen);
	if (!f) {
		fb_err(WL ": open_memstream: %s", strerror(errno));
		return -1;
	}
	if (!commit) {
		sz = wl_nft_abort_table(pl, idx);
		snprintf(name, sizeof(name), "fb_a%llu", WL_U64(idx));
		emit_table(f, name, sz, pl->chains, r->ops);
		trans = sz;
	}
	if (commit && idx >= 1) {
		sz = wl_nft_commit_table(pl, idx - 1);
		snprintf(name, sizeof(name), "fb_c%llu", WL_U64(idx - 1));
		emit_delete(f, name, sz, pl->chains, r->ops);
		trans += sz;
	}
	if (commit && idx < pl->passes) {
		sz = wl_nft_commit_table(pl, idx);
		snprintf(name, sizeof(name), "fb_c%llu", WL_U64(idx));
		emit_table(f, name, sz, pl->chains, r->ops);
		trans += sz;
	}
	if (fclose(f)) {
		fb_err(WL ": building batch: %s", strerror(errno));
		free(buf);
		return -1;
	}
	if (fb_stop) {		/* possibly partial: never submitted */
		free(buf);
		return 0;
	}
	ret = submit(r, buf, commit, commit && idx >= 1, trans);
	free(buf);
	if (!ret && commit)
		r->live = idx < pl->passes ? (int)idx : -1;
	return ret;
}

/* After an interrupt: delete the live committed table (counted). */
static int cleanup_live(struct nft_run *r)
{
	uint64_t sz;
	char buf[64];

	if (r->live < 0)
		return 0;
	sz = wl_nft_commit_table(&r->pl, (uint64_t)r->live);
	snprintf(buf, sizeof(buf), "delete table inet fb_c%d\n", r->live);
	fb_count_add(r->ops, "rules_deleted", sz - 1 - r->pl.chains);
	r->live = -1;
	return submit(r, buf, true, true, sz);
}

/* Checks that no table is left in this (private) netns. */
static int check_empty(struct nft_run *r)
{
	const char *out;

	nft_ctx_set_dry_run(r->nft, false);
	if (nft_ctx_buffer_output(r->nft) ||
	    nft_run_cmd_from_buffer(r->nft, "list tables")) {
		nft_error(r->nft, "list tables");
		return -1;
	}
	out = nft_ctx_get_output_buffer(r->nft);
	if (*out) {
		fb_err(WL ": tables left after the run: %.*s",
		       (int)strcspn(out, "\n"), out);
		return -1;
	}
	return 0;
}

static int run_plan(struct nft_run *r)
{
	const struct wl_nft_plan *pl = &r->pl;
	uint64_t n = pl->passes + 1 > pl->aborts ? pl->passes + 1 : pl->aborts;

	for (uint64_t i = 0; i < n && !fb_stop; i++) {
		if (i < pl->aborts && run_batch(r, false, i))
			return -1;
		if (fb_stop)
			break;
		if (i <= pl->passes && run_batch(r, true, i))
			return -1;
	}
	if (cleanup_live(r))
		return -1;
	return check_empty(r);
}

/* The plan from the catalogue's parameters; 0, or -1 with one line in why. */
static int nft_plan(const struct fb_params *p, struct wl_nft_plan *pl, char *why, size_t len)
{
	if (wl_nft_plan_init(pl, fb_param_u64(p, WL, "descriptors"),
			     fb_param_u64(p, WL, "passes"), fb_param_u64(p, WL, "aborts"),
			     fb_param_u64(p, WL, "chains"), why, len))
		return -1;
	if (pl->size > MAX_TABLE) {
		snprintf(why, len, "descriptors=%llu makes tables of %llu; at most %d per batch "
			 "(raise passes or aborts)", WL_U64(pl->descriptors), WL_U64(pl->size),
			 MAX_TABLE);
		return -1;
	}
	return 0;
}

int wl_nft_check(const struct fb_params *p, char *why, size_t len)
{
	struct wl_nft_plan pl;

	return nft_plan(p, &pl, why, len);
}

static int nft_child(const struct fb_params *p, struct fb_counts *ops,
		     void *arg)
{
	struct nft_run r = { .ops = ops, .live = -1 };
	char why[160];
	int ret;

	(void)arg;
	if (nft_plan(p, &r.pl, why, sizeof(why))) {
		fb_err(WL ": %s", why);
		return -1;
	}
	r.nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!r.nft) {
		fb_err(WL ": nft_ctx_new failed");
		return -1;
	}
	nft_ctx_buffer_error(r.nft);
	/* zero every counter up front so they appear even when 0 */
	fb_count_set(ops, "trans_objects", 0);
	fb_count_set(ops, "destroy_passes", 0);
	fb_count_set(ops, "commits", 0);
	fb_count_set(ops, "aborts", 0);
	wl_progress_init(&r.prog, WL, "nft_trans objects",
			 r.pl.descriptors);
	ret = run_plan(&r);
	nft_ctx_free(r.nft);
	return ret;
}

int wl_nft_avail(char *why, size_t len)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);

	if (fd < 0) {
		snprintf(why, len, "no nfnetlink in this kernel (socket: %s)",
			 strerror(errno));
		return -1;
	}
	close(fd);
	if (geteuid() != 0) {
		snprintf(why, len, "needs root (private netns, nf_tables)");
		return -1;
	}
	return 0;
}

int wl_nft_run(const struct fb_params *p, struct fb_counts *ops)
{
	return wl_run_child(WL, WL_NEWNET, nft_child, p, NULL, ops);
}
