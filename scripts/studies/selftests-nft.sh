#!/usr/bin/env bash
# selftests-nft.sh [OUT_DIR [TIMEOUT [TEST...]]] - the whole netfilter selftest
# directory (tools/testing/selftests/net/netfilter of the pinned tree,
# kselftest runner, KSFT_MACHINE_SLOW=yes) on the baseline and patched
# lockstat kernels, one boot per arm, both at once; and lockdep's locking
# API self-tests from the same boots' consoles (issue 42,
# reports/selftests/nft.md and locking.md).  TIMEOUT: seconds per test
# (300); TESTs: only those (script names).  NST_VM_TIMEOUT (seconds)
# stops each boot there: the tests not reached are then "not run".
# STUDY_ARMS: the arms to boot (default "baseline patched"; one arm at a
# time into the same OUT_DIR makes the same table).  Writes OUT_DIR (results/selftests-nft-TIME) /ARM.{tap,d,log}
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
arms=${STUDY_ARMS:-baseline patched}
declare -A k
for arm in $arms; do
	k[$arm]=$(./foliobench kernel build --arm $arm --flavour lockstat 2>"$out/build-$arm.log" | tail -1)
	[ -f "${k[$arm]}/bzImage" ] || { echo "selftests-nft: $arm lockstat kernel did not build ($out/build-$arm.log)" >&2; exit 1; }
done
# built once per OUT_DIR (an arm may still be running from it)
dir=$out/st/inst/net/netfilter
[ -x "$dir/nf_queue" ] || dir=$(nst_build "$out/st") || { echo "selftests-nft: the selftests did not build ($out/st/build.log)" >&2; exit 1; }
echo "# $(date -u +%T) $arms: host load $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)" | tee -a "$out/meta"
start=$SECONDS
declare -A pid
for arm in $arms; do
	nst_run "${k[$arm]}" "$dir" "$out/$arm" "$to" "$@" &
	pid[$arm]=$!
done
for arm in $arms; do
	wait "${pid[$arm]}"
	echo "# $(date -u +%T) $arm: vm rc $?, host load $(cut -d' ' -f1-3 /proc/loadavg), $((SECONDS - start)) s" | tee -a "$out/meta"
	nst_outcomes "$out/$arm" >"$out/$arm.outcomes"
	echo "# $arm: kernel ${k[$arm]##*/}; locking API self-tests: $(lst_result "$out/$arm.log")" | tee -a "$out/meta"
done
touch "$out/baseline.outcomes" "$out/patched.outcomes"
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
