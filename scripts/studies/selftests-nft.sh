#!/usr/bin/env bash
# selftests-nft.sh [OUT_DIR [TIMEOUT [TEST...]]] - the whole netfilter selftest
# directory (tools/testing/selftests/net/netfilter of the pinned tree,
# kselftest runner, KSFT_MACHINE_SLOW=yes) on the baseline and patched
# lockstat kernels, one boot per arm, both at once; and lockdep's locking
# API self-tests from the same boots' consoles (issue 42,
# reports/selftests/nft.md and locking.md).  TIMEOUT: seconds per test
# (300); TESTs: only those (script names).  NST_VM_TIMEOUT (seconds)
# stops each boot there: the tests not reached are then "not run".
# Writes OUT_DIR (results/selftests-nft-TIME) /ARM.{tap,d,log}
# and table.md: one row per test with both arms' outcomes and the tests'
# own SKIP/FAIL lines.  The make-test part: tests/guest/selftests-nft.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-results/selftests-nft-$(date -u +%Y%m%dT%H%M%S)}
to=${2:-300}
shift $(( $# > 2 ? 2 : $# ))
[[ $to =~ ^[1-9][0-9]*$ ]] || { echo "selftests-nft: TIMEOUT must be a positive integer, not '$to'" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
. scripts/lib/nft-selftests.sh
declare -A k
for arm in baseline patched; do
	k[$arm]=$(./foliobench kernel build --arm $arm --flavour lockstat 2>"$out/build-$arm.log" | tail -1)
	[ -f "${k[$arm]}/bzImage" ] || { echo "selftests-nft: $arm lockstat kernel did not build ($out/build-$arm.log)" >&2; exit 1; }
done
dir=$(nst_build "$out/st") || { echo "selftests-nft: the selftests did not build ($out/st/build.log)" >&2; exit 1; }
echo "# $(date -u +%T) host load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)" | tee "$out/meta"
start=$SECONDS
for arm in baseline patched; do
	nst_run "${k[$arm]}" "$dir" "$out/$arm" "$to" "$@" &
	eval "pid_$arm=$!"
done
# shellcheck disable=SC2154
wait "$pid_baseline"; rb=$?
# shellcheck disable=SC2154
wait "$pid_patched"; rp=$?
echo "# $(date -u +%T) host load $(cut -d' ' -f1-3 /proc/loadavg); vm rc baseline $rb, patched $rp; $((SECONDS - start)) s" | tee -a "$out/meta"
for arm in baseline patched; do
	nst_outcomes "$out/$arm" >"$out/$arm.outcomes"
	echo "# $arm: kernel ${k[$arm]##*/}; locking API self-tests: $(lst_result "$out/$arm.log")" | tee -a "$out/meta"
done
{
	echo "| test | baseline | patched | the test's own reason (baseline / patched) |"
	echo "|---|---|---|---|"
	sed -n 's|^net/netfilter:||p' "$dir/../../kselftest-list.txt" |
		awk -F'\t' -v b="$out/baseline.outcomes" -v p="$out/patched.outcomes" '
		function load(f, o, w,   l, n, x) {
			while ((getline l < f) > 0) {
				split(l, x, "\t"); n = x[1]; sub(/ .*/, "", n)
				o[n] = x[1]; sub(/^[^ ]* /, "", o[n]); w[n] = x[2]
			}
		}
		BEGIN { load(b, ob, wb); load(p, op, wp) }
		{
			x = ($1 in ob) ? ob[$1] : "not run"; y = ($1 in op) ? op[$1] : "not run"
			r = (wb[$1] == wp[$1]) ? wb[$1] : wb[$1] " / " wp[$1]
			gsub(/\|/, "\\|", r)
			printf "| %s | %s | %s | %s |\n", $1, x, y, r
		}'
	for arm in baseline patched; do
		printf '\n%s: ' "$arm"
		awk '{ n[$2]++ } END { printf "%d pass, %d fail, %d skip, %d timeout\n", n["pass"], n["fail"], n["skip"], n["timeout"] }' "$out/$arm.outcomes"
	done
} >"$out/table.md"
cat "$out/table.md"
