// SPDX-License-Identifier: GPL-2.0
/*
 * test_maps_each.c - the 7.3.4 tree's tools/testing/selftests/bpf/test_maps,
 * one test per child process.
 *
 * Upstream's main() runs every test in one process and stops at the first
 * failure (CHECK() exits, assert() aborts), so one test that a kernel's
 * config cannot pass (test_sockmap without CONFIG_BPF_STREAM_PARSER) hides
 * every test after it.  This file includes test_maps.c unchanged, renames
 * its main() and runs the same tests in the same order with the same map
 * flags, each in a forked child:
 *
 *   #N NAME: PASS | SKIP | FAIL (exit X | signal Y)
 *
 * ARGS select tests by fnmatch(3) pattern (default: all).  The child's own
 * output comes before its line.  Exit 0 when nothing failed, 1 otherwise,
 * 2 on bad arguments.  Built by scripts/selftests-bpf-build.sh with the
 * selftests Makefile's CFLAGS.
 */
#define main test_maps_upstream_main
#include "test_maps.c"
#undef main

#include <fnmatch.h>
#include <sys/wait.h>

#define FB_EXIT_SKIP 77

#define FB_WRAP(f) static void fb_##f(void) { f(0, NULL); }
FB_WRAP(test_hashmap)
FB_WRAP(test_hashmap_percpu)
FB_WRAP(test_hashmap_walk)
FB_WRAP(test_arraymap)
FB_WRAP(test_arraymap_percpu)
FB_WRAP(test_devmap)
FB_WRAP(test_devmap_hash)
FB_WRAP(test_sockmap)
FB_WRAP(test_queuemap)
FB_WRAP(test_stackmap)

struct fb_test {
	const char *name;
	void (*fn)(void);
};

/* run_all_tests() of test_maps.c, in its order */
static const struct fb_test fb_all[] = {
	{ "hashmap", fb_test_hashmap },
	{ "hashmap_percpu", fb_test_hashmap_percpu },
	{ "hashmap_walk", fb_test_hashmap_walk },
	{ "hashmap_zero_seed", test_hashmap_zero_seed },
	{ "arraymap", fb_test_arraymap },
	{ "arraymap_percpu", fb_test_arraymap_percpu },
	{ "arraymap_percpu_many_keys", test_arraymap_percpu_many_keys },
	{ "devmap", fb_test_devmap },
	{ "devmap_hash", fb_test_devmap_hash },
	{ "sockmap", fb_test_sockmap },
	{ "map_large", test_map_large },
	{ "map_parallel", test_map_parallel },
	{ "map_stress", test_map_stress },
	{ "map_rdonly", test_map_rdonly },
	{ "map_wronly", test_map_wronly },
	{ "reuseport_array", test_reuseport_array },
	{ "queuemap", fb_test_queuemap },
	{ "stackmap", fb_test_stackmap },
	{ "map_in_map", test_map_in_map },
};

/* main() of test_maps.c runs map_tests/ after run_all_tests() */
static const struct fb_test fb_map_tests[] = {
#define DEFINE_TEST(name) { #name, test_##name },
#include <map_tests/tests.h>
#undef DEFINE_TEST
};

static int fb_selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (!fnmatch(argv[i], name, 0))
			return 1;
	return 0;
}

/* One test in a child with map_opts.map_flags = FLAGS; 0 pass, 1 fail, 2 skip */
static int fb_run(int n, const char *name, void (*fn)(void), __u32 flags)
{
	int status, before;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("#%d %s: FAIL (fork: %s)\n", n, name, strerror(errno));
		return 1;
	}
	if (!pid) {
		map_opts.map_flags = flags;
		before = skips;
		fn();
		fflush(stdout);
		_exit(skips != before ? FB_EXIT_SKIP : 0);
	}
	if (waitpid(pid, &status, 0) < 0) {
		printf("#%d %s: FAIL (waitpid: %s)\n", n, name, strerror(errno));
		return 1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		printf("#%d %s: PASS\n", n, name);
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == FB_EXIT_SKIP) {
		printf("#%d %s: SKIP\n", n, name);
		return 2;
	}
	if (WIFEXITED(status))
		printf("#%d %s: FAIL (exit %d)\n", n, name, WEXITSTATUS(status));
	else
		printf("#%d %s: FAIL (signal %d)\n", n, name, WTERMSIG(status));
	return 1;
}

int main(int argc, char **argv)
{
	static const __u32 flags[] = { 0, BPF_F_NO_PREALLOC };
	static const char * const suffix[] = { "", "/no_prealloc" };
	int count[3] = { 0 }, n = 0;
	char name[128];
	size_t i, f;

	srand(time(NULL));
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		for (i = 0; i < ARRAY_SIZE(fb_all); i++) {
			snprintf(name, sizeof(name), "%s%s", fb_all[i].name, suffix[f]);
			if (fb_selected(name, argc, argv))
				count[fb_run(++n, name, fb_all[i].fn, flags[f])]++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(fb_map_tests); i++)
		if (fb_selected(fb_map_tests[i].name, argc, argv))
			count[fb_run(++n, fb_map_tests[i].name, fb_map_tests[i].fn,
				     BPF_F_NO_PREALLOC)]++;
	if (!n) {
		fprintf(stderr, "test_maps_each: no test matches\n");
		return 2;
	}
	printf("Summary: %d PASSED, %d SKIPPED, %d FAILED\n", count[0], count[2], count[1]);
	return count[1] ? 1 : 0;
}
