#!/bin/bash
# Install what allocprof needs with apt-get, or say what to install.
# arm64 guests: a cross compiler, qemu-system-aarch64 and Debian's static
# arm64 busybox, extracted into build/ (ARM64_ROOT) for their initramfs;
# Debian's arm64 kernel configuration (linux-config-6.1:arm64, ARM64_BASE)
# for make bench ARCH=arm64 BASE=.
set -eu
. "$(dirname "$0")/lib.sh"

pkgs="build-essential git flex bison bc libelf-dev libssl-dev cpio xz-utils
ccache sparse python3-ply python3-git qemu-system-x86 busybox-static python3 perl kmod
linux-source-6.1 linux-config-6.1 rsync dpkg-dev dwarves fakeroot
linux-perf bpftrace gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
makedumpfile strace gdb-multiarch"
# makedumpfile, strace: the postmortem test compresses a dump as kdump
# writes them, and gathers what the reader needs to run inside a guest.
# gdb-multiarch: scripts/bench-trace.sh steps through the pairs of x86_64
# and arm64 bench guests.
# make bench PEER=1 measures upstream 6.12 beside the series.
[ "${PEER:-0}" = 0 ] || pkgs="$pkgs linux-source-6.12"
# The userspace tool lists its own build and test dependencies.
if [ -f "$ROOT/tools/allocinfo/DEPS" ]; then
	pkgs="$pkgs $(sed -e 's/#.*//' "$ROOT/tools/allocinfo/DEPS")"
fi

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
		missing="$missing $p"
done
arm64_arch=1
dpkg --print-foreign-architectures | grep -qx arm64 || arm64_arch=0

# get_arm64 PKG DIR FILE: download the arm64 package PKG and extract it
# into DIR, which must then hold FILE (apt-get download needs no root, only
# the arm64 package lists).
get_arm64() {
	local tmp
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q "$1:arm64" >/dev/null 2>&1) || {
		rm -rf "$tmp"
		return 1
	}
	rm -rf "$2"
	mkdir -p "$2"
	dpkg-deb -x "$tmp/$1"_*_arm64.deb "$2"
	rm -rf "$tmp"
	[ -f "$3" ]
}
get_busybox() { get_arm64 busybox-static "$ARM64_ROOT" "$ARM64_ROOT/bin/busybox"; }
get_config() { get_arm64 linux-config-6.1 "${ARM64_BASE%/usr/src/*}" "$ARM64_BASE"; }

busybox=1 config=1
[ -x "$ARM64_ROOT/bin/busybox" ] || busybox=0
[ -f "$ARM64_BASE" ] || config=0
# Only make bench ARCH=arm64 BASE= reads the config: not having it stops
# nothing else.
no_config() {
	msg "warning: cannot download linux-config-6.1:arm64;" \
		"make bench ARCH=arm64 BASE= needs it"
}
[ -z "$missing" ] && [ "$busybox" = 1 ] && [ "$config" = 1 ] && exit 0
if [ -z "$missing" ] && [ "$arm64_arch" = 1 ] && { [ "$busybox" = 1 ] || get_busybox; }; then
	[ "$config" = 1 ] || get_config || no_config
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "allocprof needs these packages; as root run:" >&2
	[ "$arm64_arch" = 1 ] || echo "  dpkg --add-architecture arm64" >&2
	echo "  apt-get update" >&2
	[ -z "$missing" ] || echo "  apt-get install -y$missing" >&2
	[ "$busybox" = 1 ] && [ "$config" = 1 ] || echo "and then, as any user: make deps" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
[ "$arm64_arch" = 1 ] || dpkg --add-architecture arm64
apt-get update -q >/dev/null
if [ -n "$missing" ]; then
	msg "installing:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
if [ "$busybox" = 0 ]; then
	msg "extracting busybox-static:arm64 into $ARM64_ROOT"
	get_busybox || die "cannot download busybox-static:arm64"
fi
if [ "$config" = 0 ]; then
	msg "extracting linux-config-6.1:arm64 into ${ARM64_BASE%/usr/src/*}"
	get_config || no_config
fi
