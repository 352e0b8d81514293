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
	# netfilter selftests in the lockstat guests (tests/guest/selftests-nft.sh):
	# the tools nft_concat_range.sh, nft_nat.sh, nft_queue.sh etc. check for
	socat iperf3 sendip conntrack netcat-openbsd iputils-ping
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
	# report.html rendered and checked headless (tests/host/report-html-test.sh)
	chromium
)
# gitlab-ci-local (npm) runs docs/ci/gitlab-ci.yml (tests/guest/ci-gitlab-test.sh):
# Debian's npm unless a node with npm is already there
command -v npm >/dev/null || pkgs+=(nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
else
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
# pinned: 4.75.x fails at start on Node 20; under the cache, nothing global
glci=${FB_CACHE:-/var/cache/foliobench}/tools/gitlab-ci-local-4.50.0
if [ ! -x "$glci/node_modules/.bin/gitlab-ci-local" ]; then
	echo "deps: installing gitlab-ci-local 4.50.0 (npm) in $glci"
	mkdir -p "$glci"
	npm install -q --prefix "$glci" --no-audit --no-fund --no-save gitlab-ci-local@4.50.0 >/dev/null
fi
echo "deps: done"
