#!/bin/sh
# kprobe-variant.sh X.bt - print X-kprobe.bt, the kprobe/kretprobe variant of
# the kfunc (fentry/fexit) script X.bt.  X.bt is the one source of both:
#   a line ending in "//@kfunc" is in X.bt only (dropped here);
#   a line starting "//@kprobe " is in the kprobe variant only (a comment in
#   X.bt; printed here without that prefix).
# Every other line is in both.  After editing X.bt:
#   scripts/bpftrace/kprobe-variant.sh scripts/bpftrace/X.bt > scripts/bpftrace/X-kprobe.bt
# (tests/host/host-test.sh checks that every X-kprobe.bt is what this prints).
set -eu
[ $# = 1 ] && [ -f "$1" ] || { echo "kprobe-variant.sh: usage: kprobe-variant.sh X.bt" >&2; exit 2; }
sed -e '/\(^\| \)\/\/@kfunc$/d' -e 's|^//@kprobe \{0,1\}||' "$1"
