# SPDX-License-Identifier: BSD-2-Clause
"""Sector buffer (ecpsata/frontend/buffer.py) against a small model of a LiteSATA user port."""

import random

import pytest

from migen import *
from migen.sim import passive
from litex.soc.interconnect import stream
from litesata.common import command_rx_description

from ecpsata.core.command import command_tx_description

from ecpsata.frontend.buffer import ECPSATASectorBuffer


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
        custom = [(yield port.sink.command), (yield port.sink.features)] \
            if (yield port.sink.custom) else []
        if (yield port.sink.identify):
            # PIO data-in: the last data dword carries the end (ecpsata/core/command.py)
            log.append(("pio", lba, count, *custom))
            yield port.sink.ready.eq(0)
            for i in range(count * 128):
                last = i == count * 128 - 1
                yield port.source.valid.eq(1)
                yield port.source.identify.eq(1)
                yield port.source.data.eq(data_word(lba, i))
                yield port.source.last.eq(last)
                yield port.source.end.eq(last)
                yield port.source.failed.eq(last and fail)
                yield
                while not (yield port.source.ready):
                    yield
                yield port.source.valid.eq(0)
            yield port.source.end.eq(0)
            yield port.source.identify.eq(0)
            continue
        if (yield port.sink.nodata):
            log.append(("nodata", (yield port.sink.command), (yield port.sink.features), count))
            yield port.sink.ready.eq(0)
            if silent:
                continue
        elif (yield port.sink.read):
            log.append(("read", lba, count, *custom))
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
            words, last = [(yield port.sink.data)], (yield port.sink.last)
            while not last:       # until the beat taken was the last one
                yield port.sink.ready.eq(random.random() < 0.7)
                yield
                if (yield port.sink.valid) and (yield port.sink.ready):
                    words.append((yield port.sink.data))
                    last = yield port.sink.last
            log.append(("write", lba, count, words, *custom))
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


def command(dut, lba, count, write, nodata=None, custom=None, pio=0):
    yield dut.lba.storage.eq(lba)
    yield dut.count.storage.eq(count)
    yield dut.control.fields.write.eq(write)
    yield dut.control.fields.nodata.eq(nodata is not None)
    yield dut.control.fields.custom.eq(custom is not None)
    yield dut.control.fields.pio.eq(pio)
    for fields in (nodata, custom):
        if fields is not None:
            yield dut.command.storage.eq(fields[0])
            yield dut.features.storage.eq(fields[1])
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
    dut = ECPSATASectorBuffer(port, sectors=4, sys_clk_freq=1e6, timeout_s=timeout_cycles / 1e6)
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
    dut = ECPSATASectorBuffer(port, sectors=4, sys_clk_freq=1e6, timeout_s=1e-3)

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


@pytest.mark.parametrize("fail", [False, True])
def test_pio_data_in_of_a_command_fills_the_buffer(fail):
    """SMART READ DATA-like (B0h, features D0h) by PIO, then READ LOG EXT of 3 pages: the command
    goes out with its code and features on the identify flag, every dword lands in order, the last
    one (which carries the end) too; a failed end is reported failed."""
    def t(dut, out):
        out["st"] = yield from command(dut, 0xC24F00, 1, write=0, custom=(0xB0, 0xD0), pio=1)
        out["st3"] = yield from command(dut, 0x04, 3, write=0, custom=(0x2F, 0), pio=1)
        out["mem"] = []
        for i in range(4 * 128):
            out["mem"].append((yield dut.mem[i]))
    _, log, out = run(t, fail=fail)
    assert log == [("pio", 0xC24F00, 1, 0xB0, 0xD0), ("pio", 0x04, 3, 0x2F, 0)]
    for st in (out["st"], out["st3"]):
        assert st == {"done": 1, "failed": int(fail), "timeout": 0, "refused": 0}
    assert out["mem"][:3 * 128] == [data_word(0x04, i) for i in range(3 * 128)]
    assert out["mem"][3 * 128:] == [0] * 128


def test_dma_commands_of_the_callers_carry_their_code():
    """READ LOG DMA EXT (47h) by DMA data-in and DATA SET MANAGEMENT (06h, TRIM) by DMA data-out:
    the port's read / write flags with ``custom``, the code and features; data as for reads and
    writes."""
    def t(dut, out):
        out["rd"] = yield from command(dut, 0x0104, 2, write=0, custom=(0x47, 0))
        for i in range(128):
            yield dut.mem[i].eq(0xB0000000 + i)
        out["wr"] = yield from command(dut, 0, 1, write=1, custom=(0x06, 0x01))
    _, log, out = run(t)
    assert log == [("read", 0x0104, 2, 0x47, 0),
                   ("write", 0, 1, [0xB0000000 + i for i in range(128)], 0x06, 0x01)]
    assert out["rd"]["failed"] == out["wr"]["failed"] == 0
