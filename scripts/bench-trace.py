# GDB script of scripts/bench-trace.sh: stop where the bench module calls
# ENTRY for the SKIP-th time, single-step to ENTRY's next call from the
# module (one iteration of the benchmark's loop) and print the
# instructions executed in each function, most first; then every write
# to memory of that iteration by where it lands (WRITES=0: not).
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
    """(class, atomic) of the memory write insn makes, or None."""
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
        return ("own stack", False)
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
            return ("this CPU's per-CPU data", atomic)
        if "#" in insn["asm"]:      # rip-relative: gdb gives the address
            addr = int(insn["asm"].split("#")[1].split()[0], 16)
        else:
            addr = int(m.group("disp") or "0", 0) & (2**64 - 1)
            if m.group("base"):
                addr += reg(m.group("base"))
            if m.group("index"):
                addr += reg(m.group("index")) * int(m.group("scale") or 1)
            addr &= 2**64 - 1
    return (where(addr), atomic)


def current_task():
    """(start, end) of the task_struct of the task being traced."""
    task = int(gdb.parse_and_eval("*(unsigned long *)($gs_base + (unsigned long)&current_task)"))
    return task, task + int(gdb.parse_and_eval("*(int *)&arch_task_struct_size"))


def where(addr):
    sp = reg("%rsp")
    if sp - THREAD_SIZE <= addr < sp + THREAD_SIZE:
        return "own stack"
    if task[0] <= addr < task[1]:
        return "own task_struct"
    for (lo, hi), name in ((VMEMMAP, "struct page/slab of the block"),
                           (DIRECT_MAP, "direct map: objects, pages, page_ext, allocator data"),
                           (VMALLOC, "vmalloc space"),
                           (MODULES, "module data"),
                           (KERNEL, "kernel data")):
        if lo <= addr < hi:
            return name
    return "elsewhere"


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
steps = 0
pc = entry
while True:
    counts[function_of(pc)] += 1
    steps += 1
    if want_writes:
        w = write_of(arch.disassemble(pc)[0])
        if w:
            writes[w[0]] += 1
            atomics[w[0]] += w[1]
    gdb.execute("stepi", to_string=True)
    pc = pc_now()
    if pc == entry:
        break
    if steps >= limit:
        raise gdb.GdbError("no return to %s within %d instructions" % (entry_name, limit))
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
gdb.execute("kill", to_string=True)
