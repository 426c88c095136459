# shellcheck shell=bash
# Common settings for allocprof scripts.  Source it; do not run it.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
PRISTINE=$BUILD/src/linux-source-6.1
TREE=${TREE:-$BUILD/linux}
SOURCE_TARBALL=${SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${JOBS:-$(nproc)}

export GIT_AUTHOR_NAME="allocprof developers"
export GIT_AUTHOR_EMAIL="dev@allocprof.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME"
export GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"

die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

msg() {
	printf '==> %s\n' "$*" >&2
}

# The Debian version of the linux-source-6.1 package in use.
source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown
}

# arm64 guests run Debian's busybox-static:arm64, which deps.sh extracts here.
ARM64_ROOT=$BUILD/arm64-root
# Debian's arm64 kernel configuration (linux-config-6.1:arm64), which
# deps.sh extracts under build/arm64-config, for make bench ARCH=arm64 BASE=.
ARM64_BASE=$BUILD/arm64-config/usr/src/linux-config-6.1/config.arm64_none_arm64.xz

# kernel_word NAME KEY: the value of the KEY= word of kernel NAME's line
# in scripts/configs/kernels; empty without.
kernel_word() {
	awk -v n="$1" -v k="$2=" '$1 == n { for (i = 2; i <= NF; i++)
		if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$ROOT/scripts/configs/kernels"
}

# kernel_arch NAME|KDIR: x86_64 or arm64.  For a kernel's build directory
# (a path with a '/'), the architecture of its .config; for a NAME of
# scripts/configs/kernels, the arch= word of its line (x86_64 without).
kernel_arch() {
	case "$1" in
	*/*)
		if grep -qs '^CONFIG_ARM64=y' "$1/.config"; then echo arm64; else echo x86_64; fi ;;
	*)
		_a=$(kernel_word "$1" arch)
		echo "${_a:-x86_64}" ;;
	esac
}

# kernel_refs KDIR: where the kernel built in KDIR (named by its last
# component) must keep page references (address, index or page_ext).
kernel_refs() {
	kernel_word "${1##*/}" refs
}

# doc_splice DOC MARK REPORT: replace what DOC holds between its
# "<!-- MARK:begin -->" and "<!-- MARK:end -->" lines with REPORT; a
# missing or empty DOC, or one without the markers, is left alone.
doc_splice() {
	[ -n "$1" ] && [ -f "$1" ] && grep -q "^<!-- $2:begin -->" "$1" || return 0
	awk -v rep="$3" -v b="<!-- $2:begin -->" -v e="<!-- $2:end -->" '
		index($0, e) == 1 { while ((getline l < rep) > 0) print l; skip = 0 }
		!skip { print }
		index($0, b) == 1 { skip = 1 }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# use_arch ARCH: the tools and paths for a kernel of ARCH: KARCH (make's
# ARCH), CROSS (the compiler prefix, empty for the host's), KIMAGE (the
# image, relative to the kernel's build directory), QEMU and BUSYBOX (the
# static busybox of its initramfs).
# shellcheck disable=SC2034
use_arch() {
	case "$1" in
	x86_64)
		CROSS="" KIMAGE=arch/x86/boot/bzImage QEMU=qemu-system-x86_64
		BUSYBOX=/bin/busybox ;;
	arm64)
		CROSS=aarch64-linux-gnu- KIMAGE=arch/arm64/boot/Image QEMU=qemu-system-aarch64
		BUSYBOX=$ARM64_ROOT/bin/busybox ;;
	*) die "unknown architecture '$1' (x86_64 or arm64)" ;;
	esac
	KARCH=$1
}

# Patch file names listed in patches/series, in order, comments dropped.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT/patches/series"
}

# check_fragments LABEL CONFIG FRAGMENT...: every option a fragment sets or
# unsets has that value in CONFIG; names each one that does not.  With
# KNOWN_OPTIONS set to a file of option names, only those are checked.
check_fragments() {
	local label=$1 config=$2 f line opt want have bad=0
	shift 2
	for f in "$@"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) opt=${line%%=*} want=$line ;;
			"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} want="" ;;
			*) continue ;;
			esac
			if [ -n "${KNOWN_OPTIONS:-}" ] && ! grep -qx "$opt" "$KNOWN_OPTIONS"; then
				continue
			fi
			have=$(grep -E "^$opt=" "$config" || true)
			if [ "$have" != "$want" ]; then
				echo "$label: ${f##*/} asks for '${want:-$opt unset}'," \
					"but .config has '${have:-$opt unset}'" >&2
				bad=1
			fi
		done <"$f"
	done
	return "$bad"
}

# le32 N: N as four bytes, least significant first.
le32() {
	printf "$(printf '\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# append_bootconfig FILE KEY=VALUE: append a bootconfig holding that one
# key to initrd FILE, in the layout of tools/bootconfig: the text padded
# with NULs to a multiple of 4 bytes, its size, the sum of its bytes
# (both 32-bit little-endian) and "#BOOTCONFIG\n".
append_bootconfig() {
	local text size sum
	text="${2%%=*} = ${2#*=}"
	size=$(((${#text} + 1 + 3) / 4 * 4))
	sum=$(printf '%s\n' "$text" | od -An -tu1 -v |
		awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s }')
	{
		printf '%s\n' "$text"
		head -c $((size - ${#text} - 1)) /dev/zero
		le32 "$size"
		le32 "$sum"
		printf '#BOOTCONFIG\n'
	} >>"$1"
}
