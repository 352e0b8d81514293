#!/usr/bin/env bash
# report-test.sh - `foliobench report` on real archived rounds
# (reports/main-job/rounds.tar.xz, so this runs without guests): writes
# next to its input, and the HTML workload table lists every op count of
# the rounds in a cell that wraps (td.ops) instead of running off the page.
set -uo pipefail
. "$(dirname "$0")/lib.sh" report

tar -C "$tmp" -xf reports/main-job/rounds.tar.xz
dir=$tmp/main-job
$fb report "$dir" >"$tmp/out" 2>&1
rc=$?
t "report on the main job's rounds: exit $rc, report.md and report.html in DIR" \
	bash -c "[ $rc = 0 ] && [ -s '$dir/report.md' ] && [ -s '$dir/report.html' ]"
ops=$(jq -r '.workloads[]?.ops // {} | keys[]' "$dir"/baseline/round-1.json | sort -u)
n=$(echo "$ops" | grep -c .)
cells=$(grep -o '<td class="l ops">[^<]*' "$dir/report.html")
miss=$(for o in $ops; do grep -q "$o=" <<<"$cells" || echo "$o"; done | tr "\n" " ")
t "HTML ops cells list all $n op counts of the rounds (missing: ${miss:-none})" \
	test "$n" -gt 5 -a -z "${miss// /}"
t "HTML ops cells wrap (td.ops white-space:normal)" \
	grep -q 'td.ops{white-space:normal' "$dir/report.html"
