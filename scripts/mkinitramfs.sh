#!/bin/bash
# Build a busybox-static initramfs for the kernel built in KDIR: /init,
# the guest tests and helpers, test modules built against KDIR (when it has
# modules), and the static allocinfo command, all for the kernel's
# architecture (kernel_arch).
#
# Usage: mkinitramfs.sh KDIR OUT.cpio.gz
# Environment: MODULE_DIRS, folders of module sources (default
# scripts/guest/modules; make bench passes its own).
set -eu
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: mkinitramfs.sh KDIR OUT}
out=${2:?usage: mkinitramfs.sh KDIR OUT}
guest=$ROOT/scripts/guest
use_arch "$(kernel_arch "$kdir")"
[ -x "$BUSYBOX" ] || die "no $KARCH busybox at $BUSYBOX: run 'make deps'"
stage=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/bin" "$stage/tests" "$stage/modules" "$stage/etc"
cp "$BUSYBOX" "$stage/bin/busybox"
cp "$guest/init" "$stage/init"
cp "$guest/lib.sh" "$stage/lib.sh"
[ -f "$guest/demo.sh" ] && cp "$guest/demo.sh" "$stage/demo.sh"
[ -f "$guest/bench.sh" ] && cp "$guest/bench.sh" "$stage/bench.sh"
[ -f "$guest/postmortem.sh" ] && cp "$guest/postmortem.sh" "$stage/postmortem.sh"
cp "$guest"/tests/*.sh "$stage/tests/" 2>/dev/null || true
chmod +x "$stage/init"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"

# Test modules, built out of tree against this kernel, with the headers
# they share (modules/include).
if grep -q '^CONFIG_MODULES=y' "$kdir/.config"; then
	for m in $(for d in ${MODULE_DIRS:-$guest/modules}; do ls -d "$d"/*/; done); do
		[ -f "$m/Kbuild" ] || continue
		name=$(basename "$m")
		# An optional 'requires' file lists CONFIG_ options the module needs.
		if [ -f "$m/requires" ]; then
			lack=$(awk '/^CONFIG_/ { print $1 "=y" }' "$m/requires" | grep -vxFf "$kdir/.config" || true)
			if [ -n "$lack" ]; then
				msg "test module $name skipped: $(basename "$kdir") lacks $(echo $lack)"
				continue
			fi
		fi
		mb=$BUILD/modules/$(basename "$kdir")/$name
		mkdir -p "$mb"
		rm -f "$mb"/*.ko	# only what Kbuild builds now goes in
		cp "$m"/* "$guest"/modules/include/*.h "$mb/"
		make -s -C "$kdir" ARCH="$KARCH" CROSS_COMPILE="$CROSS" CC="ccache ${CROSS}gcc" M="$mb" modules >"$mb/build.log" 2>&1 || {
			cat "$mb/build.log" >&2
			die "test module $name failed to build against $kdir"
		}
		cp "$mb"/*.ko "$stage/modules/"
	done
fi

# Small static helper programs for the guest tests (scripts/guest/bin/*.c);
# tests that need one skip when it is missing.  The kernel's uapi headers
# come after the system's, for the ones the C library does not ship yet.
for c in "$guest"/bin/*.c; do
	[ -f "$c" ] || continue
	p=$(basename "$c" .c)
	"${CROSS}gcc" -static -O2 -std=c11 -Wall -idirafter "$kdir/source/include/uapi" \
		-o "$stage/bin/$p" "$c" 2>"$stage/gcc.log" ||
		msg "guest helper $p not built: $(head -1 "$stage/gcc.log")"
	rm -f "$stage/gcc.log"
done

# The allocinfo command, built against the kernel's uapi header: its
# copy of the query ABI is checked against the kernel's at compile time.
kabs=$(cd "$kdir" && pwd)
tb=$kabs/allocinfo-tool
make -s -C "$ROOT/tools/allocinfo" B="$tb" \
	CC="${CROSS}gcc -idirafter $kabs/source/include/uapi" static
cp "$tb/allocinfo-static" "$stage/bin/allocinfo"

(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$out"
