# /proc/allocinfo: presence, permissions, header, row format, page rows
# attributed to real callers, and identical content for any read size.

if [ "$(mem_profiling_boot)" = never ]; then
	if [ -e /proc/allocinfo ]; then
		t_fail "allocinfo absent with mem_profiling=never" "file exists"
	else
		t_ok "allocinfo absent with mem_profiling=never"
	fi
	if command -v allocinfo >/dev/null; then
		allocinfo >/dev/null 2>/tmp/ai.never
		t_eq "allocinfo after a never boot: exit 1" 1 "$?"
		if grep -q "off for this boot (sysctl.vm.mem_profiling=never)" /tmp/ai.never; then
			t_ok "allocinfo after a never boot says so"
		else
			t_fail "allocinfo after a never boot says so" "$(cat /tmp/ai.never)"
		fi
	fi
	return 0
fi
if [ ! -e /proc/allocinfo ]; then
	t_skip "allocinfo tests" "no /proc/allocinfo (profiling not built in)"
	return 0
fi

ai_prof_on=1
[ "$(mem_profiling_boot)" = 0 ] && ai_prof_on=0
[ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" = 1 ] || ai_prof_on=0

# Built-in call sites name their file relative to the source tree, as in
# upstream kernels (mm/slub.c, not ../linux/mm/slub.c or /abs/path).
t_eq "allocinfo built-in paths relative to the source tree" "" \
	"$(awk 'NR > 2 && !/\[/ && ($3 ~ /^\// || $3 ~ /(^|\/)\.\.\//) { print $3; exit }' /proc/allocinfo)"

t_eq "allocinfo mode is 0400" 400 "$(stat -c %a /proc/allocinfo)"
t_eq "allocinfo owned by root" 0 "$(stat -c %u /proc/allocinfo)"

if su nobody -s /bin/sh -c 'cat /proc/allocinfo' >/dev/null 2>&1; then
	t_fail "allocinfo not readable by nobody" "read succeeded"
else
	t_ok "allocinfo not readable by nobody"
fi

cat /proc/allocinfo >/tmp/ai.big
t_eq "allocinfo line 1" "allocinfo - version: 2.0" "$(sed -n 1p /tmp/ai.big)"
t_eq "allocinfo line 2" "#     <size>  <calls> <tag info>" "$(sed -n 2p /tmp/ai.big)"

# Every row: "%12lli %8llu file:line[ [mod]] func:name".
ai_bad=$(sed 1,2d /tmp/ai.big | awk '
{
	line = $0
	if (!match(line, /^ *-?[0-9]+ /) || RLENGTH < 13) { print; next }
	line = substr(line, RLENGTH + 1)
	if (!match(line, /^ *[0-9]+ /) || RLENGTH < 9) { print; next }
	line = substr(line, RLENGTH + 1)
	if (line !~ /^[^ ]+:[0-9]+( \[[^] ]+\])? func:[^ ]+( total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+)?( accurate:no)? $/) print
}' | head -3)
t_eq "allocinfo rows well formed" "" "$ai_bad"
# Nothing that could be a kernel address: no 0xffff..., no 16 hex digits.
t_eq "allocinfo prints no kernel addresses" "" \
	"$(grep -oiE '0x[0-9a-f]{8,}|(^|[^0-9a-z])[0-9a-f]{16}([^0-9a-z]|$)' /tmp/ai.big | head -n 1)"
ai_rows=$(sed 1,2d /tmp/ai.big | wc -l)
t_check "allocinfo has rows ($ai_rows)" [ "$ai_rows" -gt 10 ]

if [ $ai_prof_on = 1 ]; then
	# Pages charged outside mm/page_alloc.c, e.g. to fork or pipes.
	ai_callers=$(sed 1,2d /tmp/ai.big | awk '$1 > 0 && $3 !~ /^mm\/page_alloc\.c:/' | wc -l)
	t_check "allocinfo has charged rows of real callers ($ai_callers)" [ "$ai_callers" -gt 0 ]
	ai_total=$(sed 1,2d /tmp/ai.big | awk '{ s += $1 } END { print s + 0 }')
	t_check "allocinfo total bytes positive ($ai_total)" [ "$ai_total" -gt 0 ]
	t_eq "allocinfo no negative counters" "" \
		"$(sed 1,2d /tmp/ai.big | awk '$1 < 0 || $2 < 0' | head -2)"
else
	t_eq "allocinfo all zero with profiling off at boot" "" \
		"$(sed 1,2d /tmp/ai.big | awk '$1 != 0 || $2 != 0' | head -2)"
fi

# Different read sizes give the same rows (counters may move in between,
# so compare the tag columns only, plus the header).
# Without the counts, which may change between reads, lifetime ones too.
ai_tags() {
	awk 'NR <= 2 { print; next }
	{ $1 = ""; $2 = ""; for (i = 3; i <= NF; i++) if ($i ~ /^(total_calls|total_bytes|failed|requested):/) $i = ""; print }'
}
ai_tags </tmp/ai.big >/tmp/ai.big.tags
dd if=/proc/allocinfo bs=1 2>/dev/null | ai_tags >/tmp/ai.1.tags
dd if=/proc/allocinfo bs=7 2>/dev/null | ai_tags >/tmp/ai.7.tags
dd if=/proc/allocinfo bs=1M 2>/dev/null | ai_tags >/tmp/ai.1m.tags
t_check "allocinfo 1-byte reads match big read" cmp /tmp/ai.big.tags /tmp/ai.1.tags
t_check "allocinfo 7-byte reads match big read" cmp /tmp/ai.big.tags /tmp/ai.7.tags
t_check "allocinfo 1M reads match big read" cmp /tmp/ai.big.tags /tmp/ai.1m.tags
rm -f /tmp/ai.*
