#!/bin/bash
# Apply patches/series with 'patch -p1' to a fresh copy of the pristine
# source (build/series, which make test then builds its kernels from), run
# scripts/checkpatch.pl --strict on every patch, and sparse (make C=2) on the
# C files the series touches, failing on warnings the pristine source does
# not already have.  Prints TAP.
#
# Usage: check-series.sh [--apply | --checkpatch | --sparse KERNEL]
# Without an option, all three; make test runs them as separate jobs, the
# sparse one once KERNEL (default debug) is built.
set -eu
. "$(dirname "$0")/lib.sh"

series=$BUILD/series
step=${1:-all}
kernel=${2:-debug}

n=0 failed=0
tap() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2${3:+ # $3}"; fi
}

# 1. Apply.
if [ "$step" != all ] && [ "$step" != --apply ]; then
	[ -f "$series/.allocprof-stamp" ] || die "the series is not applied in $series"
elif "$ROOT/scripts/apply-series.sh" "$series" 2>"$BUILD/apply.log"; then
	tap ok "series: all $(series_patches | wc -l) patches apply with patch -p1"
else
	tap not-ok "series applies with patch -p1" "$(grep -m1 'does not apply' "$BUILD/apply.log")"
	cat "$BUILD/apply.log" >&2
	echo "1..$n"
	exit 1
fi

# 2. checkpatch --strict on every patch.
checkpatched=""
[ "$step" = all ] || [ "$step" = --checkpatch ] && checkpatched=$(series_patches)
for p in $checkpatched; do
	# Messages kept on purpose, with the reason, in scripts/checkpatch-exceptions.
	ignore=$(awk -F'\t' -v p="$p" '$1 == p { printf "%s%s", sep, $2; sep = "," }' \
		"$ROOT/scripts/checkpatch-exceptions")
	# Debian's python3 first: spdxcheck.py needs python3-ply and python3-git.
	if out=$(cd "$series" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --quiet --no-summary \
		${ignore:+--ignore "$ignore"} "$ROOT/patches/$p" 2>&1); then
		tap ok "checkpatch --strict: $p"
	else
		tap not-ok "checkpatch --strict: $p" "$(echo "$out" | grep -E '^(ERROR|WARNING|CHECK)' | head -1)"
		echo "$out" | sed 's/^/    /' >&2
	fi
done

# 3. sparse on the C files the series touches that the kernel below builds
# (the boot tests reuse that build).  A warning counts as new when the
# pristine file lacks it; line numbers and the _noprof renames are ignored.
files=""
[ "$step" = all ] || [ "$step" = --sparse ] &&
	files=$(for p in $(series_patches); do sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$ROOT/patches/$p"; done | sort -u)
kout=${KOUT:-$BUILD/test/kernel}
if [ "$step" = --sparse ] && [ ! -f "$kout/$kernel/.allocprof-built" ]; then
	files=""	# its build reported why
elif [ -n "$files" ] && [ "$step" = all ] &&
	! SRC=$series KOUT=$kout "$ROOT/scripts/build-kernel.sh" "$kernel" >&2; then
	tap not-ok "sparse: kernel $kernel builds"
	files=""
fi

# sparse_run SRC O FILE...: "file: warning" lines, normalised; one make
# for all files, as each make reads the whole build tree first.
sparse_run() {
	local src=$1 o=$2 f objs=""
	shift 2
	for f in "$@"; do objs="$objs ${f%.c}.o"; done
	# shellcheck disable=SC2086
	make -C "$src" O="$o" ARCH=x86_64 CC="ccache gcc" C=2 CHECK=sparse -k \
		$objs 2>&1 | grep -E ': (warning|error):' |
		sed -E -e 's#^.*/(series|linux-source-6.1)/##' -e 's/:[0-9]+:[0-9]+:/:/' \
			-e 's/_noprof//g' || true
}

built=""
for f in $files; do
	[ -f "$kout/$kernel/${f%.c}.o" ] && built="$built $f"
done
if [ -n "$built" ]; then
	# shellcheck disable=SC2086
	after=$(sparse_run "$series" "$kout/$kernel" $built | sort -u)
	new=$after
	if [ -n "$after" ]; then
		# The pristine source configured like the patched build, so that
		# what the series selects (PAGE_EXTENSION, ...) is built there too.
		base=$BUILD/sparse/pristine/$kernel
		mkdir -p "$base"
		cp "$kout/$kernel/.config" "$base/.config"
		make -s -C "$PRISTINE" O="$base" ARCH=x86_64 CC="ccache gcc" olddefconfig prepare >/dev/null 2>&1
		old=""
		for f in $(echo "$after" | cut -d: -f1 | sort -u); do
			[ -f "$PRISTINE/$f" ] && old="$old $f"
		done
		# shellcheck disable=SC2086
		before=$(sparse_run "$PRISTINE" "$base" $old | sort -u)
		new=$(comm -23 <(echo "$after") <(echo "$before"))
	fi
	count=$(echo $built | wc -w)
	if [ -z "$new" ]; then
		tap ok "sparse: no new warnings in the $count touched C files kernel $kernel builds"
	else
		tap not-ok "sparse: no new warnings in the $count touched C files kernel $kernel builds" "$(echo "$new" | head -1)"
		echo "$new" | sed 's/^/    /' >&2
	fi
fi
echo "1..$n"
[ "$failed" = 0 ]
