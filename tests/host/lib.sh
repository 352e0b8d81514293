# shellcheck shell=bash
# tests/host/lib.sh - sourced first by the host test scripts: the repository
# root as the working directory, $fb, a private $tmp (/tmp/fb-NAME.XXXXXX,
# removed on exit) and the TAP helpers of tests/guest/lib.sh.
# Usage: . "$(dirname "$0")/lib.sh" NAME
cd "${FB_REPO:-$(dirname "${BASH_SOURCE[0]}")/../..}" || exit 1
fb=./foliobench
tmp=$(mktemp -d "/tmp/fb-${1:-test}.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/guest/lib.sh
