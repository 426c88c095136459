#!/bin/bash
# Build an x86_64 kernel: tinyconfig plus the fragments listed for NAME in
# scripts/configs/kernels, out of tree, with ccache.  Fails, naming the
# option, when something a fragment asks for did not land in .config.
#
# Usage: build-kernel.sh [--config-only] NAME
# Environment: SRC (source tree, default build/linux), KOUT (output parent,
# default build/kernel), JOBS.
set -eu
. "$(dirname "$0")/lib.sh"

config_only=0
[ "${1:-}" = --config-only ] && { config_only=1; shift; }
name=${1:?usage: build-kernel.sh [--config-only] NAME}
src=${SRC:-$TREE}
out=${KOUT:-$BUILD/kernel}/$name
frags=$(awk -v n="$name" '$1 == n { $1 = ""; print }' "$ROOT/scripts/configs/kernels")
[ -n "$frags" ] || die "no kernel '$name' in scripts/configs/kernels"
[ -f "$src/Makefile" ] || die "no source tree at $src: run 'make tree'"

files=""
for f in $frags; do
	[ -f "$ROOT/scripts/configs/$f.config" ] || die "missing fragment scripts/configs/$f.config"
	files="$files $ROOT/scripts/configs/$f.config"
done

kmake() {
	make -s -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

mkdir -p "$out"
kmake tinyconfig >/dev/null
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $files >"$out/merge.log" 2>&1
kmake olddefconfig >/dev/null

# shellcheck disable=SC2086
check_fragments "build-kernel: $name" "$out/.config" $files || exit 1
[ "$config_only" = 0 ] || exit 0

msg "building kernel '$name' ($frags) from $src in $out"
kmake -j"$JOBS" >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	die "kernel '$name' failed to build (log: $out/build.log)"
}
grep -E '^(CONFIG_MEM_ALLOC_PROFILING|CONFIG_SLUB=|CONFIG_MEMCG|CONFIG_SMP=)' \
	"$out/.config" | sed 's/^/    /' >&2 || true
msg "kernel '$name': $out/arch/x86/boot/bzImage (config: $out/.config)"
