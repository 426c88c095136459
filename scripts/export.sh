#!/bin/bash
# Regenerate patches/*.patch and patches/series from base..HEAD of build/linux.
#
# Output is deterministic: every git option that changes a byte is pinned,
# so re-exporting an unchanged tree changes nothing.  A commit keeps the file
# name its slug already has in patches/series (so numbers chosen by hand
# stick); a new commit is numbered after its predecessor.  Comment lines of
# patches/series stay where they were.
#
# Usage: export.sh [OUTDIR]   (default: patches/; check-export uses a temp dir)
set -eu
. "$(dirname "$0")/lib.sh"

out=${1:-$ROOT/patches}
[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree'"
mkdir -p "$out"

git_tree() {
	git -C "$TREE" -c core.abbrev=12 -c diff.algorithm=myers \
		-c diff.renames=false -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c diff.relative=false \
		-c diff.suppressBlankEmpty=false -c core.quotePath=true \
		-c format.signature= -c format.headers= -c format.coverLetter=false \
		-c format.numbered=false -c format.useAutoBase=false \
		-c i18n.logOutputEncoding=UTF-8 "$@"
}

slug() {
	printf '%s' "$1" | tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9]\{1,\}/-/g' \
		-e 's/^-//' -e 's/-$//' | cut -c1-52 | sed -e 's/-$//'
}

# name_for SLUG: the series name with that slug, if any.
name_for() {
	series_patches 2>/dev/null | grep -xE "[0-9]{3,}-$1\.patch" | head -n1
}

commits=$(git_tree rev-list --reverse base..HEAD)
names=""
prev=0
for c in $commits; do
	subject=$(git_tree log -1 --format=%s "$c")
	s=$(slug "$subject")
	name=$(name_for "$s")
	if [ -z "$name" ]; then
		num=$((prev / 10 * 10 + 10))
		name=$(printf '%03d-%s.patch' "$num" "$s")
		msg "new patch $name (rename it in patches/series to place it in its layer)"
	fi
	prev=$((10#${name%%-*}))
	git_tree format-patch -1 --stdout --zero-commit --no-signature -N \
		--no-renames --abbrev=12 --diff-algorithm=myers --stat=72 \
		--no-thread --subject-prefix=PATCH "$c" >"$out/$name"
	names="$names $name"
done

# Rewrite series: the header and every banner stay in front of the patch
# they preceded; trailing comments stay last.
old=$ROOT/patches/series
[ -f "$old" ] || : >"$old"
awk -v names="$names" '
	/^#/ || /^[ \t]*$/ { buf = buf $0 "\n"; next }
	{ if (!nentries++) header = buf; else pre[$1] = buf; buf = "" }
	END {
		if (!nentries) header = buf
		printf "%s", header
		n = split(names, a, " ")
		for (i = 1; i <= n; i++) {
			if (a[i] in pre) printf "%s", pre[a[i]]
			print a[i]
		}
		if (nentries) printf "%s", buf
	}' "$old" >"$out/series.new"
mv "$out/series.new" "$out/series"
# Drop patch files no longer in the series.
for f in "$out"/[0-9][0-9][0-9]*-*.patch; do
	[ -e "$f" ] || continue
	case " $names " in *" ${f##*/} "*) ;; *) rm -f "$f" ;; esac
done
msg "exported $(echo $names | wc -w) patches to $out"
