# SPDX-License-Identifier: BSD-2-Clause
"""SATA PHY receive datapath (``sata_rx`` to ``sys``): raw 20-bit words, K28.5 search at the 20
bit offsets, 8b10b decode with running-disparity check, dwords with the K28.x symbol in byte 0,
CONT expanded and ALIGNs dropped, to ``sys`` through an asynchronous FIFO; the drive's last
primitive for the transmit datapath's answers (datapath.py), and with ``frame_check`` the
frame's CRC and length checked in the word clock (rx_frame.py).

# Ref: SATA 3.x §8.5 (8b10b), §9.4.7 (CONT), LiteSATA phy/datapath.py
"""

from functools import reduce
from operator import or_
from types import SimpleNamespace

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *
from litex.soc.interconnect import stream

from ecpsata.phy.serdes import WORD_BITS
from ecpsata.phy.common import primitives
from ecpsata.phy.rx_decoder import CommaAligner, Decoder8b10b
from ecpsata.phy.rx_frame import FrameCheck

# RX dword layout crossing to sys: the dword plus per-dword error counts (symbols with a code /
# disparity error), so error counters live in sys.
rx_layout = [
    ("data",        32),
    ("charisk",      4),
    ("code_errors",  3),
    ("disp_errors",  3),
]


def _fifo(layout, depth, cd_write, cd_read):
    """Asynchronous stream FIFO with a reset input per side (``reset_write`` / ``reset_read``).
    LiteX's ``with_common_rst`` needs derived clock domains that Migen's simulator cannot run."""
    fifo = stream.AsyncFIFO(layout, depth)
    fifo = ResetInserter(["write", "read"])(fifo)
    return ClockDomainsRenamer({"write": cd_write, "read": cd_read})(fifo)

# RX -----------------------------------------------------------------------------------------------

class ECPSATAPHYDatapathRX(LiteXModule):
    """RX datapath (raw words in ``sata_rx``, dwords out in sys).

    With ``drop_align`` (sys, the link is up) ALIGN dwords stop before the clock crossing: the
    link layer has no use for them, the crossing then carries 2 dwords in 256 less than the line
    (sys drains it at the Gen2 dword rate on the boards), and no ALIGN comparison sits on sys'
    receive path. While the link comes up they pass (the controller waits for them).

    ``frame_check``: the frame check (rx_frame.py) on the FIFO's write port, which is then a
    register stage (``frame_good``, ``frame_good_status``, ``frame_good_setup``,
    ``frame_good_sdb``, ``frame_setup_ok`` and ``frame_sdb_ok`` out, for the transmit datapath's
    early R_OK; the queued layer's ``setup_mask`` and ``sdb_mask`` in)."""
    def __init__(self, fifo_depth=16, frame_check=False):
        self.rx_data = Signal(WORD_BITS)           # sata_rx, from the SerDes
        self.source  = stream.Endpoint(rx_layout)  # sys
        self.flush   = Signal()                    # sys: empties the FIFO and forgets the alignment
        self.drop_align = Signal()                 # sys: drop ALIGN dwords (link up)
        self.align_seen = Signal()                 # sys: pulse, a dropped ALIGN went by
        self.overflows = Signal(16)                # sata_rx
        self.hold = Signal()                       # sata_rx: the drive's last primitive is HOLD
        self.x_rdy = Signal()                      # sata_rx: ... X_RDY
        self.done = Signal()                       # sata_rx: ... R_OK, R_ERR or SYNC
        self.drive_idle = Signal()                 # sata_rx: ... SYNC
        self.frame_good = Signal()                 # sata_rx: the last frame's EOF was good (a
                                                   # flip-flop; with ``frame_check`` only)
        self.frame_good_status = Signal()          # sata_rx: ... and it was a Register D2H
                                                   # (its type and length; the same)
        self.frame_good_setup = Signal()           # sata_rx: ... a DMA Setup (the same)
        self.frame_good_sdb = Signal()             # sata_rx: ... a Set Device Bits (the same)
        self.frame_setup_ok = Signal()             # sata_rx: its second dword is a tag of
                                                   # setup_mask (the same)
        self.frame_sdb_ok = Signal()               # sata_rx: ... holds only tags of sdb_mask
        self.setup_mask = Signal(32)               # sys: the tags a DMA Setup is taken for
        self.sdb_mask = Signal(32)                 # sys: the tags a Set Device Bits may complete

        # # #

        # registered before it crosses: the PHY makes the flush from several sys flops
        flush_q = Signal(reset=1)
        flush_rx = Signal()
        self.sync += flush_q.eq(self.flush)
        self.specials += MultiReg(flush_q, flush_rx, "sata_rx")

        # No register in front of the aligner: every SerDes registers its receive word
        # (``SerDesInterface``), and a second register here was one word clock more on every
        # answer.
        self.aligner = aligner = CommaAligner()
        self.decoder = decoder = Decoder8b10b(eof_hi=frame_check)
        self.comb += [
            aligner.reset.eq(flush_rx),
            aligner.i.eq(self.rx_data),
            decoder.i.eq(aligner.o),
        ]

        # Dword assembly: a word with a K28.x in symbol 0 starts a dword.
        phase    = Signal()
        lo_data  = Signal(16)
        lo_k     = Signal(2)
        lo_cerr  = Signal(2)
        lo_derr  = Signal(2)
        starts   = Signal()
        self.comb += starts.eq(decoder.k[0] & (decoder.data[0:5] == 28))

        self.fifo = fifo = _fifo(rx_layout, fifo_depth, "sata_rx", "sys")
        self.comb += [
            fifo.reset_write.eq(flush_rx),
            fifo.reset_read.eq(self.flush),
            # nothing leaves while flushing: the write side may have been reset (its domain's
            # reset, which can come before the flush), its pointer gone back behind the read
            # side's, which would read on through entries never written
            fifo.source.connect(self.source, omit={"valid"}),
            self.source.valid.eq(fifo.source.valid & ~self.flush),
        ]
        # The decoder's words lag the aligner by its 2-cycle latency, and a dword is the word
        # before plus this one: a dword goes through only when the lock was there for both words
        # (none decoded with the previous offset reaches the FIFO).
        locked_d = Signal(3)
        self.sync.sata_rx += locked_d.eq(Cat(aligner.locked, locked_d[:2]))
        # The second word goes into the FIFO in the cycle it is decoded (no register in between:
        # one word clock less on every primitive the link layer answers).
        popcount2 = lambda v: v[0] + v[1]
        second = Signal()
        # An ALIGN: both its words (K28.5 D10.2, D10.2 D27.3) come flagged from the decoder's ROM,
        # the first one stored with the word, so the drop adds one LUT input to
        # the FIFO's write enable and no comparison (sata_rx fell to 157 MHz on ECPIX-5 with a
        # 16-bit comparison there). A disparity error inside a dropped ALIGN is not counted (the
        # running disparity carries on from the received symbols, so a real disparity fault
        # shows on the dwords around it).
        # drop_align comes from sys logic (the link's state OR the self-test's): registered in sys
        # first, so that the synchroniser samples a flip-flop, never a LUT that may glitch when
        # both inputs change on one edge (found by the clock-crossing check, doc/cdc.md).
        drop_align_sys = Signal()
        drop_align = Signal()
        self.sync += drop_align_sys.eq(self.drop_align)
        self.specials += MultiReg(drop_align_sys, drop_align, "sata_rx")
        lo_align = Signal()
        is_align = Signal()
        dword_in = Signal()
        # What the FIFO's write port takes: the dword in the cycle its second word is decoded or,
        # with the frame check, a register stage later (the check reads that stage, and the FIFO's
        # write enable and write pointer then start at flip-flops: with the check beside them,
        # the comb form missed the word clock's margin).
        w = fifo.sink
        if frame_check:
            w = SimpleNamespace(valid=Signal(name="w_valid"), data=Signal(32, name="w_data"),
                                charisk=Signal(4, name="w_charisk"),
                                code_errors=Signal(3, name="w_cerr"),
                                disp_errors=Signal(3, name="w_derr"))
        self.comb += [
            second.eq(phase & ~starts),
            is_align.eq(lo_align & decoder.align_hi),
            dword_in.eq(second & locked_d[2] & aligner.locked),
            w.valid.eq(dword_in & ~(drop_align & is_align)),
        ]
        if frame_check:
            self.sync.sata_rx += [
                fifo.sink.valid.eq(w.valid & ~flush_rx),
                fifo.sink.data.eq(w.data),
                fifo.sink.charisk.eq(w.charisk),
                fifo.sink.code_errors.eq(w.code_errors),
                fifo.sink.disp_errors.eq(w.disp_errors),
            ]
        # CONT: the drive may follow two of a repeated primitive with CONT and then any data
        # characters (scrambled junk) for as long as it would have repeated it. The repeated
        # primitive goes on in place of CONT and the junk, so sys' link layer never sees either.
        # This lives here, with the line, and is forgotten only with the alignment (link down):
        # a reset of the core above (a command timeout) cannot lose it and take the junk that
        # follows for data. ALIGN (sent inside CONT sequences too) neither ends a CONT sequence
        # nor becomes the repeated primitive. Ref: SATA 3.x §9.4.7 (CONT).
        lo_cont   = Signal()
        is_cont   = Signal()
        is_prim   = Signal()
        in_cont   = Signal()
        last_prim = Signal(32)
        expand    = Signal()
        self.comb += [
            is_cont.eq(lo_cont & decoder.cont_hi),
            is_prim.eq(lo_k[0]),
            expand.eq(is_cont | (in_cont & ~is_prim)),
            If(expand,
                w.data.eq(last_prim),
                w.charisk.eq(0b0001),
            ).Else(
                w.data.eq(Cat(lo_data, decoder.data)),
                w.charisk.eq(Cat(lo_k, decoder.k)),
            ),
            w.code_errors.eq(popcount2(lo_cerr) + popcount2(decoder.code_err)),
            w.disp_errors.eq(popcount2(lo_derr) + popcount2(decoder.disp_err)),
        ]
        self.sync.sata_rx += [
            If(second,
                phase.eq(0),
            ).Else(
                lo_data.eq(decoder.data),
                lo_k.eq(decoder.k),
                lo_align.eq(decoder.align_lo),
                lo_cont.eq(decoder.cont_lo),
                lo_cerr.eq(decoder.code_err),
                lo_derr.eq(decoder.disp_err),
                phase.eq(1),
            ),
            If(fifo.sink.valid & ~fifo.sink.ready,
                self.overflows.eq(self.overflows + 1)
            ),
            If(dword_in & is_prim & ~is_align,
                in_cont.eq(is_cont),
                If(~is_cont, last_prim.eq(Cat(lo_data, decoder.data))),
            ),
            If(flush_rx,
                in_cont.eq(0),
            ),
        ]
        # The drive's HOLD, X_RDY, SYNC and end of a handshake for the transmit datapath (which
        # answers them in the word clock): the last primitive received, ALIGN and CONT aside (CONT
        # junk keeps it), taken in the cycle its second word is decoded. Each half is compared on
        # its own: the first when it is stored (a register beside ``lo_data``), the second from
        # the decoder's registered ROM outputs, so no 32-bit comparison follows the decoder and
        # no register stands between the dword and the flags (one word clock less per answer).
        answer_prims = {"hold": ["HOLD"], "x_rdy": ["X_RDY"], "done": ["R_OK", "R_ERR", "SYNC"],
                        "drive_idle": ["SYNC"]}
        frame_prims = ["SOF"] if frame_check else []
        names = sorted({n for ns in answer_prims.values() for n in ns} | set(frame_prims))
        lo_is = {n: Signal(name=f"lo_is_{n.lower()}") for n in names}
        is_ = {n: Signal(name=f"is_{n.lower()}") for n in names}
        for n in names:
            self.sync.sata_rx += If(~second, lo_is[n].eq(decoder.data == (primitives[n] & 0xFFFF)))
            self.comb += is_[n].eq(lo_is[n] & (decoder.data == (primitives[n] >> 16)))
        prim_in = Signal()
        self.comb += prim_in.eq(dword_in & is_prim & ~is_align & ~is_cont)
        self.sync.sata_rx += If(flush_rx,
            *[getattr(self, flag).eq(0) for flag in answer_prims],
        ).Elif(prim_in,
            *[getattr(self, flag).eq(reduce(or_, [is_[n] for n in ns]))
              for flag, ns in answer_prims.items()],
        )

        # The frame check (rx_frame.py) on the FIFO's write port, its SOF / EOF and data flags
        # registered with it; and the EOF as it is decoded, a word clock sooner, for its verdict.
        # That EOF sets the verdict's flip-flops (their enable), so it is told by the fewest
        # levels: its first word K28.3 D21.5 registered as one flag, its second from two of the
        # decoder's ROM bits (D21.6 D21.6), no 16-bit comparison after the block RAM's output (an
        # ECPIX-5 seed placed that path at 162.5 MHz). An EOF is neither ALIGN nor CONT.
        if frame_check:
            self.frame_check = check = FrameCheck()
            lo_eof = Signal()
            eof_in = Signal()
            self.sync.sata_rx += If(~second,
                lo_eof.eq(decoder.k[0] & ~decoder.k[1] &
                          (decoder.data == (primitives["EOF"] & 0xFFFF))),
            )
            self.comb += eof_in.eq(dword_in & lo_eof & decoder.eof_hi)
            self.sync.sata_rx += [
                check.sof.eq(prim_in & is_["SOF"]),
                check.eof.eq(eof_in),
                check.data_dword.eq(w.charisk == 0),
            ]
            self.comb += [
                check.eof_early.eq(eof_in & ~flush_rx),
                check.valid.eq(fifo.sink.valid),
                check.data.eq(fifo.sink.data),
                check.flush.eq(flush_rx),
                self.frame_good.eq(check.good),
                self.frame_good_status.eq(check.good_status),
                self.frame_good_setup.eq(check.good_setup),
                self.frame_good_sdb.eq(check.good_sdb),
                self.frame_setup_ok.eq(check.setup_ok),
                self.frame_sdb_ok.eq(check.sdb_ok),
            ]
            self.specials += [
                MultiReg(self.setup_mask, check.setup_mask, "sata_rx"),
                MultiReg(self.sdb_mask, check.sdb_mask, "sata_rx"),
            ]

        # Dropped ALIGNs still tell the controller the line is alive: a toggle per ALIGN crosses
        # to sys (ALIGNs come in pairs, so one toggle in two may be lost, which is enough).
        align_toggle   = Signal()
        align_toggle_s = Signal()
        align_toggle_d = Signal()
        self.sync.sata_rx += If(second & drop_align & is_align, align_toggle.eq(~align_toggle))
        self.specials += MultiReg(align_toggle, align_toggle_s, "sys")
        self.sync += align_toggle_d.eq(align_toggle_s)
        self.comb += self.align_seen.eq(align_toggle_s != align_toggle_d)
