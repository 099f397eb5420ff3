# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/link.py alone, against primitive and frame sequences built here (SATA 3.x §9.4
primitives, 9.6 link layer states): what a drive may send that the virtual drive did not, and what
the link must answer. The PHY is a pair of stream endpoints: one dword a cycle each way."""

import pytest
from migen import *
from litex.soc.interconnect import stream
from litesata.common import phy_description

from ecpsata.core.link import ECPSATALink, PRIMITIVES, FRAME_MAX_DWORDS, RX_BUFFER_DWORDS
from ecpsata.sim.vdrive.host_model import crc32, scrambler

NAMES = {v: k for k, v in PRIMITIVES.items()}


class PHYStub:
    def __init__(self):
        self.sink   = stream.Endpoint(phy_description(32))    # link -> drive
        self.source = stream.Endpoint(phy_description(32))    # drive -> link


class DUT(Module):
    def __init__(self):
        self.phy = PHYStub()
        self.submodules.link = ECPSATALink(self.phy)
        self.comb += self.phy.sink.ready.eq(1)


def frame_dwords(payload):
    """The frame's dwords on the line between SOF and EOF: payload and CRC, scrambled."""
    words = payload + [crc32(payload)]
    return [w ^ s for w, s in zip(words, scrambler(len(words)))]


class Drive:
    """Plays the drive's side: ``send`` puts one dword (a primitive by name, or data) on the line
    per cycle; ``sent`` records what the link sends, by primitive name (data as 'data')."""
    def __init__(self, dut):
        self.dut = dut
        self.sent = []

    def send(self, item):
        src = self.dut.phy.source
        yield src.valid.eq(1)
        if isinstance(item, str):
            yield src.data.eq(PRIMITIVES[item])
            yield src.charisk.eq(0b0001)
        else:
            yield src.data.eq(item)
            yield src.charisk.eq(0)
        yield

    @passive
    def record(self):
        sink = self.dut.phy.sink
        while True:
            yield
            if (yield sink.valid):
                k = yield sink.charisk
                d = yield sink.data
                self.sent.append(NAMES.get(d, "?") if k else "data")

    def last_sent(self):
        return self.sent[-1] if self.sent else None


def run(dut, drive, *gens):
    run_simulation(dut, [drive.record(), *gens])


def test_a_power_management_request_is_denied_with_pmnak_and_no_x_rdy_goes_into_it():
    """SATA 3.x §9.6.3: in L_IDLE, PMREQ_P or PMREQ_S from the drive -> L_PMDeny, PMNAK for as long
    as the drive asks, then back to idle. A frame waiting to go out does not send X_RDY into the
    request; it goes once the drive is back to SYNC."""
    dut = DUT()
    drive = Drive(dut)
    during = {}

    def body():
        for _ in range(10):
            yield from drive.send("SYNC")
        # A frame is waiting, then the drive asks for Partial (and later for Slumber).
        yield dut.link.sink.valid.eq(1)
        yield dut.link.sink.last.eq(1)
        yield dut.link.sink.data.eq(0x00000027)
        n0 = len(drive.sent)
        for req in ("PMREQ_P", "PMREQ_S"):
            for _ in range(20):
                yield from drive.send(req)
        during["sent"] = drive.sent[n0:]
        n1 = len(drive.sent)
        for _ in range(20):
            yield from drive.send("SYNC")
        during["after"] = drive.sent[n1:]

    run(dut, drive, body())
    sent = during["sent"]
    assert "X_RDY" not in sent, sent
    assert sent.count("PMNAK") >= 35, sent           # every dword but the first few
    assert sent[-1] == "PMNAK"
    after = during["after"]
    assert "PMNAK" not in after[4:], after
    assert "X_RDY" in after, after                   # the waiting frame goes once the drive idles


def receive_frame(dut, drive, payload, reader, hold_ignored=True):
    """The drive sends X_RDY, then (on R_RDY) SOF, the frame, EOF and WTRM, ignoring HOLD; returns
    the primitive the link answers after EOF once it stops sending R_IP."""
    for _ in range(4):
        yield from drive.send("SYNC")
    for _ in range(200):
        yield from drive.send("X_RDY")
        if drive.last_sent() == "R_RDY":
            break
    assert drive.last_sent() == "R_RDY"
    yield from drive.send("SOF")
    for w in frame_dwords(payload):
        yield from drive.send(w)
    yield from drive.send("EOF")
    for _ in range(20000):
        yield from drive.send("WTRM")
        if drive.last_sent() in ("R_OK", "R_ERR"):
            return drive.last_sent()
    raise AssertionError(f"no R_OK / R_ERR after EOF, the link sends {drive.last_sent()}")


class Reader:
    """The transport's side: takes the link's dwords (``ready`` from ``start_cycle`` on), judges
    every frame good at its first dword, records every dword with its ``last`` / ``error``."""
    def __init__(self, dut, start_cycle=0):
        self.dut, self.start_cycle = dut, start_cycle
        self.dwords = []

    @passive
    def gen(self):
        src, link = self.dut.link.source, self.dut.link
        cycle, first, judge = 0, True, False
        while True:
            yield src.ready.eq(int(cycle >= self.start_cycle))
            yield link.verdict_valid.eq(int(judge))
            yield link.verdict_good.eq(1)
            yield
            cycle += 1
            judge = False
            if (yield src.valid) and (yield src.ready):
                judge = first
                self.dwords.append(((yield src.data), (yield src.last), (yield src.error)))
                first = bool((yield src.last))


def test_a_frame_that_overruns_the_buffer_is_refused_and_its_end_still_reaches_the_transport():
    """A drive that ignores our HOLD while the transport does not read: the dwords past the
    buffer's room are lost, so the frame must not be taken as good (R_ERR), and its last dword
    must still reach the transport, or L_RcvEOF would answer R_IP for ever."""
    dut = DUT()
    drive = Drive(dut)
    reader = Reader(dut, start_cycle=600)       # the transport reads nothing for 600 cycles
    payload = [0x46] + [0x1000 + i for i in range(RX_BUFFER_DWORDS + 100)]
    got = {}

    def body():
        got["answer"] = yield from receive_frame(dut, drive, payload, reader)
        for _ in range(2*RX_BUFFER_DWORDS):
            yield from drive.send("SYNC")

    run(dut, drive, reader.gen(), body())
    assert reader.dwords, "nothing reached the transport"
    lasts = [d for d in reader.dwords if d[1]]
    assert len(lasts) == 1, "the frame's last dword never reached the transport"
    assert lasts[0][2] == 1, "the frame that lost dwords is not marked bad"
    assert len(reader.dwords) < len(payload)
    assert got["answer"] == "R_ERR"


@pytest.mark.slow
def test_a_frame_longer_than_any_fis_is_refused():
    """SATA 3.x §10.3.10: a Data FIS carries at most 2,048 dwords; a frame longer than the header,
    2,048 dwords and the CRC is refused (R_ERR) and marked bad on its last dword. (One of exactly
    that length is taken: every read of the fault matrix and the suite moves 2,048-dword Data
    FISes; a frame here costs about a minute of simulation.)"""
    for extra, answer, error in ((1, "R_ERR", 1),):
        dut = DUT()
        drive = Drive(dut)
        reader = Reader(dut)
        payload = [0x46] + [i for i in range(FRAME_MAX_DWORDS - 2 + extra)]
        got = {}

        def body():
            got["answer"] = yield from receive_frame(dut, drive, payload, reader)

        run(dut, drive, reader.gen(), body())
        assert got["answer"] == answer, (extra, got)
        assert reader.dwords[-1][1:] == (1, error), (extra, reader.dwords[-1])
