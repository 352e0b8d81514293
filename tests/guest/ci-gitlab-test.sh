#!/usr/bin/env bash
# ci-gitlab-test.sh RESULTS_DIR - docs/ci/.gitlab-ci.yml run by gitlab-ci-local
# (4.50.0, shell executor; scripts/deps.sh installs it under the cache) as a
# user's merge request pipeline would run it (issue 40, item 5).
#
# The user's kernel tree is made from the cached base source tree
# (scripts/kernel-src.sh; git clone --shared --no-checkout: no work tree,
# objects borrowed): the pinned base as origin/main, and on it one
# comment-only commit (kernel-patches/noop's hunk) as the merge request's
# head, with the CI file and an expectations file (.foliobench/expect:
# nothing may change) beside it.  The job builds both revisions as `--arm`
# git trees (kernels cached by source tree: tree-perf-*, built once, two
# arm switches when cold), runs 5 rounds of nft with one probe (10 boots; 3
# are too few for a gate with an expectation: exit 2), gates and
# reports.  Checked:
#   - the job prints `gate exit N` and its exit code is N (gitlab-ci-local's
#     summary: none for 0, `WARN 3` for the allowed 3, `FAIL N` else: its
#     status is WARN exactly for 3, FAIL for 1 and 2);
#   - a comment-only change never fails the gate (N is 0 or 3);
#   - the artifacts: JUnit XML, report.html and the summary with the verdict;
#   - run again with 1 round a side (2 boots): the gate exits 2 (too few
#     rounds for any test), and the job fails with exit code 2.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}" || exit 1
res=$1
repo=$PWD
. tests/guest/lib.sh
cache=${FB_CACHE:-/var/cache/foliobench}
glci=$cache/tools/gitlab-ci-local-4.50.0/node_modules/.bin/gitlab-ci-local
if [ ! -x "$glci" ]; then
	nok "ci-gitlab: gitlab-ci-local 4.50.0 installed (make deps)"
	exit 0
fi
src=$(scripts/kernel-src.sh 2>"$res/ci-gitlab-src.log") || {
	nok "ci-gitlab: base source tree (scripts/kernel-src.sh)"
	exit 0
}
tmp=$(mktemp -d /tmp/fb-ci-gitlab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git=(git -c user.name=foliobench-test -c user.email=test@foliobench.invalid)
export GIT_AUTHOR_DATE=2026-01-02T00:00:00Z GIT_COMMITTER_DATE=2026-01-02T00:00:00Z

# ---- the user's kernel tree: origin/main the pinned base, HEAD one comment-only commit ----
gd=$tmp/linux
"${git[@]}" clone -q --shared --no-checkout "$src" "$gd"
base=$(git -C "$gd" rev-parse -q --verify 'base^{commit}')
idx=$tmp/index
GIT_INDEX_FILE=$idx git -C "$gd" read-tree "$base" &&
	GIT_INDEX_FILE=$idx git -C "$gd" apply --cached "$repo"/kernel-patches/noop/0001-*.patch &&
	tree=$(GIT_INDEX_FILE=$idx git -C "$gd" write-tree) &&
	head=$("${git[@]}" -C "$gd" commit-tree -p "$base" -m "kernfs: a comment-only change" "$tree") &&
	git -C "$gd" update-ref refs/remotes/origin/main "$base" &&
	git -C "$gd" update-ref --no-deref HEAD "$head" &&
	git -C "$gd" remote set-url origin https://gitlab.invalid/user/linux.git
t "ci-gitlab: user's tree: base ${base:0:12} and a comment-only head ${head:-none}" \
	test -n "${head:-}" -a "$(git -C "$gd" diff --name-only "$base" "${head:-$base}")" = fs/kernfs/dir.c
[ -n "${head:-}" ] || exit 0
cp docs/ci/.gitlab-ci.yml "$gd/.gitlab-ci.yml"
mkdir -p "$gd/.foliobench"
printf 'foliobench-expect 1\n# a comment-only change: the hot path may not slow down\nnft_trans_alloc  cmean  rise <= 1%%\n' \
	>"$gd/.foliobench/expect"

# job NAME ROUNDS: the merge request pipeline's job in gitlab-ci-local, ROUNDS
# rounds of nft with one probe; sets rc (its
# exit), gate (the `gate exit N` its log prints), job (the job's exit code as
# gitlab-ci-local reports it: none for 0, `WARN N` allowed, `FAIL N`), secs;
# artifacts to $res/NAME
job() {
	local t0 sum log=$gd/.gitlab-ci-local/output/foliobench-gate.log
	t0=$(date +%s)
	(cd "$gd" && "$glci" --variable FOLIOBENCH="$repo" \
		--variable CI_PIPELINE_SOURCE=merge_request_event \
		--variable CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" \
		--variable FB_AB_ARGS="--rounds $2 --workload nft --probes nft_trans_alloc" \
		foliobench-gate) >"$res/$1.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	rm -rf "${res:?}/$1"
	cp -r "$gd/foliobench-ci" "$res/$1" 2>/dev/null
	cp "$log" "$res/$1.job.log" 2>/dev/null
	gate=$(grep -ao 'foliobench-ci: gate exit [0-9]*' "$log" 2>/dev/null | tail -1 | grep -o '[0-9]*$')
	sum=$(sed 's/\x1b\[[0-9;]*m//g' "$res/$1.log" | grep -a '^foliobench-gate finished in')
	case $sum in
	*"WARN "[0-9]*) kind=WARN job=$(grep -o 'WARN [0-9]*' <<<"$sum" | cut -d' ' -f2) ;;
	*"FAIL "[0-9]*) kind=FAIL job=$(grep -o 'FAIL [0-9]*' <<<"$sum" | cut -d' ' -f2) ;;
	*finished*) kind=pass job=0 ;;
	*) kind=none job=none ;;
	esac
	echo "# $1: gitlab-ci-local exit $rc in ${secs}s; $sum"
	sed 's/^/#   /' "$res/$1/gate.txt" 2>/dev/null
	t "$1: the job printed the gate's exit code (${gate:-none})" test -n "$gate"
	t "$1: the job's exit code ($job) is the gate's (${gate:-none})" test "$job" = "${gate:-x}"
	# (gitlab-ci-local's own exit status takes any allow_failure: {exit_codes}
	# as allowing every code, executor.js; the job's status line is GitLab's)
	want=FAIL
	case ${gate:-x} in 0) want=pass ;; 3) want=WARN ;; esac
	t "$1: the job's status is $kind: passed for 0, WARN (allowed: allow_failure: exit_codes: [3]) for 3, else FAIL (want $want)" \
		test "$kind" = "$want"
}

job ci-gitlab 5
t "ci-gitlab: a comment-only change never fails the gate (exit ${gate:-none}: 0 or 3)" \
	bash -c "[ '${gate:-x}' = 0 ] || [ '${gate:-x}' = 3 ]"
t "ci-gitlab: JUnit artifact with a testsuite" grep -q '<testsuite' "$res/ci-gitlab/gate.xml"
t "ci-gitlab: report.html artifact" grep -q '<svg' "$res/ci-gitlab/report.html"
t "ci-gitlab: summary names the verdict and both revisions" \
	bash -c "grep -q '^## foliobench gate: ' '$res/ci-gitlab/summary.md' &&
		grep -q '${base:0:12}' '$res/ci-gitlab/summary.md' && grep -q '${head:0:12}' '$res/ci-gitlab/summary.md'"
t "ci-gitlab: the job's arms are the two git revisions (ab.json)" \
	test "$(jq -r '[.arms[].spec] | join(" ")' "$res/ci-gitlab/ab/ab.json" 2>/dev/null)" = \
	"base=$gd@$base head=$gd@$head"

# the same merge request with one round a side (2 boots): too few for any
# test, the gate exits 2 (unusable input), and the job fails with that code
job ci-gitlab-1round 1
t "ci-gitlab-1round: 1+1 rounds: gate exit ${gate:-none} (want 2), the job's status $kind $job" \
	test "${gate:-x}" = 2 -a "$job" = 2 -a "$kind" = FAIL
