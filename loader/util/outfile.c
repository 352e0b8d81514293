// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c - outputs written whole or not at all, and the portable-name
 * rule (outfile.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outfile.h"
#include "util/util.h"

/* ---- signals: while an output is open, a fatal Ctrl-C waits for its end ---- */

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGS	(int)(sizeof(stop_sigs) / sizeof(stop_sigs[0]))
static struct sigaction saved[NSIGS];
static int held[NSIGS], nopen;
static volatile sig_atomic_t got_sig;

static void on_stop(int sig)
{
	got_sig = sig;
	fb_stop = 1;
}

/* Only signals that would kill the process: a command's own handler stays. */
static void hold_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESTART };

	if (nopen++)
		return;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NSIGS; i++) {
		held[i] = !sigaction(stop_sigs[i], NULL, &saved[i]) &&
			  !(saved[i].sa_flags & SA_SIGINFO) && saved[i].sa_handler == SIG_DFL;
		if (held[i])
			sigaction(stop_sigs[i], &sa, NULL);
	}
}

/* The last output closed: a signal held meanwhile now does what it would have. */
static void release_signals(void)
{
	if (--nopen)
		return;
	for (int i = 0; i < NSIGS; i++)
		if (held[i])
			sigaction(stop_sigs[i], &saved[i], NULL);
	if (got_sig)
		raise(got_sig);
}

/* ---- paths ---- */

static const char *type_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int fb_out_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (!*path) {
		snprintf(err, errlen, "empty output path");
		return -1;
	}
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path,
						       strerror(errno)), -1);
	if (S_ISLNK(st.st_mode) && stat(path, &st)) {
		snprintf(err, errlen, "%s: a symbolic link to nothing; not written", path);
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen, "%s: %s, not a regular file; not written", path,
		 type_name(st.st_mode));
	return -1;
}

/* "DIR/.BASE.fbtmp-XXXXXX" beside target */
static int tmp_name(const char *target, char *tmp, size_t len)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	int dl = slash ? (int)(slash - target) : 1;

	if (slash == target)
		dl = 0;		/* "/x": the directory is "" + "/" */
	return fb_fmt(tmp, len, "%.*s/.%.180s.fbtmp-XXXXXX", dl, slash ? target : ".",
		      base) >= (int)len ? -1 : 0;
}

static mode_t new_mode(void)
{
	mode_t m = umask(022);

	umask(m);
	return 0666 & ~m;
}

/* ---- one file ---- */

static ssize_t ck_write(void *c, const char *buf, size_t n)
{
	struct fb_out *o = c;
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = write(o->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!o->werr)
				o->werr = w < 0 ? errno : ENOSPC;
			return -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

int fb_out_open(struct fb_out *o, const char *path, char *err, size_t errlen)
{
	cookie_io_functions_t io = { .write = ck_write };
	struct stat st;
	mode_t mode;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (fb_out_check(path, err, errlen))
		return -1;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (!realpath(path, o->path)) {
			snprintf(err, errlen, "%s: %s; not written", path, strerror(errno));
			return -1;
		}
	} else if ((size_t)fb_fmt(o->path, sizeof(o->path), "%s", path) >= sizeof(o->path)) {
		snprintf(err, errlen, "%.200s...: path too long; not written", path);
		return -1;
	}
	mode = !stat(o->path, &st) ? st.st_mode & 0777 : new_mode();
	if (tmp_name(o->path, o->tmp, sizeof(o->tmp))) {
		snprintf(err, errlen, "%.200s...: path too long; not written", path);
		return -1;
	}
	hold_signals();
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		snprintf(err, errlen, "%s: cannot write: %s; not written", path, strerror(errno));
		release_signals();
		return -1;
	}
	fchmod(o->fd, mode);	/* mkostemp's 0600: as the old file, or as umask says */
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		snprintf(err, errlen, "%s: out of memory; not written", path);
		fb_out_abort(o);
		return -1;
	}
	return 0;
}

void fb_out_abort(struct fb_out *o)
{
	if (o->f)
		fclose(o->f);	/* a failing flush here goes nowhere */
	o->f = NULL;
	if (o->fd >= 0) {
		close(o->fd);
		unlink(o->tmp);
		o->fd = -1;
		release_signals();
	}
}

int fb_out_commit(struct fb_out *o, char *err, size_t errlen)
{
	int e = 0;

	if (fflush(o->f) || ferror(o->f))
		e = o->werr ? o->werr : EIO;
	if (fclose(o->f) && !e)
		e = o->werr ? o->werr : EIO;
	o->f = NULL;
	if (!e && fsync(o->fd) && errno != EINVAL)
		e = errno;
	if (close(o->fd) && !e)
		e = errno;
	if (!e && got_sig)
		e = EINTR;
	if (!e && rename(o->tmp, o->path))
		e = errno;
	o->fd = -1;
	if (e) {
		unlink(o->tmp);
		snprintf(err, errlen, "%s: %s; not written", o->path,
			 e == EINTR ? "interrupted" : strerror(e));
	}
	release_signals();
	return e ? -1 : 0;
}

int fb_out_write_str(const char *path, const char *s, char *err, size_t errlen)
{
	struct fb_out o;

	if (fb_out_open(&o, path, err, errlen))
		return -1;
	fputs(s, o.f);
	return fb_out_commit(&o, err, errlen);
}

/* ---- a whole directory ---- */

int fb_outdir_open(struct fb_outdir *d, const char *path, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	char *slash;
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (!lstat(path, &st) && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, not a directory; not written", path,
			 type_name(st.st_mode));
		return -1;
	}
	if ((size_t)fb_fmt(d->path, sizeof(d->path), "%s", path) >= sizeof(d->path) ||
	    tmp_name(d->path, d->tmp, sizeof(d->tmp))) {
		snprintf(err, errlen, "%.200s...: path too long; not written", path);
		return -1;
	}
	fb_fmt(parent, sizeof(parent), "%s", d->tmp);
	slash = strrchr(parent, '/');
	*slash = '\0';
	if (parent[0] && fb_mkdir_p(parent)) {
		snprintf(err, errlen, "cannot create %s: %s", parent, strerror(errno));
		return -1;
	}
	hold_signals();
	if (!mkdtemp(d->tmp)) {
		snprintf(err, errlen, "cannot create a directory beside %s: %s", path,
			 strerror(errno));
		d->tmp[0] = '\0';
		release_signals();
		return -1;
	}
	chmod(d->tmp, 0777 & new_mode());
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_DP)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

void fb_outdir_abort(struct fb_outdir *d)
{
	if (!d->tmp[0])
		return;
	nftw(d->tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	d->tmp[0] = '\0';
	release_signals();
}

int fb_outdir_commit(struct fb_outdir *d, char *err, size_t errlen)
{
	int e = got_sig ? EINTR : 0;

	if (!e && rename(d->tmp, d->path))
		e = errno;
	if (!e) {
		d->tmp[0] = '\0';
		release_signals();
		return 0;
	}
	snprintf(err, errlen, "%s: %s; not written", d->path,
		 e == EINTR ? "interrupted" : e == ENOTEMPTY || e == EEXIST ?
		 "not empty (written meanwhile)" : strerror(e));
	fb_outdir_abort(d);
	return -1;
}

/* ---- names and terminals ---- */

int fb_name_check(const char *what, const char *s, char *err, size_t errlen)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				 "0123456789._@-";
	size_t n = strlen(s);
	const char *why = NULL;
	char shown[48];

	if (!n)
		why = "is empty";
	else if (n > FB_NAME_MAX)
		why = "is longer than 63 characters";
	else if (s[0] == '.' || s[0] == '-')
		why = "starts with '.' or '-'";
	else if (strstr(s, ".."))
		why = "contains \"..\"";
	else if (strspn(s, ok) != n)
		why = "has a character other than A-Z a-z 0-9 . _ @ -";
	if (!why)
		return 0;
	fb_term_str(s, shown, sizeof(shown));
	snprintf(err, errlen, "%s '%s%s' %s (a name is 1 to 63 of A-Z a-z 0-9 . _ @ -, not "
		 "starting with . or -, without ..)", what, shown, n >= sizeof(shown) ? "..." : "",
		 why);
	return -1;
}

const char *fb_term_str(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return "";
	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/*
 * stdout for a terminal: C0 controls but newline and tab, DEL and the C1
 * controls of UTF-8 (U+0080..U+009F, CSI among them) leave as '?'.
 */
static int term_c2;	/* a 0xc2 lead byte held back: C1 control or not */

static int term_put(const char *b, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(STDOUT_FILENO, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static ssize_t term_write(void *c, const char *buf, size_t n)
{
	char out[4096];
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (term_c2) {
			term_c2 = 0;
			if (ch >= 0x80 && ch <= 0x9f) {
				out[o++] = '?';
				goto next;
			}
			out[o++] = (char)0xc2;
		}
		if (ch == 0xc2)
			term_c2 = 1;
		else
			out[o++] = (ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f ? '?' :
				   (char)ch;
next:
		if (o >= sizeof(out) - 2) {
			if (term_put(out, o))
				return -1;
			o = 0;
		}
	}
	return term_put(out, o) ? -1 : (ssize_t)n;
}

static int term_close(void *c)
{
	char lead = (char)0xc2;

	if (term_c2 && term_put(&lead, 1))
		return -1;
	term_c2 = 0;
	return 0;
}

void fb_term_stdout(void)
{
	cookie_io_functions_t io = { .write = term_write, .close = term_close };
	FILE *f;

	fflush(stdout);
	f = fopencookie(NULL, "w", io);
	if (!f)
		return;		/* unfiltered rather than nothing */
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, 0);
	stdout = f;
}
