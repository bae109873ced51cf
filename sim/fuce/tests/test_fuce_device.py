"""Device continuations and masking: no event lost, none delivered while masked, in order."""
import pytest

from fuce import Device, Machine, Mode
from fuce.acm import EntrySpec, FrameTemplate, FuceError, NotArmedError
from fuce.ops import Compute, Issue, Rearm, Take


def rig(serial, n, rtt=100, handler_work=50, rearm_first=True, teus=2):
    m = Machine(teus, trace=True)
    got = []

    def issuer(th):
        for i in range(n):
            yield Issue(dev, i)

    def handler(th):
        if rearm_first:
            yield Rearm(th.entry)
        got.append((yield Take(dev)))
        yield Compute(handler_work)
        if not rearm_first:
            yield Rearm(th.entry)
    t = FrameTemplate("d", (EntrySpec("issuer", issuer, 1, Mode.KERNEL), EntrySpec("handler", handler, 1, Mode.KERNEL)))
    f = m.new_frame(t)
    dev = Device(m, rtt, serial=serial)
    dev.connect(f.entry("handler"))
    m.inject(0, f.entry("issuer"))
    return m, dev, got, f


def check_log(dev):
    """Between two deliveries there is exactly one take; completions are delivered in order."""
    masked = False
    delivered, completed = [], []
    for ev, _, item in dev.log:
        if ev == "complete":
            completed.append(item)
        elif ev == "deliver":
            assert not masked, "delivered while masked"
            masked = True
            delivered.append(item)
        elif ev == "take":
            assert masked
            masked = False
    assert delivered == completed


def test_pipelined_device_burst_is_masked_not_lost():
    m, dev, got, _ = rig(serial=False, n=6)
    m.run()
    # issuer starts 2 and issues at 2..7 -> completions at 102..107, while the first handler
    # (50 cycles) still holds the data: 5 completions wait in the device, none is lost.
    assert [t for ev, t, _ in dev.log if ev == "complete"] == list(range(102, 108))
    assert got == list(range(6))
    assert dev.completed == dev.delivered == dev.taken == 6 and not dev.masked and not dev.pending
    check_log(dev)
    handler_runs = [(s, e) for name, _, _, s, e in m.trace if name == "handler"]
    assert len(handler_runs) == 6
    # the next event is delivered at the previous handler's Take (not at its end), so the next
    # handler starts after that Take but may overlap the rest of the previous one on another TEU
    takes = [t for ev, t, _ in dev.log if ev == "take"]
    assert all(tk < s2 for tk, (s2, _) in zip(takes, handler_runs[1:]))
    assert any(s2 < e1 for (_, e1), (s2, _) in zip(handler_runs, handler_runs[1:]))


def test_serial_device_services_one_at_a_time():
    m, dev, got, _ = rig(serial=True, n=3, handler_work=1)
    m.run()
    assert [t for ev, t, _ in dev.log if ev == "complete"] == [102, 202, 302]
    assert got == [0, 1, 2]
    check_log(dev)


def test_handler_must_rearm_before_take_when_events_are_pending():
    m, dev, got, _ = rig(serial=False, n=2, rearm_first=False)
    with pytest.raises(NotArmedError):
        m.run()


def test_take_without_delivery_is_an_error():
    m = Machine(1)
    dev = Device(m, 10)

    def body(th):
        yield Take(dev)
    f = m.new_frame(FrameTemplate("x", (EntrySpec("h", body, 1, Mode.KERNEL),)))
    dev.connect(f.entry("h"))
    m.inject(0, f.entry("h"))
    with pytest.raises(FuceError):
        m.run()
