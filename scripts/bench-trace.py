# GDB script of scripts/bench-trace.sh: stop where the bench module calls
# ENTRY for the SKIP-th time, single-step to ENTRY's next call from the
# module (one iteration of the benchmark's loop) and print the
# instructions executed in each function, most first; then every write
# to memory of that iteration by where it lands (WRITES=0: not), and how
# many of them are shared: not this CPU's per-CPU data, its own stack or
# task_struct, nor a block the iteration allocated and freed (a slab
# object, its slab and its vector entry; pages and their struct pages; a
# vmalloc area and the struct pages behind it).  x86_64 and arm64
# (ARCH), 4 KiB pages, no KASLR.
import bisect
import collections
import os
import re

import gdb

kdir = os.environ["KDIR"]
entry_name = os.environ["ENTRY"]
skip = int(os.environ.get("SKIP", "100"))
limit = int(os.environ.get("LIMIT", "1000000"))
ARM64 = os.environ.get("ARCH", "x86_64") == "arm64"
MASK = 2**64 - 1

text = []
symbols = {}
with open(kdir + "/System.map") as system_map:
    for line in system_map:
        addr, kind, name = line.split()[:3]
        if kind in "tTwW":
            text.append((int(addr, 16), name))
        symbols[name] = int(addr, 16)
text.sort()
starts = [addr for addr, _ in text]
if entry_name not in symbols or "_end" not in symbols:
    raise gdb.GdbError("no %s or _end in %s/System.map" % (entry_name, kdir))
entry = symbols[entry_name]
IMAGE = (symbols["_text"], symbols["_end"])

config = {}
with open(kdir + "/.config") as config_file:
    for line in config_file:
        if line.startswith("CONFIG_") and "=" in line:
            key, value = line.strip().split("=", 1)
            config[key] = value


def in_image(pc):
    return IMAGE[0] <= pc < IMAGE[1]


def function_of(pc):
    if not in_image(pc):
        return "[module]"
    i = bisect.bisect_right(starts, pc) - 1
    return text[i][1] if i >= 0 else hex(pc)


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & MASK


def read_u64(addr):
    return int(gdb.parse_and_eval("*(unsigned long *)%#x" % addr)) & MASK


def read_u32(addr):
    return read_u64(addr) & 0xFFFFFFFF


PAGE_SIZE = 4096
STRUCT_PAGE = 64
THREAD_SIZE = 16384
if ARM64:
    # arch/arm64/include/asm/memory.h: the linear map in the lower half of
    # the kernel's space, then 128 MiB of modules, vmalloc space (the
    # kernel image within it), and vmemmap at the top.
    VA = int(config["CONFIG_ARM64_VA_BITS"])
    LEVELS = int(config["CONFIG_PGTABLE_LEVELS"])
    DIRECT_MAP = ((MASK + 1) - (1 << VA), (MASK + 1) - (1 << (VA - 1)))
    MODULES = (DIRECT_MAP[1], DIRECT_MAP[1] + (128 << 20))
    VMEMMAP = ((MASK + 1) - (1 << (VA - 6)), (MASK + 1) - (1 << (VA - 7)))
    VMALLOC = (MODULES[1], VMEMMAP[0] - (256 << 20))
    PAGE_TABLES = symbols["swapper_pg_dir"]
    PTE_HUGE = lambda e: not e & 2             # a block, not a table
    RETURN_VALUE, STACK = "x0", "sp"
    MEMSTART = 0                # memstart_addr, read once connected
else:
    VMEMMAP = (0xFFFFEA0000000000, 0xFFFFEB0000000000)
    DIRECT_MAP = (0xFFFF888000000000, 0xFFFFC88000000000)
    VMALLOC = (0xFFFFC90000000000, 0xFFFFE90000000000)
    MODULES = (0xFFFFFFFFA0000000, 0xFFFFFFFFFF000000)
    LEVELS = 4
    PAGE_TABLES = symbols["init_top_pgt"]
    PTE_HUGE = lambda e: e & 0x80
    RETURN_VALUE, STACK = "rax", "rsp"
    MEMSTART = 0
PTE_ADDR = 0x0000FFFFFFFFF000


def phys_to_virt(phys):
    return DIRECT_MAP[0] + phys - MEMSTART


def struct_page(virt):
    """The struct page of a direct map address (vmemmap)."""
    return VMEMMAP[0] + (virt - DIRECT_MAP[0]) // PAGE_SIZE * STRUCT_PAGE


def page_memory(page):
    return DIRECT_MAP[0] + (page - VMEMMAP[0]) // STRUCT_PAGE * PAGE_SIZE


# ---- x86_64: writes, per-CPU data by %gs ------------------------------
X86_WRITERS = re.compile(r"^(mov[bwlq]?|add|adc|sub|sbb|and|or|xor|inc|dec|neg|not|xadd|"
                         r"cmpxchg(8b|16b)?|xchg|set[a-z]+|bt[src]|sh[lr]|sa[lr]|ro[lr]|"
                         r"stos|movs|push|call)[bwlq]?$")
X86_MEM = re.compile(r"^(?:%(?P<seg>[a-z]s):)?(?P<disp>-?0x[0-9a-f]+|-?[0-9]+)?"
                     r"(?:\((?P<base>%[a-z0-9]+)?(?:,(?P<index>%[a-z0-9]+)(?:,(?P<scale>[1248]))?)?\))?$")


def x86_operands(asm):
    """The operands of an AT&T instruction, split at commas outside ()."""
    out, depth, cur = [], 0, ""
    for ch in asm:
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


def x86_write(insn):
    """(address or "percpu", atomic) of the write insn makes, or None."""
    asm = insn["asm"].split("#")[0].strip()
    words = asm.split(None, 1)
    atomic = False
    while words and words[0] in ("lock", "rep", "repz", "repnz", "notrack", "bnd"):
        atomic |= words[0] == "lock"
        words = words[1].split(None, 1) if len(words) > 1 else []
    if not words or not X86_WRITERS.match(words[0]):
        return None
    mnem = words[0]
    atomic |= mnem.startswith("xchg")
    if mnem.startswith(("push", "call")):
        return reg("rsp") - 8, False
    if mnem.startswith(("stos", "movs")):
        return reg("rdi"), atomic
    ops = x86_operands(words[1]) if len(words) > 1 else []
    m = X86_MEM.match(ops[-1]) if ops else None
    if not m or ops[-1].startswith(("%", "$")) and not m.group("seg"):
        return None
    if m.group("seg") == "gs":
        return "percpu", atomic
    if "#" in insn["asm"]:      # rip-relative: gdb gives the address
        return int(insn["asm"].split("#")[1].split()[0], 16), atomic
    addr = int(m.group("disp") or "0", 0)
    if m.group("base"):
        addr += reg(m.group("base")[1:])
    if m.group("index"):
        addr += reg(m.group("index")[1:]) * int(m.group("scale") or 1)
    return addr & MASK, atomic


# ---- arm64: stores, exclusive stores and LSE atomics ------------------
ARM_STORE = re.compile(r"^(st[a-z0-9]*|ld(add|clr|eor|set|smax|smin|umax|umin)[a-z]*|"
                       r"swp[a-z]*|cas[a-z]*)$")
ARM_ATOMIC = re.compile(r"^(st(l?x|add|clr|eor|set|smax|smin|umax|umin)|ld|swp|cas)")
ARM_LOAD_EXCLUSIVE = re.compile(r"^lda?x[rp][bh]?$")
ARM_MEM = re.compile(r"\[(?P<base>\w+)(?:, *(?P<off>[^\]]+))?\](?P<pre>!)?")


def arm_value(operand):
    """The value of a register or #immediate offset, with its extension."""
    parts = operand.replace(",", " ").split()
    first = parts[0]
    if first.startswith("#"):
        return int(first[1:], 0)
    value = 0 if first in ("xzr", "wzr") else reg("x" + first[1:])
    if first.startswith("w"):
        value &= 0xFFFFFFFF
        if len(parts) > 1 and parts[1].startswith("sxtw") and value >> 31:
            value -= 1 << 32
    if len(parts) > 2 and parts[-1].startswith("#"):
        value <<= int(parts[-1][1:], 0)
    return value


def arm64_write(insn):
    asm = insn["asm"].split("//")[0].strip()
    words = asm.split(None, 1)
    if len(words) < 2:
        return None
    mnem = words[0]
    if mnem == "dc" and words[1].startswith("zva"):
        return reg("x" + words[1].split(",")[1].strip()[1:]) & ~63, False
    if not ARM_STORE.match(mnem) or mnem.startswith("stg"):
        return None
    m = ARM_MEM.search(words[1])
    if not m:
        return None
    base = reg("sp") if m.group("base") == "sp" else reg("x" + m.group("base")[1:])
    post = words[1][m.end():].strip().startswith(",")
    offset = arm_value(m.group("off")) if m.group("off") and not post else 0
    return (base + offset) & MASK, bool(ARM_ATOMIC.match(mnem))


# ---- where a write lands ---------------------------------------------
def percpu_unit():
    """arm64: this CPU's unit of the first per-CPU chunk."""
    if not ARM64:
        return (0, 0)
    start = read_u64(symbols["__per_cpu_offset"]) + symbols["__per_cpu_start"]
    return start & MASK, (start + read_u32(symbols["pcpu_unit_size"])) & MASK


def task_range(task):
    """A task_struct by its slab cache's object size."""
    if not DIRECT_MAP[0] <= task < DIRECT_MAP[1]:
        return task, task + 1
    head = slab_head(task)
    cache = read_u64(head + SLAB_CACHE)
    return task, task + read_u32(cache + CACHE_SIZE)


def where(addr):
    """Where a write lands; blocks are told apart later."""
    if addr == "percpu" or percpu[0] <= addr < percpu[1]:
        return "this CPU's per-CPU data"
    sp = reg(STACK)
    if sp - THREAD_SIZE <= addr < sp + THREAD_SIZE:
        return "own stack"
    if task[0] <= addr < task[1]:
        return "own task_struct"
    for (lo, hi), name in ((VMEMMAP, "struct pages"),
                           (DIRECT_MAP, "direct map"),
                           (IMAGE, "kernel data"),
                           (VMALLOC, "vmalloc space"),
                           (MODULES, "module data")):
        if lo <= addr < hi:
            return name
    return "kernel data" if addr >= 0xFFFFFFFF80000000 and not ARM64 else "elsewhere"


# ---- the blocks the iteration allocated -------------------------------
PG_HEAD = 1 << 16
# struct slab (SLUB) and struct kmem_cache fields, 6.1 with the series
SLAB_CACHE, OBJ_EXTS, CACHE_SIZE = 0x18, 0x38, 0x18
SLAB_WINDOW = 1 << 22       # mm/slab.h's 2^SLAB_MAX_SHIFT
# mm/slab.h's struct slabobj_ext: memcg's objcg pointer, then a tag
# reference of 4 bytes on x86_64, a pointer elsewhere
MEMCG = config.get("CONFIG_MEMCG_KMEM") == "y"
PROF = config.get("CONFIG_MEM_ALLOC_PROFILING") == "y"
ENTRY_SIZE = 16 if MEMCG and PROF else 8 if MEMCG or PROF and ARM64 else 4 if PROF else 0


def page_order(head):
    """The order of the block whose head struct page is head."""
    if not read_u64(head) & PG_HEAD:
        return 0
    return (read_u64(head + STRUCT_PAGE + 16) >> 8) & 0xFF    # compound_order


def slab_head(obj):
    head = struct_page(obj)
    compound = read_u64(head + 8)
    return compound - 1 if compound & 1 else head


def slab_ranges(obj):
    """A slab object's slab, its struct pages, and its own vector entry
    (mm/slab.h, slab_obj_ext(): the obj_exts word less the vector flag,
    plus the object's index in its window of SLAB_WINDOW bytes times the
    entry size)."""
    head = slab_head(obj)
    npages = 1 << page_order(head)
    base = page_memory(head)
    ranges = [(base, base + npages * PAGE_SIZE),
              (head, head + npages * STRUCT_PAGE)]
    word = read_u64(head + OBJ_EXTS)
    cache = read_u64(head + SLAB_CACHE)
    if word & 1 and DIRECT_MAP[0] <= word < DIRECT_MAP[1] and cache and ENTRY_SIZE:
        size = read_u32(cache + CACHE_SIZE)
        entry = (word & ~1) + (obj & (SLAB_WINDOW - 1)) // size * ENTRY_SIZE
        ranges.append((entry, entry + ENTRY_SIZE))
    return ranges


def pte_of(va):
    """va's last-level page table entry in the kernel's tables, or 0."""
    table = PAGE_TABLES
    for level in range(LEVELS - 1, -1, -1):
        shift = 12 + 9 * level
        e = read_u64(table + ((va >> shift) & 511) * 8)
        if not e & 1:
            return 0
        if level == 0 or PTE_HUGE(e):
            return e
        table = phys_to_virt(e & PTE_ADDR)
    return 0


def vmalloc_ranges(area):
    """A vmalloc area as mapped (up to its guard page) and the struct
    pages of the pages behind it."""
    ranges, va = [], area
    while va < area + 1024 * PAGE_SIZE:
        e = pte_of(va)
        if not e:
            break
        page = struct_page(phys_to_virt(e & PTE_ADDR))
        ranges.append((page, page + STRUCT_PAGE))
        va += PAGE_SIZE
    return ranges + [(area, va)]


def block_ranges(ret):
    """The memory of a block the iteration allocated, by the address the
    allocator returned: a slab object, pages or a vmalloc area."""
    if DIRECT_MAP[0] <= ret < DIRECT_MAP[1]:
        return slab_ranges(ret)
    if VMEMMAP[0] <= ret < VMEMMAP[1]:
        n = 1 << page_order(ret)
        mem = page_memory(ret)
        return [(ret, ret + n * STRUCT_PAGE), (mem, mem + n * PAGE_SIZE)]
    if VMALLOC[0] <= ret < VMALLOC[1] and not in_image(ret):
        return vmalloc_ranges(ret)
    return []


# Allocators whose result is a block of the iteration: the one the module
# called and those it calls in turn (a vmalloc area's vmap_area, vm_struct
# and page array).
ALLOCATOR = re.compile(r"^_*(kmem_cache_alloc|kmalloc|alloc_pages|vmalloc|"
                       r"alloc_vmap_area|get_vm_area|kvmalloc|slab_alloc)")
OWN = ("this CPU's per-CPU data", "own stack", "own task_struct")


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set architecture " + ("aarch64" if ARM64 else "i386:x86-64"), to_string=True)
gdb.execute("file " + kdir + "/vmlinux", to_string=True)
gdb.execute("target remote " + os.environ["GDB_PORT"], to_string=True)
# Armed once the bench module loads: a conditional breakpoint on a
# function the kernel calls thousands of times while it boots makes gdb
# evaluate the condition at each call, which on arm64 stalls the boot.
loaded = gdb.Breakpoint("*%#x" % symbols["do_init_module"], internal=True)
gdb.execute("continue", to_string=True)
loaded.delete()
stop = gdb.Breakpoint("*%#x" % entry, internal=True)
# Called from the module: its return address is outside the kernel image.
return_address = "$x30" if ARM64 else "*(unsigned long *)$rsp"
stop.condition = "%s < %#x || %s >= %#x" % (return_address, IMAGE[0], return_address, IMAGE[1])
stop.ignore_count = skip - 1
gdb.execute("continue", to_string=True)
if reg("pc") != entry:
    raise gdb.GdbError("the guest never called %s from a module" % entry_name)
stop.delete()
if ARM64:
    MEMSTART = read_u64(symbols["memstart_addr"])

counts = collections.Counter()
writes = collections.Counter()
atomics = collections.Counter()
want_writes = os.environ.get("WRITES", "1") != "0"
arch = gdb.selected_frame().architecture()
write_of = arm64_write if ARM64 else x86_write
percpu = percpu_unit() if want_writes else (0, 0)
task = (0, 0)
if want_writes and not ARM64:
    task = task_range(read_u64(reg("gs_base") + symbols["current_task"]))
seen = []       # (class, atomic, address, function) of each write
ret = None      # what the allocation returned to the module
block = []      # the memory of the blocks the allocators returned
steps = 0
scheduled = 0   # times the pair gave its CPU up
pc = entry
while True:
    fn = function_of(pc)
    if fn == "__schedule":
        # The pair gives its CPU up (a cond_resched() with a reschedule
        # pending): run the other tasks untraced until it gets it back.
        if ARM64:
            back, sp_back = reg("x30"), reg("sp")
        else:
            back, sp_back = read_u64(reg("rsp")), reg("rsp") + 8
        resume = gdb.Breakpoint("*%#x" % back, internal=True)
        resume.condition = "$sp == %#x" % sp_back
        gdb.execute("continue", to_string=True)
        resume.delete()
        pc = reg("pc")
        scheduled += 1
        continue
    counts[fn] += 1
    steps += 1
    returns = current = None
    if want_writes:
        insn = arch.disassemble(pc)[0]
        asm = insn["asm"].split()
        w = write_of(insn)
        if w:
            seen.append((where(w[0]), w[1], w[0] if w[0] != "percpu" else 0, fn))
        returns = (asm[0] == "ret" or asm[-1] == "<__x86_return_thunk>") and \
            ALLOCATOR.match(fn)
        # arm64 keeps current in sp_el0
        if ARM64 and task == (0, 0) and asm[0] == "mrs" and asm[-1] == "sp_el0":
            current = "x" + asm[1].rstrip(",")[1:]
    gdb.execute("stepi", to_string=True)
    prev, pc = pc, reg("pc")
    # QEMU steps over a load-exclusive and what follows it up to the
    # store-exclusive in one go: count them, and the store if it is what
    # the step ended after.
    if ARM64 and want_writes and ARM_LOAD_EXCLUSIVE.match(asm[0]) and prev + 4 < pc <= prev + 64:
        counts[fn] += (pc - prev) // 4 - 1
        steps += (pc - prev) // 4 - 1
        last = arch.disassemble(pc - 4)[0]
        w = write_of(last) if ARM_ATOMIC.match(last["asm"].split()[0]) else None
        if w:
            seen.append((where(w[0]), w[1], w[0], fn))
    if current:
        task = task_range(reg(current))
    if returns and reg(RETURN_VALUE):
        block += block_ranges(reg(RETURN_VALUE))
    if ret is None and not in_image(pc) and in_image(prev):
        ret = reg(RETURN_VALUE)
    if pc == entry:
        break
    if steps >= limit:
        raise gdb.GdbError("no return to %s within %d instructions" % (entry_name, limit))
for name, atomic, addr, fn in seen:
    if name not in OWN and any(lo <= addr < hi for lo, hi in block):
        name = "the block: its memory, struct pages, slab vector"
    elif name not in OWN:
        name = "shared: " + name
    writes[name] += 1
    atomics[name] += atomic
# GDB prints every stop on its stdout: the table goes to its own file.
with open(os.environ["OUT"], "w") as out:
    out.write("%d instructions from %s to its next call%s\n"
              % (steps, entry_name, ", giving the CPU up %d times (not traced)" % scheduled
                 if scheduled else ""))
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
