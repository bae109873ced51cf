"""ito.py: gdb commands for ito's user-level threads (ULTs).

Load it in gdb with `source <prefix>/share/ito/gdb/ito.py` (or tools/gdb/ito.py in the
source tree), then:

  ito ults            one line per ULT: id, name, state, worker, what it waits on
                      (the same columns as ito_dump_threads, read from memory: nothing
                      runs in the program, so it also works on a core file)
  ito workers         one line per worker: index, kernel thread id, what it runs
  ito bt ID|NAME [N]  the backtrace of a ULT that is not running (parked, ready or
                      finished), at most N frames; for a running ULT, select the kernel
                      thread of its worker (`ito workers` shows its tid) and use `bt`
  ito io              per worker: its sleep state, calls and inbox, earliest timer, and
                      its split-phase requests (counts and every live request: op, fd,
                      state, cancellation): what a ULT parked in a wrapper waits for

The program must be built with debug information for libito (-g: the default
RelWithDebInfo and Debug builds). How it finds the ULTs (see src/core/thread.c and
src/core/dump.c): the main ULT is itoi_rt.main_ult; every descriptor lives in the handle
arena (src/core/arena.c: `itoi_arena`, chunks of 64 KiB whose kind in `itoi_arena_map`
is 2 for a slab of ULT descriptors, as many as fit in the chunk); a descriptor with no function,
or in state 3 (reaped), is free.

How `ito bt` shows a suspended ULT: its saved stack pointer (itoi_ult_t.sp) points at
the resume address pushed by the switch that suspended it, and the layout above it
depends on that switch (the comments at the top of src/arch/x86_64/*.S):
  itoa_switch_abi     resume, MXCSR/x87 CW, r15, r14, r13, r12, rbx, rbp, return address
  itoa_switch_min,
  ito_coop_yield      resume, rbp, return address
  itoa_switch_full    resume, pointer to the GPR block (r15 ... rax, rflags), then the
                      return address after the block
  itoa_trampoline     a ULT that has not run yet (no frames)
The command loads these registers into the selected thread as if the switch had just
returned, prints `bt`, and puts the thread's own registers back (a live process only:
the registers of a core file cannot be written).
"""
from __future__ import annotations

import gdb

CHUNK_SHIFT = 16   # ITOI_ARENA_CHUNK_SHIFT (src/core/itoi.h)
KIND_ULT = 2       # ITOI_ARENA_ULT
STATE_DONE = 1     # ITOI_DONE
STATE_REAPED = 3   # ITOI_REAPED (thread.c): a free descriptor
F_MAIN = 1         # ITOI_F_MAIN
STATE_KIND_MASK = ((1 << 48) - 1) & ~(4 | 8)  # the kind; the generation above, two flags (MEMBER, INLINE) in bits 2-3 (itoi_st)


def _u64(addr: int) -> int:
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


NO_DEBUG_INFO = ("ito: libito has no debug information (a Release build?): build it with -g, "
                 "e.g. -DCMAKE_BUILD_TYPE=RelWithDebInfo (the default)")


def _runtime():
    try:
        rt = gdb.parse_and_eval("itoi_rt")
        rt["state"]
    except gdb.error as e:  # "'itoi_rt' has unknown type", "No symbol ..."
        raise gdb.GdbError(f"{NO_DEBUG_INFO} ({e})") from None
    if int(rt["state"]) == 0:
        raise gdb.GdbError("ito: the runtime is not running (itoi_rt.state is 0)")
    return rt


def _static(name: str):
    sym = gdb.lookup_static_symbol(name)
    if sym is None:
        raise gdb.GdbError(f"{NO_DEBUG_INFO} (no static symbol {name!r})")
    return sym.value()


def _descriptors():
    """Every ULT descriptor (an itoi_ult_t *), main first; free ones included."""
    rt = _runtime()
    main = int(rt["main_ult"])
    if main != 0:
        yield rt["main_ult"]
    ult_t = gdb.lookup_type("itoi_ult_t")
    per_chunk = (1 << CHUNK_SHIFT) // ult_t.sizeof
    arena, amap = gdb.parse_and_eval("itoi_arena"), gdb.parse_and_eval("itoi_arena_map")
    base, nchunks = int(arena["base"]), int(arena["used"]) >> CHUNK_SHIFT
    for i in range(nchunks):
        if int(amap[i]) != KIND_ULT:
            continue
        first = gdb.Value(base + (i << CHUNK_SHIFT)).cast(ult_t.pointer())
        for k in range(per_chunk):
            if int(first + k) != main:
                yield first + k


def _running_on(rt, t) -> int:
    for i in range(int(rt["nworkers"])):
        if int(rt["workers"][i]["cur"]) == int(t):
            return i
    return -1


class Ult:
    """What `ito ults` prints for one live descriptor."""

    def __init__(self, rt, t):
        self.ptr = t
        u = t.dereference()
        self.id = int(u["id"])
        self.name = u["name"].string() or f"ult-{self.id}"
        bound = int(u["bound"])
        self.waits = "-"
        state = int(u["state"]) & STATE_KIND_MASK
        if state == STATE_DONE:
            self.state, self.worker = "finished", -1
        elif (w := _running_on(rt, t)) >= 0:
            self.state, self.worker = "running", w
        elif int(u["blocked_on"]) != 0:
            self.state, self.worker = "blocked", bound
            self.waits = u["blocked_on"].string()
        else:
            self.state, self.worker = "ready", bound
        self.sp = int(u["sp"])
        self.has_stack = int(u["stack"]) != 0


def live_ults() -> list[Ult]:
    rt = _runtime()
    out = []
    for t in _descriptors():
        u = t.dereference()
        if int(u["state"]) & STATE_KIND_MASK == STATE_REAPED:
            continue
        if int(u["fn"]) == 0 and not int(u["flags"]) & F_MAIN:
            continue
        out.append(Ult(rt, t))
    return out


def _function_at(addr: int) -> str:
    """The name of the function containing addr, from the symbol table."""
    text = gdb.execute(f"info symbol {addr:#x}", to_string=True).strip()
    if text.startswith("No symbol"):
        return "?"
    return text.split()[0]


def saved_registers(sp: int) -> dict[str, int] | str:
    """The registers of a context suspended at sp, or a reason why there are none."""
    resume = _u64(sp)
    fn = _function_at(resume)
    if fn == "itoa_switch_abi":
        names = ("r15", "r14", "r13", "r12", "rbx", "rbp")
        regs = {n: _u64(sp + 0x10 + 8 * i) for i, n in enumerate(names)}
        regs.update(pc=_u64(sp + 0x40), sp=sp + 0x48)
        return regs
    if fn in ("itoa_switch_min", "ito_coop_yield"):
        return {"rbp": _u64(sp + 0x08), "pc": _u64(sp + 0x10), "sp": sp + 0x18}
    if fn == "itoa_switch_full":
        g = _u64(sp + 0x08)
        names = ("r15", "r14", "r13", "r12", "r11", "r10", "r9", "r8", "rbp", "rdi", "rsi",
                 "rdx", "rcx", "rbx", "rax")
        regs = {n: _u64(g + 8 * i) for i, n in enumerate(names)}
        regs.update(pc=_u64(g + 8 * 16), sp=g + 8 * 17)
        return regs
    if fn == "itoa_trampoline":
        return "it has not started yet"
    return f"unknown resume address {resume:#x} ({fn})"


def _find(key: str) -> Ult:
    ults = live_ults()
    for u in ults:
        if key == u.name or (key.isdigit() and int(key) == u.id):
            return u
    raise gdb.GdbError(f"ito: no ULT with id or name {key!r} (see `ito ults`)")


REGS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "sp", "r8", "r9", "r10", "r11",
        "r12", "r13", "r14", "r15", "pc")


def backtrace(key: str, limit: str = "") -> None:
    u = _find(key)
    if u.state == "running":
        raise gdb.GdbError(f"ito: ULT {u.id} ({u.name}) is running on worker {u.worker}: "
                           "select that worker's thread (`ito workers`) and use `bt`")
    if u.state == "finished":
        regs = "it has finished (its stack is gone)"
    elif not u.has_stack:
        regs = "it has not started yet (no stack)"
    else:
        regs = saved_registers(u.sp)
    if isinstance(regs, str):
        gdb.write(f"ULT {u.id} ({u.name}): {regs}\n")
        return
    gdb.write(f"ULT {u.id} ({u.name}), {u.state}"
              + (f" on {u.waits}" if u.waits != "-" else "") + ":\n")
    gdb.newest_frame().select()
    saved = {r: int(gdb.parse_and_eval(f"${r}")) for r in REGS}
    try:
        for r, v in regs.items():
            gdb.execute(f"set ${r} = {v:#x}", to_string=True)
        gdb.execute(f"bt {limit}".strip())
    finally:
        for r in REGS:
            gdb.execute(f"set ${r} = {saved[r]:#x}", to_string=True)
        gdb.newest_frame().select()


class ItoPrefix(gdb.Command):
    """Commands for ito's user-level threads: ito ults, ito workers, ito bt ID|NAME [N], ito io."""

    def __init__(self):
        super().__init__("ito", gdb.COMMAND_STACK, gdb.COMPLETE_NONE, True)


class ItoUlts(gdb.Command):
    """List ito's ULTs: id, name, state, worker, what it waits on."""

    def __init__(self):
        super().__init__("ito ults", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        ults = live_ults()
        gdb.write(f"  {'id':<10} {'name':<31} {'state':<9} {'worker':<6} waits on\n")
        for u in ults:
            w = str(u.worker) if u.worker >= 0 else "-"
            gdb.write(f"  {u.id:<10} {u.name:<31} {u.state:<9} {w:<6} {u.waits}\n")
        gdb.write(f"{len(ults)} ULT(s)\n")


class ItoWorkers(gdb.Command):
    """List ito's workers: index, kernel thread id, and the ULT it runs."""

    def __init__(self):
        super().__init__("ito workers", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        rt = _runtime()
        for i in range(int(rt["nworkers"])):
            w = rt["workers"][i]
            cur = w["cur"]
            what = f"ULT {int(cur.dereference()['id'])}" if int(cur) else "its scheduler"
            gdb.write(f"worker {i} (tid {int(w['tid'])}): {what}\n")


class ItoBt(gdb.Command):
    """Backtrace of a ULT that is not running: ito bt ID|NAME [N]."""

    def __init__(self):
        super().__init__("ito bt", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if not args or len(args) > 2:
            raise gdb.GdbError("usage: ito bt ID|NAME [N]")
        backtrace(args[0], args[1] if len(args) == 2 else "")


class ItoIo(gdb.Command):
    """Each worker's wake-up state and split-phase requests: ito io.

    Per worker: its sleep state (0 awake, 1 futex, 2 epoll), whether calls or inbox units
    wait for it, its earliest timer; then its common area (src/wsc/area.c): the backend,
    the counts (posted, completed, cancelled, in the kernel, not yet submitted, in the
    bucket) and every live request (op, fd, state, why it was cancelled, whether an
    io_uring cancellation went out, a helper's abandon mark, a waiting ULT). A hang whose
    ULT waits on I/O with its worker asleep is read here: a request in the kernel with no
    cancellation sent, a helper's record never completed, a call not run."""

    def __init__(self):
        super().__init__("ito io", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        rt = _runtime()
        sym = gdb.lookup_static_symbol("areas")
        areas = sym.value() if sym is not None else None
        for i in range(int(rt["nworkers"])):
            w = rt["workers"][i]
            nt = int(w["timer_next"])
            tn = "none" if nt == (1 << 64) - 1 else str(nt)
            gdb.write(f"worker {i}: sleep_state {int(w['sleep_state'])}, calls "
                      f"{'waiting' if int(w['calls']) else 'none'}, inbox {int(w['inbox_n'])}, "
                      f"timer_next {tn}\n")
            if areas is None or int(areas) == 0 or not int(areas[i]["init"]):
                gdb.write("  no common area\n")
                continue
            a = areas[i]
            st = a["st"]
            kind = "sync"
            if int(a["uring"]):
                try:  # (no ring field in a build without liburing)
                    kind = f"io_uring (ring fd {int(a['ring']['ring_fd'])}, eventfd {int(a['efd'])})"
                except gdb.error:
                    kind = "io_uring"
            gdb.write(f"  {kind}: posted {int(st['posted'])}, "
                      f"completed {int(st['completed'])}, cancelled {int(st['cancelled'])}, "
                      f"in kernel {int(a['inflight'])}, unsubmitted {int(a['sq_pending'])}, "
                      f"bucket {int(a['bucket_n'])}, live {int(a['nlive'])}\n")
            head = int(a["live"].address)
            r = a["live"]["lnext"]
            for _ in range(256):
                if int(r) == head or int(r) == 0:
                    break
                gdb.write(f"  request {int(r):#x}: op {int(r['op'])} fd {int(r['fd'])} "
                          f"state {int(r['state'])} why {int(r['why'])} "
                          f"cancel_sent {int(r['cancel_sent'])} abandon {int(r['abandon'])} "
                          f"waiter {'yes' if int(r['wait']) else 'no'}\n")
                r = r["lnext"]


ItoPrefix()
ItoUlts()
ItoWorkers()
ItoBt()
ItoIo()
