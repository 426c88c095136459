#!/bin/bash
# Where the instructions of one benchmark pair go: boot a make bench
# kernel (x86_64) with the bench guest, under -icount and with QEMU's gdb
# stub, stop at FUNCTION's SKIP-th call from the bench module, single-step
# one iteration of its loop (to FUNCTION's next call) and print the
# instructions each function executed, then the iteration's writes to
# memory (and how many of them atomic) by where they land: this CPU's
# per-CPU data (%gs), the own stack and task_struct, the block the
# iteration allocated (its memory, its slab or struct pages, the slab's
# vector entry), or else, shared: the direct map (allocator data, page
# tables), struct pages, vmalloc space, module or kernel data.  KASLR is
# off, so that the stop condition can tell module addresses from the
# kernel's; where the areas land may differ from a make bench boot by a
# few instructions.  noreplace-smp keeps the lock prefixes that a boot on
# one CPU would patch out, so that atomic instructions count as such.
#
# Usage: bench-trace.sh KERNEL FUNCTION [CMDLINE WORD...]
#   KERNEL    a build/bench/kernel/ directory of make bench (its initramfs
#             is build/bench/KERNEL.cpio.gz)
#   FUNCTION  the first kernel function the loop calls, e.g. kmalloc_trace,
#             __alloc_pages (or __alloc_pages_noprof), __alloc_percpu_noprof
# Example: bench-trace.sh bench-prof __alloc_percpu_noprof sysctl.vm.mem_profiling=1
# Environment: SKIP (default 100: after the warm-up), PORT (gdb stub's TCP
# port, default 1234), WRITES (0: no write table; all: every write too).
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: bench-trace.sh KERNEL FUNCTION [CMDLINE WORD...]"
kdir=$BUILD/bench/kernel/$1 fn=$2
shift 2
[ -f "$kdir/vmlinux" ] && [ -f "$kdir/System.map" ] || die "no kernel at $kdir: run make bench"
[ "$(kernel_arch "$kdir")" = x86_64 ] || die "bench-trace.sh traces x86_64 kernels only"
initrd=$BUILD/bench/${kdir##*/}.cpio.gz
[ -f "$initrd" ] || die "no initramfs $initrd: run make bench"
command -v gdb >/dev/null || die "needs gdb"
grep -q " $fn\$" "$kdir/System.map" || die "no function $fn in $kdir/System.map"

use_arch x86_64
port=${PORT:-1234}
log=$(mktemp -d)
qemu=""
trap '[ -z "$qemu" ] || kill "$qemu" 2>/dev/null || true; rm -rf "$log"' EXIT
"$QEMU" -nodefaults -display none -no-reboot -m 512 -smp 1 \
	-icount shift=0,sleep=off -kernel "$kdir/$KIMAGE" -initrd "$initrd" \
	-serial "file:$log/console" -serial "file:$log/results" \
	-append "console=ttyS0 panic=-1 tsc=reliable nokaslr noreplace-smp allocprof.mode=bench $*" \
	-gdb "tcp:127.0.0.1:$port" -S </dev/null >"$log/qemu" 2>&1 &
qemu=$!
KDIR=$kdir ENTRY=$fn GDB_PORT=127.0.0.1:$port OUT=$log/table \
	gdb -q -nx -batch -x "$ROOT/scripts/bench-trace.py" >"$log/gdb" 2>&1 ||
	die "gdb failed: $(grep -v '^0x' "$log/gdb" | tail -3)"
[ -s "$log/table" ] || die "gdb stopped early: $(grep -v '^0x' "$log/gdb" | tail -3)"
cat "$log/table"
