#!/bin/bash
# Create build/linux: a git tree whose first commit is the pristine source
# (tagged 'base') and whose following commits are patches/series, one each.
#
# An existing tree is left alone (it may hold unexported work) unless
# FORCE=1 is given.
set -eu
. "$(dirname "$0")/lib.sh"

if [ -d "$TREE/.git" ]; then
	if [ "${FORCE:-0}" != 1 ]; then
		msg "$TREE exists; FORCE=1 recreates it (unexported commits are lost)"
		exit 0
	fi
	rm -rf "$TREE"
fi

"$ROOT/scripts/source.sh"
msg "copying pristine source to $TREE"
rm -rf "$TREE"
cp -a "$PRISTINE" "$TREE"
cd "$TREE"
git init -q -b master
git config core.abbrev 12
git config diff.renames false
git config diff.algorithm myers
git config am.threeWay false
git add -A -f
GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	git commit -q -m "linux-source-6.1 $(source_version)"
git tag base
# Debian's top-level .gitignore ignores every top-level entry, so new files
# (lib/codetag.c, ...) would be invisible to 'git status' and 'git add'.
# Drop that block from the working copy only; skip-worktree keeps the edit
# out of every commit.
git update-index --skip-worktree .gitignore
sed -i -e '/^# Debian packaging/,$d' .gitignore
for p in $(series_patches); do
	if ! git am -q --keep-cr "$ROOT/patches/$p"; then
		git am --abort || true
		die "patches/$p does not apply with git am"
	fi
done
msg "tree ready: $(git rev-list --count base..HEAD) patches on base ($(source_version))"
