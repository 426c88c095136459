#!/bin/bash
# Build the kernels scripts/boot-tests names and boot each line in QEMU.
# Prints TAP.  Environment: SRC, KOUT (as for build-kernel.sh), ONLY (a
# regular expression: run only the boot tests whose name matches).
set -eu
. "$(dirname "$0")/lib.sh"

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }
lines=$(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$ROOT/scripts/boot-tests")
[ -z "${ONLY:-}" ] || lines=$(echo "$lines" | grep -E "^[[:space:]]*(${ONLY})[[:space:]]*\|" || true)

n=0 failed=0
emit() { # renumber a sub-run's TAP into this stream
	while IFS= read -r l; do
		case "$l" in
		"ok "*) n=$((n + 1)); echo "ok $n ${l#ok [0-9]* }" ;;
		"not ok "*) n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n ${l#not ok [0-9]* }" ;;
		esac
	done
}

built=" "
while IFS='|' read -r name kernel expect tmo cmdline qemu allow; do
	name=$(echo "$name" | trim) kernel=$(echo "$kernel" | trim)
	expect=$(echo "$expect" | trim) tmo=$(echo "$tmo" | trim)
	cmdline=$(echo "$cmdline" | trim) qemu=$(echo "$qemu" | trim)
	allow=$(echo "$allow" | trim)
	kdir=${KOUT:-$BUILD/kernel}/$kernel
	case "$built" in
	*" $kernel:failed "*) continue ;;
	*" $kernel "*) ;;
	*)
		n=$((n + 1))
		if "$ROOT/scripts/build-kernel.sh" "$kernel" >&2; then
			echo "ok $n - kernel $kernel builds"
			built="$built$kernel "
		else
			failed=$((failed + 1))
			echo "not ok $n - kernel $kernel builds"
			built="$built$kernel:failed "
			continue
		fi
		;;
	esac
	set -- --timeout "$tmo" --cmdline "$cmdline" --qemu "$qemu"
	[ "$expect" = fail ] && set -- "$@" --expect-fail
	[ -z "$allow" ] || set -- "$@" --allow-warning "$allow"
	emit < <("$ROOT/scripts/boot-test.sh" "$@" "$name" "$kdir" || true)
done <<<"$lines"
echo "1..$n"
[ "$failed" = 0 ]
