// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic mutation fuzzer for machines without libFuzzer: starts from
 * the seed files given on the command line, applies random byte edits
 * (flip, insert, delete, duplicate a span, splice digits and separators)
 * with a fixed-seed xorshift generator, and feeds each result to the same
 * target.  Usage: fuzz-driver SECONDS ITERATIONS SEED-FILE...
 * Prints one TAP line.  Built with ASan/UBSan, a bug aborts the run.
 * "fuzz-driver dump DIR COUNT SEED-FILE..." writes COUNT mutated inputs to
 * DIR/NNNN.txt instead, for the command-line fuzz run in run-tests.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rs = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			b = realloc(b, cap);
			if (!b)
				exit(2);
		}
		r = fread(b + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return b;
}

int main(int argc, char **argv)
{
	static const char tokens[][32] = {
		" ", "\t", "\n", "\r\n", ":", "[", "]", "func:", "-", "#",
		"99999999999999999999", "allocinfo - version: 2.0\n", "k:v", "\0",
	};
	char *seeds[64];
	size_t slen[64], ns = 0, cap = 1 << 16;
	unsigned char *buf = malloc(cap);
	double limit;
	long iters, done = 0;
	struct timespec t0, t;
	const char *dump = NULL;

	if (argc > 1 && !strcmp(argv[1], "dump")) {
		dump = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || !buf)
		return 2;
	limit = dump ? 1e9 : atof(argv[1]);
	iters = atol(argv[dump ? 1 : 2]);
	for (int i = dump ? 2 : 3; i < argc && ns < 64; i++)
		if ((seeds[ns] = slurp(argv[i], &slen[ns])))
			ns++;
	if (!ns)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (; done < iters; done++) {
		size_t k = rnd() % ns, len = slen[k] < cap ? slen[k] : cap;
		int edits = 1 + (int)(rnd() % 8);

		memcpy(buf, seeds[k], len);
		for (int m = 0; m < edits; m++) {
			size_t pos = len ? rnd() % (len + 1) : 0;

			switch (rnd() % 5) {
			case 0:
				if (pos < len)
					buf[pos] ^= (unsigned char)(1u << (rnd() % 8));
				break;
			case 1:
				if (pos < len) {
					size_t n = 1 + rnd() % 16;

					n = n > len - pos ? len - pos : n;
					memmove(buf + pos, buf + pos + n, len - pos - n);
					len -= n;
				}
				break;
			case 2: {
				const char *tk = tokens[rnd() % (sizeof(tokens) / sizeof(tokens[0]))];
				size_t n = strlen(tk) ? strlen(tk) : 1;

				if (len + n < cap) {
					memmove(buf + pos + n, buf + pos, len - pos);
					memcpy(buf + pos, tk, n);
					len += n;
				}
				break;
			}
			case 3:
				if (pos < len && len * 2 < cap) {
					size_t n = 1 + rnd() % (len - pos);

					memmove(buf + pos + n, buf + pos, len - pos);
					len += n;
				}
				break;
			default:
				if (pos < len)
					buf[pos] = (unsigned char)("0123456789 :-\n"[rnd() % 14]);
			}
		}
		if (dump) {
			char name[4096];
			FILE *f;

			snprintf(name, sizeof(name), "%s/%04ld.txt", dump, done);
			f = fopen(name, "wb");
			if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
				return 2;
			continue;
		}
		LLVMFuzzerTestOneInput(buf, len);
		if ((done & 255) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > limit)
				break;
		}
	}
	if (!dump)
		printf("ok 1 - mutation driver: %ld inputs from %zu seeds, no crash or broken invariant\n",
		       done, ns);
	for (size_t i = 0; i < ns; i++)
		free(seeds[i]);
	free(buf);
	return 0;
}
