#!/usr/bin/env bash
# ci-test.sh - the lines `make test` and CI end with (issue 41), on test
# groups that run nothing (no guest, a few seconds): tests/run.sh's table
# (group, tests, failed, seconds; a total row) before `N passed, N failed`,
# and .ci/run's last line `ci: total N s, cold baseline perf build M s`,
# M the baseline perf kernel's build-seconds only when this run built it
# cold (here: a kernel directory with build-seconds but no bzImage at the
# start stands for one the run built), empty when it was cached or its
# build directory was not empty; before it `ci: CPU N s ...`.
set -uo pipefail
. "$(dirname "$0")/lib.sh" ci
unset MAKEFLAGS MFLAGS MAKELEVEL FB_CI_START

FB_TESTS="nosuch1 nosuch2" bash tests/run.sh >"$tmp/run" 2>&1
rc=$?
t "run.sh, 2 unknown groups: exit non-zero ($rc)" test "$rc" -ne 0
last=$(tail -1 "$tmp/run")
t "run.sh: the last line is '0 passed, 2 failed' ($last)" test "$last" = "0 passed, 2 failed"
tail -5 "$tmp/run" | head -4 >"$tmp/table"
t "run.sh: before it a header (group tests failed seconds), a row per group (1 test, 1 failed), a total (2, 2)" \
	awk 'NR == 1 { ok = $1 == "group" && $2 == "tests" && $3 == "failed" && $4 == "seconds" }
	     NR == 2 { ok = ok && $1 == "nosuch1" && $2 == 1 && $3 == 1 && $4 ~ /^[0-9]+$/ }
	     NR == 3 { ok = ok && $1 == "nosuch2" && $2 == 1 && $3 == 1 }
	     NR == 4 { ok = ok && $1 == "total" && $2 == 2 && $3 == 2 }
	     END { exit !(ok && NR == 4) }' "$tmp/table"

# ci CASE WANT_M: .ci/run on $tmp/CASE as FB_CACHE; its last line and exit
ci() {
	local last
	FB_CACHE=$tmp/$1 FB_TESTS=nosuch bash .ci/run >"$tmp/ci-$1" 2>&1
	local rc=$?
	last=$(tail -1 "$tmp/ci-$1")
	t ".ci/run, $1: exit non-zero when make test fails ($rc)" test "$rc" -ne 0
	t ".ci/run, $1: the last line is 'ci: total N s, cold baseline perf build ${2:-(empty)} s' ($last)" \
		grep -qxE "ci: total [0-9]+ s, cold baseline perf build $2 s" <<<"$last"
	t ".ci/run, $1: the line before it gives the run's CPU-seconds ($(tail -2 "$tmp/ci-$1" | head -1))" \
		grep -qxE "ci: CPU [0-9]+ s \(user \+ system\), [0-9]+% of one CPU over the run, [0-9]+ CPUs" \
		<<<"$(tail -2 "$tmp/ci-$1" | head -1)"
}
kdir() { FB_CACHE=$tmp/$1 scripts/kernel-build.sh --print baseline perf; }

mkdir -p "$tmp/empty"
ci empty ''
k=$(kdir built) && mkdir -p "$k" && echo 512 >"$k/build-seconds"
ci built 512
k=$(kdir cached) && mkdir -p "$k" && echo 512 >"$k/build-seconds" && touch "$k/bzImage"
ci cached ''
k=$(kdir warm) && mkdir -p "$k" "$tmp/warm/work/build-perf" && echo 40 >"$k/build-seconds" &&
	touch "$tmp/warm/work/build-perf/vmlinux"
ci warm ''
