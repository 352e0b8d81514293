#!/usr/bin/env bash
# tests/host/lava-test.sh - the LAVA job template of scripts/lava/: rendered for
# each shard of a 3-shard run, every job passes lava-dispatcher's job schema
# check (lava_common.schemas.validate, strict, no server needed); a broken
# job fails the same check; a missing variable is refused.  The job has not
# run on a LAVA worker here (scripts/lava/README.md).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
t=$(mktemp -d /tmp/fb-lava-test.XXXXXX)
trap 'rm -rf "$t"' EXIT
check() { local what=$1; shift; if "$@"; then echo "ok - lava: $what"; else echo "not ok - lava: $what"; fi; }

vars=(run_id=t1 shard_count=3 runner_kernel_url=http://storage.invalid/runner/bzImage
      runner_rootfs_url=http://storage.invalid/runner/rootfs.ext4.xz
      base_kernel_url=http://storage.invalid/k/baseline.tar.xz
      new_kernel_url=http://storage.invalid/k/patched.tar.xz
      "ab_args=--rounds 6 --workload nft" upload_url=http://storage.invalid/results/t1)
for i in 1 2 3; do
	scripts/lava/render.sh "${vars[@]}" shard_index=$i >"$t/job-$i.yaml"
done
out=$(/usr/bin/python3 scripts/lava/validate.py "$t"/job-*.yaml 2>&1)
check "3 shard jobs pass the dispatcher's schema check ($(tr '\n' ' ' <<<"${out//$t\//}"))" \
	test "$(grep -c ': valid$' <<<"$out")" = 3
check "shard 2's job runs ab --shard 2/3 --no-build" \
	grep -q 'foliobench ab --shard 2/3 --no-build .*--rounds 6 --workload nft' "$t/job-2.yaml"
sed 's/method: qemu/method: qemoo/' "$t/job-1.yaml" >"$t/bad.yaml"
/usr/bin/python3 scripts/lava/validate.py "$t/bad.yaml" >"$t/bad.out" 2>&1
rc=$?
check "a job with an unknown boot method fails it ($(cut -c1-80 "$t/bad.out" | sed "s|$t/||"))" \
	test $rc = 1 -a -n "$(grep 'invalid: unknown action type' "$t/bad.out")"
scripts/lava/render.sh shard_index=1 >/dev/null 2>"$t/err"
rc=$?
check "render.sh refuses a job with variables left ($(cut -c1-60 "$t/err"))" \
	test $rc = 2 -a -n "$(grep 'no value for' "$t/err")"
