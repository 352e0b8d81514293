#!/usr/bin/env bash
# measure-nft.sh [ROUNDS] - the folio-pool seed's first table, measured here.
#
# Three arms, interleaved round by round, one fresh guest boot each:
#   baseline        baseline kernel (perf flavour)
#   scratchpad-on   patched kernel, nf_tables.trans_scratchpad=1
#   scratchpad-off  patched kernel, nf_tables.trans_scratchpad=0 (SLUB)
# Each boot runs `foliobench run --workload nft` (10,025 descriptors, 5
# commit passes + aborts) with only the nft probes attached, so no other
# probe adds to the numbers.  Results: $OUT/<arm>/round-<i>.json, then
# `foliobench compare` tables in $OUT/*.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
out=${OUT:-results/nft-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
fb=./foliobench
base=$($fb kernel build --arm baseline --flavour perf | tail -1)
pat=$($fb kernel build --arm patched --flavour perf | tail -1)
echo "measure-nft: baseline $base, patched $pat, $rounds rounds -> $out" >&2

for i in $(seq 1 "$rounds"); do
	for arm in baseline scratchpad-on scratchpad-off; do
		case $arm in
		baseline) k=$base ap="" ;;
		scratchpad-on) k=$pat ap="nf_tables.trans_scratchpad=1" ;;
		scratchpad-off) k=$pat ap="nf_tables.trans_scratchpad=0" ;;
		esac
		mkdir -p "$out/$arm"
		echo "measure-nft: round $i/$rounds $arm" >&2
		$fb vm --kernel "$k" --results "$out" --log "$out/$arm/console-$i.log" \
			--append "foliobench.arm=$arm $ap" -- \
			./foliobench run --workload nft --label "$arm" \
			--probes 'nft_trans_alloc*' --probes nf_tables_trans_destroy_work \
			--out "$out/$arm/round-$i.json" >"$out/$arm/run-$i.out" 2>&1
	done
done
$fb compare "$out/baseline" "$out/scratchpad-on" --format md >"$out/baseline-vs-scratchpad-on.md"
$fb compare "$out/scratchpad-off" "$out/scratchpad-on" --format md >"$out/scratchpad-off-vs-on.md"
$fb compare "$out/baseline" "$out/scratchpad-off" --format md >"$out/baseline-vs-scratchpad-off.md"
echo "$out"
