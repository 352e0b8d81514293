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
#     nft_concat_range.sh's reported_issues cases that Debian 12's nft
#     1.0.6 can run (NFT_CONCAT_RANGE_BUGS, nst_concat_bugs): a set
#     flushed and re-filled 10 times, an element created twice in one
#     transaction (must abort) and flushed and re-created in one (must
#     commit), overlapping ranges rejected, 200 elements loaded in one
#     transaction, then flushed and reloaded in one (load_flush_load4's
#     10,752 elements took 190 s here: not in make test); and
#     nft_meta.sh (a table of named counters loaded in one transaction,
#     packets counted).  Each passes on both arms, every chosen concat case says
#     [ OK ] (none skipped), and nothing splats (lockdep runs beside them).
#     The other three cases read counters with `nft reset element`, which
#     nft 1.0.6 cannot parse (reports/selftests/nft.md).
# The whole directory runs as a study: scripts/studies/selftests-nft.sh.
# tests/guest/run.sh runs it in the lockstat flavour (FB_LOCKSTAT).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
. tests/guest/lib.sh
. scripts/lib/nft-selftests.sh
declare -A k=([baseline]=$2 [patched]=$3) rc
tests=(nft_concat_range.sh nft_meta.sh)
bugs="flush_remove_add doublecreate insert_overlap load_flush_load8"

if ! dir=$(nst_build "$res/nft-selftests"); then
	nok "netfilter selftests build (kselftest install of net/netfilter; $res/nft-selftests/build.log)"
	exit 0
fi
ok "netfilter selftests build (kselftest install of net/netfilter)"
t "nft_concat_range.sh takes NFT_CONCAT_RANGE_BUGS (the installed copy)" nst_concat_bugs "$dir"
# Both arms at once: the same host load on both, half the wall time.
for arm in baseline patched; do
	NST_ENV="NFT_CONCAT_RANGE_TESTS=reported_issues NFT_CONCAT_RANGE_BUGS='$bugs'" \
		nst_run "${k[$arm]}" "$dir" "$res/nft-$arm" 300 "${tests[@]}" &
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
	t "netfilter selftest $tst: the same outcome on both arms (baseline ${b:-not run}, patched ${p:-not run})" \
		test -n "${b:-}" -a "${b:-}" = "${p:-}"
	t "netfilter selftest $tst passes on both arms" test "${b:-}" = pass -a "${p:-}" = pass
	if [ "${b:-}" != pass ] || [ "${p:-}" != pass ]; then
		for arm in baseline patched; do
			grep -a -m2 -E 'FAIL|SKIP|ERROR|Error' "$res/nft-$arm.d/$tst" 2>/dev/null | sed "s/^/#   $arm: /"
		done
	fi
done
# each chosen case ran and passed: a case that skips would still let the
# script pass
n=$(echo "$bugs" | wc -w)
for arm in baseline patched; do
	c=$(grep -ac '\[ OK \]' "$res/nft-$arm.d/nft_concat_range.sh" 2>/dev/null)
	t "$arm: nft_concat_range.sh: all $n chosen reported_issues cases [ OK ] (${c:-0})" \
		test "${c:-0}" = "$n"
done
