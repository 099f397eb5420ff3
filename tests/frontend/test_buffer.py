# SPDX-License-Identifier: BSD-2-Clause
"""Sector buffer (ecpsata/frontend/buffer.py) against a small model of a LiteSATA user port."""

import random

import pytest

from migen import *
from migen.sim import passive
from litex.soc.interconnect import stream
from litesata.common import command_rx_description

from ecpsata.core.command import command_tx_description

from ecpsata.frontend.buffer import SATASectorBuffer


class Port:
    def __init__(self):
        self.sink = stream.Endpoint(command_tx_description(32))
        self.source = stream.Endpoint(command_rx_description(32))
        self.dw = 32


def data_word(lba, i):
    return (lba * 0x10001 + i * 0x9E3779B1) & 0xFFFFFFFF


@passive
def drive(port, log, fail=False, silent=False):
    """Answers one command per call of the generator loop: reads with data then an end beat,
    writes by taking the data then an end beat. Random pauses on both streams."""
    while True:
        yield port.sink.ready.eq(random.random() < 0.7)
        yield
        if not ((yield port.sink.valid) and (yield port.sink.ready)):
            continue
        lba, count = (yield port.sink.sector), (yield port.sink.count)
        if (yield port.sink.nodata):
            log.append(("nodata", (yield port.sink.command), (yield port.sink.features), count))
            yield port.sink.ready.eq(0)
            if silent:
                continue
        elif (yield port.sink.read):
            log.append(("read", lba, count))
            yield port.sink.ready.eq(0)
            if silent:
                continue
            for i in range(count * 128):
                yield port.source.valid.eq(1)
                yield port.source.read.eq(1)
                yield port.source.data.eq(data_word(lba, i))
                yield port.source.last.eq(i % 2048 == 2047 or i == count * 128 - 1)
                yield
                while not (yield port.source.ready):
                    yield
                yield port.source.valid.eq(0)
                if random.random() < 0.3:
                    yield
        else:
            words = [(yield port.sink.data)]
            while not (yield port.sink.last):
                yield port.sink.ready.eq(random.random() < 0.7)
                yield
                if (yield port.sink.valid) and (yield port.sink.ready):
                    words.append((yield port.sink.data))
            log.append(("write", lba, count, words))
            yield port.sink.ready.eq(0)
        yield port.source.valid.eq(1)
        yield port.source.end.eq(1)
        yield port.source.last.eq(1)
        yield port.source.failed.eq(fail)
        yield
        while not (yield port.source.ready):
            yield
        yield port.source.valid.eq(0)
        yield port.source.end.eq(0)
        yield port.source.read.eq(0)


def command(dut, lba, count, write, nodata=None):
    yield dut.lba.storage.eq(lba)
    yield dut.count.storage.eq(count)
    yield dut.control.fields.write.eq(write)
    yield dut.control.fields.nodata.eq(nodata is not None)
    if nodata is not None:
        yield dut.command.storage.eq(nodata[0])
        yield dut.features.storage.eq(nodata[1])
    yield dut.control.fields.start.eq(1)
    yield
    yield dut.control.fields.start.eq(0)
    yield
    for _ in range(20000):
        if (yield dut.status.fields.done):
            break
        dut.resets = getattr(dut, "resets", 0) + (yield dut.core_reset)
        yield
    st = {}
    for f in ("done", "failed", "timeout", "refused"):
        st[f] = yield getattr(dut.status.fields, f)
    return st


def run(test, fail=False, silent=False, timeout_cycles=100000):
    random.seed(1)
    port, log, out = Port(), [], {}
    dut = SATASectorBuffer(port, sectors=4, sys_clk_freq=1e6, timeout_s=timeout_cycles / 1e6)
    run_simulation(dut, [test(dut, out), drive(port, log, fail, silent)])
    return dut, log, out


def test_read_fills_the_buffer_in_order():
    def t(dut, out):
        out["st"] = yield from command(dut, 77, 3, write=0)
        out["mem"] = []
        for i in range(4 * 128):
            out["mem"].append((yield dut.mem[i]))
    _, log, out = run(t)
    assert out["st"] == {"done": 1, "failed": 0, "timeout": 0, "refused": 0}
    assert log == [("read", 77, 3)]
    assert out["mem"][:3 * 128] == [data_word(77, i) for i in range(3 * 128)]
    assert out["mem"][3 * 128:] == [0] * 128  # nothing past the request


def test_write_sends_the_buffer_in_order():
    def t(dut, out):
        for i in range(2 * 128):
            yield dut.mem[i].eq(0xA0000000 + i)
        out["st"] = yield from command(dut, 5, 2, write=1)
    _, log, out = run(t)
    assert out["st"]["done"] == 1 and out["st"]["failed"] == 0
    assert log == [("write", 5, 2, [0xA0000000 + i for i in range(256)])]


def test_drive_error_is_reported():
    def t(dut, out):
        out["st"] = yield from command(dut, 1, 1, write=0)
    _, _, out = run(t, fail=True)
    assert out["st"]["failed"] == 1


def test_bad_count_is_refused_and_nothing_is_sent():
    def t(dut, out):
        out["zero"] = yield from command(dut, 1, 0, write=0)
        out["big"] = yield from command(dut, 1, 5, write=1)
    _, log, out = run(t)
    assert out["zero"]["refused"] == 1 and out["big"]["refused"] == 1
    assert log == []


def test_silent_drive_times_out():
    def t(dut, out):
        out["st"] = yield from command(dut, 1, 1, write=0)
    _, log, out = run(t, silent=True, timeout_cycles=500)
    assert log == [("read", 1, 1)]
    assert out["st"] == {"done": 1, "failed": 0, "timeout": 1, "refused": 0}


def test_a_timeout_resets_the_core():
    """After a timeout the buffer pulses core_reset (the SoC ORs it into the core's reset, which
    also escapes a frame we were sending): nothing is left waiting in the command layer."""
    def t(dut, out):
        out["st"] = yield from command(dut, 1, 1, write=0)    # a silent drive never answers
        for _ in range(40):
            dut.resets = getattr(dut, "resets", 0) + (yield dut.core_reset)
            yield
        out["resets"] = dut.resets
    _, _, out = run(t, silent=True, timeout_cycles=500)
    assert out["st"]["timeout"] == 1
    assert out["resets"] == 16


@passive
def short_writer(port, taken):
    """A device that answers a write with a good end beat after taking all its data but the last
    dword (a command layer never does that; the buffer must not call it done)."""
    while True:
        yield port.sink.ready.eq(1)
        yield
        if (yield port.sink.valid) and (yield port.sink.ready):
            taken.append((yield port.sink.data))
        if len(taken) == 127:
            yield port.sink.ready.eq(0)
            for _ in range(5):
                yield
            yield port.source.valid.eq(1)
            yield port.source.end.eq(1)
            yield
            while not (yield port.source.ready):
                yield
            yield port.source.valid.eq(0)
            yield port.source.end.eq(0)
            return


def test_a_write_answered_before_its_last_dword_was_taken_fails():
    port, taken, out = Port(), [], {}
    dut = SATASectorBuffer(port, sectors=4, sys_clk_freq=1e6, timeout_s=1e-3)

    def t():
        out["st"] = yield from command(dut, 7, 1, write=1)
        for _ in range(4):    # the last dword, held in the buffer, never reaches the next command
            out.setdefault("valid", []).append((yield port.sink.valid))
            yield
    run_simulation(dut, [t(), short_writer(port, taken)])
    assert len(taken) == 127
    assert out["st"] == {"done": 1, "failed": 1, "timeout": 0, "refused": 0}
    assert out["valid"] == [0, 0, 0, 0]


@pytest.mark.parametrize("fail", [False, True])
def test_non_data_command(fail):
    """A non-data command (SET FEATURES 10h, count 2: auto-activate on) goes out with its fields
    and ends on the drive's answer; the buffer's count limit does not apply to it."""
    def t(dut, out):
        out["st"] = yield from command(dut, 0, 2, write=0, nodata=(0xEF, 0x10))
        out["flush"] = yield from command(dut, 0, 0, write=0, nodata=(0xEA, 0))
    _, log, out = run(t, fail=fail)
    assert log == [("nodata", 0xEF, 0x10, 2), ("nodata", 0xEA, 0, 0)]
    assert out["st"] == {"done": 1, "failed": int(fail), "timeout": 0, "refused": 0}
