#!/usr/bin/env bash
# mr-gate.sh TREE BASE HEAD OUT - gate a change of the user's own kernel tree:
# the two revisions of the git tree TREE built and measured as the arms
# `base=TREE@BASE` and `head=TREE@HEAD` (`foliobench ab --arm`, icount
# guests, kernels cached by source tree), then `foliobench gate` with the
# user's expectations file.  Called by the CI examples of docs/ci/ from the
# runner's foliobench checkout; writes into OUT:
#   ab/          the rounds (ab.json, base/, head/)
#   gate.txt     the gate's output (gate.err its stderr), gate.xml its JUnit (--junit)
#   report.html  `foliobench report` of the rounds (and report.md)
#   summary.md   the verdict and the gate's lines, for a job summary or MR note
# and prints, as its last line, `foliobench-ci: gate exit N (WORD)`.
# Environment:
#   FB_EXPECT   the expectations file (default TREE/.foliobench/expect if it
#               exists: docs/gate.md; else the bare gate: no regression)
#   FB_AB_ARGS  ab's workload and round options (default
#               "--workload nft --workload sysfs"); word-split
# Exit status: the gate's (0 pass, 1 fail, 3 unknown: not shown safe,
# 2 unusable input); 2 when the arms could not be built or run.
set -uo pipefail
fb=$(cd "$(dirname "$0")/../.." && pwd)/foliobench
[ $# = 4 ] || { echo "usage: mr-gate.sh TREE BASE HEAD OUT" >&2; exit 2; }
tree=$1 base=$2 head=$3 out=$4
expect=${FB_EXPECT:-}
[ -n "$expect" ] || [ ! -f "$tree/.foliobench/expect" ] || expect=$tree/.foliobench/expect
read -r -a abargs <<<"${FB_AB_ARGS:---workload nft --workload sysfs}"
if ! b=$(git -C "$tree" rev-parse -q --verify "$base^{commit}") ||
	! h=$(git -C "$tree" rev-parse -q --verify "$head^{commit}"); then
	echo "mr-gate: $tree: unknown revision $base or $head (a shallow clone? fetch the base)" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
rm -rf "$out/ab"
say() { printf '%s\n' "$*" | tee -a "$out/summary.md"; }
: >"$out/summary.md"

echo "foliobench-ci: ab --arm base=$tree@$b --arm head=$tree@$h ${abargs[*]}"
"$fb" ab --arm "base=$tree@$b" --arm "head=$tree@$h" "${abargs[@]}" --out "$out/ab"
rc=$?
if [ $rc != 0 ]; then
	say "## foliobench: error"
	say "" "\`foliobench ab\` exited $rc: the arms could not be built or run (see the job log)."
	echo "foliobench-ci: gate exit 2 (error)"
	exit 2
fi
gate=("$fb" gate --junit "$out/gate.xml")
[ -z "$expect" ] || gate+=(--expect "$expect")
"${gate[@]}" "$out/ab" >"$out/gate.txt" 2>"$out/gate.err"
rc=$?
cat "$out/gate.txt" "$out/gate.err"
"$fb" report "$out/ab" && cp "$out/ab/report.html" "$out/ab/report.md" "$out/" ||
	echo "foliobench-ci: warning: no report (the verdict stands)"
case $rc in
0) word=pass line="pass: no regression shown" ;;
1) word=fail line="FAIL: a regression, lost data or an expectation not met" ;;
3) word=unknown line="not shown safe: too noisy for the rounds run; more rounds (ab --until-decided 15) may decide" ;;
*) word=error line="unusable input (exit $rc)" ;;
esac
{
	echo "## foliobench gate: $line"
	echo
	echo "\`${b:0:12}\` (base) vs \`${h:0:12}\` (head)${expect:+, expectations ${expect#"$tree"/}}; report.html and gate.xml in the job's artifacts."
	echo
	echo '```'
	head -60 "$out/gate.txt"
	tail -3 "$out/gate.err"
	echo '```'
} >>"$out/summary.md"
echo "foliobench-ci: gate exit $rc ($word)"
exit $rc
