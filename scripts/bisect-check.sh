#!/bin/bash
# Check that every patch of the series builds: apply patches/series one
# patch at a time to a copy of the pristine source and, after each, build
# the prof kernel, and the off kernel as well when the patch changes a
# header.  Builds are incremental, out of tree, with ccache.  Stops at the
# first patch after which a kernel does not build, and names it.
#
# Usage: bisect-check.sh
# Environment: PATCHES (directory holding series and the patches, default
# patches/), JOBS.  Work files in build/bisect; not part of make test.
set -eu
. "$(dirname "$0")/lib.sh"

patches=${PATCHES:-$ROOT/patches}
work=$BUILD/bisect
src=$work/src

"$ROOT/scripts/source.sh"
# Objects of an earlier run are newer than the pristine files they came
# from, so make would keep them: every run builds from scratch (ccache).
rm -rf "$src" "$work/kernel"
mkdir -p "$work"
# Hard links: patch replaces the files it changes, the pristine copy stays.
cp -al "$PRISTINE" "$src"

# Options of the fragments that the tree does not define yet are not
# checked: profiling's own appear only with the patches that add them.
known_options() {
	find "$src" -name 'Kconfig*' -print0 |
		xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' |
		sort -u >"$work/known-options"
}

build() { # build KERNEL PATCH
	local start=$SECONDS
	if ! KNOWN_OPTIONS=$work/known-options SRC=$src KOUT=$work/kernel \
		"$ROOT/scripts/build-kernel.sh" "$1" >/dev/null 2>"$work/$1.err"; then
		tail -n 25 "$work/$1.err" >&2
		die "first patch that does not build: $2 (kernel $1; log in $work/kernel/$1/build.log)"
	fi
	printf '    %-4s %4d s\n' "$1" $((SECONDS - start)) >&2
}

list=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$patches/series")
total=$(echo "$list" | wc -l)
i=0
for p in $list; do
	i=$((i + 1))
	(cd "$src" && patch -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
		--quiet <"$patches/$p") || die "$p does not apply"
	msg "[$i/$total] $p"
	known_options
	build prof "$p"
	if grep -qE '^\+\+\+ b/.*\.h$' "$patches/$p"; then
		build off "$p"
	fi
done
msg "all $total patches build ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
