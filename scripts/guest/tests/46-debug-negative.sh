# Debug checks, negative test: only with allocprof.debugneg=1 on the
# command line (the boot matrix line that allows the warning), load
# allocprof_debug_test, which calls kmalloc_noprof() without a tag, and
# check that the kernel warned once, naming the module's function.

cmdline_has allocprof.debugneg=1 || return 0

if [ ! -f "$MODDIR/allocprof_debug_test.ko" ] || [ ! -e /proc/allocinfo ]; then
	t_fail "untagged allocation warning" "needs a DEBUG kernel with profiling (module not built or no /proc/allocinfo)"
	return 0
fi
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_fail "untagged allocation warning" "profiling must be on for this boot"
	return 0
fi

dn_msg='alloc_tag: allocation without tag'
t_eq "no untagged allocation before the test" 0 "$(dmesg | grep -c "$dn_msg")"
t_check "allocprof_debug_test loads" insmod "$MODDIR/allocprof_debug_test.ko"
t_eq "one untagged allocation warning" 1 "$(dmesg | grep -c "$dn_msg")"
t_check "the warning's stack names the offending function" \
	sh -c "dmesg | sed -n '/$dn_msg/,/end trace/p' | grep -q 'allocprof_debug_untagged_alloc+0x'"
t_check "allocprof_debug_test unloads" rmmod allocprof_debug_test
