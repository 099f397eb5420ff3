# SPDX-License-Identifier: BSD-2-Clause
"""The receive clock's frame check (ecpsata/phy/rx_frame.py): a frame is good at its EOF only when
its CRC is right and it held 2 to FRAME_MAX_DWORDS dwords; its flag stays until the next SOF;
the flag for a good Register D2H is set with it for that type and length only.
Then the same through the receive datapath, the line looped back from the transmit datapath: the
frame check sees the dwords after the CONT expansion, and a PHY built without it never flags a
frame good."""

import random

import pytest

from migen import *

from ecpsata.phy.common import (DEC_ROM_D21_6, DEC_ROM_WIDTH, EOF_HI_BYTE, FRAME_MAX_DWORDS,
                                SDB_FIS_TYPE, SDB_FRAME_DWORDS, SETUP_FIS_TYPE, SETUP_FRAME_DWORDS,
                                STATUS_FIS_TYPE, STATUS_FRAME_DWORDS, decode_rom, primitives)
from ecpsata.phy.rx_frame import FrameCheck
from ecpsata.sim.vdrive.host_model import crc32, scrambler

from tests.support.phy_harness import run_word_sim
from tests.phy.test_datapath import LoopDUT, line_process, link_mode


def frame(payload, corrupt=None):
    """The data dwords of a frame as the drive sends them: payload and CRC, scrambled; with
    ``corrupt`` (an index) one bit of that dword flipped on the line."""
    dwords = payload + [crc32(payload)]
    line = [d ^ s for d, s in zip(dwords, scrambler(len(dwords)))]
    if corrupt is not None:
        line[corrupt] ^= 1 << 7
    return line


def present(fc, kind, value):
    """Puts one entry on the frame check's input for a word clock (``valid`` with it)."""
    yield fc.valid.eq(1)
    yield fc.sof.eq(kind == "SOF")
    yield fc.eof.eq(kind == "EOF")
    yield fc.data_dword.eq(kind == "D")
    yield fc.data.eq(value if kind == "D" else primitives[kind])
    yield


def check_frames(frames, between=("HOLD",), status=False, setup=False, sdb=False):
    """Feeds FrameCheck one entry per other cycle (its dwords come every other word clock): each
    frame an SOF, its data dwords (with the primitives ``between`` after the first), EOF. Returns
    ``good`` after each EOF, and once more after the next SOF; with ``status``, (``good``,
    ``good_status``) there; with ``setup``, (``good``, ``good_status``, ``good_setup``); with
    ``sdb``, (``good``, ``good_sdb``, ``second``)."""
    fc = ClockDomainsRenamer({"sata_rx": "sys"})(FrameCheck())
    seen = []

    def feed():
        for n, dwords in enumerate(frames):
            entries = [("SOF", 0)] + [("D", dwords[0])] + [(p, 0) for p in between] + \
                      [("D", d) for d in dwords[1:]] + [("EOF", 0)]
            for i, (kind, value) in enumerate(entries):
                yield from present(fc, kind, value)
                yield fc.valid.eq(0)
                # the EOF as it is decoded: a word clock before it comes with ``valid``
                nxt = entries[i + 1][0] if i + 1 < len(entries) else None
                yield fc.eof_early.eq(nxt == "EOF")
                yield
                yield fc.eof_early.eq(0)
                if kind == "SOF" and n:
                    seen.append(("after SOF", (yield from flags())))
            yield
            seen.append(("EOF", (yield from flags())))

    def flags():
        good = yield fc.good
        if sdb:
            return (good, (yield fc.good_sdb), (yield fc.second))
        if setup:
            return (good, (yield fc.good_status), (yield fc.good_setup))
        return ((good, (yield fc.good_status)) if status else good)

    run_simulation(fc, feed())
    return seen


PAYLOAD = [0x00000046] + [random.Random(1).getrandbits(32) for _ in range(40)]


@pytest.mark.parametrize("case, frames, good", [
    ("good",  [frame(PAYLOAD)], [1]),
    ("crc",   [frame(PAYLOAD, corrupt=5)], [0]),
    ("crc-of-crc", [frame(PAYLOAD, corrupt=len(PAYLOAD))], [0]),
    ("short", [frame([])[:1]], [0]),                             # the CRC alone: not a FIS
    ("two",   [frame([0x00000046])], [1]),                      # a header and its CRC
    ("longest", [frame([0x46] + [7] * (FRAME_MAX_DWORDS - 2))], [1]),
    ("too-long", [frame([0x46] + [7] * (FRAME_MAX_DWORDS - 1))], [0]),
])
def test_a_frame_is_good_only_with_its_crc_and_a_fis_s_length(case, frames, good):
    assert [g for what, g in check_frames(frames) if what == "EOF"] == good


def test_the_flag_stays_until_the_next_sof_and_each_frame_starts_afresh():
    """A bad frame after a good one: the SOF clears the flag, and the descrambler and CRC start
    again (a good frame after a bad one is good)."""
    seen = check_frames([frame(PAYLOAD), frame(PAYLOAD, corrupt=3), frame(PAYLOAD[:9])])
    assert seen == [("EOF", 1), ("after SOF", 0), ("EOF", 0), ("after SOF", 0), ("EOF", 1)]


def test_the_status_flag_is_set_for_a_good_register_d2h_only():
    """A good Register D2H (its type, 5 dwords and its CRC) sets both flags; a good frame one
    dword longer or shorter, a Register D2H with a bad CRC, or a good PIO Setup (a Register D2H's
    length, another type) sets neither the status flag nor, with the bad CRC, the other; the
    next SOF clears both, and a Register D2H after the PIO Setup sets it again."""
    d2h = [0x00500034, 1, 2, 3, 4]
    pio_setup = [0x0050605F, 1, 2, 3, 512]
    assert STATUS_FRAME_DWORDS == len(d2h) + 1 and STATUS_FIS_TYPE == d2h[0] & 0xFF
    seen = check_frames([frame(d2h), frame(d2h + [5]), frame(d2h[:4]), frame(d2h, corrupt=2),
                         frame(pio_setup), frame(d2h)], status=True)
    assert seen == [("EOF", (1, 1)), ("after SOF", (0, 0)), ("EOF", (1, 0)), ("after SOF", (0, 0)),
                    ("EOF", (1, 0)), ("after SOF", (0, 0)), ("EOF", (0, 0)), ("after SOF", (0, 0)),
                    ("EOF", (1, 0)), ("after SOF", (0, 0)), ("EOF", (1, 1))]


def test_the_setup_flag_is_set_for_a_good_dma_setup_only():
    """A good DMA Setup (its type, 7 dwords and its CRC) sets the flag for any good frame and its
    own, not the status flag; a good frame one dword longer or shorter (a Register D2H's length
    among them, whose type is not a Register D2H's either), a good frame of its length of another
    type, or a DMA Setup with a bad CRC does not set it; the next SOF clears it."""
    setup = [0x00000041, 5, 0, 0, 0, 4096, 0]
    assert SETUP_FRAME_DWORDS == len(setup) + 1 and SETUP_FIS_TYPE == setup[0] & 0xFF
    seen = check_frames([frame(setup), frame(setup + [0]), frame(setup[:6]), frame(setup[:5]),
                         frame([0x00000046] + setup[1:]), frame(setup, corrupt=1)], setup=True)
    assert seen == [("EOF", (1, 0, 1)), ("after SOF", (0, 0, 0)),
                    ("EOF", (1, 0, 0)), ("after SOF", (0, 0, 0)),
                    ("EOF", (1, 0, 0)), ("after SOF", (0, 0, 0)),
                    ("EOF", (1, 0, 0)), ("after SOF", (0, 0, 0)),
                    ("EOF", (1, 0, 0)), ("after SOF", (0, 0, 0)),
                    ("EOF", (0, 0, 0))]


def test_the_sdb_flag_is_set_for_a_good_set_device_bits_only_and_its_second_dword_kept():
    """A good Set Device Bits (its type, 2 dwords and its CRC) sets its flag, and the frame's
    second dword (its SActive) is kept descrambled; a frame of its length of another type, one
    dword longer, or with a bad CRC does not set it; the next SOF clears it."""
    sdb = [0x000040A1, 0x80000005]
    assert SDB_FRAME_DWORDS == len(sdb) + 1 and SDB_FIS_TYPE == sdb[0] & 0xFF
    seen = check_frames([frame(sdb), frame([0x00000046, 7]), frame(sdb + [0]),
                         frame(sdb, corrupt=1)], sdb=True, between=())
    assert seen == [("EOF", (1, 1, 0x80000005)), ("after SOF", (0, 0, 0x80000005)),
                    ("EOF", (1, 0, 7)), ("after SOF", (0, 0, 7)),
                    ("EOF", (1, 0, 0x80000005)), ("after SOF", (0, 0, 0x80000005)),
                    ("EOF", (0, 0, 0x80000005 ^ (1 << 7)))]


def test_the_flag_is_set_as_the_eof_comes_with_valid():
    """The verdict comes from the EOF as it is decoded (``eof_early``), a word clock before the EOF
    reaches the check's input: the flag is already set in the word clock the EOF comes with
    ``valid``, its CRC dword having entered the check two word clocks before (the soonest)."""
    fc = ClockDomainsRenamer({"sata_rx": "sys"})(FrameCheck())
    dwords = frame(PAYLOAD[:6])
    entries = [("SOF", 0)] + [("D", d) for d in dwords] + [("EOF", 0)]
    seen = []

    def feed():
        for i, (kind, value) in enumerate(entries):
            yield from present(fc, kind, value)     # (writes show from the next word clock on)
            if kind == "EOF":
                seen.append((yield fc.good))
            yield fc.valid.eq(0)
            yield fc.eof_early.eq(i + 1 < len(entries) and entries[i + 1][0] == "EOF")
            yield
            yield fc.eof_early.eq(0)
        seen.append((yield fc.good))

    run_simulation(fc, feed())
    assert seen == [1, 1]


def sdb_timeline(sdb, setup_mask=0, sdb_mask=0):
    """Feeds one Set Device Bits (``sdb``: its two dwords) with its dwords as close as they come
    (every other word clock), the masks set. Returns {signal: [word clocks it was set in]} for
    ``good_sdb``, ``setup_ok`` and ``sdb_ok``."""
    fc = ClockDomainsRenamer({"sata_rx": "sys"})(FrameCheck())
    entries = [("SOF", 0)] + [("D", d) for d in frame(sdb)] + [("EOF", 0)]
    seen = {"good_sdb": [], "setup_ok": [], "sdb_ok": []}

    def sample(cycle):
        for name in seen:
            if (yield getattr(fc, name)):
                seen[name].append(cycle)

    def feed():
        yield fc.setup_mask.eq(setup_mask)
        yield fc.sdb_mask.eq(sdb_mask)
        cycle = 0
        for i, (kind, value) in enumerate(entries + [(None, 0)] * 3):
            if kind:
                yield from present(fc, kind, value)
            else:
                yield
            cycle += 1
            yield from sample(cycle)
            # the EOF as it is decoded: a word clock before it comes with ``valid``
            nxt = entries[i + 1][0] if i + 1 < len(entries) else None
            yield fc.valid.eq(0)
            yield fc.eof_early.eq(nxt == "EOF")
            yield
            yield fc.eof_early.eq(0)
            cycle += 1
            yield from sample(cycle)

    run_simulation(fc, feed())
    return seen


def test_the_second_dword_is_compared_with_the_masks():
    """When the flag is set, ``setup_ok``: the second dword's low five bits are a tag of the
    setup mask; ``sdb_ok``: the second dword holds only tags of the SDB mask (an empty one:
    always)."""
    def at_flag(sdb, setup_mask, sdb_mask):
        seen = sdb_timeline(sdb, setup_mask, sdb_mask)
        flag = seen["good_sdb"][0]
        return int(flag in seen["setup_ok"]), int(flag in seen["sdb_ok"])

    sdb = [0x000040A1, 0x00000005]
    assert at_flag(sdb, 1 << 5, 0b0101) == (1, 1)
    assert at_flag(sdb, 1 << 4, 0b0111) == (0, 1)
    assert at_flag(sdb, 1 << 5, 0b0100) == (1, 0)
    assert at_flag(sdb, 0xFFFFFFDF, 0) == (0, 0)
    assert at_flag([0x000040A1, 0], 1, 0) == (1, 1)


def test_the_comparisons_are_ready_two_word_clocks_before_the_flags_at_the_soonest():
    """The transmit datapath takes the comparisons and the flags through synchronisers of their
    own, which may differ by one word clock: the comparisons must take the frame's values two word
    clocks before the flags in the shortest frame with its dwords as close as they come, so that
    they are the frame's own when its flags cross. (A tag of the setup mask: ``setup_ok`` rises;
    an SActive outside the SDB mask: ``sdb_ok`` falls.)"""
    seen = sdb_timeline([0x000040A1, 0x00000005], setup_mask=1 << 5, sdb_mask=0b0001)
    flag = seen["good_sdb"][0]
    for name, final in (("setup_ok", True), ("sdb_ok", False)):
        assert (flag in seen[name]) == final, (name, seen)
        changed = [c for c in range(1, flag + 1) if (c in seen[name]) != (c - 1 in seen[name])]
        assert changed and flag - changed[-1] >= 2, (name, flag, seen[name])


def test_the_decoder_s_rom_flags_eof_s_second_half_for_the_check_only():
    """The frame check's EOF comes from two ROM bits: D21.6 as a data character, nothing else;
    the ROM without the check has no 21st bit and the same 20 as the check's."""
    rom, base = decode_rom(eof_hi=True), decode_rom()
    assert all(e >> DEC_ROM_WIDTH == 0 for e in base)
    assert [e & ((1 << DEC_ROM_WIDTH) - 1) for e in rom] == base
    flagged = [e for e in rom if e >> DEC_ROM_D21_6 & 1]
    assert flagged and all(e & 0xFF == EOF_HI_BYTE and not e >> 8 & 1 for e in flagged)
    valid = [e for e in rom if e & 0xFF == EOF_HI_BYTE and not e >> 8 & 1 and e >> 9 & 3]
    assert len(flagged) == len(valid)


# Through the datapath ------------------------------------------------------------------------------

def run_frame(frame_check, data, cont_junk=False):
    """Sends a frame from the transmit datapath over the looped-back line: X_RDY, SOF, ``data``
    (with HOLD HOLD CONT, scrambled junk and HOLD after its second dword, which the drive may send
    in a frame: the receiver repeats HOLD in place of CONT and the junk), EOF, WTRM. Returns the
    receive datapath's frame_good before the SOF and after the EOF."""
    dut = LoopDUT(frame_check=frame_check)
    flags = []
    hold = [("HOLD", 1), ("HOLD", 1), ("CONT", 1)] + \
           [(random.Random(2).getrandbits(32), 0) for _ in range(6)] + [("HOLD", 1)] \
        if cont_junk else []
    dwords = [("X_RDY", 1)] * 3 + [("SOF", 1)] + [(d, 0) for d in data[:2]] + hold + \
             [(d, 0) for d in data[2:]] + [("EOF", 1)] + [("WTRM", 1)] * 3

    def stream():
        tx = dut.tx
        yield from link_mode(dut, 60)
        flags.append((yield dut.rx.frame_good))
        for value, k in dwords:
            yield tx.sink.valid.eq(1)
            yield tx.sink.data.eq(primitives[value] if k else value)
            yield tx.sink.charisk.eq(k)
            yield
            while not (yield tx.sink.ready):
                yield
        yield tx.sink.valid.eq(0)
        for _ in range(80):
            yield
        flags.append((yield dut.rx.frame_good))

    def line():
        yield "passive"
        yield from line_process(dut, 0, 0)

    run_word_sim(dut, {"sys": stream(), "sata_tx": line()}, dut.word_ce)
    return flags


@pytest.mark.parametrize("case", ["good", "crc", "cont-junk"])
@pytest.mark.parametrize("frame_check", [True, False])
def test_the_datapath_s_frame_check_sees_the_link_layer_s_dwords(case, frame_check):
    data = frame(PAYLOAD[:12], corrupt=4 if case == "crc" else None)
    flags = run_frame(frame_check, data, cont_junk=case == "cont-junk")
    assert flags == [0, int(frame_check and case != "crc")], (case, flags)
