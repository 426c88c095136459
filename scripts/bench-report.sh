#!/bin/bash
# Turn the results of make bench (RUNS/<config>/results.log and size) into
# the Markdown report: instruction counts and ratios to stock, targets,
# repeatability, metadata and kernel size, and the cost of /proc/allocinfo.
#
# Usage: bench-report.sh RUNS "NOTE"
set -eu
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
