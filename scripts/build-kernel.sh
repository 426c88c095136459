#!/bin/bash
# Build a kernel: tinyconfig plus the fragments listed for NAME in
# scripts/configs/kernels, for its architecture (x86_64, or arm64 with the
# cross compiler), out of tree, with ccache.  Fails, naming the option,
# when something a fragment asks for did not land in .config.  A kernel
# whose list starts with 'base' starts from the .config in BASE instead
# (a distribution's, .xz too), with the options it builds as modules left
# out: a test guest loads none of them, and they are most of its build.
#
# Usage: build-kernel.sh [--config-only] [--tap] [--initramfs] NAME
#   --config-only  make the .config and stop
#   --tap          say on stdout, as one TAP line, whether the kernel built
#   --initramfs    then make its test initramfs (mkinitramfs.sh), in
#                  KOUT/NAME/initramfs.cpio.gz
# Environment: SRC (source tree, default build/linux), KOUT (output parent,
# default build/kernel), BASE (for 'base' kernels), JOBS.  Under a make
# jobserver (make test) the build takes its share of make's job slots
# instead of JOBS.
set -eu
. "$(dirname "$0")/lib.sh"

config_only=0 tap=0 initramfs=0
while :; do
	case "${1:-}" in
	--config-only) config_only=1; shift ;;
	--tap) tap=1; shift ;;
	--initramfs) initramfs=1; shift ;;
	*) break ;;
	esac
done
name=${1:?usage: build-kernel.sh [--config-only] [--tap] [--initramfs] NAME}
if [ "$tap" = 1 ]; then
	# The verdict as TAP; what went wrong is on stderr.
	if "$0" $([ "$initramfs" = 1 ] && echo --initramfs) "$name"; then
		echo "ok 1 - kernel $name builds"
	else
		echo "not ok 1 - kernel $name builds"
	fi
	exit 0
fi
src=${SRC:-$TREE}
out=${KOUT:-$BUILD/kernel}/$name
frags=$(awk -v n="$name" '$1 == n { for (i = 2; i <= NF; i++) if ($i !~ /^(arch|refs)=/) printf " %s", $i }' \
	"$ROOT/scripts/configs/kernels")
[ -n "$frags" ] || die "no kernel '$name' in scripts/configs/kernels"
base=""
case "$frags" in
" base "*)
	frags=${frags#" base"}
	base=${BASE:-}
	[ -f "$base" ] || die "kernel '$name' starts from a distribution's .config: set BASE to one"
	;;
esac
use_arch "$(kernel_arch "$name")"
[ -f "$src/Makefile" ] || die "no source tree at $src: run 'make tree'"

files=""
for f in $frags; do
	[ -f "$ROOT/scripts/configs/$f.config" ] || die "missing fragment scripts/configs/$f.config"
	files="$files $ROOT/scripts/configs/$f.config"
done

kmake() {
	make -s -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
		CC="ccache ${CROSS}gcc" HOSTCC="ccache gcc" "$@"
}

jobs=-j$JOBS
case " ${MAKEFLAGS:-} " in *" --jobserver-auth="* | *" -j"*) jobs="" ;; esac

mkdir -p "$out"
rm -f "$out/.allocprof-built"
if [ -n "$base" ]; then
	case "$base" in
	*.xz) xzcat "$base" ;;
	*) cat "$base" ;;
	esac | sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' >"$out/.config"
else
	kmake tinyconfig >/dev/null
fi
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $files >"$out/merge.log" 2>&1
kmake olddefconfig >/dev/null

# shellcheck disable=SC2086
check_fragments "build-kernel: $name" "$out/.config" $files || exit 1
[ "$config_only" = 0 ] || exit 0

msg "building kernel '$name' ($frags) from $src in $out"
kmake $jobs >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	die "kernel '$name' failed to build (log: $out/build.log)"
}
grep -E '^(CONFIG_MEM_ALLOC_PROFILING|CONFIG_SLUB=|CONFIG_MEMCG|CONFIG_SMP=)' \
	"$out/.config" | sed 's/^/    /' >&2 || true
msg "kernel '$name': $out/$KIMAGE (config: $out/.config)"
if [ "$initramfs" = 1 ]; then
	"$ROOT/scripts/mkinitramfs.sh" "$out" "$out/initramfs.cpio.gz"
fi
touch "$out/.allocprof-built"
