#!/usr/bin/env bash
# kunit-test.sh RESULTS_DIR - the series' KUnit suites that need the kunit
# flavour (kernel-patches/configs/kunit.flavour: a small test-only kernel
# with CONFIG_DEBUG_KOBJECT_RELEASE, built for the patched arm only).
#   - driver-core-glue-dir (kernfs-bulk 2/3) with every kobject released
#     1-4 s after its last reference: glue directories out of sysfs but
#     not yet released must not hide others from lookups
#     (glue_dir_deferred_release_test), and a device added while its
#     parent's old glue directory waits for its release gets a new one
#     (glue_dir_last_ref_elsewhere_test).  Both fail on the 2/3 that keyed
#     the index by kobj.parent.  driver-core-root-device beside it.
# One boot, 2 vCPUs (releases run from a workqueue on either): the suites
# pass, nothing skipped, no splat.  Only driver-core-*: the base's own
# platform-device-devm and platform-device-swnode suites (code the series
# does not touch) fail under DEBUG_KOBJECT_RELEASE: a driver named "test"
# registered again while the last one waits for its release, -EEXIST.
# (kunit.filter_glob takes one glob, not a list.)
# tests/guest/run.sh runs it (FB_KUNIT).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
have kernfs-bulk && [ -f kernel-patches/configs/kunit.flavour ] || exit 0
k=$("$fb" kernel build --arm patched --flavour kunit 2>"$res/build-patched-kunit.log" | tail -1)
if [ ! -f "$k/bzImage" ]; then
	nok "patched kunit kernel builds"
	grep -E 'error|does not apply|did not stick' "$res/build-patched-kunit.log" | head -10 | sed 's/^/#   /'
	exit 0
fi
ok "patched kunit kernel builds ($(cat "$k/build-seconds" 2>/dev/null)s when built)"
t "kunit kernel has CONFIG_DEBUG_KOBJECT_RELEASE=y" grep -qx 'CONFIG_DEBUG_KOBJECT_RELEASE=y' "$k/.config"
"$fb" vm --smp 2 --kernel "$k" --results "$res" --log "$res/kunit-release.log" \
	--append "kunit.enable=1 kunit.filter_glob=driver-core-*" \
	-- true >"$res/kunit-release.out" 2>&1
rc=$?
for s in driver-core-glue-dir driver-core-root-device; do
	line=$(suite "$res/kunit-release.log" "$s")
	t "kunit flavour (DEBUG_KOBJECT_RELEASE): KUnit suite $s: ${line:-not run}, nothing skipped, no splat (vm rc=$rc)" \
		bash -c "[ $rc = 0 ] && [[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\ skip:0$ ]]"
done
for c in glue_dir_deferred_release_test glue_dir_last_ref_elsewhere_test; do
	t "kunit flavour: $c ran and passed" \
		bash -c "grep -E 'ok [0-9]+ $c\b' '$res/kunit-release.log' | grep -v 'not ok' | grep -q ."
done
