# scripts/postmortem-test.sh: copy a QEMU dump-guest-memory -p dump
# without the page that holds the strings (file and function names) of a
# loaded module's call sites, as a filtered or damaged dump would lack
# it, so that the reader must print that module's rows unresolved.
#
# Usage: postmortem-cut.py CORE VMLINUX OUT MODULE
# Prints the physical page it left out; fails if the module's tags or its
# codetag_module share that page (the rows themselves would be gone).
import os
import struct
import sys

import drgn
from drgn.helpers.linux.list import list_for_each_entry

from postmortem_elf import PAGE, PHDR, PT_LOAD, copy, read_headers

core, vmlinux, out, module = sys.argv[1:5]
prog = drgn.Program()
prog.set_core_dump(core)
prog.load_debug_info([vmlinux])
cttype = prog.object("alloc_tag_cttype", filename="lib/alloc_tag.c")
cmod = next(m for m in list_for_each_entry("struct codetag_module",
                                           cttype.modules.address_of_(), "node")
            if not m.gone and m.name.string_() == module.encode())
first = drgn.Object(prog, "struct alloc_tag", address=cmod.start.value_())
strings = first.ct.filename.value_() & ~(PAGE - 1)
for needed in (cmod.start.value_(), cmod.stop.value_() - 1, cmod.value_()):
    if needed & ~(PAGE - 1) == strings:
        sys.exit(f"{module}'s strings share a page with its tags")

with open(core, "rb") as f:
    _, phdrs = read_headers(f)

# The physical page behind the strings, from the segment mapping them.
phys = next((p[4] + strings - p[3] for p in phdrs
             if p[0] == PT_LOAD and p[3] <= strings < p[3] + p[5]), None)
if phys is None:
    sys.exit(f"the dump has no segment mapping {module}'s strings")

# Every segment holding that physical page (the direct map's and the
# module mapping's) is split around it.
kept = []
for typ, flags, off, va, pa, size, memsz, align in phdrs:
    if typ != PT_LOAD or not pa <= phys < pa + size:
        kept.append([typ, flags, off, va, pa, size, memsz, align])
        continue
    head = phys - pa
    tail = size - head - PAGE
    if head:
        kept.append([typ, flags, off, va, pa, head, head, align])
    if tail > 0:
        at = head + PAGE
        kept.append([typ, flags, off + at, va + at, pa + at, tail, tail, align])

with open(core, "rb") as src, open(out, "wb") as dst:
    copy(src, dst, 0, os.fstat(src.fileno()).st_size)
    table_at = (dst.tell() + 7) & ~7
    dst.seek(table_at)
    for p in kept:
        dst.write(struct.pack(PHDR, *p))
    dst.seek(32)
    dst.write(struct.pack("<Q", table_at))
    dst.seek(56)
    dst.write(struct.pack("<H", len(kept)))
print(f"{phys:#x}")
