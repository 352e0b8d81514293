// SPDX-License-Identifier: GPL-2.0
/*
 * vm_kvm.c - whether KVM can boot a kernel here: one probe boot of `true`
 * (vm.c's probe_boot(), passed in) per (host kernel, qemu, bzImage), the verdict
 * and its reason cached in $FB_CACHE/kvm-verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "guest/vm_kvm.h"
#include "util/util.h"

static const char *cache_dir(void)
{
	const char *c = getenv("FB_CACHE");

	return c && *c ? c : "/var/cache/foliobench";
}

/* First line of `qemu-system-x86_64 --version`. */
static void qemu_version(char *buf, size_t len)
{
	FILE *f = popen("qemu-system-x86_64 --version 2>/dev/null", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	pclose(f);
}


static void verdict_key(const char *bz, char *key, size_t len)
{
	char ver[128], real[PATH_MAX];
	struct utsname u;
	struct stat st;

	uname(&u);
	qemu_version(ver, sizeof(ver));
	if (!realpath(bz, real))
		fb_fmt(real, sizeof(real), "%s", bz);
	if (stat(real, &st) < 0)
		st.st_mtime = 0;
	fb_fmt(key, len, "%s|%s|%s|%lld", u.release, ver, real,
	    (long long)st.st_mtime);
	for (char *c = key; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
}

/* Returns 1 kvm, 0 tcg, -1 unknown; why gets the cached reason. */
static int verdict_lookup(const char *key, char *why, size_t wlen)
{
	char path[PATH_MAX], *line = NULL;
	size_t n = 0;
	int v = -1;
	FILE *f;

	fb_fmt(path, sizeof(path), "%s/kvm-verdict", cache_dir());
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &n, f) >= 0) {
		char *t1 = strchr(line, '\t'), *t2;

		if (!t1)
			continue;
		*t1++ = '\0';
		t2 = strchr(t1, '\t');
		if (!t2 || strcmp(line, key))
			continue;
		*t2++ = '\0';
		t2[strcspn(t2, "\n")] = '\0';
		v = !strcmp(t1, "kvm");
		fb_fmt(why, wlen, "%s", t2);
	}
	free(line);
	fclose(f);
	return v;
}

static void verdict_store(const char *key, int kvm, const char *why)
{
	char path[PATH_MAX];
	FILE *f;

	if (fb_mkdir_p(cache_dir()) < 0)
		return;
	fb_fmt(path, sizeof(path), "%s/kvm-verdict", cache_dir());
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s\t%s\t%s\n", key, kvm ? "kvm" : "tcg", why);
	fclose(f);
}

int fb_vm_kvm_usable(struct fb_vm_opts *o, const char *bz, const char *initrd,
		     fb_vm_probe_fn *probe, char *why, size_t wlen)
{
	char key[PATH_MAX + 512], log[PATH_MAX];
	struct fb_vm_opts po = *o;
	char reason[512];
	int fd, v, r;

	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fb_fmt(why, wlen, "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	close(fd);
	verdict_key(bz, key, sizeof(key));
	v = verdict_lookup(key, why, wlen);
	if (v >= 0) {
		size_t l = strlen(why);

		fb_fmt(why + l, wlen - l, " (cached in %s/kvm-verdict)", cache_dir());
		return v;
	}

	if (!o->quiet)
		fb_info("vm: probing whether KVM can boot %s", bz);
	fb_fmt(log, sizeof(log), "%s/kvm-probe.log", cache_dir());
	if (fb_mkdir_p(cache_dir()) < 0)
		fb_fmt(log, sizeof(log), "/dev/null");
	po.quiet = 1;
	po.nallow = 0;
	po.log = log;
	po.timeout = 30;
	po.append = NULL;
	r = probe(&po, bz, initrd, reason, sizeof(reason));
	if (fb_stop)
		return 0;
	/* one line: qemu's messages may span several */
	for (char *c = reason; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	for (size_t l = strlen(reason); l && reason[l - 1] == ' '; l--)
		reason[l - 1] = '\0';
	if (r == 0)
		fb_fmt(why, wlen, "a KVM probe boot ran `true` in %.1fs", po.total_s);
	else
		fb_fmt(why, wlen, "a KVM probe boot failed (exit %d: %.300s)", r,
		    reason[0] ? reason : "no reason given");
	verdict_store(key, r == 0, why);
	return r == 0;
}
