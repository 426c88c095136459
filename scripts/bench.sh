#!/bin/bash
# make bench: build stock 6.1 and the patched series with one base config
# (qemu + bench fragments), boot each configuration once in QEMU with
# -icount shift=0,sleep=off -smp 1 (a guest ns is one instruction) running
# scripts/guest/bench.sh, and write build/bench/report.md, also copied
# into the generated section of Documentation/benchmarks.md.  EXTRA=1
# adds the series with the lifetime counts (1+stats) and without its
# trace events (1-notrace): two more kernels to build.
# ARCH=arm64 measures arm64 instead (qemu-system-aarch64 -M virt -cpu
# cortex-a57): stock, never, 0 and 1 of bench-stock-arm64 and
# bench-prof-arm64, in build/bench/runs-arm64 and report-arm64.md, spliced
# between the bench-arm64 markers of the document.  ARM64_CPU=MODEL boots
# the same kernels on another CPU model, e.g. neoverse-n1, whose LSE
# atomics the kernels patch in at boot where cortex-a57 runs LL/SC loops:
# into runs-arm64-MODEL, report-arm64-MODEL.md and the bench-arm64-MODEL
# markers.
#
# PEER=1 (x86_64) also builds upstream 6.12 (Debian's linux-source-6.12,
# extracted into build/peer) from the same fragments, without and with
# its own profiling, boots it as stock, never, 0 and 1 into
# build/bench/runs-peer and report-peer.md (each ratio against 6.12's own
# stock), and puts a table of both series' overheads side by side at its
# head, spliced between the bench-peer markers of the document.
#
# BASE=CONFIG measures a distribution's configuration instead of
# tinyconfig: bench-stock-base and bench-prof-base start from that .config
# (Debian's amd64 one: /usr/src/linux-config-6.1/config.amd64_none_amd64.xz)
# with its modules and debug information left out, boot as stock, never,
# 0 and 1 into build/bench/runs-base and report-base.md, spliced between
# the bench-base markers of the document.  PACKED=1 with BASE builds both
# with packed-refs' choices (scripts/configs/packed-refs.config), which
# leave page flags room for packed page references on Debian's amd64
# configuration: bench-stock-base-packed and bench-prof-base-packed, into
# runs-base-packed, report-base-packed.md and the bench-base-packed markers.
# ARCH=arm64 with BASE (Debian's arm64 one: build/arm64-config/usr/src/
# linux-config-6.1/config.arm64_none_arm64.xz, which make deps fetches)
# builds bench-stock-arm64-base and bench-prof-arm64-base, into
# runs-arm64-base, report-arm64-base.md and the bench-arm64-base markers;
# ARM64_CPU applies as above.
#
# MEMCG=1 (x86_64) measures with memory cgroups: bench-stock-memcg and
# bench-prof-memcg add kmem accounting (scripts/configs/memcg.config) to
# the bench fragments, and every boot (stock, never, 0 and 1) runs the
# guest's work in a child memory cgroup (allocprof.memcg=1), as every task
# of a systemd host runs, so memcg's kmem hooks are live; into
# runs-memcg, report-memcg.md and the bench-memcg markers.
#
# SMP=1 measures throughput on 2 and 4 vCPUs at once instead
# (scripts/bench-smp.sh).
#
# Environment: ARCH (x86_64 or arm64; every make of the kernel passes its
# own ARCH), BASE, PACKED, MEMCG, SERIES_SRC (patched tree; default: build/series
# made by apply-series.sh), EXTRA and PEER (x86_64 only), ONLY (regex of
# configurations to boot; the results of others from an earlier run stay
# in the report), TIMEOUT, BENCH_DOC (the document to update; empty: none).
set -eu
. "$(dirname "$0")/lib.sh"

# SMP=1: throughput on several CPUs instead (scripts/bench-smp.sh).
[ "${SMP:-0}" = 0 ] || exec "$ROOT/scripts/bench-smp.sh"

arch=${ARCH:-x86_64}
[ "$arch" != x86 ] || arch=x86_64
use_arch "$arch"
sfx=""
[ "$KARCH" = x86_64 ] || sfx=-$KARCH
if [ -n "${BASE:-}" ]; then
	[ -f "$BASE" ] || die "no base config $BASE"
	sfx=$sfx-base
	if [ "${PACKED:-0}" != 0 ]; then
		[ "$KARCH" = x86_64 ] || die "PACKED=1 is for x86_64's page flags"
		sfx=-base-packed
	fi
elif [ "${PACKED:-0}" != 0 ]; then
	die "PACKED=1 packs page references on a distribution's configuration: set BASE too"
fi
# Appended to every boot's command line
boot_args=""
if [ "${MEMCG:-0}" != 0 ]; then
	[ "$KARCH" = x86_64 ] && [ -z "${BASE:-}" ] ||
		die "MEMCG=1 is measured on x86_64's bench configuration (BASE= has memcg already)"
	sfx=-memcg boot_args=allocprof.memcg=1
fi
# tag: the runs, report and markers; sfx: the kernels.
tag=$sfx
arm64_cpu=${ARM64_CPU:-cortex-a57}
if [ "$arm64_cpu" != cortex-a57 ]; then
	[ "$KARCH" = arm64 ] || die "ARM64_CPU= is for ARCH=arm64"
	tag=$sfx-$arm64_cpu
fi
out=$BUILD/bench
kout=$out/kernel
runs=$out/runs$tag
report=$out/report$tag.md
start=$(date +%s)
# A full run reports what it booted and nothing older.
[ -n "${ONLY:-}" ] || rm -rf "$runs"
mkdir -p "$runs"

if [ -z "${SERIES_SRC:-}" ]; then
	"$ROOT/scripts/apply-series.sh"
	SERIES_SRC=$BUILD/series
fi
if [ -n "$sfx" ]; then
	kernels="bench-stock$sfx bench-prof$sfx"
elif [ "$KARCH" = x86_64 ]; then
	kernels="bench-stock bench-off bench-prof"
	[ "${EXTRA:-0}" = 0 ] || kernels="$kernels bench-stats bench-notrace"
fi
SRC=$PRISTINE KOUT=$kout "$ROOT/scripts/build-kernel.sh" "bench-stock$sfx"
for k in ${kernels#"bench-stock$sfx "}; do
	SRC=$SERIES_SRC KOUT=$kout "$ROOT/scripts/build-kernel.sh" "$k"
done
peer=0
if [ "${PEER:-0}" != 0 ] && [ -z "$sfx" ]; then
	peer=1 peer_src=$("$ROOT/scripts/source.sh" --peer)
	for k in bench-peer-stock bench-peer-prof; do
		SRC=$peer_src KOUT=$kout "$ROOT/scripts/build-kernel.sh" "$k"
	done
	kernels="$kernels bench-peer-stock bench-peer-prof"
fi
built=$(date +%s)

# Modules with many allocation call sites, to grow /proc/allocinfo.
gen_tags_module() { # NAME SITES
	local d=$out/gen-modules/$1 i
	mkdir -p "$d"
	echo "obj-m += $1.o" >"$d/Kbuild"
	{
		printf '// SPDX-License-Identifier: GPL-2.0\n'
		printf '/* Generated by scripts/bench.sh: %s allocation call sites */\n' "$2"
		printf '#include <linux/module.h>\n#include <linux/slab.h>\n\n'
		printf 'static int __init sites_init(void)\n{\n'
		for ((i = 0; i < $2; i++)); do
			printf '\tkfree(kmalloc(%d, GFP_KERNEL));\n' $((8 + i % 64))
		done
		printf '\treturn 0;\n}\n\nstatic void __exit sites_exit(void)\n{\n}\n\n'
		printf 'module_init(sites_init);\nmodule_exit(sites_exit);\nMODULE_LICENSE("GPL");\n'
	} >"$d/$1.c.new"
	# Keep the old file when unchanged, so the module is not rebuilt.
	if cmp -s "$d/$1.c.new" "$d/$1.c"; then rm "$d/$1.c.new"; else mv "$d/$1.c.new" "$d/$1.c"; fi
}
gen_tags_module allocprof_tags_a 1000
gen_tags_module allocprof_tags_b 2000

export MODULE_DIRS="$ROOT/scripts/guest/bench-modules $out/gen-modules"
for k in $kernels; do
	"$ROOT/scripts/mkinitramfs.sh" "$kout/$k" "$out/$k.cpio.gz"
done

# The console on the first serial port, the results on a second one, or
# on arm64's virt machine, which has one UART, on a virtio console.
case "$KARCH" in
x86_64) machine=() append="console=ttyS0 panic=-1 tsc=reliable" ;;
arm64) machine=(-M virt -cpu "$arm64_cpu") append="console=ttyAMA0 panic=-1" ;;
esac
boot() { # CONFIG KERNEL [CMDLINE WORD...]
	local d=$runs/$1 s=0 t0 res
	case "$2" in bench-peer-*) d=$runs-peer/$1 ;; esac
	[[ $1 =~ ${ONLY:-.} ]] || return 0
	mkdir -p "$d"
	rm -f "$d/results.log"
	case "$KARCH" in
	x86_64) res=(-serial "file:$d/results.log") ;;
	arm64) res=(-device virtio-serial-device -chardev "file,id=results,path=$d/results.log"
		-device "virtconsole,chardev=results") ;;
	esac
	t0=$(date +%s)
	timeout "${TIMEOUT:-900}" "$QEMU" -nodefaults -display none -no-reboot \
		"${machine[@]}" -m 512 -smp 1 -icount shift=0,sleep=off \
		-kernel "$kout/$2/$KIMAGE" -initrd "$out/$2.cpio.gz" \
		-serial "file:$d/console.log" "${res[@]}" \
		-append "$append allocprof.mode=bench ${*:3} $boot_args" \
		</dev/null >"$d/qemu.log" 2>&1 || s=$?
	grep -q '^@@DONE' "$d/results.log" ||
		die "bench boot $1 did not finish (qemu status $s; logs in $d)"
	if grep -qE 'WARNING:|BUG:|Oops|Kernel panic|Call Trace:' "$d/console.log"; then
		die "bench boot $1: kernel warning or crash (see $d/console.log)"
	fi
	"${CROSS}size" "$kout/$2/vmlinux" | tail -1 >"$d/size"
	msg "bench $1: $(($(date +%s) - t0)) s"
}
# Under -icount the counts do not depend on the host, so boots run two
# at a time.
pair() { # "CONFIG KERNEL [CMDLINE]" "CONFIG KERNEL [CMDLINE]"
	local a b ra=0 rb=0
	# shellcheck disable=SC2086
	boot $1 & a=$!
	# shellcheck disable=SC2086
	boot $2 & b=$!
	wait $a || ra=$?
	wait $b || rb=$?
	[ $ra = 0 ] && [ $rb = 0 ]
}
pair "stock bench-stock$sfx" "stock-2 bench-stock$sfx"
if [ -n "$sfx" ]; then
	# arm64, distribution and memcg configurations: the three modes of the one
	# series kernel, page references wherever its layout puts them; the
	# tracing and stacks variants stay x86_64 tinyconfig's.
	pair "never bench-prof$sfx sysctl.vm.mem_profiling=never" \
		"0 bench-prof$sfx sysctl.vm.mem_profiling=0"
	boot 1 "bench-prof$sfx" sysctl.vm.mem_profiling=1
else
	pair "off bench-off" "never bench-prof sysctl.vm.mem_profiling=never"
	pair "0 bench-prof sysctl.vm.mem_profiling=0" "1 bench-prof sysctl.vm.mem_profiling=1"
	[ "${EXTRA:-0}" = 0 ] ||
		pair "1+stats bench-stats sysctl.vm.mem_profiling=1" \
			"1-notrace bench-notrace sysctl.vm.mem_profiling=1"
	# The alloc_tag events enabled with a filter no call site matches: what
	# they cost while someone traces other call sites.
	# The bench base leaves room for page references in page->flags, where
	# 1 keeps them; 1-page_ext keeps them in page_ext, as kernels without
	# the room do.
	pair "1+listener bench-prof sysctl.vm.mem_profiling=1 allocprof.listen=1" \
		"1-page_ext bench-prof sysctl.vm.mem_profiling=1 mem_profiling_page_ref=page_ext"
	# Three of the benchmarks' call sites armed for stacks: what recording a
	# stack costs a charge, and what an armed site costs everything else.
	boot 1+armed bench-prof sysctl.vm.mem_profiling=1 allocprof.arm=1
	if [ $peer = 1 ]; then
		[ -n "${ONLY:-}" ] || rm -rf "$runs-peer"
		pair "stock bench-peer-stock" "never bench-peer-prof sysctl.vm.mem_profiling=never"
		pair "0 bench-peer-prof sysctl.vm.mem_profiling=0" "1 bench-peer-prof sysctl.vm.mem_profiling=1"
	fi
fi
end=$(date +%s)

note="builds $((built - start)) s, boots $((end - built)) s"
[ "$KARCH" = x86_64 ] || note="\`$QEMU ${machine[*]}\`, $note"
case $sfx in
-base | -arm64-base) note="\`${BASE##*/}\`, $note" ;;
-base-packed) note="\`${BASE##*/}\` with packed-refs, $note" ;;
-memcg) note="with memory cgroups, the work in a child cgroup, $note" ;;
esac
"$ROOT/scripts/bench-report.sh" "$runs" "$note" >"$report"
# A report replaces what the document holds between its markers.
doc=${BENCH_DOC-$ROOT/Documentation/benchmarks.md}
doc_splice "$doc" "bench$tag" "$report"
cat "$report"
if [ $peer = 1 ]; then
	{
		"$ROOT/scripts/bench-report.sh" --side-by-side "$runs" "$runs-peer"
		echo
		"$ROOT/scripts/bench-report.sh" "$runs-peer" "upstream 6.12, $note"
	} >"$out/report-peer.md"
	doc_splice "$doc" bench-peer "$out/report-peer.md"
	cat "$out/report-peer.md"
fi
msg "make bench: $(($(date +%s) - start)) s; report in $report"
