#!/bin/bash
# Build the tools image of the oneliners boot: the host's perf and
# bpftrace with every library they load (their ldd closure and the
# dynamic loader, at the host's paths), the headers bpftrace reads, and
# /oneliners, the commands of
# Documentation/user-guide.md's "Tracing one call site" section as the
# guest test 49-oneliners.sh runs them.  An uncompressed cpio archive,
# which boot-test.sh puts before the initramfs (the kernel unpacks both).
#
# Usage: mktools.sh KDIR OUT.cpio
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: mktools.sh KDIR OUT.cpio}
out=${2:?usage: mktools.sh KDIR OUT.cpio}
[ "$(kernel_arch "$kdir")" = x86_64 ] || die "the host's perf and bpftrace run in x86_64 guests only"
stage=$(mktemp -d "$BUILD/tools.XXXXXX")
trap 'rm -rf "$stage"' EXIT

bins=""
for t in perf bpftrace; do
	b=$(command -v "$t") || die "no $t on the host: run scripts/deps.sh"
	bins="$bins $(readlink -f "$b")"
done
# shellcheck disable=SC2086
libs=$(ldd $bins | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' | sort -u)
for f in $libs; do
	mkdir -p "$stage$(dirname "$f")"
	cp -L "$f" "$stage$f"
done
# Without BTF (tinyconfig kernels have none) bpftrace reads the type
# names of the event's fields from the kernel's headers, where a
# distribution's linux-headers package puts them, and the uapi headers
# they include.
hdr=$stage/lib/modules/$(cat "$kdir/include/config/kernel.release")/build
mkdir -p "$hdr/arch/x86" "$stage/usr/include/x86_64-linux-gnu"
cp -r "$kdir/source/include" "$hdr/include"
cp -r "$kdir/source/arch/x86/include" "$hdr/arch/x86/include"
cp -r "$kdir/include/generated" "$hdr/include/"
cp -r "$kdir/arch/x86/include/generated" "$hdr/arch/x86/include/"
cp -r /usr/include/linux /usr/include/asm-generic "$stage/usr/include/"
cp -r /usr/include/x86_64-linux-gnu/asm "$stage/usr/include/x86_64-linux-gnu/"
mkdir -p "$stage/usr/bin"
for b in $bins; do
	cp "$b" "$stage/usr/bin/"
done

awk '/^## / { sec = ($0 == "## Tracing one call site") }
	sec && /^    (bpftrace|perf) / { sub(/^    /, ""); print }' \
	"$ROOT/Documentation/user-guide.md" >"$stage/oneliners"
[ "$(wc -l <"$stage/oneliners")" = 3 ] ||
	die "expected three one-liners in user-guide.md's 'Tracing one call site'"

(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
