# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/command.py at the FIS level: the command layer (with our transport layer) behind an
ECPSATACrossbar port, facing a frame-level model of the link.

Register H2D FIS dwords are compared with values built here from SATA 3.x §10.3.4 and ATA8-ACS, not
with LiteSATA's own header encoder. Random backpressure on the link and on the user's data.
"""

import random

import pytest
from migen import *
from litex.soc.interconnect import stream
from litesata.common import link_description

from ecpsata.core.command import ECPSATACommand, reg_h2d_fields
from ecpsata.frontend.crossbar import ECPSATACrossbar
from ecpsata.core.transport import ECPSATATransport
from tests.support.sata_port_model import run_sorted_simulation


DEVICE_TURNAROUND = 6     # cycles from the end of our frame to the drive's answer on this model


class LinkModel:
    """The link layer's user side as seen by the transport layer: frames out, frames in, and the
    transport's verdict on each frame in (``verdicts`` records them when a test reads them)."""
    def __init__(self):
        self.sink   = stream.Endpoint(link_description(32))    # host -> device frames
        self.source = stream.Endpoint(link_description(32))    # device -> host frames
        self.verdict_valid = Signal()
        self.verdict_good  = Signal()


class DUT(Module):
    def __init__(self):
        self.link = LinkModel()
        self.submodules.transport = ECPSATATransport(self.link)
        self.submodules.command = ECPSATACommand(self.transport.sink, self.transport.rx, 100e6,
                                                 settle_time=20e-6)
        # The link model takes every frame: R_OK the cycle after its last dword.
        self.sync += self.command.tx.tx_ok.eq(
            self.link.sink.valid & self.link.sink.ready & self.link.sink.last)
        self.submodules.crossbar = ECPSATACrossbar(self.command)
        self.port = self.crossbar.get_port()
        self.other = self.crossbar.get_port()     # an idle second user, as in the SoC


def h2d_expected(command, lba, device, count, features=0):
    """Register H2D FIS, C=1 (SATA 3.x §10.3.4): 5 dwords, little-endian bytes."""
    return [
        0x27 | (1 << 15) | (command << 16) | ((features & 0xFF) << 24),
        (lba & 0xFFFFFF) | (device << 24),
        ((lba >> 24) & 0xFFFFFF) | (((features >> 8) & 0xFF) << 24),
        count & 0xFFFF,
        0,
    ]


def d2h(status=0x50, error=0):
    return [0x34 | (status << 16) | (error << 24), 0, 0, 0, 0]


class Bench:
    def __init__(self, dut, link_ready_rate=0.7, seed=0):
        self.dut = dut
        self.rng = random.Random(seed)
        self.link_ready_rate = link_ready_rate
        self.frames = []
        self.port_beats = []

    @passive
    def link_capture(self):
        sink, cur = self.dut.link.sink, []
        while True:
            yield sink.ready.eq(int(self.rng.random() < self.link_ready_rate))
            yield
            if (yield sink.valid) and (yield sink.ready):
                cur.append((yield sink.data))
                if (yield sink.last):
                    self.frames.append(cur)
                    cur = []

    @passive
    def port_collect(self):
        source = self.dut.port.source
        yield source.ready.eq(1)
        while True:
            yield
            if (yield source.valid) and (yield source.ready):
                self.port_beats.append(dict(
                    data=(yield source.data), last=(yield source.last), end=(yield source.end),
                    read=(yield source.read), write=(yield source.write),
                    failed=(yield source.failed)))

    def send_frame(self, frame, gap_before_last=0, error=False):
        """A frame from the drive; ``error`` on its last dword (a bad CRC, or the drive abandoned
        it) as the link layer marks it."""
        source = self.dut.link.source
        for i, d in enumerate(frame):
            last = i == len(frame) - 1
            if last and gap_before_last:
                yield source.valid.eq(0)
                for _ in range(gap_before_last):
                    yield
            yield source.data.eq(d)
            yield source.last.eq(int(last))
            yield source.error.eq(int(last and error))
            yield source.valid.eq(1)
            yield
            while not (yield source.ready):
                yield
        yield source.valid.eq(0)
        yield source.error.eq(0)

    def wait_frames(self, n, limit=5000):
        for _ in range(limit):
            if len(self.frames) >= n:
                # A drive answers a frame no sooner than its R_OK, SYNC, X_RDY / R_RDY and SOF
                # allow: a few dword times, which the link model leaves out.
                for _ in range(DEVICE_TURNAROUND):
                    yield
                return
            yield
        raise AssertionError(f"expected {n} frames, got {len(self.frames)}")

    def wait_end(self, limit=5000):
        for _ in range(limit):
            if any(b["end"] for b in self.port_beats):
                return
            yield
        raise AssertionError("no end of command")

    def command(self, write=0, read=0, identify=0, lba=0, count=1, lba28=0, data=None,
                valid_rate=1.0, custom=0, command=0, features=0):
        """Present one command on the port; a write sends `data` (one beat per dword). ``custom``:
        the ATA command ``command`` with ``features`` by the protocol the flag names."""
        sink = self.dut.port.sink
        yield sink.custom.eq(custom)
        yield sink.command.eq(command)
        yield sink.features.eq(features)
        yield sink.write.eq(write)
        yield sink.read.eq(read)
        yield sink.identify.eq(identify)
        yield sink.sector.eq(lba)
        yield sink.count.eq(count & 0xFFFF)
        yield sink.lba28.eq(lba28)
        beats = data if write else [0]
        i = 0
        while i < len(beats):
            v = int(self.rng.random() < valid_rate)
            yield sink.valid.eq(v)
            yield sink.data.eq(beats[i])
            yield sink.last.eq(int(i == len(beats) - 1))
            yield
            if v and (yield sink.ready):
                i += 1
            while v and not (yield sink.ready):
                yield
                if (yield sink.ready):
                    i += 1
                    break
        yield sink.valid.eq(0)


def run(dut, bench, body):
    run_sorted_simulation(dut, [bench.link_capture(), bench.port_collect(), body()])


# Register H2D FIS ---------------------------------------------------------------------------------

@pytest.mark.parametrize("op,lba,count,lba28,command,lba_field,device,count_field", [
    # 28-bit: LBA 27:24 in the Device low nibble with the LBA bit, 8-bit count, 256 = 0.
    ("read",  0x0ABCDEF1, 256,   1, 0xC8, 0x00BCDEF1, 0x4A, 0x00),
    ("read",  0x00000010, 1,     1, 0xC8, 0x00000010, 0x40, 0x01),
    ("write", 0x0FFFFF00, 255,   1, 0xCA, 0x00FFFF00, 0x4F, 0xFF),
    # 48-bit: 16-bit count, 65,536 = 0.
    ("read",  0x123456789ABC, 65536, 0, 0x25, 0x123456789ABC, 0xE0, 0x0000),
    ("write", 0x000100000000, 65535, 0, 0x35, 0x000100000000, 0xE0, 0xFFFF),
    ("read",  0x0ABCDEF1, 256,   0, 0x25, 0x0ABCDEF1, 0xE0, 0x0100),
])
def test_reg_h2d_fis(op, lba, count, lba28, command, lba_field, device, count_field):
    assert reg_h2d_fields(op, lba, count, lba28) == (command, lba_field, device, count_field)
    dut = DUT()
    bench = Bench(dut)

    def body():
        if op == "read":
            yield from bench.command(read=1, lba=lba, count=count, lba28=lba28)
        else:
            # A write holds its first beat until DMA Activate: keep it presented.
            sink = dut.port.sink
            for name, v in (("write", 1), ("sector", lba), ("count", count & 0xFFFF),
                            ("lba28", lba28), ("valid", 1)):
                yield getattr(sink, name).eq(v)
        yield from bench.wait_frames(1)
        for _ in range(30):
            yield
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(command, lba_field, device, count_field)]


def test_lba28_all_forces_28_bit_and_spares_identify():
    dut = DUT()
    bench = Bench(dut)

    def body():
        yield dut.command.lba28_all.eq(1)
        yield from bench.command(read=1, lba=0x0123456, count=8)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(d2h(0x51, 0x04))       # abort: ends the read
        yield from bench.wait_end()
        yield from bench.command(identify=1)
        yield from bench.wait_frames(2)
    run(dut, bench, body)
    assert bench.frames[0] == h2d_expected(0xC8, 0x0123456, 0x40, 8)
    assert bench.frames[1][0] == 0x27 | 1 << 15 | 0xEC << 16
    assert [b["failed"] for b in bench.port_beats if b["end"]] == [1]


# Whole commands -----------------------------------------------------------------------------------

def test_status_fis_with_a_gap_before_its_last_dword():
    """The link hands dwords over at the line rate, so a Register D2H may come with a gap before
    its last dword (here one that looks like a Register D2H's first dword). The read ends once,
    on that FIS, and the next read is not ended by a FIS made of the left-over dword."""
    dut = DUT()
    bench = Bench(dut, seed=3)
    data = [random.Random(4).getrandbits(32) for _ in range(128)]

    def body():
        for n in range(2):
            yield from bench.command(read=1, lba=8, count=1)
            yield from bench.wait_frames(n + 1)
            yield from bench.send_frame([0x46] + data)
            yield from bench.send_frame(d2h()[:4] + [0x00500034], gap_before_last=3)
            for _ in range(50):
                yield
    run(dut, bench, body)
    end = [b for b in bench.port_beats if b["end"]]
    assert [b["failed"] for b in end] == [0, 0]
    assert [b["data"] for b in bench.port_beats if not b["end"]] == data + data

def test_lba28_read_data_and_status():
    dut = DUT()
    bench = Bench(dut, seed=1)
    data = [random.Random(2).getrandbits(32) for _ in range(2*128)]

    def body():
        yield from bench.command(read=1, lba=0x0FFFFFFE, count=2, lba28=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + data)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(0xC8, 0xFFFFFE, 0x4F, 2)]
    assert [b["data"] for b in bench.port_beats if not b["end"]] == data
    assert all(b["read"] for b in bench.port_beats)
    end = [b for b in bench.port_beats if b["end"]]
    assert len(end) == 1 and end[0]["failed"] == 0 and end[0]["last"] == 1


@pytest.mark.parametrize("count,failed", [(1, 0), (2, 1), (0, 1)])
def test_read_count_zero_means_65536_sectors(count, failed):
    """One sector of data then good status: complete for count 1, short (failed) for count 2, and
    for count 0 too, which the RX reads as 65,536 sectors, not 0."""
    dut = DUT()
    bench = Bench(dut, seed=3)

    def body():
        yield from bench.command(read=1, lba=100, count=count)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + list(range(128)))
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames[0][3] == count
    assert [b["failed"] for b in bench.port_beats if b["end"]] == [failed]


def test_lba28_write_splits_data_fis_at_2048_dwords():
    dut = DUT()
    bench = Bench(dut, seed=4)
    n = 17*128                                          # 2,176 dwords: two Data FIS
    data = [(i*0x01000193) & 0xFFFFFFFF for i in range(n)]

    def body():
        def device():
            yield from bench.wait_frames(1)
            yield from bench.send_frame([0x39])         # DMA Activate
            yield from bench.wait_frames(2)
            yield from bench.send_frame([0x39])
            yield from bench.wait_frames(3)
            yield from bench.send_frame(d2h())
        dev = device()
        # Interleave the user and the device by hand: the device script runs as a sub-generator.
        yield from _parallel(bench.command(write=1, lba=0x0200000, count=17, lba28=1, data=data,
                                           valid_rate=0.8), dev)
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames[0] == h2d_expected(0xCA, 0x0200000, 0x40, 17)
    assert bench.frames[1] == [0x46] + data[:2048]
    assert bench.frames[2] == [0x46] + data[2048:]
    end = [b for b in bench.port_beats if b["end"]]
    assert len(end) == 1 and end[0]["write"] == 1 and end[0]["failed"] == 0


def test_write_error_before_dma_activate_drains_the_packet():
    """Device answers the write with ERR (e.g. ABRT) instead of DMA Activate: the rest of the
    packet is taken from the port without reaching the link, the port sees failed=1, and the next
    command goes out intact (LiteSATA's TX took one beat and sent the rest as new commands)."""
    dut = DUT()
    bench = Bench(dut, seed=5)
    data = list(range(1000, 1000 + 4*128))

    def body():
        def device():
            yield from bench.wait_frames(1)
            yield from bench.send_frame(d2h(0x51, 0x04))
        yield from _parallel(bench.command(write=1, lba=7, count=4, data=data, valid_rate=0.9),
                             device())
        yield from bench.wait_end()
        for _ in range(20):
            yield
        yield from bench.command(read=1, lba=9, count=1)
        yield from bench.wait_frames(2)
        yield from bench.send_frame([0x46] + list(range(128)))
        yield from bench.send_frame(d2h())
        for _ in range(200):
            yield
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(0x35, 7, 0xE0, 4), h2d_expected(0x25, 9, 0xE0, 1)]
    ends = [b for b in bench.port_beats if b["end"]]
    assert [(b["write"], b["read"], b["failed"]) for b in ends] == [(1, 0, 1), (0, 1, 0)]


def _parallel(*gens):
    """Run generators side by side, one cycle each per step (a bare `yield` ends a generator's
    cycle); returns when all are exhausted."""
    gens = list(gens)
    replies = [None]*len(gens)
    while gens:
        nxt, nrep = [], []
        for g, rep in zip(gens, replies):
            try:
                req = g.send(rep)
                while req is not None:
                    rep = yield req
                    req = g.send(rep)
                nxt.append(g)
                nrep.append(None)
            except StopIteration:
                pass
        gens, replies = nxt, nrep
        if gens:
            yield


def test_core_crossbar_and_engine_elaborate():
    """ECPSATACore + ECPSATACrossbar + stock IDENTIFY + ECPSATABenchEngine convert to Verilog, the way the
    SoC builder assembles them (a stand-in PHY: two endpoints)."""
    from migen.fhdl.verilog import convert
    from litesata.common import phy_description
    from litesata.frontend.identify import LiteSATAIdentify
    from ecpsata.core.core import ECPSATACore
    from ecpsata.engines.engine import ECPSATABenchEngine

    class FakePHY:
        def __init__(self):
            self.sink   = stream.Endpoint(phy_description(32))
            self.source = stream.Endpoint(phy_description(32))

    class Top(Module):
        def __init__(self):
            self.phy = FakePHY()
            self.submodules.core = core = ResetInserter()(ECPSATACore(self.phy))
            self.submodules.crossbar = crossbar = ResetInserter()(ECPSATACrossbar(core))
            self.submodules.identify = LiteSATAIdentify(crossbar.get_port())
            self.submodules.bench = ECPSATABenchEngine(crossbar.get_port(), 100e6)
            self.comb += [core.reset.eq(self.bench.core_reset),
                          crossbar.reset.eq(self.bench.core_reset)]

    top = Top()
    assert top.bench.lba28_capable and hasattr(top.core.sink, "lba28")
    ios = set(top.phy.sink.flatten()) | set(top.phy.source.flatten())
    v = str(convert(top, ios=ios, name="top"))
    assert "8'd200" in v and "8'd202" in v          # READ DMA 0xC8 / WRITE DMA 0xCA constants
