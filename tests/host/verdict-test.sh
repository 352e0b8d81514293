#!/usr/bin/env bash
# verdict-test.sh - verdicts a team can trust (issue 37, items 2 and 3), on
# the archived main-job rounds (reports/main-job/rounds.tar.xz) edited the
# way a broken run leaves them: no pass from a failed, interrupted,
# splatted or missing round (gate, history gate, merge); one boot on both
# sides refused; nothing tested is no pass; the counts of the summary
# lines; compare, report, gate and JUnit say one word per row.
# FB_UNDER_TEST=PATH runs another foliobench (e.g. an older build).
set -uo pipefail
. "$(dirname "$0")/lib.sh" verdict
. tests/host/lib-rounds.sh
fb=${FB_UNDER_TEST:-$fb}
E=kernel-patches/patched.expect
tar -C "$tmp" -xf reports/main-job/rounds.tar.xz
main=$tmp/main-job

# wl DIR ARM STATUS: workload sysfs of every round of ARM marked STATUS
wl() {
	python3 - "$1" "$2" "$3" <<'PY'
import glob, json, sys
d, arm, st = sys.argv[1:]
for p in glob.glob(f"{d}/{arm}/round-*.json"):
    r = json.load(open(p))
    for w in r["workloads"]:
        if w["name"] == "sysfs":
            w["status"], w["reason"] = st, f"sysfs: {st} (test)"
    json.dump(r, open(p, "w"))
PY
}

# runs DIR ARM EXIT [ROUND]: ab.json records EXIT for ARM's runs (of ROUND)
runs() {
	python3 - "$@" <<'PY'
import json, sys
d, arm, rc = sys.argv[1:4]
rd = int(sys.argv[4]) if len(sys.argv) > 4 else None
a = json.load(open(f"{d}/ab.json"))
for r in a["runs"]:
    if r["arm"] == arm and rd in (None, r["round"]):
        r["exit"] = int(rc)
json.dump(a, open(f"{d}/ab.json", "w"))
PY
}

# gate_to NAME ARGS...: stdout in $o/NAME, stderr in $o/NAME.err, exit status in $o/NAME.rc
o=$tmp/out
mkdir -p "$o"
gate_to() {
	local n=$1
	shift
	$fb gate "$@" >"$o/$n" 2>"$o/$n.err"
	echo $? >"$o/$n.rc"
}
rc() { cat "$o/$1.rc"; }

gate_to base --expect $E "$main"
t "control: the main job passes gate --expect (exit $(rc base))" test "$(rc base)" = 0

# --- workloads failed or interrupted in every NEW round, or in BASE ---
cp -r "$main" "$tmp/failed" && wl "$tmp/failed" patched failed
gate_to failed --expect $E "$tmp/failed"
t "NEW's sysfs failed in every round: exit $(rc failed) (want 1), each round named, no pass" \
	bash -c "[ $(rc failed) = 1 ] && grep -q '^gate: FAIL: NEW (patched): 5 run(s) failed' '$o/failed' &&
		 grep -q '^  patched round 3 (patched/round-3.json): workload sysfs failed: sysfs: failed' '$o/failed' &&
		 ! grep -q '^gate: pass' '$o/failed'"
cp -r "$main" "$tmp/intr" && wl "$tmp/intr" patched interrupted
gate_to intr --expect $E "$tmp/intr"
t "NEW's sysfs interrupted in every round: exit $(rc intr) (want 3: unknown), named" \
	bash -c "[ $(rc intr) = 3 ] && grep -q '^gate: UNKNOWN: NEW (patched): 5 run(s) interrupted or missing' '$o/intr' &&
		 grep -q 'round 1 (patched/round-1.json): workload sysfs interrupted' '$o/intr'"
cp -r "$main" "$tmp/bfail" && wl "$tmp/bfail" baseline failed
gate_to bfail --expect $E "$tmp/bfail/baseline" "$tmp/bfail/patched"
t "BASE's sysfs failed (BASE NEW given as arm directories): exit $(rc bfail) (want 3: the reference is broken, not the change)" \
	bash -c "[ $(rc bfail) = 3 ] && grep -q '^gate: UNKNOWN: BASE (baseline): 5 run(s)' '$o/bfail' &&
		 grep -q 'baseline round 2 (baseline/round-2.json): workload sysfs failed' '$o/bfail'"

# --- ab.json: a splat (exit 125) in every patched run, a timeout in one ---
cp -r "$main" "$tmp/splat" && runs "$tmp/splat" patched 125
gate_to splat --expect $E --junit "$tmp/splat.xml" "$tmp/splat"
t "ab.json records exit 125 (splat) for every patched run: exit $(rc splat) (want 1), named, a JUnit failure" \
	bash -c "[ $(rc splat) = 1 ] && grep -q 'patched round 4 (patched/console-round-4.log): splat in the guest log .*(exit 125)' '$o/splat' &&
		 grep -q 'name=\"runs:NEW\">' '$tmp/splat.xml' && grep -q '<failure type=\"run\"' '$tmp/splat.xml' &&
		 ! grep -q '^gate: pass' '$o/splat'"
cp -r "$main" "$tmp/intr130" && runs "$tmp/intr130" baseline 130 5
gate_to intr130 --expect $E "$tmp/intr130"
t "ab.json records exit 130 (interrupted) for one baseline run: exit $(rc intr130) (want 3)" \
	bash -c "[ $(rc intr130) = 3 ] && grep -q 'baseline round 5 (baseline/console-round-5.log): interrupted (signal) (exit 130)' '$o/intr130'"

# --- one boot on both sides ---
gate_to dd "$main/baseline" "$main/baseline"
gate_to dde --expect $E "$main/patched" "$main/patched/"
cp -r "$main" "$tmp/copy"
gate_to ddc --expect $E "$main/baseline" "$tmp/copy/baseline"
t "gate D D: exit $(rc dd), $(rc dde) with --expect, $(rc ddc) on a copy (want 2), one error line each" \
	bash -c "[ $(rc dd) = 2 ] && [ $(rc dde) = 2 ] && [ $(rc ddc) = 2 ] &&
		 grep -q 'error: gate: BASE and NEW are the same rounds' '$o/dd.err' &&
		 grep -q 'error: gate: BASE and NEW are the same rounds' '$o/dde.err' &&
		 grep -q 'error: gate: BASE and NEW share a round: .*main-job/baseline/round-1.json and .*copy/baseline/round-1.json' '$o/ddc.err' &&
		 [ \$(cat '$o/dd.err' '$o/dde.err' '$o/ddc.err' | grep -c 'foliobench: error:') = 3 ]"

# --- nothing tested, and the counts of the summary lines ---
for i in 1 2 3 4 5; do
	round "$tmp/c/a/round-$i.json" "2026-12-01T08:00:0${i}Z" 1000
	round "$tmp/c/b/round-$i.json" "2026-12-01T09:00:0${i}Z" 1000
	round "$tmp/c/r/round-$i.json" "2026-12-01T10:00:0${i}Z" 2000
done
gate_to none "$tmp/c/a" "$tmp/c/b"
gate_to exact "$tmp/c/a" "$tmp/c/r"
t "every gated metric an exact count (0 tested): exit $(rc none) (want 3), said; a doubled exact count fails (exit $(rc exact))" \
	bash -c "[ $(rc none) = 3 ] && grep -q '^gate: UNKNOWN: no gated metric was tested (3 compared exactly' '$o/none' &&
		 ! grep -q '^gate: pass' '$o/none' && [ $(rc exact) = 1 ] &&
		 grep -q '^gate: FAIL: 2 of 3 gated metrics regressed beyond 5% (0 tested, 3 compared exactly)' '$o/exact'"
bad=$(cat "$o"/{base,failed,intr,bfail,splat,intr130,none,exact} |
	grep -oE '[0-9]+ of [0-9]+ gated metrics' | awk '$1 > $3 || $3 == 0' | head -1)
t "no summary line counts more metrics than its total, or of 0 (${bad:-none})" test -z "$bad"

# --- rounds ab.json planned and that are not there ---
cp -r "$main" "$tmp/cut" && rm "$tmp/cut"/*/round-5.json
gate_to cut --expect $E "$tmp/cut"
t "4+4 rounds where ab.json planned 5 (a merge or ab cut short): exit $(rc cut) (want 3), the missing round named" \
	bash -c "[ $(rc cut) = 3 ] && grep -q 'patched round 5: missing: ab.json records exit 0, but patched/round-5.json is not among the rounds read' '$o/cut'"
shard "$tmp/s1" 1 2 6
shard "$tmp/s2" 2 2 6
$fb merge "$tmp/m-full" "$tmp/s1" "$tmp/s2" >/dev/null 2>&1
gate_to mfull "$tmp/m-full"
rm "$tmp/s2"/*/round-6.json
python3 - "$tmp/s2/ab.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
a["runs"] = [r for r in a["runs"] if r["round"] != 6]
json.dump(a, open(sys.argv[1], "w"))
PY
$fb merge "$tmp/m-cut" "$tmp/s1" "$tmp/s2" >/dev/null 2>&1
gate_to mcut "$tmp/m-cut"
t "merge of shards where shard 2 stopped before its last round: gate exit $(rc mcut) (want 3; the whole merge: $(rc mfull)), round 6 named" \
	bash -c "[ $(rc mcut) = 3 ] && [ $(rc mfull) = 0 ] &&
		 grep -q 'round 6: missing: ab.json plans 6 rounds, no run of patched recorded' '$o/mcut'"
# the main job as two shards (rounds 1,3,5 and 2,4), merged; the merge
# stops while copying round 4 (a console log it cannot read)
python3 - "$main" "$tmp/sh" <<'PY'
import json, os, shutil, sys
src, dst = sys.argv[1:]
ab = json.load(open(f"{src}/ab.json"))
for i in (1, 2):
    d = f"{dst}{i}"
    mine = [k for k in range(1, 6) if (k - 1) % 2 == i - 1]
    a = dict(ab, shard={"index": i, "count": 2, "rounds": mine}, host=f"node{i}",
             runs=[r for r in ab["runs"] if r["round"] in mine])
    for arm in ("baseline", "patched"):
        os.makedirs(f"{d}/{arm}")
        for k in mine:
            shutil.copy(f"{src}/{arm}/round-{k}.json", f"{d}/{arm}/round-{k}.json")
    json.dump(a, open(f"{d}/ab.json", "w"))
PY
mkdir -p "$tmp/sh2/baseline/console-round-4.log"
$fb merge "$tmp/m-stop" "$tmp/sh1" "$tmp/sh2" >/dev/null 2>&1; mrc=$?
gate_to mstop --expect $E "$tmp/m-stop"
t "the main job's merge stopped while copying round 4 (exit $mrc): gate --expect on what it left exits $(rc mstop) (want 3, or 2 if it left nothing), never 0" \
	bash -c "[ $mrc != 0 ] && { { [ $(rc mstop) = 2 ] && [ ! -e '$tmp/m-stop/baseline' ]; } ||
		 { [ $(rc mstop) = 3 ] && grep -q 'patched round 4: missing: ab.json records exit 0' '$o/mstop'; }; }"
rm "$tmp/m-full/patched/round-6.json"	# a merge cut short after its ab.json
gate_to mpart "$tmp/m-full"
t "a merged directory missing a round its ab.json lists: gate exit $(rc mpart) (want 3)" \
	test "$(rc mpart)" = 3

# --- history gate: new rounds that lost every probe ---
db=$tmp/h.db
data=reports/gate/data
$fb history add --db "$db" "$data/aa-1" >/dev/null 2>&1
cp -r "$data/aa-2" "$tmp/lost"
python3 - "$tmp/lost" <<'PY'
import glob, json, sys
for p in glob.glob(f"{sys.argv[1]}/patched/*.json"):
    r = json.load(open(p))
    for pr in r["probes"]:
        pr["status"], pr["reason"], pr["stats"] = "unavailable", "lost (test)", []
    json.dump(r, open(p, "w"))
PY
out=$($fb history gate --db "$db" "$data/aa-2" 2>&1); hrc=$?
out2=$($fb history gate --db "$db" "$tmp/lost" 2>&1); hrc2=$?
t "history gate: new rounds that lost every probe: exit $hrc2 (want 3; the A/A run: $hrc): $out2" \
	bash -c "[ $hrc = 0 ] && [ $hrc2 = 3 ] && ! grep -q 'history: pass' <<<'$out2' &&
		 grep -q 'series of the history have no value in the 10 new patched rounds' <<<'$out2'"
cp -r "$data/aa-2" "$tmp/hsplat" && runs "$tmp/hsplat" patched 125 2 2>/dev/null
out=$($fb history gate --db "$db" "$tmp/hsplat" 2>&1); hrc=$?
t "history gate: a patched run with exit 125 in ab.json: exit $hrc (want 1)" \
	bash -c "[ $hrc = 1 ] && grep -q 'splat in the guest log' <<<'$out'"

# --- one verdict per row: compare, report, gate and JUnit on the main job ---
$fb gate --junit "$tmp/main.xml" "$main" >"$tmp/g" 2>/dev/null
$fb compare --format csv "$main" >"$tmp/csv" 2>/dev/null
$fb compare "$main" >"$tmp/txt" 2>/dev/null
$fb report --out "$tmp/rep" "$main" >/dev/null 2>&1
disagree=$(python3 - "$tmp/g" "$tmp/csv" <<'PY'
import csv, re, sys
gate = {}
for l in open(sys.argv[1]):
    m = re.match(r"^(ok|REGRESSED|LOST|undecided|untested|reported) +(\S+) ", l)
    if m:
        gate[m.group(2)] = m.group(1)
words = {"REGRESSED": {"regressed"}, "ok": {"improved", "no change", "changed"},
         "undecided": {"inconclusive", "n/a"}, "LOST": {"n/a"}, "untested": {"n/a"},
         "reported": {"changed", "no change", "inconclusive"}}
seen, bad = 0, []
for r in csv.DictReader(open(sys.argv[2])):
    i = f"{r['kind']}:{r['name']}:{r['metric']}"
    if i not in gate:
        continue
    seen += 1
    if r.get("gate_verdict") != gate[i] or r["verdict"] not in words[gate[i]]:
        bad.append(f"{i}: gate {gate[i]}, compare {r['verdict']}/{r.get('gate_verdict')}")
print(f"{seen} of {len(gate)}" if not bad and seen == len(gate) else "; ".join(bad) or f"{seen} of {len(gate)}")
PY
)
t "compare and gate agree on every gated metric of the main job ($disagree)" \
	bash -c "read -r a of b <<<'$disagree' && [ \"\$of\" = of ] && [ \"\$a\" = \"\$b\" ] && [ \"\$a\" -ge 8 ]"
t "the issue's rows: get_device_parent REGRESSED (cmean) and kernfs_idr_lock ok (hold_p50) in compare, report.md and gate; never improved/regressed there" \
	bash -c "grep -A1 '^get_device_parent ' '$tmp/txt' | grep -q '+1.7%  REGRESSED (cmean;' &&
		 grep -A1 '^kernfs_idr_lock ' '$tmp/txt' | grep -q -- '-11.7%  ok (hold_p50;' &&
		 ! grep -A1 -E '^(get_device_parent|kernfs_idr_lock) ' '$tmp/txt' | grep -qE 'improved|regressed' &&
		 grep -q '^REGRESSED func:get_device_parent:cmean ' '$tmp/g' && grep -q '^ok *lock:kernfs_idr_lock:hold_p50 ' '$tmp/g' &&
		 grep -E '\| +\| patched .*\+1\.7%' '$tmp/rep/report.md' | grep -q 'REGRESSED (cmean;' &&
		 grep -q 'name=\"func:get_device_parent:cmean\">' '$tmp/main.xml'"
$fb report --out "$tmp/rep-splat" "$tmp/splat" >/dev/null 2>&1
t "report of the splatted run says so in its notes, per round" \
	bash -c "[ \$(grep -c '^- run: NEW patched round [1-5] (patched/console-round-[1-5].log): splat in the guest log' '$tmp/rep-splat/report.md') = 5 ]"
