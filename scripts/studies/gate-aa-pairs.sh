#!/usr/bin/env bash
# gate-aa-pairs.sh - the README's bare CI gate (`foliobench gate DIR`, no
# --noise: the noise shipped in kernel-patches/noise/ is found by BASE's
# kernel) on unchanged code, pair by pair: every POOL is an ab directory of
# R rounds a side whose two arms are unchanged code (the same kernel, or the
# baseline against the comment-only `noop` arm); its rounds are cut into
# R/K disjoint pairs of K rounds a side (rounds 1..K, K+1..2K, ...), each
# pair a directory of its own, gated as a user's 5-round ab run would be.
# No round is in two pairs, so every pair is fresh boots.
#
#   scripts/studies/gate-aa-pairs.sh [--rounds K] [--keep DIR] POOL...
#
# Prints one line per pair (pool, rounds, exit, the gate's verdict line and
# the rows it did not pass) and a summary: pass / unknown / fail.
set -euo pipefail

die() { echo "gate-aa-pairs: $*" >&2; exit 2; }
k=5 keep= pools=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) [ $# -ge 2 ] || die "--rounds needs a value"; k=$2; shift 2 ;;
	--keep) [ $# -ge 2 ] || die "--keep needs a directory"; keep=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [ -f "$1/ab.json" ] || die "$1: not an ab directory (no ab.json)"; pools+=("$1"); shift ;;
	esac
done
[[ $k =~ ^[1-9][0-9]?$ ]] || die "--rounds takes a whole number from 1 to 99, not '$k'"
[ ${#pools[@]} -gt 0 ] || die "give one or more A/A ab directories"
here=$(cd "$(dirname "$0")/../.." && pwd)
fb=$here/foliobench
work=$(mktemp -d /tmp/gate-aa-pairs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# One pair: rounds FIRST..FIRST+K-1 of both arms, renumbered 1..K.
cut_pair() {
	local pool=$1 first=$2 out=$3 arm i
	mkdir -p "$out/baseline" "$out/patched"
	for arm in baseline patched; do
		for ((i = 0; i < k; i++)); do
			cp "$pool/$arm/round-$((first + i)).json" "$out/$arm/round-$((i + 1)).json" ||
				return 1
			[ ! -f "$pool/$arm/console-round-$((first + i)).log" ] ||
				cp "$pool/$arm/console-round-$((first + i)).log" \
					"$out/$arm/console-round-$((i + 1)).log"
		done
	done
	python3 - "$pool/ab.json" "$out/ab.json" "$k" "$first" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k, first = int(sys.argv[3]), int(sys.argv[4])
d["rounds"] = k
d.pop("shard", None)
d.pop("until_decided", None)
runs = []
for r in d.get("runs", []):
    if first <= r["round"] < first + k:
        r = dict(r, round=r["round"] - first + 1)
        for f in ("result", "console"):
            if f in r:
                r[f] = r[f].replace(f"round-{r['round'] + first - 1}.", f"round-{r['round']}.")
        runs.append(r)
d["runs"] = runs
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
}

pass=0 unknown=0 fail=0 other=0 n=0
for pool in "${pools[@]}"; do
	# rounds complete in both arms (a pool still being measured, or stopped, counts
	# its whole rounds only)
	r=0
	while [ -f "$pool/baseline/round-$((r + 1)).json" ] && [ -f "$pool/patched/round-$((r + 1)).json" ]; do
		r=$((r + 1))
	done
	for ((first = 1; first + k - 1 <= r; first += k)); do
		n=$((n + 1))
		d=$work/pair-$n
		cut_pair "$pool" "$first" "$d" || die "$pool: rounds $first..$((first + k - 1)) incomplete"
		rc=0
		"$fb" gate "$d" >"$d/gate.txt" 2>&1 || rc=$?
		case $rc in
		0) pass=$((pass + 1)) ;;
		1) fail=$((fail + 1)) ;;
		3) unknown=$((unknown + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
		printf '%s rounds %d-%d: exit %d: %s\n' "$(basename "$pool")" "$first" \
			"$((first + k - 1))" "$rc" "$(grep -m1 '^gate: \(pass\|FAIL\|UNKNOWN\)' "$d/gate.txt" |
			cut -c1-100)"
		grep -iE '^(REGRESSED|undecided|LOST) ' "$d/gate.txt" | sed 's/^/    /' | cut -c1-160 || true
		[ -z "$keep" ] || { mkdir -p "$keep" && cp -r "$d" "$keep/"; }
	done
done
echo "pairs: $n of $k+$k rounds; pass $pass, unknown $unknown, fail $fail, other $other"
