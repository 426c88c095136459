# allocprof.mode=postmortem (scripts/postmortem-test.sh).  By default:
# leave module rows of both kinds behind, a loaded module's and an
# unloaded one's that still holds pages, arm a call site for stacks,
# print /proc/allocinfo (and allocinfo_numa) as read now, then wait for
# the host to stop the guest and dump it.  allocprof.postmortem=oom: fill
# a tmpfs until the kernel runs out of memory and, with vm.panic_on_oom,
# panics, for the host to dump what the memory went to.
# allocprof.postmortem=kcore: read this kernel's /proc/kcore with the
# reader instead (below).
. /lib.sh
case " $(cat /proc/cmdline) " in
*" allocprof.postmortem=oom "*)
	sysctl -w vm.panic_on_oom=1
	mkdir -p /mnt/fill
	mount -t tmpfs -o size=100% tmpfs /mnt/fill
	echo "@@FILLING"
	dd if=/dev/zero of=/mnt/fill/zero bs=1M
	echo "@@SURVIVED"
	sleep 600
	;;
esac
insmod "$MODDIR/allocprof_keeper.ko"
insmod "$MODDIR/allocprof_test.ko"
echo stash >/proc/allocprof_test
rmmod allocprof_test
insmod "$MODDIR/allocprof_test.ko"
# An armed call site, whose row adds up its stacks' counters.
if [ -w /proc/sys/vm/mem_profiling_stacks ]; then
	insmod "$MODDIR/allocprof_stacks_test.ko"
	awk '$1 == "site" { print $2 }' /proc/allocprof_stacks_test >/proc/sys/vm/mem_profiling_stacks
	echo alloc >/proc/allocprof_stacks_test
fi
sleep 1
# allocprof.postmortem=kcore: the reader on this live kernel's /proc/kcore
# (Python, drgn, the reader and the vmlinux come in a second initramfs
# archive, scripts/postmortem-test.sh), then /proc/allocinfo as read right
# after it, for the host to compare.
case " $(cat /proc/cmdline) " in
*" allocprof.postmortem=kcore "*)
	echo "@@KCORE"
	/usr/bin/python3 /allocinfo-core /proc/kcore /vmlinux 2>/tmp/kcore.err
	echo "@@KCORE_STATUS $?"
	echo "@@ALLOCINFO"
	cat /proc/allocinfo
	echo "@@KCORE_ERR"
	cat /tmp/kcore.err
	exit 0
	;;
esac
# From here on nothing forks: the shell's builtins print the files as read
# and then spin, so that the counters the host dumps are those printed,
# but for the reads' own open files.  A first pass grows the shell's heap
# to what printing takes, so that no page fault follows the reads.  The
# shell spins on one CPU: an idle CPU keeps the memory map of the last
# process it ran (lazy TLB) until it runs another, and the shell moving
# there would free an exited one's after the reads.
taskset -p -c 0 $$ >/dev/null
sleep 1
for f in /proc/allocinfo /proc/allocinfo_numa /proc/allocinfo_stacks; do
	[ -r $f ] || continue
	while IFS= read -r line; do echo "$line"; done <$f >/dev/null
done
echo "@@ALLOCINFO"
while IFS= read -r line; do echo "$line"; done </proc/allocinfo
if [ -r /proc/allocinfo_numa ]; then
	echo "@@ALLOCINFO_NUMA"
	while IFS= read -r line; do echo "$line"; done </proc/allocinfo_numa
fi
if [ -r /proc/allocinfo_stacks ]; then
	echo "@@ALLOCINFO_STACKS"
	while IFS= read -r line; do echo "$line"; done </proc/allocinfo_stacks
fi
echo "@@DUMP"
while :; do :; done
