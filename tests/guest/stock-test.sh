#!/usr/bin/env bash
# stock-test.sh RESULTS_DIR - Debian stock kernels (issue 27 items 1-2).
#
# First without the network, in a private $FB_CACHE: an unknown debian:
# version, a truncated download and a package without BTF each exit 2 with
# one line and leave no kernel directory (a half-built one from a killed
# run is removed, never used).  Then, with the network on a new machine,
# `vm --kernel debian:7.3` (FB_STOCK_KERNELS: the versions to boot, "7.3"
# by default) fetches, builds and boots Debian's own 7.3.4 and runs the nft
# and sysfs workloads in it; the attach table is asserted row by row:
# attached with exact counts where the workload says how many (nft
# transaction objects, teardown passes), or unavailable with the reason.
# Prints the cold cost (fetch + initramfs, boot) as # lines.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=${1:-$(mktemp -d /tmp/fb-stock-test.XXXXXX)}
fb=$PWD/foliobench
. tests/guest/lib.sh
mkdir -p "$res"

# ---- bad input, offline ----
off=$(mktemp -d /tmp/fb-stock-off.XXXXXX)
trap 'rm -rf "$off"' EXIT
# fakedeb NAME BTF: a tiny image package (vmlinuz, config, modules dir)
fakedeb() {
	local d=$off/pkg-$1 rel=7.3.99+deb13-amd64
	mkdir -p "$d/DEBIAN" "$d/boot" "$d/lib/modules/$rel/kernel"
	printf 'Package: linux-image-%s\nVersion: 7.3.99-1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
		"$rel" >"$d/DEBIAN/control"
	head -c 65536 /dev/urandom >"$d/boot/vmlinuz-$rel"
	echo "CONFIG_DEBUG_INFO_BTF=$2" >"$d/boot/config-$rel"
	dpkg-deb -Zgzip -b "$d" "$off/$1.deb" >/dev/null
}
# place DEB [TRUNC]: DEB in a fresh cache as debian-7.3's package, the index
# line its real size and sha256, the file cut to TRUNC bytes if given
place() {
	local c=$off/cache p=linux-image-7.3.99+deb13-amd64 v=7.3.99-1
	rm -rf "$c"
	mkdir -p "$c/stock/dl" "$c/stock/.tmp-debian-7.3.killed" "$c/stock/debian-7.3"
	echo half >"$c/stock/debian-7.3/bzImage"	# a killed run's leftovers, no .ready
	echo "$p $v $(stat -c %s "$1") $(sha256sum "$1" | cut -d' ' -f1)" >"$c/stock/dl/debian-7.3.pkg"
	if [ -n "${2:-}" ]; then
		head -c "$2" "$1" >"$c/stock/dl/${p}_$v.deb"
	else
		cp "$1" "$c/stock/dl/${p}_$v.deb"
	fi
}
# bad NAME SPEC PATTERN: exit 2, one line matching PATTERN, no kernel directory
bad() {
	local rc lines
	FB_CACHE=$off/cache "$fb" vm --kernel "$2" -- true >"$off/out" 2>"$off/err"
	rc=$? lines=$(wc -l <"$off/err")
	t "$1: exit 2 ($rc), one line ($lines): $(head -1 "$off/err")" \
		bash -c '[ "$0" = 2 ] && [ "$1" = 1 ] && grep -qE -- "$2" "$3"' "$rc" "$lines" "$3" "$off/err"
	t "$1: the cache holds no kernel directory and no temporary one" \
		bash -c "! ls -d '$off/cache/stock/debian-'* '$off/cache/stock/.tmp-'* 2>/dev/null | grep -q ."
}
mkdir -p "$off/cache"
bad "unknown version" debian:9.9 "unknown Debian kernel version '9\\.9'"
bad "not debian:" debian:7.3x "unknown Debian kernel version '7\\.3x'"
fakedeb btf y
fakedeb nobtf n
place "$off/btf.deb" 1000
bad "truncated download" debian:7.3 "truncated or corrupt download removed"
t "truncated download: the file is removed (a second run fetches it anew)" \
	bash -c "! ls '$off'/cache/stock/dl/*.deb 2>/dev/null | grep -q ."
place "$off/nobtf.deb"
bad "package without BTF" debian:7.3 "no BTF \\(CONFIG_DEBUG_INFO_BTF is not set"

# ---- the stock kernels, booted ----
# row FILE NAME: "status/method"; why FILE NAME: the reason
why() { jq -r --arg n "$2" '.probes[] | select(.name==$n) | .reason' "$1"; }
for v in ${FB_STOCK_KERNELS:-7.3}; do
	[ "$v" = none ] && continue
	k=debian:$v j=$res/stock-$v.json
	cold=0
	[ -f "${FB_CACHE:-/var/cache/foliobench}/stock/debian-$v/.ready" ] || cold=1
	t0=$(date +%s.%N)
	dir=$(scripts/stock-kernel.sh "$k" 2>"$res/stock-$v.log")
	t1=$(date +%s.%N)
	t "$k: fetched, checked and cached ($dir)" test -f "$dir/.ready" -a -f "$dir/initrd.cpio"
	[ -f "$dir/.ready" ] || { tail -5 "$res/stock-$v.log" | sed 's/^/#   /'; continue; }
	echo "# $k: fetch + unpack + initramfs $(echo "$t1 - $t0" | bc)s ($([ $cold = 1 ] && echo cold || echo cached)), $(du -sm "${FB_CACHE:-/var/cache/foliobench}/stock/dl" | cut -f1) MiB of packages"
	# (the guest idles an hour first: icount's sleep=off jumps the guest's clock
	# over it in no host time, so a round stamped by that clock would be
	# an hour ahead of the host's)
	b0=$(date +%s)
	"$fb" vm --kernel "$k" --clock icount --results "$res" --log "$res/stock-$v-console.log" -- \
		bash -c "sleep 3600 && ./foliobench run --workload nft --workload sysfs --out '$j'" \
		>"$res/stock-$v.out" 2>&1
	rc=$?
	b1=$(date +%s)
	grep '^foliobench: vm: exit' "$res/stock-$v.out" | sed 's/^/# /'
	t "$k: boots (icount) and runs nft + sysfs under every row, no splat (vm rc=$rc)" test $rc = 0
	[ -f "$j" ] || { tail -20 "$res/stock-$v.out" | sed 's/^/#   /'; continue; }
	t "$k: the guest runs Debian's kernel ($(jq -r .host.kernel_release "$j"))" \
		bash -c "[[ '$(jq -r .host.kernel_release "$j")' == $v*-amd64 ]]"
	# an icount guest's own clock gains on the host's: the round takes the host's
	# time, from a scratch file it creates beside the results over 9p
	st=$(date -d "$(jq -r .started "$j")" +%s 2>/dev/null || echo 0)
	t "$k: the round's start ($(jq -r .started "$j")) is the host's time, inside the boot ($(date -u -d @$b0 +%T)..$(date -u -d @$b1 +%T))" \
		test "$st" -ge $((b0 - 1)) -a "$st" -le $((b1 + 1))
	trans=$(op "$j" nft trans_objects) passes=$(op "$j" nft destroy_passes)
	# function rows: one fsession program where the kernel has them (7.x), else fentry/fexit
	fm=fentry
	[[ $v == 7.* ]] && fm=fsession
	# 6.1, 6.12: the row finds nft_trans_alloc_gfp (nft_trans_alloc is its inline wrapper)
	t "$k: nft_trans_alloc $(status "$j" nft_trans_alloc) on $(jq -r '.probes[] | select(.name=="nft_trans_alloc") | .symbol' "$j"), $(probe "$j" nft_trans_alloc) calls == $trans transaction objects" \
		bash -c "[ '$(status "$j" nft_trans_alloc)' = attached/$fm ] && [ ${trans:-0} -gt 0 ] && [ '$(probe "$j" nft_trans_alloc)' = '$trans' ]"
	t "$k: nft_trans_alloc.kmalloc $(probe "$j" nft_trans_alloc.kmalloc) kmallocs == $trans (kzalloc per descriptor, unpatched)" \
		test "$(probe "$j" nft_trans_alloc.kmalloc)" = "$trans"
	t "$k: nf_tables_trans_destroy_work $(status "$j" nf_tables_trans_destroy_work), $(probe "$j" nf_tables_trans_destroy_work) == $passes passes" \
		bash -c "[ '$(status "$j" nf_tables_trans_destroy_work)' = attached/$fm ] &&
			 [ '$(probe "$j" nf_tables_trans_destroy_work)' = '$passes' ]"
	for p in kernfs_new_node kernfs_add_one kernfs_activate get_device_parent push_stack generic_map_update_batch; do
		t "$k: $p attached ($(status "$j" $p))" bash -c "[ '$(status "$j" $p)' = attached/$fm ]"
	done
	# the nft workload's private netns registers a loopback device: sysfs nodes, one glue dir lookup
	nodes=$(probe "$j" kernfs_add_one) acts=$(probe "$j" kernfs_activate)
	t "$k: kernfs_new_node ($(probe "$j" kernfs_new_node)), kernfs_add_one ($nodes), get_device_parent ($(probe "$j" get_device_parent)) counted" \
		bash -c "[ $(probe "$j" kernfs_new_node) -gt 0 ] && [ $nodes -gt 0 ] && [ $(probe "$j" get_device_parent) -gt 0 ]"
	w=$(probe "$j" kernfs_rwsem 0)
	t "$k: kernfs_rwsem $(status "$j" kernfs_rwsem): $w write holds >= kernfs_add_one + kernfs_activate ($nodes + $acts)" \
		bash -c "[ '$(status "$j" kernfs_rwsem)' = attached/fexit+fentry/lock ] && [ $w -ge $((nodes + acts)) ]"
	# 7.3: kernfs_root's member; 6.1, 6.12: the global kernfs_idr_lock (catalogue .inst_old)
	t "$k: kernfs_idr_lock $(status "$j" kernfs_idr_lock): $(probe "$j" kernfs_idr_lock) holds >= kernfs_new_node ($(probe "$j" kernfs_new_node))" \
		bash -c "[ '$(status "$j" kernfs_idr_lock)' = attached/fentry/cpu ] &&
			 [ $(probe "$j" kernfs_idr_lock) -ge $(probe "$j" kernfs_new_node) ]"
	g=$(probe "$j" gdp_mutex) gdp=$(probe "$j" get_device_parent)
	t "$k: gdp_mutex $(status "$j" gdp_mutex): $g holds, 1..$gdp (get_device_parent calls)" \
		bash -c "[ '$(status "$j" gdp_mutex)' = attached/fexit+fentry/lock ] && [ $g -ge 1 ] && [ $g -le $gdp ]"
	t "$k: lockdep_list_entry_alloc unavailable (no lockdep in Debian's config): $(why "$j" lockdep_list_entry_alloc | cut -c1-60)" \
		bash -c "[[ '$(status "$j" lockdep_list_entry_alloc)' == unavailable/* ]]"
	wr=$(jq -r '.workloads[] | select(.name=="sysfs") | .status + ": " + .reason' "$j")
	t "$k: sysfs workload unavailable, netdevsim not built by Debian ($wr)" \
		bash -c "[[ '$wr' == unavailable:*netdevsim* ]] && ! grep -q '^CONFIG_NETDEVSIM=[ym]' '$dir/config'"
done
