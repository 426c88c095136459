// SPDX-License-Identifier: GPL-2.0
/*
 * Generate a synthetic /proc/allocinfo with ROWS rows in the kernel's
 * layout ("%12lli %8llu file:line [module] func:name"), ending at their
 * last token as older kernels' did (bench.c adds the blank before the
 * newline that kernels print now), for tests and benchmarks.
 * Usage: gen ROWS [SEED [VERSION [GROWTH_STEP]]]
 * VERSION 2 adds key:value pairs to some rows.  GROWTH_STEP n scales the
 * byte counts of every seventh row by (1 + n), to fake a leak over time.
 * The same arguments always produce the same bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t s;

static uint64_t rnd(void)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

int main(int argc, char **argv)
{
	static const char *const dirs[] = {
		"mm", "kernel", "fs/ext4", "fs", "net/core", "net/ipv4", "drivers/net/ethernet/intel/e1000",
		"drivers/gpu/drm", "lib", "block", "include/linux", "arch/x86/kernel", "security/selinux",
		"drivers/foo", "crypto", "sound/core",
	};
	static const char *const mods[] = { "e1000", "drm", "ext4", "foo", "snd" };
	long rows = argc > 1 ? atol(argv[1]) : 1000;
	int version = argc > 3 ? atoi(argv[3]) : 1;
	long step = argc > 4 ? atol(argv[4]) : 0;

	s = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (!s)
		s = 1;
	printf("allocinfo - version: %d.0\n#     <size>  <calls> <tag info>\n", version);
	for (long i = 0; i < rows; i++) {
		uint64_t r = rnd();
		size_t d = r % (sizeof(dirs) / sizeof(dirs[0]));
		uint64_t calls = rnd() % 5000;
		int64_t bytes = (int64_t)(calls * (8u << (rnd() % 10)));

		if (i % 7 == 3)
			bytes += bytes * step;
		printf("%12" PRId64 " %8" PRIu64 " %s/file%ld.c:%" PRIu64, bytes, calls,
		       dirs[d], i % 211, 10 + rnd() % 4000);
		if (r % 9 == 0)
			printf(" [%s]", mods[(r >> 8) % 5]);
		printf(" func:function_%ld", i);
		if (version >= 2 && r % 3 == 0)
			printf(" accurate:%s", r % 2 ? "yes" : "no");
		putchar('\n');
	}
	return 0;
}
