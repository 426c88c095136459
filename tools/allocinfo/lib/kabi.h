/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kabi.h - the kernel's query interface on /proc/allocinfo, for the ioctl
 * backend (kernel.c)
 *
 * Linux 7.3 (and allocprof's 6.1 series) answer ioctls on an open
 * /proc/allocinfo, declared by <linux/alloc_tag.h>.  The C libraries'
 * kernel headers of most distributions predate it, so the same layouts
 * and command numbers are declared here when the system's header is
 * missing; the assertions hold for either.
 */
#ifndef ALLOCINFO_KABI_H
#define ALLOCINFO_KABI_H

#include <linux/ioctl.h>
#include <stdint.h>

#if defined(__has_include) && __has_include(<linux/alloc_tag.h>)
#include <linux/alloc_tag.h>
#endif

#ifndef ALLOCINFO_IOC_BASE
#define ALLOCINFO_STR_SIZE 64

struct allocinfo_content_id {
	uint64_t id;
};

struct allocinfo_tag {
	char modname[ALLOCINFO_STR_SIZE];
	char function[ALLOCINFO_STR_SIZE];
	char filename[ALLOCINFO_STR_SIZE];
	uint64_t lineno;
};

struct allocinfo_counter {
	uint64_t bytes;
	uint64_t calls;
	uint8_t accurate;
} __attribute__((aligned(8)));

struct allocinfo_tag_data {
	struct allocinfo_tag tag;
	struct allocinfo_counter counter;
};

#define ALLOCINFO_FILTER_MASK_MODNAME	(1 << 0)
#define ALLOCINFO_FILTER_MASK_FUNCTION	(1 << 1)
#define ALLOCINFO_FILTER_MASK_FILENAME	(1 << 2)
#define ALLOCINFO_FILTER_MASK_LINENO	(1 << 3)
#define ALLOCINFO_FILTER_MASK_INACCURATE (1 << 4)
#define ALLOCINFO_FILTER_MASK_MIN_SIZE	(1 << 5)
#define ALLOCINFO_FILTER_MASK_MAX_SIZE	(1 << 6)

struct allocinfo_filter {
	uint64_t mask;
	struct allocinfo_tag fields;
	uint64_t min_size;
	uint64_t max_size;
	uint64_t inaccurate;
};

struct allocinfo_get_at {
	uint64_t pos;
	struct allocinfo_filter filter;
	struct allocinfo_tag_data data;
};

#define ALLOCINFO_IOC_BASE 0xA6
#define ALLOCINFO_IOC_CONTENT_ID \
	_IOR(ALLOCINFO_IOC_BASE, 0, struct allocinfo_content_id)
#define ALLOCINFO_IOC_GET_AT \
	_IOWR(ALLOCINFO_IOC_BASE, 1, struct allocinfo_get_at)
#define ALLOCINFO_IOC_GET_NEXT \
	_IOR(ALLOCINFO_IOC_BASE, 2, struct allocinfo_tag_data)
#endif

_Static_assert(sizeof(struct allocinfo_tag) == 200, "allocinfo_tag layout");
_Static_assert(sizeof(struct allocinfo_tag_data) == 224, "allocinfo_tag_data layout");
_Static_assert(sizeof(struct allocinfo_filter) == 232, "allocinfo_filter layout");
_Static_assert(sizeof(struct allocinfo_get_at) == 464, "allocinfo_get_at layout");
_Static_assert(ALLOCINFO_IOC_GET_AT == 0xc1d0a601, "ALLOCINFO_IOC_GET_AT number");

#endif
