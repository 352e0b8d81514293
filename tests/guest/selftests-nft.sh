#!/usr/bin/env bash
# selftests-nft.sh RESULTS_DIR BASELINE_DIR PATCHED_DIR - the subsystems'
# own tests on both lockstat kernels (issue 42; reports/selftests/):
#   - lockdep's boot-time locking API self-tests (lib/locking-selftest.c,
#     CONFIG_DEBUG_LOCKING_API_SELFTESTS in configs/lockstat.config; the
#     code folio-pool 6/9-9/9 change): "Good, all N testcases passed" on
#     each arm's console, the same N on both;
#   - the netfilter selftests that drive nf_tables transactions and sets
#     (folio-pool 2/9 moves every nft_trans into a per-net scratchpad), of
#     the pinned tree, built with their own Makefile and run by the
#     kselftest runner in one boot per arm (configs/nftselftest.config):
#     nft_concat_range.sh's reported_issues group (set element inserts,
#     flushes, reloads, overlapping inserts and double creates, committed
#     and aborted in transactions, with packets matched against the sets)
#     and nft_meta.sh (a ruleset of named counters, packets counted): each
#     passes on both arms, and nothing splats (lockdep runs beside them).
#     The rest of the directory is too slow under TCG for make test (every
#     nft and ip command is an exec over 9p).
# The whole directory runs as a study: scripts/studies/selftests-nft.sh.
# tests/guest/run.sh runs it in the lockstat flavour (FB_LOCKSTAT).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
. tests/guest/lib.sh
. scripts/lib/nft-selftests.sh
declare -A k=([baseline]=$2 [patched]=$3) rc
tests=(nft_concat_range.sh nft_meta.sh)

if ! dir=$(nst_build "$res/nft-selftests"); then
	nok "netfilter selftests build (kselftest install of net/netfilter; $res/nft-selftests/build.log)"
	exit 0
fi
ok "netfilter selftests build (kselftest install of net/netfilter)"
# Both arms at once: the same host load on both, half the wall time.
for arm in baseline patched; do
	NST_ENV="NFT_CONCAT_RANGE_TESTS=reported_issues" \
		nst_run "${k[$arm]}" "$dir" "$res/nft-$arm" 600 "${tests[@]}" &
	eval "pid_$arm=$!"
done
# shellcheck disable=SC2154
wait "$pid_baseline"; rc[baseline]=$?
# shellcheck disable=SC2154
wait "$pid_patched"; rc[patched]=$?

declare -A lst
for arm in baseline patched; do
	lst[$arm]=$(lst_result "$res/nft-$arm.log")
	t "$arm lockstat: locking API self-tests at boot: ${lst[$arm]}" \
		bash -c "[[ '${lst[$arm]}' == passed\ [1-9]* ]]"
	t "$arm lockstat: netfilter selftests boot without splat or timeout (vm rc=${rc[$arm]})" \
		test "${rc[$arm]}" = 0
done
t "locking API self-tests: the same count on both arms (${lst[baseline]} / ${lst[patched]})" \
	test "${lst[baseline]}" = "${lst[patched]}"
for arm in baseline patched; do
	nst_outcomes "$res/nft-$arm" >"$res/nft-$arm.outcomes"
done
for tst in "${tests[@]}"; do
	b=$(awk -v n="$tst" '$1 == n { print $2 }' "$res/nft-baseline.outcomes")
	p=$(awk -v n="$tst" '$1 == n { print $2 }' "$res/nft-patched.outcomes")
	t "netfilter selftest $tst: baseline ${b:-not run}, patched ${p:-not run}, passes on both" \
		test "${b:-}" = pass -a "${p:-}" = pass
	if [ "${b:-}" != pass ] || [ "${p:-}" != pass ]; then
		grep -a -h -E 'FAIL|SKIP|ERROR' "$res/nft-baseline.d/$tst" "$res/nft-patched.d/$tst" 2>/dev/null |
			head -6 | sed 's/^/#   /'
	fi
done
