# vm.mem_profiling: read values, permissions, accepted and rejected
# writes, read-only modes, and boot parameter handling.

mp=/proc/sys/vm/mem_profiling

# The generic sysctl.* boot handling must never complain about ours.
t_eq "no sysctl boot error for mem_profiling" "" \
	"$(dmesg | grep "Failed to set sysctl parameter 'vm.mem_profiling" | head -1)"

# allocprof.bootconfig=kernel.KEY=VALUE: the host appended a bootconfig
# with that key; the kernel lists it as KEY=VALUE on its command line.
mp_bc=$(cmdline_value allocprof.bootconfig "")
if [ -n "$mp_bc" ]; then
	t_check "bootconfig read: ${mp_bc#kernel.} on the command line" \
		cmdline_has "${mp_bc#kernel.}"
fi

mp_boot=
for w in $(cat /proc/cmdline); do
	case "$w" in sysctl.vm.mem_profiling=*) mp_boot=${w#*=} ;; esac
done

if [ ! -e $mp ]; then
	if [ -e /proc/allocinfo ]; then
		t_fail "vm.mem_profiling exists" "allocinfo without sysctl"
	else
		t_skip "vm.mem_profiling tests" "profiling not built in"
	fi
	return 0
fi

mp_said=$(mem_profiling_value "$mp_boot")
if [ -z "$mp_boot" ] || [ -n "$mp_said" ]; then
	t_eq "no warning for valid boot value '$mp_boot'" "" \
		"$(dmesg | grep 'sysctl.vm.mem_profiling=.*invalid value' | head -1)"
else
	t_eq "exactly one warning for bad boot value '$mp_boot'" 1 \
		"$(dmesg | grep -c "sysctl.vm.mem_profiling=$mp_boot: invalid value")"
	t_eq "no second warning from sysctl.* handling" 0 \
		"$(dmesg | grep -c "invalid for parameter .sysctl.vm.mem_profiling")"
fi
# Upstream's ",compressed" is taken, and the log says what it did.
case "$mp_said:$mp_boot" in
[01]:*,compressed)
	[ "$mp_said" = 1 ] && mp_onoff=on || mp_onoff=off
	t_eq "'$mp_boot' taken as $mp_onoff, logged once" 1 \
		"$(dmesg | grep -c "sysctl.vm.mem_profiling=$mp_boot: profiling $mp_onoff; references are packed where they fit")"
	;;
*)
	t_eq "no compressed line without ,compressed" 0 \
		"$(dmesg | grep -c 'sysctl.vm.mem_profiling=.*references are packed')"
	;;
esac

# From here on, the state the boot should have: the command line's valid
# value, else the kernel's default.
mp_boot=$(mem_profiling_boot)
mp_val=$(cat $mp)
case "$mp_boot" in
never | 0) t_eq "mem_profiling reads 0 after boot as $mp_boot" 0 "$mp_val" ;;
1) t_eq "mem_profiling reads 1 after boot as 1" 1 "$mp_val" ;;
esac
# Read-only, 0444 (writes fail with EACCES, as upstream's), after
# booting with never or in a kernel built with MEM_ALLOC_PROFILING_DEBUG
# (boot-test.sh passes allocprof.debugbuild=1).
mp_ro=0
[ "$mp_boot" = never ] || [ "$(cmdline_value allocprof.debugbuild 0)" = 1 ] && mp_ro=1
if [ $mp_ro = 1 ]; then
	t_eq "mem_profiling mode is 0444" 444 "$(stat -c %a $mp)"
else
	t_eq "mem_profiling mode is 0644" 644 "$(stat -c %a $mp)"
fi

# mp_write VALUE: write VALUE (backslash escapes allowed) with a single
# write() and print the error (strerror text), if any.  dd is used because
# the shell's builtin printf does not report write errors.
mp_write() {
	printf '%b' "$1" >/tmp/mp.in
	dd if=/tmp/mp.in of=$mp bs=8192 conv=notrunc 2>&1 |
		grep -o 'Invalid argument\|Operation not permitted\|Permission denied\|No such file' |
		head -n 1
}

# Non-root: open() for writing fails on the mode, before our handler.
for v in "$mp_val" "$((1 - mp_val))" never; do
	t_eq "nobody's write '$v' rejected with EACCES" "Permission denied" \
		"$(su nobody -s /bin/sh -c "echo $v > $mp" 2>&1 | grep -o 'Permission denied' | head -n 1)"
	t_eq "value unchanged after nobody's write '$v'" "$mp_val" "$(cat $mp)"
done

mp_err=$(mp_write "$mp_val\n")
if [ $mp_ro = 1 ]; then
	t_eq "root's write rejected with EACCES" "Permission denied" "$mp_err"
	t_eq "root's write of $((1 - mp_val)) rejected with EACCES" "Permission denied" \
		"$(mp_write "$((1 - mp_val))\n")"
	t_eq "mem_profiling still $mp_val" "$mp_val" "$(cat $mp)"
	return 0
fi
t_eq "rewriting the current value succeeds" "" "$mp_err"

# Tags get their per-CPU counters when profiling is first on: at boot
# (no message), else at the first switch to 1, which says so once.
mp_counted() { dmesg | grep -c 'alloc_tag: first switch on: counters for [1-9][0-9]* call sites'; }
mp_counted_before=$(mp_counted)
if [ "$mp_boot" = 1 ]; then
	t_eq "booted with 1: counters allocated at boot, not on a switch" 0 "$mp_counted_before"
fi

for v in '\n' '2\n' '-1\n' 'never\n' '1x\n' '1\n\n' ' 1\n' '0x1' 'true\n' '10\n'; do
	t_eq "write '$v' rejected with EINVAL" "Invalid argument" "$(mp_write "$v")"
	t_eq "value unchanged after '$v'" "$mp_val" "$(cat $mp)"
done
mp_long=$(head -c 4096 /dev/zero | tr '\0' 1)
t_eq "long write rejected with EINVAL" "Invalid argument" "$(mp_write "$mp_long")"
t_eq "value unchanged after long write" "$mp_val" "$(cat $mp)"

t_eq "write 0 accepted" "" "$(mp_write '0\n')"
t_eq "reads 0 after writing 0" 0 "$(cat $mp)"
t_eq "write 1 without newline accepted" "" "$(mp_write '1')"
t_eq "reads 1 after writing 1" 1 "$(cat $mp)"
t_eq "write 0 without newline accepted" "" "$(mp_write '0')"
t_eq "reads 0 again" 0 "$(cat $mp)"
t_eq "write 1 again accepted" "" "$(mp_write '1')"
if [ "$mp_boot" = 1 ]; then
	t_eq "no counters allocated by a switch after booting with 1" 0 "$(mp_counted)"
else
	t_eq "counters allocated by the first switch on, once (before: $mp_counted_before)" 1 "$(mp_counted)"
fi
mp_write "$mp_val\n" >/dev/null
t_eq "original value restored" "$mp_val" "$(cat $mp)"
