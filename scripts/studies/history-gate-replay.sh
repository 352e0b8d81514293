#!/usr/bin/env bash
# history-gate-replay.sh - the history gate on archived ab runs.
#
#   scripts/studies/history-gate-replay.sh [--trials | --as-given [--report DIR]] AB_DIR...
#                                                          (or archives: *.tar.xz)
#
# Default: replay the runs as a nightly CI would see them: in start order,
# `history gate` each run against the history of the runs before it, then
# `history add` it.
# --as-given: the same in the order given, and series in the order the
# rounds were added (`--order added`), as if each run were one night;
# --report DIR then writes the report of the resulting history there.
# --trials: runs named aa-* are A/A (no injected cost), reg-* carry one.
# Each reg-* run is gated against a history of all the aa-* runs (does a
# regression landing after clean nights fail?), each aa-* run against a
# history of the other aa-* runs (false alarms).
#
# Prints one line per gate: the run, the patched arm's kernel and injected
# cost (from its cmdline), the exit status and the gate's line; then the
# counts.  DBs are temporary.  Options for the gate go in HISTORY_GATE_OPTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
fb=$PWD/foliobench
tmp=$(mktemp -d /tmp/fb-history-replay.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/replay.db

trials=0 given=0 report=
case ${1:-} in
--trials) trials=1; shift ;;
--as-given) given=1; shift ;;
esac
if [ $given = 1 ] && [ "${1:-}" = --report ]; then
	report=$2
	shift 2
fi
order=()
[ $given = 1 ] && order=(--order added)
dirs=()
for a in "$@"; do
	if [[ $a == *.tar.xz ]]; then
		mkdir -p "$tmp/x/$a"
		tar -xJf "$a" -C "$tmp/x/$a"
		while IFS= read -r d; do dirs+=("$(dirname "$d")"); done \
			< <(find "$tmp/x/$a" -name ab.json)
	else
		dirs+=("$a")
	fi
done
# start order, from each run's ab.json
[ $given = 1 ] || mapfile -t dirs < <(for d in "${dirs[@]}"; do
	printf '%s\t%s\n' "$(jq -r .started "$d/ab.json")" "$d"; done | sort | cut -f2)

pass=0 fail=0
# gate RUN DB: one line, counts
gate() {
	local d=$1 gdb=$2 name first inject kernel line rc
	name=${d#"$tmp/x/"}
	first=$(find "$d/patched" -name 'round-*.json' | sort | head -1)
	inject=$(jq -r '.host.cmdline' "$first" | { grep -oE 'foliobench_inject_[a-z]+=[0-9]+' ||
		true; } | tr '\n' ' ')
	kernel=$(jq -r '.host.build_id[0:12]' "$first")
	if [ -e "$gdb" ]; then
		# shellcheck disable=SC2086
		line=$("$fb" history gate --db "$gdb" "${order[@]}" ${HISTORY_GATE_OPTS:-} "$d" 2>&1) &&
			rc=0 || rc=$?
	else
		line="(first run: no history)" rc=-
	fi
	printf '%-40s %-12s %-34s %s %s\n' "$name" "$kernel" "${inject:--}" "$rc" "$line"
	[ "$rc" = 0 ] && pass=$((pass + 1))
	[ "$rc" = 1 ] && fail=$((fail + 1))
	return 0
}

if [ $trials = 0 ]; then
	for d in "${dirs[@]}"; do
		gate "$d" "$db"
		"$fb" history add --db "$db" "$d" >/dev/null
	done
	echo "${#dirs[@]} runs: $pass passed, $fail failed the history gate"
	if [ -n "$report" ]; then
		"$fb" history report --db "$db" "${order[@]}" --arm patched --out "$report"
	fi
	exit 0
fi
aa=() reg=()
for d in "${dirs[@]}"; do
	case $(basename "$d") in
	aa-*) aa+=("$d") ;;
	reg-*) reg+=("$d") ;;
	esac
done
"$fb" history add --db "$db" "${aa[@]}" >/dev/null
for d in "${reg[@]}"; do
	gate "$d" "$db"
done
echo "injected: ${#reg[@]} runs against ${#aa[@]} A/A runs of history: $fail failed (caught)," \
	"$pass passed"
pass=0 fail=0
for d in "${aa[@]}"; do
	rm -f "$tmp/loo.db"
	others=()
	for o in "${aa[@]}"; do [ "$o" = "$d" ] || others+=("$o"); done
	"$fb" history add --db "$tmp/loo.db" "${others[@]}" >/dev/null
	gate "$d" "$tmp/loo.db"
done
echo "A/A: ${#aa[@]} runs, each against the other $((${#aa[@]} - 1)): $fail failed" \
	"(false alarms), $pass passed"
