/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expfile.h - the lines of an expectations file, as both of its readers
 * see them: the gate's declared trades (analysis/gate/expect.c) and the
 * cover letters' claims (claims.c).
 *
 *   foliobench-expect 1          the first line with content, exactly
 *   # a comment                  from '#' outside "quotes" to the end
 *   include PATH                 relative to the including file's directory
 *
 * Blank lines are skipped, a line holds at most FB_EXPFILE_MAX_LINE
 * characters, and every error is one line, "FILE:LINE: why".  The file is
 * opened as every input is (util/infile.h: a FIFO is refused, not waited on).
 */
#ifndef FB_EXPFILE_H
#define FB_EXPFILE_H

#include <stddef.h>
#include <stdio.h>

#define FB_EXPFILE_MAGIC	"foliobench-expect 1"
#define FB_EXPFILE_MAX_LINE	512

struct fb_expfile {
	const char *path;	/* as opened; kept by the caller */
	FILE *f;
	int ln;			/* the line last read */
	int header;		/* the magic line was read */
	char buf[FB_EXPFILE_MAX_LINE + 2];
};

/* Opens path; 0, or -1 with one line in err. */
int fb_expfile_open(struct fb_expfile *x, const char *path, char *err, size_t errlen);
void fb_expfile_close(struct fb_expfile *x);
/*
 * The next line with content after the magic line, without its comment
 * and surrounding blanks, into *line (in x->buf): 1, 0 at the end, or -1
 * with "FILE:LINE: why" in err (a line too long, a first line that is not
 * the magic one).
 */
int fb_expfile_next(struct fb_expfile *x, char **line, char *err, size_t errlen);
/* The rest of line after keyword kw and blanks ("include", "claim"), or NULL. */
char *fb_expfile_keyword(char *line, const char *kw);
/* The path of an `include arg` in the file from into out. */
void fb_expfile_relative(const char *from, const char *arg, char *out, size_t len);
/* "FILE:LINE: " and the message into err, for the line last read; returns -1. */
int fb_expfile_err(const struct fb_expfile *x, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* FB_EXPFILE_H */
