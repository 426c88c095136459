#!/bin/bash
# Boot one kernel in QEMU with the test initramfs and print TAP on stdout:
# x86_64 kernels on qemu-system-x86_64, arm64 ones on qemu-system-aarch64
# -M virt -cpu cortex-a57 (kernel_arch).
#
# Usage: boot-test.sh [options] NAME KDIR
#   --cmdline "ARGS"   extra kernel command line
#   --qemu "ARGS"      extra or overriding QEMU options (e.g. "-smp 1 -icount shift=0,sleep=off")
#   --timeout S        seconds before the guest counts as hung (default 180)
#   --expect-fail      a self-test: pass only if the run fails
#   --allow-warning RE an expected kernel report: a WARNING (cut here ..
#                      end trace) that contains a match of the extended
#                      regular expression RE, or a stack dump (.. </TASK>)
#                      that starts with one
#   --initrd FILE      the test initramfs, made by mkinitramfs.sh for KDIR
#                      (default: made here)
#
# KUnit suites built into the kernel run at boot only where the command
# line names them with kunit.filter_glob=; their results (from the KTAP
# on the console) are part of this run's TAP, one line per case or
# parameter.
# Besides the guest's own checks, a run fails when the guest does not boot,
# hangs, stops before its last test, or the kernel prints a WARNING, BUG,
# Oops or panic.  Logs stay in build/boot/NAME/.
set -eu
. "$(dirname "$0")/lib.sh"

cmdline="" qemu_extra="" tmo=180 expect=pass allow="" initrd=""
while [ $# -gt 2 ]; do
	case "$1" in
	--cmdline) cmdline=$2; shift 2 ;;
	--qemu) qemu_extra=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--expect-fail) expect=fail; shift ;;
	--allow-warning) allow=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done
name=${1:?usage: boot-test.sh [options] NAME KDIR}
kdir=${2:?usage: boot-test.sh [options] NAME KDIR}
logdir=$BUILD/boot/$name
console=$logdir/console.log results=$logdir/results.log
mkdir -p "$logdir"
rm -f "$console" "$results"

use_arch "$(kernel_arch "$kdir")"
image=$kdir/$KIMAGE
[ -f "$image" ] || die "no kernel at $image"
if [ -z "$initrd" ]; then
	"$ROOT/scripts/mkinitramfs.sh" "$kdir" "$logdir/initramfs.cpio.gz"
	initrd=$logdir/initramfs.cpio.gz
fi
base_initrd=$initrd
# allocprof.tools=1 on the command line: the host's perf and bpftrace go
# in too, as an uncompressed archive before the initramfs (the kernel
# unpacks one after the other), for the one-liner tests.
case " $cmdline " in
*" allocprof.tools=1 "*)
	# Without them the guest reports them missing.
	if "$ROOT/scripts/mktools.sh" "$kdir" "$logdir/initrd"; then
		initrd=$logdir/initrd
		cat "$base_initrd" >>"$initrd"
	fi
	;;
esac

# allocprof.bootconfig=KEY=VALUE on the command line: that key goes in a
# bootconfig at the end of the initrd, which 'bootconfig' has the kernel
# read (CONFIG_BOOT_CONFIG).
for w in $cmdline; do
	case "$w" in
	allocprof.bootconfig=*)
		[ "$initrd" != "$base_initrd" ] || cp "$base_initrd" "$logdir/initrd"
		initrd=$logdir/initrd
		append_bootconfig "$initrd" "${w#*=}"
		cmdline="$cmdline bootconfig"
		;;
	esac
done

# The page reference form pinned for this kernel, for the guest to check.
refs=$(kernel_refs "$kdir")
[ -z "$refs" ] || cmdline="$cmdline allocprof.refs=$refs"
# Kernels whose profiling cannot be switched at run time.
! grep -q '^CONFIG_MEM_ALLOC_PROFILING_DEBUG=y' "$kdir/.config" ||
	cmdline="$cmdline allocprof.debugbuild=1"

# KUnit suites run only where asked for.
kunit=0
case " $cmdline " in
*" kunit.filter_glob="*) kunit=1 ;;
*) cmdline="$cmdline kunit.filter_glob=none" ;;
esac

# The console on the first serial port, the guest's results on a second
# one, or on arm64's virt machine, which has one UART, on a virtio
# console (/dev/hvc0 in the guest).
case "$KARCH" in
x86_64)
	set -- -smp 2,sockets=2,cores=1,threads=1 -serial stdio -serial "file:$results"
	append="console=ttyS0 panic=-1 tsc=reliable"
	;;
arm64)
	set -- -M virt -cpu cortex-a57 -smp 2 -serial stdio \
		-device virtio-serial-device -chardev "file,id=results,path=$results" \
		-device virtconsole,chardev=results
	append="console=ttyAMA0 panic=-1"
	;;
esac
# shellcheck disable=SC2086
# One TCG thread for all vCPUs: the kernels patch static key jumps while
# other CPUs run them, which multi-threaded TCG mishandles (see
# configs/jump-label.config).
set -- "$QEMU" -nodefaults -display none -no-reboot \
	-accel tcg,thread=single -m 512 "$@" \
	-kernel "$image" -initrd "$initrd" \
	-append "$append allocprof.mode=test $cmdline" \
	$qemu_extra
echo "$*" >"$logdir/qemu.cmd"
status=0
timeout "$tmo" "$@" </dev/null >"$console" 2>&1 || status=$?
[ "$initrd" = "$base_initrd" ] || rm "$initrd"	# a big one
touch "$results"

n=0 failed=0
tap() { # tap ok|not-ok DESC [WHY]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $name: $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name: $2${3:+ # $3}"
	fi
}

# The console without the reports that --allow-warning expects.
allowed_out() {
	[ -n "$allow" ] || { cat; return; }
	awk -v re="$allow" '
		!inblk && (/cut here/ || $0 ~ re) { blk = ""; inblk = 1; ok = 0 }
		inblk { blk = blk $0 "\n"; if ($0 ~ re) ok = 1
			if (/end trace|<\/TASK>/) { if (!ok) printf "%s", blk; inblk = 0 }
			next }
		{ print }
		END { if (inblk) printf "%s", blk }'
}

# KTAP of the KUnit suites on the console, as "ok|not ok|skip NAME # WHY"
# lines: a case without parameters, or each parameter of one.
kunit_results() {
	tr -d '\r' <"$console" | sed -E 's/^\[ *[0-9.]+\] //' | awk '
		/^    # Subtest: / { suite = $3; next }
		/^        # Subtest: / { kcase = $3; params = 0; next }
		/^    (    )?(not )?ok [0-9]+ / {
			param = /^        /
			line = $0
			sub(/^ +/, "", line)
			bad = line ~ /^not /
			sub(/^(not )?ok [0-9]+ (- )?/, "", line)
			why = ""
			if (match(line, / # .*/)) {
				why = substr(line, RSTART + 3)
				line = substr(line, 1, RSTART - 1)
			}
			if (param)
				params = 1
			else if (params) {	# the parent of the parameters
				params = 0
				next
			}
			name = "kunit " suite ": " (param ? kcase ": " : "") line
			if (bad)
				print "not-ok", name " # " (why == "" ? "failed" : why)
			else if (why ~ /^SKIP/)
				print "skip", name " # " why
			else
				print "ok", name
		}'
}

report() {
	grep -q '^@@BOOTED' "$results" && tap ok "booted" || tap not-ok "booted" "no sign of life from /init"
	if [ "$kunit" = 1 ]; then
		kunit_results >"$logdir/kunit.txt"
		[ -s "$logdir/kunit.txt" ] || echo "not-ok kunit: suites ran # no KTAP results on the console" >"$logdir/kunit.txt"
		while read -r verdict r; do
			case "$verdict" in
			ok) tap ok "$r" ;;
			not-ok) tap not-ok "${r%% # *}" "${r#* # }" ;;
			skip) n=$((n + 1)); echo "ok $n - $name: ${r%% # *} # ${r#* # }" ;;
			esac
		done <"$logdir/kunit.txt"
	fi
	while IFS= read -r line; do
		line=${line%$'\r'}
		case "$line" in
		"@@T ok "*) tap ok "${line#@@T ok }" ;;
		"@@T not ok "*) r=${line#@@T not ok }; tap not-ok "${r%% # *}" "${r#* # }" ;;
		"@@T skip "*) n=$((n + 1)); r=${line#@@T skip }; echo "ok $n - $name: ${r%% # *} # SKIP ${r#* # }" ;;
		esac
	done <"$results"
	if [ "$status" = 124 ]; then
		tap not-ok "guest finished within ${tmo}s" "hung; killed by timeout"
	elif grep -q '^@@DONE' "$results"; then
		tap ok "guest ran every test"
	else
		tap not-ok "guest ran every test" "stopped early (qemu status $status)"
	fi
	faults=$(allowed_out <"$console" | grep -nE 'WARNING:|BUG:|Oops|Kernel panic|kernel BUG at|general protection fault|UBSAN:|KASAN:|cut here|Call Trace:' | head -5 || true)
	if [ -z "$faults" ]; then
		tap ok "kernel log free of WARNING/BUG/Oops/panic"
	else
		tap not-ok "kernel log free of WARNING/BUG/Oops/panic" "$(echo "$faults" | head -1 | tr -d '\r')"
	fi
}

if [ "$expect" = pass ]; then
	report
	echo "1..$n"
	if [ "$failed" != 0 ]; then
		echo "--- $name: last lines of $console" >&2
		tail -n 25 "$console" >&2
	fi
else
	# A self-test breaks the run one way (allocprof.fault=, see
	# guest/init): the guest must have reached /init and the harness
	# must report exactly the check that way breaks.
	case " $cmdline " in
	*" allocprof.fault=warn "* | *" allocprof.fault=oops "*)
		want="kernel log free of WARNING/BUG/Oops/panic" ;;
	*" allocprof.fault=fail "*) want="harness self-test" ;;
	*" allocprof.fault=hang "*) want="guest finished within" ;;
	*) die "--expect-fail needs allocprof.fault=warn, oops, fail or hang" ;;
	esac
	inner=$(report)
	if ! echo "$inner" | grep -q "^ok [0-9]* - $name: booted\$"; then
		failed=1
		echo "not ok 1 - $name: harness self-test never reached /init"
	elif echo "$inner" | grep -q "^not ok [0-9]* - $name: $want"; then
		echo "ok 1 - $name: harness reports the broken run ($want)"
	else
		failed=1
		echo "not ok 1 - $name: harness missed the broken run (no failed '$want')"
	fi
	echo "1..1"
fi
[ "$failed" = 0 ]
