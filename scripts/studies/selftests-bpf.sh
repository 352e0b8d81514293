#!/usr/bin/env bash
# selftests-bpf.sh [OUTDIR] - issue 42: the bpf subsystem's own suites,
# test_verifier and test_maps of the pinned 7.3.4 tree, in full, on the
# baseline and the patched perf kernels: one icount TCG guest per arm, the
# two at once.  Builds them first (scripts/selftests-bpf-build.sh, cached).
# Writes OUTDIR/ARM/*.out|*.rc (tests/guest/selftests-bpf/in-guest.sh) and
# OUTDIR/summary.txt: per binary and arm passed/failed/skipped, then every
# test whose outcome differs between the arms.  Exit 0 when the outcomes
# are equal, 1 when they differ or a guest failed.  reports/selftests/bpf.md.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
fb=$PWD/foliobench
out=${1:-results/selftests-bpf-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
drv=tests/guest/selftests-bpf
commit=$(git rev-parse --short HEAD)
s=$SECONDS
bin=$(scripts/selftests-bpf-build.sh) || exit 1
echo "selftests-bpf: binaries $bin ($(cat "$bin/build-seconds")s when built, $((SECONDS - s))s now)"
pids=()
for arm in baseline patched; do
	k=$("$fb" kernel build --arm $arm --flavour perf 2>"$out/build-$arm.log" | tail -1)
	[ -f "$k/bzImage" ] || { echo "selftests-bpf: no $arm perf kernel (log $out/build-$arm.log)" >&2; exit 1; }
	mkdir -p "$out/$arm"
	echo "$k" >"$out/$arm/kernel"
	"$fb" vm --clock icount --timeout 5400 --kernel "$k" --results "$out/$arm" \
		--log "$out/$arm/console.log" -- "$drv/in-guest.sh" "$bin" "$out/$arm" full \
		>"$out/$arm/vm.out" 2>&1 &
	pids+=($!)
done
rc=0
for i in 0 1; do
	wait "${pids[$i]}" || rc=1
done
{
	echo "# bpf selftests, $(date -u +%FT%TZ), commit $commit, binaries $bin"
	for arm in baseline patched; do
		echo "## $arm: $(cat "$out/$arm/kernel") ($(cat "$out/$arm/uname" 2>/dev/null))," \
			"unprivileged_bpf_disabled=$(cat "$out/$arm/unprivileged_bpf_disabled" 2>/dev/null)"
		tail -1 "$out/$arm/vm.out"
		for b in test_verifier test_maps test_maps_each; do
			echo "$b: exit $(cat "$out/$arm/$b.rc" 2>/dev/null || echo 'not run')," \
				"$(grep -E '^(Summary|test_maps):' "$out/$arm/$b.out" 2>/dev/null | tail -1 || true)"
		done
		"$drv/outcomes.sh" verifier "$out/$arm/test_verifier.out" >"$out/$arm/test_verifier.tsv"
		"$drv/outcomes.sh" maps "$out/$arm/test_maps_each.out" >"$out/$arm/test_maps_each.tsv"
		for b in test_verifier test_maps_each; do
			echo "$b outcomes: $(cut -f2 "$out/$arm/$b.tsv" | sort | uniq -c | tr -s ' \n' ' ')"
		done
	done
	echo "## differences (ID, baseline, patched, name)"
	for b in test_verifier test_maps_each; do
		join -t $'\t' -a1 -a2 -e missing -o 0,1.2,2.2,1.3 \
			<(sort "$out/baseline/$b.tsv") <(sort "$out/patched/$b.tsv") |
			awk -F'\t' -v b=$b '$2 != $3 { print b ": " $0; n++ } END { print b ": " n + 0 " differ" }'
	done
} >"$out/summary.txt"
cat "$out/summary.txt"
[ "$(grep -cE '^test_(verifier|maps_each): 0 differ$' "$out/summary.txt")" = 2 ] || rc=1
exit $rc
