# SPDX-License-Identifier: BSD-2-Clause
"""8b10b encoding split in two stages for the 150 MHz TX word clock, and the TX clock crossing.

An 8b10b code is the 6b code of bits 0-4 followed by the 4b code of bits 5-7, each taken in one of
two forms by the running disparity (RD), and the RD flips after each unbalanced sub-block. So the
whole lookup depends only on the byte: ``symbol_forms`` gives, per byte, both forms of both
sub-blocks and whether each sub-block is unbalanced (its *form*). What is left for the word clock
once a dword's forms are registered is a two-way choice per sub-block by the running disparity
(``FormEncoder``). The forms of the TX FIFO's head are looked up while the next dword is still
being chosen, so the choice among the FIFO head, ALIGN, the filler and D10.2 picks between forms
that are already registered, and no lookup stands between that choice and the line.

``TXFIFO`` is the sys to sata_tx crossing: an asynchronous FIFO whose read data comes from a
registered read pointer (distributed RAM read asynchronously). The reader's strobe then only
advances that pointer: it does not also address the RAM in the same cycle, as a FIFO with a
registered read port does, which put an adder and the RAM's address decoding on the word clock's
longest path.

# Ref: SATA 3.x §8.5 (8b10b), IEEE 802.3 clause 36 tables (ecpsata/phy/common.py encode_symbol)
"""

from functools import reduce
from operator import or_

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *

from ecpsata.phy.common import _5B6B, _K28_6B, _3B4B_D, _3B4B_A7, _3B4B_K, _disp, SYMBOL_BITS

# A symbol's form: both RD forms of both sub-blocks and their imbalance.
FORM_LAYOUT = [
    ("six_n",  6),  # 6b code if the RD before it is negative
    ("six_p",  6),  # ... positive
    ("u6",     1),  # the 6b code is unbalanced (flips the RD)
    ("four_n", 4),  # 4b code if the RD after the 6b code is negative
    ("four_p", 4),  # ... positive
    ("u4",     1),  # the 4b code is unbalanced
]
FORM_BITS = sum(w for _, w in FORM_LAYOUT)


def _bits(code):
    """'abcdei' / 'fghj' (a sent first) -> integer with a at bit 0."""
    return sum(1 << i for i, c in enumerate(code) if c == "1")


def form_value(byte, k):
    """A symbol's form as an integer (FORM_LAYOUT packed, first field at bit 0)."""
    x, y = byte & 0x1F, byte >> 5
    six = _K28_6B if (k and x == 28) else _5B6B[x]
    if k:
        four = _3B4B_K[y]
    else:
        four = tuple(_3B4B_A7[rd] if y == 7 and x in ((17, 18, 20), (11, 13, 14))[rd]
                     else _3B4B_D[y][rd] for rd in (0, 1))
    fields = [_bits(six[0]), _bits(six[1]), int(_disp(six[0]) != 0),
              _bits(four[0]), _bits(four[1]), int(_disp(four[0]) != 0)]
    value, shift = 0, 0
    for (_, width), f in zip(FORM_LAYOUT, fields):
        value |= f << shift
        shift += width
    return value


def dword_forms_value(dword, charisk):
    """The forms of a dword's four symbols (byte 0 lowest)."""
    return sum(form_value((dword >> 8*i) & 0xFF, (charisk >> i) & 1) << (FORM_BITS*i) for i in range(4))


def symbol_forms(byte, k):
    """Gateware lookup: returns (a FORM_BITS signal with the form of (byte, k), its comb
    statements). The 6b half depends on bits 0-4 and whether the symbol is K28.x, the 4b half on
    bits 5-7, K, and whether this byte takes the alternate D.x.7 code in that RD (a small function
    of bits 0-4): each output bit is a function of at most six inputs. The tables come from the
    same code tables as ``form_value``."""
    x, y = byte[0:5], byte[5:8]
    k28  = Signal()
    a7n  = Signal()  # D.x.7 takes the alternate code in RD- (x = 17, 18, 20)
    a7p  = Signal()  # ... in RD+ (x = 11, 13, 14)
    six  = Signal(13)       # six_n, six_p, u6
    four = [Signal(4), Signal(4)]
    u4   = Signal()
    out  = Signal(FORM_BITS)
    sel6 = Signal(6)
    sel4 = [Signal(5), Signal(5)]

    # Both tables are read off form_value, so the gateware and the model cannot disagree.
    six_mask = (1 << 13) - 1
    six_cases = {v: (form_value(0x1C, 1) if v >> 5 else form_value(v & 0x1F, 0)) & six_mask
                 for v in range(64)}
    alt_x = (17, 11)  # a value of bits 0-4 that takes the alternate D.x.7 code in RD- / RD+
    four_cases = [{}, {}]
    for v in range(32):
        yi, kk, alt = v & 7, (v >> 3) & 1, (v >> 4) & 1
        for rd in (0, 1):
            f = form_value((alt_x[rd] if alt else 0) | (yi << 5), kk)
            four_cases[rd][v] = (f >> (13 + 4*rd)) & 0xF
    # A 4b code's imbalance depends on y only (0, 4 and 7 are unbalanced, in every table).
    unbalanced_y = [y_ for y_ in range(8) if form_value(y_ << 5, 0) >> 21 & 1]
    assert all((form_value(y_ << 5, 1) >> 21 & 1) == (y_ in unbalanced_y) for y_ in range(8))
    comb = [
        k28.eq(k & (x == 28)),
        a7n.eq((x == 17) | (x == 18) | (x == 20)),
        a7p.eq((x == 11) | (x == 13) | (x == 14)),
        sel6.eq(Cat(x, k28)),
        Case(sel6, {v: six.eq(c) for v, c in six_cases.items()}),
        sel4[0].eq(Cat(y, k, a7n)),
        sel4[1].eq(Cat(y, k, a7p)),
        Case(sel4[0], {v: four[0].eq(c) for v, c in four_cases[0].items()}),
        Case(sel4[1], {v: four[1].eq(c) for v, c in four_cases[1].items()}),
        u4.eq(reduce(or_, [y == y_ for y_ in unbalanced_y])),
        out.eq(Cat(six, four[0], four[1], u4)),
    ]
    return out, comb


class FormEncoder(LiteXModule):
    """Stage 2 of the encoder (``sata_tx``): two symbols' forms in, a 20-bit line word out one
    cycle later, the running disparity kept across words (symbol 0 first)."""
    def __init__(self):
        self.forms  = Signal(2*FORM_BITS)
        self.output = Signal(2*SYMBOL_BITS)
        self.rd     = Signal()  # running disparity after the last word (1 = RD+)

        # # #

        rd = self.rd
        codes = []
        for s in range(2):
            f = self.forms[FORM_BITS*s:FORM_BITS*(s + 1)]
            six_n, six_p, u6 = f[0:6], f[6:12], f[12]
            four_n, four_p, u4 = f[13:17], f[17:21], f[21]
            rd_mid = Signal(name=f"rd_mid{s}")
            rd_out = Signal(name=f"rd_out{s}")
            code = Signal(SYMBOL_BITS, name=f"code{s}")
            self.comb += [
                rd_mid.eq(rd ^ u6),
                rd_out.eq(rd_mid ^ u4),
                code.eq(Cat(Mux(rd, six_p, six_n), Mux(rd_mid, four_p, four_n))),
            ]
            codes.append(code)
            rd = rd_out
        self.sync.sata_tx += [
            self.output.eq(Cat(*codes)),
            self.rd.eq(rd),
        ]


class TXFIFO(LiteXModule):
    """Asynchronous FIFO, written in ``sys`` and read in ``sata_tx``, read data from a registered
    pointer. ``level`` (sys) is the count of entries written and not yet known to be read (an
    upper bound, a few cycles old). ``reset_write`` / ``reset_read`` empty it from either side."""
    def __init__(self, width, depth):
        assert depth & (depth - 1) == 0 and depth >= 4
        bits = log2_int(depth) + 1
        # sys
        self.we          = Signal()
        self.din         = Signal(width)
        self.writable    = Signal()
        self.level       = Signal(bits)
        self.reset_write = Signal()
        # sata_tx
        self.re          = Signal()
        self.dout        = Signal(width)
        self.readable    = Signal()
        self.reset_read  = Signal()

        # # #

        gray = lambda v: v ^ (v >> 1)
        def from_gray(g):
            b = [g[-1]]
            for i in reversed(range(bits - 1)):
                b.insert(0, b[0] ^ g[i])
            return Cat(*b)

        wr_bin  = Signal(bits)  # sys
        wr_gray = Signal(bits)
        rd_bin  = Signal(bits)  # sata_tx
        rd_gray = Signal(bits)
        wr_gray_r = Signal(bits)  # wr_gray in sata_tx
        rd_gray_w = Signal(bits)  # rd_gray in sys
        self.specials += [
            MultiReg(wr_gray, wr_gray_r, "sata_tx"),
            MultiReg(rd_gray, rd_gray_w, "sys"),
        ]
        rd_bin_w = Signal(bits)
        # Next pointers at the pointers' own width: a wider sum would carry into the Gray code
        # at the wrap.
        wr_next = Signal(bits)
        rd_next = Signal(bits)
        self.comb += [
            wr_next.eq(wr_bin + 1),
            rd_next.eq(rd_bin + 1),
            rd_bin_w.eq(from_gray(rd_gray_w)),
            self.level.eq(wr_bin - rd_bin_w),
            self.writable.eq(self.level != depth),
            self.readable.eq(rd_gray != wr_gray_r),
        ]

        mem = Memory(width, depth)
        wport = mem.get_port(write_capable=True, clock_domain="sys")
        rport = mem.get_port(async_read=True)
        self.specials += mem, wport, rport
        self.comb += [
            wport.adr.eq(wr_bin[:-1]),
            wport.dat_w.eq(self.din),
            wport.we.eq(self.we & self.writable),
            rport.adr.eq(rd_bin[:-1]),
            self.dout.eq(rport.dat_r),
        ]
        self.sync += If(self.reset_write,
            wr_bin.eq(0),
            wr_gray.eq(0),
        ).Elif(self.we & self.writable,
            wr_bin.eq(wr_next),
            wr_gray.eq(gray(wr_next)),
        )
        self.sync.sata_tx += If(self.reset_read,
            rd_bin.eq(0),
            rd_gray.eq(0),
        ).Elif(self.re & self.readable,
            rd_bin.eq(rd_next),
            rd_gray.eq(gray(rd_next)),
        )
