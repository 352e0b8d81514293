// SPDX-License-Identifier: GPL-2.0
/* vm_cli.c - `foliobench vm`: options (argp) in front of fb_vm_run(). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "guest/guest_opts.h"
#include "guest/stock.h"
#include "util/cli.h"
#include "util/util.h"

struct vm_env {
	struct fb_vm_opts o;
	int cmd;	/* index of COMMAND in argv, 0 if none */
};

/* --results and --log are long only: -r is gate's --max-regression, -l run's --label */
enum { OPT_RESULTS = 0x180, OPT_LOG, OPT_OBSERVER_INTO };

static const struct argp_option vm_options[] = {
	{ "kernel", 'k', "K", 0, "bzImage, kernel build directory, or a Debian stock kernel "
	  "debian:6.1|6.12|7.3 (fetched and cached; docs/vm.md) (required)", 0 },
	{ "results", OPT_RESULTS, "DIR", 0, "read-write shared directory ($RESULTS in the guest; "
	  "./results)", 0 },
	{ "log", OPT_LOG, "FILE", 0, "console log (DIR/console-<time>-<pid>.log)", 0 },
	{ "observer-into", OPT_OBSERVER_INTO, "FILE", 0, "with --observer plugin|both: the results file "
	  "COMMAND writes (foliobench run --out FILE) gets the plugin's rows when COMMAND "
	  "succeeds (else the counts stay in LOG.plugin)", 0 },
	{ 0 },
};

static error_t vm_parse(int key, char *arg, struct argp_state *state)
{
	struct vm_env *e = state->input;

	switch (key) {
	case 'k':
		e->o.kernel = arg;
		break;
	case OPT_RESULTS:
		e->o.results = arg;
		break;
	case OPT_LOG:
		e->o.log = arg;
		break;
	case OPT_OBSERVER_INTO:
		e->o.observer_into = arg;
		break;
	case ARGP_KEY_ARG:
		/* COMMAND and its arguments: not ours to parse */
		e->cmd = state->next - 1;
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp vm_argp = {
	vm_options, vm_parse, "--kernel K -- COMMAND [ARG...]",
	"Boots kernel K under qemu with this machine's root read-only over 9p and runs "
	"COMMAND as root in the guest, in the current directory, with its stdout/stderr "
	"relayed here.  The results directory is shared read-write at the same path; "
	"/tmp, /run and /var/tmp are tmpfs.  FB_* variables are passed through."
	"\vExit status: COMMAND's; 125 if the guest kernel panicked, oopsed or printed a "
	"WARN/BUG/lockdep splat (an excerpt is printed); 124 if the guest was still running "
	"at the timeout; 126 if qemu or the guest setup failed; 130 if interrupted; 2 on "
	"bad options.",
	NULL, NULL, NULL,
};

int cmd_vm(int argc, char **argv)
{
	struct vm_env e = { 0 };
	char dir[PATH_MAX];
	int r = fb_argp_parse_shared(&vm_argp, &e, &fb_guest_argp, &e.o, argc, argv, NULL);

	if (r)
		return r == 1 ? 0 : 2;
	if (!e.o.kernel) {
		fb_err("vm: --kernel is required (see foliobench vm --help)");
		return 2;
	}
	if (!e.cmd) {
		fb_err("vm: no command given: foliobench vm --kernel K -- COMMAND...");
		return 2;
	}
	r = fb_guest_opts_check("vm", &e.o);
	if (r)
		return r;
	if (e.o.observer_into && e.o.observer == FB_OBS_BPF) {
		fb_err("vm: --observer-into goes with --observer plugin or both");
		return 2;
	}
	if (fb_stock_spec(e.o.kernel)) {
		r = fb_stock_dir(e.o.kernel, dir, sizeof(dir));
		if (r)
			return r == 2 || r == FB_VM_INTR ? r : FB_VM_NOSTART;
		e.o.kernel = dir;
	}
	return fb_vm_run(&e.o, argv + e.cmd);
}
