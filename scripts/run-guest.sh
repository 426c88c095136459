#!/bin/bash
# Boot a kernel with the test initramfs for a person: MODE demo prints what
# a user looks at first; shell opens an interactive busybox shell.
# Usage: run-guest.sh demo|shell KDIR [extra kernel command line]
set -eu
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: run-guest.sh demo|shell KDIR [cmdline]} kdir=${2:?KDIR}
extra=${3:-}
img=$BUILD/boot/$mode.cpio.gz
mkdir -p "$BUILD/boot"
"$ROOT/scripts/mkinitramfs.sh" "$kdir" "$img"
use_arch "$(kernel_arch "$kdir")"
case "$KARCH" in
x86_64)
	set -- -smp 2,sockets=2,cores=1,threads=1
	append="console=ttyS0 panic=-1 tsc=reliable" ;;
arm64)
	set -- -M virt -cpu cortex-a57 -smp 2
	append="console=ttyAMA0 panic=-1" ;;
esac
append="$append allocprof.mode=$mode"
# For the demo, kernel messages stay off the console so its output stands out.
[ "$mode" = demo ] && append="$append quiet loglevel=1"
set -- "$QEMU" -nographic -no-reboot -m 512 "$@" \
	-kernel "$kdir/$KIMAGE" -initrd "$img" \
	-append "$append $extra"
if [ "$mode" = shell ]; then
	exec "$@"
fi
timeout 300 "$@" </dev/null | tr -d '\r' | sed -n -e 's/^.*\(== uname\)/\1/' -e '/^== uname/,$p' | grep -v 'reboot: '
