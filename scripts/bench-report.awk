# Input: lines "CONFIG @@KIND ..." from bench-report.sh.
function pct(x, base) { return base ? sprintf("%+.1f%%", (x / base - 1) * 100) : "-" }
function cell(x, base, c) { return c == "stock" ? x : x " (" pct(x, base) ")" }
function target(what, c, name, vals, limit,   r) {
	if (!((c, name) in vals) || !(("stock", name) in vals)) return
	r = (vals[c, name] / vals["stock", name] - 1) * 100
	printf("| %s, `%s` | %+.1f%% | ≤ +%s%% | %s |\n", what, c, r, limit,
	       r <= limit ? "met" : "**missed**")
}
BEGIN { ncf = 0 }
!seen[$1]++ { cf[++ncf] = $1 }
$2 == "@@MICRO" {
	c = $1; n = $3
	if (!(n in mi)) { mi[n] = 1; morder[++nm] = n }
	micro[c, n] = sprintf("%.1f", $5 / $4)
	micro2[c, n] = sprintf("%.1f", $6 / $4)
	if ($5 != $6) { d = ($6 - $5) / $5 * 100; if (d < 0) d = -d; if (d > spread[n]) spread[n] = d; same[n] = "no" }
}
$2 == "@@MACRO" {
	c = $1; split($3, a, "#"); n = a[1]
	if (!(n in ma)) { ma[n] = 1; aorder[++na] = n }
	if (a[2] == 1) { macro[c, n] = $4; macro[c, "total"] += $4 }
	else { macro2[c, n] = $4; if ($4 != macro[c, n]) { d = ($4 - macro[c, n]) / macro[c, n] * 100; if (d < 0) d = -d; if (d > mspread[n]) mspread[n] = d } }
}
$2 == "@@SIZE" { text[$1] = $3; data[$1] = $4; bss[$1] = $5 }
$2 == "@@DMESG" && /allocated [0-9]+ bytes of page_ext/ { for (i = 1; i <= NF; i++) if ($i == "allocated") pext[$1] = $(i + 1) }
$2 == "@@DMESG" && /page_ext: [0-9]+ bytes per page/ { for (i = 1; i <= NF; i++) if ($i == "bytes" && $(i-1) ~ /^[0-9]+$/) pgsz[$1] = $(i - 1) }
$2 == "@@DMESG" && /pgalloc_tag: page references packed in page flags/ { pmode[$1] = "page flags" }
$2 == "@@DMESG" && /pgalloc_tag: page references stored in page_ext/ { pmode[$1] = "page_ext" }
$2 == "@@MEMINFO" && $3 == "MemTotal:" { memtotal[$1] = $4 }
$2 == "@@SLABINFO" && $3 !~ /^(#|slabinfo)/ {
	# name active_objs num_objs objsize objperslab pagesperslab : ... num_slabs
	if ($3 ~ /^obj_exts-/) vec[$1] += $5 * $6
	else objs[$1] += $5
}
$2 == "@@SIZES" { sz[$1, $3] = $4 }
$2 == "@@MEMCG" { inmemcg[$1] = 1 }
# kind objects slab_kB_before slab_kB_after: slab bytes per object held
$2 == "@@HOLD" { held[$1, $3] = sprintf("%.2f", ($6 - $5) * 1024 / $4) }
$2 == "@@READ" {
	c = $1; rows = $3; bs = $4
	if (!((c, rows) in rseen)) { rseen[c, rows] = 1; rlist[c] = rlist[c] " " rows }
	ai[c, rows, bs] = $5 - $7; sr[c, rows, bs] = $6 - $7
}
$2 == "@@QUERY" {
	# measured at each row count of the @@READ lines (readpoint)
	c = $1; rows = $3
	qmatch[c, rows] = $4; qaiq[c, rows] = $5; qgrep[c, rows] = $6; qtool[c, rows] = $7; qtext[c, rows] = $8
}
END {
	print "Guest instructions (ns under `-icount shift=0,sleep=off`, `-smp 1`), " note "."
	print ""
	print "### Allocator micro-benchmarks: instructions per alloc+free pair"
	print ""
	s = "| benchmark"; t = "|---"
	for (i = 1; i <= ncf; i++) { s = s " | `" cf[i] "`"; t = t "|---:" }
	print s " | 2nd run identical |"; print t "|---|"
	for (j = 1; j <= nm; j++) {
		n = morder[j]
		s = "| " n
		for (i = 1; i <= ncf; i++) { c = cf[i]; s = s " | " ((c, n) in micro ? cell(micro[c, n], micro["stock", n], c) : "-") }
		print s " | " (same[n] == "no" ? sprintf("no, spread %.3f%%", spread[n]) : "yes") " |"
	}
	print ""
	print "### Macro workload: instructions per workload"
	print ""
	s = "| workload"; t = "|---"
	for (i = 1; i <= ncf; i++) { s = s " | `" cf[i] "`"; t = t "|---:" }
	print s " | 2nd round spread |"; print t "|---|"
	for (j = 1; j <= na; j++) {
		n = aorder[j]; s = "| " n
		for (i = 1; i <= ncf; i++) { c = cf[i]; s = s " | " ((c, n) in macro ? cell(macro[c, n], macro["stock", n], c) : "-") }
		print s " | " sprintf("%.3f%%", mspread[n]) " |"
	}
	s = "| **total**"
	for (i = 1; i <= ncf; i++) { c = cf[i]; s = s " | " ((c, "total") in macro ? cell(macro[c, "total"], macro["stock", "total"], c) : "-") }
	print s " | |"
	print ""
	# A kernel that does not say where (upstream) but allocated page_ext
	for (i = 1; i <= ncf; i++)
		if (!(cf[i] in pmode) && pext[cf[i]] > 0 && cf[i] ~ /^1/) pmode[cf[i]] = "page_ext"
	print "### Targets"
	print ""
	print "| target | measured | limit | |"
	print "|---|---:|---:|---|"
	for (i = 1; i <= ncf; i++) {
		c = cf[i]
		if (c == "stock") continue
		on = c ~ /^1/
		# Pages with profiling on: the limit of where the kernel said it
		# keeps page references.
		lk = on ? 25 : 2.5; lp = !on ? 1 : ((c in pmode) && pmode[c] == "page_ext" ? 15 : 8)
		target("kmalloc/kfree", c, "kmalloc_free_8-240", micro, lk)
		target("kmalloc batches", c, "kmalloc_batch64_8-240", micro, lk)
		target("alloc_page/free", c, "alloc_page_free", micro, lp)
		target("get_free_pages order 0", c, "get_free_pages_o0", micro, lp)
		target("get_free_pages order 2", c, "get_free_pages_o2", micro, lp)
		if (on) target("macro total", c, "total", macro, 3)
	}
	print ""
	print "Page limits with profiling on: ≤ +8% where the kernel packs page references"
	print "in page flags, ≤ +15% where it keeps them in page_ext (first row of Memory)."
	print ""
	print "### Memory"
	print ""
	s = "| "; t = "|---"
	for (i = 1; i <= ncf; i++) { s = s " | `" cf[i] "`"; t = t "|---:" }
	print s " |"; print t "|"
	line("page references kept in (dmesg)", pmode)
	line("page_ext bytes per page (dmesg)", pgsz)
	line("page_ext allocated, bytes (dmesg)", pext)
	for (i = 1; i <= ncf; i++) {
		c = cf[i]
		if ((c, "alloc_tag") in sz) {
			# Counters exist once profiling was on (runs before
			# "counted" was reported always had them).
			counted = ((c, "counted") in sz) ? sz[c, "counted"] : 1
			pertag[c] = sz[c, "alloc_tag"] + counted * sz[c, "counters"] * sz[c, "possible_cpus"]
			split(rlist[c], rl, " "); ntags[c] = rl[1]
			tagmem[c] = pertag[c] * ntags[c]
		}
		if (c in vec && objs[c]) pobj[c] = sprintf("%.2f", vec[c] / objs[c])
		tot[c] = pext[c] + vec[c] + tagmem[c]
		dtext[c] = text[c] - text["stock"]; ddata[c] = data[c] - data["stock"]; dbss[c] = bss[c] - bss["stock"]
	}
	line("slab vectors (obj_exts-* slabs), bytes", vec)
	line("objects in all other slabs", objs)
	line("vector bytes per slab object", pobj)
	for (i = 1; i <= ncf; i++) {
		c = cf[i]
		if ((c, "kmalloc") in held) { hk[c] = held[c, "kmalloc"]; ha[c] = held[c, "account"] }
	}
	line("slab bytes per 64-byte object held, `GFP_KERNEL`", hk)
	line("slab bytes per 64-byte object held, `GFP_KERNEL_ACCOUNT`", ha)
	line("tags (rows of /proc/allocinfo)", ntags)
	line("bytes per tag (struct + counters × CPUs)", pertag)
	line("tags and counters, bytes", tagmem)
	line("**total metadata, bytes**", tot)
	line("MemTotal, kB", memtotal)
	line("vmlinux text", text); line("vmlinux data", data); line("vmlinux bss", bss)
	line("text growth vs stock", dtext); line("data growth vs stock", ddata); line("bss growth vs stock", dbss)
	print ""
	for (i = 1; i <= ncf; i++) {
		c = cf[i]
		if (c in pgsz) printf("- `%s`: %s B per page (target ≤ 8): %s\n", c, pgsz[c], pgsz[c] <= 8 ? "met" : "**missed**")
		if (c in pobj) printf("- `%s`: %s B of vector per slab object (target ≤ 8): %s\n", c, pobj[c], pobj[c] + 0 <= 8 ? "met" : "**missed**")
		if (pmode[c] == "page flags") printf("- `%s`: page references in page flags, %d B of page_ext (target 0 where the layout has room): %s\n", c, pext[c], pext[c] == 0 ? "met" : "**missed**")
		if (c == "never" && !(c in inmemcg)) printf("- `never`: %d B of page_ext and %d B of slab vectors (target 0): %s\n", pext[c], vec[c], pext[c] + vec[c] == 0 ? "met" : "**missed**")
		# Per object held, against stock: as stock (within the slab
		# counter's resolution) while off, at most 8 bytes more while on
		if (c != "stock" && (c in ha) && ("stock" in ha)) {
			lh = c ~ /^1/ ? 8 : 0.5
			for (k = 0; k < 2; k++) {
				hv = k ? ha[c] - ha["stock"] : hk[c] - hk["stock"]
				printf("- `%s`: %+.2f B per %s 64-byte object against stock (target ≤ %s): %s\n", c, hv,
				       k ? "accounted" : "unaccounted", lh, hv <= lh ? "met" : "**missed**")
			}
		}
	}
	print ""
	print "### Reading /proc/allocinfo"
	print ""
	print "One full read with `dd bs=N`, minus the same dd reading /dev/null;"
	print "`seqref`: a seq_file printing as many rows of the same format with one"
	print "seq_printf() each.  Per row: instructions / rows."
	print ""
	print "| config | rows | bs | allocinfo | per row | seqref | per row | ratio |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ncf; i++) {
		c = cf[i]; if (!reads_shown(c)) continue
		n = split(rlist[c], rl, " ")
		for (k = 1; k <= n; k++) for (b = 0; b < 3; b++) {
			bs = b == 0 ? 1 : b == 1 ? 4096 : 65536; r = rl[k]
			printf("| `%s` | %d | %d | %d | %.0f | %d | %.0f | %.2f |\n", c, r, bs, ai[c, r, bs], ai[c, r, bs] / r, sr[c, r, bs], sr[c, r, bs] / r, ai[c, r, bs] / sr[c, r, bs])
		}
	}
	print ""
	print "Linearity: instructions per added row between consecutive row counts"
	print "(constant when a full read is linear in the rows)."
	print ""
	print "| config | bs | allocinfo per added row | seqref per added row |"
	print "|---|---:|---|---|"
	for (i = 1; i <= ncf; i++) {
		c = cf[i]; if (!reads_shown(c)) continue
		n = split(rlist[c], rl, " ")
		for (b = 0; b < 3; b++) {
			bs = b == 0 ? 1 : b == 1 ? 4096 : 65536; s1 = ""; s2 = ""
			for (k = 2; k <= n; k++) {
				dr = rl[k] - rl[k - 1]
				s1 = s1 (k > 2 ? ", " : "") sprintf("%.0f", (ai[c, rl[k], bs] - ai[c, rl[k - 1], bs]) / dr)
				s2 = s2 (k > 2 ? ", " : "") sprintf("%.0f", (sr[c, rl[k], bs] - sr[c, rl[k - 1], bs]) / dr)
			}
			printf("| `%s` | %d | %s | %s |\n", c, bs, s1, s2)
		}
		if (n > 1) {
			pa = (ai[c, rl[n], 4096] - ai[c, rl[1], 4096]) / (rl[n] - rl[1])
			pb = (sr[c, rl[n], 4096] - sr[c, rl[1], 4096]) / (rl[n] - rl[1])
			summ = summ sprintf("\n- `%s`, bs=4096: %.0f instructions per added row against %.0f for the one-seq_printf seq_file (%+.1f%%; target: no more): %s",
			       c, pa, pb, (pa / pb - 1) * 100, pa <= pb ? "met" : "**missed**")
		}
	}
	print summ
	print ""
	print "### A filtered query: the rows of one file (`mm/slub.c`)"
	print ""
	print "Whole processes: `aiq rows -F mm/slub.c` (the query ioctls) against"
	print "`grep -F ' mm/slub.c:' /proc/allocinfo` (the text), and"
	print "`allocinfo -x --file mm/slub.c -a` through the ioctls against `--text`."
	print ""
	print "| config | rows | matched | aiq (ioctls) | grep (text) | ratio | allocinfo (ioctls) | allocinfo --text | ratio |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ncf; i++) {
		c = cf[i]; if (!reads_shown(c)) continue
		n = split(rlist[c], rl, " ")
		for (k = 1; k <= n; k++) {
			r = rl[k]; if (!((c, r) in qaiq)) continue
			printf("| `%s` | %d | %d | %d | %d | %.2f | %d | %d | %.2f |\n", c, r, qmatch[c, r],
			       qaiq[c, r], qgrep[c, r], qaiq[c, r] / qgrep[c, r],
			       qtool[c, r], qtext[c, r], qtool[c, r] / qtext[c, r])
		}
	}
}
# Whether the read tables show configuration c: it read /proc/allocinfo,
# and not as a trace variant, which reads it as `1` does.
function reads_shown(c) {
	return rlist[c] != "" && c !~ /notrace|listener|armed/
}
function line(name, arr,   i, s) {
	s = "| " name
	for (i = 1; i <= ncf; i++) s = s " | " (cf[i] in arr && arr[cf[i]] != "" ? arr[cf[i]] : "-")
	print s " |"
}
