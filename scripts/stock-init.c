// SPDX-License-Identifier: GPL-2.0
/*
 * stock-init.c - /init of the initramfs that scripts/stock-kernel.sh builds
 * for a Debian stock kernel (static, no libraries, no shell in the image).
 *
 * A distribution kernel has 9p and virtio as modules, so it cannot mount
 * the host's root (root=fbroot rootfstype=9p, loader/guest/qemu.c) by
 * itself.  This loads the modules listed in /modules.list (dependency
 * order, decompressed, from the kernel's own package), mounts root= with
 * rootflags= of the kernel command line read-only at /root, points the
 * kernel's modprobe at the package's wrapper (path in /modprobe.path, on
 * the host's root: the host has no /lib/modules for this kernel), moves
 * /dev, switches root and runs /bin/sh ARGV[1..] (the
 * arguments after "--": scripts/guest-init.sh).  It never exits: PID 1
 * exiting panics the kernel, which the harness reports (panic=-1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "stock-init: error: %s: %s\n", what, strerror(errno));
	fflush(NULL);
	sleep(2);
	exit(1);	/* init exits: the kernel panics, the host reports it */
}

/* The value of KEY= on the kernel command line, into buf; 0 if absent. */
static int cmdline_arg(const char *key, char *buf, size_t len)
{
	char line[4096], *p;
	size_t kl = strlen(key);
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f || !fgets(line, sizeof(line), f))
		die("/proc/cmdline");
	fclose(f);
	for (p = strtok(line, " \n"); p; p = strtok(NULL, " \n")) {
		if (!strcmp(p, "--"))
			break;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%s", p + kl + 1);
			return 1;
		}
	}
	return 0;
}

static void load_modules(void)
{
	char path[512];
	FILE *f = fopen("/modules.list", "r");

	if (!f)
		die("/modules.list");
	while (fgets(path, sizeof(path), f)) {
		int fd;

		path[strcspn(path, "\n")] = '\0';
		if (!path[0])
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(path);
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
			die(path);
		close(fd);
	}
	fclose(f);
}

/* The 9p root, retried while the virtio devices are still being probed. */
static void mount_root(void)
{
	char root[256] = "fbroot", flags[1024] = "";

	cmdline_arg("root", root, sizeof(root));
	cmdline_arg("rootflags", flags, sizeof(flags));
	mkdir("/root", 0755);
	for (int i = 0; mount(root, "/root", "9p", MS_RDONLY, flags) < 0; i++) {
		if (i == 100)
			die("mount of the 9p root");
		usleep(100000);
	}
}

/*
 * The host has no /lib/modules of this kernel (and its root is read-only
 * here): the kernel's module requests (nf_tables on first use) go through
 * the package's wrapper, modprobe -d <its directory> (/modprobe.path).
 */
#define HOST	"/run/foliobench/host"	/* scripts/guest-init.sh */

static void set_modprobe(void)
{
	char path[1024 + sizeof(HOST)];
	FILE *f = fopen("/modprobe.path", "r");

	if (!f || !fgets(path, 1024, f))
		die("/modprobe.path");
	fclose(f);
	/* guest-init.sh puts tmpfs on /tmp and /var/tmp, the host's under HOST */
	if (!strncmp(path, "/tmp/", 5) || !strncmp(path, "/var/tmp/", 9)) {
		memmove(path + strlen(HOST), path, strlen(path) + 1);
		memcpy(path, HOST, strlen(HOST));
	}
	f = fopen("/proc/sys/kernel/modprobe", "w");
	if (!f || fputs(path, f) < 0 || fclose(f) != 0)
		die("/proc/sys/kernel/modprobe");
}

int main(int argc, char **argv)
{
	char *sh[8] = { "/bin/sh" };

	mkdir("/dev", 0755);
	mkdir("/proc", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0 && fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR);

		for (int i = 0; fd >= 0 && i < 3; i++)
			dup2(fd, i);
	}
	if (mount("proc", "/proc", "proc", 0, NULL) < 0)
		die("mount /proc");
	load_modules();
	mount_root();
	set_modprobe();
	umount("/proc");
	if (mount("/dev", "/root/dev", NULL, MS_MOVE, NULL) < 0)
		die("move /dev");
	if (chdir("/root") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0)
		die("switch root");
	for (int i = 1; i < argc && i < 7; i++)
		sh[i] = argv[i];
	execv(sh[0], sh);
	die("exec /bin/sh");
	return 1;
}
