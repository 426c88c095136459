# kmemleak (booted with kmemleak=on, the debug-kmemleak boot), after the
# boot's other tests: module loads and unloads, tags kept for gone
# modules, armed sites and the frame names kept for their stacks.  A
# scan must report no object that profiling allocated, and kmemleak must
# not have complained about memory it was told of (module tag areas come
# from module_alloc(), which kmemleak tracks as vmalloc memory, or as
# KASAN's module shadow registers it).  That the scan finds leaks at
# all is shown first: allocprof_leak_test leaks 16 objects and the scan
# must report some (a stale copy of a pointer may hide one).

kl=/sys/kernel/debug/kmemleak
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ ! -e $kl ]; then
	t_skip "kmemleak" "kernel without DEBUG_KMEMLEAK"
	return 0
fi
if ! cmdline_has kmemleak=on; then
	t_skip "kmemleak" "boot without kmemleak=on"
	return 0
fi
have_module "kmemleak" allocprof_leak_test || return 0

load_test_module allocprof_leak_test || return 0
echo leak >/proc/allocprof_leak_test
kl_size=$(cut -d' ' -f1 /proc/allocprof_leak_test)
kl_leak='leak_one+0x[0-9a-f]*/0x[0-9a-f]* \[allocprof_leak_test\]'
# kl_scan: one scan, from a process of its own.  A scan that finds a
# signal pending for the writer stops and reports nothing; the test
# shell catches SIGCHLD, which any of its children may raise.
kl_scan() { sh -c "echo scan >$kl"; }
# Objects younger than 5 s are not reported, nor those whose contents
# changed since the previous scan: wait, then scan twice.  A scan can
# still miss leaks (a pointer seen in memory being reused), so up to three
# rounds.
sleep 6
kl_round=0
while [ $kl_round -lt 3 ]; do
	kl_round=$((kl_round + 1))
	kl_scan
	kl_scan
	cat $kl >/tmp/kmemleak
	grep -q "$kl_leak" /tmp/kmemleak && break
	sleep 2
done
kl_objs=$(grep -c '^unreferenced object' /tmp/kmemleak)
t_info "kmemleak reports $kl_objs unreferenced objects after $kl_round rounds of scans"
# The size is the slab object's (kmalloc's size class), the backtrace ends
# in the module.
t_check "the scan finds the test module's leaks ($(grep -c 'leak_one+0x' /tmp/kmemleak) of $(cut -d' ' -f2 /proc/allocprof_leak_test), $kl_size bytes asked; $kl_objs objects reported in all)" \
	grep -q "$kl_leak" /tmp/kmemleak
# One line per reported object of profiling's own: its size and the
# first backtrace frame in profiling's code.
t_eq "no object of profiling's reported" "" "$(awk '
	/^unreferenced object/ { size = $4; done = 0; next }
	!done && /(alloc_tag|codetag|pgalloc_tag|mem_profiling|stack_keep_names|stacks_show|site_alloc|cmod_)/ {
		print size, $NF; done = 1 }' /tmp/kmemleak | head -3)"
t_eq "no kmemleak complaint in the kernel log" "" \
	"$(dmesg | grep -E 'kmemleak: (Trying to color unknown|Adding scan area to unknown|Cannot insert|Kernel memory leak detector disabled|.*overlaps existing)' | head -3)"
t_check "allocprof_leak_test unloads" rmmod allocprof_leak_test
