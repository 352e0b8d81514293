/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach.h - how function rows may attach: `run --attach MODE`, and the
 * FB_ABLATE, FB_FUNCHOOK and FB_LOCKHOOK diagnostics (attach.c; used by
 * probes.c and locks.c).
 */
#ifndef ATTACH_H
#define ATTACH_H

#include <stddef.h>

enum fb_attach_mode {
	FB_ATTACH_AUTO,		/* fsession or fentry/fexit, else kprobe/kretprobe */
	FB_ATTACH_FENTRY,	/* fsession or fentry/fexit only */
	FB_ATTACH_KPROBE,	/* kprobe/kretprobe only */
};

/* "auto", "fentry" or "kprobe": 0, else -1 and the mode is unchanged. */
int fb_attach_set(const char *mode);
enum fb_attach_mode fb_attach_mode(void);

/*
 * FB_ABLATE=WORD[,WORD]... switches parts of the function probes' BPF
 * programs off, to measure what each costs (scripts/studies/overhead.sh); counts
 * and histograms of an ablated run are incomplete.  Words: stats, hist,
 * hash (start time in a per-CPU slot instead of task storage), tidhash
 * (in the (tid, slot) hash, the fallback for kernels without task storage
 * in tracing programs), empty (both programs return at once).  NULL or "" is 0.  Returns the
 * FB_ABL_* bits (bpf/fbprobe.h), or -1 with the word in err.
 */
int fb_ablate_parse(const char *s, char *err, size_t len);
/*
 * fb_ablate_parse(), and on success the bits kept for fb_ablate(): `run`
 * and `list` set them from FB_ABLATE before they open their probe session,
 * which asks fb_ablate() (0 until set).
 */
int fb_ablate_set(const char *s, char *err, size_t len);
int fb_ablate(void);

/*
 * FB_FUNCHOOK and FB_LOCKHOOK (diagnostics, scripts/studies/overhead.sh):
 * the earlier methods, measured beside the shipped ones.  FB_FUNCHOOK=pair
 * keeps function rows on fentry/fexit where fsession loads; FB_LOCKHOOK=
 * fexit, fentry-hash or fentry-task puts lock rows on an earlier method
 * (loader/measure/locks.c).  NULL or "" is the shipped method.
 * fb_hooks_set() takes both or neither: 0, or -1 with the value in err.
 */
enum fb_lockhook { FB_LH_SLOTS, FB_LH_FEXIT, FB_LH_FENTRY_HASH, FB_LH_FENTRY_TASK };

int fb_hooks_set(const char *funchook, const char *lockhook, char *err, size_t len);
int fb_funchook_pair(void);
enum fb_lockhook fb_lockhook(void);

#endif /* ATTACH_H */
