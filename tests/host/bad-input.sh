#!/usr/bin/env bash
# tests/host/bad-input.sh - hostile input, one row per case, from tests/host/bad-input.tsv.
#
# Each row: WHEN, COMMAND, ID, SETUP, RUN, RC, MESSAGE (tab-separated).
#   WHEN     now     runs today
#            rounds  needs compare/report/gate to load sides with model/rounds.c
#            bmf     needs gate to keep its verdict when --bmf cannot be written
#   SETUP    shell run in a fresh directory first (helpers below)
#   RUN      the command; $FB is ./foliobench
#   RC       its expected exit status
#   MESSAGE  an extended regex its output (stdout + stderr) must match
# A row with RC 2 must also print exactly one "foliobench: error:" line (a
# COMMAND under scripts/: exactly one line of output), and
# a `run` row refused with 2 must not have attached anything.
# Rows whose WHEN is not "now" print "# skip"; FB_BADINPUT_ALL=1 runs them
# too (they fail until the readers use model/rounds.c / gate keeps its verdict).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
export FB=$PWD/foliobench
table=${1:-tests/host/bad-input.tsv}
top=$(mktemp -d /tmp/fb-bad-input.XXXXXX)
trap 'rm -rf "$top"' EXIT

# round, arm, edit, shard: synthetic results and shard directories
. tests/host/lib-rounds.sh

pass=0; fail=0; skip=0
while IFS=$'\t' read -r when cmd id setup run rc msg; do
	[[ -z "$when" || "$when" == \#* ]] && continue
	if [ "$when" != now ] && [ -z "${FB_BADINPUT_ALL:-}" ]; then
		echo "# skip - bad input $cmd $id (needs: $when)"
		skip=$((skip + 1))
		continue
	fi
	d=$top/$cmd-$id
	mkdir -p "$d"
	out=$(cd "$d" && { [ "$setup" = - ] || bash -c "$setup" </dev/null; } >/dev/null 2>&1 &&
	      timeout 30 bash -c "$run" 2>&1 </dev/null)
	got=$?
	why=""
	[ "$got" = "$rc" ] || why="exit $got, want $rc"
	[ -z "$why" ] && ! grep -qE -- "$msg" <<<"$out" && why="no /$msg/ in the output"
	if [ -z "$why" ] && [ "$rc" = 2 ] && [[ $cmd == scripts/* ]]; then
		n=$(grep -c . <<<"$out")
		[ "$n" = 1 ] || why="$n lines of output, want 1"
	elif [ -z "$why" ] && [ "$rc" = 2 ]; then
		n=$(grep -c 'foliobench: error:' <<<"$out")
		[ "$n" = 1 ] || why="$n error lines, want 1"
		[ "$cmd" = run ] && grep -q 'probes attached' <<<"$out" && why="attached before refusing"
	fi
	line=$(grep -m1 'foliobench: error:' <<<"$out" || grep -m1 -E -- "$msg" <<<"$out")
	if [ -z "$why" ]; then
		echo "ok - bad input $cmd $id: exit $got: ${line:0:150}"
		pass=$((pass + 1))
	else
		echo "not ok - bad input $cmd $id: $why"
		head -5 <<<"$out" | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
done <"$table"
echo "# bad input: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
