# 6.1's names of the annotated allocators (__kmalloc, kmem_cache_alloc,
# vmalloc, ...) are macros over _noprof functions in this series; each
# stays a symbol at the address of its _noprof function, so that tools
# that attach by name (bcc's slabratetop on kmem_cache_alloc, perf probe,
# SystemTap's kprobe.function) work as on stock 6.1.  Checked: every
# name whose _noprof function this kernel has is at the same address; a
# kprobe event on it is accepted and fires for the slab and page
# allocators and for every API allocprof_cov_test says it called; the
# kmem tracepoints still name the module's function as call_site.

kn_names="__alloc_pages __alloc_pages_bulk __alloc_percpu __alloc_percpu_gfp
__alloc_reserved_percpu __devres_alloc_node __folio_alloc __get_free_pages
__kfifo_alloc __kmalloc __kmalloc_node __kmalloc_node_track_caller __vcalloc
__vmalloc __vmalloc_array __vmalloc_node __vmalloc_node_range alloc_pages
alloc_pages_exact alloc_pages_exact_nid devm_get_free_pages devm_kasprintf
devm_kmalloc devm_kmemdup devm_krealloc devm_kstrdup devm_kstrdup_const
devm_kvasprintf dma_alloc_attrs dma_alloc_noncontiguous dma_alloc_pages
dmam_alloc_attrs filemap_alloc_folio folio_alloc get_zeroed_page kasprintf
kmalloc_large kmalloc_large_node kmalloc_node_trace kmalloc_trace
kmem_cache_alloc kmem_cache_alloc_bulk kmem_cache_alloc_lru
kmem_cache_alloc_node kmemdup kmemdup_nul krealloc kstrdup kstrdup_const
kstrndup kvasprintf kvasprintf_const kvmalloc_node kvrealloc memdup_user
memdup_user_nul mempool_alloc mempool_create mempool_create_node mempool_init
mempool_init_node mempool_resize rhashtable_init rhltable_init strndup_user
vcalloc vma_alloc_folio vmalloc vmalloc_32 vmalloc_32_user vmalloc_array
vmalloc_huge vmalloc_node vmalloc_user vmemdup_user vzalloc vzalloc_node"

kn_tr=/sys/kernel/tracing
[ -d $kn_tr/events ] || mount -t tracefs nodev $kn_tr 2>/dev/null
if [ ! -e $kn_tr/kprobe_events ]; then
	t_skip "6.1 allocator names for kprobes" "no kprobe events in tracefs"
	return 0
fi
have_module "6.1 allocator names for kprobes" allocprof_cov_test || return 0

# kn_addr NAME: NAME's address among vmlinux's text symbols, if any.
kn_addr() { awk -v n="$1" '$3 == n && $2 ~ /^[Tt]$/ { print $1; exit }' /tmp/kn_syms; }
grep -v '\[' /proc/kallsyms >/tmp/kn_syms

# Names in init text (__meminit without memory hotplug) are checked for
# their address only: their code is gone, no kprobe takes them, as on 6.1.
kn_init_start=$(kn_addr _sinittext)
kn_init_end=$(kn_addr _einittext)
kn_in_init() {
	[ -n "$kn_init_start" ] && [ -n "$kn_init_end" ] &&
		[ "$(printf '%s\n' "$kn_init_start" "$1" "$kn_init_end" | sort | sed -n 2p)" = "$1" ] &&
		[ "$1" != "$kn_init_end" ]
}
kn_have=
kn_bad=
for n in $kn_names; do
	a=$(kn_addr "${n}_noprof")
	[ -n "$a" ] || continue
	[ "$a" = "$(kn_addr "$n")" ] || kn_bad="$kn_bad $n"
	kn_in_init "$a" || kn_have="$kn_have $n"
done
t_check "kallsyms shows addresses" [ -n "$(kn_addr kmem_cache_alloc_noprof | tr -d 0)" ]
t_eq "each 6.1 name at its _noprof function's address ($(echo $kn_have | wc -w) names)" \
	"" "$kn_bad"

# One event per name, in group allocprof_kn, counted in kprobe_profile;
# recording stays off (tracing_on 0): only the hit counts are read.
kn_cleanup() {
	echo 0 >$kn_tr/events/allocprof_kn/enable 2>/dev/null
	echo 0 >$kn_tr/events/kmem/kmalloc/enable 2>/dev/null
	grep '^p:allocprof_kn/' $kn_tr/kprobe_events | cut -d' ' -f1 | sed 's/^p:/-:/' |
		while read -r e; do echo "$e" >>$kn_tr/kprobe_events; done
	echo "$kn_tracing_on" >$kn_tr/tracing_on
}
kn_tracing_on=$(cat $kn_tr/tracing_on)
echo 0 >$kn_tr/tracing_on
kn_refused=
for n in $kn_have; do
	echo "p:allocprof_kn/$n $n" >>$kn_tr/kprobe_events 2>/dev/null || kn_refused="$kn_refused $n"
done
t_eq "a kprobe event on each name is accepted" "" "$kn_refused"
t_check "the events are enabled" sh -c "echo 1 >$kn_tr/events/allocprof_kn/enable"

insmod "$MODDIR/allocprof_cov_test.ko" &&
	printf 'alloc\000' >/proc/allocprof_cov_test &&
	cp /proc/allocprof_cov_test /tmp/kn_apis &&
	echo free >/proc/allocprof_cov_test &&
	rmmod allocprof_cov_test
kn_rc=$?
echo 0 >$kn_tr/events/allocprof_kn/enable
t_eq "allocprof_cov_test allocated and freed its APIs" 0 "$kn_rc"

# kn_hits NAME: hits of NAME's event.
kn_hits() { awk -v n="$1" '$1 == n { print $2 }' $kn_tr/kprobe_profile; }
kn_silent=
kn_fired=0
for n in kmem_cache_alloc __alloc_pages $(awk '{ print $4 }' /tmp/kn_apis | sort -u); do
	case " $kn_have " in *" $n "*) ;; *) continue ;; esac
	if [ "$(kn_hits "$n")" -gt 0 ] 2>/dev/null; then
		kn_fired=$((kn_fired + 1))
	else
		kn_silent="$kn_silent $n"
	fi
done
t_eq "the kprobe on each name the module called fired ($kn_fired fired)" "" "$kn_silent"
t_check "the module called at least 30 of the names" [ "$kn_fired" -ge 30 ]

# The kmem tracepoints report the caller of the annotated API.
echo >$kn_tr/trace
kn_kmalloc=0
if echo 1 >$kn_tr/events/kmem/kmalloc/enable 2>/dev/null; then
	kn_kmalloc=1
	echo 1 >$kn_tr/tracing_on
	insmod "$MODDIR/allocprof_cov_test.ko" &&
		printf 'alloc\000' >/proc/allocprof_cov_test &&
		echo free >/proc/allocprof_cov_test
	echo 0 >$kn_tr/tracing_on
	# Read while the module is loaded: call_site is resolved on reading.
	cp $kn_tr/trace /tmp/kn_trace
	echo 0 >$kn_tr/events/kmem/kmalloc/enable
	rmmod allocprof_cov_test
fi
if [ $kn_kmalloc = 1 ]; then
	t_check "kmem:kmalloc names allocprof_cov_test's function as call_site" \
		grep -q 'call_site=[A-Za-z0-9_.]*+0x[0-9a-f]*/0x[0-9a-f]* \[allocprof_cov_test\]' /tmp/kn_trace
else
	t_skip "kmem:kmalloc call_site" "no kmem:kmalloc event"
fi
echo >$kn_tr/trace
kn_cleanup
