/* SPDX-License-Identifier: GPL-2.0 */
/* tap.h - minimal TAP-style checks for the unit tests. */
#ifndef TAP_H
#define TAP_H

#include <stdio.h>

static int tap_failed, tap_passed;

#define CHECKF(cond, ...)						\
	do {								\
		if (cond) {						\
			tap_passed++;					\
			printf("ok - ");				\
		} else {						\
			tap_failed++;					\
			printf("not ok - (%s:%d: %s) ", __FILE__,	\
			       __LINE__, #cond);			\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

/* DIR/NAME (or PATH when dir is NULL) holds TEXT: 0, or -1 */
static inline int tap_put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static inline int tap_done(void)
{
	printf("# %d passed, %d failed\n", tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* TAP_H */
