#!/usr/bin/env bash
# selftests-bpf.sh RESULTS_DIR BASE_KERNEL PATCHED_KERNEL - issue 42: the
# bpf subsystem's own tests on the paths folio-pool changes, on both arms:
#   test_verifier (3/9 moves the verifier's stack-state nodes), all of it
#   test_maps' map_tests/ batch-op tests (5/9 moves generic_map_update_batch's
#   key/value buffers): array, htab, lpm_trie, map-in-map array and hash
# built from the pinned tree by scripts/selftests-bpf-build.sh (cached under
# $FB_CACHE/selftests-bpf), one icount TCG guest per arm, the two at once.
# Asserts: both ran; every test's outcome (OK/FAIL/SKIP) is the same on both
# arms (a patched-only failure is named); the five batch-op tests pass on
# both.  The perf flavour has no CONFIG_MODULES: no bpf_testmod.ko, so the
# test_verifier tests that call its kfuncs fail on both arms alike
# (reports/selftests/bpf.md; the full suites: scripts/studies/selftests-bpf.sh).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}" || exit 2
res=$1 base=$2 patched=$3
fb=$PWD/foliobench
drv=tests/guest/selftests-bpf
. tests/guest/lib.sh
s=$SECONDS
if ! bin=$(scripts/selftests-bpf-build.sh 2>"$res/selftests-bpf-build.log"); then
	nok "bpf selftests (test_verifier, test_maps) build from the pinned tree"
	tail -10 "$res/selftests-bpf-build.log" | sed 's/^/#   /'
	exit 0
fi
ok "bpf selftests (test_verifier, test_maps) build from the pinned tree" \
	"($(cat "$bin/build-seconds")s when built, $((SECONDS - s))s now)"
pids=()
for arm in baseline patched; do
	k=$base
	[ $arm = patched ] && k=$patched
	mkdir -p "$res/bpf-$arm"
	"$fb" vm --clock icount --timeout 2400 --kernel "$k" --results "$res/bpf-$arm" \
		--log "$res/bpf-$arm/console.log" -- "$drv/in-guest.sh" "$bin" "$res/bpf-$arm" quick \
		>"$res/bpf-$arm/vm.out" 2>&1 &
	pids+=($!)
done
for i in 0 1; do
	wait "${pids[$i]}"
	echo $? >"$res/bpf-$([ "$i" = 0 ] && echo baseline || echo patched)/vm.rc"
done
for arm in baseline patched; do
	d=$res/bpf-$arm
	rc=$(cat "$d/vm.rc")
	t "bpf selftests ($arm): guest ran them, no splat (vm rc=$rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || tail -5 "$d/vm.out" | sed 's/^/#   /'
	# the patched arm ran 3/9's and 5/9's paths: their switches exist and are on
	if [ $arm = patched ] && grep -q '^0003-' kernel-patches/folio-pool/series &&
		grep -q '^0005-' kernel-patches/folio-pool/series; then
		t "bpf selftests (patched): bpf.verifier_folio_pool and bpf.map_batch_scratchpad on ($(tr '\n' ' ' <"$d/params"))" \
			bash -c "grep -qx 'verifier_folio_pool=Y' '$d/params' && grep -qx 'map_batch_scratchpad=Y' '$d/params'"
	fi
	"$drv/outcomes.sh" verifier "$d/test_verifier.out" >"$d/test_verifier.tsv"
	"$drv/outcomes.sh" maps "$d/test_maps_each.out" >"$d/test_maps_each.tsv"
	# its own summary = the per-test lines counted here, and hundreds of them
	sum=$(grep '^Summary:' "$d/test_verifier.out" | tail -1)
	got=$(printf 'Summary: %d PASSED, %d SKIPPED, %d FAILED' \
		"$(grep -c '	OK	' "$d/test_verifier.tsv")" \
		"$(grep -c '	SKIP	' "$d/test_verifier.tsv")" \
		"$(grep -c '	FAIL	' "$d/test_verifier.tsv")")
	n=$(wc -l <"$d/test_verifier.tsv")
	t "test_verifier ($arm) ran to its summary, which counts its $n result lines (${sum:-no summary})" \
		bash -c "[ '$sum' = '$got' ] && [ $n -ge 700 ]"
	for b in array_map_batch_ops htab_map_batch_ops lpm_trie_map_batch_ops \
		map_in_map_batch_ops_array map_in_map_batch_ops_hash; do
		t "test_maps $b ($arm) passes" grep -qP "^#[0-9]+\tOK\t$b\$" "$d/test_maps_each.tsv"
	done
done
for b in test_verifier test_maps_each; do
	diff=$(join -t $'\t' -a1 -a2 -e missing -o 0,1.2,2.2,1.3 \
		<(sort "$res/bpf-baseline/$b.tsv") <(sort "$res/bpf-patched/$b.tsv") |
		awk -F'\t' '$2 != $3')
	n=$(grep -c . <<<"$diff")
	t "$b: every test's outcome equal on baseline and patched ($(wc -l <"$res/bpf-patched/$b.tsv") results, $n differ)" \
		[ "$n" = 0 ]
	[ "$n" = 0 ] || awk -F'\t' '{ print "#   " $1 " " $4 ": baseline " $2 ", patched " $3 }' <<<"$diff" | head -20
done
