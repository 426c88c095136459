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
