/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The dma-buf export's pure decisions: the host-page range of an allocation to
 * export for a buffer, and whether to ask for the PCIe mapping type. And the default
 * huge page size read from /proc/meminfo's text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "gpu/dmabuf.h"
#include "host/hugepage.h"

#include <errno.h>
#include <stdint.h>

#define PAGE 4096u

static void range_aligned(void **state)
{
	struct rb_dmabuf_range r;

	(void)state;
	assert_int_equal(rb_dmabuf_range(0x7f0000000000, 65536, 65536, PAGE, &r), 0);
	assert_true(r.start == 0x7f0000000000);
	assert_int_equal(r.len, 65536);
}

/* An allocation that does not start on a page: the range starts at the next boundary, never before. */
static void range_unaligned_start(void **state)
{
	struct rb_dmabuf_range r;

	(void)state;
	/* Exactly the buffer's size allocated: a page-aligned range of that size does not fit. */
	assert_int_equal(rb_dmabuf_range(0x10100, 65536, 65536, PAGE, &r), -ERANGE);
	/* With a page of padding it does, starting at the next boundary and ending inside. */
	assert_int_equal(rb_dmabuf_range(0x10100, 65536 + PAGE, 65536, PAGE, &r), 0);
	assert_true(r.start == 0x11000);
	assert_int_equal(r.len, 65536);
	assert_true(r.start + r.len <= 0x10100 + 65536 + PAGE);
	/* One byte past a boundary is the worst case: still fits a page of padding. */
	assert_int_equal(rb_dmabuf_range(0x10001, 8192 + PAGE, 8192, PAGE, &r), 0);
	assert_true(r.start == 0x11000 && r.len == 8192);
}

/* A buffer that does not end on a page: rounded up to whole pages, still inside the allocation. */
static void range_unaligned_end(void **state)
{
	struct rb_dmabuf_range r;

	(void)state;
	assert_int_equal(rb_dmabuf_range(0x20000, 8192, 100, PAGE, &r), 0);
	assert_true(r.start == 0x20000 && r.len == PAGE);
	assert_int_equal(rb_dmabuf_range(0x20000, 8192, 4097, PAGE, &r), 0);
	assert_int_equal(r.len, 8192);
	/* 4097 bytes in a 4097-byte allocation: the second page would run past it. */
	assert_int_equal(rb_dmabuf_range(0x20000, 4097, 4097, PAGE, &r), -ERANGE);
}

static void range_spanning_pages(void **state)
{
	struct rb_dmabuf_range r;

	(void)state;
	/* 3 pages and a bit, from an allocation 256 bytes past a boundary (cuMemAlloc's promise). */
	assert_int_equal(rb_dmabuf_range(0x30100, 4 * PAGE + PAGE, 3 * PAGE + 1, PAGE, &r), 0);
	assert_true(r.start == 0x31000);
	assert_int_equal(r.len, 4 * PAGE);
	assert_true(r.start + r.len <= 0x30100 + 5 * PAGE);
	/* 64 KiB host pages (arm64). */
	assert_int_equal(rb_dmabuf_range(0x100000, 2 << 20, 1 << 20, 65536, &r), 0);
	assert_int_equal(r.len, 1 << 20);
	assert_int_equal(rb_dmabuf_range(0x100100, 1 << 20, 1 << 20, 65536, &r), -ERANGE);
	/* Nonsense in, -EINVAL out. */
	assert_int_equal(rb_dmabuf_range(0, PAGE, 0, PAGE, &r), -EINVAL);
	assert_int_equal(rb_dmabuf_range(0, PAGE, 1, 3000, &r), -EINVAL);
	/* The end of the address space does not wrap around into a "fit". */
	assert_int_equal(rb_dmabuf_range(UINT64_MAX - 100, 200, 100, PAGE, &r), -ERANGE);
}

static void pcie_mapping(void **state)
{
	const char *why = NULL;

	(void)state;
	/* auto: NCCL's rule. */
	assert_true(rb_dmabuf_pcie(RB_DMABUF_ASK_AUTO, 12080, true, NULL, &why));
	assert_non_null(why);
	assert_true(rb_dmabuf_pcie(RB_DMABUF_ASK_AUTO, 12090, true, "1", &why));
	assert_false(rb_dmabuf_pcie(RB_DMABUF_ASK_AUTO, 12080, false, NULL, &why));
	assert_string_equal(why, "the NIC has no Data Direct interface");
	assert_false(rb_dmabuf_pcie(RB_DMABUF_ASK_AUTO, 12080, true, "0", &why));
	assert_string_equal(why, "NCCL_IB_DATA_DIRECT=0");
	assert_false(rb_dmabuf_pcie(RB_DMABUF_ASK_AUTO, 12040, true, NULL, &why));
	assert_non_null(why);
	/* Asked for: whatever the NIC and the driver. */
	assert_true(rb_dmabuf_pcie(RB_DMABUF_ASK_PCIE, 11070, false, "0", &why));
	assert_false(rb_dmabuf_pcie(RB_DMABUF_ASK_DEFAULT, 12080, true, NULL, &why));
	assert_string_equal(why, "--dmabuf-mapping");
}

static void hugepage_size(void **state)
{
	char n[24];

	(void)state;
	assert_int_equal(rb_hugepage_parse("MemTotal:       16314748 kB\nHugePages_Total:       0\n"
	                                   "Hugepagesize:       2048 kB\nHugetlb:               0 kB\n"),
	                 2 << 20);
	assert_int_equal(rb_hugepage_parse("Hugepagesize:    1048576 kB\n"), (size_t)1 << 30);
	assert_int_equal(rb_hugepage_parse("Hugepagesize:     524288 kB"), 512 << 20);
	/* No huge pages in this kernel, or another field that starts alike. */
	assert_int_equal(rb_hugepage_parse("MemTotal: 1 kB\nHugePages_Total: 2048\n"), 0);
	assert_int_equal(rb_hugepage_parse("Hugepagesize: 2048 MB\n"), 0);
	assert_int_equal(rb_hugepage_parse(""), 0);
	assert_string_equal(rb_hugepage_name(2 << 20, n, sizeof(n)), "2 MiB");
	assert_string_equal(rb_hugepage_name((size_t)1 << 30, n, sizeof(n)), "1 GiB");
	assert_string_equal(rb_hugepage_name(65536, n, sizeof(n)), "64 KiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(range_aligned),       cmocka_unit_test(range_unaligned_start),
	    cmocka_unit_test(range_unaligned_end), cmocka_unit_test(range_spanning_pages),
	    cmocka_unit_test(pcie_mapping),        cmocka_unit_test(hugepage_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
