# SPDX-License-Identifier: GPL-2.0
# The 10 rows of an allocinfo file with the most bytes, in one pass: the
# awk a user would write instead of allocinfo -n 10, for make bench.
# Keeps the 10 largest rows and the smallest of them; prints them, largest
# first.  Header and comment lines have no number in the first field.
$1 ~ /^-?[0-9]+$/ {
	b = $1 + 0
	if (n < 10)
		i = ++n
	else if (b <= min)
		next
	else
		i = mi
	v[i] = b
	row[i] = $0
	if (n < 10)
		next
	min = v[1]
	mi = 1
	for (j = 2; j <= n; j++)
		if (v[j] < min) {
			min = v[j]
			mi = j
		}
}
END {
	for (k = 1; k <= n; k++) {
		best = 0
		for (j = 1; j <= n; j++)
			if (!(j in done) && (!best || v[j] > v[best]))
				best = j
		done[best] = 1
		print row[best]
	}
}
