/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/infile.h - the one way foliobench opens a file it reads (results,
 * --expect, --noise, ab.json, per-patch.json, every file `history add`
 * reads): what the path really is is checked before and after the open.
 *
 * stat() first, so a device or FIFO is refused without being opened at
 * all; then open(O_RDONLY | O_NONBLOCK | O_NOCTTY) (a FIFO swapped in
 * between cannot hang the open, a terminal cannot become ours), fstat()
 * again (what was opened is what was checked), and O_NONBLOCK cleared.
 * Anything but a regular file (FIFO, socket, device, directory) is refused
 * with one line: "PATH: a FIFO, not WHAT".  Symlinks to a regular file are
 * followed: the operand is the user's to name.
 */
#ifndef FB_INFILE_H
#define FB_INFILE_H

#include <stddef.h>
#include <stdio.h>

/* "a FIFO", "a block device", "a directory", ... for an st_mode */
const char *fb_file_type(unsigned int st_mode);

/* A read-only fd of the regular file path, or -1 with one line in err. */
int fb_in_open(const char *path, const char *what, char *err, size_t errlen);
/* The same as a stdio stream ("r"), or NULL with one line in err. */
FILE *fb_in_fopen(const char *path, const char *what, char *err, size_t errlen);
/*
 * The whole regular file, at most max bytes, NUL-terminated and malloc'd
 * (*len its length), or NULL with one line in err.
 */
char *fb_in_read(const char *path, size_t max, size_t *len, const char *what, char *err,
		 size_t errlen);

#endif /* FB_INFILE_H */
