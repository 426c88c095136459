#!/bin/bash
# Fail when patches/ does not match what 'make export' would write from
# build/linux.
set -eu
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ROOT/scripts/export.sh" "$tmp" 2>/dev/null
if ! diff -r -x BASE -x '*~' "$ROOT/patches" "$tmp" >"$tmp.diff" 2>&1; then
	head -n 40 "$tmp.diff" >&2
	rm -f "$tmp.diff"
	die "patches/ differs from the commits in $TREE: run 'make export'"
fi
rm -f "$tmp.diff"
msg "patches/ matches $TREE"
