#!/bin/bash
# make bench SMP=1, second part: the memory writes of one alloc+free pair
# of each allocator, by where they land (scripts/bench-trace.sh): on
# x86_64, on the kernels bench-smp.sh built, for stock and the series (1),
# and with two nodes for both (the series with per-node counts, 1+numa);
# on arm64 (cortex-a57), stock and 1 of bench-stock-arm64 and
# bench-prof-arm64, built here if make bench ARCH=arm64 has not.  A write
# is shared unless it lands in this CPU's per-CPU data, the task's own
# stack or task_struct, or a block the pair allocated (a slab object's
# slab, struct pages and vector entry; pages and their struct pages; a
# vmalloc area and the struct pages behind it).  Reports
# build/bench/report-writes.md, spliced between the bench-writes markers
# of the document.
#
# Environment: BENCH_DOC (as bench-smp.sh), JOBS (traces at once,
# default 2), SERIES_SRC (as bench.sh).
set -eu
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
runs=$out/runs-writes
for k in bench-stock-numa bench-prof-numa; do
	[ -f "$out/kernel/$k/vmlinux" ] && [ -f "$out/$k.cpio.gz" ] ||
		die "no $k: run make bench SMP=1"
done
for k in bench-stock-arm64 bench-prof-arm64; do
	[ ! -f "$out/kernel/$k/vmlinux" ] || [ ! -f "$out/$k.cpio.gz" ] || continue
	if [ $k = bench-stock-arm64 ]; then
		src=$PRISTINE
	elif [ -n "${SERIES_SRC:-}" ]; then
		src=$SERIES_SRC
	else
		"$ROOT/scripts/apply-series.sh"
		src=$BUILD/series
	fi
	SRC=$src KOUT=$out/kernel "$ROOT/scripts/build-kernel.sh" $k
	MODULE_DIRS="$ROOT/scripts/guest/bench-modules" \
		"$ROOT/scripts/mkinitramfs.sh" "$out/kernel/$k" "$out/$k.cpio.gz"
done
rm -rf "$runs"
mkdir -p "$runs"
start=$(date +%s)

# trace PAIR CONFIG KERNEL FUNCTION [CMDLINE WORD...]
trace() {
	local f=$runs/$1.$2
	PORT=$((1234 + slot)) "$ROOT/scripts/bench-trace.sh" "$3" "$4" "${@:5}" \
		>"$f" 2>"$f.err" || echo "failed: $(tail -1 "$f.err")" >>"$f"
}
jobs=${JOBS:-2} slot=0
# pair, the first function stock's loop calls on x86_64 and on arm64
# (without NUMA, alloc_pages() is __alloc_pages()); the series' adds _noprof
while read -r pair fn arm64_fn; do
	for c in stock stock-2nodes 1 1+numa arm64-stock arm64-1; do
		case $c in
		stock) set -- bench-stock-numa "$fn" ;;
		stock-2nodes) set -- bench-stock-numa "$fn" numa=fake=2 ;;
		1) set -- bench-prof-numa "${fn}_noprof" sysctl.vm.mem_profiling=1 ;;
		1+numa) set -- bench-prof-numa "${fn}_noprof" numa=fake=2 \
			sysctl.vm.mem_profiling=1 mem_profiling_numa=1 ;;
		arm64-stock) set -- bench-stock-arm64 "$arm64_fn" ;;
		arm64-1) set -- bench-prof-arm64 "${arm64_fn}_noprof" sysctl.vm.mem_profiling=1 ;;
		esac
		trace "$pair" "$c" "$@" &
		slot=$(((slot + 1) % jobs))
		[ "$slot" != 0 ] || wait
	done
done <<'PAIRS'
kmalloc __kmalloc __kmalloc
kmem_cache kmem_cache_alloc kmem_cache_alloc
alloc_page alloc_pages __alloc_pages
vmalloc vmalloc vmalloc
PAIRS
wait

{
	echo "One pair of each allocator under \`-icount\`, one vCPU, the 100th call"
	echo "from the bench module's loop ($(($(date +%s) - start)) s).  Writes: all of"
	echo "them; own: this CPU's per-CPU data, the task's stack and task_struct;"
	echo "block: a block the pair allocated (a slab object's slab, struct pages"
	echo "and vector entry; pages and their struct pages; a vmalloc area and the"
	echo "struct pages behind it); shared: the rest.  Atomic ones in brackets"
	echo "(x86_64: lock-prefixed and xchg; arm64: exclusive stores)."
	echo
	echo "| pair | stock | \`1\` | stock, 2 nodes | \`1+numa\` | arm64 stock | arm64 \`1\` |"
	echo "|---|---|---|---|---|---|---|"
	for pair in kmalloc kmem_cache alloc_page vmalloc; do
		printf '| %s |' "$pair"
		for c in stock 1 stock-2nodes 1+numa arm64-stock arm64-1; do
			awk '/^failed:/ { f = 1 }
			/^ *[0-9]+ \([0-9]+\)  / { n = $1; a = $2; gsub(/[()]/, "", a)
				g = $3 ~ /^(this|own)$/ ? "o" : $3 == "the" ? "b" : "s"
				w[g] += n; at[g] += a; w["all"] += n; at["all"] += a }
			END { if (f || !w["all"]) printf " - |"
				else printf " %d (%d): own %d (%d), block %d (%d), shared %d (%d) |",
					w["all"], at["all"], w["o"], at["o"], w["b"], at["b"], w["s"], at["s"] }' \
				"$runs/$pair.$c"
		done
		echo
	done
} >"$out/report-writes.md"
doc_splice "${BENCH_DOC-$ROOT/Documentation/benchmarks.md}" bench-writes "$out/report-writes.md"
cat "$out/report-writes.md"
