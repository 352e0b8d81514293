# scripts/lib/nft-selftests.sh - the kernel's netfilter selftests
# (tools/testing/selftests/net/netfilter of the pinned tree) and lockdep's
# boot-time locking API self-tests, in lockstat guests; sourced by
# tests/guest/selftests-nft.sh (make test: the transaction and set tests)
# and scripts/studies/selftests-nft.sh (the whole directory).
# shellcheck shell=bash

# nst_build DIR: build and install the selftests with their own Makefiles
# (kselftest `install`) into DIR/inst; prints DIR/inst/net/netfilter.
# Objects in DIR/build: the shared source tree is not written to.
nst_build() {
	local d=$1 src
	src=$(scripts/kernel-src.sh) || return 1
	rm -rf "$d/build" "$d/inst"
	mkdir -p "$d" || return 1
	make -s -C "$src/tools/testing/selftests" TARGETS=net/netfilter \
		O="$d/build" INSTALL_PATH="$d/inst" install >"$d/build.log" 2>&1 || {
		tail -5 "$d/build.log" >&2
		return 1
	}
	[ -x "$d/inst/net/netfilter/nf_queue" ] && [ -x "$d/inst/net/netfilter/audit_logread" ] ||
		return 1
	echo "$d/inst/net/netfilter"
}

# nst_concat_bugs DIR: give DIR/nft_concat_range.sh (an installed copy,
# not the source tree) an NFT_CONCAT_RANGE_BUGS knob beside its own
# NFT_CONCAT_RANGE_TESTS: the reported_issues cases to run (default: all,
# the script unchanged).  Debian 12's nft 1.0.6 cannot parse `nft reset
# element`, which three of the eight cases use to read a match counter
# (reload, net_port_proto_match, avx2_mismatch), and the script exits at
# its first failed case; bookworm-backports has no newer nftables
# (reports/selftests/nft.md).  Fails unless the knob is there exactly once.
# shellcheck disable=SC2016 # the knob's text, expanded by the test
nst_concat_bugs() {
	local f=$1/nft_concat_range.sh
	grep -q NFT_CONCAT_RANGE_BUGS "$f" ||
		sed -i '/^BUGS=/,/"$/{/"$/a [ -n "$NFT_CONCAT_RANGE_BUGS" ] \&\& BUGS="${NFT_CONCAT_RANGE_BUGS}"
}' "$f"
	[ "$(grep -c '^\[ -n "\$NFT_CONCAT_RANGE_BUGS" \] && BUGS=' "$f")" = 1 ]
}

# nst_run KERNEL TESTDIR OUT TIMEOUT TEST...: one boot (2 vCPUs) of KERNEL
# running the TESTs (script names in TESTDIR; none: the whole directory)
# with the kselftest runner, KSFT_MACHINE_SLOW=yes (TCG is slow: fewer
# rounds and packets, longer waits, the tests' own knob), each test at
# most TIMEOUT seconds.  The runner's TAP goes to OUT.tap, each test's
# output to OUT.d/TEST (its -p), the console to OUT.log; returns the
# vm's exit status: non-zero on a splat, a guest timeout or a runner
# error, not on a failed test (-f: the outcomes are in OUT.tap).
# Extra environment for the tests: NST_ENV ("VAR=value ..."); the whole
# boot's limit: NST_VM_TIMEOUT seconds (default: TIMEOUT per test + 300;
# a boot stopped there leaves the TAP of the tests it finished).
nst_run() {
	local k=$1 dir=$2 out=$3 to=$4 t args="" n
	shift 4
	for t in "$@"; do args="$args -t net/netfilter:$t"; done
	[ -n "$args" ] || args="-c net/netfilter"
	n=$(( $# > 0 ? $# : 40 ))
	rm -rf "$out.d" && mkdir -p "$out.d" || return 1
	./foliobench vm --smp 2 --kernel "$k" --results "$(dirname "$out")" \
		--timeout "${NST_VM_TIMEOUT:-$(( n * to + 300 ))}" --log "$out.log" -- \
		sh -c "cd '$dir/../..' && env KSFT_MACHINE_SLOW=yes ${NST_ENV:-} \
			./run_kselftest.sh -f -o $to -p '$out.d' $args >'$out.tap' 2>&1" >"$out.out" 2>&1
}

# nst_outcomes OUT: one line per test of a run (OUT.tap, OUT.d/TEST):
# "NAME OUTCOME" (pass, fail, skip or timeout) and, for skip, fail and
# timeout, the test's own first SKIP/FAIL/ERROR line (the reason) after a
# tab.
nst_outcomes() {
	awk -v d="$1.d" '
	function reason(t,   l, w) {
		w = ""
		while ((getline l < (d "/" t)) > 0)
			if (w == "" && tolower(l) ~ /skip|fail|error|no such|not supported/) w = l
		close(d "/" t)
		gsub(/\t/, " ", w)
		return w
	}
	/^(not )?ok [0-9]+ selftests: net\/netfilter: / {
		name = $0; sub(/.*net\/netfilter: /, "", name); sub(/ .*/, "", name)
		o = "pass"
		if ($0 ~ /# SKIP/) o = "skip"
		else if ($0 ~ /TIMEOUT/) o = "timeout"
		else if ($0 ~ /^not ok/) o = "fail"
		printf "%s %s", name, o
		if (o != "pass" && (w = reason(name)) != "") printf "\t%s", w
		printf "\n"
	}' "$1.tap"
}

# lst_result LOG: the locking API self-tests' verdict in a console log:
# "passed N", "failed N of M" (unexpected failures: lockdep then turned
# itself off), "expected-failures N of M" (a config where some cases
# cannot be detected), or "absent" (not run: no such config, lockdep
# already off at boot, or the log ends before it).
lst_result() {
	local l n
	l=$(grep -aoE 'Good, all +[0-9]+ testcases passed|BUG: +[0-9]+ unexpected failures \(out of +[0-9]+\)|[0-9]+ out of +[0-9]+ testcases failed, as expected|All +[0-9]+ testcases failed, as expected' "$1" | head -1)
	n=$(echo "$l" | grep -oE '[0-9]+' | tr '\n' ' ')
	set -- $n
	case "$l" in
	Good*) echo "passed $1" ;;
	BUG*) echo "failed $1 of $2" ;;
	All*) echo "expected-failures $1 of $1" ;;
	*expected) echo "expected-failures $1 of $2" ;;
	*) echo absent ;;
	esac
}

