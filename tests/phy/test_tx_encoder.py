# SPDX-License-Identifier: BSD-2-Clause
"""TX encoder stages against the 8b10b reference model, and the TX clock-crossing FIFO with
unrelated clocks and random pacing on both sides."""

import random

from migen import *
from litex.gen import LiteXModule

from ecpsata.phy.common import K_CODES, encode_symbol
from ecpsata.phy.tx_encoder import FORM_BITS, FormEncoder, TXFIFO, form_value, symbol_forms


class EncodeDUT(LiteXModule):
    """Two symbols -> forms (lookup) -> registered -> FormEncoder, as the TX datapath chains them."""
    def __init__(self):
        self.d = [Signal(8), Signal(8)]
        self.k = [Signal(), Signal()]
        self.enc = FormEncoder()
        forms = Signal(2*FORM_BITS)
        for s in range(2):
            f, comb = symbol_forms(self.d[s], self.k[s])
            self.comb += comb
            self.sync.sata_tx += forms[FORM_BITS*s:FORM_BITS*(s + 1)].eq(f)
        self.comb += self.enc.forms.eq(forms)


def test_every_symbol_in_both_disparities_matches_the_model():
    for k in (0, 1):
        for b in (K_CODES if k else range(256)):
            f = form_value(b, k)
            for rd in (0, 1):
                six = (f >> 6) & 63 if rd else f & 63
                rd_mid = rd ^ (f >> 12) & 1
                four = (f >> 17) & 15 if rd_mid else (f >> 13) & 15
                assert (six | four << 6, rd_mid ^ (f >> 21) & 1) == encode_symbol(b, k, rd), (b, k, rd)


def test_encoder_stream_matches_the_model():
    rng = random.Random(7)
    syms = [(b, 0) for b in range(256)] + [(b, 1) for b in K_CODES] * 3
    syms += [(rng.randrange(256), 0) for _ in range(300)]
    syms += [(rng.choice(K_CODES), 1) if rng.random() < 0.3 else (rng.randrange(256), 0) for _ in range(300)]
    syms = syms[:len(syms) // 2 * 2]
    pairs = list(zip(syms[0::2], syms[1::2]))
    dut = EncodeDUT()
    out = []

    def gen():
        for (b0, k0), (b1, k1) in pairs + [((0, 0), (0, 0))] * 2:
            yield dut.d[0].eq(b0); yield dut.k[0].eq(k0)
            yield dut.d[1].eq(b1); yield dut.k[1].eq(k1)
            yield
            out.append((yield dut.enc.output))
    run_simulation(dut, {"sata_tx": gen()}, clocks={"sata_tx": 10})
    got = []
    for w in out[2:2 + len(pairs)]:
        got += [w & 0x3FF, w >> 10]
    rd, ref = 0, []
    for b, k in syms:
        code, rd = encode_symbol(b, k, rd)
        ref.append(code)
    assert got == ref


class FIFODUT(LiteXModule):
    def __init__(self):
        self.cd_sata_tx = ClockDomain("sata_tx")
        self.fifo = TXFIFO(16, 8)


class FIFOCheckDUT(FIFODUT):
    """Writes 1, 2, 3... whenever ``write_en`` and the FIFO has room (sys); reads whenever
    ``read_en`` and it has data, at most every other word clock like the datapath, and counts the
    values read and those out of order (sata_tx)."""
    def __init__(self):
        FIFODUT.__init__(self)
        fifo = self.fifo
        self.write_en = Signal()
        self.read_en  = Signal()
        self.written  = Signal(16, reset=1)
        self.expect   = Signal(16, reset=1)
        self.errors   = Signal(16)
        toggle = Signal()
        self.comb += [
            fifo.we.eq(self.write_en),
            fifo.din.eq(self.written),
            fifo.re.eq(self.read_en & toggle),
        ]
        self.sync += If(fifo.we & fifo.writable, self.written.eq(self.written + 1))
        self.sync.sata_tx += [
            toggle.eq(~toggle),
            If(fifo.re & fifo.readable,
                If(fifo.dout != self.expect, self.errors.eq(self.errors + 1)),
                self.expect.eq(self.expect + 1),
            ),
        ]


def _fifo_run(sys_period, tx_period, n=400, seed=3):
    dut = FIFOCheckDUT()
    rng = random.Random(seed)
    out = {}

    def writer():
        while (yield dut.written) <= n:
            yield dut.write_en.eq(int(rng.random() < 0.7))
            yield
        yield dut.write_en.eq(0)

    def reader():
        for _ in range(40 * n):
            if (yield dut.expect) > n:
                break
            yield dut.read_en.eq(int(rng.random() < 0.6))
            yield
        out["read"] = (yield dut.expect) - 1
        out["errors"] = yield dut.errors
    run_simulation(dut, {"sys": writer(), "sata_tx": reader()},
                   clocks={"sys": sys_period, "sata_tx": tx_period})
    return out["read"], out["errors"]


def test_fifo_keeps_order_and_never_overflows_with_unrelated_clocks():
    for sys_period, tx_period in ((13, 7), (7, 13), (10, 10)):
        read, errors = _fifo_run(sys_period, tx_period)
        assert (read, errors) == (400, 0), (sys_period, tx_period)


def test_fifo_reset_empties_it():
    dut = FIFODUT()
    seen = {}

    def writer():
        for v in range(1, 6):
            yield dut.fifo.din.eq(v); yield dut.fifo.we.eq(1); yield
        yield dut.fifo.we.eq(0)
        for _ in range(10):
            yield
        seen["level_before"] = yield dut.fifo.level
        yield dut.fifo.reset_write.eq(1)
        yield
        yield dut.fifo.reset_write.eq(0)
        for _ in range(10):
            yield
        seen["level_after"] = yield dut.fifo.level

    def reader():
        for _ in range(12):
            yield
        seen["readable_before"] = yield dut.fifo.readable
        for _ in range(8):
            yield
        yield dut.fifo.reset_read.eq(1)
        yield
        yield dut.fifo.reset_read.eq(0)
        for _ in range(12):
            yield
        seen["readable_after"] = yield dut.fifo.readable
    run_simulation(dut, {"sys": writer(), "sata_tx": reader()}, clocks={"sys": 10, "sata_tx": 10})
    assert seen == {"level_before": 5, "readable_before": 1, "level_after": 0, "readable_after": 0}
