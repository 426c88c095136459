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
