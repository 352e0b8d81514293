#!/usr/bin/env bash
# bg-test.sh - tests/guest/bg.sh, the guest group's kernels built in the
# background, with a stub scripts/kernel-build.sh (nothing is built): one
# job's kernels are built one after the other at the nice level asked, two
# jobs at once; bg_wait returns a job's status and shows a failed build's
# log; bg_eta reads kernel-build.sh's ETA line; bg_stop, and the end of
# the script, leave no build running; FB_BG_BUILD=0 starts nothing.
set -uo pipefail
. "$(dirname "$0")/lib.sh" bg
bgsh=$PWD/tests/guest/bg.sh
w=$tmp/repo
mkdir -p "$w/scripts" "$w/res"
export STUB_LOG=$tmp/stub.log
cat >"$w/scripts/kernel-build.sh" <<'EOF'
#!/usr/bin/env bash
# stub: logs "start ARM/FLAVOUR NICE PID TIME", sleeps STUB_SECS, logs "end
# ARM/FLAVOUR TIME"; arm "bad" fails; on SIGTERM logs "term ARM/FLAVOUR"
echo "start $1/$2 $(nice) $$ $(date +%s.%N)" >>"$STUB_LOG"
echo "kernel-build: $1/$2: objects 10/100 (10%), 1s, ETA 2m5s" >&2
trap 'kill $s 2>/dev/null; echo "term $1/$2" >>"$STUB_LOG"; exit 130' TERM
sleep "${STUB_SECS:-1}" & s=$!
wait $s
[ "$1" = bad ] && { echo "kernel-build: error: build of bad/$2 failed" >&2; exit 1; }
echo "end $1/$2 $(date +%s.%N)" >>"$STUB_LOG"
EOF
chmod +x "$w/scripts/kernel-build.sh"
# drive SCRIPT: SCRIPT run in the stub repository with bg.sh sourced
drive() { (cd "$w" && res=$w/res && . "$bgsh" && eval "$1") 2>&1; }
field() { awk -v k="$1" -v w="$2" '$1 == k && $2 == w { print $'"$3"' }' "$STUB_LOG"; }
base=$(nice)
want() { local n=$(( base + $1 )); echo $(( n > 19 ? 19 : n )); }

out=$(STUB_SECS=2 drive 'bg_build one 19 a:x b:y; bg_build two 5 c:z
	sleep 1; echo "eta $(bg_eta one)"
	bg_wait one; echo "rc one $?"; bg_wait two; echo "rc two $?"; echo "eta after [$(bg_eta one)]"')
t "bg: both jobs joined with exit 0" bash -c 'grep -qx "rc one 0" <<<"$1" && grep -qx "rc two 0" <<<"$1"' - "$out"
t "bg: one job's kernels one after the other (b/y starts after a/x ends)" \
	awk -v e="$(field end a/x 3)" -v s="$(field start b/y 5)" 'BEGIN { exit !(e != "" && s != "" && s >= e) }'
t "bg: two jobs at once (c/z starts before a/x ends)" \
	awk -v e="$(field end a/x 3)" -v s="$(field start c/z 5)" 'BEGIN { exit !(e != "" && s != "" && s < e) }'
t "bg: nice levels as asked ($(field start a/x 3), $(field start c/z 3); want $(want 19), $(want 5))" \
	test "$(field start a/x 3)/$(field start b/y 3)/$(field start c/z 3)" = "$(want 19)/$(want 19)/$(want 5)"
t "bg: bg_eta reads the ETA line (2m5s = 125 s), nothing once joined" \
	bash -c 'grep -qx "eta 125" <<<"$1" && grep -qx "eta after \[\]" <<<"$1"' - "$out"

: >"$STUB_LOG"
out=$(drive 'bg_build f 0 bad:x a:x; bg_wait f; echo "rc $?"')
t "bg: a failed build: bg_wait returns its status, shows its log, builds nothing after it" \
	bash -c 'grep -qx "rc 1" <<<"$1" && grep -q "^#   kernel-build: error: build of bad/x failed" <<<"$1" &&
		! grep -q "start a/x" "$STUB_LOG"' - "$out"

: >"$STUB_LOG"
out=$(STUB_SECS=60 drive 'bg_build s 19 a:x b:y; sleep 1; bg_stop s; echo "rc $?"')
pid=$(field start a/x 4)
t "bg: bg_stop stops the build in progress (SIGTERM) and starts no other" \
	bash -c 'grep -qx "term a/x" "$STUB_LOG" && ! grep -q "start b/y" "$STUB_LOG"' -
t "bg: no build left after bg_stop" bash -c "! kill -0 ${pid:-0} 2>/dev/null"

: >"$STUB_LOG"
STUB_SECS=60 drive 'trap bg_stop_all EXIT; bg_build e 19 a:x; sleep 1; exit 0' >/dev/null
pid=$(field start a/x 4)
t "bg: the script's end stops a build still running (bg_stop_all)" \
	bash -c "[ -n '$pid' ] && grep -qx 'term a/x' '$STUB_LOG' && ! kill -0 $pid 2>/dev/null"

: >"$STUB_LOG"
out=$(FB_BG_BUILD=0 drive 'bg_build n 19 a:x; bg_wait n; echo "rc $?"')
t "bg: FB_BG_BUILD=0 starts nothing; bg_wait returns 0" \
	bash -c 'grep -qx "rc 0" <<<"$1" && [ ! -s "$STUB_LOG" ]' - "$out"
