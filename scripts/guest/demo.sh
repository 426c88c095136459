# What a user looks at first on a kernel with allocprof.
iec() { awk '{ b = $1; u = ""; split("K M G T", s, " ");
	for (i = 1; i <= 4 && (b >= 1024 || b <= -1024); i++) { b /= 1024; u = s[i] }
	rest = $0; sub(/^ *[^ ]+ +/, "", rest)
	printf "%7.1f%-1s %s\n", b, u, rest }'; }

echo "== uname -r"
uname -r
if [ ! -e /proc/allocinfo ]; then
	echo "== this kernel has no /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING is off)"
	exit 0
fi
echo "== sysctl vm.mem_profiling"
sysctl vm.mem_profiling
echo "== sort -g /proc/allocinfo | tail -n 15, in IEC units"
sort -g /proc/allocinfo | tail -n 15 | iec
echo "== $(grep -vc '^#\|^allocinfo' /proc/allocinfo) call sites; $(awk 'NR > 2 { s += $1 } END { printf "%.1f MiB", s / 1048576 }' /proc/allocinfo) accounted"
echo "== sysctl -w vm.mem_profiling=0, then 1"
sysctl -w vm.mem_profiling=0 && sysctl -w vm.mem_profiling=1
if command -v allocinfo >/dev/null; then
	echo "== allocinfo --group module"
	allocinfo --group module
	echo "== allocinfo -n 10"
	allocinfo -n 10
fi
# Which callers of one busy line hold its memory: the sysfs and kernfs
# nodes that loading a module creates, by the kernfs function that made
# each (a kernel without CONFIG_MEM_ALLOC_PROFILING_STACKS skips this).
site=$(awk '$NF == "func:__kernfs_new_node" { print $3; exit }' /proc/allocinfo)
mod=/modules/allocprof_test.ko
if [ -e /proc/sys/vm/mem_profiling_stacks ] && [ -n "$site" ] && [ -f "$mod" ]; then
	echo "== echo $site >/proc/sys/vm/mem_profiling_stacks; insmod allocprof_test.ko"
	echo "$site" >/proc/sys/vm/mem_profiling_stacks
	insmod "$mod"
	echo "== cat /proc/allocinfo_stacks"
	cat /proc/allocinfo_stacks
	echo "-$site" >/proc/sys/vm/mem_profiling_stacks
	rmmod allocprof_test
fi
