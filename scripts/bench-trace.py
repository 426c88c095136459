# GDB script of scripts/bench-trace.sh: stop where the bench module calls
# ENTRY for the SKIP-th time, single-step to ENTRY's next call from the
# module (one iteration of the benchmark's loop) and print the
# instructions executed in each function, most first.
import bisect
import collections
import os

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
steps = 0
pc = entry
while True:
    counts[function_of(pc)] += 1
    steps += 1
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
gdb.execute("kill", to_string=True)
