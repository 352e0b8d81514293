// SPDX-License-Identifier: GPL-2.0
/*
 * testmod_shim.c - linked into test_verifier with
 * -Wl,--wrap=load_bpf_testmod: on a kernel without module support
 * (CONFIG_MODULES=n: no /proc/modules), say so and go on instead of
 * exiting before the first test.  The tests whose kfuncs live in
 * bpf_testmod.ko then fail their fixup (no BTF id) on every such kernel;
 * every other test runs as upstream's test_verifier runs it.  With module
 * support the real load_bpf_testmod() runs, unchanged.
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

int __real_load_bpf_testmod(bool verbose);
int __wrap_load_bpf_testmod(bool verbose);

int __wrap_load_bpf_testmod(bool verbose)
{
	if (access("/proc/modules", F_OK)) {
		printf("testmod_shim: kernel without module support (no /proc/modules): bpf_testmod.ko not loaded\n");
		return 0;
	}
	return __real_load_bpf_testmod(verbose);
}
