# tests/guest/lib.sh - helpers sourced by the guest test scripts.
# shellcheck shell=bash
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
# t NAME COMMAND...: ok/not ok from COMMAND's exit status
t() { local n=$1; shift; if "$@"; then ok "$n"; else nok "$n"; fi; }
# probe FILE NAME [STAT]: count of a probe's STAT-th histogram (0 if absent)
probe() { jq -r --arg n "$2" --arg s "${3:-0}" '.probes[] | select(.name==$n) | .stats[$s|tonumber].count // 0' "$1"; }
# status FILE NAME: "status/method" of a probe
status() { jq -r --arg n "$2" '.probes[] | select(.name==$n) | .status + "/" + .method' "$1"; }
# op FILE WORKLOAD OP: a workload's own op count (0 if absent)
op() { jq -r --arg w "$2" --arg o "$3" '.workloads[] | select(.name==$w) | .ops[$o] // 0' "$1"; }
# have SERIES: the series has patches (kernel-patches/SERIES/series)
have() { [ -s "kernel-patches/$1/series" ]; }
# suite LOG NAME: a KUnit suite's result line in a boot log, "pass:N fail:N skip:N"
suite() { grep -oE "# $2: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+" "$1" | head -1 | sed 's/^# [^ ]* //'; }
