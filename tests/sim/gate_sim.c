// SPDX-License-Identifier: GPL-2.0
/*
 * gate_sim.c - operating characteristics of `foliobench gate` on synthetic
 * rounds (not kernel data): R rounds per side of a results file with two
 * func probes and one workload; probe a_func's per-round mean is shifted by
 * SHIFT in NEW; every per-round mean gets gaussian noise of relative SD
 * (4000 samples per round, so the p50 the gate tests adds little noise of
 * its own).
 * Counts how often the gate fails and names a_func.
 *
 *   make unit
 *   cc -O2 -D_GNU_SOURCE -Iloader -Ibpf -o build/gate_sim tests/sim/gate_sim.c \
 *	build/loader/{compare,gate,report,stats,results,hist,util}.o -ljson-c -lm
 *   build/gate_sim ROUNDS TRIALS SHIFT SD      e.g. 10 100 0.05 0.02
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/fb.h"

static uint64_t rs = 7;

static double ur(void)
{
	rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rs >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(ur() + 1e-12)) * cos(2 * M_PI * ur());
}

static void round_file(const char *p, double shift, double sd)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	static const char *const names[2] = { "a_func", "b_func" };

	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	for (int k = 0; k < 2; k++) {
		struct fb_probe_result *pr = &r->probes[r->nprobes++];
		double m = 1000 * (k ? 1 : 1 + shift) * (1 + sd * gauss());

		snprintf(pr->name, sizeof(pr->name), "%s", names[k]);
		pr->kind = FB_FUNC;
		pr->status = FB_ATTACHED;
		pr->nstats = 1;
		snprintf(pr->stats[0].name, sizeof(pr->stats[0].name), "latency");
		snprintf(pr->stats[0].h.unit, sizeof(pr->stats[0].h.unit), "ns");
		for (int i = 0; i < 4000; i++)
			fb_hist_add(&pr->stats[0].h, (uint64_t)(m * (0.5 + ur())));
	}
	r->nworkloads = 1;
	snprintf(r->workloads[0].name, sizeof(r->workloads[0].name), "w");
	r->workloads[0].status = FB_WL_OK;
	r->workloads[0].wall_ns = (uint64_t)(1e7 * (1 + sd * gauss()));
	fb_result_save(r, p);
	free(r);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/gate-sim.XXXXXX", b[64], n[64], p[96], out[96], cmd[256];
	int rounds, trials, fails = 0, named = 0;
	double shift, sd;

	if (argc != 5) {
		fprintf(stderr, "usage: gate_sim ROUNDS TRIALS SHIFT SD\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	trials = atoi(argv[2]);
	shift = atof(argv[3]);
	sd = atof(argv[4]);
	if (!mkdtemp(dir))
		return 2;
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(n, sizeof(n), "%s/n", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	mkdir(b, 0755);
	mkdir(n, 0755);
	for (int t = 0; t < trials; t++) {
		int st, rc;
		pid_t pid;

		for (int i = 0; i < rounds; i++) {
			snprintf(p, sizeof(p), "%s/r%d.json", b, i);
			round_file(p, 0, sd);
			snprintf(p, sizeof(p), "%s/r%d.json", n, i);
			round_file(p, shift, sd);
		}
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			char *av[] = { "gate", b, n, NULL };

			if (!freopen(out, "w", stdout) || !freopen("/dev/null", "w", stderr))
				_exit(3);
			rc = cmd_gate(3, av);
			fflush(stdout);
			_exit(rc);
		}
		waitpid(pid, &st, 0);
		rc = WIFEXITED(st) ? WEXITSTATUS(st) : 3;
		if (rc == 1) {
			fails++;
			snprintf(cmd, sizeof(cmd), "grep -q '^REGRESSED *func:a_func:p50' %s", out);
			named += system(cmd) == 0;
		}
	}
	printf("rounds %d, shift %+.1f%%, noise SD %.1f%%: gate failed %d/%d, named a_func %d\n",
	       rounds, shift * 100, sd * 100, fails, trials, named);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? 1 : 0;
}
