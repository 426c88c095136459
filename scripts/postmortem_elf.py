# The ELF core layout that scripts/postmortem-cut.py and
# scripts/postmortem-vmcore.py rewrite (64-bit little-endian, as QEMU's
# dump-guest-memory writes x86_64 dumps).
import struct

PT_LOAD, PT_NOTE = 1, 4
PAGE = 4096
PHDR = "<IIQQQQQQ"  # type, flags, offset, vaddr, paddr, filesz, memsz, align


def read_headers(f):
    """The ELF header, as a bytearray, and the program headers, as lists."""
    f.seek(0)
    ehdr = bytearray(f.read(64))
    phoff, = struct.unpack_from("<Q", ehdr, 32)
    phentsize, phnum = struct.unpack_from("<HH", ehdr, 54)
    f.seek(phoff)
    table = f.read(phentsize * phnum)
    return ehdr, [list(struct.unpack_from(PHDR, table, i * phentsize))
                  for i in range(phnum)]


def copy(src, dst, offset, size):
    """size bytes of src from offset, appended to dst."""
    src.seek(offset)
    while size:
        chunk = src.read(min(size, 1 << 24))
        if not chunk:
            raise SystemExit(f"{src.name}: truncated")
        dst.write(chunk)
        size -= len(chunk)
