#!/usr/bin/env bash
# clock-test.sh RESULTS_DIR - instruction-paced guests (--clock icount).
#
# 1. Three icount boots of the baseline perf kernel running the nft
#    workload: nft_trans_alloc's per-call p50 must be the same in all three
#    and its mean within 0.5% (host-clock TCG: 2-30% from boot to boot).
#    The results must say they are icount results.
# 2. The testing `regress` kernel with a small injected cost
#    (nf_tables.foliobench_inject_loops=$FB_CLOCK_TEST_LOOPS, about +2% of
#    the call; reports/clock/ calibrates it) against the baseline, 3 rounds
#    each in icount mode: the gate must fail naming func:nft_trans_alloc:p50.
# 3. compare refuses to put a host-clock round beside an icount round.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
loops=${FB_CLOCK_TEST_LOOPS:-10}

base=$("$fb" kernel build --arm baseline --flavour perf 2>/dev/null | tail -1)
probes=(--workload nft --probes 'nft_trans_alloc*')

for i in 1 2 3; do
	"$fb" vm --clock icount --kernel "$base" --results "$res" --timeout 900 \
		--log "$res/clock-$i.log" -- \
		"$fb" run "${probes[@]}" --out "$res/clock-$i.json" >"$res/clock-$i.out" 2>&1
	t "icount boot $i runs nft (exit $?)" test -s "$res/clock-$i.json"
done
mode=$(jq -r '.host.clock + "/" + (.host.icount_shift|tostring) + "/" + (.host.ncpus|tostring)' \
	"$res"/clock-[123].json 2>/dev/null | sort -u | tr '\n' ' ')
t "results record the clock: icount, shift 0, 1 vCPU ($mode)" test "$mode" = "icount/0/1 "

# p50 and mean of nft_trans_alloc's latency, from its histogram, per boot
stat() {	# stat FILE p50|mean
	"$fb" compare "$1" "$1" --format csv 2>/dev/null |
		awk -F, -v m="$2" '$2 == "nft_trans_alloc" && $3 == m { print $4; exit }'
}
p50s=() means=()
for i in 1 2 3; do
	p50s+=("$(stat "$res/clock-$i.json" p50)")
	means+=("$(stat "$res/clock-$i.json" mean)")
done
echo "# nft_trans_alloc p50 per boot: ${p50s[*]}; mean: ${means[*]}"
t "nft_trans_alloc p50 identical in three icount boots (${p50s[*]})" \
	bash -c "[ -n '${p50s[0]}' ] && [ '${p50s[0]}' = '${p50s[1]}' ] && [ '${p50s[1]}' = '${p50s[2]}' ]"
spread=$(printf '%s\n' "${means[@]}" | awk 'NF { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
	END { if (n == 3 && lo > 0) printf "%.4f", (hi - lo) / lo * 100; else print "nan" }')
t "nft_trans_alloc mean within 0.5% across the boots (spread ${spread}%)" \
	awk -v s="$spread" 'BEGIN { exit !(s != "nan" && s + 0 <= 0.5) }'

reg=$("$fb" kernel build --arm regress --flavour perf 2>/dev/null | tail -1)
rg=$res/clock-gate
"$fb" ab --clock icount --baseline baseline --patched "$reg" --rounds 3 "${probes[@]}" \
	--append "nf_tables.foliobench_inject_ns=0 nf_tables.foliobench_inject_loops=$loops" \
	--out "$rg" >"$res/clock-gate.log" 2>&1
t "ab --clock icount baseline vs regress (loops=$loops), 3 rounds: exit $?" \
	test "$(find "$rg" -name 'round-*.json' | wc -l)" = 6
"$fb" gate "$rg" >"$res/clock-gate.out" 2>&1
rc=$?
sed 's/^/#   /' "$res/clock-gate.out"
t "icount gate fails (exit $rc) on the small injected cost at 3 rounds" test $rc = 1
t "icount gate names func:nft_trans_alloc:p50" \
	grep -q '^REGRESSED *func:nft_trans_alloc:p50' "$res/clock-gate.out"

# the same round relabelled as a host-clock run: compare must refuse the pair
jq '.host.clock = "host" | .host.icount_shift = 0' "$res/clock-1.json" >"$res/clock-host.json"
"$fb" compare "$res/clock-host.json" "$res/clock-2.json" >"$res/clock-mix.out" 2>&1
rc=$?
t "compare refuses host-clock vs icount rounds (exit $rc, want 2)" \
	bash -c "[ $rc = 2 ] && grep -q 'clock' '$res/clock-mix.out'"
