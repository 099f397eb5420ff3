# SPDX-License-Identifier: BSD-2-Clause
"""The transport layer's verdict and the command layer's rules at the FIS level
(ecpsata/core/transport.py, ecpsata/core/command.py), against frames built here: what real drives do
that our virtual drive never did (IDENTIFY in several DRQ blocks, an aborted IDENTIFY, non-data
commands), and intact frames that are still wrong (wrong length, unknown type, out of place, more
data than asked). Every command must end, with the reason named, and the link must be told to
answer R_ERR where the drive can still send the frame again.
"""

import random

import pytest
from migen import *

from ecpsata.core.common import CMD_REASON, FIS_DATA
from tests.core.test_command_with_transport import DUT, Bench, d2h, h2d_expected, run_sorted_simulation


class ProtoBench(Bench):
    """Bench of tests/core/test_command_with_transport.py that also records the transport's verdicts, the command
    layer's reason with each end beat, and the transport's events."""
    def __init__(self, dut, **kw):
        Bench.__init__(self, dut, **kw)
        self.verdicts = []
        self.reasons = []
        self.events = {n: 0 for n in ("ev_unknown", "ev_bad_length", "ev_unexpected", "ev_refused")}
        self.stray = 0

    def monitor(self):
        link, trx, rx = self.dut.link, self.dut.transport.rx, self.dut.command.rx
        src = rx.source
        yield "passive"
        while True:
            yield
            if (yield link.verdict_valid):
                self.verdicts.append((yield link.verdict_good))
            for n in self.events:
                self.events[n] += yield getattr(trx, n)
            self.stray += yield rx.ev_stray
            if (yield src.valid) and (yield src.ready) and (yield src.end):
                self.reasons.append((yield rx.reason))


def run(dut, bench, body):
    run_sorted_simulation(dut, [bench.link_capture(), bench.port_collect(), bench.monitor(),
                                body()])


def pio_setup(count, e_status=0x50, d=1):
    """PIO Setup FIS (SATA 3.x §10.3.11): D bit, status 0x58, E_Status, transfer count (bytes)."""
    return [0x5F | (d << 13) | (1 << 14) | (0x58 << 16), 0, 0, e_status << 24, count]


def identify_words(seed=1):
    return [random.Random(seed).getrandbits(32) for _ in range(128)]


def ends(bench):
    return [b for b in bench.port_beats if b["end"]]


@pytest.mark.parametrize("blocks", [1, 2, 4, 128])
def test_identify_in_several_drq_blocks(blocks):
    """IDENTIFY's 512 bytes as `blocks` PIO Setup + Data FIS pairs (a Samsung 850 EVO sends
    several): the port gets the 128 dwords, `last` and `end` on the final one only, and the next
    command is answered normally (nothing left over)."""
    dut = DUT()
    bench = ProtoBench(dut, seed=blocks)
    words = identify_words()
    n = 128 // blocks

    def body():
        for rep in range(2):
            yield from bench.command(identify=1)
            yield from bench.wait_frames(1 + 2*rep)
            for b in range(blocks):
                last = b == blocks - 1
                yield from bench.send_frame(pio_setup(4*n, 0x50 if last else 0x80))
                yield from bench.send_frame([0x46] + words[b*n:(b + 1)*n])
            yield from bench.wait_end()
            for _ in range(20):
                yield
            yield from bench.command(read=1, lba=5, count=1)
            yield from bench.wait_frames(2 + 2*rep)
            yield from bench.send_frame([0x46] + words)
            yield from bench.send_frame(d2h())
            for _ in range(300):
                yield
    run(dut, bench, body)
    ident = [b for b in bench.port_beats if not b["read"] and not b["write"]]
    assert [b["data"] for b in ident] == words + words
    assert [i for i, b in enumerate(ident) if b["last"]] == [127, 255]
    assert [(b["read"], b["failed"]) for b in ends(bench)] == [(0, 0), (1, 0), (0, 0), (1, 0)]
    assert all(bench.verdicts) and len(bench.verdicts) == 2*(2*blocks + 2)


def test_aborted_identify_ends_at_once_with_the_device_error():
    """An ATAPI device (or a drive that refuses IDENTIFY DEVICE) answers with a Register D2H with
    ERR and ABRT: the IDENTIFY ends at once, failed, reason DEVICE; LiteSATA's layer flushed the
    FIS and waited for a PIO Setup until a timeout."""
    dut = DUT()
    bench = ProtoBench(dut)

    def body():
        yield from bench.command(identify=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(d2h(0x51, 0x04))
        yield from bench.wait_end(limit=200)
    run(dut, bench, body)
    assert [(b["failed"], b["last"]) for b in ends(bench)] == [(1, 1)]
    assert bench.reasons == [CMD_REASON["DEVICE"]]


def test_a_late_status_before_the_command_fis_is_taken_is_not_its_status():
    """A Register D2H that arrives while our command FIS is still on its way (a late signature,
    here: the link model takes the FIS only after it) is not the command's status: it is taken,
    reported as stray, and the read waits for its own data and status."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(3)

    def body():
        yield from bench.send_frame(d2h(0x50))          # idle: stray, taken
        yield from bench.command(read=1, lba=1, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.stray == 1
    assert [b["failed"] for b in ends(bench)] == [0]
    assert [b["data"] for b in bench.port_beats if not b["end"]] == words


@pytest.mark.parametrize("extra,event", [(2, "ev_bad_length"), (-1, "ev_bad_length")])
def test_a_status_fis_of_the_wrong_length_is_refused_and_its_repeat_ends_the_read(extra, event):
    """A Register D2H 2 dwords longer (or 1 shorter) with a good CRC: refused (the link answers
    R_ERR, so the drive sends it again), counted; the repeat ends the read normally."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(4)
    bad = d2h() + [0, 0] if extra > 0 else d2h()[:4]

    def body():
        yield from bench.command(read=1, lba=2, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(bad)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.verdicts == [1, 0, 1]
    assert bench.events[event] == 1 and bench.events["ev_refused"] == 1
    assert [b["failed"] for b in ends(bench)] == [0]
    assert bench.reasons == [CMD_REASON["OK"]]


def test_an_unknown_fis_type_is_refused_and_the_command_goes_on():
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(5)

    def body():
        yield from bench.command(read=1, lba=3, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0xD5, 0x12345678])     # a type SATA does not define
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.verdicts == [0, 1, 1] and bench.events["ev_unknown"] == 1
    assert [b["failed"] for b in ends(bench)] == [0]


def test_a_bad_frame_repeated_past_the_limit_fails_the_command():
    """A drive that keeps sending the same over-long status: refused each time, and after
    FIS_REFUSALS in a row the read ends with reason PROTOCOL (no timeout needed), and the next
    command works."""
    from ecpsata.core.command import FIS_REFUSALS
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(6)

    def body():
        yield from bench.command(read=1, lba=4, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + words)
        for _ in range(FIS_REFUSALS):
            yield from bench.send_frame(d2h() + [0, 0])
        yield from bench.wait_end(limit=100)
        for _ in range(20):
            yield
        yield from bench.command(read=1, lba=4, count=1)
        yield from bench.wait_frames(2)
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(d2h())
        for _ in range(300):
            yield
    run(dut, bench, body)
    assert [b["failed"] for b in ends(bench)] == [1, 0]
    assert bench.reasons == [CMD_REASON["PROTOCOL"], CMD_REASON["OK"]]


@pytest.mark.parametrize("fis", ["dma_activate", "data", "pio_setup_zero"])
def test_a_fis_out_of_place_is_refused(fis):
    """A DMA Activate or a Data FIS during a non-data command, a PIO Setup with a zero count
    during IDENTIFY: refused (R_ERR), and the command ends on its own status."""
    dut = DUT()
    bench = ProtoBench(dut)
    frame = {"dma_activate": [0x39], "data": [0x46, 1, 2, 3],
             "pio_setup_zero": pio_setup(0)}[fis]

    def body():
        if fis == "pio_setup_zero":
            yield from bench.command(identify=1)
        else:
            yield from nodata(dut, command=0xEA)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(frame)
        yield from bench.send_frame(d2h(0x51, 0x04) if fis == "pio_setup_zero" else d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.verdicts == [0, 1]
    assert bench.events["ev_unexpected"] == 1
    assert len(ends(bench)) == 1


def nodata(dut, command, features=0, count=0, lba=0):
    sink = dut.port.sink
    for name, v in (("nodata", 1), ("command", command), ("features", features),
                    ("count", count), ("sector", lba), ("last", 1), ("valid", 1)):
        yield getattr(sink, name).eq(v)
    yield
    while not (yield sink.ready):
        yield
    yield sink.valid.eq(0)
    yield sink.nodata.eq(0)


@pytest.mark.parametrize("status,failed", [(0x50, 0), (0x51, 1)])
def test_non_data_command(status, failed):
    """SET FEATURES (EFh, features 02h: write cache on) goes out with its fields, and ends on the
    drive's Register D2H."""
    dut = DUT()
    bench = ProtoBench(dut)

    def body():
        yield from nodata(dut, command=0xEF, features=0x02, count=0)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(d2h(status, 0x04 if failed else 0))
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(0xEF, 0, 0x40, 0, features=0x02)]
    assert [(b["failed"], b["read"], b["write"]) for b in ends(bench)] == [(failed, 0, 0)]
    assert bench.reasons == [CMD_REASON["DEVICE"] if failed else CMD_REASON["OK"]]


def test_more_data_than_asked_fails_the_read_and_is_not_passed_on():
    """The drive sends one dword more than the read asked for: the port gets exactly 128 dwords,
    the read fails with reason EXTRA once its status has come."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(7)

    def body():
        yield from bench.command(read=1, lba=6, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + words + [0xDEADBEEF])
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert [b["data"] for b in bench.port_beats if not b["end"]] == words
    assert [b["failed"] for b in ends(bench)] == [1]
    assert bench.reasons == [CMD_REASON["EXTRA"]]


def test_a_failed_data_fis_without_a_status_ends_after_the_settle_time():
    """A Data FIS with a bad CRC and no status after it: the read ends failed (DATA_CRC) once the
    settle time has passed without a FIS, instead of waiting for ever."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(8)

    def body():
        yield from bench.command(read=1, lba=7, count=1)
        yield from bench.wait_frames(1)
        src = dut.link.source
        for i, w in enumerate([0x46] + words):
            yield src.data.eq(w)
            yield src.last.eq(i == 128)
            yield src.error.eq(i == 128)
            yield src.valid.eq(1)
            yield
            while not (yield src.ready):
                yield
        yield src.valid.eq(0)
        yield from bench.wait_end(limit=5000)
    run(dut, bench, body)
    assert [b["failed"] for b in ends(bench)] == [1]
    assert bench.reasons == [CMD_REASON["DATA_CRC"]]
