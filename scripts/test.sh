#!/bin/bash
# make test: every test layer of design.md section 4, each printing TAP
# (kept in build/results/), then the time each layer took and one line
# 'N passed, N failed'.
#
# The layers run as the jobs of one 'make -j' (build/results/jobs.mk,
# written here), which shares the machine's cores between them: kernel
# builds take turns, the guests of a kernel boot on the cores the next
# build leaves free, and the tool's tests and checkpatch fill the gaps.
# Kernels are built from build/series, the pristine source with the
# committed patches/series applied, so what is tested is what is committed.
#
# Usage: test.sh [--boots]
#   --boots   only the kernels and boot tests of scripts/boot-tests (make
#             boot-test), from SRC (default build/linux), ONLY=regex
#             picking boot tests by name
set -u
. "$(dirname "$0")/lib.sh"

boots_only=0
[ "${1:-}" = --boots ] && boots_only=1
S=$ROOT/scripts
if [ "$boots_only" = 1 ]; then
	export SRC=${SRC:-$TREE} KOUT=${KOUT:-$BUILD/kernel} RESULTS=$BUILD/boot-results
else
	export RESULTS=$BUILD/results
fi
results=$RESULTS
rm -rf "$results"
mkdir -p "$results/jobs"
t0=$(date +%s)

if [ "$boots_only" = 0 ]; then
	export SRC=$BUILD/series KOUT=$BUILD/test/kernel
	# The series applied first: every later layer builds from it.
	"$S/job.sh" setup "$S/check-series.sh" --apply
fi

# jobs.mk: a target a job, NAME.done in results/jobs; job.sh always exits 0.
mk=$results/jobs.mk
J="$S/job.sh"
D=$results/jobs
{
	echo "all:"
	# job NAME [PREREQUISITE...] -- CMD...: CMD as job NAME after the
	# prerequisites; a '+' recipe, so that kernel builds share make's
	# job slots.
	job() {
		local name=$1 deps="" cmd
		shift
		while [ "$1" != -- ]; do deps="$deps $D/$1.done"; shift; done
		shift
		cmd=$(printf ' %q' "$@")
		printf 'all: %s\n%s:%s\n\t+@%s %s%s && touch $@\n' \
			"$D/$name.done" "$D/$name.done" "$deps" "$J" "$name" "$cmd"
	}
	# Long jobs first, as make starts them in this order, and one kernel
	# build after the other, as each wants every core.  The debug kernel
	# leads: sparse checks its build and most guests boot it.
	prev=""
	kernels=$("$S/boot-tests.sh" --kernels | tr '\n' ' ')
	[ "$boots_only" = 1 ] || kernels="debug $(echo " $kernels " | sed 's/ debug / /')"
	for k in $kernels; do
		job "kernel-$k" $prev -- "$S/build-kernel.sh" --tap --initramfs "$k"
		prev=kernel-$k
	done
	if [ "$boots_only" = 0 ]; then
		[ -f "$ROOT/tools/allocinfo/Makefile" ] &&
			job tools -- make -s -C "$ROOT/tools/allocinfo" test
		job checkpatch -- "$S/check-series.sh" --checkpatch
		job config -- env COUT="$BUILD/test/deb-config" "$S/config.sh" --tap
		job config-packed -- env COUT="$BUILD/test/deb-config-packed" \
			FRAGMENTS="prof-on packed-refs" "$S/config.sh" --tap
		job sparse kernel-debug -- "$S/check-series.sh" --sparse debug
		job off kernel-debug -- "$S/check-off.sh" off
		# The post-mortem reader, against dumps of the debug kernel.
		job postmortem kernel-debug tools -- "$S/postmortem-test.sh" "${KOUT:-$BUILD/kernel}/debug"
	fi
	for b in $("$S/boot-tests.sh" --names); do
		job "boot-$b" "kernel-$("$S/boot-tests.sh" --kernel-of "$b")" -- "$S/boot-tests.sh" --one "$b"
	done
} >"$mk"

if [ "$boots_only" = 1 ] || [ -f "$SRC/.allocprof-stamp" ]; then
	make -k -j"$JOBS" --no-print-directory --output-sync=target -f "$mk" all
fi
t1=$(date +%s)

# The TAP of every job, by layer, numbered in one stream.
layer_of() {
	case "$1" in
	setup | checkpatch | sparse) echo series ;;
	kernel-*) echo kernels ;;
	boot-*) echo boot ;;
	*) echo "$1" ;;
	esac
}
# In the order they were defined, after the series was applied.
jobs_in_order=$(for j in setup $(sed -n 's|^all: .*/\(.*\)\.done$|\1|p' "$mk"); do
	[ -f "$results/$j.time" ] && echo "$j"
done)
n=0
for j in $jobs_in_order; do
	grep -E '^(not )?ok' "$results/$j.tap" | while IFS= read -r l; do
		n=$((n + 1))
		case "$l" in
		"not ok"*) echo "not ok $n ${l#not ok }" ;;
		*) echo "ok $n ${l#ok }" ;;
		esac
	done | sed -E 's/^((not )?ok [0-9]+) [0-9]+ /\1 /'
	n=$((n + $(grep -cE '^(not )?ok' "$results/$j.tap")))
done >"$results/all.tap"
echo "1..$n" >>"$results/all.tap"

# Time per layer: the span from its first job's start to its last job's
# end, and the time its jobs took one by one (jobs overlap, so spans add
# up to more than the whole run).
echo
echo "Time per layer (s from the start; the jobs of different layers overlap):"
for j in $jobs_in_order; do
	read -r s e <"$results/$j.time"
	echo "$(layer_of "$j") $j $((s - t0)) $((e - t0)) $(grep -c '^ok' "$results/$j.tap")"
done | awk '
	{ l = $1; if (!(l in from)) { order[++nl] = l; from[l] = $3 }
	  if ($3 < from[l]) from[l] = $3; if ($4 > to[l]) to[l] = $4
	  busy[l] += $4 - $3; jobs[l]++; oks[l] += $5
	  if (l == "kernels" || l == "series") detail[l] = detail[l] sprintf(" %s %ds", $2, $4 - $3) }
	END { for (i = 1; i <= nl; i++) { l = order[i]
		printf "  %-8s %5d s  (%4d..%4d s)  %3d jobs, %5d s of work, %4d ok%s\n",
			l, to[l] - from[l], from[l], to[l], jobs[l], busy[l], oks[l],
			detail[l] == "" ? "" : ":" detail[l] } }'
printf '  %-8s %5d s  (%d min %d s)\n' total $((t1 - t0)) $(((t1 - t0) / 60)) $(((t1 - t0) % 60))

skipped=$(grep -cE '^ok .*# SKIP' "$results/all.tap")
passed=$(($(grep -c '^ok' "$results/all.tap") - skipped))
failed=$(grep -c '^not ok' "$results/all.tap")
if [ "$failed" != 0 ]; then
	echo
	echo "Failed:"
	grep '^not ok' "$results/all.tap" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
