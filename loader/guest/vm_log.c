// SPDX-License-Identifier: GPL-2.0
/*
 * vm_log.c - the guest's console log after the boot: the first splat line
 * (outcome.c's scanner over the file's lines) and an excerpt around it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "guest/outcome.h"
#include "guest/vm_log.h"
#include "util/util.h"

#define EXCERPT_BEFORE	4
#define EXCERPT_AFTER	20

/* The console log as lines (malloc'd); *n set.  NULL if unreadable. */
static char **read_lines(const char *log, int *n)
{
	char **lines = NULL, *line = NULL;
	int cap = 0;
	size_t sz = 0;
	ssize_t len;
	FILE *f = fopen(log, "r");

	*n = 0;
	if (!f)
		return NULL;
	while ((len = getline(&line, &sz, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (*n == cap) {
			char **nl = realloc(lines, (size_t)(cap ? cap * 2 : 1024) * sizeof(*lines));

			if (!nl)
				break;
			lines = nl;
			cap = cap ? cap * 2 : 1024;
		}
		lines[(*n)++] = strdup(line);
	}
	free(line);
	fclose(f);
	return lines;
}

static void free_lines(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

int fb_vm_log_splat(const char *log, const char *const *allow, int nallow, char *line,
		    size_t len)
{
	int n, found;
	char **lines = read_lines(log, &n);

	if (!lines)
		return -1;
	found = fb_splat_find(lines, n, allow, nallow);
	if (found >= 0 && line)
		fb_fmt(line, len, "%s", lines[found] ? fb_strip_ts(lines[found]) : "");
	free_lines(lines, n);
	return found;
}

void fb_vm_log_excerpt(const char *log, int found)
{
	int n, from, to;
	char **lines = read_lines(log, &n);

	if (!lines)
		return;
	from = found > EXCERPT_BEFORE ? found - EXCERPT_BEFORE : 0;
	to = found + EXCERPT_AFTER < n ? found + EXCERPT_AFTER : n;
	fprintf(stderr, "---- console excerpt (lines %d-%d) ----\n", from + 1, to);
	for (int i = from; i < to; i++)
		fprintf(stderr, "%s\n", lines[i] ? lines[i] : "");
	fprintf(stderr, "----\n");
	free_lines(lines, n);
}
