# SPDX-License-Identifier: BSD-2-Clause
"""Datapath: 8b10b known answers, comma alignment at every bit slip and polarity, dword assembly,
CDC with random backpressure, ALIGN insertion, error counting."""

import random

import pytest

from migen import *
from litex.gen import LiteXModule

from ecpsata.phy.common import *
from ecpsata.phy.datapath import (ECPSATAPHYDatapathTX, ECPSATAPHYDatapathRX, TX_MODE_OOB, TX_MODE_D10_2,
                                   TX_MODE_ALIGN, TX_MODE_LINK)

from tests.support.phy_harness import run_word_sim

PRIM = {v: k for k, v in primitives.items()}

# 8b10b reference model ----------------------------------------------------------------------------

def test_8b10b_known_answers():
    # IEEE 802.3 / SATA: K28.5 RD- = 001111 1010, D10.2 = 010101 0101, D21.5 = 101010 1010.
    assert encode_symbol(0xBC, 1, 0) == (K28_5_RDN, 1)
    assert encode_symbol(0xBC, 1, 1) == (K28_5_RDP, 0)
    assert encode_symbol(0x4A, 0, 0)[0] == encode_symbol(0x4A, 0, 1)[0] == 0x2AA
    assert encode_symbol(0xB5, 0, 0)[0] == 0x155
    # D0.0 RD- = 100111 0100 (unbalanced 6b flips RD, so the 4b uses the RD+ column).
    assert encode_symbol(0x00, 0, 0) == (0b0010111001, 0)
    # Code space: 256 data + 12 control symbols, 268 x 2 minus the balanced codes shared by both
    # disparities: the table holds every distinct code once.
    assert len({(b, k) for b, k, _, _ in DECODE_TABLE.values()}) == 268
    for rd in (0, 1):
        for k in (0, 1):
            for b in (K_CODES if k else range(256)):
                code, rd_out = encode_symbol(b, k, rd)
                assert decode_symbol(code, rd) == (b, k, 0, 0, rd_out)
    # A K28.5 with the wrong running disparity is a disparity error; 0x000 a code error.
    assert decode_symbol(K28_5_RDP, 0)[3] == 1
    assert decode_symbol(0, 0)[2] == 1


# Loopback through a line with bit slip and polarity ------------------------------------------------

class LoopDUT(LiteXModule):
    """``frame_check``: the receive datapath's; ``early_eof``: the transmit datapath's early R_OK
    (its ``frame_good`` input then set by the test)."""
    def __init__(self, frame_check=False, early_eof=False):
        self.cd_sata_word = ClockDomain("sata_word", reset_less=True)
        self.cd_sata_tx = ClockDomain("sata_tx")
        self.cd_sata_rx = ClockDomain("sata_rx")
        self.word_ce = Signal(reset=1)
        self.tx = ECPSATAPHYDatapathTX(early_eof=early_eof)
        self.rx = ECPSATAPHYDatapathRX(frame_check=frame_check)
        self.comb += self.rx.source.ready.eq(1)


def line_process(dut, slip, invert, corrupt_at=None, log=None):
    """sata_tx domain: TX word -> polarity, slip -> RX word (one word per clock)."""
    prev = 0
    n = 0
    while True:
        w = (yield dut.tx.tx_data)
        if invert:
            w ^= 0xFFFFF
        out = ((w << 20 | prev) >> (20 - slip)) & 0xFFFFF if slip else w
        prev = w
        if corrupt_at is not None and n in corrupt_at:
            out = 0  # no transitions: code errors
        yield dut.rx.rx_data.eq(out)
        n += 1
        yield


def litesata_aligns(frames):
    """Inserts ALIGN pairs like LiteSATA's link layer: 2 ALIGNs, then 254 other dwords."""
    out = []
    for f in frames:
        if len(out) % 256 == 0:
            out += [(primitives["ALIGN"], 1)]*2
        out.append(f)
    return out


def bring_up(dut, align_words=120):
    """Both FIFOs flushed under D10.2, then ALIGNs for ``align_words`` cycles (the receiver locks)."""
    yield dut.tx.flush.eq(1)
    yield dut.rx.flush.eq(1)
    yield dut.tx.mode.eq(TX_MODE_D10_2)
    for _ in range(20):
        yield
    yield dut.tx.flush.eq(0)
    yield dut.rx.flush.eq(0)
    yield dut.tx.mode.eq(TX_MODE_ALIGN)
    for _ in range(align_words):
        yield


def link_mode(dut, settle):
    """``bring_up``, then link mode with the received ALIGNs dropped, ``settle`` cycles on."""
    yield from bring_up(dut)
    yield dut.tx.mode.eq(TX_MODE_LINK)
    yield dut.rx.drop_align.eq(1)
    for _ in range(settle):
        yield


def run_loop(slip, invert, n_frames=0, frame_len=40, rng=None, backpressure=0.0,
             corrupt_at=None, align_words=120, link=True, link_aligns=False, drop_align=False,
             seen=None, **periods):
    rng = rng or random.Random(slip*2 + invert)
    dut = LoopDUT()
    sent, received = [], []
    seen = seen if seen is not None else {}

    def stream():
        tx = dut.tx
        yield from bring_up(dut, align_words)
        if not link:
            return
        yield tx.mode.eq(TX_MODE_LINK)
        yield dut.rx.drop_align.eq(int(drop_align))
        frames = []
        for f in range(n_frames):
            frames += [(primitives["X_RDY"], 1)]*3 + [(primitives["SOF"], 1)]
            frames += [(rng.getrandbits(32), 0) for _ in range(frame_len)]
            frames += [(primitives["EOF"], 1)] + [(primitives["WTRM"], 1)]*3
        if link_aligns:
            frames = litesata_aligns(frames)
        for data, k in frames:
            while rng.random() < backpressure:
                yield tx.sink.valid.eq(0)
                yield
            yield tx.sink.valid.eq(1)
            yield tx.sink.data.eq(data)
            yield tx.sink.charisk.eq(k)
            yield
            while not (yield tx.sink.ready):
                yield
            sent.append((data, k))
        yield tx.sink.valid.eq(0)
        for _ in range(300):
            yield

    def collect():
        yield "passive"
        seen["align_seen"] = 0
        while True:
            seen["align_seen"] += (yield dut.rx.align_seen)
            if (yield dut.rx.source.valid):
                received.append(((yield dut.rx.source.data), (yield dut.rx.source.charisk),
                                 (yield dut.rx.source.code_errors), (yield dut.rx.source.disp_errors)))
            yield

    def line():
        yield "passive"
        yield from line_process(dut, slip, invert, corrupt_at)

    run_word_sim(dut, {"sys": [stream(), collect()], "sata_tx": line()}, dut.word_ce, **periods)
    return dut, sent, received


def collapse(stream):
    """The dword stream with runs of one primitive cut to one: the TX datapath repeats the last
    primitive while its FIFO is dry, and primitives mean the same however often they come."""
    out = []
    for d in stream:
        if d[1] == 1 and out and out[-1] == d:
            continue
        out.append(d)
    return out


def expected_align(invert):
    return primitives["ALIGN_N"] if invert else primitives["ALIGN"]


@pytest.mark.parametrize("invert", [0, 1])
def test_aligner_every_slip(invert):
    """ALIGN through a line delayed by 0..19 bits (and inverted): after lock every dword is an
    ALIGN (or ALIGN_N) with the K28.5 in byte 0, without errors."""
    for slip in range(20):
        dut, sent, received = run_loop(slip, invert, align_words=100, link=False)
        words = [r for r in received]
        assert len(words) > 30, slip
        # The first dword may be assembled across the lock; all later ones are exact.
        for data, k, ce, de in words[2:]:
            assert (data, k) == (expected_align(invert), 0b0001), (slip, hex(data), k)
            assert ce == 0 and de == 0, slip


@pytest.mark.parametrize("slip", [0, 11])
def test_link_stream_random_backpressure(slip):
    """Frames with random data through the TX FIFO (random producer gaps, FIFO back-pressure), the
    encoder, a slipped line, the aligner, decoder and RX FIFO. The link stream comes out intact;
    filler is HOLD inside frames and a repeat of the last primitive outside (WTRM after EOF);
    ALIGN pairs at most 256 dwords apart."""
    dut, sent, received = run_loop(slip, 0, n_frames=6, frame_len=100,
                                   backpressure=0.3, rng=random.Random(7 + slip))
    assert all(ce == 0 and de == 0 for _, _, ce, de in received)
    # Drop the ALIGN preamble (and a partial dword at lock).
    i = next(j for j, r in enumerate(received) if r[:2] == (primitives["ALIGN"], 1))
    while received[i][:2] == (primitives["ALIGN"], 1):
        i += 1
    stream = [(d, k) for d, k, _, _ in received[i:]]
    # ALIGN spacing: never more than 254 dwords between pairs.
    since, pairs = 0, 0
    in_frame = False
    fillers = {"HOLD": 0}
    payload = []
    run = 0
    for d, k in stream:
        if (d, k) == (primitives["ALIGN"], 1):
            run += 1
            if run == 2:
                pairs += 1
            since = 0
            continue
        assert run in (0, 2), "ALIGNs come in pairs"
        run = 0
        since += 1
        assert since <= 254
        payload.append((d, k))
    assert pairs >= 2
    # Everything sent arrives in order; fillers only in between.
    it = iter(payload)
    got = []
    for d, k in payload:
        if k == 1 and d == primitives["SOF"]:
            in_frame = True
        if k == 1 and d == primitives["EOF"]:
            in_frame = False
        if k == 1 and d == primitives["HOLD"] and in_frame:
            fillers["HOLD"] += 1
            continue
        got.append((d, k))
    while got and got[0] == (primitives["SYNC"], 1):   # idle before the first frame
        got.pop(0)
    assert collapse(got) == collapse(sent)
    assert got[-1] == (primitives["WTRM"], 1)           # after EOF the filler is WTRM
    assert fillers["HOLD"] > 0  # producer gaps inside frames were covered with HOLD
    print(f"slip {slip}: {len(sent)} dwords, {pairs} ALIGN pairs, fillers {fillers}")


def test_aligns_stop_before_the_crossing_once_the_link_is_up():
    """With drop_align (the link is up) no ALIGN reaches sys, the rest of the stream is intact,
    and the dropped ALIGNs still show as align_seen pulses (the controller's ALIGN-loss watch)."""
    seen = {}
    dut, sent, received = run_loop(5, 0, n_frames=6, frame_len=200, rng=random.Random(11),
                                   drop_align=True, seen=seen)
    i = next(j for j, r in enumerate(received) if r[:2] == (primitives["ALIGN"], 1))
    while received[i][:2] == (primitives["ALIGN"], 1):
        i += 1
    stream = [(d, k) for d, k, _, _ in received[i:]]
    # A few ALIGNs may cross while drop_align itself crosses to sata_rx; none after that.
    late = [j for j, d in enumerate(stream) if d == (primitives["ALIGN"], 1) and j > 8]
    assert late == []
    body = [d for d in stream if d not in ((primitives["SYNC"], 1), (primitives["ALIGN"], 1))
            and not (d == (primitives["HOLD"], 1))]
    assert collapse(body) == collapse(sent)
    # 1,300+ dwords on the line: at least 5 ALIGN pairs went by, each pair one or two pulses.
    assert seen["align_seen"] >= 5


@pytest.mark.parametrize("drop_align", [True, False])
def test_a_drive_clock_faster_than_sys_at_the_dword_rate(drop_align):
    """The boards run sys at the Gen2 dword rate (75 MHz) and a drive may run its clock up to
    350 ppm faster than ours: the RX FIFO must not fill. Here the line runs 0.5 % faster than
    sys's dword rate (sys period 4020 against two word periods of 2000), one 3,000-dword frame:
    with the ALIGNs dropped before the crossing (0.78 % of the line) nothing is lost; passing
    them too overflows the FIFO, the margin the drop gives."""
    dut, sent, received = run_loop(5, 0, n_frames=1, frame_len=3000, rng=random.Random(3),
                                   drop_align=drop_align, sys_period=4020, word_period=2000)
    stream = [(d, k) for d, k, _, _ in received]
    body = [d for d in stream if d not in ((primitives["SYNC"], 1), (primitives["ALIGN"], 1))
            and d != (primitives["HOLD"], 1)]
    data_sent = [d for d in sent if d[1] == 0]
    data_got = [d for d in body if d[1] == 0]
    if drop_align:
        assert data_got == data_sent
    else:
        assert len(data_got) < len(data_sent)
    print(f"drop_align={drop_align}: {len(data_sent) - len(data_got)} of {len(data_sent)} data "
          f"dwords lost")


def test_decode_errors_are_counted():
    # Zero 3 line words after lock (a slipped line: they straddle symbols): each costs one or two
    # dwords with code errors, and the next symbol may see the running disparity off.
    dut, sent, received = run_loop(3, 0, align_words=200, corrupt_at={150, 170, 190}, link=False)
    code = sum(ce for _, _, ce, de in received)
    bad = sum(1 for _, _, ce, de in received if ce + de)
    assert 6 <= code <= 9
    assert 3 <= bad <= 6
    # Between the hits the ALIGNs decode cleanly.
    assert sum(1 for d, k, ce, de in received if (d, k) == (primitives["ALIGN"], 1) and not ce + de) > 100


def test_link_layer_aligns_are_replaced_not_added():
    """A link layer that sends its own ALIGN pairs every 256 dwords (as LiteSATA does): the PHY
    drops them and sends its own, one pair per 256 dwords, so the line carries no extra ALIGNs."""
    dut, sent, received = run_loop(4, 0, n_frames=4, frame_len=200, link_aligns=True)
    i = next(j for j, r in enumerate(received) if r[:2] == (primitives["ALIGN"], 1))
    while received[i][:2] == (primitives["ALIGN"], 1):
        i += 1
    stream = [(d, k) for d, k, _, _ in received[i:]]
    # Pairs exactly 256 dwords apart, the link's and (in the idle tail) the PHY's: nothing extra.
    pos = [j for j, d in enumerate(stream) if d == (primitives["ALIGN"], 1)]
    starts = pos[0::2]
    assert len(pos) >= 6 and all(b == a + 1 for a, b in zip(pos[0::2], pos[1::2]))
    assert all(b - a == 256 for a, b in zip(starts, starts[1:])), pos
    # Everything else arrives in order (the link layer's ALIGNs are not on the line).
    body = [d for d in stream if d not in ((primitives["SYNC"], 1), (primitives["ALIGN"], 1))]
    want = [d for d in sent if d != (primitives["ALIGN"], 1)]
    assert collapse(body) == collapse(want)


def test_the_link_layer_s_primitives_are_known_by_their_second_and_fourth_bytes():
    """With the early R_OK the transmit datapath tells the FIFO head's primitive by its K flag,
    its second byte and its fourth (17 bits): every two primitives the link layer sends differ
    there (ALIGN never reaches the FIFO: the datapath drops the link layer's own)."""
    from ecpsata.core.link import PRIMITIVES
    key = lambda v: ((v >> 8) & 0xFF, v >> 24)
    sent = [p for p in PRIMITIVES if p not in ("ALIGN", "ALIGN_N")]
    keys = {}
    for name in sent:
        assert PRIMITIVES[name] & 0xFF in (0xBC, 0x7C), name       # K28.5 or K28.3 first
        assert key(PRIMITIVES[name]) not in keys, (name, keys.get(key(PRIMITIVES[name])))
        keys[key(PRIMITIVES[name])] = name
    assert len(keys) == 17
