"""Effects the model implies for the Fig. 8 experiment (on a short period to keep them quick)."""
import pytest

from fuce import Costs, max_throughput, run_chain
from fuce.throughput import coarse_grid, n_limit

P = 20_000     # period: 10 round trips of 2 us


@pytest.fixture(scope="module")
def grid():
    return {(t, d): max_throughput(t, d, period=P)[0].completed for t in (1, 2, 4) for d in (1, 2, 3)}


def test_never_above_the_device_bound(grid):
    for (t, d), x in grid.items():
        assert 0 < x <= d * (P // 2000)


def test_more_devices_never_lower_throughput(grid):
    for t in (1, 2, 4):
        assert grid[(t, 1)] <= grid[(t, 2)] <= grid[(t, 3)]
    assert grid[(4, 3)] > grid[(4, 1)]


def test_more_teus_never_lower_throughput(grid):
    for d in (1, 2, 3):
        assert grid[(1, d)] <= grid[(2, d)] <= grid[(4, d)]


def test_longer_round_trip_never_raises_throughput():
    xs = [max_throughput(2, 2, period=P, rtt=r)[0].completed for r in (1000, 2000, 4000)]
    assert xs[0] >= xs[1] >= xs[2] and xs[0] > xs[2]


def test_heavier_threads_never_raise_throughput():
    xs = [max_throughput(1, 3, period=P, costs=Costs().scaled(k))[0].completed for k in (1, 8, 32)]
    assert xs[0] >= xs[1] >= xs[2] and xs[0] > xs[2]


def test_single_request_latency_never_grows_with_teus():
    lat = [run_chain(t, 1, 1, drain=True).latencies[0] for t in (1, 2, 3, 4)]
    assert all(a >= b for a, b in zip(lat, lat[1:]))
    assert lat[0] >= 2000                                # at least one device round trip


def test_throughput_is_at_most_n_and_best_n_is_reported():
    best, curve = max_throughput(2, 1, period=P)
    assert all(c <= n for n, c in curve)
    assert (best.n, best.completed) in curve and best.completed == max(c for _, c in curve)


def test_search_grid():
    g = coarse_grid(50)
    assert g[0] == 1 and g[-1] == 50 and g == sorted(set(g))
    assert n_limit(3, 100_000, 2000) == 300
