# SPDX-License-Identifier: BSD-2-Clause
"""The receive clock's own check of a frame: descrambler, CRC and length, so that the transmit
datapath may answer a good frame's EOF with R_OK in the word clock (doc/architecture.md, "R_OK in
the word clock").

It sees the dwords the link layer will see (after the CONT expansion, without ALIGNs), from
flip-flops: the receive FIFO's write port, a register stage in front of the crossing. The frame
starts at SOF (descrambler and CRC back to their initial values, the count to 0); each data dword
is descrambled (LiteSATA's scrambler) and counted, and the descrambled dword is registered before
it enters the CRC (LiteSATA's CRC engine): its dwords come every other word clock, so the second
stage costs the verdict nothing. At EOF the frame is good when the CRC over its dwords, its own CRC
dword included, comes out 0 (SATA's CRC has no final inversion) and it held 2 to
``FRAME_MAX_DWORDS`` dwords, the link layer's own limits: a shorter frame is not a FIS and a longer
one is no FIS either. ``good`` then stays set until the next SOF (or a flush), and so does
``good_status``, set with it when the frame held ``STATUS_FRAME_DWORDS`` dwords, a Register D2H's
length, and its first dword's low byte was ``STATUS_FIS_TYPE`` (a PIO Setup has that length too):
the transport takes any such FIS whose length and CRC are right; ``good_setup`` for a DMA
Setup (``SETUP_FRAME_DWORDS``, ``SETUP_FIS_TYPE``) and ``good_sdb`` for a Set Device Bits
(``SDB_FRAME_DWORDS``, ``SDB_FIS_TYPE``), which the queued layer takes for some tags: the frame's
second dword (``second``: a DMA Setup's tag, a Set Device Bits' SActive) is kept for the transmit
datapath to check against them.

The link layer in sys checks the same frame again and gives the answer that counts: the word
clock's R_OK only comes first, when the link layer has said it would give it too.

# Ref: Serial ATA Revision 3.x, 9.5 (scrambling), 9.6 (CRC), 10.3.10 (Data FIS length)
"""

from migen import *

from litex.gen import LiteXModule

from litesata.core.link import CRCEngine, Scrambler, LiteSATACRC

from ecpsata.phy.common import (FRAME_MAX_DWORDS, SDB_FIS_TYPE, SDB_FRAME_DWORDS, SETUP_FIS_TYPE,
                                SETUP_FRAME_DWORDS, STATUS_FIS_TYPE, STATUS_FRAME_DWORDS)


class FrameCheck(LiteXModule):
    """In ``sata_rx``: ``valid`` / ``data`` / ``data_dword`` (a data character dword), ``sof``,
    ``eof`` (that dword is the primitive), all flip-flops; ``eof_early``, the EOF a word clock
    before it comes with ``valid`` (as it is decoded); ``flush``. Out: ``good``, a flip-flop,
    set by a good frame's EOF in the word clock it comes with ``valid``, cleared by SOF; ``good_status`` and
    ``good_setup``, the same for a good Register D2H (``STATUS_FRAME_DWORDS`` dwords, type
    ``STATUS_FIS_TYPE``) and a good DMA Setup, ``good_sdb`` for a good Set Device Bits;
    ``second``, the frame's second dword descrambled (flip-flops, set at the end of the word
    clock it comes with ``valid``). In: ``setup_mask`` and ``sdb_mask``, the queued layer's masks
    (through synchronisers); out: ``setup_ok``, ``second``'s low five bits are a tag of
    ``setup_mask``, and ``sdb_ok``, ``second`` holds only tags of ``sdb_mask`` (flip-flops, from
    the masks and ``second`` of the word clock before: two word clocks before the flags at the
    soonest)."""
    def __init__(self):
        self.valid      = Signal()
        self.data       = Signal(32)
        self.data_dword = Signal()
        self.sof        = Signal()
        self.eof        = Signal()
        self.eof_early  = Signal()
        self.flush      = Signal()
        self.good       = Signal()
        self.good_status = Signal()
        self.good_setup  = Signal()
        self.good_sdb    = Signal()
        self.second      = Signal(32)
        self.setup_mask  = Signal(32)
        self.sdb_mask    = Signal(32)
        self.setup_ok    = Signal()
        self.sdb_ok      = Signal()

        # # #

        in_frame = Signal()
        take = Signal()
        self.comb += take.eq(self.valid & self.data_dword & in_frame)

        self.descrambler = descrambler = ClockDomainsRenamer("sata_rx")(
            ResetInserter()(Scrambler()))
        self.comb += [
            descrambler.reset.eq(self.valid & self.sof),
            # enabled for its reset too: which of the two inserted signals gates the other is
            # the transformers' order, not this module's
            descrambler.ce.eq(take | (self.valid & self.sof)),
        ]

        self.dwords = dwords = Signal(max=FRAME_MAX_DWORDS + 2)  # saturates one past the longest

        # Stage 1: the descrambled dword, registered. Stage 2: the CRC over it.
        plain       = Signal(32)
        plain_valid = Signal()
        plain_first = Signal()     # the frame's first dword: its FIS type in the low byte
        descrambled = Signal(32)   # the dword on the input, descrambled
        self.comb += descrambled.eq(self.data ^ descrambler.value)
        self.sync.sata_rx += [
            plain.eq(descrambled),
            plain_valid.eq(take),
            plain_first.eq(take & (self.dwords == 0)),
        ]
        engine = CRCEngine(LiteSATACRC.width, LiteSATACRC.polynom)
        self.submodules += engine
        crc = Signal(32, reset=LiteSATACRC.init)
        self.comb += [
            engine.data.eq(plain),
            engine.last.eq(crc),
        ]

        # The frame's CRC is right: its CRC dword equals the CRC of the dwords before it (the
        # CRC over both is then 0, LiteSATA's residue): a comparison of two registers in the
        # word clock the CRC dword leaves ``plain``, the residue's after.
        crc_ok = Signal()
        self.comb += crc_ok.eq(Mux(plain_valid, crc == plain, crc == LiteSATACRC.check))
        is_status = Signal()       # the frame's type is a Register D2H's
        is_setup = Signal()        # ... a DMA Setup's
        is_sdb = Signal()          # ... a Set Device Bits'
        self.sync.sata_rx += [
            If(self.flush,
                in_frame.eq(0),
                self.good.eq(0),
                self.good_status.eq(0),
                self.good_setup.eq(0),
                self.good_sdb.eq(0),
                is_status.eq(0), is_setup.eq(0), is_sdb.eq(0),
            ).Elif(self.valid & self.sof,
                in_frame.eq(1),
                self.good.eq(0),
                self.good_status.eq(0),
                self.good_setup.eq(0),
                self.good_sdb.eq(0),
                is_status.eq(0), is_setup.eq(0), is_sdb.eq(0),
                crc.eq(LiteSATACRC.init),
                dwords.eq(0),
            ).Else(
                If(plain_valid,
                    crc.eq(engine.next),
                ),
                If(plain_first,
                    is_status.eq(plain[:8] == STATUS_FIS_TYPE),
                    is_setup.eq(plain[:8] == SETUP_FIS_TYPE),
                    is_sdb.eq(plain[:8] == SDB_FIS_TYPE),
                ),
                # (taken as it is descrambled, a word clock before ``plain``, so that the
                # comparisons below are ready two word clocks before the flags)
                If(take & (dwords == 1),
                    self.second.eq(descrambled),
                ),
                If(take & (dwords != FRAME_MAX_DWORDS + 1),
                    dwords.eq(dwords + 1),
                ),
                # The EOF a word clock before it reaches this stage (``eof_early``, from the
                # decoder): the CRC dword is in ``plain`` then at the earliest (dwords come every
                # other word clock), and counted.
                If(self.valid & self.eof & in_frame,
                    in_frame.eq(0),
                ),
                If(self.eof_early & in_frame,
                    self.good.eq(crc_ok & (dwords >= 2) & (dwords <= FRAME_MAX_DWORDS)),
                    self.good_status.eq(crc_ok & (dwords == STATUS_FRAME_DWORDS) & is_status),
                    self.good_setup.eq(crc_ok & (dwords == SETUP_FRAME_DWORDS) & is_setup),
                    self.good_sdb.eq(crc_ok & (dwords == SDB_FRAME_DWORDS) & is_sdb),
                ),
            ),
        ]

        # The second dword against the queued layer's masks, in every word clock: the masks
        # hold while the link layer receives (ecpsata/core/transport.py), and the transmit
        # datapath takes the results through synchronisers of their own, two word clocks ahead
        # of the flags: a crossing's uncertainty of one word clock leaves them ahead.
        self.sync.sata_rx += [
            self.setup_ok.eq((self.setup_mask >> self.second[:5])[0]),
            self.sdb_ok.eq((self.second & ~self.sdb_mask) == 0),
        ]
