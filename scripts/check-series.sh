#!/bin/bash
# Apply patches/series with 'patch -p1' to a fresh copy of the pristine
# source (build/series, which make test then builds its kernels from), run
# scripts/checkpatch.pl --strict on every patch, and sparse (make C=2) on the
# C files the series touches, failing on warnings the pristine source does
# not already have.  Prints TAP.
set -eu
. "$(dirname "$0")/lib.sh"

series=$BUILD/series

n=0 failed=0
tap() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2${3:+ # $3}"; fi
}

# 1. Apply.
if "$ROOT/scripts/apply-series.sh" "$series" 2>"$BUILD/apply.log"; then
	tap ok "series: all $(series_patches | wc -l) patches apply with patch -p1"
else
	tap not-ok "series applies with patch -p1" "$(grep -m1 'does not apply' "$BUILD/apply.log")"
	cat "$BUILD/apply.log" >&2
	echo "1..$n"
	exit 1
fi

# 2. checkpatch --strict on every patch.
for p in $(series_patches); do
	if out=$(cd "$series" && ./scripts/checkpatch.pl --strict --quiet --no-summary "$ROOT/patches/$p" 2>&1); then
		tap ok "checkpatch --strict: $p"
	else
		tap not-ok "checkpatch --strict: $p" "$(echo "$out" | grep -E '^(ERROR|WARNING|CHECK)' | head -1)"
		echo "$out" | sed 's/^/    /' >&2
	fi
done

# 3. sparse on the C files the series touches, against the pristine source.
files=$(for p in $(series_patches); do sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$ROOT/patches/$p"; done | sort -u)
if [ -z "$files" ]; then
	echo "1..$n"
	[ "$failed" = 0 ]
	exit
fi
kernel=$(awk '!/^#/ && NF { k = $1 } END { print k }' "$ROOT/scripts/configs/kernels")
for k in debug prof; do
	grep -q "^$k[[:space:]]" "$ROOT/scripts/configs/kernels" && { kernel=$k; break; }
done

# sparse_run SRC OUT FILE...: "file: warning" lines, line numbers dropped.
sparse_run() {
	local src=$1 out=$2 f log
	shift 2
	SRC=$src KOUT=$out "$ROOT/scripts/build-kernel.sh" --config-only "$kernel" >/dev/null
	make -s -C "$src" O="$out/$kernel" ARCH=x86_64 CC="ccache gcc" prepare >/dev/null 2>&1
	for f in "$@"; do
		[ -f "$src/$f" ] || continue
		log=$(make -C "$src" O="$out/$kernel" ARCH=x86_64 CC="ccache gcc" C=2 CHECK=sparse \
			"${f%.c}.o" 2>&1) || true
		# Files this configuration does not build have no rule: skip them.
		case "$log" in *"No rule to make target"*) continue ;; esac
		echo "$log" | grep -E ': (warning|error):' | sed -E 's/:[0-9]+:[0-9]+:/:/' || true
	done
}

export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
# shellcheck disable=SC2086
after=$(sparse_run "$series" "$BUILD/sparse/series" $files | sort -u)
new=$after
if [ -n "$after" ]; then
	# shellcheck disable=SC2086
	before=$(sparse_run "$PRISTINE" "$BUILD/sparse/pristine" $files | sort -u)
	new=$(comm -23 <(echo "$after") <(echo "$before"))
fi
count=$(echo "$files" | wc -w)
if [ -z "$new" ]; then
	tap ok "sparse: no new warnings in the $count C files the series touches ($kernel config)"
else
	tap not-ok "sparse: no new warnings in the $count C files the series touches" "$(echo "$new" | head -1)"
	echo "$new" | sed 's/^/    /' >&2
fi
echo "1..$n"
[ "$failed" = 0 ]
