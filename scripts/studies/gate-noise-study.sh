#!/usr/bin/env bash
# gate-noise-study.sh - the gate with per-row noise, calibrated on one set of
# A/A runs and measured on ANOTHER (calibrating and testing on the same
# rounds is not honest): A/A pass / unknown / false alarms, and detection of
# changes applied to NEW's recorded values (build/sim/gate_pool --shift: the
# real boot-to-boot noise of the rounds, an injected change of exactly PCT
# on one metric; not a kernel change), at 3, 5 and 10 rounds per side and
# with the sequential looks of `ab --until-decided 15` (5,5,15).
#
#   scripts/studies/gate-noise-study.sh [--trials N] [--shift ID=PCT]... [--rounds "3 5 10"]
#       [--looks F,S,M] [--no-noise] CAL_AB_DIR... -- EVAL_AB_DIR...
#   scripts/studies/gate-noise-study.sh [options] --halves AB_DIR
#
# --halves: one A/A ab directory, rounds 1..N of both arms (N complete in
# both): calibrate on rounds 1..N/2, measure on rounds N/2+1..N.
#
# Prints a markdown table; the noise file is written to $TMPDIR and removed.
set -euo pipefail

die() { echo "gate-noise-study: $*" >&2; exit 2; }
trials=500 rounds="3 5 10" looks=5,5,15 nonoise=0 halves=
shifts=() cal=() ev=()
side=cal
while [ $# -gt 0 ]; do
	case "$1" in
	--trials) [ $# -ge 2 ] || die "--trials needs a value"; trials=$2; shift 2 ;;
	--shift) [ $# -ge 2 ] || die "--shift needs ID=PCT"; shifts+=(--shift "$2"); shift 2 ;;
	--rounds) [ $# -ge 2 ] || die "--rounds needs a list"; rounds=$2; shift 2 ;;
	--looks) [ $# -ge 2 ] || die "--looks needs F,S,M"; looks=$2; shift 2 ;;
	--no-noise) nonoise=1; shift ;;
	--halves) [ $# -ge 2 ] || die "--halves needs an ab directory"; halves=$2; shift 2 ;;
	--) side=ev; shift ;;
	-h|--help) sed -n '2,18p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) if [ $side = cal ]; then cal+=("$1"); else ev+=("$1"); fi; shift ;;
	esac
done
[[ $trials =~ ^[1-9][0-9]{0,5}$ ]] || die "--trials takes a whole number from 1, not '$trials'"
here=$(cd "$(dirname "$0")/../.." && pwd)
fb=$here/foliobench pool=$here/build/sim/gate_pool
[ -x "$fb" ] && [ -x "$pool" ] || die "build first: make && make sim"
tmp=$(mktemp -d /tmp/fb-noise-study.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$halves" ]; then
	[ -d "$halves/baseline" ] && [ -d "$halves/patched" ] || die "$halves: not an ab directory"
	n=$(ls "$halves"/baseline/round-*.json 2>/dev/null | wc -l)
	m=$(ls "$halves"/patched/round-*.json 2>/dev/null | wc -l)
	[ "$m" -lt "$n" ] && n=$m
	h=$((n / 2))
	[ "$h" -ge 2 ] || die "$halves: $n complete rounds per arm, want at least 4"
	for arm in baseline patched; do
		mkdir -p "$tmp/h-cal/$arm" "$tmp/h-ev/$arm"
		for ((i = 1; i <= n; i++)); do
			d=$tmp/h-ev; [ $i -le $h ] && d=$tmp/h-cal
			[ -f "$halves/$arm/round-$i.json" ] || die "$halves/$arm/round-$i.json missing"
			ln -s "$(readlink -f "$halves/$arm/round-$i.json")" "$d/$arm/round-$i.json"
		done
	done
	echo "# $halves: $n rounds per arm; calibrated on rounds 1-$h, measured on rounds $((h + 1))-$n"
	cal=("$tmp/h-cal") ev=("$tmp/h-ev")
fi
[ ${#cal[@]} -ge 1 ] && [ ${#ev[@]} -ge 1 ] || die "usage: gate-noise-study.sh [opts] CAL_DIR... -- EVAL_DIR..."

noise=()
if [ $nonoise = 0 ]; then
	"$fb" gate --calibrate --noise "$tmp/noise.json" "${cal[@]}" >"$tmp/cal" ||
		die "calibration failed"
	noise=(--noise "$tmp/noise.json")
	sed 's/^/# /' "$tmp/cal"
fi
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| rounds a side | A/A pass | unknown | false alarms | $(for ((i = 1; i < ${#shifts[@]}; i += 2)); do printf '%s detected | ' "${shifts[i]}"; done)other rows named | mean rounds used (A/A, shifted) |"
echo "|---|---|---|---|$(for ((i = 1; i < ${#shifts[@]}; i += 2)); do printf -- '---|'; done)---|---|"
row() {	# label, gate_pool options...
	local label=$1 aa det
	shift
	aa=$("$pool" "${noise[@]}" --trials "$trials" "$@" "${ev[@]}")
	det=$("$pool" "${noise[@]}" --trials "$trials" "${shifts[@]}" "$@" "${ev[@]}")
	printf '| %s | %s | %s | %s | ' "$label" \
		"$(awk '/pass [0-9]+, fail/ { gsub(",", ""); print $2 }' <<<"$aa")/$trials" \
		"$(awk '/pass [0-9]+, fail/ { gsub(",", ""); print $6 }' <<<"$aa")/$trials" \
		"$(awk '/pass [0-9]+, fail/ { gsub(",", ""); print $4 }' <<<"$aa")/$trials"
	awk -v t="$trials" '/named in/ { printf "%s/%s | ", $(NF - 3), t }' <<<"$det"
	printf '%s | %s, %s |\n' \
		"$(awk '/unshifted metric/ { print $NF }' <<<"$det")/$trials" \
		"$(awk '/used: mean/ { print $NF }' <<<"$aa" | grep . || echo "-")" \
		"$(awk '/used: mean/ { print $NF }' <<<"$det" | grep . || echo "-")"
}
for r in $rounds; do
	row "$r" --rounds "$r"
done
row "until-decided (looks $looks)" --looks "$looks"
echo
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
