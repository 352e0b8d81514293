#!/usr/bin/env bash
# tests/guest/stop-test.sh KERNEL_DIR - tests/host/stop-test.sh on the sysfs
# workload inside a guest (netdevsim: the host kernel has none): SIGTERM,
# SIGHUP, SIGINT, SIGKILL of the parent and `timeout 5` while netdevsim
# devices are being registered; none may be left.  Call from run.sh with
# the baseline perf kernel.  Under TCG attaching the probes alone can take
# longer than 5 s, so timeout(1) gets STOP_TIMEOUT (60) s here; SIGHUP and
# SIGINT take the SIGTERM path and are left to the host test (all five cases
# took 13.7 min under a host load of 9-11; STOP_CASES to choose).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
k=${1:?usage: stop-test.sh KERNEL_DIR}
log=$(mktemp /tmp/fb-stop-guest.XXXXXX)
trap 'rm -f "$log"' EXIT
./foliobench vm --smp 1 --kernel "$k" --timeout 900 --log "$log" -- \
	env STOP_AFTER=3 STOP_WAIT=${STOP_WAIT:-10} STOP_TIMEOUT=${STOP_TIMEOUT:-60} \
	    STOP_CASES="${STOP_CASES:-sigterm parent-sigkill timeout}" \
	    bash tests/host/stop-test.sh sysfs 2>&1 |
	grep -E '^(not )?ok|^#' || echo "not ok - guest stop-test ran (console: $log)"
