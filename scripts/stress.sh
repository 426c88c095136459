#!/bin/bash
# The long versions of the stress tests (not part of make test): allocation
# storms, vm.mem_profiling toggling, module load/unload cycles, bad input
# and fault injection, booted on the prof kernel with 4 CPUs, the debug
# kernel and the KASAN kernel; then a summary of what was checked and found.
# Guest time runs slower than the host's under TCG on a busy machine (a
# 150 s storm took 15 minutes with a load of 16 on 2 cores), hence the
# long timeouts.  Prints TAP.  Environment: SRC, KOUT (as for build-kernel.sh), ONLY (regex
# of stress boot names), STORM_MS and CHURN to override the lengths.
set -eu
. "$(dirname "$0")/lib.sh"

storm=${STORM_MS:-150000} churn=${CHURN:-400}
# name | kernel | timeout (s) | kernel command line | QEMU options
boots="stress-prof-smp4 | prof | 5400 | allocprof.stress_ms=$storm allocprof.churn=$churn | -smp 4,sockets=4,cores=1,threads=1
stress-debug | debug | 3600 | allocprof.default=never sysctl.vm.mem_profiling=1 slub_debug=A,allocprof_stress allocprof.stress_ms=$storm allocprof.churn=$churn |
stress-kasan | kasan | 5400 | allocprof.stress_ms=$((storm / 2)) allocprof.churn=$((churn / 2)) | -m 1024"
[ -z "${ONLY:-}" ] || boots=$(echo "$boots" | grep -E "^(${ONLY}) " || true)

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }
start=$SECONDS n=0 failed=0 names=""
while IFS='|' read -r name kernel tmo cmdline qemu; do
	name=$(echo "$name" | trim) kernel=$(echo "$kernel" | trim) tmo=$(echo "$tmo" | trim)
	cmdline=$(echo "$cmdline" | trim) qemu=$(echo "$qemu" | trim)
	"$ROOT/scripts/build-kernel.sh" "$kernel" >&2 || { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - kernel $kernel builds"; continue; }
	t0=$SECONDS
	while IFS= read -r l; do
		case "$l" in
		"ok "*) n=$((n + 1)); echo "ok $n ${l#ok [0-9]* }" ;;
		"not ok "*) n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n ${l#not ok [0-9]* }" ;;
		esac
	done < <("$ROOT/scripts/boot-test.sh" --timeout "$tmo" --cmdline "$cmdline" \
		--qemu "$qemu" "$name" "${KOUT:-$BUILD/kernel}/$kernel" || true)
	echo "# $name: $((SECONDS - t0)) s" >&2
	names="$names $name"
done <<<"$boots"
echo "1..$n"

# Figures, from the guest's own result lines.
sum() { # sum REGEX: add up the number captured by the first (...) group
	for b in $names; do cat "$BUILD/boot/$b/results.log"; done |
		sed -nE "s#.*$1.*#\\1#p" | awk '{ s += $1 } END { print s + 0 }'
}
echo "# stress summary ($((SECONDS - start)) s):"
echo "#   allocations in storms:  $(sum '\(([0-9]+) allocs,')"
echo "#   failed allocations:     $(sum 'allocs, [0-9]+ frees, ([0-9]+) failed')"
echo "#   allocinfo reads:        $(sum 'during the storm \(([0-9]+) reads\)') in storms, $(sum 'during the cycles \(([0-9]+) reads\)') during module cycles"
echo "#   sysctl toggles:         $(sum '\(([0-9]+) writes\)')"
echo "#   lowest calls seen:      $(for b in $names; do sed -nE 's/.*min calls (-?[0-9]+).*/\1/p' "$BUILD/boot/$b/results.log"; done | sort -n | head -n 1)"
echo "#   module load/unloads:    $(sum '@@T ok ([0-9]+) load/unload cycles')"
echo "#   bad inputs rejected:    $(for b in $names; do grep -c '@@T ok .*rejected' "$BUILD/boot/$b/results.log"; done | awk '{ s += $1 } END { print s }')"
echo "#   kernel warnings:        $(for b in $names; do grep -cE 'WARNING:|BUG:|KASAN:|Oops' "$BUILD/boot/$b/console.log"; done | awk '{ s += $1 } END { print s }')"
echo "#   unload-with-leftovers warnings (expected): $(for b in $names; do grep -c 'unloaded with' "$BUILD/boot/$b/console.log"; done | awk '{ s += $1 } END { print s }')"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
