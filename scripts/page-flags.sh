#!/bin/bash
# What a kernel configuration leaves free in page->flags for a packed page
# reference: the widths of the fields 6.1 keeps at the top of the word,
# the page flags at the bottom and the spare bits between, as the patched
# headers compute them (with the profiling options merged in).  Nothing
# is built but the headers and one probe file.
#
# Usage: page-flags.sh [--arch x86_64|arm64] BASE
#   BASE   a .config or .config.xz, for example Debian's
#          /usr/src/linux-config-6.1/config.amd64_none_amd64.xz; for
#          arm64, from 'apt-get download linux-config-6.1:arm64'
# Environment: SRC (patched tree, default build/series, else build/linux),
# POUT (output directory, default build/page-flags/<arch>-<base name>).
set -eu
. "$(dirname "$0")/lib.sh"

arch=x86_64
[ "${1:-}" = --arch ] && { arch=${2:?--arch needs a value}; shift 2; }
base=${1:?usage: page-flags.sh [--arch x86_64|arm64] BASE}
[ -f "$base" ] || die "no base config $base"
case "$arch" in
x86_64) cross="" ;;
arm64) cross=aarch64-linux-gnu- ;;
*) die "unknown architecture $arch (x86_64 or arm64)" ;;
esac
command -v "${cross}gcc" >/dev/null ||
	die "no ${cross}gcc (apt-get install gcc-aarch64-linux-gnu)"
src=${SRC:-}
if [ -z "$src" ]; then
	src=$TREE
	[ -f "$BUILD/series/.allocprof-stamp" ] && src=$BUILD/series
fi
[ -f "$src/Makefile" ] || die "no source tree at $src: run 'make tree'"
name=$(basename "$base" .xz)
out=${POUT:-$BUILD/page-flags/$arch-${name#config.}}
probe=$out/probe

kmake() {
	make -s -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" "$@"
}

mkdir -p "$probe"
case "$base" in
*.xz) xzcat "$base" >"$out/.config" ;;
*) cp "$base" "$out/.config" ;;
esac
cat "$ROOT/scripts/configs/prof-on.config" >>"$out/.config"
kmake olddefconfig >/dev/null
grep -q '^CONFIG_MEM_ALLOC_PROFILING=y' "$out/.config" ||
	die "CONFIG_MEM_ALLOC_PROFILING did not land in $out/.config"
kmake -j"$JOBS" modules_prepare >"$out/prepare.log" 2>&1 ||
	die "modules_prepare failed, see $out/prepare.log"

# Each value as an assembler string, so that expressions the headers only
# allow inside functions work too.
fields="NR_PAGEFLAGS SECTIONS_WIDTH NODES_WIDTH ZONES_WIDTH LAST_CPUPID_WIDTH
KASAN_TAG_WIDTH LRU_GEN_WIDTH LRU_REFS_WIDTH PGTAG_SPARE PGTAG_BITS"
{
	printf '// SPDX-License-Identifier: GPL-2.0\n'
	printf '#include <linux/module.h>\n#include <linux/mm.h>\n'
	printf '#include <linux/pgalloc_tag.h>\n\nvoid probe(void);\n'
	printf 'void probe(void)\n{\n'
	for f in $fields; do
		printf '\tasm volatile(".ascii \\"@@%s %%c0@@\\"" :: "i" ((long)(%s)));\n' "$f" "$f"
	done
	printf '}\nMODULE_LICENSE("GPL");\n'
} >"$probe/probe.c"
echo 'obj-m += probe.o' >"$probe/Kbuild"
kmake M="$probe" probe.s >"$probe/build.log" 2>&1 ||
	die "probe did not compile, see $probe/build.log"

echo "$arch $name (+ prof-on): $(grep -E '^CONFIG_(NR_CPUS|NODES_SHIFT)=' "$out/.config" | tr '\n' ' ')"
grep -o '@@[A-Z_]* -*[0-9]*@@' "$probe/probe.s" | tr -d @
