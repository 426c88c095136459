# Slab object extension vectors are sized to the slab: a cache holding N
# objects per slab takes vectors of N entries (4 bytes on x86_64, 8 on
# arm64, which keeps the tag's pointer, 16 with memory cgroups, which add
# an objcg pointer, 8 with memory cgroups and profiling never, which
# keeps the objcg alone; the kernel says which at boot) from the
# obj_exts-<bytes> cache of exactly that size, whether N is a power of
# two or not.  Checked from /proc/slabinfo: every cache has its
# exact-size vector cache, so a vector costs no more than its entries plus
# the vector cache's own slab rounding.

if [ ! -r /proc/slabinfo ]; then
	t_skip "exact-size slab vectors" "no /proc/slabinfo"
	return 0
fi
if ! grep -q '^obj_exts-8 ' /proc/slabinfo; then
	t_skip "exact-size slab vectors" "no obj_exts caches (profiling never or not built)"
	return 0
fi

sv_entry=$(dmesg | sed -n 's/.*object extension vectors take \([0-9]*\) bytes per object.*/\1/p')
t_check "the kernel tells the size of a vector entry (${sv_entry:-none})" \
	test -n "$sv_entry"
if grep -q '^memory' /proc/cgroups 2>/dev/null &&
	dmesg | grep -q 'alloc_tag: profiling disabled for this boot'; then
	t_eq "with profiling never, a vector entry is memcg's objcg alone" 8 \
		"$sv_entry"
elif grep -q '^memory' /proc/cgroups 2>/dev/null; then
	t_eq "a vector entry holds an objcg pointer and a tag reference" 16 \
		"$sv_entry"
elif [ "$(uname -m)" = x86_64 ]; then
	t_eq "a tag reference takes 4 bytes of a vector on x86_64" 4 \
		"${sv_entry:-0}"
else
	t_eq "a tag reference takes a pointer's 8 bytes of a vector on $(uname -m)" 8 \
		"${sv_entry:-0}"
fi
[ -n "$sv_entry" ] || return 0

# Columns: name active_objs num_objs objsize objperslab pagesperslab ...
# A vector cache is named by the size it was created with, which SLUB
# rounds up to the word size: the 21 four-byte entries of a kmalloc-192
# vector take 84 bytes and obj_exts-84, like obj_exts-88, serves 88.
# The sizes are compared so rounded, and taken from the names (obj_exts-2k
# is 2048), since objsize also counts what debugging adds to each object
# (KASAN's redzones and metadata).
sv_size='function vsize(name, n) {
	n = substr(name, 10)
	if (n ~ /k$/) n *= 1024
	return int((n + 7) / 8) * 8
}'
sv_missing=$(awk -v e="$sv_entry" "$sv_size"'
	NR <= 2 { next }
	$1 ~ /^obj_exts-/ { vec[vsize($1)] = 1; next }
	{ need[$1] = int(($5 * e + 7) / 8) * 8 }
	END { for (c in need) if (!(need[c] in vec)) printf "%s:%d ", c, need[c] }
' /proc/slabinfo)
t_eq "every slab cache has an obj_exts cache of exactly its vector size" "" \
	"$sv_missing"

# And no vector cache is larger than the largest vector needed, i.e.
# vectors are not rounded up to the next power of two.
sv_bad=$(awk -v e="$sv_entry" "$sv_size"'
	NR <= 2 { next }
	$1 ~ /^obj_exts-/ { if ($2 > 0) used[$1] = vsize($1); next }
	{ need[int(($5 * e + 7) / 8) * 8] = 1 }
	END { for (c in used) if (!(used[c] in need)) printf "%s ", c }
' /proc/slabinfo)
t_eq "vector caches in use only hold vectors of an exact size" "" "$sv_bad"
