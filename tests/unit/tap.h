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

static inline int tap_done(void)
{
	printf("# %d passed, %d failed\n", tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* TAP_H */
