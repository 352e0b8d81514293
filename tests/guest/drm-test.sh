#!/usr/bin/env bash
# drm-test.sh RESULTS_DIR - folio-pool 4/9 (drm/gpuvm) in a guest.
#
# The kunit flavour (kernel-patches/configs/kunit.flavour: a small
# test-only kernel with DRM=y and no DRM driver, built for the patched arm
# only) with the KUnit suite drm_gpuvm (configs/folio-pool.kunit.config),
# booted on one vCPU:
# the suite passes, nothing skipped, no splat.  The suite checks the op
# lists of drm_gpuvm_sm_map_ops_create(), drm_gpuvm_sm_unmap_ops_create()
# and drm_gpuvm_prefetch_ops_create(), that ops and remap parts come from
# the list's scratchpad and that drm_gpuva_ops_free() gives its chunk back.
# tests/guest/run.sh runs it after kunit-test.sh (FB_KUNIT, see run.sh).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
have folio-pool && [ -f kernel-patches/configs/folio-pool.kunit.config ] || exit 0
k=$("$fb" kernel build --arm patched --flavour kunit 2>"$res/build-patched-kunit.log" | tail -1)
if [ ! -f "$k/bzImage" ]; then
	nok "patched kunit kernel builds (drm_gpuvm)"
	grep -E 'error|does not apply|did not stick' "$res/build-patched-kunit.log" | head -10 | sed 's/^/#   /'
	exit 0
fi
t "kunit kernel has DRM and the drm_gpuvm suite" bash -c "grep -qx CONFIG_DRM=y '$k/.config' && grep -qx CONFIG_DRM_GPUVM_KUNIT_TEST=y '$k/.config'"
"$fb" vm --smp 1 --kernel "$k" --results "$res" --log "$res/kunit-drm.log" \
	--append "kunit.enable=1 kunit.filter_glob=drm_gpuvm" -- true >"$res/kunit-drm.out" 2>&1
rc=$?
line=$(suite "$res/kunit-drm.log" drm_gpuvm)
t "kunit flavour: KUnit suite drm_gpuvm: ${line:-not run}, nothing skipped, no splat (vm rc=$rc)" \
	bash -c "[ $rc = 0 ] && [[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\ skip:0$ ]]"
