#!/usr/bin/env bash
# history-test.sh - `foliobench history` end to end on rounds archived in
# reports/gate/data (real guest rounds, so this runs on a fresh clone
# without guests): import twice, report, export, and the history gate on
# an A/A run (passes) and an injected-regression run (fails); one series
# per probe method; 16 writers at once on a new, an existing and a schema-3
# file and a writer killed inside its transaction (sqlite3 CLI checks the
# file), a pretty-printed copy, nothing to check (exit 3), options before
# the subcommand, --version, and the results reader's memory bound
# (/usr/bin/time).
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
	bash -c "[ $rc = 1 ] && echo '$out' | grep -qF 'FAIL: func:nft_trans_alloc:p50 [fentry] (arm patched) starts a +'"
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
	grep -q '^| `func:nft_trans_alloc:p50` \[fentry\] | patched | - | #1[0-3] | .* | patched 328a85c41ecc |$' \
	"$tmp/rep/history.md"
$fb history add --db "$db" "$data/aa-2" "$data/reg-2" >/dev/null
rows=$($fb history export --db "$db" --format csv --metric 'workload:nft:wall' | wc -l)
t "export csv: a header and one line per round's wall time ($rows)" test "$rows" = 81
t "export bmf is JSON with the nft wall time" \
	bash -c "$fb history export --db '$db' --format bmf | jq -e '.[\"patched/workload:nft\"].wall.value > 0' >/dev/null"

# ---- one series per probe method ----
# reg-1 (the injected 150 ns) as if measured by fsession a year later: its
# function rows start new series, so the step is not compared across methods
mkdir -p "$tmp/fs"
cp -r "$data/reg-1/patched" "$data/reg-1/baseline" "$tmp/fs/"
sed -i -e 's/"method": *"fentry"/"method": "fsession"/' -e 's/"started": *"2026-/"started": "2027-/' \
	"$tmp"/fs/*/round-*.json
$fb history add --db "$tmp/m.db" "$data/aa-1" >/dev/null
out=$($fb history gate --db "$tmp/m.db" "$tmp/fs"); rc=$?
t "history gate: fsession rounds are not compared with the fentry history (rc $rc): $out" \
	bash -c "[ $rc = 0 ] && grep -q 'measured by a method new to the history' <<<'$out'"
$fb history add --db "$tmp/m.db" "$tmp/fs" >/dev/null
out=$($fb history list --db "$tmp/m.db" --series --arm patched --metric 'func:nft_trans_alloc:p50')
t "list --series: one series per method, named with it" \
	bash -c "grep -q '^func:nft_trans_alloc:p50 \[fentry\] .* 10 ns$' <<<'$out' &&
		 grep -q '^func:nft_trans_alloc:p50 \[fsession\] .* 10 ns$' <<<'$out'"
$fb history report --db "$tmp/m.db" --out "$tmp/mrep" --arm patched >/dev/null
t "report: both series, no change point between the methods" \
	bash -c "[ \$(grep -c '^| \`func:nft_trans_alloc:p50\` \[f[a-z]*\] | patched | - | 10 |' '$tmp/mrep/history.md') = 2 ] &&
		 ! grep -q '^| \`func:nft_trans_alloc:p50\` .* | #' '$tmp/mrep/history.md'"
t "export csv: the method is the last column" \
	bash -c "$fb history export --db '$tmp/m.db' --metric 'func:nft_trans_alloc:p50' | grep -q ',\"fsession\"$'"

# ---- issue 30: concurrent writers, content identity, nothing checked, options ----
# 16 writers at once: writer i adds group i and group i+1 of the 80 archived
# rounds (5 files a group), so every round is offered twice, concurrently.
mapfile -t files < <(find "$data"/aa-1 "$data"/aa-2 "$data"/reg-1 "$data"/reg-2 -name 'round-*.json' | sort)
stored() {	# the stored set, without the row ids the interleaving decides
	$fb history list --db "$1" | awk '{ $1 = ""; print }' | sort
	$fb history export --db "$1" --format csv | cut -d, -f1-4,6- | sort
}
parallel_adds() {	# DB LOGDIR: 16 writers at once; prints how many failed
	local db=$1 logs=$2 i pids=() bad=0
	mkdir -p "$logs"
	for ((i = 0; i < 16; i++)); do
		$fb history add --db "$db" "${files[@]:$((i * 5)):5}" \
			"${files[@]:$(((i + 1) % 16 * 5)):5}" >"$logs/$i.out" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || bad=$((bad + 1)); done
	echo "$bad"
}
$fb history add --db "$tmp/serial.db" "$data"/aa-1 "$data"/aa-2 "$data"/reg-1 "$data"/reg-2 >/dev/null
t "80 archived rounds to share among the writers (${#files[@]})" test "${#files[@]}" = 80
bad=$(parallel_adds "$tmp/par-new.db" "$tmp/par-new")
t "16 parallel adds on a new DB: all exit 0 ($bad failed)" test "$bad" = 0
t "16 parallel adds on a new DB: the stored set is the serial one" \
	diff <(stored "$tmp/serial.db") <(stored "$tmp/par-new.db")
t "16 parallel adds on a new DB: each round added once ($(cat "$tmp"/par-new/*.out | awk '{ s += $2 } END { print s }') added)" \
	test "$(cat "$tmp"/par-new/*.out | awk '{ s += $2 } END { print s }')" = 80
$fb history add --db "$tmp/par-old.db" "$data"/aa-1 >/dev/null
bad=$(parallel_adds "$tmp/par-old.db" "$tmp/par-old")
t "16 parallel adds on an existing DB: all exit 0 ($bad failed)" test "$bad" = 0
t "16 parallel adds on an existing DB: the stored set is the serial one" \
	diff <(stored "$tmp/serial.db") <(stored "$tmp/par-old.db")
# 16 writers at once on a schema-3 file: one migrates, the others find it done
$fb history add --db "$tmp/par-v3.db" "$data"/aa-1 >/dev/null
sqlite3 "$tmp/par-v3.db" "BEGIN; CREATE TABLE s3(round_id INTEGER NOT NULL REFERENCES rounds(id),
	metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL DEFAULT '',
	PRIMARY KEY(round_id, metric)) WITHOUT ROWID;
	INSERT INTO s3 SELECT round_id, metric, value, unit FROM samples; DROP TABLE samples;
	ALTER TABLE s3 RENAME TO samples; CREATE INDEX samples_by_metric ON samples(metric);
	PRAGMA user_version = 3; COMMIT"
bad=$(parallel_adds "$tmp/par-v3.db" "$tmp/par-v3")
t "16 parallel adds on a schema-3 DB: all exit 0 ($bad failed)" test "$bad" = 0
t "16 parallel adds on a schema-3 DB: migrated once ($(grep -l 'migrated schema 3 -> 4' "$tmp"/par-v3/*.out | wc -l))" \
	test "$(grep -l 'migrated schema 3 -> 4' "$tmp"/par-v3/*.out | wc -l)" = 1
t "16 parallel adds on a schema-3 DB: the stored set, methods included, is the serial one" \
	diff <(stored "$tmp/serial.db") <(stored "$tmp/par-v3.db")
t "no writer called a busy DB foreign" \
	bash -c "! grep -h 'not a foliobench' '$tmp'/par-new/*.out '$tmp'/par-old/*.out '$tmp'/par-v3/*.out"
t "the DB is in WAL mode" test "$(sqlite3 "$tmp/par-old.db" 'PRAGMA journal_mode')" = wal

# a writer that holds its transaction (FB_HISTORY_TEST_HOLD) makes the next one wait, not fail
cp "$tmp/serial.db" "$tmp/wait.db"
FB_HISTORY_TEST_HOLD=3 $fb history add --db "$tmp/wait.db" "$data"/aa-1 >/dev/null 2>"$tmp/hold.err" &
holder=$!
for ((i = 0; i < 300; i++)); do
	grep -q 'holding the transaction' "$tmp/hold.err" && break
	sleep 0.1
done
out=$($fb history add --db "$tmp/wait.db" "$data"/aa-2 2>&1); rc=$?
wait $holder
t "an add while another holds the DB waits for it: $out" test "$rc" = 0

# a writer killed inside its transaction leaves the DB consistent and writable
$fb history add --db "$tmp/kill.db" "$data"/aa-1 >/dev/null
FB_HISTORY_TEST_HOLD=120 $fb history add --db "$tmp/kill.db" "$data"/reg-1 2>"$tmp/kill.err" >/dev/null &
writer=$!
for ((i = 0; i < 300; i++)); do
	grep -q 'holding the transaction' "$tmp/kill.err" && break
	sleep 0.1
done
kill -9 "$writer"; wait "$writer" 2>/dev/null
t "the killed writer was inside its transaction" grep -q 'holding the transaction' "$tmp/kill.err"
t "after kill -9: PRAGMA integrity_check is ok" test "$(sqlite3 "$tmp/kill.db" 'PRAGMA integrity_check')" = ok
t "after kill -9: nothing of the killed add is stored" \
	test "$($fb history list --db "$tmp/kill.db" | tail -1)" = "20 rounds"
out=$($fb history add --db "$tmp/kill.db" "$data"/reg-1 2>&1); rc=$?
t "after kill -9: a later add works: $out" \
	test "$rc" = 0 -a "$out" = "history: 20 rounds added, 0 already stored ($tmp/kill.db)"

# a re-serialized copy of a round is the same round (compare's fb_round_same)
mkdir -p "$tmp/pretty"
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=2)' \
	"$data/aa-1/patched/round-1.json" "$tmp/pretty/round-1.json"
out=$($fb history add --db "$db" "$tmp/pretty" 2>&1)
t "a pretty-printed copy adds 0 rounds: $out" test "$out" = "history: 0 rounds added, 1 already stored ($db)"
sed -i '0,/"wall_ns": /s//"wall_ns": 1/' "$tmp/pretty/round-1.json"
out=$($fb history add --db "$tmp/serial.db" "$tmp/pretty" 2>&1)
t "a copy with other data is another round: $out" test "$out" = "history: 1 rounds added, 0 already stored ($tmp/serial.db)"

# nothing to check is not a pass
mkdir -p "$tmp/none"
$fb history add --db "$tmp/empty.db" "$tmp/none" >/dev/null
out=$($fb history gate --db "$tmp/empty.db" "$data/aa-2"); rc=$?
t "history gate on an empty history: exit 3 and why: $out" \
	bash -c "[ $rc = 3 ] && grep -q '^history: unknown: nothing checked' <<<'$out'"
out=$($fb history gate --db "$db" --min-size 1000 "$data/aa-2"); rc=$?
t "history gate with too little history for every series: exit 3" \
	bash -c "[ $rc = 3 ] && grep -q 'fewer than 1000 rounds of history' <<<'$out'"
$fb gate --history "$tmp/empty.db" "$data/aa-2" >/dev/null 2>&1; rc=$?
t "gate --history on an empty history never passes (rc $rc)" test "$rc" != 0

# options before or after the subcommand; --version everywhere
t "history --db=X list is history list --db=X" \
	diff <($fb history --db="$db" list) <($fb history list --db="$db")
t "history --db X --last 2 show M is history show M --db X --last 2" \
	diff <($fb history --db "$db" --last 2 show 'workload:nft:wall') \
	     <($fb history show 'workload:nft:wall' --db "$db" --last 2)
for c in list run compare report gate history "history list" "history add" vm ab merge kernel "kernel build"; do
	out=$($fb $c --version 2>&1); rc=$?
	t "foliobench $c --version: $out" test "$rc" = 0 -a "$out" = "$($fb --version)"
done

# results files read within a memory bound (reports/memory/)
if command -v /usr/bin/time >/dev/null; then
	scripts/studies/memory/make-round.sh 8 "$tmp/big.json"
	size=$(stat -c %s "$tmp/big.json")
	rss=$(/usr/bin/time -f %M $fb history add --db "$tmp/big.db" "$tmp/big.json" 2>&1 >/dev/null | tail -1)
	t "an 8 MB bucket-heavy round is read in at most 3x its size + 16 MB (RSS $rss kB)" \
		test "$rss" -le $((size * 3 / 1024 + 16384))
	scripts/studies/memory/make-round.sh 8 "$tmp/big49.json" 49
	out=$($fb history add --db "$tmp/big.db" "$tmp/big49.json" 2>&1); rc=$?
	t "a round with 49 probes is refused naming the limit: $out" \
		bash -c "[ $rc = 2 ] && grep -q 'more than 48 probes (limit FB_MAX_PROBES = 48)' <<<'$out'"
else
	echo "not ok - /usr/bin/time missing (Debian: time)"
fi

# ---- issue 38: the DB's path is checked before SQLite writes anything ----
# a block device (a loop device over a small image) is refused, its bytes unchanged
loopdev=""
cleanup_38() {
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup_38 EXIT
head -c 1048576 /dev/urandom >"$tmp/img"
if loopdev=$(losetup -f --show "$tmp/img" 2>/dev/null); then
	before=$(head -c 4096 "$loopdev" | sha256sum)
	out=$($fb history add --db "$loopdev" "$data/aa-1" 2>&1); rc=$?
	t "history add --db a block device ($loopdev): exit 2, one line: $out" \
		test "$rc" = 2 -a "$(echo "$out" | wc -l)" = 1
	t "the device's first 4 KB unchanged, no $loopdev-wal, -shm or -journal" \
		bash -c "[ '$(head -c 4096 "$loopdev" | sha256sum)' = '$before' ] &&
			 ! ls '$loopdev'-* 2>/dev/null"
	losetup -d "$loopdev"; loopdev=""
else
	echo "not ok - losetup: no loop device for the block-device case"
fi
# a failed add on a new DB, and one interrupted inside its transaction, leave no file
echo '{"schema": "x"}' >"$tmp/bad.json"
$fb history add --db "$tmp/fail.db" "$data/aa-1" "$tmp/bad.json" >/dev/null 2>&1; rc=$?
t "a failed add on a new DB: exit 2 and no DB, schema or temp file (rc $rc)" \
	bash -c "[ $rc = 2 ] && ! ls '$tmp'/fail.db* 2>/dev/null"
FB_HISTORY_TEST_HOLD=60 $fb history add --db "$tmp/int.db" "$data/aa-1" 2>"$tmp/int.err" >/dev/null &
writer=$!
for ((i = 0; i < 300; i++)); do
	grep -qs 'holding the transaction' "$tmp/int.err" && break
	sleep 0.1
done
kill -TERM "$writer"; wait "$writer"; rc=$?
t "an add on a new DB stopped by SIGTERM: exit 1, no DB left (rc $rc)" \
	bash -c "[ $rc = 1 ] && ! ls '$tmp'/int.db* 2>/dev/null"
# a WAL DB in a read-only place (a read-only bind mount in a private mount namespace) is read
mkdir -p "$tmp/ro"
$fb history add --db "$tmp/ro/h.db" "$data/aa-1" >/dev/null
t "a closed DB leaves no -wal or -shm beside it (no reader ran yet)" \
	bash -c "! ls '$tmp'/ro/h.db-* 2>/dev/null"
if unshare -m true 2>/dev/null; then
	out=$(unshare -m bash -c "mount --bind -o ro '$tmp/ro' '$tmp/ro' &&
		touch '$tmp/ro/w' 2>/dev/null && echo writable
		$fb history list --db '$tmp/ro/h.db' | tail -1 &&
		$fb history export --db '$tmp/ro/h.db' --metric workload:nft:wall | wc -l &&
		$fb history report --db '$tmp/ro/h.db' --out '$tmp/ro-rep' >/dev/null && echo report &&
		$fb history gate --db '$tmp/ro/h.db' '$data/aa-2' >/dev/null && echo gate" 2>&1)
	t "a read-only WAL DB: list, export, report and gate read it ($(echo $out))" \
		test "$(echo $out)" = "20 rounds 21 report gate"
else
	echo "not ok - unshare -m: no private mount namespace for the read-only case"
fi
# a DB locked by a writer for longer than 30 s: busy is exit 1, as documented
FB_HISTORY_TEST_HOLD=45 $fb history add --db "$tmp/serial.db" "$data"/aa-1 >/dev/null 2>"$tmp/busy.err" &
holder=$!
for ((i = 0; i < 300; i++)); do
	grep -qs 'holding the transaction' "$tmp/busy.err" && break
	sleep 0.1
done
out=$($fb history add --db "$tmp/serial.db" "$data"/aa-2 2>&1); rc=$?
kill -TERM "$holder"; wait "$holder"
t "an add on a DB locked for more than 30 s: exit 1, 'busy' (rc $rc): $out" \
	bash -c "[ $rc = 1 ] && grep -q 'history DB busy' <<<'$out'"
