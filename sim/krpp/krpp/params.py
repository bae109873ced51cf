"""The paper's machine and workload parameters, and the assumptions it leaves open.

Everything numeric here is copied from Tsunedomi et al., "A Message-Pool-Based Parallel
Operating System for the Kyushu University Reconfigurable Parallel Processor -- Parallel
Creation of Multiple Threads" (J. Inf. Proc. 14(4), 1991), section 3.4.2 and 4.2:

    T_M = 767  message construction, once, by the issuing processor
    T_A = 260  message access, serialized (the message queue is one memory module)
    T_B = 768  pick a free THCB + enqueue it, mutually exclusive
    T_C =  78  fetch 4 bytes of shared data from the single memory module, serialized
    T_S =  69  store 4 bytes into the THCB/stack, parallel (THCBs in distinct modules)
    T_L =  70  chunk scheme: 4 bytes from the cached local copy + store, parallel
    common information 340 bytes, private 116 bytes (456 in all), 4 bytes per C/S pair
    cache : remote data-access time = 1 : 27 (already folded into the stage times above)

Nothing here is fitted: the only numbers not printed in the paper are the *choices*
in `Model` (documented one by one below and in docs/reproductions/spawn.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class StageTimes:
    """Clock counts of the stages (paper, section 3.4.2 and 4.2)."""
    M: float = 767
    A: float = 260
    B: float = 768
    C: float = 78
    S: float = 69
    L: float = 70

    def __post_init__(self) -> None:
        for k in ("M", "A", "B", "C", "S", "L"):
            if getattr(self, k) < 0:
                raise ValueError(f"stage time {k} must be >= 0")


@dataclass(frozen=True)
class Layout:
    """How much data one thread needs, in 4-byte words (one C/S pair per word)."""
    common_bytes: int = 340
    private_bytes: int = 116
    word_bytes: int = 4

    def _words(self, nbytes: int) -> int:
        if nbytes % self.word_bytes:
            raise ValueError(f"{nbytes} bytes is not a whole number of {self.word_bytes}-byte words")
        return nbytes // self.word_bytes

    @property
    def pairs_common(self) -> int:      # 85 for the paper
        return self._words(self.common_bytes)

    @property
    def pairs_private(self) -> int:     # 29 for the paper
        return self._words(self.private_bytes)

    @property
    def pairs_total(self) -> int:       # 114 for the paper
        return self.pairs_common + self.pairs_private


# How a C/S pair costs when the shared data is in the private cache (serial schemes).
WARM_L = "L"          # the paper's own cached pair, T_L (default; see Model.serial_warm_pair)
WARM_RATIO = "ratio"  # T_C / cache_remote_ratio + T_S: the whole C stage sped up by 27x
# When the idle processors start in the template schemes (Model.creators_start).
START_AFTER_M = "M"
START_AFTER_TEMPLATE = "template"


@dataclass(frozen=True)
class Model:
    """Stage times, data layout and the open assumptions of one simulation.

    issuer_creates (default False): the processor issuing the system call only runs M (and,
        in the template schemes, builds the template); `processors` counts the idle
        processors that create threads.  Reason: the paper's three flow diagrams (Figs. 2, 5,
        7) draw "the processor issuing the system call" and "idle processors" as separate
        columns, and every simulation description gives the issuer only M (and the template)
        while "idle processors are awoken after the execution of the stage M".  True makes
        the issuer join the creators after its own work (a sensitivity variant).
    serial_warm_pair (default "L"): the serial and serial-template schemes keep the shared
        data in the private cache after its first use; the paper gives no stage time for
        such a cached pair except T_L, which is exactly "4 bytes from the cache + store",
        so a warm pair costs T_L.  "ratio" uses T_C/27 + T_S instead (sensitivity only).
    cold_first_serial (default True): in the serial schemes the first thread (and the
        template) find the shared data in memory, not in the cache ("shared data accesses
        for the first thread-creation cause the cache-miss hits", section 4.4.1), so they
        run real C/S pairs; every later thread uses warm pairs.

    Three further readings change the template schemes and the baselines at small thread
    counts (an independent implementation of the stage model differed from ours by up to
    53% at <= 50 threads through these alone); each is a reading of the paper's words:
    creators_start (default "M"): when the idle processors start creating in the template
        schemes.  "M": "Idle processors are awoken after the execution of the stage M"
        (4.1, parallel template), so they contend with the issuer's template for C.
        "template": "multiple threads are created in parallel, where only the private data
        is produced, after a single processor creates the template" (4.1): they start once
        the template is built.  No effect on simple and chunk.
    count_futile (default False): whether the call completes when the last thread is
        created (and the template built), or only when every creator has also made its
        final, empty message access ("An idle processor examines the corresponding message
        queue and creates a thread each time of the message access until all threads are
        created", 3.3.2: it learns that all are created only by a last access).
    serial_template_cold_first (default True): whether the serial template scheme's first
        thread runs cold C/S pairs after the template ("although shared data accesses for
        the first thread-creation cause the cache-miss hits, the consecutive accesses are
        performed to the private cache", 4.4.1) or warm ones (the template just built by
        the same processor brought the shared data into its cache).  Only with
        cold_first_serial.
    """
    times: StageTimes = field(default_factory=StageTimes)
    layout: Layout = field(default_factory=Layout)
    issuer_creates: bool = False
    serial_warm_pair: str = WARM_L
    cold_first_serial: bool = True
    cache_remote_ratio: float = 27
    creators_start: str = START_AFTER_M
    count_futile: bool = False
    serial_template_cold_first: bool = True

    def __post_init__(self) -> None:
        if self.serial_warm_pair not in (WARM_L, WARM_RATIO):
            raise ValueError(f"serial_warm_pair must be {WARM_L!r} or {WARM_RATIO!r}")
        if self.creators_start not in (START_AFTER_M, START_AFTER_TEMPLATE):
            raise ValueError(f"creators_start must be {START_AFTER_M!r} or {START_AFTER_TEMPLATE!r}")
        if self.cache_remote_ratio <= 0:
            raise ValueError("cache_remote_ratio must be > 0")

    @property
    def warm_pair(self) -> float:
        """Cost of one C/S pair served from the private cache (serial schemes)."""
        t = self.times
        if self.serial_warm_pair == WARM_L:
            return t.L
        return t.C / self.cache_remote_ratio + t.S

    def with_(self, **kw) -> "Model":
        return replace(self, **kw)


PAPER = Model()


def unit_model(B: float = 1, common_bytes: int = 4, private_bytes: int = 4, **kw) -> Model:
    """The setting of the paper's worked examples (Figs. 3, 6, 8, 9): every stage takes one
    clock except B where stated; D = 8 bytes is D_C = D_P = 4 (one common and one private
    4-byte word), so the simple and chunk schemes run 2 C/S pairs per thread as in Figs. 3, 8."""
    return Model(times=StageTimes(M=1, A=1, B=B, C=1, S=1, L=1),
                 layout=Layout(common_bytes=common_bytes, private_bytes=private_bytes), **kw)
