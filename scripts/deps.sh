#!/bin/bash
# Install what allocprof needs with apt-get, or say what to install.
set -eu
. "$(dirname "$0")/lib.sh"

pkgs="build-essential git flex bison bc libelf-dev libssl-dev cpio xz-utils
ccache sparse python3-ply python3-git qemu-system-x86 busybox-static python3 perl kmod
linux-source-6.1 linux-config-6.1 rsync dpkg-dev dwarves fakeroot
linux-perf bpftrace"
# The userspace tool lists its own build and test dependencies.
if [ -f "$ROOT/tools/allocinfo/DEPS" ]; then
	pkgs="$pkgs $(sed -e 's/#.*//' "$ROOT/tools/allocinfo/DEPS")"
fi

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "allocprof needs these packages; as root run:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
msg "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
