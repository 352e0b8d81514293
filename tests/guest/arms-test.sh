#!/usr/bin/env bash
# arms-test.sh RESULTS_DIR - `foliobench ab --arm`: kernels from the user's
# own patches (issue 26, item 3).
#
# Makes, from the cached base source tree (scripts/kernel-src.sh), a git
# tree (git clone --shared --no-checkout: no work tree, objects borrowed)
# with two commits on the base, each adding an empty loop to
# nft_trans_alloc(), a function the catalogue hooks: A spins 200 times,
# B (on A) 600 times; and a patch directory, `git format-patch` of A.
#   - bad input is refused with exit 2 and one line before anything is
#     built or booted: a missing directory, an empty one, a patch that does
#     not apply (and the cache is as before: no kernel, no branch, no am
#     session left), an unknown revision, a name of kernel-patches/arms.conf;
#   - `ab --arm slow=PDIR` builds the patch directory over the base (an arm
#     switch from the baseline, ccache) as kernel B, and `gate` fails naming
#     func:nft_trans_alloc:cmean;
#   - GITDIR@HEAD~1 (A, the same tree as PDIR) is the same cached kernel:
#     kernels are cached by source tree;
#   - `ab --arm slow=PDIR --arm slower=GITDIR@HEAD` builds the git tree at
#     B and gates it against the patch directory's kernel: fails naming
#     func:nft_trans_alloc:cmean again (400 more loops).
# 12 boots (3 rounds, 2 runs), 2 arm switches when nothing is cached (the
# commits have fixed dates, so a second run reuses both kernels).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
cache=${FB_CACHE:-/var/cache/foliobench}

src=$(scripts/kernel-src.sh 2>"$res/arms-src.log") || {
	nok "arms: base source tree (scripts/kernel-src.sh)"
	exit 0
}
tmp=$(mktemp -d /tmp/fb-arms.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git=(git -c user.name=foliobench-test -c user.email=test@foliobench.invalid)
export GIT_AUTHOR_DATE=2026-01-02T00:00:00Z GIT_COMMITTER_DATE=2026-01-02T00:00:00Z

gd=$tmp/linux
"${git[@]}" clone -q --shared --no-checkout "$src" "$gd"
f=net/netfilter/nf_tables_api.c
# commit PARENT LOOPS: base's $f with LOOPS empty iterations after
# nft_trans_alloc()'s kzalloc, committed on PARENT; prints the commit
commit() {
	local idx=$tmp/index blob tree
	git -C "$gd" show "base:$f" | awk -v n="$2" '
		/^static struct nft_trans \*nft_trans_alloc\(/ { in_f = 1 }
		{ print }
		in_f && /trans = kzalloc\(size, GFP_KERNEL\);/ {
			printf "\t{ unsigned int i; for (i = 0; i < %d; i++) barrier(); }\n", n
			in_f = 0
		}' >"$tmp/f.c"
	blob=$(git -C "$gd" hash-object -w "$tmp/f.c")
	GIT_INDEX_FILE=$idx git -C "$gd" read-tree "$1"
	GIT_INDEX_FILE=$idx git -C "$gd" update-index --cacheinfo "100644,$blob,$f"
	tree=$(GIT_INDEX_FILE=$idx git -C "$gd" write-tree)
	rm -f "$idx"
	"${git[@]}" -C "$gd" commit-tree -p "$1" -m "netfilter: test: $2 empty loops in nft_trans_alloc()" "$tree"
}
A=$(commit base 200) && B=$(commit "$A" 600) && git -C "$gd" update-ref HEAD "$B" &&
	git -C "$gd" format-patch -q -1 "$A" -o "$tmp/pdir"
np=$(ls "$tmp/pdir" 2>/dev/null | wc -l)
t "arms: test git tree (base, A: +200 loops, B: +600) and format-patch directory of A ($np patch)" \
	test -n "$B" -a "$np" = 1
[ "$np" = 1 ] || exit 0

# ---- bad input: exit 2, one line, nothing built, cache as it was ----
state() {	# what a refused arm must not change
	ls -d "$cache"/kernels/tree-* 2>/dev/null
	git -C "$src" branch --list 'arm-tree-*'
	ls -d "$cache/work/linux/.git" "$(git -C "$cache/work/linux" rev-parse --git-path rebase-apply 2>/dev/null)" 2>/dev/null
}
mkdir -p "$tmp/empty" "$tmp/bad"
sed 's/trans = kzalloc(size, GFP_KERNEL);/trans = kzalloc(size, GFP_ATOMIC);/' "$tmp/pdir"/0001-*.patch \
	>"$tmp/bad/0001-does-not-apply.patch"
before=$(state)
# refused LABEL PATTERN ARGS...: ab ARGS exits 2, one stderr line matching PATTERN
refused() {
	local what=$1 pat=$2 rc lines
	shift 2
	"$fb" ab "$@" --workload nft --out "$tmp/refused" >"$tmp/r.out" 2>"$tmp/r.err"
	rc=$?
	lines=$(wc -l <"$tmp/r.err")
	grep -q -F -- "$pat" "$tmp/r.err" && [ ! -e "$tmp/refused" ] || rc="$rc, unexpected message or output"
	t "arms: $what: exit $rc, $lines line ($(head -1 "$tmp/r.err"))" \
		test "$rc" = 2 -a "$lines" = 1
}
refused "missing directory" "no such directory" --arm "x=$tmp/nonexistent"
refused "empty directory" "no patches" --arm "x=$tmp/empty"
refused "patch that does not apply" "0001-does-not-apply.patch does not apply" --arm "x=$tmp/bad"
refused "unknown revision" "unknown revision 'no-such-rev'" --arm "x=$gd@no-such-rev"
refused "name of an arms.conf arm" "'patched' is an arm of kernel-patches/arms.conf" \
	--arm "patched=$tmp/pdir"
t "arms: refused arms left the cache as it was (kernels, branches, no am session)" \
	test "$(state)" = "$before"

# ---- a patch directory as kernel B, gated against the baseline ----
probes=(--workload nft --probes nft_trans_alloc)
# gated DIR WHAT AB_ARGS...: 3 rounds of ab into DIR; the gate must fail
# naming func:nft_trans_alloc:cmean
gated() {
	local dir=$1 what=$2 rc
	shift 2
	"$fb" ab --rounds 3 "$@" "${probes[@]}" --out "$dir" >"$dir.log" 2>&1
	rc=$?
	t "arms: ab $what, 3 rounds: exit $rc" test $rc = 0
	[ $rc = 0 ] || { grep -E 'error|FAILED' "$dir.log" | tail -5 | sed 's/^/#   /'; return 1; }
	"$fb" gate "$dir" >"$dir.out" 2>&1
	rc=$?
	sed 's/^/#   /' "$dir.out"
	t "arms: gate fails (exit $rc) on $what" test $rc = 1
	t "arms: gate names func:nft_trans_alloc:cmean as REGRESSED ($what)" \
		grep -q '^REGRESSED *func:nft_trans_alloc:cmean' "$dir.out"
}
t0=$(date +%s)
if gated "$res/arms-pdir" "baseline vs --arm slow=PDIR (+200 loops)" --arm "slow=$tmp/pdir"; then
	spec=$(jq -r '.arms[1].spec' "$res/arms-pdir/ab.json")
	t "arms: ab.json records the patched arm as given ($spec)" test "$spec" = "slow=$tmp/pdir"
	k=$(dirname "$(jq -r '.arms[1].kernel' "$res/arms-pdir/ab.json")")
	t "arms: the kernel's patches.txt names the patch ($(cat "$k/patches.txt"))" \
		grep -q '200 empty loops' "$k/patches.txt"
	same=$("$fb" kernel path --arm "same=$gd@HEAD~1" 2>/dev/null)
	t "arms: GITDIR@HEAD~1 (tree of PDIR) is the same cached kernel ($same)" test "$same" = "$k"
fi
echo "# time: patch-directory arm built and gated in $(( $(date +%s) - t0 ))s"

# ---- a git tree at a revision, against the patch directory's kernel ----
t0=$(date +%s)
if gated "$res/arms-git" "--arm slow=PDIR vs --arm slower=GITDIR@HEAD (+600 loops)" \
	--arm "slow=$tmp/pdir" --arm "slower=$gd@HEAD"; then
	k=$(dirname "$(jq -r '.arms[1].kernel' "$res/arms-git/ab.json")")
	t "arms: the git arm's kernel was built from commit B ($(cat "$k/patches.txt" | tr '\n' ' '))" \
		grep -q "^${B:0:7}.*600 empty loops" "$k/patches.txt"
	t "arms: its source file names the tree of B" \
		grep -q "tree $(git -C "$gd" rev-parse "$B^{tree}")" "$k/source"
fi
echo "# time: git-tree arm built and gated in $(( $(date +%s) - t0 ))s"
