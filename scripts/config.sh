#!/bin/bash
# Make a full kernel .config for real machines: a distribution's config with
# the profiling options merged in, checked option by option.
#
# Usage: config.sh [--tap] [BASE]
#   BASE   a .config (or .config.xz); default Debian's own amd64 config from
#          the linux-config-6.1 package
#   --tap  print the checks as TAP (make test runs it this way)
# Environment: SRC (patched source tree, default build/series, else
# build/linux), COUT (output directory, default build/deb/linux),
# FRAGMENTS (scripts/configs/*.config names, default "prof-on").
#
# Fails, naming the option, when a profiling option did not land or an
# option BASE sets changed value (CONFIG_MEMCG=y and the rest must survive).
set -eu
. "$(dirname "$0")/lib.sh"

tap=0
[ "${1:-}" = --tap ] && { tap=1; shift; }
base=${1:-/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}
src=${SRC:-}
if [ -z "$src" ]; then
	src=$TREE
	[ -f "$BUILD/series/.allocprof-stamp" ] && src=$BUILD/series
fi
out=${COUT:-$BUILD/deb/linux}
[ -f "$base" ] || die "no base config $base (apt-get install linux-config-6.1, or pass one)"
[ -f "$src/Makefile" ] || die "no source tree at $src: run 'make tree'"

files=""
for f in ${FRAGMENTS:-prof-on}; do
	[ -f "$ROOT/scripts/configs/$f.config" ] || die "no fragment scripts/configs/$f.config"
	files="$files $ROOT/scripts/configs/$f.config"
done

mkdir -p "$out"
case "$base" in
*.xz) xzcat "$base" >"$out/base.config" ;;
*) cp "$base" "$out/base.config" ;;
esac
cp "$out/base.config" "$out/.config"
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $files >"$out/merge.log" 2>&1
make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >"$out/olddefconfig.log" 2>&1

n=0 bad=0
result() { # result ok|fail DESC [WHY]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		[ "$tap" = 0 ] || echo "ok $n - config: $2"
	else
		bad=$((bad + 1))
		if [ "$tap" = 1 ]; then echo "not ok $n - config: $2 # $3"; else echo "config: $2: $3" >&2; fi
	fi
}

# shellcheck disable=SC2086
if why=$(check_fragments "${base##*/}" "$out/.config" $files 2>&1); then
	result ok "profiling options landed in ${base##*/}"
else
	result fail "profiling options landed in ${base##*/}" "$(echo "$why" | tr '\n#' ' _')"
fi
# Profiling on, and what it must coexist with kept wherever the base has it.
for opt in CONFIG_MEM_ALLOC_PROFILING CONFIG_MEMCG CONFIG_MEMCG_KMEM CONFIG_SLUB; do
	[ "$opt" = CONFIG_MEM_ALLOC_PROFILING ] || grep -qx "$opt=y" "$out/base.config" || continue
	if grep -qx "$opt=y" "$out/.config"; then
		result ok "$opt=y"
	else
		result fail "$opt=y" "$(grep -E "^(# )?${opt}[= ]" "$out/.config" || echo "$opt absent")"
	fi
done

# Every option the base sets keeps its value, unless a fragment names it or
# it records the toolchain's version (the base was made with Debian's).
# shellcheck disable=SC2086
frag_opts=$(cat $files | sed -nE 's/^(# )?(CONFIG_[A-Za-z0-9_]+)[= ].*/\2/p' | sort -u)
changed=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$out/base.config" | sort >"$out/base.set"
	grep -E '^CONFIG_[A-Za-z0-9_]+=' "$out/.config" | sort | comm -23 "$out/base.set" - |
	sed 's/=.*//' | grep -vxF "$frag_opts" | grep -vE '_VERSION(_TEXT)?$' || true)
if [ -z "$changed" ]; then
	result ok "every option of ${base##*/} kept ($(wc -l <"$out/base.set") set)"
else
	# shellcheck disable=SC2086
	result fail "every option of ${base##*/} kept" "changed: $(echo $changed | cut -c1-200)"
fi

if [ "$tap" = 1 ]; then
	echo "1..$n"
else
	[ "$bad" != 0 ] || msg "config ready: $out/.config (${base##*/} + ${FRAGMENTS:-prof-on})"
fi
[ "$bad" = 0 ]
