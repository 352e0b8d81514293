// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - the attach mode of function rows (`run --attach`) and the
 * FB_ABLATE, FB_FUNCHOOK and FB_LOCKHOOK diagnostics.  run.c sets all of
 * them, list.c the three variables (each parses them once, with its other
 * input); probes.c and locks.c ask.
 */
#include <stdio.h>
#include <string.h>

#include "fbprobe.h"
#include "measure/attach.h"

static enum fb_attach_mode mode;
static int ablate;
static int funchook_pair;
static enum fb_lockhook lockhook;

int fb_attach_set(const char *m)
{
	static const char *const names[] = { "auto", "fentry", "kprobe" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(m, names[i])) {
			mode = (enum fb_attach_mode)i;
			return 0;
		}
	}
	return -1;
}

enum fb_attach_mode fb_attach_mode(void)
{
	return mode;
}

int fb_ablate_parse(const char *s, char *err, size_t len)
{
	static const struct { const char *word; int bit; } words[] = {
		{ "stats", FB_ABL_STATS }, { "hist", FB_ABL_HIST },
		{ "hash", FB_ABL_HASH }, { "empty", FB_ABL_EMPTY }, { "tidhash", FB_ABL_TIDHASH },
		{ "clock", FB_ABL_CLOCK }, { "nomatch", FB_ABL_NOMATCH },
	};
	int bits = 0;

	while (s && *s) {
		size_t n = strcspn(s, ","), i;

		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (n == strlen(words[i].word) && !strncmp(s, words[i].word, n))
				break;
		if (i == sizeof(words) / sizeof(words[0])) {
			snprintf(err, len, "FB_ABLATE: unknown part '%.*s' (stats, hist, hash, tidhash, empty, clock, nomatch)",
				 (int)n, s);
			return -1;
		}
		bits |= words[i].bit;
		s += n + (s[n] == ',');
	}
	return bits;
}

int fb_ablate_set(const char *s, char *err, size_t len)
{
	int bits = fb_ablate_parse(s, err, len);

	if (bits >= 0)
		ablate = bits;
	return bits;
}

int fb_ablate(void)
{
	return ablate;
}

int fb_hooks_set(const char *funchook, const char *lock, char *err, size_t len)
{
	static const char *const names[] = { "", "fexit", "fentry-hash", "fentry-task" };
	int pair = funchook && *funchook;

	if (pair && strcmp(funchook, "pair")) {
		snprintf(err, len, "FB_FUNCHOOK: unknown method '%.40s' (pair)", funchook);
		return -1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(lock ? lock : "", names[i])) {
			funchook_pair = pair;
			lockhook = (enum fb_lockhook)i;
			return 0;
		}
	}
	snprintf(err, len, "FB_LOCKHOOK: unknown method '%.40s' (fexit, fentry-hash, fentry-task)",
		 lock);
	return -1;
}

int fb_funchook_pair(void)
{
	return funchook_pair;
}

enum fb_lockhook fb_lockhook(void)
{
	return lockhook;
}
