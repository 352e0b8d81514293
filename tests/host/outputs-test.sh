#!/usr/bin/env bash
# outputs-test.sh - every output whole or absent, nothing written outside
# the chosen directory, no markup or terminal control from data (issue 38,
# the output side).  On the main job's archived rounds and synthetic ones:
#   - an EIO injected into write(2) (strace) during report, gate --junit
#     and merge leaves the previous file (or no OUT), and no temporary file;
#   - SIGINT in the middle of report and merge: the same;
#   - gate --junit /dev/full keeps the verdict's exit code and says, in one
#     line, that the XML was not written;
#   - report BASE.json NEW.json whose host.arm climbs out writes nothing;
#   - report.md escapes HTML and table breakers from cpu_model, label,
#     cmdline and probe names; compare and history list/export print no
#     control character from data.
# FB_BIN=path runs another binary (e.g. the code before, to see these fail).
set -uo pipefail
. "$(dirname "$0")/lib.sh" outputs
. tests/host/lib-rounds.sh
fb=$(realpath "${FB_BIN:-./foliobench}")

tar -C "$tmp" -xf reports/main-job/rounds.tar.xz
mj=$tmp/main-job
sums() { (cd "$1" && find . -type f ! -name 'round-*' ! -name 'console-*' ! -name ab.json \
	-exec md5sum {} + | sort -k2); }
leftovers() { find "$1" -name '.*fbtmp*' | wc -l; }

if ! command -v strace >/dev/null; then
	nok "strace is not installed (make deps): the failing-write tests cannot run"
fi

# --- report: a write fails (EIO from the 3rd write on) ---
rep=$tmp/rep
$fb report --out "$rep" "$mj/baseline" "$mj/patched" >/dev/null 2>&1
sums "$rep" >"$tmp/old"
strace -f -o /dev/null -e trace=write -e inject=write:error=EIO:when=3+ \
	$fb report --out "$rep" "$mj" >/dev/null 2>&1
rc=$?
sums "$rep" >"$tmp/after"
$fb report --out "$rep.new" "$mj" >/dev/null 2>&1
t "report with EIO from the 3rd write: exit $rc (want 2), the $(wc -l <"$tmp/old") old files as they were, $(leftovers "$rep") temporary files" \
	bash -c "[ $rc = 2 ] && [ -s '$tmp/old' ] && cmp -s '$tmp/old' '$tmp/after' && [ $(leftovers "$rep") = 0 ] &&
		 ! cmp -s '$rep/report.md' '$rep.new/report.md'"

# --- report: Ctrl-C while it writes (each write slowed to 0.1 s) ---
# set -m: a background job of a script ignores SIGINT otherwise
sigint() {	# LOG WATCH CMD...: run CMD under strace, SIGINT it once it writes; its exit code
	local log=$1 watch=$2 spid cpid i
	shift 2
	set -m
	# SIGINT back to its default first: a test started where it is ignored
	# (a background job, nohup) would pass it on ignored to CMD
	strace -f -o /dev/null -e trace=write -e inject=write:delay_enter=100000:when=2+ \
		python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL);
os.execvp(sys.argv[1], sys.argv[1:])' "$@" >"$log" 2>&1 &
	spid=$!
	set +m
	# not a fixed delay: on a loaded host python may not have exec'd CMD yet
	# (its own SIGINT handler then exits 1); wait until CMD runs and has a
	# temporary output under WATCH, at most 30 s
	for ((i = 0; i < 300; i++)); do
		cpid=$(cat /proc/$spid/task/*/children 2>/dev/null | awk '{print $1}')
		[ -n "$cpid" ] && [ "$(readlink "/proc/$cpid/exe")" = "$(readlink -f "$1")" ] &&
			[ "$(leftovers "$watch")" -gt 0 ] && break
		sleep 0.1
	done
	sleep 0.3
	[ -n "$cpid" ] && kill -INT "$cpid"
	wait $spid
}
sigint "$tmp/int.log" "$rep" $fb report --out "$rep" "$mj"
rc=$?
sums "$rep" >"$tmp/after"
t "report interrupted (SIGINT) while writing: exit $rc (want 130), every file old or whole, $(leftovers "$rep") temporary files" \
	bash -c "[ $rc = 130 ] && cmp -s '$tmp/old' '$tmp/after' && [ $(leftovers "$rep") = 0 ]"

# --- gate --junit: a write fails, /dev/full ---
$fb gate "$mj" >/dev/null 2>&1
verdict=$?
arm "$tmp/ga" 5 1000
arm "$tmp/gb" 5 1001
$fb gate --junit "$tmp/gate.xml" "$tmp/ga" "$tmp/gb" >/dev/null 2>&1
old=$(md5sum <"$tmp/gate.xml")
strace -f -o /dev/null -e trace=write -e inject=write:error=EIO:when=3+ \
	$fb gate --junit "$tmp/gate.xml" "$mj" >/dev/null 2>&1
rc=$?
t "gate --junit with EIO from the 3rd write: exit $rc = the verdict's $verdict, the old gate.xml as it was, $(leftovers "$tmp") temporary files" \
	bash -c "[ $rc = $verdict ] && [ '$old' = '$(md5sum <"$tmp/gate.xml")' ] && [ $(leftovers "$tmp") = 0 ]"
$fb gate --junit /dev/full "$mj" >/dev/null 2>"$tmp/full.err"
rc=$?
t "gate --junit /dev/full: exit $rc = the verdict's $verdict, one line saying the XML was not written ($(grep -c 'foliobench: \(warning\|error\)' "$tmp/full.err") warning/error lines), /dev/full still a device" \
	bash -c "[ $rc = $verdict ] && [ \$(grep -c 'junit /dev/full.*not written.*verdict (exit $verdict) stands' '$tmp/full.err') = 1 ] &&
		 [ \$(grep -c 'foliobench: \(warning\|error\)' '$tmp/full.err') = 1 ] && [ -c /dev/full ]"

# --- merge: a write fails, Ctrl-C: no partial OUT ---
shard "$tmp/s1" 1 2 40	# 80 round files: 8 s of slowed writes
shard "$tmp/s2" 2 2 40
strace -f -o /dev/null -e trace=write -e inject=write:error=EIO:when=3+ \
	$fb merge "$tmp/m/out" "$tmp/s1" "$tmp/s2" >/dev/null 2>&1
rc=$?
t "merge with EIO from the 3rd write: exit $rc (want 1), no OUT, $(leftovers "$tmp/m") temporary directories" \
	bash -c "[ $rc = 1 ] && [ ! -e '$tmp/m/out' ] && [ $(leftovers "$tmp/m") = 0 ]"
sigint "$tmp/mint.log" "$tmp/m" $fb merge "$tmp/m/out" "$tmp/s1" "$tmp/s2"
rc=$?
t "merge interrupted (SIGINT) while copying: exit $rc (want 130), no OUT, $(leftovers "$tmp/m") temporary directories" \
	bash -c "[ $rc = 130 ] && [ ! -e '$tmp/m/out' ] && [ $(leftovers "$tmp/m") = 0 ]"
$fb merge "$tmp/m/out" "$tmp/s1" "$tmp/s2" >/dev/null 2>&1
rc=$?
t "merge after both: exit $rc (want 0), OUT whole (ab.json and 80 rounds)" \
	bash -c "[ $rc = 0 ] && [ -s '$tmp/m/out/ab.json' ] && [ \$(ls '$tmp/m/out'/*/round-*.json | wc -l) = 80 ]"

# --- report BASE.json NEW.json: the output directory is not taken from host.arm ---
mkdir -p "$tmp/up/a/b/c"
cp "$mj/baseline/round-1.json" "$tmp/up/a/b/c/B.json"
jq '.host.arm = "x/../../../.."' "$mj/patched/round-1.json" >"$tmp/up/a/b/c/N.json"
(cd "$tmp/up/a/b/c" && $fb report B.json N.json) >/dev/null 2>"$tmp/up.err"
rc=$?
n=$(find "$tmp/up" -name 'report.*' -o -name 'hist-*.svg' | wc -l)
t "report B.json N.json with host.arm x/../../../..: exit $rc (want 2), $n files written, one line" \
	bash -c "[ $rc = 2 ] && [ $n = 0 ] && [ \$(grep -c . '$tmp/up.err') = 1 ] &&
		 grep -q \"arm name 'x/../../../..'\" '$tmp/up.err'"

# --- markup and terminal controls from data ---
hostile() {	# FILE: a round with HTML, a newline, a pipe and ESC/BEL in its strings
	python3 - "$1" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["host"]["cpu_model"] = "<script>alert(1)</script>"
d["host"]["kernel_version"] = "#1 <img src=x onerror=alert(2)>"
d["host"]["cmdline"] = "a|b\nc"
d["label"] = "<b>label</b>"
d["probes"][0]["name"] = "nft_\x1b[31mred\x07<i>"
json.dump(d, open(p, "w"))
EOF
}
arm "$tmp/ha" 3 1000
arm "$tmp/hb" 3 1100
for f in "$tmp"/ha/*.json "$tmp"/hb/*.json; do hostile "$f"; done
$fb report --out "$tmp/hrep" "$tmp/ha" "$tmp/hb" >/dev/null 2>&1
md=$tmp/hrep/report.md
t "report.md from hostile strings: no raw <script>, <img>, <b>, <i> ($(grep -ciE '<(script|img|b|i)[ >]' "$md" 2>/dev/null) found), cmdline one table row" \
	bash -c "[ -s '$md' ] && ! grep -qiE '<(script|img|b|i)[ >]' '$md' &&
		 [ \$(grep -c '^| cmdline | .* |\$' '$md') = 1 ] && ! grep -qP '[\x1b\x07]' '$md'"
$fb compare "$tmp/ha" "$tmp/hb" >"$tmp/cmp.out" 2>/dev/null
$fb history add --db "$tmp/h.db" "$tmp/ha" "$tmp/hb" >/dev/null 2>&1
$fb history list --db "$tmp/h.db" >"$tmp/list.out" 2>&1
$fb history export --db "$tmp/h.db" >"$tmp/export.out" 2>&1
$fb history report --db "$tmp/h.db" --out "$tmp/hist" >/dev/null 2>&1
hmd=$tmp/hist/history.md
t "history.md from hostile strings: no raw <b>, <i> ($(grep -ciE '<(b|i)>' "$hmd" 2>/dev/null) found), no ESC/BEL, the series rows intact" \
	bash -c "[ -s '$hmd' ] && ! grep -qiE '<(b|i)>' '$hmd' && ! grep -qP '[\x1b\x07]' '$hmd' &&
		 grep -qF 'red &lt;i&gt;:p50\` [fentry] | &lt;b&gt;label&lt;/b&gt; |' '$hmd'"
ctl() { grep -cP '[\x00-\x08\x0b-\x1f\x7f]' "$1"; }
c1=$(ctl "$tmp/cmp.out"); c2=$(ctl "$tmp/list.out"); c3=$(ctl "$tmp/export.out")
t "no control character from data on stdout: compare $c1, history list $c2, export $c3 lines (the probe shown as nft_?[31mred?)" \
	bash -c "[ $c1 = 0 ] && [ $c2 = 0 ] && [ $c3 = 0 ] && grep -q 'nft_?\[31mred?' '$tmp/cmp.out' &&
		 grep -q 'nft_?\[31mred?' '$tmp/export.out'"
