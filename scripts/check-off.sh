#!/bin/bash
# The series with CONFIG_MEM_ALLOC_PROFILING unset: every C file it touches
# that kernel NAME's configuration builds, and every test module, compile
# without error or warning.  A compile, not a kernel: the hooks must
# compile away, and that is what a build of the files shows.  Prints TAP.
#
# Usage: check-off.sh NAME   (a kernel of scripts/configs/kernels whose
#                            fragments unset CONFIG_MEM_ALLOC_PROFILING)
# Environment: SRC (patched source, default build/series), KOUT.
set -eu
. "$(dirname "$0")/lib.sh"

name=${1:?usage: check-off.sh NAME}
src=${SRC:-$BUILD/series}
out=$(realpath -m "${KOUT:-$BUILD/test/kernel}/$name")
n=0 failed=0
tap() { # tap ok|not-ok DESC [WHY]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - off: $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - off: $2${3:+ # $3}"
	fi
}
kmake() {
	make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

if ! SRC=$src KOUT=${out%/*} "$ROOT/scripts/build-kernel.sh" --config-only "$name" >&2; then
	tap not-ok "kernel $name configured"
	echo "1..$n"
	exit 1
fi
if grep -q '^CONFIG_MEM_ALLOC_PROFILING=y' "$out/.config"; then
	tap not-ok "kernel $name has CONFIG_MEM_ALLOC_PROFILING unset" "it is set"
else
	tap ok "kernel $name has CONFIG_MEM_ALLOC_PROFILING unset"
fi
kmake -s modules_prepare >"$out/prepare.log" 2>&1 || {
	tail -n 20 "$out/prepare.log" >&2
	tap not-ok "kernel $name prepared for compiling" "see $out/prepare.log"
	echo "1..$n"
	exit 1
}

# The touched files that exist without the series and that this
# configuration builds: what a dry run of their folders would compile.
touched=$(for p in $(series_patches); do
	sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$ROOT/patches/$p"
done | sort -u)
dirs=$(for f in $touched; do
	[ -f "$PRISTINE/$f" ] && echo "${f%/*}/"
done | sort -u)
# shellcheck disable=SC2086
enabled=$(kmake -n $dirs 2>/dev/null | grep -oE ' -o [^ ]+\.o( |$)' | awk '{ print $2 }' | sort -u)
objs=""
for f in $touched; do
	[ -f "$PRISTINE/$f" ] && echo "$enabled" | grep -qxF "${f%.c}.o" && objs="$objs ${f%.c}.o"
done
[ -n "$objs" ] || tap not-ok "touched files built by kernel $name" "none"

rm -f $(for o in $objs; do echo "$out/$o"; done)
# shellcheck disable=SC2086
kmake -k $objs >"$out/compile.log" 2>&1 || true
for o in $objs; do
	f=${o%.o}.c
	if [ ! -f "$out/$o" ]; then
		tap not-ok "$f compiles" "$(grep -m1 -E "(^|/)$f:[0-9]+:[0-9]+: error" "$out/compile.log" || echo "see $out/compile.log")"
	elif grep -qE "(^|/)$f:[0-9]+:[0-9]+: warning" "$out/compile.log"; then
		tap not-ok "$f compiles without warnings" "$(grep -m1 -E "(^|/)$f:[0-9]+:[0-9]+: warning" "$out/compile.log")"
	else
		tap ok "$f compiles"
	fi
done

# The test modules, as a user's module would build against this kernel
# (no vmlinux to link against: undefined symbols are expected): those
# that need profiling to run must still compile without it; one that
# needs another option this configuration lacks is reported skipped.
for m in "$ROOT"/scripts/guest/modules/*/; do
	[ -f "$m/Kbuild" ] || continue
	mod=$(basename "$m")
	if [ -f "$m/requires" ]; then
		lack=$(awk '/^CONFIG_/ && !/^CONFIG_MEM_ALLOC_PROFILING/ { print $1 "=y" }' "$m/requires" |
			grep -vxFf "$out/.config" || true)
		if [ -n "$lack" ]; then
			n=$((n + 1))
			echo "ok $n - off: test module $mod # SKIP needs $(echo $lack)"
			continue
		fi
	fi
	mb=$BUILD/modules/$name/$mod
	rm -rf "$mb"
	mkdir -p "$mb"
	cp "$m"/* "$ROOT"/scripts/guest/modules/include/*.h "$mb/"
	if ! make -C "$out" ARCH=x86_64 CC="ccache gcc" M="$mb" KBUILD_MODPOST_WARN=1 \
		modules >"$mb/build.log" 2>&1 || ! ls "$mb"/*.ko >/dev/null 2>&1; then
		tap not-ok "test module $mod compiles" "$(grep -m1 ': error' "$mb/build.log" || echo "see $mb/build.log")"
	elif grep -q ': warning:' "$mb/build.log"; then
		tap not-ok "test module $mod compiles without warnings" "$(grep -m1 ': warning:' "$mb/build.log")"
	else
		tap ok "test module $mod compiles"
	fi
done
echo "1..$n"
[ "$failed" = 0 ]
