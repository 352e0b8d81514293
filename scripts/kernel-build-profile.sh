#!/usr/bin/env bash
# kernel-build-profile.sh BUILD_LOG [DEPTH] - where a kernel build spent its time.
#
# BUILD_LOG is a build.log written by scripts/kernel-build.sh: every line
# starts with its wall-clock time in ms.  Kbuild prints a quiet line
# ("  CC      fs/kernfs/dir.o") when a step starts, so the time up to the
# next line is charged to that step's directory (DEPTH path components,
# default 2), or to the step itself for the link steps (LD, BTF, objtool,
# ...).  With -jN the steps overlap: the charge is wall time, which is
# what a person waits for, not CPU time.
#
# Prints one line per directory, largest first: seconds, share, objects.
set -euo pipefail
log=${1:?usage: kernel-build-profile.sh BUILD_LOG [DEPTH]}
depth=${2:-2}
[ -r "$log" ] || { echo "kernel-build-profile: error: cannot read $log" >&2; exit 2; }
[[ $depth =~ ^[1-9]$ ]] || { echo "kernel-build-profile: error: DEPTH must be 1-9" >&2; exit 2; }

awk -v depth="$depth" '
function key(line,   f, n, p, i, k) {
	n = split(line, f, " ")
	if (n < 3)
		return "(other)"
	if (f[2] != "CC" && f[2] != "AS" && f[2] != "AR")
		return "[" f[2] "]"		# a link or post-link step
	if (substr(f[3], 1, 1) == "/")
		return "[host tools]"		# objtool, resolve_btfids: absolute paths
	p = split(f[3], parts, "/")
	k = parts[1]
	for (i = 2; i <= depth && i < p; i++)
		k = k "/" parts[i]
	return k
}
$1 ~ /^[0-9]+$/ {
	t = $1
	if (have) {
		secs[cur] += (t - last) / 1000
		total += (t - last) / 1000
	}
	cur = key($0); last = t; have = 1
	if ($2 == "CC")
		objs[cur]++
	nobj += ($2 == "CC")
}
END {
	if (!have || total <= 0) {
		print "kernel-build-profile: error: no timed lines (a build.log from kernel-build.sh?)" > "/dev/stderr"
		exit 2
	}
	printf "%8.1f s  total wall time, %d objects compiled\n", total, nobj
	for (k in secs)
		printf "%8.1f s %5.1f%% %6d  %s\n", secs[k], 100 * secs[k] / total, objs[k], k | "sort -rn"
}' "$log"
