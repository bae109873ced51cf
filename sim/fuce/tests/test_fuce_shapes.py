"""Shape tests of the CEFOS Fig. 8 model: what the reproduced figure must show, so that a
regression in the model fails CI.  Deterministic; instead of the experiment's full search over N
(seconds per cell), each cell takes the best of four N around its device bound B = devices x
period / RTT (0.6B, 0.7B, 0.85B, B), which is within a few requests of the searched maximum
(docs/reproductions/cefos-io.md; e.g. 47 vs 47 at (1,1), 133 vs 135 at (3,3)); ~5 s in all."""
import pytest

from fuce import PERIOD, RTT, Costs
from fuce.throughput import run_chain

BOUND = PERIOD // RTT     # 50 requests per device per period


def best(teus, devices, k=1, arrival="burst"):
    b = devices * BOUND
    ns = sorted({max(1, round(f * b)) for f in (0.6, 0.7, 0.85, 1.0)})
    return max(run_chain(teus, devices, n, costs=Costs().scaled(k), arrival=arrival).completed for n in ns)


@pytest.fixture(scope="module")
def default_grid():
    return {(t, d): best(t, d) for t, d in ((1, 1), (4, 1), (1, 3), (3, 3), (4, 3))}


def test_device_bound_with_our_instruction_counts(default_grid):
    T = default_grid
    # one device is nearly saturated by one TEU: within 10 % of the bound (the model's ~72
    # cycles of thread work per request against a 2000-cycle device round trip)
    assert T[(1, 1)] >= 0.9 * BOUND
    # so TEUs add little at one device (the doc's "nearly flat in TEUs": 47 -> 49)
    assert T[(4, 1)] <= 1.1 * T[(1, 1)]
    # throughput rises with devices at every TEU count, and never beats the devices
    assert T[(1, 3)] >= 2.2 * T[(1, 1)] and T[(4, 3)] >= 2.5 * T[(4, 1)]
    assert all(v <= d * BOUND for (t, d), v in T.items())
    # the (1,1) -> (3,3) gain lies between the paper's "about 2.5" and the ideal 3 device-CPU pairs
    assert 2.5 <= T[(3, 3)] / T[(1, 1)] <= 3.0


def test_heavier_threads_make_teus_matter():
    # with every thread 16x heavier (~700 cycles of TEU work per request) the TEUs, not the
    # devices, limit: 4 TEUs beat 1 by at least 20 % at one and at three devices (measured:
    # 1.31x and 1.83x in the experiment's full search), as the paper reports for Fig. 8
    for d in (1, 3):
        assert best(4, d, k=16) >= 1.2 * best(1, d, k=16)
