// SPDX-License-Identifier: GPL-2.0
/*
 * expfile.c - the lines of an expectations file (expfile.h), one reader
 * for the gate's expectations and the claims.
 */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "analysis/compare/expfile.h"
#include "util/infile.h"

int fb_expfile_open(struct fb_expfile *x, const char *path, char *err, size_t errlen)
{
	memset(x, 0, sizeof(*x));
	x->path = path;
	x->f = fb_in_fopen(path, "an expect file", err, errlen);
	return x->f ? 0 : -1;
}

void fb_expfile_close(struct fb_expfile *x)
{
	if (x->f)
		fclose(x->f);
	x->f = NULL;
}

int fb_expfile_err(const struct fb_expfile *x, char *err, size_t errlen, const char *fmt, ...)
{
	int n = snprintf(err, errlen, "%s:%d: ", x->path, x->ln);
	va_list ap;

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* s without a comment ('#' outside quotes) and surrounding blanks */
static char *strip(char *s)
{
	int in_q = 0;
	char *e;

	for (e = s; *e; e++) {
		in_q ^= *e == '"';
		if (*e == '#' && !in_q) {
			*e = '\0';
			break;
		}
	}
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int fb_expfile_next(struct fb_expfile *x, char **line, char *err, size_t errlen)
{
	while (fgets(x->buf, sizeof(x->buf), x->f)) {
		char *s;

		x->ln++;
		if (!strchr(x->buf, '\n') && !feof(x->f))
			return fb_expfile_err(x, err, errlen, "line longer than %d characters",
					      FB_EXPFILE_MAX_LINE);
		s = strip(x->buf);
		if (!*s)
			continue;
		if (x->header) {
			*line = s;
			return 1;
		}
		if (strcmp(s, FB_EXPFILE_MAGIC))
			return fb_expfile_err(x, err, errlen, "the first line must be '%s'",
					      FB_EXPFILE_MAGIC);
		x->header = 1;
	}
	return 0;
}

char *fb_expfile_keyword(char *line, const char *kw)
{
	size_t n = strlen(kw);

	if (strncmp(line, kw, n) || !isspace((unsigned char)line[n]))
		return NULL;
	return strip(line + n);
}

void fb_expfile_relative(const char *from, const char *arg, char *out, size_t len)
{
	const char *slash = strrchr(from, '/');

	if (arg[0] == '/' || !slash)
		snprintf(out, len, "%s", arg);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - from), from, arg);
}
