#!/bin/bash
# Turn the results of make bench (RUNS/<config>/results.log and size) into
# the Markdown report: instruction counts and ratios to stock, targets,
# repeatability, metadata and kernel size, and the cost of /proc/allocinfo.
#
# Usage: bench-report.sh RUNS "NOTE"
#        bench-report.sh --side-by-side RUNS PEER_RUNS
# The second form: the overheads of never, 0 and 1 of both runs side by
# side, each against its own stock (make bench PEER=1).
set -eu
if [ "${1:-}" = --side-by-side ]; then
	for side in "$2" "$3"; do
		for c in stock never 0 1; do
			[ -f "$side/$c/results.log" ] || { echo "bench-report: no $side/$c/results.log" >&2; exit 1; }
		done
	done
	for side in "$2" "$3"; do
		for c in stock never 0 1; do
			sed "s|^|${side##*/} $c |; s/\r$//" "$side/$c/results.log"
		done
	done | awk -v ours="${2##*/}" '
		function pct(x, b) { return sprintf("%+.1f%%", (x / b - 1) * 100) }
		$3 == "@@MICRO" { n = $4; v[$1, $2, n] = $6 / $5; if (!(n in seen)) { seen[n] = 1; order[++k] = n } }
		$3 == "@@MACRO" && $4 ~ /#1$/ { v[$1, $2, "macro total"] += $5; seen["macro total"] = 1 }
		$1 != ours { peer = $1 }
		END {
			order[++k] = "macro total"
			print "### Beside upstream 6.12: overhead against each one'"'"'s own stock"
			print ""
			print "Instructions per alloc+free pair (per workload for the macro total) of"
			print "each stock kernel, and what `never`, `0` and `1` add to it."
			print ""
			print "| benchmark | 6.1 stock | allocprof `never` | `0` | `1` | 6.12 stock | upstream `never` | `0` | `1` |"
			print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
			for (i = 1; i <= k; i++) {
				n = order[i]; s = "| " n
				for (j = 0; j < 2; j++) {
					side = j ? peer : ours; b = v[side, "stock", n]
					s = s " | " (b == "" ? "-" : sprintf(n == "macro total" ? "%d" : "%.1f", b))
					for (c = 0; c < 3; c++) {
						cf = c == 0 ? "never" : c == 1 ? "0" : "1"
						s = s " | " (b == "" || v[side, cf, n] == "" ? "-" : pct(v[side, cf, n], b))
					}
				}
				print s " |"
			}
		}'
	exit 0
fi
runs=${1:?usage: bench-report.sh RUNS NOTE}
note=${2:-}
files=()
for c in stock off never 0 1 1-page_ext 1-notrace 1+listener 1+armed 1+stats; do
	[ -f "$runs/$c/results.log" ] && files+=("$runs/$c/results.log")
done
[ ${#files[@]} -gt 0 ] || { echo "bench-report: no results in $runs" >&2; exit 1; }
for f in "${files[@]}"; do
	d=$(dirname "$f")
	echo "@@SIZE $(cat "$d/size" 2>/dev/null)" | sed "s|^|${d##*/} |"
	sed "s|^|${d##*/} |; s/\r$//" "$f"
done | awk -v note="$note" -f "$(dirname "$0")/bench-report.awk"

# Two boots of the same kernel: are the counts the same?
if [ -f "$runs/stock-2/results.log" ] && [ -f "$runs/stock/results.log" ]; then
	echo
	echo "### Repeatability across boots"
	echo
	paste -d' ' <(grep -E '^@@(MICRO|MACRO)' "$runs/stock/results.log") \
		<(grep -E '^@@(MICRO|MACRO)' "$runs/stock-2/results.log") | awk '
		$1 == "@@MICRO" { a = $4; b = $9 } $1 == "@@MACRO" { a = $3; b = $6 }
		{ n++; if (a == b) same++; d = (b - a) / a * 100; d = d < 0 ? -d : d; if (d > max) max = d }
		END { printf("`stock` booted twice: %d of %d figures identical, largest difference %.3f%%.\n", same, n, max) }'
fi
