# Where the page allocator keeps page references (mm/pgalloc_tag.c): one
# kernel log line names the place and why.  Packed in page flags they need
# 28 spare bits and take no page_ext; in page_ext they do take some.
# Only x86_64 packs them (32-bit tag references): elsewhere, arm64 among
# them, they are always in page_ext, and the line says so.
# mem_profiling_page_ref=page_ext forces page_ext; the last valid value
# wins, and a bad value is reported and keeps the one before it.

if [ ! -e /proc/allocinfo ]; then
	t_eq "no page reference line without profiling" 0 \
		"$(dmesg | grep -c 'pgalloc_tag: page references')"
	return 0
fi

flags_line=$(dmesg | sed -n 's/.*pgalloc_tag: page references packed in page flags: \([0-9]*\) of \([0-9]*\) spare bits, 0 bytes per page$/\1 \2/p')
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

if [ "$mode" = page_ext ]; then
	t_check "mem_profiling_page_ref=page_ext obeyed" \
		sh -c "echo '$ext_line' | grep -q 'as mem_profiling_page_ref=page_ext asks, 8 bytes per page'"
	t_check "page_ext allocated for page references (${pext_bytes:-none})" \
		[ "${pext_bytes:-0}" -gt 0 ]
elif [ "$(uname -m)" != x86_64 ]; then
	t_eq "no packed page references on $(uname -m)" "" "$flags_line"
	t_check "page_ext used: tags cannot be packed on $(uname -m)" \
		sh -c "echo '$ext_line' | grep -q ', 8 bytes per page: tags cannot be packed in page flags on this architecture\$'"
	t_check "page_ext allocated for page references (${pext_bytes:-none})" \
		[ "${pext_bytes:-0}" -gt 0 ]
elif [ -n "$flags_line" ]; then
	set -- $flags_line
	t_check "28 of $2 spare bits used" sh -c "[ '$1' = 28 ] && [ '$2' -ge 28 ]"
	t_eq "page flags mode allocates no page_ext" "" "$pext_bytes"
else
	spare=$(echo "$ext_line" | sed -n 's/.*page flags have \([0-9]*\) spare bits, 28 needed$/\1/p')
	t_check "page_ext used only for lack of room (${spare:-?} spare bits)" \
		sh -c "[ -n '$spare' ] && [ '$spare' -lt 28 ]"
	t_check "page_ext allocated for page references (${pext_bytes:-none})" \
		[ "${pext_bytes:-0}" -gt 0 ]
fi
