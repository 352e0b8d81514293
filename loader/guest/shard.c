// SPDX-License-Identifier: GPL-2.0
/*
 * shard.c - the options and records that let `ab` run as shards on several
 * machines (shard.h): which rounds a shard boots, where kernels come from,
 * and the identities (kernel build id and config hash, machine, shard)
 * that `foliobench merge` checks before it joins the shards into one run.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "guest/shard.h"
#include "util/cli.h"
#include "util/util.h"

enum { OPT_SHARD = 0x300, OPT_BUILD_ONLY, OPT_NO_BUILD, OPT_CACHE };

static const struct argp_option shard_options[] = {
	{ NULL, 0, NULL, 0, "Past one machine (Slurm, LAVA: scripts/slurm, scripts/lava):", 7 },
	{ "shard", OPT_SHARD, "I/N", 0, "boot only shard I of N: the rounds r with "
	  "(r - 1) mod N = I - 1, every arm of each, interleaved; `foliobench merge OUT DIR...` "
	  "joins the N directories into one", 0 },
	{ "build-only", OPT_BUILD_ONLY, NULL, 0, "build (or find) every arm's kernel, print "
	  "their bzImage paths and exit: the step before the shards", 0 },
	{ "no-build", OPT_NO_BUILD, NULL, 0, "never build: exit 2 if a kernel is not in the "
	  "cache (a shard must not build what another shard may be building)", 0 },
	{ "cache", OPT_CACHE, "DIR", 0, "kernel cache (default $FB_CACHE, else "
	  "/var/cache/foliobench): a directory all machines share", 0 },
	{ 0 },
};

/* "I/N" with 1 <= I <= N <= 1000; 0, or -1 after fb_err. */
static int parse_shard(struct fb_shard *s, const char *arg)
{
	char i[16], n[16];
	const char *slash = strchr(arg, '/');
	unsigned long long vi, vn;

	if (!slash || (size_t)(slash - arg) >= sizeof(i) || strlen(slash + 1) >= sizeof(n)) {
		fb_err("ab: --shard wants I/N (e.g. 2/4), not '%s'", arg);
		return -1;
	}
	fb_fmt(i, sizeof(i), "%.*s", (int)(slash - arg), arg);
	fb_fmt(n, sizeof(n), "%s", slash + 1);
	if (fb_opt_uint("ab", "--shard N", n, 1, 1000, &vn) < 0 ||
	    fb_opt_uint("ab", "--shard I", i, 1, vn, &vi) < 0)
		return -1;
	s->index = (int)vi;
	s->count = (int)vn;
	return 0;
}

static error_t shard_parse(int key, char *arg, struct argp_state *state)
{
	struct fb_shard *s = state->input;

	switch (key) {
	case OPT_SHARD:
		return parse_shard(s, arg) ? EINVAL : 0;
	case OPT_BUILD_ONLY:
		s->build_only = 1;
		return 0;
	case OPT_NO_BUILD:
		s->no_build = 1;
		return 0;
	case OPT_CACHE:
		s->cache = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

const struct argp fb_shard_argp = { shard_options, shard_parse, NULL, NULL, NULL, NULL, NULL };

/* This machine's name, made safe for the kernel command line (no blanks). */
static void host_name(char *out, size_t len)
{
	if (gethostname(out, len) < 0 || !out[0])
		fb_fmt(out, len, "unknown");
	out[len - 1] = '\0';
	for (char *p = out; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == 0x7f)
			*p = '_';
}

int fb_shard_check(struct fb_shard *s, int rounds, int until)
{
	struct stat st;

	if (s->build_only && s->no_build) {
		fb_err("ab: --build-only and --no-build exclude each other");
		return 2;
	}
	if (s->count && (until || s->build_only)) {
		fb_err("ab: --shard does not go with %s", until ? "--until-decided (each look "
		       "needs every round)" : "--build-only (build once, before the shards)");
		return 2;
	}
	if (s->count && s->index > rounds) {
		fb_err("ab: --shard %d/%d: with --rounds %d shard %d has no round to boot",
		       s->index, s->count, rounds, s->index);
		return 2;
	}
	if (s->cache) {
		if (stat(s->cache, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fb_err("ab: --cache %s: not a directory", s->cache);
			return 2;
		}
		setenv("FB_CACHE", s->cache, 1);
	}
	host_name(s->host, sizeof(s->host));
	return 0;
}

int fb_shard_has(const struct fb_shard *s, int r)
{
	return !s->count || (r - 1) % s->count == s->index - 1;
}

int fb_shard_rounds(const struct fb_shard *s, int rounds)
{
	int n = 0;

	for (int r = 1; r <= rounds; r++)
		n += fb_shard_has(s, r);
	return n;
}

/* sha256 of a whole file in hex; 0, or -1 (out is then ""). */
static int file_sha256(const char *path, char *out, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	struct stat st;
	void *map = MAP_FAILED;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;

	out[0] = '\0';
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		ok = EVP_Digest(map, (size_t)st.st_size, md, &mdlen, EVP_sha256(), NULL);
		munmap(map, (size_t)st.st_size);
	}
	if (fd >= 0)
		close(fd);
	for (unsigned int i = 0; ok && i < mdlen && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return ok ? 0 : -1;
}

/* The GNU build id note of an ELF file (the kernel's vmlinux); 0, or -1. */
static int elf_build_id(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = -1;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && found < 0 && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = NULL;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while (found < 0 && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *p = (const unsigned char *)d->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4))
				continue;
			for (size_t i = 0; i < nh.n_descsz && 2 * i + 2 < len; i++)
				snprintf(out + 2 * i, 3, "%02x", p[i]);
			found = 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

int fb_kident_get(const char *bz, struct fb_kident *k)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], sha[72];
	const char *slash = strrchr(bz, '/');

	memset(k, 0, sizeof(*k));
	fb_fmt(dir, sizeof(dir), "%.*s", slash ? (int)(slash - bz) : 1, slash ? bz : ".");
	fb_fmt(path, sizeof(path), "%s/vmlinux", dir);
	if (elf_build_id(path, k->build_id, sizeof(k->build_id)) < 0) {
		if (file_sha256(bz, sha, sizeof(sha)) < 0) {
			fb_err("ab: cannot read kernel %s: %s", bz, strerror(errno ? errno : EIO));
			return -1;
		}
		fb_fmt(k->build_id, sizeof(k->build_id), "sha256:%s", sha);
	}
	fb_fmt(path, sizeof(path), "%s/.config", dir);
	file_sha256(path, k->config_sha256, sizeof(k->config_sha256));
	return 0;
}

void fb_shard_json(json_object *o, const struct fb_shard *s, int rounds)
{
	json_object *sh = json_object_new_object(), *rs = json_object_new_array();

	for (int r = 1; r <= rounds; r++)
		if (fb_shard_has(s, r))
			json_object_array_add(rs, json_object_new_int(r));
	json_object_object_add(sh, "index", json_object_new_int(s->count ? s->index : 1));
	json_object_object_add(sh, "count", json_object_new_int(s->count ? s->count : 1));
	json_object_object_add(sh, "rounds", rs);
	json_object_object_add(o, "shard", sh);
	json_object_object_add(o, "host", json_object_new_string(s->host));
}

void fb_kident_json(json_object *arm, const struct fb_kident *k)
{
	json_object_object_add(arm, "build_id", json_object_new_string(k->build_id));
	json_object_object_add(arm, "config_sha256", json_object_new_string(k->config_sha256));
}
