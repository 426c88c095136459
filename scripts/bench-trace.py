# GDB script of scripts/bench-trace.sh: stop where the bench module calls
# ENTRY for the SKIP-th time, single-step to ENTRY's next call from the
# module (one iteration of the benchmark's loop) and print the
# instructions executed in each function, most first; then every write
# to memory of that iteration by where it lands (WRITES=0: not), and how
# many of them are shared: not this CPU's per-CPU data, its own stack or
# task_struct, nor the block the iteration allocated and freed (the
# object and its slab, or the pages, their struct pages and the slab's
# vector of object extensions).
import bisect
import collections
import os
import re

import gdb

kdir = os.environ["KDIR"]
entry_name = os.environ["ENTRY"]
skip = int(os.environ.get("SKIP", "100"))
limit = int(os.environ.get("LIMIT", "1000000"))

text = []
end_of_image = None
with open(kdir + "/System.map") as system_map:
    for line in system_map:
        addr, kind, name = line.split()[:3]
        if kind in "tTwW":
            text.append((int(addr, 16), name))
        if name == "_end":
            end_of_image = int(addr, 16)
text.sort()
starts = [addr for addr, _ in text]
entry = next((addr for addr, name in text if name == entry_name), None)
if entry is None or end_of_image is None:
    raise gdb.GdbError("no %s or _end in %s/System.map" % (entry_name, kdir))


def function_of(pc):
    if pc > end_of_image:
        return "[module]"
    i = bisect.bisect_right(starts, pc) - 1
    return text[i][1] if i >= 0 else hex(pc)


def pc_now():
    return int(gdb.parse_and_eval("$pc")) & (2**64 - 1)


# x86_64 without KASLR (bench-trace.sh boots nokaslr): where things live.
VMEMMAP = (0xFFFFEA0000000000, 0xFFFFEB0000000000)
DIRECT_MAP = (0xFFFF888000000000, 0xFFFFC88000000000)
VMALLOC = (0xFFFFC90000000000, 0xFFFFE90000000000)
MODULES = (0xFFFFFFFFA0000000, 0xFFFFFFFFFF000000)
KERNEL = (0xFFFFFFFF80000000, 0xFFFFFFFFA0000000)
THREAD_SIZE = 16384
# Mnemonic roots that write their last operand (with a size suffix or not)
WRITERS = re.compile(r"^(mov[bwlq]?|add|adc|sub|sbb|and|or|xor|inc|dec|neg|not|xadd|"
                     r"cmpxchg(8b|16b)?|xchg|set[a-z]+|bt[src]|sh[lr]|sa[lr]|ro[lr]|"
                     r"stos|movs|push|call)[bwlq]?$")
MEM = re.compile(r"^(?:%(?P<seg>[a-z]s):)?(?P<disp>-?0x[0-9a-f]+|-?[0-9]+)?"
                 r"(?:\((?P<base>%[a-z0-9]+)?(?:,(?P<index>%[a-z0-9]+)(?:,(?P<scale>[1248]))?)?\))?$")


def operands(text):
    """The operands of an AT&T instruction, split at commas outside ()."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def reg(name):
    return int(gdb.parse_and_eval("$" + name[1:])) & (2**64 - 1)


def write_of(insn):
    """(class, atomic, address) of the memory write insn makes, or None."""
    asm = insn["asm"].split("#")[0].strip()
    words = asm.split(None, 1)
    atomic = False
    while words and words[0] in ("lock", "rep", "repz", "repnz", "notrack", "bnd"):
        atomic |= words[0] == "lock"
        words = words[1].split(None, 1) if len(words) > 1 else []
    if not words or not WRITERS.match(words[0]):
        return None
    mnem = words[0]
    atomic |= mnem.startswith("xchg")
    if mnem.startswith(("push", "call")):
        return ("own stack", False, reg("%rsp"))
    if mnem.startswith(("stos", "movs")):
        addr = reg("%rdi")
    else:
        ops = operands(words[1]) if len(words) > 1 else []
        if not ops:
            return None
        m = MEM.match(ops[-1])
        if not m or ops[-1].startswith(("%", "$")) and not m.group("seg"):
            return None
        if m.group("seg") == "gs":
            return ("this CPU's per-CPU data", atomic, 0)
        if "#" in insn["asm"]:      # rip-relative: gdb gives the address
            addr = int(insn["asm"].split("#")[1].split()[0], 16)
        else:
            addr = int(m.group("disp") or "0", 0) & (2**64 - 1)
            if m.group("base"):
                addr += reg(m.group("base"))
            if m.group("index"):
                addr += reg(m.group("index")) * int(m.group("scale") or 1)
            addr &= 2**64 - 1
    return (where(addr), atomic, addr)


def current_task():
    """(start, end) of the task_struct of the task being traced."""
    task = int(gdb.parse_and_eval("*(unsigned long *)($gs_base + (unsigned long)&current_task)"))
    return task, task + int(gdb.parse_and_eval("*(int *)&arch_task_struct_size"))


def where(addr):
    """Where a write lands; the block's own memory is told apart later."""
    sp = reg("%rsp")
    if sp - THREAD_SIZE <= addr < sp + THREAD_SIZE:
        return "own stack"
    if task[0] <= addr < task[1]:
        return "own task_struct"
    for (lo, hi), name in ((VMEMMAP, "struct pages"),
                           (DIRECT_MAP, "direct map"),
                           (VMALLOC, "vmalloc space"),
                           (MODULES, "module data"),
                           (KERNEL, "kernel data")):
        if lo <= addr < hi:
            return name
    return "elsewhere"


PAGE_SIZE = 4096
STRUCT_PAGE = 64
SLAB_MAX = 8 * PAGE_SIZE    # SLUB's largest slab for small objects
OBJ_EXTS = 0x38             # struct slab's obj_exts, page->memcg_data's place
SLAB_WINDOW = 1 << 22       # mm/slab.h's 2^SLAB_MAX_SHIFT


def read_u64(addr):
    return int(gdb.parse_and_eval("*(unsigned long *)%#x" % addr)) & (2**64 - 1)


def block_ranges(ret):
    """The memory of the block the iteration allocated, whose address the
    allocation returned: a slab object's slab, its struct pages and its
    vector; a page and its struct page; a vmalloc area."""
    ranges = []
    if DIRECT_MAP[0] <= ret < DIRECT_MAP[1]:
        slab = ret & ~(SLAB_MAX - 1)
        pages = VMEMMAP[0] + (slab - DIRECT_MAP[0]) // PAGE_SIZE * STRUCT_PAGE
        ranges += [(slab, slab + SLAB_MAX), (pages, pages + 8 * STRUCT_PAGE)]
        head = VMEMMAP[0] + (ret - DIRECT_MAP[0]) // PAGE_SIZE * STRUCT_PAGE
        compound = read_u64(head + 8)
        if compound & 1:
            head = compound - 1
        # The vector's address less a bias (mm/slab.h, slab_obj_ext()):
        # the entry is the word plus the object's index in its window of
        # SLAB_WINDOW bytes times the entry size, at most 16 bytes for an
        # object of at least 8.
        vector = read_u64(head + OBJ_EXTS) & ~0xf
        if DIRECT_MAP[0] <= vector < DIRECT_MAP[1]:
            ranges.append((vector, vector + 2 * (ret & (SLAB_WINDOW - 1)) + 16))
    elif VMEMMAP[0] <= ret < VMEMMAP[1]:
        mem = DIRECT_MAP[0] + (ret - VMEMMAP[0]) // STRUCT_PAGE * PAGE_SIZE
        ranges += [(ret, ret + 4 * STRUCT_PAGE), (mem, mem + 4 * PAGE_SIZE)]
    elif VMALLOC[0] <= ret < VMALLOC[1]:
        ranges.append((ret, ret + 4 * PAGE_SIZE))
    return ranges


OWN = ("this CPU's per-CPU data", "own stack", "own task_struct")


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("file " + kdir + "/vmlinux", to_string=True)
gdb.execute("target remote " + os.environ["GDB_PORT"], to_string=True)
stop = gdb.Breakpoint("*%#x" % entry, internal=True)
# Called from the module: its return address is past the kernel image.
stop.condition = "*(unsigned long *)$rsp > %#x" % end_of_image
stop.ignore_count = skip - 1
gdb.execute("continue", to_string=True)
if pc_now() != entry:
    raise gdb.GdbError("the guest never called %s from a module" % entry_name)
stop.delete()

counts = collections.Counter()
writes = collections.Counter()
atomics = collections.Counter()
want_writes = os.environ.get("WRITES", "1") != "0"
arch = gdb.selected_frame().architecture()
task = current_task() if want_writes else (0, 0)
seen = []       # (class, atomic, address) of each write
ret = None      # what the allocation returned to the module
steps = 0
pc = entry
while True:
    counts[function_of(pc)] += 1
    steps += 1
    if want_writes:
        w = write_of(arch.disassemble(pc)[0])
        if w:
            seen.append(w + (function_of(pc),))
    gdb.execute("stepi", to_string=True)
    prev, pc = pc, pc_now()
    if ret is None and pc > end_of_image and prev <= end_of_image:
        ret = reg("%rax")
    if pc == entry:
        break
    if steps >= limit:
        raise gdb.GdbError("no return to %s within %d instructions" % (entry_name, limit))
block = block_ranges(ret) if want_writes and ret else []
for name, atomic, addr, fn in seen:
    if name not in OWN and any(lo <= addr < hi for lo, hi in block):
        name = "the block: its memory, struct pages, slab vector"
    elif name not in OWN:
        name = "shared: " + name
    writes[name] += 1
    atomics[name] += atomic
# GDB prints every stop on its stdout: the table goes to its own file.
with open(os.environ["OUT"], "w") as out:
    out.write("%d instructions from %s to its next call\n" % (steps, entry_name))
    for name, n in counts.most_common():
        out.write("%7d  %s\n" % (n, name))
    if want_writes:
        out.write("%d writes to memory (atomic ones), by where they land\n"
                  % sum(writes.values()))
        for name, n in writes.most_common():
            out.write("%7d (%d)  %s\n" % (n, atomics[name], name))
        if os.environ.get("WRITES") == "all":
            out.write("block %s, from %#x\n" % (" ".join("%#x-%#x" % r for r in block), ret or 0))
            for name, atomic, addr, fn in seen:
                out.write("  %#x %s%s (%s)\n" % (addr, name, " atomic" if atomic else "", fn))
        shared = [name for name in writes if name.startswith("shared: ")]
        out.write("%d shared writes (%d atomic)\n"
                  % (sum(writes[n] for n in shared), sum(atomics[n] for n in shared)))
gdb.execute("kill", to_string=True)
