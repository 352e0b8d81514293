#!/usr/bin/env bash
# outcomes.sh verifier|maps FILE - one "ID<TAB>OUTCOME<TAB>NAME" line per
# test from a test_verifier(_fb) or test_maps_each output:
#   test_verifier:  "#12/p descr OK" -> "#12/p  OK  descr" (OK, FAIL, SKIP;
#                   "?" when the line has none: the binary died mid-test)
#   test_maps_each: "#3 hashmap_walk: PASS" -> "#3  OK  hashmap_walk"
# Used by tests/guest/selftests-bpf.sh and scripts/studies/selftests-bpf.sh.
set -euo pipefail
case ${1:-} in
verifier)
	awk '/^#[0-9]+\/[up] / {
		id = $1; name = substr($0, length(id) + 2); o = "?"
		if ($0 ~ / OK( \(NOTE[^)]*\))?$/) o = "OK"
		else if ($0 ~ / FAIL/) o = "FAIL"
		else if ($0 ~ / SKIP/) o = "SKIP"
		sub(/ ([0-9]+ cases )?(OK|FAIL|SKIP).*$/, "", name)
		printf "%s\t%s\t%s\n", id, o, name
	}' "$2" ;;
maps)
	awk '/^#[0-9]+ [^ ]+: (PASS|SKIP|FAIL)/ {
		o = $3 == "PASS" ? "OK" : $3
		name = $2; sub(/:$/, "", name)
		printf "%s\t%s\t%s\n", $1, o, name
	}' "$2" ;;
*)
	echo "usage: outcomes.sh verifier|maps FILE" >&2
	exit 2 ;;
esac
