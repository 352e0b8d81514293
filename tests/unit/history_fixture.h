/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history_fixture.h - what the history tests share (test_history.c: the
 * store, its commands and gate; test_history_migrate.c: older schemas):
 * synthetic rounds written with fb_result_save() into a temporary
 * directory, `foliobench history` run in a child process so a crash fails
 * a check instead of ending the binary, and reading the store back.
 * Numbers are synthetic: they test the code, not a kernel.
 */
#ifndef HISTORY_FIXTURE_H
#define HISTORY_FIXTURE_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/history/history.h"
#include "analysis/history/history_db.h"
#include "analysis/history/history_gate.h"
#include "analysis/history/history_metrics.h"
#include "analysis/history/history_report.h"
#include "tap.h"

static char tmp[128];

/* One round: nft_trans_alloc measured by method at mean_ns (+-25%), workload wall, params. */
static inline int write_round_m(const char *path, const char *arm, int idx, double mean_ns,
				const char *param, const char *method)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	struct fb_probe_result *p;
	int rc;

	if (!r)
		return -1;
	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	snprintf(r->label, sizeof(r->label), "%s", arm);
	snprintf(r->started, sizeof(r->started), "2026-11-%02dT%02d:%02d:00Z", 1 + idx / 600,
		 idx / 60 % 10, idx % 60);
	snprintf(r->host.build_id, sizeof(r->host.build_id), "b%d", mean_ns > 1100 ? 2 : 1);
	snprintf(r->host.arm, sizeof(r->host.arm), "%s", arm);
	if (param)
		snprintf(r->params[r->nparams++], sizeof(r->params[0]), "%s", param);
	p = &r->probes[r->nprobes++];
	snprintf(p->name, sizeof(p->name), "nft_trans_alloc");
	p->kind = FB_FUNC;
	p->status = FB_ATTACHED;
	snprintf(p->method, sizeof(p->method), "%s", method);
	p->nstats = 1;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "latency");
	for (int i = 0; i < 200; i++)
		fb_hist_add(&p->stats[0].h, (uint64_t)(mean_ns * (0.75 + 0.5 * ((i * 37 + idx * 11)
										% 100) / 100.0)));
	r->nworkloads = 1;
	snprintf(r->workloads[0].name, sizeof(r->workloads[0].name), "nft");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = 1000000 + (uint64_t)idx * 7 % 13;
	rc = fb_result_save(r, path);
	free(r);
	return rc;
}

static inline int write_round(const char *path, const char *arm, int idx, double mean_ns,
			      const char *param)
{
	return write_round_m(path, arm, idx, mean_ns, param, "fentry");
}

/* Writes rounds [from, to) of arm at mean_ns, measured by method, into dir/arm/. */
static inline void write_rounds_m(const char *dir, const char *arm, int from, int to,
				  double mean_ns, const char *method)
{
	char path[512];

	fb_fmt(path, sizeof(path), "%s/%s", dir, arm);
	fb_mkdir_p(path);
	for (int i = from; i < to; i++) {
		fb_fmt(path, sizeof(path), "%s/%s/round-%d.json", dir, arm, i);
		if (write_round_m(path, arm, i, mean_ns, NULL, method))
			CHECKF(0, "writing %s", path);
	}
}

static inline void write_rounds(const char *dir, const char *arm, int from, int to, double mean_ns)
{
	write_rounds_m(dir, arm, from, to, mean_ns, "fentry");
}

/*
 * Runs `foliobench history ARGS...` in a child: exit status, stderr line
 * count; its stdout is left in tmp/stdout.
 */
static inline int run(int *lines, const char *a0, ...)
{
	char *argv[16] = { "history" }, errf[256], outf[256], buf[4096];
	int argc = 1, st;
	va_list ap;
	pid_t pid;
	ssize_t n;

	va_start(ap, a0);
	for (const char *a = a0; a && argc < 15; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	fb_fmt(errf, sizeof(errf), "%s/stderr", tmp);
	fb_fmt(outf, sizeof(outf), "%s/stdout", tmp);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int out = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(out, 1);
		dup2(err, 2);
		st = cmd_history(argc, argv);
		fflush(stdout);
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	*lines = 0;
	st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	n = fb_read_file(errf, buf, sizeof(buf));
	for (ssize_t i = 0; i < n; i++)
		*lines += buf[i] == '\n';
	return st;
}

static inline int count_rounds(const struct fb_hround *r, void *ctx)
{
	(*(int *)ctx)++;
	return 0;
}

/* Rounds stored in db, or -1 if it does not open. */
static inline int nrounds(const char *db)
{
	struct fb_hdb *h;
	char err[256];
	int n = 0;

	if (fb_hdb_open(&h, db, 0, err, sizeof(err)))
		return -1;
	fb_hdb_rounds(h, count_rounds, &n);
	fb_hdb_close(h);
	return n;
}

static inline char *slurp(const char *path, size_t *len)
{
	char err[256];

	return fb_hist_read(path, len, err, sizeof(err));
}

/* 1 if the file at tmp/name holds needle. */
static inline int out_has(const char *name, const char *needle)
{
	char path[256];
	size_t len;
	char *b;
	int has;

	fb_fmt(path, sizeof(path), "%s/%s", tmp, name);
	b = slurp(path, &len);
	has = b && strstr(b, needle);
	free(b);
	return has;
}

/* Series of metric in db (all arms); *s malloc'd.  Count, or -1. */
static inline int series_of(const char *db, const char *metric, struct fb_hseries **s)
{
	const char *g[] = { metric };
	struct fb_hdb *h;
	char err[256];
	int n;

	*s = NULL;
	if (fb_hdb_open(&h, db, 0, err, sizeof(err)))
		return -1;
	n = fb_hdb_series(h, g, 1, NULL, s, err, sizeof(err));
	fb_hdb_close(h);
	return n;
}

/* tmp: a new directory /tmp/fb-test-NAME.XXXXXX; 0, or -1 after a not ok line */
static inline int hist_begin(const char *name)
{
	snprintf(tmp, sizeof(tmp), "/tmp/fb-test-%s.XXXXXX", name);
	if (!mkdtemp(tmp)) {
		CHECKF(0, "mkdtemp");
		return -1;
	}
	return 0;
}

/* tmp removed; tap_done()'s status */
static inline int hist_end(void)
{
	char cmd[300];

	fb_fmt(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		printf("# could not remove %s\n", tmp);
	return tap_done();
}

#endif /* HISTORY_FIXTURE_H */
