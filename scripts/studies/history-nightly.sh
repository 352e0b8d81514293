#!/usr/bin/env bash
# history-nightly.sh - a synthetic nightly series: one `ab` run per "night"
# of the baseline kernel against the regress kernel, whose injected cost
# (nf_tables.foliobench_inject_loops) follows a schedule with steps at known
# nights; each night is gated against the history first, then added to it.
#
#   scripts/studies/history-nightly.sh OUT ROUNDS LOOPS...
#       OUT     directory for the ab runs and OUT/history.db
#       ROUNDS  boots per arm per night
#       LOOPS   injected loops per night, e.g. 0 0 0 0 35 35 35 35 0 0 0 0
#               (35 loops: +5% on nft_trans_alloc p50, reports/gate/README.md)
#
# Each night's commit in the DB is "loops-N", so the report's "last before /
# first after" columns name the injected cost on either side of a step.
# Prints one line per night: the loops and the history gate's line.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { echo "usage: $0 OUT ROUNDS LOOPS..." >&2; exit 2; }
out=$1 rounds=$2
shift 2
fb=./foliobench
db=$out/history.db
mkdir -p "$out"
night=0
for loops in "$@"; do
	night=$((night + 1))
	dir=$out/night-$(printf %02d $night)
	if [ ! -e "$dir/ab.json" ] &&
	   ! "$fb" ab --baseline baseline --patched regress --workload nft --rounds "$rounds" \
		--probes 'nft_trans_alloc*' --probes nf_tables_trans_destroy_work \
		--append "nf_tables.foliobench_inject_ns=0 nf_tables.foliobench_inject_loops=$loops" \
		--out "$dir" >"$dir.log" 2>&1; then
		printf 'night %02d loops %-3s ab failed (%s)\n' "$night" "$loops" "$dir.log"
		continue
	fi
	if [ -e "$db" ]; then
		line=$("$fb" history gate --db "$db" "$dir" 2>&1) && rc=0 || rc=$?
	else
		line="(first night: no history)" rc=-
	fi
	printf 'night %02d loops %-3s %s %s\n' "$night" "$loops" "$rc" "$line"
	"$fb" history add --db "$db" --commit "loops-$loops" "$dir" >/dev/null
done
"$fb" history report --db "$db" --out "$out" --arm patched >/dev/null
echo "report: $out/history.md $out/history.html"
