# Slab accounting: the allocprof_slab_test module allocates through each
# profiled slab entry point (kmalloc family, kmem_cache_alloc family, bulk,
# krealloc, large kmalloc) and tells which /proc/allocinfo row
# (file:line [allocprof_slab_test]) must show which bytes and calls.
# Checked: rows exact while the objects live, zero after freeing, and the
# large kmallocs charged to the module instead of mm/slub.c or
# mm/slab_common.c.  With memory cgroups, the objects are allocated again
# from inside a child cgroup, so accounted objects carry an objcg and a
# tag reference side by side.

# Vectors come from the obj_exts-* caches, which "never" must not create
# (memcg, when built, needs them for its own use).
if [ "$(mem_profiling_boot)" = never ] && [ -r /proc/slabinfo ] &&
	! grep -q '^memory' /proc/cgroups 2>/dev/null; then
	t_eq "no slab object extension caches with never" 0 \
		"$(grep -c '^obj_exts-' /proc/slabinfo)"
fi

if [ ! -e /proc/allocinfo ]; then
	t_skip "slab accounting" "no /proc/allocinfo (profiling not built or never)"
	return 0
fi
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "slab accounting" "profiling switched off"
	return 0
fi
have_module "slab accounting" allocprof_slab_test || return 0

st_proc=/proc/allocprof_slab_test

# Rows of the slab entry points themselves: with every caller annotated
# and the allocator calling _noprof variants inside, there must be none.
st_internal_rows() {
	grep -E ' mm/(slub|slab_common|util)\.c:[0-9]+ func:(__kmalloc_large_node|kmalloc_large(_node)?(_noprof)?|__do_kmalloc_node|__kmalloc(_node)?(_noprof)?|kmalloc(_node)?_trace(_noprof)?|__do_krealloc|krealloc(_noprof)?|kvmalloc_node(_noprof)?|kmem_cache_alloc(_node|_lru|_bulk)?(_noprof)?|slab_alloc_node|__kmem_cache_alloc_node)( total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+)? *$' \
		/proc/allocinfo | awk '$1 != 0' | head -3
}

# With KFENCE sampling, the module also keeps an object KFENCE sampled:
# a slab of its own, whose one-entry vector the hooks find another way.
st_kfence=0
[ "$(cat /sys/module/kfence/parameters/sample_interval 2>/dev/null)" -gt 0 ] 2>/dev/null &&
	st_kfence=2000
load_test_module allocprof_slab_test kfence_tries=$st_kfence || return 0
[ $st_kfence = 0 ] || t_eq "a KFENCE object is among the charged ones" 1 \
	"$(awk '$4 == "kmalloc-kfence" { print $3 }' $st_proc)"
t_check "allocprof_slab_test covers the slab APIs ($(wc -l <$st_proc))" \
	[ "$(wc -l <$st_proc)" -ge 25 ]
rows_exact "slab rows exact after allocation" allocprof_slab_test 0
t_eq "large kmalloc charged to the module" \
	"$(awk '$4 == "kmalloc-large" { print $2, $3 }' $st_proc)" \
	"$(grep " $(awk '$4 == "kmalloc-large" { print $1 }' $st_proc) \[" /proc/allocinfo | awk '{ print $1, $2 }')"
t_eq "nothing charged to the slab entry points" "" "$(st_internal_rows)"
if [ -r /proc/slabinfo ]; then
	st_vec=$(awk '/^obj_exts-/ { n += $2; b += $2 * $4 }
		END { print n + 0, int(b / 1024) }' /proc/slabinfo)
	t_check "slabs carry object extension vectors (${st_vec% *} using ${st_vec#* } KiB)" \
		[ "${st_vec% *}" -gt 0 ]
fi

echo free >$st_proc
rows_exact "slab rows zero after free" allocprof_slab_test 1
echo alloc >$st_proc
rows_exact "slab rows exact after reallocation" allocprof_slab_test 0

# Memory cgroup coexistence: objects allocated from a child cgroup.
st_cg=/sys/fs/cgroup
st_slab_stat() {
	awk '$1 == "slab_unreclaimable" { print $2 }' $st_cg/allocprof_slab/memory.stat
}
# memcg folds per-CPU stat deltas into memory.stat lazily (at the latest
# every 2 s): give a change up to 6 s to show before checking it.
st_settle() {
	st_try=0
	while ! eval "$1" && [ $st_try -lt 6 ]; do
		sleep 1
		st_try=$((st_try + 1))
	done
}
if grep -q '^memory[[:space:]].*1$' /proc/cgroups 2>/dev/null &&
	{ [ -e $st_cg/cgroup.controllers ] || mount -t cgroup2 none $st_cg 2>/dev/null; } &&
	grep -qw memory $st_cg/cgroup.controllers; then
	echo +memory >$st_cg/cgroup.subtree_control 2>/dev/null
	mkdir -p $st_cg/allocprof_slab
	# "0" moves the writer: this test runs in a subshell of /init
	echo 0 >$st_cg/allocprof_slab/cgroup.procs
	# 64 KiB of GFP_KERNEL_ACCOUNT kmallocs ("kmalloc-account-8k")
	before=$(st_slab_stat)
	echo alloc >$st_proc
	# Back to the root group: the commands below (awk, ...) would
	# otherwise charge and uncharge their own memory to the group while
	# it is measured.  The objects stay charged to it until freed.
	echo 0 >$st_cg/cgroup.procs
	st_settle '[ $(($(st_slab_stat) - before)) -ge 32768 ]'
	after=$(st_slab_stat)
	rows_exact "slab rows exact when allocated in a memory cgroup" allocprof_slab_test 0
	t_check "accounted slab objects charged to the memory cgroup ($before -> $after)" \
		[ $((after - before)) -ge 32768 ]
	echo free >$st_proc
	rows_exact "slab rows zero after free in a memory cgroup" allocprof_slab_test 1
	st_settle '[ $((after - $(st_slab_stat))) -ge 32768 ]'
	freed=$(st_slab_stat)
	t_check "memory cgroup uncharged after free ($after -> $freed)" \
		[ $((after - freed)) -ge 32768 ]
	# list_lru looks an object's memory cgroup up from an address
	# inside the object (see lru_test() in allocprof_slab_test.c)
	echo 0 >$st_cg/allocprof_slab/cgroup.procs
	t_check "list_lru files objects under their memory cgroup" \
		sh -c "echo lru >$st_proc"
	echo 0 >$st_cg/cgroup.procs
	rmdir $st_cg/allocprof_slab 2>/dev/null
else
	t_skip "slab rows in a memory cgroup" "no memory cgroup controller"
fi

t_check "allocprof_slab_test unloads" rmmod allocprof_slab_test
t_eq "module rows gone after unload" 0 "$(grep -c '\[allocprof_slab_test\]' /proc/allocinfo)"
t_eq "no unload warning when nothing is left" "" \
	"$(dmesg | grep 'module allocprof_slab_test unloaded with' | head -1)"
