"""The Fig. 7 I/O chain on the model: exact single-request schedules, gate mutual exclusion and
retry, device exclusivity, conservation, the literal protocol's lost wake-up."""
import pytest

from fuce import Costs, IoSystem, Machine, run_chain
from fuce.throughput import arrival_times

# written out, so that a change of the defaults does not silently change these schedules
C = Costs(sender=2, sender_args=4, retry=1, gate=6, syscall=12, semaphore=3, device=6, handler=6, receiver=4)


@pytest.mark.parametrize("rtt", [2000, 500])
def test_single_request_one_teu_exact(rtt):
    res, m, s = run_chain(1, 1, 1, rtt=rtt, costs=C, drain=True, return_system=True, trace=True)
    # sender 2..10 (trylk at 4, continue gate at 9); gate 11..21 (alloc 17, continue syscall 18,
    # rearm 19, unlk 20); syscall 22..35; semaphore 36..44 (push 39, trylk 40, pop 41, continue
    # device_thread 42, free 43); device_thread 45..54 (rearm 45, issue at 52, continue handler 53);
    # device completes 52+rtt; handler fires then, starts 54+rtt: rearm, take, 6, continue receiver
    # at 62+rtt, pop, unlk, peek -> ends 66+rtt; receiver 67+rtt..72+rtt (free at 71+rtt).
    assert s.requests[0].completed_at == 72 + rtt
    sp = {name: (st, en) for name, _, _, st, en in m.trace}
    assert sp == {"sender": (2, 10), "gate": (11, 21), "syscall": (22, 35), "semaphore": (36, 44),
                  "device_thread": (45, 54), "handler": (54 + rtt, 66 + rtt), "receiver": (67 + rtt, 72 + rtt)}


def test_single_request_two_teus_exact():
    res, m, s = run_chain(2, 1, 1, rtt=2000, costs=C, drain=True, return_system=True)
    # with a second TEU each successor starts while its predecessor finishes: syscall starts 20,
    # semaphore 34, device_thread 42 (issue 49), handler 2051, receiver 2061 -> done 2066.
    assert s.requests[0].completed_at == 2066


def test_inline_fast_path_changes_nothing():
    a = run_chain(3, 2, 70, costs=C, trace=True, return_system=True, inline=True, period=20_000)[1].trace
    b = run_chain(3, 2, 70, costs=C, trace=True, return_system=True, inline=False, period=20_000)[1].trace
    assert a == b and len(a) > 300


def test_gate_mutual_exclusion_and_retry():
    res, m, s = run_chain(4, 2, 60, costs=C, drain=True, return_system=True, trace=True)
    gate = sorted((st, en) for name, _, _, st, en in m.trace if name == "gate")
    assert len(gate) == 60                                    # one gate run per request
    assert all(e1 < s2 for (_, e1), (s2, _) in zip(gate, gate[1:]))   # never two at once
    assert res.retries > 0                                    # the contention really happened
    senders = sum(1 for name, *_ in m.trace if name == "sender")
    assert senders == 60 + res.retries                        # every failed trylk is one more run
    assert s.gate.lock == 0 and s.gate.count == 1             # released and re-armed at the end
    assert res.completed + res.completed_after == 60


def test_retry_with_two_senders_on_one_teu():
    res, m, s = run_chain(1, 1, 2, costs=C, drain=True, return_system=True, trace=True)
    # sender 0 holds the gate lock from its trylk (cycle 4) to the gate's unlk (20). Sender 1 was
    # ready behind it in the RTQ, runs 11..16 on the only TEU, finds the lock set and continues to
    # itself (behind the gate in the RTQ); its second try, after the gate's unlk, succeeds.
    assert res.retries == 1
    assert [name for name, *_ in m.trace[:4]] == ["sender", "sender", "gate", "sender"]
    assert [r.completed_at > 0 for r in s.requests] == [True, True]


def test_one_request_per_device_at_a_time():
    res, m, s = run_chain(4, 3, 200, costs=C, drain=True, return_system=True)
    for dc in s.devs:
        log = [(ev, t) for ev, t, _ in dc.dev.log]
        issues = [t for ev, t in log if ev == "issue"]
        takes = [t for ev, t in log if ev == "take"]
        assert len(issues) == len(takes) > 0
        assert all(tk < nxt for tk, nxt in zip(takes, issues[1:]))   # next issue after previous take
        assert not dc.dev.waiting and dc.devthr.lock == 0


@pytest.mark.parametrize("teus,devices,n,arrival", [(1, 1, 80, "burst"), (2, 3, 250, "burst"),
                                                    (4, 2, 150, "uniform"), (3, 3, 400, "uniform")])
def test_conservation(teus, devices, n, arrival):
    res, m, s = run_chain(teus, devices, n, costs=C, arrival=arrival, drain=True, return_system=True)
    assert sum(res.census.values()) == n
    assert res.census.get("done", 0) == res.completed
    assert res.completed + res.in_flight == n
    assert res.in_flight > 0                         # the period really ended with work in flight
    assert res.completed_after == res.in_flight      # ... and all of it completes afterwards
    assert sorted(r.rid for r in s.completed) == list(range(n))
    assert m.pool.in_use == 1 + devices              # every per-request frame was freed
    for dc in s.devs:
        d = dc.dev
        assert d.issued == d.completed == d.delivered == d.taken
        assert dc.handler.count == 2 and dc.devthr.count == 1


def _stranded(protocol, submit2, delay):
    m = Machine(2)
    s = IoSystem(m, 1, 2000, C, protocol=protocol, enqueue_delay=delay)
    s.submit(0)
    s.submit(submit2)
    m.run()
    return len(s.completed) < 2


def test_literal_protocol_loses_a_wakeup_and_safe_one_does_not():
    window = range(1950, 2100)
    literal = [t for t in window if _stranded("literal", t, 20)]
    assert literal, "the paper's literal order should strand a request for some timing"
    assert not [t for t in window if _stranded("safe", t, 20)]


def test_arrivals():
    assert arrival_times(4, 100, "burst") == [0, 0, 0, 0]
    assert arrival_times(4, 100, "uniform") == [0, 25, 50, 75]
