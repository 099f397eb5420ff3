# SPDX-License-Identifier: BSD-2-Clause
"""The receive path's first two stages in the drive's recovered clock (``sata_rx``): word alignment
on the K28.5 comma (``CommaAligner``) and 8b10b decoding with the running disparity
(``Decoder8b10b``), which the receive datapath (``ecpsata/phy/datapath.py``) assembles into
dwords.

# Ref: SATA 3.x §8.5 (8b10b), IEEE 802.3 clause 36 tables (ecpsata/phy/common.py)
"""

from migen import *

from litex.gen import *

from ecpsata.phy.serdes import WORD_BITS, SYMBOL_BITS
from ecpsata.phy.common import *


class CommaAligner(LiteXModule):
    """Finds K28.5 (either disparity, so either polarity) at any of the 20 bit offsets of the raw
    stream and outputs words with the comma in symbol 0. Locks on the first comma; re-aligns when
    ``relock`` commas in a row are seen at another offset (``sata_rx`` domain).

    The search is pipelined for 150 MHz on ECP5 (comma hits, then their position, then the lock
    decision each take one cycle) but the words do not wait for it: the output is the current
    two-word window shifted by the registered offset, with no register of its own (the decoder's
    ROM registers it). So a (re)alignment applies from three words after the comma that caused it;
    the words in between are the misaligned ones a lock or a re-lock follows anyway."""
    def __init__(self, relock=3):
        self.i       = Signal(WORD_BITS)
        self.o       = Signal(WORD_BITS)
        self.reset   = Signal()  # sata_rx: forget the lock
        self.locked  = Signal()
        self.offset  = Signal(5)
        self.realigns = Signal(8)

        # # #

        prev   = Signal(WORD_BITS)
        window = Signal(2*WORD_BITS)
        self.sync.sata_rx += prev.eq(self.i)
        self.comb += window.eq(Cat(prev, self.i))

        # Stage 1: comma hits at each offset.
        hits = Signal(WORD_BITS)
        for o in range(WORD_BITS):
            sym = window[o:o + SYMBOL_BITS]
            self.sync.sata_rx += hits[o].eq((sym == K28_5_RDN) | (sym == K28_5_RDP))

        # Stage 2: lowest offset wins (commas are at least 40 bits apart in a valid stream).
        found_c = Signal()
        pos_c   = Signal(5)
        for o in reversed(range(WORD_BITS)):
            self.comb += If(hits[o], found_c.eq(1), pos_c.eq(o))
        found   = Signal()
        pos     = Signal(5)
        self.sync.sata_rx += [
            found.eq(found_c),
            pos.eq(pos_c),
        ]

        # Stage 3: lock and re-align.
        misses = Signal(max=relock + 1)
        realign = Signal()
        self.comb += realign.eq(found & self.locked & (pos != self.offset) & (misses == relock - 1))
        self.sync.sata_rx += [
            If(self.reset,
                self.locked.eq(0),
                misses.eq(0),
            ).Elif(found,
                If(~self.locked | realign,
                    self.locked.eq(1),
                    self.offset.eq(pos),
                    misses.eq(0),
                ).Elif(pos == self.offset,
                    misses.eq(0),
                ).Else(
                    misses.eq(misses + 1),
                )
            ),
            If(realign, self.realigns.eq(self.realigns + 1)),
        ]
        self.comb += Case(self.offset, {o: self.o.eq(window[o:o + WORD_BITS]) for o in range(WORD_BITS)})


class Decoder8b10b(LiteXModule):
    """Decodes the two symbols of an aligned word with a 1024-entry ROM (data, K, validity in each
    running disparity) and tracks the running disparity (``sata_rx`` domain, 2-cycle latency).
    ``eof_hi``: one more ROM bit per symbol, and ``eof_hi`` out, this word is D21.6 D21.6 (EOF's
    second half: the frame check's EOF from two ROM bits, not a 16-bit comparison after the block
    RAM's output)."""
    def __init__(self, eof_hi=False):
        self.i           = Signal(WORD_BITS)
        self.data        = Signal(16)
        self.k           = Signal(2)
        self.code_err    = Signal(2)
        self.disp_err    = Signal(2)
        self.align_lo    = Signal()  # this word is K28.5 D10.2, the first half of ALIGN
        self.align_hi    = Signal()  # this word is D10.2 D27.3, the second half of ALIGN
        self.cont_lo     = Signal()  # this word is K28.3 D10.5, the first half of CONT
        self.cont_hi     = Signal()  # this word is D25.4 D25.4, the second half of CONT

        # # #

        width = DEC_ROM_WIDTH + (1 if eof_hi else 0)
        rom = Memory(width, 1 << SYMBOL_BITS, init=decode_rom(eof_hi))
        ports = [rom.get_port(clock_domain="sata_rx") for _ in range(2)]
        self.specials += rom, *ports
        for s in range(2):
            self.comb += ports[s].adr.eq(self.i[SYMBOL_BITS*s:SYMBOL_BITS*(s + 1)])

        # ROM outputs registered: the block RAM's clock-to-out stays off the disparity chain.
        entries = [Signal(width, name=f"entry{s}") for s in range(2)]
        self.sync.sata_rx += [entries[s].eq(ports[s].dat_r) for s in range(2)]

        self.comb += [
            self.align_lo.eq(entries[0][DEC_ROM_K28_5] & entries[1][DEC_ROM_D10_2]),
            self.align_hi.eq(entries[0][DEC_ROM_D10_2] & entries[1][DEC_ROM_D27_3]),
            self.cont_lo.eq(entries[0][DEC_ROM_K28_3] & entries[1][DEC_ROM_D10_5]),
            self.cont_hi.eq(entries[0][DEC_ROM_D25_4] & entries[1][DEC_ROM_D25_4]),
        ]
        if eof_hi:
            self.eof_hi = Signal()   # this word is D21.6 D21.6, the second half of EOF
            self.comb += self.eof_hi.eq(entries[0][DEC_ROM_D21_6] & entries[1][DEC_ROM_D21_6])
        rd = Signal()
        rd_in = rd
        for s in range(2):
            e = entries[s]
            valid_n, valid_p, cls, only_p = e[9], e[10], e[11:13], e[13]
            rd_out = Signal(name=f"rd{s}")
            self.comb += [
                self.data[8*s:8*(s + 1)].eq(e[0:8]),
                self.k[s].eq(e[8]),
                self.code_err[s].eq(~valid_n & ~valid_p),
                self.disp_err[s].eq((valid_n | valid_p) & Mux(rd_in, ~valid_p, ~valid_n)),
                If(cls == 2,
                    rd_out.eq(1)
                ).Elif(cls == 1,
                    rd_out.eq(0)
                ).Elif(valid_n ^ valid_p,
                    rd_out.eq(only_p)
                ).Else(
                    rd_out.eq(rd_in)
                )
            ]
            rd_in = rd_out
        self.sync.sata_rx += rd.eq(rd_in)
