// SPDX-License-Identifier: GPL-2.0
/*
 * outcome.c - the splat scanner and the boot outcome -> exit code mapping.
 * Pure functions: tests/unit/test_vm.c checks them on sample console logs
 * (panic, oops, WARN, lockdep splats, allowed splats, a clean boot) and on
 * every outcome, so the exit-code contract is tested without qemu.
 */
#include <regex.h>
#include <string.h>

#include "guest/outcome.h"
#include "guest/vmcodes.h"

#define MAX_RES		32
#define ALLOWED_SPAN	100	/* lines of an allowed splat's body */
#define CALL_TRACE	"Call Trace:"

static const char *const splat_res[] = {
	"Kernel panic",
	"(^|[^A-Za-z_])BUG:",
	"kernel BUG at",
	"(^|[^A-Za-z_])WARNING:",
	"(^|[^A-Za-z_])Oops[: ]",
	"general protection fault",
	"Unable to handle kernel",
	"possible circular locking",
	"possible recursive locking",
	"(^|[^A-Za-z_])INFO: ",
	"UBSAN:",
	"DEBUG_LOCKS_WARN_ON",
	"turning off the locking correctness validator",
	CALL_TRACE,	/* a stack dump without one of the headers above */
	NULL,
};

enum fb_vm_outcome fb_vm_outcome(const struct fb_vm_events *e)
{
	if (e->sig)
		return FB_OUT_INTR;
	if (e->kvm_err)
		return FB_OUT_KVM;
	if (!e->started && !e->have_rc && !e->timed_out && e->qemu_failed)
		return FB_OUT_QEMU;
	if (e->timed_out)
		return FB_OUT_TIMEOUT;
	if (e->splat)
		return FB_OUT_SPLAT;
	if (e->have_rc)
		return FB_OUT_RC;
	if (e->triple_fault)
		return FB_OUT_TRIPLE;
	if (e->started)
		return FB_OUT_RESET;
	return e->setup_error ? FB_OUT_SETUP : FB_OUT_NOCMD;
}

int fb_vm_exit_code(enum fb_vm_outcome out, int rc)
{
	switch (out) {
	case FB_OUT_RC:
		return rc;
	case FB_OUT_INTR:
		return FB_VM_INTR;
	case FB_OUT_TIMEOUT:
		return FB_VM_TIMEOUT;
	case FB_OUT_SPLAT:
	case FB_OUT_TRIPLE:
	case FB_OUT_RESET:
		return FB_VM_SPLAT;
	default:
		return FB_VM_NOSTART;
	}
}

const char *fb_strip_ts(const char *l)
{
	const char *e;

	if (*l != '[')
		return l;
	e = strchr(l, ']');
	if (!e)
		return l;
	e++;
	while (*e == ' ')
		e++;
	return e;
}

static int any_match(const regex_t *re, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!regexec(&re[i], s, 0, NULL, 0))
			return 1;
	return 0;
}

static int scan(char *const *lines, int n, const regex_t *res, int nres,
		const regex_t *allow, int nallow)
{
	for (int i = 0, quiet_until = -1; i < n; i++) {
		const char *l = lines[i] ? fb_strip_ts(lines[i]) : "";

		if (!any_match(res, nres, l))
			continue;
		/* the stack dump of an allowed splat is allowed too */
		if (i <= quiet_until && strstr(l, CALL_TRACE))
			continue;
		if (!any_match(allow, nallow, lines[i]))
			return i;
		quiet_until = i + ALLOWED_SPAN;
	}
	return -1;
}

int fb_splat_find(char *const *lines, int n, const char *const *allow, int nallow)
{
	regex_t res[MAX_RES], al[FB_VM_MAX_ALLOW];
	int nres = 0, nal = 0, found;

	for (int i = 0; splat_res[i] && nres < MAX_RES; i++)
		if (!regcomp(&res[nres], splat_res[i], REG_EXTENDED | REG_NOSUB))
			nres++;
	for (int i = 0; i < nallow && nal < FB_VM_MAX_ALLOW; i++)
		if (!regcomp(&al[nal], allow[i], REG_EXTENDED | REG_NOSUB))
			nal++;
	found = scan(lines, n, res, nres, al, nal);
	for (int i = 0; i < nres; i++)
		regfree(&res[i]);
	for (int i = 0; i < nal; i++)
		regfree(&al[i]);
	return found;
}
