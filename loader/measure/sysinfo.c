// SPDX-License-Identifier: GPL-2.0
/* sysinfo.c - kernel release, build id, config hash, cmdline, CPU. */
#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "measure/sysinfo.h"

static void strip_nl(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* GNU build id from /sys/kernel/notes (a sequence of ELF notes). */
static void build_id(char *out, size_t len)
{
	unsigned char buf[4096];
	FILE *f = fopen("/sys/kernel/notes", "rb");
	size_t n, off = 0;

	out[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + sizeof(Elf64_Nhdr) <= n) {
		Elf64_Nhdr *h = (Elf64_Nhdr *)(buf + off);
		size_t name = off + sizeof(*h), desc = name + ((h->n_namesz + 3) & ~3u);

		if (desc + h->n_descsz > n)
			break;
		if (h->n_type == NT_GNU_BUILD_ID && h->n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4)) {
			for (size_t i = 0; i < h->n_descsz && 2 * i + 2 < len; i++)
				sprintf(out + 2 * i, "%02x", buf[desc + i]);
			return;
		}
		off = desc + ((h->n_descsz + 3) & ~3u);
	}
}

/* sha256 of the kernel's config (/proc/config.gz, else /boot/config-R). */
static void config_hash(const char *release, char *out, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	char path[256];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	FILE *f = fopen("/proc/config.gz", "rb");
	size_t n;

	snprintf(out, len, "unknown");
	if (!f) {
		snprintf(path, sizeof(path), "/boot/config-%s", release);
		f = fopen(path, "rb");
	}
	if (!f)
		return;
	ctx = EVP_MD_CTX_new();
	if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			EVP_DigestUpdate(ctx, buf, n);
		if (EVP_DigestFinal_ex(ctx, md, &mdlen))
			for (unsigned int i = 0; i < mdlen && 2 * i + 2 < len; i++)
				sprintf(out + 2 * i, "%02x", md[i]);
	}
	EVP_MD_CTX_free(ctx);
	fclose(f);
}

static void cpu_model(char *out, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !c)
			continue;
		strip_nl(c + 2);
		snprintf(out, len, "%s", c + 2);
		break;
	}
	if (f)
		fclose(f);
}

/* The value of KEY= (e.g. "foliobench.arm=") on the kernel cmdline; "" if absent. */
static void cmdline_word(const char *cmdline, const char *key, char *out, size_t len)
{
	const char *p = strstr(cmdline, key);

	out[0] = '\0';
	if (!p)
		return;
	p += strlen(key);
	snprintf(out, len, "%.*s", (int)strcspn(p, " \n"), p);
}

/*
 * The machine that ran the round: in an ab guest the host that ran qemu
 * (foliobench.host=, so shards merged from several machines stay told
 * apart), else this system's own name.
 */
static void machine_name(const char *cmdline, char *out, size_t len)
{
	cmdline_word(cmdline, "foliobench.host=", out, len);
	if (!out[0] && gethostname(out, len) < 0)
		out[0] = '\0';
	out[len - 1] = '\0';
}

/* foliobench.clock=icount foliobench.icount_shift=N, set by `vm --clock`. */
static void cmdline_clock(const char *cmdline, struct fb_result *r)
{
	const char *p = strstr(cmdline, "foliobench.clock=");
	char mode[16];

	r->host.clock = FB_CLOCK_HOST;
	if (!p)
		return;
	p += strlen("foliobench.clock=");
	snprintf(mode, sizeof(mode), "%.*s", (int)strcspn(p, " \n"), p);
	if (fb_clock_parse(mode, &r->host.clock) < 0)
		r->host.clock = FB_CLOCK_HOST;
	p = strstr(cmdline, "foliobench.icount_shift=");
	if (p)
		r->host.icount_shift = atoi(p + strlen("foliobench.icount_shift="));
}

/*
 * The wall-clock time an instruction-paced guest can trust.  Its system
 * clock runs on virtual time, and -icount sleep=off jumps every idle
 * stretch to the next timer, so it gains on the host by seconds per boot
 * and by hours over a long one (rounds of one boot were stamped up to 11 h
 * ahead, out of order).  The guest's files are the host's, over 9p, and a
 * file it creates there is stamped by the host's clock: a scratch file
 * beside the results gives the host's time, to the second.  0 with *t set,
 * or -1 (results to stdout, or no such directory): the system clock stands.
 */
static int host_time_file(const char *out, time_t *t)
{
	char path[4200];
	const char *slash = strrchr(out, '/');
	struct stat st;
	int fd, rc;

	if (!strcmp(out, "-"))
		return -1;
	if (slash)
		snprintf(path, sizeof(path), "%.*s/.fb-clock.XXXXXX", (int)(slash - out), out);
	else
		snprintf(path, sizeof(path), ".fb-clock.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	rc = fstat(fd, &st);
	close(fd);
	unlink(path);
	if (rc < 0)
		return -1;
	*t = st.st_mtim.tv_sec;
	return 0;
}

void fb_sysinfo(struct fb_result *r, const char *out)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->tool_version, sizeof(r->tool_version), "%s", FB_VERSION);
	if (!uname(&u)) {
		snprintf(r->host.release, sizeof(r->host.release), "%s", u.release);
		snprintf(r->host.version, sizeof(r->host.version), "%s", u.version);
	}
	build_id(r->host.build_id, sizeof(r->host.build_id));
	config_hash(r->host.release, r->host.config_sha256, sizeof(r->host.config_sha256));
	if (fb_read_file("/proc/cmdline", r->host.cmdline, sizeof(r->host.cmdline)) > 0)
		strip_nl(r->host.cmdline);
	cpu_model(r->host.cpu_model, sizeof(r->host.cpu_model));
	r->host.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cmdline_word(r->host.cmdline, "foliobench.arm=", r->host.arm, sizeof(r->host.arm));
	machine_name(r->host.cmdline, r->host.hostname, sizeof(r->host.hostname));
	cmdline_clock(r->host.cmdline, r);
	if (r->host.clock == FB_CLOCK_ICOUNT)
		host_time_file(out, &now);	/* on failure, the system clock's time stands */
	gmtime_r(&now, &tm);
	strftime(r->started, sizeof(r->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void fb_extra_set(struct fb_result *r, const char *key, double val)
{
	for (int i = 0; i < r->nextra; i++) {
		if (!strcmp(r->extra[i].key, key)) {
			r->extra[i].val = val;
			return;
		}
	}
	if (r->nextra == FB_MAX_EXTRA)
		return;
	snprintf(r->extra[r->nextra].key, sizeof(r->extra[0].key), "%s", key);
	r->extra[r->nextra++].val = val;
}

void fb_extra_from_proc(struct fb_result *r, const char *path, const char *prefix)
{
	char line[256], key[80];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *v, *k = line;
		double val;

		if (!c)
			continue;
		*c = '\0';
		while (isspace((unsigned char)*k))
			k++;
		strip_nl(k);
		val = strtod(c + 1, &v);
		if (v == c + 1)
			continue;
		snprintf(key, sizeof(key), "%s.%s", prefix, k);
		fb_extra_set(r, key, val);
	}
	if (f)
		fclose(f);
}
