#!/bin/bash
# The QEMU boot tests of scripts/boot-tests.  Without arguments (make
# boot-test): build the kernels they name from SRC (default build/linux)
# and run them all, as make test does (see test.sh --boots).
#
# Usage: boot-tests.sh                 run every boot test (ONLY=regex: those
#                                      whose name matches)
#        boot-tests.sh --one NAME      boot one, print its TAP (kernel built)
#        boot-tests.sh --names         the boot tests, one name a line
#        boot-tests.sh --kernels       the kernels they boot, in order
#        boot-tests.sh --kernel-of NAME
# Environment: SRC, KOUT (as for build-kernel.sh), ONLY.
set -eu
. "$(dirname "$0")/lib.sh"

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }
lines=$(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$ROOT/scripts/boot-tests")
[ -z "${ONLY:-}" ] || lines=$(echo "$lines" | grep -E "^[[:space:]]*(${ONLY})[[:space:]]*\|" || true)

field() { # field N LINE: the Nth '|' field, trimmed
	echo "$2" | cut -d'|' -f"$1" | trim
}

line_of() {
	echo "$lines" | awk -F'|' -v n="$1" '{ x = $1; gsub(/[ \t]/, "", x) } x == n' | head -n1
}

case "${1:-}" in
--names)
	echo "$lines" | while IFS= read -r l; do field 1 "$l"; done
	;;
--kernels)
	echo "$lines" | while IFS= read -r l; do field 2 "$l"; done | awk '!seen[$0]++'
	;;
--kernel-of)
	l=$(line_of "${2:?}")
	[ -n "$l" ] || die "no boot test '$2'"
	field 2 "$l"
	;;
--one)
	l=$(line_of "${2:?}")
	[ -n "$l" ] || die "no boot test '$2'"
	name=$(field 1 "$l") kernel=$(field 2 "$l") expect=$(field 3 "$l")
	kdir=${KOUT:-$BUILD/kernel}/$kernel
	# No kernel, no boot: its build reported why.
	[ -f "$kdir/.allocprof-built" ] || exit 0
	set -- --timeout "$(field 4 "$l")" --cmdline "$(field 5 "$l")" \
		--qemu "$(field 6 "$l")" --initrd "$kdir/initramfs.cpio.gz"
	[ "$expect" = fail ] && set -- "$@" --expect-fail
	allow=$(field 7 "$l")
	[ -z "$allow" ] || set -- "$@" --allow-warning "$allow"
	"$ROOT/scripts/boot-test.sh" "$@" "$name" "$kdir"
	;;
"")
	exec "$ROOT/scripts/test.sh" --boots
	;;
*)
	die "unknown option $1"
	;;
esac
