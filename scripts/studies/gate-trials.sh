#!/usr/bin/env bash
# gate-trials.sh - measure the regression gate's A/A false-alarm rate and its
# detection rate for an injected regression, from `foliobench ab` runs.
#
#   scripts/studies/gate-trials.sh aa     [opts] AB_DIR...   false alarms
#   scripts/studies/gate-trials.sh detect [opts] AB_DIR...   detection rate
#
# aa:     every AB_DIR is an A/A run: both arms booted the SAME kernel, e.g.
#           foliobench ab --baseline baseline --patched baseline --rounds R
#         All rounds of all arms of all AB_DIRs form one pool.
# detect: every AB_DIR compares baseline with the injected-regression kernel:
#           foliobench ab --baseline baseline --patched regress --rounds R
#         (kernel-patches/testing, arm `regress`).  Pools: all baseline/
#         rounds and all patched/ rounds.
#
# Each trial draws R rounds for BASE and R rounds for NEW without
# replacement (disjoint within the trial), runs `foliobench gate` on them
# and counts its three outcomes: exit 1 fail (aa: a false alarm; detect: a
# detection if the injected metric is among the REGRESSED rows), exit 0
# pass (detect: a missed regression let through), exit 3 unknown (not
# shown safe: the CI must treat it as "not passed").  --trials 0 instead cuts
# each arm's rounds, in AB_DIR order, into consecutive chunks of R: trials
# that share no round (with R = the rounds of each AB_DIR, one trial per
# AB_DIR, as it was measured).
#
# Resampled trials reuse the same rounds, so they are not independent: the
# estimate is only as good as the pool is large and varied (several ab runs,
# different boots).  The script prints both counts and a 95% Wilson interval.
#
# --looks FIRST,STEP,MAX runs the sequential gate of `ab --until-decided`
# instead: each resampled trial draws MAX rounds a side and gives the gate
# the first FIRST, FIRST+STEP, ... of them (`foliobench gate --looks`)
# until it passes or fails; the last look's undecided is unknown.  Prints
# the mean rounds per side used.
#
# Options:
#   --rounds R          rounds per side per trial (default: rounds in the
#                       first AB_DIR's patched/, i.e. the ab default)
#   --looks F,S,M       sequential gate (see above; resampled trials only)
#   --trials N          resampled trials (default 500; 0 = disjoint chunks)
#   --metric ID         the injected metric (default func:nft_trans_alloc:p50)
#   --max-regression P, --alpha A, --metrics GLOBS, --noise FILE   passed to foliobench gate
#   --seed S            PRNG seed of the draws (default 1)
#   --foliobench PATH   (default ./foliobench)
set -euo pipefail

die() { echo "gate-trials: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: gate-trials.sh aa|detect [options] AB_DIR..."
mode=$1; shift
case "$mode" in aa|detect) ;; *) die "mode must be aa or detect, not '$mode'" ;; esac

rounds= looks= trials=500 metric=func:nft_trans_alloc:p50 seed=1 fb=./foliobench
gate_opts=()
dirs=()
while [ $# -gt 0 ]; do
	case "$1" in --rounds|--trials|--metric|--seed|--looks|--foliobench|--max-regression|--alpha|--metrics|--noise)
		[ $# -ge 2 ] || die "$1 needs a value" ;;
	esac
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--trials) trials=$2; shift 2 ;;
	--metric) metric=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--looks) looks=$2; shift 2 ;;
	--foliobench) fb=$2; shift 2 ;;
	--max-regression|--alpha|--metrics|--noise) gate_opts+=("$1" "$2"); shift 2 ;;
	-h|--help) sed -n '2,44p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) dirs+=("$1"); shift ;;
	esac
done
[ ${#dirs[@]} -ge 1 ] || die "no AB_DIR given"
# whole NAME VALUE MIN MAX: a whole number from MIN to MAX, or die
whole() {
	[[ $2 =~ ^[0-9]{1,9}$ ]] && [ "$((10#$2))" -ge "$3" ] && [ "$((10#$2))" -le "$4" ] ||
		die "$1 takes a whole number from $3 to $4, not '$2'"
}
whole --trials "$trials" 0 100000
whole --seed "$seed" 0 999999999
[ -z "$rounds" ] || whole --rounds "$rounds" 1 1000
[ -z "$looks" ] || [[ $looks =~ ^[1-9][0-9]{0,3},[1-9][0-9]{0,3},[1-9][0-9]{0,3}$ ]] ||
	die "--looks takes FIRST,STEP,MAX (whole numbers), not '$looks'"
[ -x "$fb" ] || die "$fb not found (build with make, or pass --foliobench)"

# round files of one arm directory, sorted
arm_files() { find -L "$1" -name '*.json' ! -name ab.json -type f 2>/dev/null | sort -V; }

pool_a=() pool_b=()
for d in "${dirs[@]}"; do
	[ -d "$d/baseline" ] && [ -d "$d/patched" ] || die "$d: expected baseline/ and patched/ (an ab directory)"
	mapfile -t fa < <(arm_files "$d/baseline")
	mapfile -t fbb < <(arm_files "$d/patched")
	[ ${#fa[@]} -gt 0 ] && [ ${#fbb[@]} -gt 0 ] || die "$d: an arm has no round files"
	if [ "$mode" = aa ]; then
		pool_a+=("${fa[@]}" "${fbb[@]}")
	else
		pool_a+=("${fa[@]}")
		pool_b+=("${fbb[@]}")
	fi
done
[ -n "$rounds" ] || rounds=$(arm_files "${dirs[0]}/patched" | wc -l)
if [ -n "$looks" ]; then
	IFS=, read -r l_first l_step l_max <<<"$looks"
	[ "$trials" -gt 0 ] && [ -n "$l_max" ] || die "--looks F,S,M wants resampled trials"
	rounds=$l_max
	gate_opts+=(--looks "$looks")
fi

tmp=$(mktemp -d /tmp/gate-trials.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shuffled copy of the arguments, deterministic for (seed, trial)
shuffle() {
	local s=$1; shift
	printf '%s\n' "$@" | awk -v s="$s" 'BEGIN { srand(s) } { print rand() "\t" $0 }' |
		sort -k1,1g | cut -f2-
}

fails=0 hits=0 errors=0 n=0 passes=0 unknowns=0 used=0
declare -A named=()
one_trial() {	# $1 = trial dir holding base/ and new/
	local out rc=0
	out=$("$fb" gate "${gate_opts[@]}" "$1/base" "$1/new" 2>&1) || rc=$?
	n=$((n + 1))
	case $rc in
	0) passes=$((passes + 1)) ;;
	3) unknowns=$((unknowns + 1)) ;;
	1)
		fails=$((fails + 1))
		grep -q "^REGRESSED *$metric " <<<"$out" && hits=$((hits + 1))
		while read -r id; do
			named[$id]=$(( ${named[$id]:-0} + 1 ))
		done < <(awk '/^gate: FAIL/ { f = 1; next } f && /^REGRESSED/ { print $2 }' <<<"$out")
		;;
	*)
		errors=$((errors + 1))
		# (an `[ ] && echo` here ended the script under set -e at the 4th error)
		if [ $errors -le 3 ]; then echo "gate-trials: gate exit $rc: $(tail -1 <<<"$out")" >&2; fi
		;;
	esac
}

# sequential trial: base and new hold MAX rounds each (arrays sa, sb)
seq_trial() {
	local k=$l_first rc=3 out
	while :; do
		link_set "$tmp/t/base" "${sa[@]:0:$k}"
		link_set "$tmp/t/new" "${sb[@]:0:$k}"
		rc=0
		out=$("$fb" gate "${gate_opts[@]}" "$tmp/t/base" "$tmp/t/new" 2>&1) || rc=$?
		[ "$rc" -eq 3 ] && [ "$k" -lt "$l_max" ] || break
		k=$((k + l_step)); [ "$k" -gt "$l_max" ] && k=$l_max
	done
	used=$((used + k))
	n=$((n + 1))
	case $rc in
	0) passes=$((passes + 1)) ;;
	3) unknowns=$((unknowns + 1)) ;;
	1)
		fails=$((fails + 1))
		if grep -q "^REGRESSED *$metric " <<<"$out"; then hits=$((hits + 1)); fi ;;
	*)
		errors=$((errors + 1))
		if [ $errors -le 3 ]; then echo "gate-trials: gate exit $rc: $(tail -1 <<<"$out")" >&2; fi
		;;
	esac
}

link_set() {	# dest, files...
	local d=$1; shift
	rm -rf "$d"; mkdir -p "$d"
	local i=0 f
	for f in "$@"; do
		i=$((i + 1))
		ln -s "$(readlink -f "$f")" "$d/round-$i.json"
	done
}

if [ "$trials" -eq 0 ]; then
	# disjoint trials: each arm's rounds in ab-directory order, cut into
	# consecutive chunks of R; no round is in two trials
	seq_a=() seq_b=()
	for d in "${dirs[@]}"; do
		mapfile -t fa < <(arm_files "$d/baseline")
		mapfile -t fbb < <(arm_files "$d/patched")
		seq_a+=("${fa[@]}")
		seq_b+=("${fbb[@]}")
	done
	for ((i = 0; i + rounds <= ${#seq_a[@]} && i + rounds <= ${#seq_b[@]}; i += rounds)); do
		link_set "$tmp/t/base" "${seq_a[@]:$i:$rounds}"
		link_set "$tmp/t/new" "${seq_b[@]:$i:$rounds}"
		one_trial "$tmp/t"
	done
else
	if [ "$mode" = aa ]; then
		[ ${#pool_a[@]} -ge $((2 * rounds)) ] ||
			die "A/A needs at least $((2 * rounds)) rounds in the pool, has ${#pool_a[@]}"
	else
		[ ${#pool_a[@]} -ge "$rounds" ] && [ ${#pool_b[@]} -ge "$rounds" ] ||
			die "detect needs $rounds rounds of each arm, has ${#pool_a[@]} and ${#pool_b[@]}"
	fi
	for t in $(seq 1 "$trials"); do
		if [ "$mode" = aa ]; then
			mapfile -t s < <(shuffle $((seed * 100003 + t)) "${pool_a[@]}")
			sa=("${s[@]:0:$rounds}") sb=("${s[@]:$rounds:$rounds}")
		else
			mapfile -t s < <(shuffle $((seed * 100003 + t)) "${pool_a[@]}")
			sa=("${s[@]:0:$rounds}")
			mapfile -t s < <(shuffle $((seed * 100019 + t)) "${pool_b[@]}")
			sb=("${s[@]:0:$rounds}")
		fi
		if [ -n "$looks" ]; then
			seq_trial
			continue
		fi
		link_set "$tmp/t/base" "${sa[@]}"
		link_set "$tmp/t/new" "${sb[@]}"
		one_trial "$tmp/t"
	done
fi

# 95% Wilson score interval for k of n
wilson() {
	awk -v k="$1" -v n="$2" 'BEGIN {
		if (n == 0) { print "-"; exit }
		z = 1.959964; p = k / n; d = 1 + z*z/n
		c = (p + z*z/(2*n)) / d; h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / d
		lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1
		printf "%.1f%% (95%% CI %.1f%%..%.1f%%)", 100*p, 100*lo, 100*hi }'
}

echo "gate-trials: mode $mode, ${#dirs[@]} ab dir(s), pool ${#pool_a[@]}${pool_b:+ + ${#pool_b[@]}} rounds," \
     "$rounds rounds per side, $n trials$([ "$trials" -eq 0 ] && echo ' (disjoint: no shared rounds)' || echo ' (resampled)')," \
     "gate options: ${gate_opts[*]:-defaults}"
valid=$((n - errors))
[ -z "$looks" ] || echo "sequential: looks $looks; rounds per side used: mean" \
	"$(awk -v u="$used" -v n="$n" 'BEGIN { printf "%.1f", n ? u / n : 0 }')"
if [ "$mode" = aa ]; then
	echo "A/A false alarms: $fails of $valid = $(wilson "$fails" "$valid")"
	echo "A/A passed: $passes of $valid = $(wilson "$passes" "$valid"); unknown (exit 3): $unknowns"
else
	echo "detected ($metric named): $hits of $valid = $(wilson "$hits" "$valid")"
	echo "gate failed for any metric: $fails of $valid"
	echo "regression passed (let through): $passes of $valid = $(wilson "$passes" "$valid");" \
	     "unknown (exit 3): $unknowns"
	# size of the injected effect on the whole pools, so the claim is measured, not assumed
	link_set "$tmp/all/base" "${pool_a[@]}"
	link_set "$tmp/all/new" "${pool_b[@]}"
	"$fb" compare --format csv "$tmp/all/base" "$tmp/all/new" 2>/dev/null |
		awk -F, -v id="$metric" '{ if ($1 ":" $2 ":" $3 == id)
			printf "injected effect on %s over all pooled rounds: median %s -> %s ns (%+.1f%%)\n", id, $8, $9, $10 }'
fi
for id in "${!named[@]}"; do
	echo "  named in failures: $id ${named[$id]}x"
done
[ $errors -eq 0 ] || echo "gate-trials: $errors trial(s) ended with exit 2 (unusable input), not counted"
