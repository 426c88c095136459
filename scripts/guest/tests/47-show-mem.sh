# Top allocators in show_mem(): sysrq 'm' logs the memory report, which
# with profiling in use ends with the ten call sites holding the most
# memory, largest first, in /proc/allocinfo's row format.  With
# allocprof.oom=1 on the command line, sysrq 'f' also runs the OOM killer
# (every process protected with oom_score_adj -1000, so nothing is
# killed) and its report must carry the same list.

if [ ! -w /proc/sysrq-trigger ]; then
	t_skip "top allocators in show_mem" "no /proc/sysrq-trigger"
	return 0
fi

sm_head='alloc_tag: Memory allocations, top 10 call sites by size'
# sm_log: the kernel log since sm_mark
sm_mark() { sm_from=$(($(dmesg | wc -l) + 1)); }
sm_log() { dmesg | tail -n +$sm_from; }
# sm_rows FROM: the report rows logged after the first line matching FROM
sm_rows() {
	sm_log | sed -n "/$1/,\$p" | sed -n "/$sm_head/,\$p" |
		sed -nE 's/^[^]]*] alloc_tag: +(-?[0-9]+ +[0-9]+ .*)$/\1/p' | head -10
}

sm_mark
echo m >/proc/sysrq-trigger
if [ ! -e /proc/allocinfo ]; then
	t_eq "no top allocators without profiling" 0 "$(sm_log | grep -c "$sm_head")"
	return 0
fi
# Switched off now, the list still shows if it was on before (41-*.sh).
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "top allocators in show_mem" "profiling switched off"
	return 0
fi
t_eq "sysrq m lists the top allocators, modules included" 1 \
	"$(sm_log | grep -c "$sm_head:\$")"
sm_list=$(sm_rows "$sm_head")
t_check "top allocators: 1 to 10 rows ($(echo "$sm_list" | grep -c .))" \
	[ "$(echo "$sm_list" | grep -c .)" -ge 1 -a "$(echo "$sm_list" | grep -c .)" -le 10 ]
sm_bytes=$(echo "$sm_list" | awk '{ print $1 }')
t_eq "top allocators sorted by bytes" "$(echo "$sm_bytes" | sort -nr)" "$sm_bytes"
sm_bad=$(echo "$sm_list" | while read -r b c loc rest; do
	grep -q " $loc $rest\( total_calls:.*\)\{0,1\} \$" /proc/allocinfo || echo "$loc"
done | head -3)
t_eq "top allocators are rows of /proc/allocinfo" "" "$sm_bad"
t_info "top allocator: $(echo "$sm_list" | head -1 | tr -s ' ')"

cmdline_has allocprof.oom=1 || return 0
for p in /proc/[0-9]*; do
	echo -1000 >"$p/oom_score_adj"
done 2>/dev/null
sm_mark
echo f >/proc/sysrq-trigger
sm_try=0
while ! sm_log | grep -q "$sm_head" && [ $sm_try -lt 5 ]; do
	sleep 1
	sm_try=$((sm_try + 1))
done
t_eq "sysrq f invoked the OOM killer" 1 "$(sm_log | grep -c 'invoked oom-killer')"
sm_list=$(sm_rows 'invoked oom-killer')
t_check "OOM report lists the top allocators ($(echo "$sm_list" | grep -c .) rows)" \
	[ "$(echo "$sm_list" | grep -c .)" -ge 1 ]
