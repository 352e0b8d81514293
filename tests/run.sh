#!/usr/bin/env bash
# tests/run.sh - the test command behind `make test` (and so .ci/run).
#
#   unit      C unit tests (build/tests/*)
#   fuzz      the results reader under libFuzzer + ASan/UBSan, 30 s
#   host      `foliobench run` on this host: degrades per probe, cleans up,
#             stops on SIGTERM/SIGHUP/SIGINT; the bad-input table (bad-input.tsv);
#             `foliobench history` on the rounds archived in reports/;
#             `foliobench merge` on synthetic shards; outputs whole or absent
#             under injected write errors and SIGINT, escaped (outputs-test.sh);
#             the LAVA job template; no pass from a failed run, one verdict
#             per row (verdict-test.sh); the lines this script and .ci/run end
#             with (ci-test.sh); background kernel builds (bg-test.sh)
#   guest     kernels built (cached), booted under qemu, probes checked
#             against workload counts (tests/guest/*.sh)
#   slurm     a single-node Slurm (munged, slurmctld, slurmd) started and
#             stopped by tests/slurm/slurm-test.sh: scripts/slurm/ runs 2 shards,
#             merges and gates (needs the baseline perf kernel built)
#
# FB_TESTS="unit host" limits the groups (default: all).  Each check prints
# `ok - ...` or `not ok - ...`; then a table (group, tests, failed,
# seconds) and, last, `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
export FB_REPO=$PWD
groups=${FB_TESTS:-unit fuzz host guest slurm}
log=$(mktemp -d /tmp/foliobench-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT

run_group() {
	local g=$1 f
	echo "# === $g === ($(( SECONDS ))s into the tests)"
	case $g in
	unit)
		for f in build/tests/*; do
			[ -x "$f" ] || continue
			"$f" 2>&1 || echo "not ok - $(basename "$f") exited non-zero"
		done
		;;
	fuzz)
		bash tests/fuzz/run.sh "${FUZZ_SECONDS:-30}"
		;;
	host)
		bash tests/host/host-test.sh
		bash tests/host/history-test.sh
		bash tests/host/report-test.sh
		bash tests/host/gate-ci-test.sh
		bash tests/host/verdict-test.sh
		bash tests/host/claims-test.sh
		bash tests/host/report-html-test.sh
		bash tests/host/bad-input.sh
		bash tests/host/merge-test.sh
		bash tests/host/build-spread-test.sh
		bash tests/host/outputs-test.sh
		bash tests/host/lava-test.sh
		bash tests/host/ci-test.sh
		bash tests/host/bg-test.sh
		;;
	guest)
		bash tests/guest/run.sh
		;;
	slurm)
		bash tests/slurm/slurm-test.sh
		;;
	*)
		echo "not ok - unknown test group $g"
		;;
	esac
}

count() { grep -cE "^${2:-}ok( [0-9]+)? - " "$1"; }
for g in $groups; do
	t0=$SECONDS
	run_group "$g" 2>&1 | tee "$log/$g"
	cat "$log/$g" >>"$log/all"
	echo "$g $(count "$log/$g") $(count "$log/$g" 'not ') $(( SECONDS - t0 ))" >>"$log/table"
done
# one row per group: its checks (ok + not ok), the failed ones, its time
awk '{ printf "%-8s %6d %7d %8d\n", $1, $2 + $3, $3, $4; n += $2 + $3; f += $3; s += $4 }
     BEGIN { printf "%-8s %6s %7s %8s\n", "group", "tests", "failed", "seconds" }
     END { printf "%-8s %6d %7d %8d\n", "total", n, f, s }' "$log/table"
pass=$(count "$log/all")
fail=$(count "$log/all" 'not ')
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
