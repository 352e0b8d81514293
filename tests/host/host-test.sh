#!/usr/bin/env bash
# host-test.sh - `foliobench run` on the machine itself (as root).
#
# These hosts refuse BPF tracing programs and have no kprobes, so the
# function rows must come back "unavailable" with a reason, the tracepoint
# rows must hold real data, and nothing may be left behind.  On a host that
# does allow fentry the same checks hold with the rows attached instead.
set -uo pipefail
. "$(dirname "$0")/lib.sh" host

snapshot() {
	{
		nft list tables 2>/dev/null
		ip netns list 2>/dev/null
		ls /sys/bus/netdevsim/devices 2>/dev/null
		ls /sys/fs/bpf 2>/dev/null
		bpftool prog show 2>/dev/null | grep -c 'name fb_' || true
	} | sort
}

t "--help on every subcommand" bash -c "for c in list run compare report gate vm ab kernel; do $fb \$c --help >/dev/null || exit 1; done"
out=$($fb run --workload nope 2>&1); rc=$?
t "unknown workload: exit 2, one line" test "$rc" = 2 -a "$(echo "$out" | wc -l)" = 1
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups $fb run --out "$tmp/x.json" 2>&1); rc=$?
t "refuses to run without root: exit 2, one line (rc=$rc)" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <<<'$out') = 1 ] && grep -q 'must be run as root' <<<'$out'"

# ---- CLI conventions (issue 40): -V, -?, --usage; one meaning per short option ----
v=$($fb --version)
for a in "-V" "run -V" "gate --metrics x -V" "vm -V --kernel k"; do
	out=$($fb $a 2>&1); rc=$?
	t "foliobench $a: exit 0, the version ($out)" test "$rc:$out" = "0:$v"
done
for a in "--usage" "-?" "run -?" "gate --usage" "vm --usage" "list -?"; do
	out=$($fb $a 2>&1); rc=$?
	t "foliobench $a: exit 0 with a usage line" bash -c "[ $rc = 0 ] && grep -qi '^usage: foliobench' <<<\"\$1\"" _ "$out"
done
# every short option of every command's help: one long option per letter
shorts=$(for c in list run compare report gate history vm ab merge kernel; do
	$fb $c --help; done | grep -oE '^ +-[A-Za-z?], --[a-z-]+' | sed 's/^ *//; s/,//' | sort -u)
clash=$(awk '{ n[$1]++; l[$1] = l[$1] " " $2 } END { for (k in n) if (n[k] > 1) print k ":" l[k] }' <<<"$shorts")
t "one meaning per short option across commands ($(wc -l <<<"$shorts") pairs${clash:+; clashes: $clash})" test -z "$clash"

before=$(snapshot)
$fb run --workload nft --out "$tmp/r.json" >"$tmp/run.out" 2>&1; rc=$?
# 0, or 3 where the kernel refuses every function and lock row (this host)
refused=$(jq -r '[.probes[] | select((.kind == "func" or .kind == "lock") and .status == "attached")] | length' "$tmp/r.json" 2>/dev/null)
[ "${refused:-x}" = 0 ] && want=3 || want=0
t "run --workload nft exits $want (function and lock rows attached: ${refused:-?})" test "$rc" = "$want"
[ "$rc" = "$want" ] || sed 's/^/#   /' "$tmp/run.out" | tail -20
t "results JSON has schema v1" test "$(jq -r '.schema + ":" + (.schema_version|tostring)' "$tmp/r.json")" = "foliobench-results:1"
after=$(snapshot)
t "no netns, nft table, netdevsim device, pinned BPF or program left behind" test "$before" = "$after"
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/#   /' 

# every probe is either attached or says why not
bad=$(jq -r '.probes[] | select(.status != "attached" and (.reason | length) == 0) | .name' "$tmp/r.json")
t "every unavailable probe has a reason" test -z "$bad"
fentry_ok=$(jq -r '[.probes[] | select(.kind == "func" and .status == "attached")] | length' "$tmp/r.json")
if [ "$fentry_ok" = 0 ]; then
	t "function rows unavailable with the kernel's reason" \
		test "$(jq -r '.probes[] | select(.name=="nft_trans_alloc") | .reason' "$tmp/r.json" | grep -c 'EPERM\|kallsyms\|kprobe')" = 1
fi
trans=$(jq -r '.workloads[] | select(.name=="nft") | .ops.trans_objects' "$tmp/r.json")
kmal=$(jq -r '.probes[] | select(.name=="nft_trans_alloc.kmalloc") | .stats[0].count' "$tmp/r.json")
status=$(jq -r '.probes[] | select(.name=="nft_trans_alloc.kmalloc") | .status' "$tmp/r.json")
t "nft workload submitted its descriptors (trans_objects=$trans)" test "${trans:-0}" -ge 10025
if [ "$status" = attached ]; then
	t "kmalloc tracepoint row holds real data ($kmal allocations from nft_trans_alloc for $trans descriptors)" \
		bash -c "[ ${kmal:-0} -gt $((trans * 9 / 10)) ] && [ ${kmal:-0} -le $trans ]"
else
	nok "kmalloc tracepoint row attached (status $status)"
fi
t "contention tracepoint row attached" test "$(jq -r '.probes[] | select(.name=="contention") | .status' "$tmp/r.json")" = attached
if [ "$want" = 3 ]; then
	t "tracing refused: one line, with the next step (foliobench vm), no table" \
		bash -c "[ \$(wc -l <'$tmp/run.out') = 1 ] && grep -q 'none of the [0-9]* function and lock rows attached.*EPERM.*exit 3.*foliobench vm --kernel' '$tmp/run.out'"
	$fb run -v --workload nft --out "$tmp/rv.json" 2>/dev/null >"$tmp/rv.out"; rc=$?
	t "run -v: the table too, still exit 3 ($rc)" bash -c "[ $rc = 3 ] && grep -q '^nft_trans_alloc ' '$tmp/rv.out'"
else
	t "human table printed" grep -q '^nft_trans_alloc ' "$tmp/run.out"
	$fb run --workload nft --out "$tmp/rv.json" >"$tmp/rv.out" 2>/dev/null
fi
# the table: no unmeasured row as zeros, each row's unit in its own column
t "no unavailable row printed with measured zeros" \
	bash -c "! grep -E '^[^ ]+ +unavailable .* 0 +0\.00 ' '$tmp/rv.out'"
t "units in a Unit column: us for times, bytes for the kmalloc size; no '(us)' header" \
	bash -c "grep -qE '^Probe .* Unit\$' '$tmp/rv.out' && ! grep -q '(us)' '$tmp/rv.out' &&
		grep -qE '^nft_trans_alloc\.kmalloc +attached .* bytes\$' '$tmp/rv.out' &&
		grep -qE '^nft_trans_alloc +.* us\$' '$tmp/rv.out'"
# -o -: the JSON alone on stdout, everything else on stderr
$fb run --workload nft -o - >"$tmp/so.json" 2>"$tmp/so.err"; rc=$?
t "run -o -: stdout is the JSON alone (python3 -m json.tool), exit $want ($rc)" \
	bash -c "[ $rc = $want ] && python3 -m json.tool '$tmp/so.json' >/dev/null"
if [ "$want" = 3 ]; then
	t "run -o -: stderr is one summary line ($(head -c 80 "$tmp/so.err")...)" \
		bash -c "[ \$(wc -l <'$tmp/so.err') = 1 ] && grep -q 'results in stdout.*foliobench vm' '$tmp/so.err'"
else
	t "run -o -: the table on stderr" grep -q '^nft_trans_alloc ' "$tmp/so.err"
fi
# list fits the terminal without cutting a word; -v has every reason in full
for w in 80 120; do
	t "list: no line wider than COLUMNS=$w, none ending in a blank" \
		bash -c "COLUMNS=$w $fb list | awk -v w=$w 'length > w || / \$/ { exit 1 }'"
done
full=$(jq -r '.probes[] | select(.name=="nft_trans_alloc") | if .status == "attached" then "" else .reason end' "$tmp/r.json")
if [ -n "$full" ]; then
	cut=$(COLUMNS=100 $fb list --no-probe >/dev/null; COLUMNS=100 $fb list | grep -A1 '^nft_trans_alloc ' | tail -1 | sed 's/^ *//; s/ \.\.\.$//')
	t "list: a long reason is cut at a word ('${cut: -20}' then ' ...')" \
		bash -c "[ -n '$cut' ] && [[ '$full' == '$cut'\ * ]]"
	t "list -v: the whole reason, wrapped" \
		bash -c "[ \"\$(COLUMNS=100 $fb list -v | sed -n '/^nft_trans_alloc /,/^[a-z]/p' | sed '\$d;1s/^[^ ]* .*unavailable - *//; s/^ *//' | tr '\n' ' ' | sed 's/ *\$//; s/^ *//')\" = '$full' ]"
fi
t "list shows every catalogue row" test "$($fb list | grep -c -E '^(nft_trans_alloc|kernfs_new_node|get_device_parent|gdp_mutex|kernfs_rwsem|kernfs_idr_lock) ')" = 6

# ---- the front door (issue 40): README.md short, reports/ indexed ----
t "README.md has at most 250 lines ($(wc -l <README.md))" test "$(wc -l <README.md)" -le 250
t "README.md's first 30 lines have the main job, the tests and a sample" \
	bash -c "head -30 README.md | grep -qF './foliobench ab --workload nft --workload sysfs' &&
		head -30 README.md | grep -qF 'make test' && head -30 README.md | grep -q '^gate: pass'"
# every directory under reports/ is in reports/README.md: itself, or (inside
# a data/ or raw*/ directory) that directory
unindexed=$(cd reports && find . -mindepth 1 -type d | sed 's|^\./||' | while read -r d; do
	a=$(awk -F/ '{ for (i = 1; i <= NF; i++) { p = p (i > 1 ? "/" : "") $i;
		if ($i ~ /^(data|raw|raw-lockrows)$/) break } print p }' <<<"$d")
	grep -qF "$a/" README.md || echo "$d"
done)
t "reports/README.md indexes every directory under reports/${unindexed:+ (not: $(echo $unindexed))}" test -z "$unindexed"
t "no result-making script left in reports/ (scripts/studies/)" test -z "$(find reports -name '*.sh')"
# ---- bpftrace one-liners: one source per hook, the kprobe variant generated ----
stale=$(for k in scripts/bpftrace/*-kprobe.bt; do
	scripts/bpftrace/kprobe-variant.sh "${k%-kprobe.bt}.bt" | cmp -s - "$k" || echo "${k##*/}"; done)
t "every scripts/bpftrace/X-kprobe.bt is kprobe-variant.sh X.bt${stale:+ (stale: $(echo $stale))}" test -z "$stale"
t "kprobe-variant.sh drops //@kfunc lines and keeps //@kprobe ones" bash -c \
	"[ \"\$(printf 'a\\nkfunc:f //@kfunc\\n//@kprobe kprobe:f\\n//@kprobe\\nb\\n' >'$tmp/v.bt';
	  scripts/bpftrace/kprobe-variant.sh '$tmp/v.bt' | tr '\\n' '|')\" = 'a|kprobe:f||b|' ]"
# ---- the BPF enabled flag: nothing counted while recording is off ----
if [ -x build/host/test_enable ]; then
	build/host/test_enable
else
	nok "build/host/test_enable is built (make test builds it)"
fi
# ---- ad-hoc rows (issue 17): run --func, compared like catalogue rows ----
$fb run -v --func vfs_read --workload nft --out "$tmp/adhoc.json" >"$tmp/adhoc.out" 2>/dev/null; rc=$?
t "run --func vfs_read --workload nft exits as the catalogue run did ($rc)" test "$rc" = "$want"
vr=$(jq -r '.probes[] | select(.name=="vfs_read") | [.kind, .status, (.adhoc|tostring), (.stats|length|tostring)] | join(" ")' "$tmp/adhoc.json")
why=$(jq -r '.probes[] | select(.name=="vfs_read") | .reason' "$tmp/adhoc.json")
if [ "$fentry_ok" = 0 ]; then
	t "vfs_read row: func, unavailable, adhoc, one latency stat ($vr)" test "$vr" = "func unavailable true 1"
	t "vfs_read row says why, as catalogue rows do ($why)" \
		bash -c "grep -qE 'vfs_read fentry: EPERM.*vfs_read kprobe: ' <<<'$why'"
else
	t "vfs_read row: func, attached, adhoc ($vr)" test "$vr" = "func attached true 1"
fi
t "only the ad-hoc row is marked adhoc, the catalogue rows are all there" \
	test "$(jq '[.probes[] | select(.adhoc)] | length' "$tmp/adhoc.json"):$(jq '.probes | length' "$tmp/adhoc.json")" = "1:$(( $(jq '.probes | length' "$tmp/r.json") + 1 ))"
t "human table has the vfs_read row" grep -q '^vfs_read ' "$tmp/adhoc.out"
cp "$tmp/adhoc.json" "$tmp/adhoc2.json"
t "compare matches the ad-hoc row by name" \
	bash -c "$fb compare '$tmp/adhoc.json' '$tmp/adhoc2.json' 2>&1 | grep -q 'func vfs_read'"
out=$($fb compare "$tmp/r.json" "$tmp/adhoc.json" 2>&1); rc=$?
t "compare refuses a side without the ad-hoc row, as for any row (rc=$rc)" \
	bash -c "[ $rc = 2 ] && grep -q \"probe 'vfs_read' is in NEW\" <<<\"\$1\"" _ "$out"
# ---- the overhead benchmark's trigger workload (reports/overhead/) ----
# The getppid loop runs here; the getppid row attaches (then it counts every
# call) or says why not, for each method tried; --attach limits the methods.
trig() {	# trig OUT [ARGS...]: a short trigger run with only the getppid row
	local out=$1; shift
	$fb run --workload trigger --probes getppid --param trigger.calls=20000 --out "$out" "$@" \
		>"$out.log" 2>&1
}
trig "$tmp/t.json"; rc=$?
top() { jq -r --arg o "$2" '.workloads[] | select(.name=="trigger") | .ops[$o]' "$1"; }
prow() { jq -r --arg k "$2" '.probes[] | select(.name=="getppid") | .[$k]' "$1"; }
t "run --workload trigger exits as the catalogue run did ($rc)" test "$rc" = "$want"
t "trigger made 20000 getppid calls, all answered, in a timed loop" \
	test "$(top "$tmp/t.json" calls)/$(top "$tmp/t.json" ppid_mismatch)/$(top "$tmp/t.json" loop_ns | grep -c '^[1-9]')" = 20000/0/1
why_has() { prow "$1" reason | grep -q "$2"; }
# mode_ok FILE TRIED SKIPPED: the row attached by TRIED, or unavailable
# with TRIED's own reason; SKIPPED is reported as not tried
mode_ok() {
	local why
	why=$(prow "$1" reason)
	case "$why" in *"$3: not tried (--attach $2)"*) ;; *) return 1 ;; esac
	case "$(prow "$1" status)/$(prow "$1" method)" in
	"attached/$2") ;;
	attached/fsession) [ "$2" = fentry ] ;;	# a trampoline method too
	unavailable/-) [[ $why == *"getppid $2: "* && $why != *"getppid $2: not tried"* ]] ;;
	*) return 1 ;;
	esac
}
if [ "$(prow "$tmp/t.json" status)" = attached ]; then
	t "getppid row attached ($(prow "$tmp/t.json" method)) counts every call" \
		test "$(jq -r '.probes[] | select(.name=="getppid") | .stats[0].count' "$tmp/t.json")" = 20000
else
	t "getppid row unavailable with each method's reason ($(prow "$tmp/t.json" reason | cut -c1-60)...)" \
		why_has "$tmp/t.json" 'getppid fentry: .*getppid kprobe: '
fi
trig "$tmp/tk.json" --attach kprobe
t "--attach kprobe: fentry not tried; kprobe attached or refused with its reason" mode_ok "$tmp/tk.json" kprobe fentry
trig "$tmp/tf.json" --attach fentry
t "--attach fentry: kprobe not tried; fentry attached or refused with its reason" mode_ok "$tmp/tf.json" fentry kprobe

# ---- stopping a run (issue 14): SIGTERM/SIGHUP like SIGINT, nothing left ----
# (netdevsim is not in this host kernel: tests/guest/stop-test.sh runs the
# same checks on the sysfs workload in a guest)
bash tests/host/stop-test.sh nft
