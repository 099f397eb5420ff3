# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/transport.py: the verdict on frames the transport drops for their type or their
place is given at the frame's end, once its CRC is known. A bit error in a header is a CRC error
(the drive sends the frame again), not a FIS of an unknown type or out of place: AHCI 1.3.1's
DIAG.F and DIAG.T are for frames that passed their CRC, and such a frame must not count toward
the refusals that end a command."""

import pytest
from migen import *

from tests.core.test_command_with_transport import DUT, d2h, run_sorted_simulation
from tests.core.test_transport_verdicts import ProtoBench, run, identify_words, ends


@pytest.mark.parametrize("frame", [
    [0xD5, 0x12345678, 0x9ABCDEF0],                     # a type SATA does not define
    [0xD5],                                             # the same, one dword
])
@pytest.mark.parametrize("crc_ok", [True, False])
def test_an_unknown_type_is_booked_only_when_its_crc_is_good(frame, crc_ok):
    """In a read: the frame is refused either way; booked as unknown, and counted as a refusal,
    only with a good CRC. With a bad CRC, even FIS_REFUSALS of them in a row do not end the
    command: the drive's next good frame goes on with it."""
    from ecpsata.core.command import FIS_REFUSALS
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(11)
    n = 1 if crc_ok else FIS_REFUSALS

    def body():
        yield from bench.command(read=1, lba=3, count=1)
        yield from bench.wait_frames(1)
        for _ in range(n):
            yield from bench.send_frame(frame, error=not crc_ok)
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.verdicts == [0]*n + [1, 1]
    assert bench.events["ev_unknown"] == int(crc_ok)
    assert bench.events["ev_refused"] == int(crc_ok)
    assert [b["failed"] for b in ends(bench)] == [0]


@pytest.mark.parametrize("crc_ok", [True, False])
def test_a_data_fis_outside_a_data_phase_is_booked_only_when_its_crc_is_good(crc_ok):
    """Outside a command: dropped either way, booked as unexpected only with a good CRC."""
    dut = DUT()
    bench = ProtoBench(dut)

    def body():
        for _ in range(10):
            yield
        yield from bench.send_frame([0x46] + list(range(8)), error=not crc_ok)
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert bench.verdicts == [0]
    assert bench.events["ev_unexpected"] == int(crc_ok)
    assert bench.events["ev_refused"] == int(crc_ok)


def early_link_dut(monkeypatch):
    """The command harness's DUT on a link whose PHY answers a good EOF itself (its frame check):
    ``pre_setup`` and the masks from the transport; the link's receive side idle between the
    frames it passes on (``rx_idle``, here from the frames the bench sends: ``bench_idle``)."""
    import tests.core.test_command_with_transport as harness

    class Link(harness.LinkModel):
        def __init__(self):
            super().__init__()
            self.pre_setup = Signal()
            self.setup_mask = Signal(32)
            self.sdb_mask = Signal(32)
            self.rx_idle = Signal(reset=1)

    monkeypatch.setattr(harness, "LinkModel", Link)
    return DUT()


def level_watch(dut, level, trace, key_index, mask):
    """Records each cycle into ``trace``: (``level``, (the frame's dword ``key_index`` & ``mask``
    once taken, the index of the dword taken) or None)."""
    source, n, key = dut.link.source, 0, None
    while True:
        taken = None
        if (yield source.valid) and (yield source.ready):
            if n == key_index:
                key = (yield source.data) & mask
            taken = (key if n >= key_index else None, n)
            n = 0 if (yield source.last) else n + 1
        trace.append(((yield level), taken))
        yield


def test_a_register_d2h_of_its_length_is_judged_good_wherever_it_comes(monkeypatch):
    """What the PHY's frame check relies on to answer a good Register D2H's EOF with R_OK in its
    word clock whenever the link layer receives: the transport judges every Register D2H of its
    length with a good CRC good, before any command, in a read's data phase (in place of its
    data) and after the command's end; one of another length and one with a bad CRC are refused."""
    dut = early_link_dut(monkeypatch)
    bench = ProtoBench(dut)

    def body():
        for _ in range(10):
            yield
        yield from bench.send_frame(d2h())                  # before any command
        yield from bench.command(read=1, lba=3, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x34])                 # one dword: not its length
        yield from bench.send_frame(d2h(), error=True)      # its CRC bad
        yield from bench.send_frame(d2h())                  # in place of the data: the end
        yield from bench.wait_end()
        yield from bench.send_frame(d2h())                  # after the command's end
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert bench.verdicts == [1, 0, 0, 1, 1]


def held_masks_dut(monkeypatch, setup_mask, sdb_mask, queued=1):
    """The early link's DUT with the queued layer's masks as constants, and the link's receive
    side busy from a frame's first dword until the transport has judged it (as the link layer is
    from X_RDY to its answer)."""
    dut = early_link_dut(monkeypatch)
    trx = dut.transport.rx
    dut.comb += [trx.setup_mask.eq(setup_mask), trx.sdb_mask.eq(sdb_mask), trx.queued.eq(queued)]
    src = dut.link.source
    receiving = Signal()
    dut.sync += If(src.valid, receiving.eq(1)).Elif(dut.link.verdict_valid, receiving.eq(0))
    dut.comb += dut.link.rx_idle.eq(~src.valid & ~receiving)
    return dut


def test_the_masks_are_held_for_each_frame_and_bind_a_dma_setup_of_a_tag_held(monkeypatch):
    """For a link whose PHY answers a good DMA Setup's EOF itself: the transport holds the
    queued layer's setup mask while the link receives, says so (``pre_setup``) and gives it to
    the link (for the PHY); a DMA Setup of a tag held is judged good although the command layer
    refuses it when it is presented (here the non-queued layer, which takes none: a queued layer
    that gave up since); one of another tag is refused; without ``queued`` nothing is held."""
    dut = held_masks_dut(monkeypatch, setup_mask=1 << 5, sdb_mask=0)
    bench = ProtoBench(dut)
    seen = []

    def body():
        for _ in range(10):
            yield
        seen.append(((yield dut.link.pre_setup), (yield dut.link.setup_mask)))
        yield from bench.send_frame([0x41, 3, 0, 0, 0, 4096, 0])
        yield from bench.send_frame([0x41, 5, 0, 0, 0, 4096, 0])
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert seen == [(1, 1 << 5)]
    assert bench.verdicts == [0, 1]


def test_nothing_is_held_for_a_layer_that_does_not_bind_itself(monkeypatch):
    dut = held_masks_dut(monkeypatch, setup_mask=1 << 5, sdb_mask=1 << 5, queued=0)
    bench = ProtoBench(dut)

    def body():
        for _ in range(10):
            yield
        assert (yield dut.link.pre_setup) == 0
        yield from bench.send_frame([0x41, 5, 0, 0, 0, 4096, 0])
        yield from bench.send_frame([0x000040A1, 1 << 5])
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert bench.verdicts == [0, 0]


@pytest.mark.parametrize("queued", [1, 0])
def test_a_set_device_bits_within_the_mask_held_is_judged_at_its_last_dword(monkeypatch, queued):
    """For a link whose PHY answers a good EOF itself: a Set Device Bits whose SActive (its last
    dword) is among the tags held is judged good at that dword, although the command layer
    refuses it when it is presented (here the non-queued layer, which takes none: a queued layer
    that gave up since). One completing a tag outside the mask, or any when nothing is held, is
    judged when it is presented: refused."""
    dut = held_masks_dut(monkeypatch, setup_mask=0, sdb_mask=0b1100, queued=queued)
    bench = ProtoBench(dut)

    def body():
        for _ in range(10):
            yield
        yield from bench.send_frame([0x000040A1, 0b0100])
        yield from bench.send_frame([0x000040A1, 0b0101])
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert bench.verdicts == [queued, 0]
