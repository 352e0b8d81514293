#!/usr/bin/env bash
# history-test.sh - `foliobench history` end to end on rounds archived in
# reports/gate/data (real guest rounds, so this runs on a fresh clone
# without guests): import twice, report, export, and the history gate on
# an A/A run (passes) and an injected-regression run (fails).
set -uo pipefail
. "$(dirname "$0")/lib.sh" history
db=$tmp/h.db
data=reports/gate/data

t "history --help" bash -c "$fb history --help >/dev/null"
t "history is listed by foliobench --help" bash -c "$fb --help | grep -q '^  history '"
out=$($fb history add --db "$db" 2>&1); rc=$?
t "history add without a path: exit 2, one line" test "$rc" = 2 -a "$(echo "$out" | wc -l)" = 1
out=$($fb history list --db "$tmp/none.db" 2>&1); rc=$?
t "history list on a missing DB: exit 2, one line" test "$rc" = 2 -a "$(echo "$out" | wc -l)" = 1
t "no DB file is created by a reader" test ! -e "$tmp/none.db"

out=$($fb history add --db "$db" "$data/aa-1" 2>&1); rc=$?
t "add an A/A ab directory: $out" test "$rc" = 0 -a "$out" = "history: 20 rounds added, 0 already stored ($db)"
out=$($fb history add --db "$db" "$data/aa-1" 2>&1)
t "adding it again: $out" test "$out" = "history: 0 rounds added, 20 already stored ($db)"
t "list shows 20 rounds" test "$($fb history list --db "$db" | tail -1)" = "20 rounds"

out=$($fb history gate --db "$db" "$data/aa-2"); rc=$?
t "history gate: a second A/A run passes (rc $rc)" test "$rc" = 0
out=$($fb history gate --db "$db" "$data/reg-1"); rc=$?
t "history gate: the 150 ns injected run fails: $out" \
	bash -c "[ $rc = 1 ] && echo '$out' | grep -q 'FAIL: func:nft_trans_alloc:p50 (arm patched) starts a +'"
out=$($fb history gate --db "$db" "$tmp" 2>&1); rc=$?
t "history gate on a directory without rounds: exit 2, one line" \
	test "$rc" = 2 -a "$(echo "$out" | wc -l)" = 1

$fb history add --db "$db" "$data/reg-1" >/dev/null
$fb history report --db "$db" --out "$tmp/rep" >"$tmp/rep.out"; rc=$?
t "history report exits 0" test "$rc" = 0
nseries=$(grep -c '^<h3 id=' "$tmp/rep/history.html")
t "report: one inline SVG per series ($nseries)" \
	test "$nseries" -gt 0 -a "$(grep -c '^<svg ' "$tmp/rep/history.html")" = "$nseries"
t "report: no external resources" bash -c "! grep -qE '(src|href)=\"(http|//)' '$tmp/rep/history.html'"
t "report: markdown has the change point and series tables" \
	bash -c "grep -q '^## Change points' '$tmp/rep/history.md' && grep -q '^## Series' '$tmp/rep/history.md'"
t "report: the injected step (aa-1 then reg-1) is a change point at a kernel change" \
	grep -q '^| `func:nft_trans_alloc:p50` | patched | - | #1[0-3] | .* | patched 328a85c41ecc |$' \
	"$tmp/rep/history.md"
$fb history add --db "$db" "$data/aa-2" "$data/reg-2" >/dev/null
rows=$($fb history export --db "$db" --format csv --metric 'workload:nft:wall' | wc -l)
t "export csv: a header and one line per round's wall time ($rows)" test "$rows" = 81
t "export bmf is JSON with the nft wall time" \
	bash -c "$fb history export --db '$db' --format bmf | jq -e '.[\"patched/workload:nft\"].wall.value > 0' >/dev/null"
