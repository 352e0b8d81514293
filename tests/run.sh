#!/usr/bin/env bash
# tests/run.sh - the test command behind `make test` (and so .ci/run).
#
#   unit      C unit tests (build/tests/*)
#   fuzz      the results reader under libFuzzer + ASan/UBSan, 30 s
#   host      `foliobench run` on this host: degrades per probe, cleans up,
#             stops on SIGTERM/SIGHUP/SIGINT; the bad-input table (bad-input.tsv);
#             `foliobench history` on the rounds archived in reports/;
#             `foliobench merge` on synthetic shards; the LAVA job template
#   guest     kernels built (cached), booted under qemu, probes checked
#             against workload counts (tests/guest/*.sh)
#   slurm     a single-node Slurm (munged, slurmctld, slurmd) started and
#             stopped by tests/slurm-test.sh: scripts/slurm/ runs 2 shards,
#             merges and gates (needs the baseline perf kernel built)
#
# FB_TESTS="unit host" limits the groups (default: all).  Each check prints
# `ok - ...` or `not ok - ...`; the last line is `N passed, N failed`.
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
		bash tests/host-test.sh
		bash tests/history-test.sh
		bash tests/report-test.sh
		bash tests/gate-ci-test.sh
		bash tests/claims-test.sh
		bash tests/bad-input.sh
		bash tests/merge-test.sh
		bash tests/lava-test.sh
		;;
	guest)
		bash tests/guest/run.sh
		;;
	slurm)
		bash tests/slurm-test.sh
		;;
	*)
		echo "not ok - unknown test group $g"
		;;
	esac
}

for g in $groups; do
	run_group "$g" 2>&1 | tee -a "$log/all"
done
pass=$(grep -cE '^ok( [0-9]+)? - ' "$log/all")
fail=$(grep -cE '^not ok( [0-9]+)? - ' "$log/all")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
