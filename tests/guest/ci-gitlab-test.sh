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
#     summary: none for 0, `WARN 3` for the allowed 3, `FAIL N` else), and
#     gitlab-ci-local exits 0 exactly when N is 0 or 3;
#   - a comment-only change never fails the gate (N is 0 or 3);
#   - the artifacts: JUnit XML, report.html and the summary with the verdict.
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

# ---- the merge request pipeline's job ----
t0=$(date +%s)
(cd "$gd" && "$glci" --variable FOLIOBENCH="$repo" \
	--variable CI_PIPELINE_SOURCE=merge_request_event \
	--variable CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" \
	--variable FB_AB_ARGS="--rounds 5 --workload nft --probes nft_trans_alloc" \
	foliobench-gate) >"$res/ci-gitlab.log" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
cp -r "$gd/foliobench-ci" "$res/ci-gitlab" 2>/dev/null
log=$gd/.gitlab-ci-local/output/foliobench-gate.log
gate=$(grep -ao 'foliobench-ci: gate exit [0-9]*' "$log" 2>/dev/null | tail -1 | grep -o '[0-9]*$')
# the job's exit code as gitlab-ci-local reports it
sum=$(sed 's/\x1b\[[0-9;]*m//g' "$res/ci-gitlab.log" | grep -a '^foliobench-gate finished in')
case $sum in
*"WARN "[0-9]*) job=$(grep -o 'WARN [0-9]*' <<<"$sum" | cut -d' ' -f2) ;;
*"FAIL "[0-9]*) job=$(grep -o 'FAIL [0-9]*' <<<"$sum" | cut -d' ' -f2) ;;
*finished*) job=0 ;;
*) job=none ;;
esac
echo "# ci-gitlab: gitlab-ci-local exit $rc in ${secs}s; $sum"
grep -a -E '^(gate|[A-Z]+ +[a-z]+:)' "$res/ci-gitlab/gate.txt" 2>/dev/null | sed 's/^/#   /'
t "ci-gitlab: the job printed the gate's exit code (${gate:-none})" test -n "$gate"
t "ci-gitlab: the job's exit code ($job) is the gate's (${gate:-none})" test "$job" = "${gate:-x}"
want=1
case ${gate:-x} in 0 | 3) want=0 ;; esac
t "ci-gitlab: gitlab-ci-local exit $rc: 0 exactly when the gate passes or is unknown (allow_failure: exit_codes: [3])" \
	test "$rc" = "$want"
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
