// SPDX-License-Identifier: GPL-2.0
/*
 * test_shard.c - guest/shard.c without a guest: which rounds each shard
 * boots (every round exactly once, both arms on every machine), the
 * option checks, and the kernel identity merge compares (the build id
 * of the vmlinux beside a bzImage, else the bzImage's sha256; the
 * .config's sha256), checked against this test binary's own build id.
 */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/shard.h"
#include "tap.h"

static void test_shares(void)
{
	for (int n = 1; n <= 5; n++) {
		int bad = 0, total = 0;

		for (int r = 1; r <= 13; r++) {
			int owners = 0;

			for (int i = 1; i <= n; i++) {
				struct fb_shard s = { .index = i, .count = n };

				owners += fb_shard_has(&s, r);
				bad += fb_shard_has(&s, r) != ((r - 1) % n == i - 1);
			}
			bad += owners != 1;
		}
		for (int i = 1; i <= n; i++) {
			struct fb_shard s = { .index = i, .count = n };

			total += fb_shard_rounds(&s, 13);
		}
		CHECKF(!bad && total == 13, "N=%d: each of 13 rounds in exactly one shard, "
		       "round r in shard (r-1)%%N+1 (%d rounds in all)", n, total);
	}
	{
		struct fb_shard whole = { 0 }, s2 = { .index = 2, .count = 3 };

		CHECKF(fb_shard_rounds(&whole, 7) == 7, "no --shard: all 7 rounds");
		CHECKF(fb_shard_rounds(&s2, 7) == 2 && fb_shard_has(&s2, 2) && fb_shard_has(&s2, 5) &&
		       !fb_shard_has(&s2, 3), "shard 2/3 of 7 rounds: rounds 2 and 5");
	}
}

static void test_checks(void)
{
	struct fb_shard s = { .index = 3, .count = 4 };

	CHECKF(fb_shard_check(&s, 2, 0) == 2, "shard 3/4 of 2 rounds has nothing to boot: 2");
	s = (struct fb_shard){ .index = 1, .count = 2 };
	CHECKF(fb_shard_check(&s, 4, 10) == 2, "--shard with --until-decided: 2");
	s = (struct fb_shard){ .build_only = 1, .no_build = 1 };
	CHECKF(fb_shard_check(&s, 4, 0) == 2, "--build-only with --no-build: 2");
	s = (struct fb_shard){ .cache = "/nonexistent/cache" };
	CHECKF(fb_shard_check(&s, 4, 0) == 2, "--cache that is not a directory: 2");
	s = (struct fb_shard){ .index = 2, .count = 2, .cache = "/tmp" };
	CHECKF(fb_shard_check(&s, 4, 0) == 0 && s.host[0] && !strpbrk(s.host, " \t\n") &&
	       !strcmp(getenv("FB_CACHE"), "/tmp"), "shard 2/2 --cache /tmp: ok, FB_CACHE set, "
	       "host '%s' has no blank", s.host);
}

/* This program's own GNU build id, from its loaded notes. */
static int own_id(struct dl_phdr_info *info, size_t size, void *data)
{
	char *out = data;

	for (int i = 0; i < info->dlpi_phnum && !out[0]; i++) {
		const char *p = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		size_t off = 0, len = info->dlpi_phdr[i].p_memsz;

		while (info->dlpi_phdr[i].p_type == PT_NOTE && off + sizeof(ElfW(Nhdr)) <= len) {
			const ElfW(Nhdr) *nh = (const void *)(p + off);
			const unsigned char *desc = (const void *)(p + off + sizeof(*nh) +
								   ((nh->n_namesz + 3) & ~3u));

			if (nh->n_type == NT_GNU_BUILD_ID)
				for (size_t k = 0; k < nh->n_descsz; k++)
					sprintf(out + 2 * k, "%02x", desc[k]);
			off += sizeof(*nh) + ((nh->n_namesz + 3) & ~3u) + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;	/* the main program only */
}

static void test_kident(void)
{
	char dir[] = "/tmp/fb-test-shard.XXXXXX", bz[600], vm[600], exe[512] = "", id[80] = "";
	struct fb_kident k;
	ssize_t n;

	if (!mkdtemp(dir))
		return;
	snprintf(bz, sizeof(bz), "%s/bzImage", dir);
	tap_put(dir, "bzImage", "hello");
	tap_put(dir, ".config", "abc");
	CHECKF(fb_kident_get(bz, &k) == 0 && !strcmp(k.build_id, "sha256:2cf24dba5fb0a30e26e83b2a"
	       "c5b9e29e1b161e5c1fa7425e73043362938b9824") && !strcmp(k.config_sha256,
	       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	       "no vmlinux: build id is the bzImage's sha256, config the .config's (%s, %.12s)",
	       k.build_id, k.config_sha256);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	snprintf(vm, sizeof(vm), "%s/vmlinux", dir);
	dl_iterate_phdr(own_id, id);
	if (n > 0 && symlink(exe, vm) == 0)
		CHECKF(fb_kident_get(bz, &k) == 0 && id[0] && !strcmp(k.build_id, id),
		       "vmlinux beside it: its GNU build id (%s, loaded notes say %s)", k.build_id,
		       id);
	unlink(vm);
	unlink(bz);
	CHECKF(fb_kident_get(bz, &k) < 0, "no bzImage: -1");
	snprintf(vm, sizeof(vm), "%s/.config", dir);
	unlink(vm);
	rmdir(dir);
}

int main(void)
{
	test_shares();
	test_checks();
	test_kident();
	return tap_done();
}
