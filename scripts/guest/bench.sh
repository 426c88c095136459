#!/bin/busybox sh
# make bench, guest side (allocprof.mode=bench): run the micro-benchmarks
# of allocprof_bench.ko, time a macro workload, measure reads of
# /proc/allocinfo against a plain seq_file, and dump the metadata sizes.
# Every result is an "@@" line on the results port; under QEMU -icount
# shift=0 a guest ns is one instruction.
M=/modules
echo "@@BOOTED $(uname -r)"
# allocprof.memcg=1: everything below runs in a child memory cgroup, as
# every task of a systemd host does, so memcg's kmem hooks are live.
if grep -qw allocprof.memcg=1 /proc/cmdline; then
	cg=/sys/fs/cgroup
	mount -t cgroup2 none $cg && echo +memory >$cg/cgroup.subtree_control &&
		mkdir $cg/bench && echo $$ >$cg/bench/cgroup.procs ||
		{ echo "@@ERROR no memory cgroup"; exit 1; }
	echo "@@MEMCG $(cat /proc/self/cgroup)"
fi
insmod $M/allocprof_bench.ko || { echo "@@ERROR insmod allocprof_bench"; exit 1; }

clk() { read -r "$1" </proc/allocprof_clock; }

# allocprof.smp=1 (make bench SMP=1): only the benchmarks on every CPU at
# once, in real time: "@@SMP name cpus pairs_per_second".
if grep -qw allocprof.smp=1 /proc/cmdline; then
	sed 's/^/@@SMP /' /proc/allocprof_smp
	echo "@@DONE"
	exit 0
fi

# time NAME CMD...: instructions CMD takes, as "@@MACRO NAME ns".
timed() {
	_n=$1
	shift
	clk _t0
	"$@"
	clk _t1
	echo "@@MACRO $_n $((_t1 - _t0))"
}

fork_exec() {
	i=0
	while [ $i -lt 200 ]; do /bin/busybox true; i=$((i + 1)); done
}

tmpfs_rw() {
	i=0
	while [ $i -lt 8 ]; do
		dd if=/dev/zero of=/tmp/bench.f bs=64k count=32 2>/dev/null
		cat /tmp/bench.f >/dev/null
		rm /tmp/bench.f
		i=$((i + 1))
	done
}

module_cycle() {
	i=0
	while [ $i -lt 20 ]; do
		insmod $M/allocprof_seqref.ko
		rmmod allocprof_seqref
		i=$((i + 1))
	done
}

# allocprof.listen=1 (1+listener): both alloc_tag events enabled with a
# filter that no call site matches, as while someone traces another
# call site: every charge and uncharge then builds an event to drop it.
if grep -qw allocprof.listen=1 /proc/cmdline; then
	tr=/sys/kernel/tracing
	[ -d $tr/events ] || mount -t tracefs nodev $tr
	for e in alloc_tag_charge alloc_tag_uncharge; do
		echo 'func == "allocprof_listens_to_no_site"' >$tr/events/alloc_tag/$e/filter &&
			echo 1 >$tr/events/alloc_tag/$e/enable ||
			{ echo "@@ERROR enabling alloc_tag:$e"; exit 1; }
	done
	echo "@@LISTEN $(cat $tr/events/alloc_tag/alloc_tag_charge/enable)"
fi

# allocprof.arm=1 (1+armed): the call sites of three benchmarks armed
# (vm.mem_profiling_stacks): their charges record stacks, and the other
# benchmarks run while some site is armed.
if grep -qw allocprof.arm=1 /proc/cmdline; then
	for f in kmalloc_pairs cache_pairs page_pairs; do
		site=$(awk -v f="func:$f" '$4 == f || $5 == f { print $3; exit }' /proc/allocinfo)
		echo "$site" >/proc/sys/vm/mem_profiling_stacks ||
			{ echo "@@ERROR arming $f ($site)"; exit 1; }
	done
	echo "@@ARMED $(tr '\n' ' ' </proc/sys/vm/mem_profiling_stacks)"
fi

cat /proc/allocprof_bench >/tmp/micro
while read -r name ops r1 r2; do
	echo "@@MICRO $name $ops $r1 $r2"
done </tmp/micro
# The sites stayed armed through the benchmarks (which free all they
# allocate, so no stack is left live).
if grep -qw allocprof.arm=1 /proc/cmdline; then
	grep '^site ' /proc/allocinfo_stacks | sed 's/^/@@STACKS /'
	[ "$(grep -c '^site .* armed:yes' /proc/allocinfo_stacks)" = 3 ] ||
		{ echo "@@ERROR armed sites lost"; exit 1; }
fi

for round in 1 2; do
	timed "fork_exec_200#$round" fork_exec
	timed "tmpfs_4M_x8#$round" tmpfs_rw
	timed "insmod_rmmod_20#$round" module_cycle
done

# Metadata: what the kernel said at boot and holds now.
dmesg | grep -E 'page_ext|pgalloc_tag|alloc_tag|obj_exts' | sed 's/^/@@DMESG /'
grep -E '^(MemTotal|Slab):' /proc/meminfo | sed 's/^/@@MEMINFO /'
[ -r /proc/slabinfo ] && sed 's/^/@@SLABINFO /' /proc/slabinfo
sed 's/^/@@SIZES /' /proc/allocprof_sizes
# Tags have counters once profiling was on: at boot, or switched on.
if [ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" = 1 ] ||
	dmesg | grep -q 'alloc_tag: first switch on: counters'; then
	echo "@@SIZES counted 1"
else
	echo "@@SIZES counted 0"
fi

# Slab memory per 64-byte object held, unaccounted and accounted: the
# object, its share of the slab and its metadata (vector entries).
slab_kb() {
	echo 1 >/proc/sys/vm/stat_refresh
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}
for kind in kmalloc account; do
	_b=$(slab_kb)
	echo "$kind 16384" >/proc/allocprof_hold
	_a=$(slab_kb)
	echo free >/proc/allocprof_hold
	echo "@@HOLD $kind 16384 $_b $_a"
done

# Reading /proc/allocinfo: one full read per block size, at four numbers
# of rows, against a seq_file printing as many rows with one seq_printf
# each, and against reading /dev/null (the cost of running dd itself).
readcost() { # FILE BS
	clk _t0
	dd if="$1" of=/dev/null bs="$2" 2>/dev/null
	clk _t1
	echo $((_t1 - _t0))
}
readpoint() {
	rows=$(($(wc -l </proc/allocinfo) - 2))
	# Rows like the last one of /proc/allocinfo: "B C file:line [mod] func:f"
	set -- $(tail -n 1 /proc/allocinfo)
	case "$4" in
	"["*) insmod $M/allocprof_seqref.ko rows=$rows file="${3%:*}" mod="$(echo "$4" | tr -d "[]")" func="${5#func:}" ;;
	*) insmod $M/allocprof_seqref.ko rows=$rows file="${3%:*}" func="${4#func:}" ;;
	esac
	for bs in 1 4096 65536; do
		echo "@@READ $rows $bs $(readcost /proc/allocinfo $bs) $(readcost /proc/allocprof_seqref $bs) $(readcost /dev/null $bs)"
	done
	rmmod allocprof_seqref
	querypoint "$rows"
}
# A filtered query, the rows of one file: the query ioctls (the aiq
# helper, the allocinfo command) against reading the text (busybox grep,
# allocinfo --text).  "@@QUERY rows matched aiq grep allocinfo allocinfo-text"
querycost() {
	clk _t0
	"$@" >/dev/null 2>&1
	clk _t1
	echo $((_t1 - _t0))
}
querypoint() {
	command -v allocinfo >/dev/null && command -v aiq >/dev/null || return 0
	q=mm/slub.c
	# Kernels without the query ioctls (upstream before 7.3) skip it.
	aiq rows -F $q >/dev/null 2>&1 || return 0
	echo "@@QUERY $1 $(aiq rows -F $q | wc -l) $(querycost aiq rows -F $q)" \
		"$(querycost grep -F " $q:" /proc/allocinfo)" \
		"$(querycost allocinfo --ioctl -x --file $q -a)" \
		"$(querycost allocinfo --text -x --file $q -a)"
}
if [ -r /proc/allocinfo ]; then
	readpoint
	insmod $M/allocprof_tags_a.ko && readpoint
	rmmod allocprof_tags_a && insmod $M/allocprof_tags_b.ko && readpoint
	insmod $M/allocprof_tags_a.ko && readpoint
	rmmod allocprof_tags_a allocprof_tags_b
fi
echo "@@DONE"
