#!/bin/bash
# Where the instructions of one benchmark pair go: boot a make bench
# kernel (x86_64 or arm64) with the bench guest, under -icount and with
# QEMU's gdb stub, stop at FUNCTION's SKIP-th call from the bench module,
# single-step one iteration of its loop (to FUNCTION's next call) and
# print the instructions each function executed, then the iteration's
# writes to memory (and how many of them atomic: lock-prefixed or xchg on
# x86_64; exclusive stores and LSE atomics on arm64) by where they land:
# this CPU's per-CPU data, the own stack and task_struct, a block the
# iteration allocated (a slab object's slab, struct pages and vector
# entry; pages and their struct pages; a vmalloc area and the struct
# pages behind it), or else, shared: the direct map (allocator data,
# page tables), struct pages, vmalloc space, module or kernel data.
# KASLR is off, so that the stop condition can tell module addresses
# from the kernel's; where the areas land may differ from a make bench
# boot by a few instructions.  On x86_64, noreplace-smp keeps the lock
# prefixes that a boot on one CPU would patch out, so that atomic
# instructions count as such; arm64 runs on CPU (default cortex-a57).
#
# Usage: bench-trace.sh KERNEL FUNCTION [CMDLINE WORD...]
#   KERNEL    a build/bench/kernel/ directory of make bench (its initramfs
#             is build/bench/KERNEL.cpio.gz)
#   FUNCTION  the first kernel function the loop calls, e.g. kmalloc_trace,
#             __alloc_pages (or __alloc_pages_noprof), __alloc_percpu_noprof
# Example: bench-trace.sh bench-prof __alloc_percpu_noprof sysctl.vm.mem_profiling=1
# Environment: SKIP (default 100: after the warm-up), PORT (gdb stub's TCP
# port, default 1234), WRITES (0: no write table; all: every write too),
# CPU (arm64's QEMU CPU model).
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: bench-trace.sh KERNEL FUNCTION [CMDLINE WORD...]"
kdir=$BUILD/bench/kernel/$1 fn=$2
shift 2
[ -f "$kdir/vmlinux" ] && [ -f "$kdir/System.map" ] || die "no kernel at $kdir: run make bench"
initrd=$BUILD/bench/${kdir##*/}.cpio.gz
[ -f "$initrd" ] || die "no initramfs $initrd: run make bench"
command -v gdb-multiarch >/dev/null || die "needs gdb-multiarch: run make deps"
grep -q " $fn\$" "$kdir/System.map" || die "no function $fn in $kdir/System.map"

use_arch "$(kernel_arch "$kdir")"
log=$(mktemp -d)
case $KARCH in
x86_64)
	machine=(-smp 1) append="console=ttyS0 tsc=reliable noreplace-smp"
	results=(-serial "file:$log/results") ;;
arm64)
	machine=(-M virt -cpu "${CPU:-cortex-a57}" -smp 1) append="console=ttyAMA0"
	results=(-device virtio-serial-device -chardev "file,id=results,path=$log/results"
		-device virtconsole,chardev=results) ;;
esac
port=${PORT:-1234}
qemu=""
trap '[ -z "$qemu" ] || kill "$qemu" 2>/dev/null || true; rm -rf "$log"' EXIT
"$QEMU" -nodefaults -display none -no-reboot -m 512 "${machine[@]}" \
	-icount shift=0,sleep=off -kernel "$kdir/$KIMAGE" -initrd "$initrd" \
	-serial "file:$log/console" "${results[@]}" \
	-append "$append panic=-1 nokaslr allocprof.mode=bench $*" \
	-gdb "tcp:127.0.0.1:$port" -S </dev/null >"$log/qemu" 2>&1 &
qemu=$!
KDIR=$kdir ENTRY=$fn ARCH=$KARCH GDB_PORT=127.0.0.1:$port OUT=$log/table \
	gdb-multiarch -q -nx -batch -x "$ROOT/scripts/bench-trace.py" >"$log/gdb" 2>&1 ||
	die "gdb failed: $(grep -v '^0x' "$log/gdb" | tail -3)"
[ -s "$log/table" ] || die "gdb stopped early: $(grep -v '^0x' "$log/gdb" | tail -3)"
cat "$log/table"
