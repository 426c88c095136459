#!/bin/bash
# Boot the kernel of the packages 'make deb' built, in QEMU, with the guest
# tests: the linux-image package gives the kernel, the linux-headers
# package the tree the test modules are built against, as a user's
# out-of-tree modules would be.  Prints TAP.
#
# Usage: boot-deb.sh [DEBDIR]   (default: build/deb, where make deb puts them)
set -eu
. "$(dirname "$0")/lib.sh"

debdir=${1:-$BUILD/deb}
image="" headers=""
for f in "$debdir"/linux-image-[0-9]*_amd64.deb; do
	case $f in *-dbg_*) ;; *) [ -f "$f" ] && image=$f ;; esac
done
for f in "$debdir"/linux-headers-[0-9]*_amd64.deb; do
	[ -f "$f" ] && headers=$f
done
[ -n "$image" ] && [ -n "$headers" ] ||
	die "no linux-image and linux-headers packages in $debdir: run 'make deb'"

dest=$BUILD/deb-boot
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$image" "$dest"
dpkg-deb -x "$headers" "$dest"
for kdir in "$dest"/usr/src/linux-headers-*; do break; done
mkdir -p "$kdir/arch/x86/boot"
cp "$dest"/boot/vmlinuz-* "$kdir/arch/x86/boot/bzImage"
msg "booting $(basename "$image") with modules built against $(basename "$headers")"
# A distribution kernel is larger than the test kernels: more memory and
# time.  Debian's amd64 configuration leaves page flags no spare bits:
# page references are in page_ext (49-page-ref-mode.sh checks it).
"$ROOT/scripts/boot-test.sh" --timeout 400 --qemu "-m 1024" \
	--cmdline allocprof.refs=page_ext debian-pkg "$kdir"
