#!/bin/bash
# make bench SMP=1, second part: the memory writes of one alloc+free pair
# of each allocator, by where they land (scripts/bench-trace.sh), on the
# kernels bench-smp.sh built, for stock and the series (1), and with two
# nodes for both (the series with per-node counts, 1+numa).  A write is
# shared unless it lands in this CPU's per-CPU data, the task's own stack
# or task_struct, or the block the pair allocated (its memory, its slab
# or struct pages, the slab's vector).  Reports build/bench/report-writes.md,
# spliced between the bench-writes markers of the document.
#
# Environment: BENCH_DOC (as bench-smp.sh), JOBS (traces at once,
# default 2).
set -eu
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
runs=$out/runs-writes
for k in bench-stock-numa bench-prof-numa; do
	[ -f "$out/kernel/$k/vmlinux" ] && [ -f "$out/$k.cpio.gz" ] ||
		die "no $k: run make bench SMP=1"
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
# pair, stock's first function, the series'
while read -r pair fn; do
	for c in stock stock-2nodes 1 1+numa; do
		case $c in
		stock) set -- bench-stock-numa "$fn" ;;
		stock-2nodes) set -- bench-stock-numa "$fn" numa=fake=2 ;;
		1) set -- bench-prof-numa "${fn}_noprof" sysctl.vm.mem_profiling=1 ;;
		1+numa) set -- bench-prof-numa "${fn}_noprof" numa=fake=2 \
			sysctl.vm.mem_profiling=1 mem_profiling_numa=1 ;;
		esac
		trace "$pair" "$c" "$@" &
		slot=$(((slot + 1) % jobs))
		[ "$slot" != 0 ] || wait
	done
done <<'PAIRS'
kmalloc __kmalloc
kmem_cache kmem_cache_alloc
alloc_page alloc_pages
vmalloc vmalloc
PAIRS
wait

{
	echo "One pair of each allocator under \`-icount\`, one vCPU, the 100th call"
	echo "from the bench module's loop ($(($(date +%s) - start)) s).  Writes: all of"
	echo "them; own: this CPU's per-CPU data, the task's stack and task_struct;"
	echo "block: the memory the pair allocated, its slab or struct pages, the"
	echo "slab's vector; shared: the rest.  Atomic ones in brackets."
	echo
	echo "| pair | stock | \`1\` | stock, 2 nodes | \`1+numa\` |"
	echo "|---|---|---|---|---|"
	for pair in kmalloc kmem_cache alloc_page vmalloc; do
		printf '| %s |' "$pair"
		for c in stock 1 stock-2nodes 1+numa; do
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
