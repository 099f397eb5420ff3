# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/frontend/events.py: the link event log, in Migen with sources driven by the test."""

from migen import *
from migen.sim import run_simulation

from ecpsata.core.common import LINK_EVENTS, LINK_EVENT
from ecpsata.frontend.events import ECPSATAEventLog


class DUT(Module):
    def __init__(self, depth=8):
        self.trig = {name: Signal(name=f"t_{name.lower()}") for name, _ in LINK_EVENTS.values()}
        self.arg = {name: Signal(8, name=f"a_{name.lower()}") for name, _ in LINK_EVENTS.values()}
        self.submodules.log = ECPSATAEventLog({n: (self.trig[n], self.arg[n]) for n in self.trig},
                                       depth=depth)


def fire(dut, events):
    """One cycle with these (name, arg) events."""
    for name, arg in events:
        yield dut.trig[name].eq(1)
        yield dut.arg[name].eq(arg)
    yield
    for name, _ in events:
        yield dut.trig[name].eq(0)


def read_log(log, depth):
    count = yield log.count.status
    out = []
    for n in range(max(0, count - depth), count):
        yield from log.index.write(n % depth)
        yield
        out.append(((yield log.entry.fields.code), (yield log.entry.fields.arg),
                    (yield log.time.status)))
    return count, (yield log.lost.status), out


def run(dut, body):
    result = {}

    def gen():
        result["value"] = yield from body()
    run_simulation(dut, gen())
    return result["value"]


def test_events_are_written_in_order_with_their_times_and_arguments():
    dut = DUT()

    def body():
        for _ in range(10):
            yield
        t0 = yield dut.log.now.status
        yield from fire(dut, [("PHY_STATE", 0x11)])          # cycle t0
        for _ in range(5):
            yield
        yield from fire(dut, [("COMINIT", 0)])                # t0 + 6
        yield from fire(dut, [("DEVICE_ERROR", 0x04)])        # t0 + 7
        for _ in range(5):
            yield
        count, lost, entries = yield from read_log(dut.log, 8)
        return t0, count, lost, entries

    t0, count, lost, entries = run(dut, body)
    assert (count, lost) == (3, 0)
    codes = [(c, a) for c, a, _ in entries]
    assert codes == [(LINK_EVENT["PHY_STATE"], 0x11), (LINK_EVENT["COMINIT"], 0),
                     (LINK_EVENT["DEVICE_ERROR"], 0x04)]
    # written the cycle after the trigger: one cycle apart, as they came
    times = [t for _, _, t in entries]
    assert times[1] - times[0] == 6 and times[2] - times[1] == 1, (t0, times)
    assert times[0] - t0 in (1, 2)


def test_events_of_one_cycle_are_all_written_lowest_code_first():
    dut = DUT()

    def body():
        yield from fire(dut, [("HOST_RESET", 1), ("LINK", 0), ("COMWAKE", 0)])
        for _ in range(len(LINK_EVENTS) + 4):
            yield
        return (yield from read_log(dut.log, 8))

    count, lost, entries = run(dut, body)
    assert (count, lost) == (3, 0)
    assert [c for c, _, _ in entries] == sorted(LINK_EVENT[n] for n in ("HOST_RESET", "LINK", "COMWAKE"))
    times = [t for _, _, t in entries]
    assert times == list(range(times[0], times[0] + 3))


def test_the_ring_keeps_the_last_events_and_counts_the_lost():
    dut = DUT(depth=8)

    def body():
        for k in range(12):                 # 12 events into 8 slots
            yield from fire(dut, [("CMD_FAILED", k)])
            yield
        # the same kind twice in a row while a lower one is pending: the second is lost
        yield from fire(dut, [("PHY_STATE", 1), ("R_ERR", 0)])
        yield from fire(dut, [("R_ERR", 0)])
        for _ in range(4):
            yield
        return (yield from read_log(dut.log, 8))

    count, lost, entries = run(dut, body)
    assert (count, lost) == (14, 1)
    assert [a for c, a, _ in entries[:6]] == [6, 7, 8, 9, 10, 11]
    assert [c for c, _, _ in entries[6:]] == [LINK_EVENT["PHY_STATE"], LINK_EVENT["R_ERR"]]


def test_clear_empties_the_log():
    dut = DUT()

    def body():
        yield from fire(dut, [("ESCAPE", 0)])
        yield
        yield from dut.log.control.write(1)
        yield
        count = yield dut.log.count.status
        lost = yield dut.log.lost.status
        yield from fire(dut, [("CRC_ERROR", 0)])
        yield
        yield
        after = yield from read_log(dut.log, 8)
        return count, lost, after

    count, lost, (count2, _, entries) = run(dut, body)
    assert (count, lost) == (0, 0)
    assert count2 == 1 and entries[0][0] == LINK_EVENT["CRC_ERROR"]


def test_the_same_kind_on_consecutive_cycles_keeps_each_argument():
    """A state change every cycle: each is written with its own argument, none lost."""
    dut = DUT()

    def body():
        yield from fire(dut, [("PHY_STATE", 4)])
        yield from fire(dut, [("PHY_STATE", 5)])
        yield from fire(dut, [("PHY_STATE", 6)])
        for _ in range(4):
            yield
        return (yield from read_log(dut.log, 8))

    count, lost, entries = run(dut, body)
    assert (count, lost) == (3, 0)
    assert [a for _, a, _ in entries] == [4, 5, 6]
