# Slab vectors beside memory cgroups: memcg gives a vector to the slabs
# holding accounted objects, profiling to every slab while it is on.  So
# a boot with profiling off (never, or 0 not yet switched on) has vectors
# only where memcg needs them, none for a cache nothing accounts, and with
# never each entry is memcg's own objcg pointer alone (8 bytes, as in
# stock 6.1).  Checked with allocprof_slab_test's census, which fills a
# cache of its own, unaccounted then SLAB_ACCOUNT, from inside a child
# memory cgroup and counts the slabs and those with a vector.

vm_cg=/sys/fs/cgroup
if ! grep -q '^memory[[:space:]].*1$' /proc/cgroups 2>/dev/null; then
	t_skip "slab vectors beside memory cgroups" "no memory cgroup controller"
	return 0
fi
# slub_debug=A,obj_exts-* makes vector allocations fail on purpose
if grep -q 'obj_exts' /proc/cmdline; then
	t_skip "slab vectors beside memory cgroups" "vector allocations fail on purpose"
	return 0
fi

vm_on=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo 0)
vm_entry=$(dmesg | sed -n 's/.*object extension vectors take \([0-9]*\) bytes per object.*/\1/p')
if dmesg | grep -q 'alloc_tag: profiling disabled for this boot'; then
	t_eq "with profiling never, a vector entry is memcg's objcg alone" 8 \
		"${vm_entry:-none}"
fi

have_module "slab vectors beside memory cgroups" allocprof_slab_test || return 0
load_test_module allocprof_slab_test || return 0
{ [ -e $vm_cg/cgroup.controllers ] || mount -t cgroup2 none $vm_cg; } &&
	echo +memory >$vm_cg/cgroup.subtree_control 2>/dev/null
mkdir -p $vm_cg/allocprof_vec
# "0" moves the writer: the census allocates on behalf of this shell
echo 0 >$vm_cg/allocprof_vec/cgroup.procs
t_check "the census runs inside a memory cgroup" \
	sh -c "echo census >/proc/allocprof_slab_test"
echo 0 >$vm_cg/cgroup.procs
rmdir $vm_cg/allocprof_vec 2>/dev/null
rmmod allocprof_slab_test

# "census: unaccounted S slabs V with a vector, accounted S slabs V with a vector"
set -- $(dmesg | sed -n 's/.*census: unaccounted \([0-9]*\) slabs \([0-9]*\) with a vector, accounted \([0-9]*\) slabs \([0-9]*\) with a vector.*/\1 \2 \3 \4/p' | tail -1)
if [ $# -ne 4 ]; then
	t_fail "census result in the kernel log" "missing"
	return 0
fi
t_check "the census filled several slabs of each cache ($1, $3)" \
	[ "$1" -ge 8 -a "$3" -ge 8 ]
t_eq "every slab of accounted objects has a vector" "$3" "$4"
if [ "$vm_on" = 1 ]; then
	t_eq "profiling on: every slab of unaccounted objects has a vector" "$1" "$2"
else
	t_eq "profiling off: no slab of unaccounted objects has a vector" 0 "$2"
fi
