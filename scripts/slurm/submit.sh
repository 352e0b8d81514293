#!/usr/bin/env bash
# submit.sh - one foliobench A/B run as Slurm jobs: build the kernels once,
# boot N shards as an array job, then merge and gate.
#
#   scripts/slurm/submit.sh [-n N] [-p P] [-o RESULTS] [--skip-build]
#                           [-s SBATCH_OPT]... [--] [AB ARGS...]
#
#   -n N          shards (array tasks), default 2
#   -p P          at most P shards at once (sbatch --array=1-N%P), default N
#   -o RESULTS    results directory on storage every node sees
#                 (default results/slurm-<time> in the checkout)
#   --skip-build  no build job: the kernels are in the cache already (the
#                 shards refuse, exit 2, if not)
#   -s OPT        passed to every sbatch (repeatable): -s --partition=x
#   AB ARGS       the arguments of `foliobench ab`, the same for every job:
#                 --rounds (the whole run's), --workload, --baseline, ...
#
# The checkout (this script's repository, with ./foliobench built) and the
# kernel cache ($FB_CACHE, or ab --cache DIR) must be at the same path on
# every node: a shared file system.  Prints one line, "build=ID shards=ID
# merge=ID results=DIR"; the merge job's exit code is the gate's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export FB_REPO=${FB_REPO:-$(cd "$here/../.." && pwd)}
n=2 par="" out="" build=1 opts=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-p) par=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-s) opts+=("$2"); shift 2 ;;
	--skip-build) build=0; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: error: -n wants a shard count, not '$n'" >&2; exit 2; }
[ -z "$par" ] || [[ $par =~ ^[1-9][0-9]*$ ]] ||
	{ echo "submit.sh: error: -p wants a number, not '$par'" >&2; exit 2; }
[ -x "$FB_REPO/foliobench" ] || { echo "submit.sh: error: build $FB_REPO/foliobench first (make)" >&2; exit 2; }
out=${out:-$FB_REPO/results/slurm-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
sb=(sbatch --parsable --export=ALL "${opts[@]}")

dep=()
bid=none
if [ $build = 1 ]; then
	bid=$("${sb[@]}" --output="$out/build.out" "$here/build.sbatch" "$@")
	dep=(--dependency="afterok:$bid" --kill-on-invalid-dep=yes)
fi
sid=$("${sb[@]}" "${dep[@]}" --array="1-$n${par:+%$par}" --output="$out/shard-%a.out" \
	"$here/shard.sbatch" "$out" "$@")
mid=$("${sb[@]}" --dependency="afterany:$sid" --kill-on-invalid-dep=yes \
	--output="$out/merge.out" "$here/merge.sbatch" "$out" "$n")
echo "build=$bid shards=$sid merge=$mid results=$out"
