/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/outfile.h - the one way foliobench writes an output file, and the
 * one rule for names from data that become path components.
 *
 * An output is written to a temporary file in the target's directory
 * (".NAME.fbtmp-XXXXXX", created O_EXCL), every write, the flush, fsync
 * and close checked, then renamed over the target: a failing or
 * interrupted write leaves the old file or none, never a part.  A target
 * that exists and is not a regular file (a FIFO, a device, a directory)
 * is refused; a symbolic link to a regular file is written through (the
 * file it names is replaced).  While an output is open, SIGINT, SIGTERM
 * and SIGHUP that would kill the process set fb_stop instead, and the
 * output is then not committed.
 *
 * Functions that fail return -1 with one line in err: what was not
 * written and why ("report.md: No space left on device; not written").
 */
#ifndef FB_OUTFILE_H
#define FB_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct fb_out {
	FILE *f;		/* write here (fprintf, fputs ...) */
	int fd, werr;		/* the temporary file; the first write's errno */
	char path[PATH_MAX];	/* the target */
	char tmp[PATH_MAX];
};

/* 0 if path may be written (absent, or a regular file), else -1 and why. */
int fb_out_check(const char *path, char *err, size_t errlen);
/* A temporary file for path; 0, or -1 (nothing created). */
int fb_out_open(struct fb_out *o, const char *path, char *err, size_t errlen);
/* Every write checked, flushed, synced, closed, renamed over the target; 0 or -1 (removed). */
int fb_out_commit(struct fb_out *o, char *err, size_t errlen);
/* Drops the temporary file; the target stays as it was. */
void fb_out_abort(struct fb_out *o);
/* The string s, whole, as path: open, write, commit. */
int fb_out_write_str(const char *path, const char *s, char *err, size_t errlen);

/*
 * A whole output directory: built as a temporary directory beside path,
 * renamed to path at the end (path absent or an empty directory).
 */
struct fb_outdir {
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};
int fb_outdir_open(struct fb_outdir *d, const char *path, char *err, size_t errlen);
int fb_outdir_commit(struct fb_outdir *d, char *err, size_t errlen);
void fb_outdir_abort(struct fb_outdir *d);	/* removes the temporary tree */

/*
 * The portable-name rule for names from data or the command line that
 * become one path component (arm names, host.arm, labels, flavours):
 * 1..FB_NAME_MAX characters of [A-Za-z0-9._@-], not starting with '.' or
 * '-', no "..".  0 if s is one, else -1 with why in err ("WHAT 'S': ...").
 */
#define FB_NAME_MAX	63
int fb_name_check(const char *what, const char *s, char *err, size_t errlen);

/* s for a terminal, into buf: control characters (ESC, BEL, newline ...) as '?'. */
const char *fb_term_str(const char *s, char *buf, size_t len);

/*
 * From here on, stdout (compare, history list/show/export) prints control
 * characters from data (ESC, BEL, CR, C1 controls) as '?'; newline and tab
 * pass.
 */
void fb_term_stdout(void);

#endif /* FB_OUTFILE_H */
