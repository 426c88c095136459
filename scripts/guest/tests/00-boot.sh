# The guest itself: the kernel booted, procfs works, modules load and unload.
t_check "procfs is mounted" test -r /proc/meminfo
t_info "kernel $(uname -r) booted with $(grep -c ^processor /proc/cpuinfo) CPU(s)"
if grep -q "^harness_fault " /proc/modules 2>/dev/null; then
	t_skip "module load and unload" "harness_fault already loaded by a self-test"
elif [ -e /proc/modules ]; then
	t_check "a test module loads" insmod "$MODDIR/harness_fault.ko" what=none
	t_check "and unloads" rmmod harness_fault
else
	t_skip "module load and unload" "kernel built without modules"
fi
