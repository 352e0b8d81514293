#!/usr/bin/env bash
# deps.sh - install what foliobench needs to build, test and boot guests,
# from Debian 12 (bookworm) only.  Safe to run twice.
set -euo pipefail
pkgs=(
	# loader and BPF programs
	build-essential clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
	libjson-c-dev libnftables-dev libmnl-dev libnftnl-dev libsqlite3-dev pkg-config
	# workloads, one-liners and tests
	nftables iproute2 kmod bpftrace jq util-linux libclang-rt-14-dev
	# the peers run beside foliobench (scripts/studies/peers.sh, tests/guest/peers-test.sh):
	# funclatency and klockstat (libbpf-tools), bcc's, perf stat / perf lock
	libbpf-tools bpfcc-tools linux-perf
	# history tests: the DB checked with the sqlite3 CLI, the reader's RSS with time
	sqlite3 time
	# failing and interrupted writes injected (tests/host/outputs-test.sh)
	strace
	# guest kernels and the VM harness
	qemu-system-x86 flex bison bc cpio dwarves ccache libssl-dev
	xz-utils rsync git
	# sharded runs: a single-node Slurm for tests/slurm/slurm-test.sh (scripts/slurm);
	# nothing is started by the install (the test starts and stops its own)
	slurm-wlm munge
	# the bpf selftests of the pinned tree (scripts/selftests-bpf-build.sh):
	# their BPF objects need a newer clang than bookworm's default 14
	clang-19
	# the LAVA job template's schema check (scripts/lava/validate.py)
	lava-common
	# a real JUnit reader for the gate's --junit XML (tests/host/gate-ci-test.sh)
	python3-junitparser
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
