/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp_fixture.h - what the compare tests share (test_compare.c: the
 * formats, reports, gate and observer methods; test_compare_bad.c: bad
 * inputs and mutated files): synthetic results files written with
 * fb_result_save() into a temporary directory, and the commands run in a
 * child process so a crash is a failure here, not the end of the test
 * binary.  The numbers are synthetic: they test the statistics and
 * formatting code, not any kernel.
 */
#ifndef CMP_FIXTURE_H
#define CMP_FIXTURE_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/fb.h"
#include "tap.h"

static char tmp[256];

#define CHECK(cond, name) CHECKF(cond, "%s", name)

static uint64_t rng_state = 1;

static inline double urand(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static inline double noise(double rel)
{
	return 1 + rel * (2 * urand() - 1);
}

struct spec {
	double func_ns;		/* mean latency of nft_trans_alloc */
	double hold_ns;		/* mean hold of kernfs_rwsem */
	uint64_t calls;		/* nft_trans_alloc calls = nft.trans_objects */
	uint64_t acq_per_obj;
	double wall_ns;
	double rel_noise;	/* per round */
	int extra_workload;
	int drop_probe;
};

static inline void fill_hist(struct fb_hist *h, uint64_t n, double mean)
{
	snprintf(h->unit, sizeof(h->unit), "ns");
	for (uint64_t i = 0; i < n; i++)
		fb_hist_add(h, (uint64_t)(mean * (0.5 + urand())));
}

static inline struct fb_result *mkres(const struct spec *s, const char *arm)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	struct fb_probe_result *p;
	double f = noise(s->rel_noise);

	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	snprintf(r->label, sizeof(r->label), "unit-%s", arm);
	static unsigned int seq;	/* each round its own identity (rounds.c dedups copies) */

	snprintf(r->started, sizeof(r->started), "2026-11-30T%02u:%02u:%02uZ", (seq / 3600) % 24,
		 (seq / 60) % 60, seq % 60);
	seq++;
	snprintf(r->host.release, sizeof(r->host.release), "7.3.4-fb-%s", arm);
	snprintf(r->host.config_sha256, sizeof(r->host.config_sha256), "abc123");
	snprintf(r->host.cmdline, sizeof(r->host.cmdline), "console=ttyS0 foliobench.arm=%s", arm);
	snprintf(r->host.arm, sizeof(r->host.arm), "%s", arm);
	r->host.ncpus = 2;

	p = &r->probes[r->nprobes++];
	snprintf(p->name, sizeof(p->name), "nft_trans_alloc");
	p->kind = FB_FUNC;
	p->status = FB_ATTACHED;
	snprintf(p->method, sizeof(p->method), "fentry");
	snprintf(p->symbol, sizeof(p->symbol), "nft_trans_alloc");
	p->nstats = 1;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "latency");
	fill_hist(&p->stats[0].h, s->calls, s->func_ns * f);

	p = &r->probes[r->nprobes++];
	snprintf(p->name, sizeof(p->name), "kernfs_rwsem");
	p->kind = FB_LOCK;
	p->status = FB_ATTACHED;
	p->nstats = 2;
	snprintf(p->stats[0].name, sizeof(p->stats[0].name), "wait");
	fill_hist(&p->stats[0].h, s->calls * s->acq_per_obj, 40);
	snprintf(p->stats[1].name, sizeof(p->stats[1].name), "hold");
	fill_hist(&p->stats[1].h, s->calls * s->acq_per_obj, s->hold_ns * noise(s->rel_noise));

	if (!s->drop_probe) {
		p = &r->probes[r->nprobes++];
		snprintf(p->name, sizeof(p->name), "folio_scratchpad_alloc");
		p->kind = FB_FUNC;
		p->status = FB_UNAVAILABLE;
		snprintf(p->reason, sizeof(p->reason), "symbol not in this kernel");
	}

	r->nworkloads = 1;
	snprintf(r->workloads[0].name, sizeof(r->workloads[0].name), "nft");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = (uint64_t)(s->wall_ns * noise(s->rel_noise));
	fb_count_set(&r->workloads[0].ops, "trans_objects", s->calls);
	/* a phase op as long as the sysfs workload's lock-row ones (34 chars) */
	fb_count_set(&r->workloads[0].ops, "register_kernfs_rwsem_read_hold_ns", 123456);
	/* a count that varies from round to round (time held in a phase) */
	fb_count_set(&r->workloads[0].ops, "phase_hold_ns", (uint64_t)(s->hold_ns * 100 * noise(0.01)));
	if (s->extra_workload) {
		r->nworkloads = 2;
		snprintf(r->workloads[1].name, sizeof(r->workloads[1].name), "sysfs");
		r->workloads[1].status = FB_WL_OK;
		r->workloads[1].wall_ns = 1000;
	}
	r->ncontention = 2;
	snprintf(r->contention[0].lock, sizeof(r->contention[0].lock), "&root->kernfs_rwsem");
	r->contention[0].count = 100 + (uint64_t)(20 * urand());
	r->contention[0].wait_ns = (uint64_t)(1e6 * noise(0.2));
	/* run labels the contention of a watched lock with the probe's name */
	snprintf(r->contention[1].lock, sizeof(r->contention[1].lock), "kernfs_rwsem");
	r->contention[1].count = 10 * s->acq_per_obj;
	r->contention[1].wait_ns = 5000;
	r->nextra = 1;
	snprintf(r->extra[0].key, sizeof(r->extra[0].key), "lockdep_stats.after.lock-classes");
	r->extra[0].val = 996;
	return r;
}

static inline void write_rounds(const char *dir, const struct spec *s, const char *arm, int n)
{
	char p[512];

	mkdir(dir, 0755);
	for (int i = 1; i <= n; i++) {
		struct fb_result *r = mkres(s, arm);

		snprintf(p, sizeof(p), "%s/round-%d.json", dir, i);
		if (fb_result_save(r, p))
			printf("# cannot write %s\n", p);
		free(r);
	}
}

/* Runs fn(argv) in a child with stdout/stderr to files; exit code or 128+signal. */
static inline int run(int (*fn)(int, char **), const char *out, const char *errf, ...)
{
	char *argv[32];
	int argc = 0, st;
	va_list ap;
	pid_t pid;

	va_start(ap, errf);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(out, "w", stdout) || !freopen(errf, "w", stderr))
			_exit(99);
		int rc = fn(argc, argv);

		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* Lines on stderr, not counting the rounds-used lines every load prints. */
static inline int count_lines(const char *s)
{
	int n = 0;

	for (const char *l = s; *l; l = strchrnul(l, '\n') + (strchr(l, '\n') != NULL)) {
		const char *e = strchrnul(l, '\n');

		if (!memmem(l, (size_t)(e - l), " rounds from ", 13) &&
		    !memmem(l, (size_t)(e - l), ": dropped ", 10))
			n++;
		if (!*e)
			break;
	}
	return n;
}

/* A line of out containing every one of the given strings. */
static inline int has_line(const char *out, ...)
{
	const char *line = out;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[2048];
		const char *w;
		int all = 1;
		va_list ap;

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), line);
		va_start(ap, out);
		while ((w = va_arg(ap, const char *)))
			if (!strstr(buf, w))
				all = 0;
		va_end(ap);
		if (all)
			return 1;
		if (!end)
			break;
		line = end + 1;
	}
	return 0;
}

static inline void path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", tmp, rel);
}

static inline int write_text(const char *p, const char *s, size_t n)
{
	FILE *f = fopen(p, "w");

	if (!f)
		return -1;
	fwrite(s, 1, n, f);
	return fclose(f);
}

/* tmp: a new directory /tmp/fb-test-NAME.XXXXXX; 0, or -1 after a not ok line */
static inline int cmp_begin(const char *name)
{
	snprintf(tmp, sizeof(tmp), "/tmp/fb-test-%s.XXXXXX", name);
	if (!mkdtemp(tmp)) {
		printf("not ok - mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* tmp removed unless a check failed or FB_TEST_KEEP is set; tap_done()'s status */
static inline int cmp_end(void)
{
	char cmd[400];

	if (!tap_failed && !getenv("FB_TEST_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			printf("# could not remove %s\n", tmp);
	} else {
		printf("# files kept in %s\n", tmp);
	}
	return tap_done();
}

#endif /* CMP_FIXTURE_H */
