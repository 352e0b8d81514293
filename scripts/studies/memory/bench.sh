#!/usr/bin/env bash
# scripts/studies/memory/bench.sh [FB...] - peak RSS and wall time of reading a
# bucket-heavy results file, against its size (1, 8, 33, 50 MB, and 50 MB
# with 60 probes, which must be refused), for each foliobench binary given
# (default ./foliobench).  Files come from make-round.sh into a temporary
# directory, removed after.  Prints a markdown table (reports/memory/README.md).
#
# Measured: `history add --db NEW.db FILE` (parse, metrics, one SQLite
# insert) and `compare FILE ROUND` (parse both, the comparison), each with
# /usr/bin/time -f '%M %e'.
set -euo pipefail
cd "$(dirname "$0")/../../.."
fbs=("${@:-./foliobench}")
tmp=$(mktemp -d /tmp/fb-membench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
small=reports/gate/data/aa-1/baseline/round-1.json
echo "| binary | file | size (MB) | command | exit | peak RSS (MB) | RSS / size | wall (s) |"
echo "|---|---|---:|---|---:|---:|---:|---:|"
for spec in 1 8 33 50 50:60; do
	mb=${spec%%:*}; probes=0
	[ "$spec" != "$mb" ] && probes=${spec#*:}
	f=$tmp/round-$mb-$probes.json
	scripts/studies/memory/make-round.sh "$mb" "$f" "$probes"
	size=$(stat -c %s "$f")
	for fb in "${fbs[@]}"; do
		for cmd in "history add" compare; do
			rm -f "$tmp"/h.db*
			if [ "$cmd" = compare ]; then args=(compare "$f" "$small")
			else args=(history add --db "$tmp/h.db" "$f"); fi
			rc=0
			/usr/bin/time -o "$tmp/t" -f '%M %e' "$fb" "${args[@]}" >/dev/null 2>&1 || rc=$?
			read -r kb wall < <(tail -1 "$tmp/t")
			desc="$mb MB"
			[ "$probes" = 0 ] || desc+=", $probes probes"
			printf '| %s | %s | %.1f | %s | %s | %.0f | %.1fx | %s |\n' "$fb" "$desc" \
				"$(echo "$size / 1000000" | bc -l)" "$cmd" "$rc" \
				"$(echo "$kb / 1024" | bc -l)" "$(echo "$kb * 1024 / $size" | bc -l)" "$wall"
		done
	done
	rm -f "$f"
done
