# SPDX-License-Identifier: BSD-2-Clause
"""SATA PHY datapath: 8b10b, comma / word alignment, dword assembly and clock-domain crossing.

TX (``sata_tx``, here): dwords from the link layer (``sys``, through an asynchronous FIFO) or the
controller's patterns (D10.2, ALIGN) or OOB words, 8b10b-encoded two symbols per 20-bit word.
RX (``sata_rx``, datapath_rx.py): raw 20-bit words, K28.5 search at the 20 bit offsets, 8b10b
decode with running-disparity check, dwords with the K28.x symbol in byte 0, to ``sys`` through
an asynchronous FIFO.

# Ref: SATA 3.x §8.5 (8b10b), §9.4.2 (ALIGN every 256 dwords), LiteSATA phy/datapath.py
"""

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *
from litex.soc.interconnect import stream

from litesata.common import phy_description

from ecpsata.phy.serdes import WORD_BITS, SYMBOL_BITS
from ecpsata.phy.common import *
from ecpsata.phy.tx_encoder import TXFIFO, FormEncoder, FORM_BITS, symbol_forms, dword_forms_value
# the receive datapath, here too for the modules that import both from here
from ecpsata.phy.datapath_rx import ECPSATAPHYDatapathRX, rx_layout  # noqa: F401

# TX modes (set by the controller in sys, applied in sata_tx after synchronisation; the codes are
# ordered so that the controller's usual transitions change one bit at a time).
TX_MODE_OOB   = 0b00  # OOB generator output (zero words between sequences)
TX_MODE_D10_2 = 0b01  # D10.2 while waiting for ALIGN
TX_MODE_ALIGN = 0b11  # ALIGN
TX_MODE_LINK  = 0b10  # link layer dwords, SYNC when it has none

# TX dword layout from the link layer (sys): the dword (as ``phy_description(32)``) and the link
# layer's two levels in the same cycle, which reach the word clock in order with the dwords.
tx_layout = [
    ("data",         32),
    ("charisk",       4),
    ("answer_x_rdy",  1),  # an X_RDY from the drive is to be answered with R_RDY
    ("want_send",     1),  # a frame waits: X_RDY goes out as soon as the drive is idle (SYNC)
]
# With the early R_OK (``early_eof``) three more: the frame being received gets R_OK if its CRC is
# good (the transport accepted it), so the word clock may answer its EOF; or if its CRC is good
# and it has a Register D2H's length (the transport reads a Register D2H, which it always takes);
# or a DMA Setup's length (the queued layer has bound itself to take the DMA Setup being read).
tx_layout_early_eof = tx_layout + [("answer_eof", 1), ("answer_status", 1), ("answer_setup", 1)]


def tx_description(early_eof=False):
    return stream.EndpointDescription(tx_layout_early_eof if early_eof else tx_layout)


# TX -----------------------------------------------------------------------------------------------

class ECPSATAPHYDatapathTX(LiteXModule):
    """TX datapath (``sink`` in sys, words out in ``sata_tx``).

    In link mode each dword from the link layer takes two words. This module sends the ALIGN pairs
    (one after every 254 other dwords) and drops the link layer's own before the FIFO, so the
    pairs never depend on the FIFO's timing.

    Latency: the link layer offers a dword every sys cycle, faster than the line takes them, so a
    plain FIFO would stay full and delay every primitive the link layer answers with (R_OK, R_RDY,
    SYNC, HOLDA) by its whole depth, several times per command. So frames (SOF, data, EOF) and a
    primitive that differs from the last one written go in while the FIFO holds fewer than
    ``data_level`` dwords (back-pressure beyond), while a repeat of the last primitive is written
    only when the FIFO holds fewer than ``prim_level`` dwords (default 0: never) and is otherwise
    accepted and dropped: the link layer never waits for the line, and a new primitive finds at
    most ``prim_level`` dwords ahead of it (plus a frame's tail). When the FIFO runs dry the line
    carries a filler: WTRM after EOF, HOLD after SOF or frame data, otherwise the last primitive
    again (HOLDA inside a frame too), which is what a dropped repeat would have been.

    The drive's HOLD is answered here, in the word clock: while ``hold`` (from the receive
    datapath, the drive's last primitive is HOLD) is set, the frame's data waits at the FIFO's
    head and the line carries HOLDA. The link layer answers the same HOLD with HOLDA too, a few
    sys cycles later and behind the dwords already in the FIFO, which the line then carries after
    the drive's HOLD ended: a receiver takes HOLDA there as any primitive inside a frame. What the
    drive receives after its HOLD is then bounded by the crossing into ``sata_tx`` and the DCU, not
    by the FIFO's depth and the link layer's own round trip through ``sys`` (SATA 3.x allows a
    receiver 20 dwords after its HOLD).

    Three more answers go out here before the link layer's, each only where the link layer's
    answer is certain, and each stays on the line (as the filler) until the link layer's own
    comes through the FIFO: R_RDY to the drive's X_RDY while the filler is SYNC or our X_RDY
    (the host yields) and the link layer says it would answer so (``answer_x_rdy``); SYNC once
    the drive answers our frame (R_OK, R_ERR, or SYNC: it abandoned it) while the filler is WTRM,
    or sends SYNC while the filler is our R_OK / R_ERR; and X_RDY on the drive's SYNC while the
    filler is SYNC, R_OK or R_ERR and a frame waits (``want_send``). The drive's last primitive
    reaches ``sata_tx`` through a synchroniser from ``sata_rx`` (``drive_x_rdy``,
    ``drive_done``, ``drive_idle``, flip-flops there). The link layer's two levels are fields of
    ``sink`` (``tx_description``) and travel through the FIFO with the dwords (a change of level
    alone is written as a levels-only entry, which sends nothing): the word clock acts on the
    levels of the last entry it took, never on a level newer than a dword still in the FIFO (through a synchroniser of their
    own, a level could overtake the link layer's older primitive, whose arrival after the answer
    then put the older primitive back on the line: X_RDY, SYNC, X_RDY, and the drive's answer to
    that SYNC aborted our frame). The answers skip the receive FIFO's crossing and the link
    layer (about 40 ns each at Gen2, ``scripts/turnaround.py``).

    With ``early_eof`` a fifth: R_OK at a good frame's EOF (``frame_good``, the receive
    datapath's frame check, through a synchroniser) while the filler is the link layer's R_IP and
    its third level ``answer_eof`` is set, or its fourth ``answer_status`` and the flag for a good
    Register D2H (its type and length: ``frame_good_status``), or its fifth ``answer_setup`` (the
    queued layer's masks hold) and the flag for a good DMA Setup (``frame_good_setup``) whose tag
    is in the queued layer's setup mask (``frame_setup_ok``) or for a good Set Device Bits
    (``frame_good_sdb``) whose SActive is in its SDB mask (``frame_sdb_ok``; both compared with
    the frame's second dword in the receive clock), the flags having been seen clear
    since the last frame's answer (a flag left from the last frame never counts). The link
    layer's own R_OK that follows is taken from the FIFO and not sent: the drive may have answered
    ours with SYNC already, and R_OK after our SYNC would answer a frame it has closed
    (doc/architecture.md, "R_OK in the word clock").
    """
    def __init__(self, fifo_depth=16, data_level=8, prim_level=0, early_eof=False):
        self.sink    = stream.Endpoint(tx_description(early_eof))  # sys
        self.mode    = Signal(2)           # sys, TX_MODE_*
        self.flush   = Signal()            # sys, empties the FIFO
        self.oob_data = Signal(WORD_BITS)  # sata_tx, from the OOB generator
        self.oob_idle = Signal()           # sata_tx, from the OOB generator ("ei" method)
        self.tx_data = Signal(WORD_BITS)   # sata_tx, to the SerDes
        self.tx_idle = Signal()            # sata_tx, to the SerDes
        self.underflows = Signal(16)       # sata_tx, filler dwords sent in link mode (debug)
        self.hold    = Signal()            # sata_rx, from the receive datapath (a flip-flop)
        self.drive_x_rdy = Signal()        # sata_rx, the drive's last primitive is X_RDY (a flop)
        self.drive_done  = Signal()        # sata_rx, ... R_OK, R_ERR or SYNC (a flip-flop)
        self.drive_idle  = Signal()        # sata_rx, ... SYNC (a flip-flop)
        self.frame_good  = Signal()        # sata_rx, the drive's last frame ended good (a flop,
                                           # the receive datapath's frame check; ``early_eof``)
        self.frame_good_status = Signal()  # sata_rx, ... and it was a Register D2H
        self.frame_good_setup  = Signal()  # sata_rx, ... a DMA Setup
        self.frame_good_sdb    = Signal()  # sata_rx, ... a Set Device Bits
        self.frame_setup_ok = Signal()     # sata_rx, its second dword is a tag of the queued
                                           # layer's setup mask (a flip-flop)
        self.frame_sdb_ok   = Signal()     # sata_rx, ... holds only tags of its SDB mask

        # # #

        # CDC (TXFIFO: read data from a registered pointer, so the read strobe stays off the RAM's
        # address path at the word clock).
        n_levels = 5 if early_eof else 2
        self.fifo = fifo = TXFIFO(37 + n_levels, fifo_depth)
        flush_tx = Signal()
        self.specials += MultiReg(self.flush, flush_tx, "sata_tx")
        self.comb += [
            fifo.reset_write.eq(self.flush),
            fifo.reset_read.eq(flush_tx),
        ]

        # FIFO level seen from sys (an upper bound, a few sys cycles old).
        level = fifo.level
        is_data = Signal()  # SOF, frame data or EOF
        drop    = Signal()
        room    = Signal()
        repeat  = Signal()      # a primitive equal to the last dword written, the same levels
        only_levels = Signal()  # a primitive equal to the last dword written, other levels
        changed = Signal()      # not a repeat of the last dword written
        last_written = Signal(32)
        sink = self.sink
        if early_eof:
            levels = Cat(sink.answer_x_rdy, sink.want_send, sink.answer_eof,
                         sink.answer_status, sink.answer_setup)
        else:
            levels = Cat(sink.answer_x_rdy, sink.want_send)
        last_levels = Signal(n_levels)
        self.comb += [
            is_data.eq((sink.charisk == 0) |
                       ((sink.charisk == 0b0001) &
                        ((sink.data == primitives["SOF"]) | (sink.data == primitives["EOF"])))),
            drop.eq((sink.charisk == 0b0001) & (sink.data == primitives["ALIGN"])),
            changed.eq(sink.data != last_written),
            repeat.eq(~is_data & ~changed & (levels == last_levels)),
            # A repeat whose levels changed goes in as the levels alone: the word clock takes
            # them without sending the dword again (the line may carry its answer by then).
            only_levels.eq(~is_data & ~changed & (levels != last_levels)),
            room.eq(level < Mux(repeat, prim_level, data_level)),
            fifo.we.eq(sink.valid & ~drop & room),
            fifo.din.eq(Cat(sink.data, sink.charisk, levels, only_levels)),
            sink.ready.eq(drop | repeat | (room & fifo.writable)),
        ]
        self.sync += If(self.flush,
            last_written.eq(0),   # no primitive: the first one after a flush goes in
            last_levels.eq(0),
        ).Elif(fifo.we & fifo.writable,
            last_written.eq(sink.data),
            last_levels.eq(levels),
        )

        # Mode, applied when two consecutive synchronised samples agree; the two modes the dword
        # choice asks for are flip-flops of their own, set with the mode (a comparison of the
        # mode's bits was the first of the choice's logic levels, which bound the word clock).
        mode_s = Signal(2)
        mode_d = Signal(2)
        mode   = Signal(2)
        link        = Signal()      # mode == TX_MODE_LINK
        align_sent  = Signal()      # mode == TX_MODE_ALIGN
        self.specials += MultiReg(self.mode, mode_s, "sata_tx")
        self.sync.sata_tx += [
            mode_d.eq(mode_s),
            If(mode_s == mode_d,
                mode.eq(mode_s),
                link.eq(mode_s == TX_MODE_LINK),
                align_sent.eq(mode_s == TX_MODE_ALIGN),
            ),
        ]

        # Dword source and half-dword sequencing. A dword takes two words. During the first word
        # of a dword (phase 0) the FIFO's head is sampled: its facts (valid, primitive, SOF, EOF)
        # and the 8b10b forms of its four symbols (tx_encoder.symbol_forms). During the second
        # (phase 1) the next dword is chosen among forms that are all registers or constants (the
        # head, ALIGN, the filler, D10.2) and registered; the encoder then only picks each
        # sub-block's form by the running disparity. No lookup and no FIFO access lies between the
        # choice and the line, which is what keeps the word clock above 150 MHz with margin.
        head_data    = fifo.dout[0:32]
        head_charisk = fifo.dout[32:36]
        head_levels  = fifo.dout[36:36 + n_levels]
        head_only    = fifo.dout[36 + n_levels]
        head_forms_c = Signal(4*FORM_BITS)
        for i in range(4):
            f, comb = symbol_forms(head_data[8*i:8*(i + 1)], head_charisk[i])
            self.comb += comb
            self.comb += head_forms_c[FORM_BITS*i:FORM_BITS*(i + 1)].eq(f)

        phase     = Signal()     # 0: first word (bytes 0-1) of a dword
        forms     = Signal(4*FORM_BITS)  # the dword being sent
        since_align = Signal(9)  # dwords since the last ALIGN sent
        align_pending = Signal() # second ALIGN of a pair
        filler    = Signal(4*FORM_BITS, reset=dword_forms_value(primitives["SYNC"], 0b0001))
        self.sync.sata_tx += phase.eq(~phase)

        if early_eof:
            # Told by the K flag, the second byte and the fourth: 17 bits where 36 were, each
            # fact a LUT or two (the added facts of the early R_OK cost the word clock its margin
            # otherwise). The link layer's primitives differ there (tests/phy/test_datapath.py).
            is_prim = lambda name: (head_charisk[0] &
                (head_data[8:16] == ((primitives[name] >> 8) & 0xFF)) &
                (head_data[24:32] == (primitives[name] >> 24)))
        else:
            is_prim = lambda name: (head_charisk == 0b0001) & (head_data == primitives[name])
        src_prim  = Signal()  # facts about the FIFO head, sampled at phase 0
        src_sof   = Signal()
        src_eof   = Signal()
        src_forms = Signal(4*FORM_BITS)
        src_idle  = Signal()  # SYNC or X_RDY: what the link layer sends until it receives or sends
        src_wtrm  = Signal()
        src_sync  = Signal()
        src_end   = Signal()  # R_OK or R_ERR
        # Facts the choice in phase 1 needs from registers that do not change between the two
        # phases, combined at phase 0 so that the choice sees one flip-flop where it saw several
        # (its logic levels bound the word clock): an ALIGN goes out next (``due``), the head can
        # be taken unless the drive's HOLD pauses it (``can_take``), the head or the last dword
        # taken is a frame's, so HOLD pauses it (``frame_head``), the head holds levels only
        # (``only_head``), and the link layer's levels for this dword (``may_next``,
        # ``want_next``: a levels-only head's apply to it already).
        in_frame = Signal()   # the last dword taken was a frame's (the filler is HOLD)
        due        = Signal()
        can_take   = Signal()
        frame_head = Signal()
        only_head  = Signal()
        may_next   = Signal()
        want_next  = Signal()
        hold      = Signal()  # the drive's HOLD, in sata_tx (a synchroniser's flip-flop)
        self.specials += MultiReg(self.hold, hold, "sata_tx")
        # The answers given here ahead of the link layer (see the docstring): the drive's last
        # primitive from synchronisers, the link layer's levels from the last dword taken.
        x_rdy  = Signal()
        done   = Signal()
        d_sync = Signal()
        may_rdy = Signal()  # answer_x_rdy of the last dword taken
        want    = Signal()  # want_send of the last dword taken
        src_levels = Signal(n_levels)
        self.specials += [
            MultiReg(self.drive_x_rdy, x_rdy, "sata_tx"),
            MultiReg(self.drive_done, done, "sata_tx"),
            MultiReg(self.drive_idle, d_sync, "sata_tx"),
        ]
        # The early R_OK (``early_eof``, all constant 0 without it): the head is R_IP (``src_rip``)
        # or the link layer's R_OK after the word clock's own (``swallow_head``: taken, not sent
        # again, the drive may have answered ours with SYNC already), and the link layer's
        # answer_eof, answer_status and answer_setup levels for this dword (``eof_next``,
        # ``status_next``, ``setup_next``).
        src_rip      = Signal()
        early_rok    = Signal()  # the word clock gave R_OK, the link layer's has not come yet
        swallow      = Signal()
        swallow_head = Signal()
        eof_next     = Signal()
        status_next  = Signal()
        may_eof      = Signal()  # answer_eof of the last dword taken
        may_status   = Signal()  # answer_status of the last dword taken
        setup_next   = Signal()
        may_setup    = Signal()  # answer_setup of the last dword taken
        if early_eof:
            self.comb += swallow.eq(early_rok & is_prim("R_OK"))
            self.sync.sata_tx += If(~phase,
                # (with the FIFO empty its head is an entry never written: X in a four-state
                # run, which a flag must not take up)
                src_rip.eq(fifo.readable & is_prim("R_IP")),
                swallow_head.eq(fifo.readable & ~head_only & swallow),
                If(fifo.readable & head_only,
                    eof_next.eq(head_levels[2]),
                    status_next.eq(head_levels[3]),
                    setup_next.eq(head_levels[4]),
                ).Else(
                    eof_next.eq(may_eof),
                    status_next.eq(may_status),
                    setup_next.eq(may_setup),
                ),
            )
        can_take_c = ~(align_pending | (since_align >= 254)) & fifo.readable & ~head_only
        if early_eof:
            can_take_c = can_take_c & ~swallow
        self.sync.sata_tx += If(~phase,
            src_prim.eq(head_charisk == 0b0001),
            src_sof.eq(is_prim("SOF")),
            src_eof.eq(is_prim("EOF")),
            src_idle.eq(is_prim("SYNC") | is_prim("X_RDY")),
            src_wtrm.eq(is_prim("WTRM")),
            src_sync.eq(is_prim("SYNC")),
            src_end.eq(is_prim("R_OK") | is_prim("R_ERR")),
            src_forms.eq(head_forms_c),
            src_levels.eq(head_levels),
            due.eq(align_pending | (since_align >= 254)),
            can_take.eq(can_take_c),
            frame_head.eq(Mux(fifo.readable, head_charisk != 0b0001, in_frame)),
            only_head.eq(fifo.readable & head_only),
            If(fifo.readable & head_only,
                may_next.eq(head_levels[0]), want_next.eq(head_levels[1]),
            ).Else(
                may_next.eq(may_rdy), want_next.eq(want),
            ),
        )

        insert = Signal()
        take   = Signal()
        skip   = Signal()     # the head's levels taken, nothing sent
        pause  = Signal()     # the drive's HOLD: HOLDA instead of the frame's data
        filler_idle = Signal(reset=1)  # the filler is SYNC or X_RDY
        filler_wtrm = Signal()         # the filler is WTRM
        filler_sync = Signal(reset=1)  # the filler is SYNC
        filler_end  = Signal()         # the filler is R_OK or R_ERR
        give_rdy  = Signal()  # the filler gives way to R_RDY: the drive's X_RDY
        give_sync = Signal()  # ... to SYNC: the drive answered our frame (or abandoned it), or
                              # took our answer to its own
        give_xrdy = Signal()  # ... to X_RDY: the drive is idle and the link layer has a frame
        give_rok  = Signal()  # ... to R_OK: a good frame's EOF, the link layer will say R_OK
        filler_rip = Signal()  # the filler is R_IP
        armed     = Signal()  # the flags seen clear since the last frame's answer (so a flag
                              # set later is the frame being received's)
        frame_good = Signal()
        frame_good_status = Signal()
        frame_good_setup  = Signal()
        frame_good_sdb    = Signal()
        setup_ok = Signal()   # the frame's second dword is a tag of the setup mask
        sdb_ok   = Signal()   # ... holds only tags of the SDB mask
        is_align = Signal()
        nxt    = Signal(4*FORM_BITS)
        forms_of = lambda dword, charisk: Constant(dword_forms_value(dword, charisk), 4*FORM_BITS)
        # (Without ``early_eof`` none of the early R_OK's terms is written: a PHY built without
        # the frame check is the netlist from before it, byte for byte.)
        early = lambda *statements: list(statements) if early_eof else []
        choice = If(insert | align_sent,
                nxt.eq(forms_of(primitives["ALIGN"], 0b0001)),
            ).Elif(take,
                nxt.eq(src_forms),
            ).Elif(pause,
                nxt.eq(forms_of(primitives["HOLDA"], 0b0001)),
            ).Elif(link & give_rdy,
                nxt.eq(forms_of(primitives["R_RDY"], 0b0001)),
            ).Elif(link & give_xrdy,
                nxt.eq(forms_of(primitives["X_RDY"], 0b0001)),
            ).Elif(link & give_sync,
                nxt.eq(forms_of(primitives["SYNC"], 0b0001)),
            )
        if early_eof:
            choice.Elif(link & give_rok,
                nxt.eq(forms_of(primitives["R_OK"], 0b0001)),
            )
        choice.Elif(link,
                nxt.eq(filler),
            ).Else(
                nxt.eq(forms_of(D10_2_DWORD, 0b0000)),
            )
        self.comb += [
            insert.eq(link & due),
            pause.eq(link & ~due & hold & frame_head),
            take.eq(link & can_take & ~(hold & frame_head)),
            skip.eq(link & (only_head | swallow_head)) if early_eof else skip.eq(link & only_head),
            give_rdy.eq(filler_idle & x_rdy & may_next),
            give_xrdy.eq((filler_sync | filler_end) & d_sync & want_next),
            give_sync.eq((filler_wtrm & done) | (filler_end & d_sync)),
            *early(give_rok.eq(filler_rip & armed & ((eof_next & frame_good) |
                                                     (status_next & frame_good_status) |
                                                     (setup_next & frame_good_setup & setup_ok) |
                                                     (setup_next & frame_good_sdb & sdb_ok)))),
            is_align.eq(insert | align_sent),
            choice,
            fifo.re.eq(phase & (take | skip)),
        ]
        filler_next = If(~link,
            filler.eq(forms_of(primitives["SYNC"], 0b0001)),
            in_frame.eq(0),
            filler_idle.eq(1), filler_sync.eq(1), filler_wtrm.eq(0), filler_end.eq(0),
        ).Elif(take & src_eof,
            filler.eq(forms_of(primitives["WTRM"], 0b0001)),
            in_frame.eq(0),
            filler_idle.eq(0), filler_sync.eq(0), filler_wtrm.eq(1), filler_end.eq(0),
        ).Elif(take & (~src_prim | src_sof),
            filler.eq(forms_of(primitives["HOLD"], 0b0001)),   # a frame's data ran dry
            in_frame.eq(1),
            filler_idle.eq(0), filler_sync.eq(0), filler_wtrm.eq(0), filler_end.eq(0),
        ).Elif(take,
            filler.eq(src_forms),            # HOLDA, HOLD, R_IP, SYNC...: repeated
            filler_idle.eq(src_idle), filler_sync.eq(src_sync), filler_wtrm.eq(src_wtrm),
            filler_end.eq(src_end),
        # An answer given here stays until the link layer's own comes through the FIFO.
        ).Elif(~insert & ~pause & give_rdy,
            filler.eq(forms_of(primitives["R_RDY"], 0b0001)),
            filler_idle.eq(0), filler_sync.eq(0),
        ).Elif(~insert & ~pause & give_xrdy,
            filler.eq(forms_of(primitives["X_RDY"], 0b0001)),
            filler_idle.eq(1), filler_sync.eq(0), filler_end.eq(0),
        ).Elif(~insert & ~pause & give_sync,
            filler.eq(forms_of(primitives["SYNC"], 0b0001)),
            filler_idle.eq(1), filler_sync.eq(1), filler_wtrm.eq(0), filler_end.eq(0),
        )
        if early_eof:
            filler_next.Elif(~insert & ~pause & give_rok,
                filler.eq(forms_of(primitives["R_OK"], 0b0001)),
                filler_end.eq(1),
            )
        self.sync.sata_tx += If(phase,
            forms.eq(nxt),
            If(is_align,
                since_align.eq(0),
                align_pending.eq(~align_pending & ~take),
            ).Elif(since_align != 511,
                since_align.eq(since_align + 1),
            ),
            If(~link,
                may_rdy.eq(0), want.eq(0),
            ).Elif(take | skip,
                Cat(may_rdy, want).eq(src_levels),
            ),
            filler_next,
            If(link & ~take & ~is_align & ~pause,
                self.underflows.eq(self.underflows + 1)
            ),
        )

        # The early R_OK's state (see ``src_rip`` above), updated with the dword chosen.
        if early_eof:
            rok_out = Signal()
            self.specials += [
                MultiReg(self.frame_good, frame_good, "sata_tx"),
                MultiReg(self.frame_good_status, frame_good_status, "sata_tx"),
                MultiReg(self.frame_good_setup, frame_good_setup, "sata_tx"),
                MultiReg(self.frame_good_sdb, frame_good_sdb, "sata_tx"),
            ]
            # The frame's second dword checked against the queued layer's masks in the receive
            # clock (rx_frame.py), the results through synchronisers of their own: set two word
            # clocks before the flags, they hold the frame's own when the flags come. (Compared
            # here, the 96 bits that crossed and the comparisons' register placed by them put a
            # route across the device into the transmit choice: the Versa's sata_tx missed
            # 150 MHz.)
            self.specials += [
                MultiReg(self.frame_setup_ok, setup_ok, "sata_tx"),
                MultiReg(self.frame_sdb_ok, sdb_ok, "sata_tx"),
            ]
            self.comb += rok_out.eq(link & ~insert & ~pause & ~take & give_rok)
            self.sync.sata_tx += If(phase,
                If(~link,
                    may_eof.eq(0), may_status.eq(0), may_setup.eq(0),
                ).Elif(take | skip,
                    may_eof.eq(src_levels[2]), may_status.eq(src_levels[3]),
                    may_setup.eq(src_levels[4]),
                ),
                If(~link | rok_out,
                    filler_rip.eq(0),
                ).Elif(take,
                    filler_rip.eq(src_rip),
                ),
                # The flags seen clear (each has its own synchroniser) since the last frame was
                # answered: a short frame's EOF may set them before the link layer's R_IP and
                # level come, so they are not waited for.
                If(~link | rok_out | (take & src_end),
                    armed.eq(0),
                ).Elif(~frame_good & ~frame_good_status & ~frame_good_setup & ~frame_good_sdb,
                    armed.eq(1),
                ),
                If(~link,
                    early_rok.eq(0),
                ).Elif(rok_out,
                    early_rok.eq(1),
                ).Elif(take | (skip & swallow_head),
                    early_rok.eq(0),
                ),
            )

        # 8b10b stage 2 (one word clock): symbols 0-1 of the chosen dword during phase 0, 2-3
        # during phase 1 (the dword register changes at the end of phase 1).
        self.encoder = encoder = FormEncoder()
        self.comb += encoder.forms.eq(Mux(phase, forms[2*FORM_BITS:], forms[:2*FORM_BITS]))
        # The word leaving the encoder was chosen 2 cycles ago: delay the mode to match.
        mode_d1 = Signal(2)
        mode_d2 = Signal(2)
        # No register of its own: every SerDes registers its transmit word (``SerDesInterface``),
        # and a second register here was one word clock more on every answer.
        self.sync.sata_tx += [
            mode_d1.eq(mode),
            mode_d2.eq(mode_d1),
        ]
        self.comb += If(mode_d2 == TX_MODE_OOB,
            self.tx_data.eq(self.oob_data),
            self.tx_idle.eq(self.oob_idle),
        ).Else(
            self.tx_data.eq(encoder.output),
        )
