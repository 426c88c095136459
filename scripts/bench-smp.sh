#!/bin/bash
# make bench SMP=1: throughput of the series on several CPUs at once.
# Builds bench-stock-numa and bench-prof-numa (the bench base with NUMA
# emulation), then boots them with 2 and 4 vCPUs under multi-threaded TCG
# (no -icount: real time), ROUNDS times, alternating stock and series in
# each round so that both see the same load of a shared host.  Each boot
# runs allocprof_bench's /proc/allocprof_smp (one thread per CPU for a
# second per benchmark, from one shared call site and from one call site
# per CPU; the list forward, then backward) and reports pairs per
# second; the series as 1 (per-node counts off) and 1+numa (numa=fake=2
# mem_profiling_numa=1, against stock also booted with two nodes).  The
# report gives, per benchmark and vCPU count, the series' throughput as a
# share of stock's from the same round: median, lowest and highest of the
# rounds.  Then scripts/bench-writes.sh sorts the writes of one pair of
# each allocator on the same kernels by where they land.
#
# Environment: ROUNDS (default 5), SERIES_SRC (as bench.sh), BENCH_DOC
# (the document whose bench-smp markers get the report; empty: none).
set -eu
. "$(dirname "$0")/lib.sh"

use_arch x86_64
out=$BUILD/bench
kout=$out/kernel
runs=$out/runs-smp
rounds=${ROUNDS:-5}
start=$(date +%s)
rm -rf "$runs"
mkdir -p "$runs"

if [ -z "${SERIES_SRC:-}" ]; then
	"$ROOT/scripts/apply-series.sh"
	SERIES_SRC=$BUILD/series
fi
SRC=$PRISTINE KOUT=$kout "$ROOT/scripts/build-kernel.sh" bench-stock-numa
SRC=$SERIES_SRC KOUT=$kout "$ROOT/scripts/build-kernel.sh" bench-prof-numa
export MODULE_DIRS="$ROOT/scripts/guest/bench-modules"
for k in bench-stock-numa bench-prof-numa; do
	"$ROOT/scripts/mkinitramfs.sh" "$kout/$k" "$out/$k.cpio.gz"
done
built=$(date +%s)

# A boot that does not finish is tried once more: now and then a guest
# with more vCPUs than the host has CPUs resets silently during boot.
boot() { # NAME CPUS KERNEL [CMDLINE WORD...]
	boot_once "$@" || {
		msg "bench boot $1 ($2 vCPUs) did not finish, trying again"
		boot_once "$@"
	} || die "bench boot $1 ($2 vCPUs) did not finish (logs in $runs/$1-$2)"
	! grep -qE 'WARNING:|BUG:|Oops|Kernel panic|Call Trace:' "$runs/$1-$2/console.log" ||
		die "bench boot $1 ($2 vCPUs): kernel warning or crash (see $runs/$1-$2/console.log)"
	tr -d '\r' <"$runs/$1-$2/results.log" | awk -v c="$1" -v r="$round" \
		'$1 == "@@SMP" { print c, r, $2, $3, $4, $5 }' >>"$runs/all.txt"
}
boot_once() {
	local d=$runs/$1-$2
	rm -rf "$d"
	mkdir -p "$d"
	timeout 600 "$QEMU" -nodefaults -display none -no-reboot -m 512 \
		-smp "$2,sockets=$2,cores=1,threads=1" -accel tcg,thread=multi \
		-kernel "$kout/$3/$KIMAGE" -initrd "$out/$3.cpio.gz" \
		-serial "file:$d/console.log" -serial "file:$d/results.log" \
		-append "console=ttyS0 panic=-1 tsc=reliable allocprof.mode=bench allocprof.smp=1 ${*:4}" \
		</dev/null >"$d/qemu.log" 2>&1
	grep -q '^@@DONE' "$d/results.log"
}
for round in $(seq "$rounds"); do
	for cpus in 2 4; do
		boot stock $cpus bench-stock-numa
		boot 1 $cpus bench-prof-numa sysctl.vm.mem_profiling=1
		boot stock-2nodes $cpus bench-stock-numa numa=fake=2
		boot 1+numa $cpus bench-prof-numa numa=fake=2 sysctl.vm.mem_profiling=1 mem_profiling_numa=1
	done
	msg "bench SMP: round $round of $rounds done"
done
end=$(date +%s)

# all.txt: "config round benchmark cpus pairs_per_second pass".
# shares PASS: a line per benchmark and vCPU count, "| stock median |
# 1 | 1+numa |", from pass PASS of each boot, or the mean of both with 0.
shares() {
	awk -v pass="$1" '
	pass && $6 != pass { next }
	{ k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; sum[k] += $5; cnt[k]++; r[$2] = 1 }
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function ratio(s, base, bench, cpus,   k, n, x, lo, hi) {
		n = 0
		for (k in r) {
			if (!((s SUBSEP k SUBSEP bench SUBSEP cpus) in v) || !v[base SUBSEP k SUBSEP bench SUBSEP cpus]) continue
			x[++n] = v[s SUBSEP k SUBSEP bench SUBSEP cpus] / v[base SUBSEP k SUBSEP bench SUBSEP cpus]
		}
		if (!n) return "-"
		lo = hi = x[1]
		for (k = 1; k <= n; k++) { if (x[k] < lo) lo = x[k]; if (x[k] > hi) hi = x[k] }
		return sprintf("%.1f%% (%.1f-%.1f)", 100 * med(x, n), 100 * lo, 100 * hi)
	}
	function stockmed(bench, cpus,   k, n, x) {
		n = 0
		for (k in r) if (("stock" SUBSEP k SUBSEP bench SUBSEP cpus) in v) x[++n] = v["stock" SUBSEP k SUBSEP bench SUBSEP cpus]
		return n ? sprintf("%d", med(x, n)) : "-"
	}
	END {
		for (k in sum) v[k] = sum[k] / cnt[k]
		nb = split("kmalloc_64_shared kmalloc_64_own kmem_cache_shared alloc_page_shared", names, " ")
		for (i = 1; i <= nb; i++) for (cpus = 2; cpus <= 4; cpus += 2)
			printf "| %s | %d | %s | %s | %s |\n", names[i], cpus, stockmed(names[i], cpus),
				ratio("1", "stock", names[i], cpus), ratio("1+numa", "stock-2nodes", names[i], cpus)
	}' "$runs/all.txt"
}
{
	echo "Multi-threaded TCG on $(nproc) host CPUs, $rounds rounds, builds $((built - start)) s, boots $((end - built)) s."
	echo "Series' pairs per second as a share of stock's in the same round:"
	echo "median (lowest-highest).  1+numa is against stock booted with two nodes."
	echo "Each boot runs the list forward, then backward; a figure is the mean"
	echo "of both."
	echo
	echo "| benchmark | vCPUs | stock pairs/s (median) | 1 | 1+numa |"
	echo "|---|---:|---:|---:|---:|"
	shares 0
	echo
	echo "The two passes apart, the series' share in each (\`1\`):"
	echo
	echo "| benchmark | vCPUs | forward | backward |"
	echo "|---|---:|---:|---:|"
	paste -d '|' <(shares 1 | cut -d '|' -f 1-3,5) <(shares 2 | cut -d '|' -f 5,7)
} >"$out/report-smp.md"

doc_splice "${BENCH_DOC-$ROOT/Documentation/benchmarks.md}" bench-smp "$out/report-smp.md"
cat "$out/report-smp.md"
"$ROOT/scripts/bench-writes.sh"
msg "make bench SMP=1: $(($(date +%s) - start)) s; report in $out/report-smp.md"
