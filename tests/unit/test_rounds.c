// SPDX-License-Identifier: GPL-2.0
/*
 * test_rounds.c - an arm directory's rounds are each counted once, and
 * what is not used is said (model/rounds.c, issue 14).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "model/rounds.h"
#include "tap.h"

static char dir[] = "/tmp/fb-test-rounds-XXXXXX";

static void round_file(const char *name, const char *started, double extra)
{
	struct fb_result *r = calloc(1, sizeof(*r));
	char p[256];

	r->schema_version = FB_SCHEMA_VERSION;
	snprintf(r->started, sizeof(r->started), "%s", started);
	snprintf(r->host.build_id, sizeof(r->host.build_id), "abc123");
	r->nextra = 1;
	snprintf(r->extra[0].key, sizeof(r->extra[0].key), "x");
	r->extra[0].val = extra;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fb_result_save(r, p);
	free(r);
}

static char *path(const char *name)
{
	static char p[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* Loads dir; 1 if n rounds were used and a dropped entry's reason holds why. */
static int loads(int n, const char *why, char *err, size_t len)
{
	struct fb_rounds rs;
	int ok = !fb_rounds_load(&rs, dir, 256, err, len) && rs.n == n;

	if (ok && why) {
		ok = 0;
		for (int i = 0; i < rs.nskip; i++)
			ok |= strstr(rs.skip[i].why, why) != NULL;
	}
	if (!ok && !err[0])
		snprintf(err, len, "%d rounds, %d dropped", rs.n, rs.nskip);
	fb_rounds_free(&rs);
	return ok;
}

static void test_dedup(void)
{
	char err[512] = "";

	round_file("round-1.json", "2026-12-01T08:00:01Z", 1);
	round_file("round-2.json", "2026-12-01T08:00:02Z", 2);
	round_file("round-10.json", "2026-12-01T08:00:10Z", 10);
	CHECKF(loads(3, NULL, err, sizeof(err)), "three rounds are three rounds (%s)", err);
	symlink(".", path("again"));
	CHECKF(loads(3, "symlink to a directory, not followed", err, sizeof(err)),
	       "a symlink again -> . is not followed (%s)", err);
	link(path("round-1.json"), path("round-1-hard.json"));
	CHECKF(loads(3, "the same file as round-1.json (hard link or symlink)", err, sizeof(err)),
	       "a hard link counts once (%s)", err);
	symlink("round-2.json", path("round-2-sym.json"));
	CHECKF(loads(3, "the same file", err, sizeof(err)), "a symlink to a round counts once (%s)",
	       err);
	round_file("round-1-copy.json", "2026-12-01T08:00:01Z", 1);
	CHECKF(loads(3, "the same round as", err, sizeof(err)),
	       "a copy (same start time and build id) counts once (%s)", err);
	round_file("round-1-other.json", "2026-12-01T08:00:01Z", 7);
	CHECKF(loads(4, NULL, err, sizeof(err)),
	       "another boot that reported the same start second and build id is kept (%s)", err);
	unlink(path("round-1-other.json"));
	symlink("nowhere.json", path("gone.json"));
	CHECKF(loads(3, "dangling symlink", err, sizeof(err)), "a dangling symlink is reported (%s)",
	       err);
	mkdir(path("dir.json"), 0755);
	CHECKF(loads(3, "a directory named like a results file", err, sizeof(err)),
	       "a directory named *.json is reported (%s)", err);
	mkdir(path("sub"), 0755);
	round_file("sub/round-3.json", "2026-12-01T08:00:03Z", 3);
	CHECKF(loads(4, NULL, err, sizeof(err)), "rounds in a subdirectory are used (%s)", err);
}

static void expect_refused(const char *what, const char *needle)
{
	struct fb_rounds rs;
	char err[512] = "";
	int ret = fb_rounds_load(&rs, dir, 256, err, sizeof(err));

	CHECKF(ret < 0 && strstr(err, needle) && !strchr(err, '\n'), "%s: refused: \"%s\"", what,
	       err);
	fb_rounds_free(&rs);
}

static void test_refused(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fb_rounds rs;
	char err[512] = "";
	int fd;

	mkfifo(path("fifo.json"), 0600);
	expect_refused("a FIFO named *.json (without waiting for a writer)", "fifo.json: a FIFO");
	CHECKF(fb_rounds_load(&rs, path("fifo.json"), 256, err, sizeof(err)) < 0 &&
	       strstr(err, "a FIFO, not a results file"), "a FIFO operand: refused: \"%s\"", err);
	fb_rounds_free(&rs);
	unlink(path("fifo.json"));
	mkfifo(path("fifo"), 0600);
	symlink("fifo", path("to-fifo.json"));
	expect_refused("a symlink to a FIFO", "to-fifo.json: symlink to a FIFO");
	unlink(path("to-fifo.json"));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path("sock.json"));
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	expect_refused("a socket named *.json", "sock.json: a socket");
	close(fd);
	unlink(path("sock.json"));
	round_file("round-9.json", "2026-12-01T08:00:09Z", 1.0 / 0.0);
	expect_refused("a round with Infinity in extra", "round-9.json: extra: 'x' is Infinity");
	unlink(path("round-9.json"));
	CHECKF(fb_rounds_load(&rs, dir, 2, err, sizeof(err)) < 0 &&
	       strstr(err, "more than 2 results files"), "more than max: refused: \"%s\"", err);
	fb_rounds_free(&rs);
}

static void test_print(void)
{
	struct fb_rounds rs;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fb_rounds_load(&rs, dir, 256, err, sizeof(err));
	fb_rounds_print(f, "base", &rs);
	fclose(f);
	CHECKF(strstr(buf, "base: 4 rounds from ") &&
	       strstr(buf, ": round-1.json, round-2.json, round-10.json, sub/round-3.json\n") &&
	       strstr(buf, "base: dropped again: symlink to a directory, not followed\n") &&
	       strstr(buf, "base: dropped round-1-copy.json: the same round as "),
	       "the rounds used and each one dropped are printed, in version order");
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		printf("# %s\n", l);
	free(buf);
	fb_rounds_free(&rs);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_dedup();
	test_refused();
	test_print();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	return tap_done();
}
