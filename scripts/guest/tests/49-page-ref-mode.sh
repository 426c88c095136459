# Where the page allocator keeps page references (mm/pgalloc_tag.c): one
# kernel log line names the place and why.  Packed in page flags they take
# no page_ext: as 28 bits of a tag's address on x86_64 where the layout
# has them, else as a tag index of 10 to 14 bits (arm64, x86_64 with
# classic SPARSEMEM), with a table of 8 bytes per index, as long as the
# tags of vmlinux take at most three quarters of the indices.  Otherwise
# they are in page_ext, which then takes some memory.
# mem_profiling_page_ref=page_ext forces page_ext; the last valid value
# wins, and a bad value is reported and keeps the one before it.
# Which form each test kernel must use is pinned (page_refs_expected).

refs=/proc/sys/vm/mem_profiling_page_refs
if [ ! -e /proc/allocinfo ]; then
	t_eq "no page reference line without profiling" 0 \
		"$(dmesg | grep -c 'pgalloc_tag: page references')"
	[ -e $refs ] && t_eq "vm.mem_profiling_page_refs without profiling" \
		"none reason=never" "$(cat $refs)"
	return 0
fi
t_check "vm.mem_profiling_page_refs is read-only" \
	sh -c "! echo x >$refs 2>/dev/null"

flags_line=$(dmesg | sed -n 's/.*pgalloc_tag: page references packed in page flags: \([0-9]*\) of \([0-9]*\) spare bits, 0 bytes per page\(; tag indices: \([0-9]*\) of \([0-9]*\) for vmlinux, \([0-9]*\) bytes of index table\)\{0,1\}$/\1 \2 \4 \5 \6/p')
vmlinux_sites=$(dmesg | sed -n 's/.*alloc_tag: \([0-9]*\) call sites in vmlinux, .*/\1/p')
ext_line=$(dmesg | grep 'pgalloc_tag: page references stored in page_ext' || true)
pext_bytes=$(dmesg | sed -n 's/.*allocated \([0-9]*\) bytes of page_ext.*/\1/p')
t_eq "one page reference line" 1 "$(dmesg | grep -c 'pgalloc_tag: page references')"

mode=auto
for w in $(cat /proc/cmdline); do
	case "$w" in
	mem_profiling_page_ref=auto | mem_profiling_page_ref=flags | mem_profiling_page_ref=page_ext)
		mode=${w#*=} ;;
	mem_profiling_page_ref=*)
		t_eq "bad $w reported, $mode kept" 1 "$(dmesg | grep -c "${w}: invalid value, expected auto, flags or page_ext; keeping ${mode}\$")" ;;
	esac
done

# The form this kernel must use, pinned per kernel with its reason in
# scripts/configs/kernels: a kernel that falls back to page_ext, or packs
# another form, fails here rather than passing in the mode it fell to.
want=$(page_refs_expected)
got=page_ext
if [ -n "$flags_line" ]; then
	set -- $flags_line
	if [ $# = 2 ]; then got=address; else got=index; fi
fi
if [ -n "$want" ]; then
	t_eq "page references kept as pinned for this kernel" "$want" "$got"
else
	t_fail "page references kept as pinned for this kernel" \
		"no allocprof.refs= on the command line: add refs= to the kernel's line of scripts/configs/kernels"
fi

if [ "$mode" = page_ext ]; then
	t_check "mem_profiling_page_ref=page_ext obeyed" \
		sh -c "echo '$ext_line' | grep -q 'as mem_profiling_page_ref=page_ext asks, 8 bytes per page'"
	t_eq "vm.mem_profiling_page_refs says page_ext was asked for" \
		"page_ext reason=asked bytes_per_page=8" "$(cat $refs)"
	t_check "page_ext allocated for page references (${pext_bytes:-none})" \
		[ "${pext_bytes:-0}" -gt 0 ]
elif [ -n "$flags_line" ]; then
	set -- $flags_line
	t_eq "page flags mode allocates no page_ext" "" "$pext_bytes"
	if [ $# = 2 ]; then
		t_eq "tag addresses packed only on x86_64" x86_64 "$(uname -m)"
		t_check "28 of $2 spare bits used" sh -c "[ '$1' = 28 ] && [ '$2' -ge 28 ]"
		t_eq "vm.mem_profiling_page_refs says so" \
			"flags form=address bits=28 spare=$2" "$(cat $refs)"
	else
		t_check "tag indices of $1 bits, of $2 spare" \
			sh -c "[ '$1' -ge 10 ] && [ '$1' -le 14 ] && [ '$1' -le '$2' ]"
		[ "$(uname -m)" = x86_64 ] &&
			t_check "indices only where 28 bits of address do not fit" [ "$2" -lt 28 ]
		t_eq "$1 bits hold $4 indices" $((1 << $1)) "$4"
		t_eq "every call site of vmlinux indexed" "${vmlinux_sites:-?}" "$3"
		t_check "vmlinux leaves a quarter of the indices ($3 of $4)" \
			[ $(($3 + 2)) -le $(($4 / 4 * 3)) ]
		t_eq "a pointer per index in the table" $(($4 * 8)) "$5"
		used=$(page_ref_indices_used)
		t_eq "vm.mem_profiling_page_refs says so" \
			"flags form=index bits=$1 spare=$2 indices=$4 used=$used vmlinux=$3 table_bytes=$5" \
			"$(cat $refs)"
		t_check "indices used: vmlinux's and the modules' ($used)" \
			[ "${used:-0}" -ge "$3" ]
	fi
else
	spare=$(echo "$ext_line" | sed -n 's/.*page flags have \([0-9]*\) spare bits, 10 needed$/\1/p')
	crowd=$(echo "$ext_line" | sed -n "s/.*vmlinux's \([0-9]*\) call sites need more than 3\/4 of the \([0-9]*\) tag indices [0-9]* spare bits hold\$/\1 \2/p")
	if [ -n "$crowd" ]; then
		set -- $crowd
		t_check "page_ext used for want of indices ($1 call sites, $2 indices)" \
			[ $(($1 + 2)) -gt $(($2 / 4 * 3)) ]
		t_eq "vm.mem_profiling_page_refs says so" \
			"page_ext reason=call_sites bytes_per_page=8 vmlinux=$1 indices=$2" \
			"$(cat $refs)"
	else
		t_check "page_ext used only for lack of room (${spare:-?} spare bits)" \
			sh -c "[ -n '$spare' ] && [ '$spare' -lt 10 ]"
		t_eq "vm.mem_profiling_page_refs says so" \
			"page_ext reason=spare_bits bytes_per_page=8 spare=$spare needed=10" \
			"$(cat $refs)"
	fi
	t_check "page_ext allocated for page references (${pext_bytes:-none})" \
		[ "${pext_bytes:-0}" -gt 0 ]
fi
