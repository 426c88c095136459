# scripts/postmortem-test.sh: lay a QEMU dump-guest-memory -p dump out as
# a kdump capture kernel's /proc/vmcore is laid out, for makedumpfile to
# compress and filter: the program headers right after the ELF header,
# the VMCOREINFO note, and one PT_LOAD for each range of physical memory
# as the direct map holds it.  QEMU also maps vmalloc and module memory
# again and puts its headers elsewhere, which makedumpfile does not read.
#
# Usage: postmortem-vmcore.py CORE OUT   (x86_64 dumps)
import struct
import sys

from postmortem_elf import PHDR, PT_LOAD, PT_NOTE, copy, read_headers

DIRECT_MAP = 0xffff888000000000

core, out = sys.argv[1:3]
with open(core, "rb") as src:
    ehdr, phdrs = read_headers(src)
    note = next(p for p in phdrs if p[0] == PT_NOTE)
    loads = [p for p in phdrs if p[0] == PT_LOAD and p[3] == DIRECT_MAP + p[4]]
    if not loads:
        sys.exit(f"{core}: no direct-map segments (not an x86_64 dump-guest-memory -p dump)")
    src.seek(note[2])
    note_data = src.read(note[5])

    count = 1 + len(loads)
    note_at = 64 + 56 * count
    data_at = (note_at + len(note_data) + 4095) & ~4095
    struct.pack_into("<QQ", ehdr, 32, 64, 0)  # e_phoff, e_shoff
    struct.pack_into("<HHHHHH", ehdr, 52, 64, 56, count, 0, 0, 0)
    with open(out, "wb") as dst:
        dst.write(ehdr)
        dst.write(struct.pack(PHDR, PT_NOTE, 0, note_at, 0, 0, len(note_data),
                              len(note_data), 0))
        at = data_at
        for _, flags, _, vaddr, paddr, size, memsz, align in loads:
            dst.write(struct.pack(PHDR, PT_LOAD, flags, at, vaddr, paddr, size, memsz, align))
            at += size
        dst.write(note_data)
        dst.seek(data_at)
        for load in loads:
            copy(src, dst, load[2], load[5])
