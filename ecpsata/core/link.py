# SPDX-License-Identifier: BSD-2-Clause
"""The SATA link layer, host side: frame transmission and reception with primitives, scrambling
and CRC, written for our PHY with LiteSATA's CRC and scrambler blocks.

State names follow the link layer state diagrams of Serial ATA Revision 3.x (section 9.6): the
transmit side L_IDLE, HL_SendChkRdy, L_SendSOF, L_SendData, L_RcvrHold, L_SendEOF, L_Wait; the
receive side L_RcvChkRdy, L_RcvData, L_RcvEOF, L_GoodEnd, L_BadEnd, L_PMDeny, and L_SyncEscape
after a frame the device abandoned.

What it does beyond LiteSATA's link layer (litesata/core/link.py), and why:

- **The transport layer's verdict.** After EOF the receiver sends R_IP until the transport layer
  has judged the frame (`verdict`), then R_OK only when the CRC is good *and* the transport
  accepted the frame, else R_ERR (SATA 3.x §9.6.4: L_RcvEOF waits for the transport's good or bad
  status). LiteSATA answers on the CRC alone, so an intact frame the transport cannot use got
  R_OK and was lost: the device never repeated it.
- **Escapes.** A device that sends SYNC inside a frame it transmits has abandoned it (SATA 3.x
  9.6.4, L_RcvData): the frame ends at once with an error (`rx_escape` pulses), and no R_OK or
  R_ERR follows. LiteSATA stayed in its copy state sending R_IP until the core was reset. SYNC
  inside a frame we transmit (the device aborted our frame) ends it as refused: the rest of it
  is drained from the transport layer, not sent as the start of the next frame.
- **DMAT.** The device's DMAT while we send a Data FIS asks us to end it: `dmat` goes high until
  the frame ends, and the command layer marks its next dword as the last (the CRC and EOF
  follow). LiteSATA ignored it and sent the whole FIS.
- **No wait for a single primitive that a bit error can destroy.** Data dwords outside a frame
  are ignored (CONT junk whose CONT a bit error destroyed), and so are primitives we do not know.
  Sending from L_IDLE needs the last known primitive from the drive to have been SYNC (after its
  CONT the idle drive sends only junk); HL_SendChkRdy yields to the drive's X_RDY (the host
  gives way, SATA 3.x §9.6.2) and waits for R_RDY otherwise; the receiver in L_RcvChkRdy returns
  to idle on a known primitive other than X_RDY / SOF; WTRM inside a frame (its EOF was lost) ends
  the frame as bad.
- **A frame too short to be a FIS** (one dword or none: the CRC alone) is answered R_ERR here
  and never reaches the transport layer; **a frame longer than any FIS** (over 2,050 dwords: a
  Data FIS of 2,048 payload dwords, its header and CRC) and **a frame that overran the receive
  buffer** (a drive that ignored our HOLD) end with ``error`` on their last dword and are
  answered R_ERR. The last dword of a frame waits for room in the buffer (L_RcvEOF answers R_IP
  meanwhile): the transport always gets a frame's end, so it always judges the frame.
- **Power management requests are denied** (L_PMDeny: PMNAK for as long as the drive sends
  PMREQ_P / PMREQ_S, SATA 3.x §9.6.3); our transmit side does not send X_RDY into a PMREQ (the
  last primitive from the drive was not SYNC). LiteSATA's link answered SYNC.
- No ALIGN inserter / remover and no CONT remover: our PHY sends the ALIGN pairs, drops the
  received ones and expands CONT before its clock crossing (ecpsata/phy/datapath.py), which
  keeps those comparisons off sys' receive path and the CONT state off the core's reset.
- **Answers in the PHY's word clock.** Our PHY answers the drive's X_RDY with R_RDY, the end of
  a handshake with SYNC and the idle drive with X_RDY itself, ahead of the link layer, when the
  link layer's levels allow it (``answer_x_rdy``, ``want_send``; doc/architecture.md, "Answers
  in the word clock"); the link layer's own answer follows and is the same.
- No register stage between the PHY and the link state machines: every register there adds to
  the turnaround of each primitive handshake (three per Data FIS), which bounds throughput. The
  registers are further on: between the descrambler and the CRC check, in front of the transmit
  side (a ready register) and on the pulses out of the link (``ECPSATALink``).

Ports: ``sink`` (``link_description``: one frame per packet, from the transport layer),
``source`` (received frames, the CRC dword removed, ``error`` on the last dword when the CRC
failed or the frame was cut short), ``verdict_valid`` / ``verdict_good`` (in: the transport
layer's judgement of the frame it is reading, one per frame that reaches it), pulses ``tx_ok``
(our frame got R_OK), ``tx_err`` (R_ERR, or the device aborted it), ``rx_escape`` (the device
abandoned its frame), ``rx_crc_error`` (a received frame failed its CRC), ``rx_refused`` (we
answered R_ERR), ``rx_bad_seq`` (WTRM inside a frame: a lost EOF), ``rx_overrun`` (a frame lost
dwords to a full buffer), ``rx_too_long`` (a frame longer than any FIS), ``rx_pm_denied`` (we
answered a power management request with PMNAK), and the level ``dmat``.

# Ref: Serial ATA Revision 3.x, 9.4 (primitives), 9.5 (CONT), 9.6 (link layer state diagrams)
"""

from functools import reduce
from operator import or_

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream
from litex.soc.interconnect.stream import Pipeline

from litesata.common import link_description, phy_description, primitives
from litesata.core.link import LiteSATACRCInserter, LiteSATACRCChecker, LiteSATAScrambler

from ecpsata.pipe import LookaheadFIFO, ReadyPipe
from ecpsata.phy.common import FRAME_MAX_DWORDS

RX_BUFFER_DWORDS = 256

# SATA 3.x §9.4: the primitives LiteSATA's table lacks (K28.3 first, the three data bytes after).
PRIMITIVES = dict(primitives,
    DMAT    = 0x3636B57C,
    PMREQ_P = 0x1717B57C,
    PMREQ_S = 0x7575957C,
    PMACK   = 0x9595957C,
    PMNAK   = 0xF5F5957C,
)
# What the other side may send on purpose; anything else is a bit error in CONT junk.
KNOWN = [p for p in PRIMITIVES if p not in ("ALIGN", "ALIGN_N", "CONT")]


class _Primitives:
    """Comparisons of the received primitive (registered nowhere: the PHY's buffer is the
    register)."""
    def __init__(self, valid, value):
        self.valid, self.value = valid, value

    def __call__(self, name):
        return self.valid & (self.value == PRIMITIVES[name])

    def other_than(self, *names):
        return reduce(or_, [self(p) for p in KNOWN if p not in names])


class ECPSATALinkTX(LiteXModule):
    """Transmit side: frames from ``sink`` to the PHY, with SOF, CRC, scrambling, EOF, the
    X_RDY / R_RDY and WTRM / R_OK handshakes, HOLD / HOLDA and DMAT."""
    def __init__(self, rx):
        self.sink   = sink   = stream.Endpoint(link_description(32))
        self.source = source = stream.Endpoint(phy_description(32))
        self.tx_ok  = Signal()
        self.tx_err = Signal()
        self.dmat   = Signal()

        # # #

        crc       = LiteSATACRCInserter(link_description(32))
        scrambler = LiteSATAScrambler(link_description(32))
        self.submodules += crc, scrambler
        self.pipeline = pipeline = Pipeline(sink, crc, scrambler)
        frame = pipeline.source

        prim = rx.prim
        insert = Signal(32)
        copy   = Signal()
        self.comb += [
            If(rx.insert != 0,
                source.valid.eq(1),
                source.data.eq(rx.insert),
                source.charisk.eq(0b0001),
            ).Elif(insert != 0,
                source.valid.eq(1),
                source.data.eq(insert),
                source.charisk.eq(0b0001),
            ).Elif(copy,
                source.valid.eq(1),
                frame.ready.eq(source.ready),
                If(frame.valid,
                    source.data.eq(frame.data),
                    source.charisk.eq(0b0000),
                ).Else(
                    source.data.eq(PRIMITIVES["HOLD"]),      # L_SendHold: our data is late
                    source.charisk.eq(0b0001),
                )
            )
        ]

        # The drive is idle when the last known primitive it sent was SYNC (after R_OK / R_ERR
        # it waits for our SYNC first; after its CONT only junk follows).
        drive_idle = Signal()
        self.sync += If(prim("SYNC"), drive_idle.eq(1)).Elif(prim.other_than("SYNC"), drive_idle.eq(0))

        # With a PHY that answers a good frame's EOF itself (``early``), the drive's R_RDY may
        # also come here before this side has sent X_RDY: the PHY sent it on the drive's SYNC
        # (below), and the drive's SYNC and R_RDY both passed while the receive side was still
        # ending its handshake.
        early = hasattr(rx, "answer_eof")
        go = frame.valid & (drive_idle | prim("R_RDY")) if early else frame.valid & drive_idle
        self.fsm = fsm = FSM(reset_state="L_IDLE")
        fsm.act("L_IDLE",
            scrambler.reset.eq(1),
            If(rx.idle,
                insert.eq(PRIMITIVES["SYNC"]),
                If(go,
                    insert.eq(PRIMITIVES["X_RDY"]),   # no SYNC between: the PHY may have sent X_RDY
                    NextState("HL_SendChkRdy")
                )
            )
        )
        # For the PHY (it sends X_RDY on the drive's SYNC itself): a frame waits, and the receive
        # side is idle or ends its handshake on the drive's SYNC; with ``early`` also while it
        # receives or waits for its verdict (the PHY sends X_RDY then only after an R_OK of its
        # own: the frame is answered).
        self.want_send = Signal()
        ends = rx.idle | rx.fsm.ongoing("L_GoodEnd") | rx.fsm.ongoing("L_BadEnd")
        if early:
            ends = ends | rx.fsm.ongoing("L_RcvData") | rx.fsm.ongoing("L_RcvEOF")
        self.comb += self.want_send.eq(frame.valid & fsm.ongoing("L_IDLE") & ends)
        fsm.act("HL_SendChkRdy",
            insert.eq(PRIMITIVES["X_RDY"]),
            If(~rx.idle,                    # the drive's X_RDY: the host yields (9.6.2)
                NextState("L_IDLE")
            ).Elif(prim("R_RDY"),           # SOF goes out in R_RDY's own cycle
                insert.eq(PRIMITIVES["SOF"]),
                If(source.ready,
                    NextState("L_SendData")
                ).Else(
                    NextState("L_SendSOF")
                )
            )
        )
        fsm.act("L_SendSOF",
            insert.eq(PRIMITIVES["SOF"]),
            If(source.ready, NextState("L_SendData"))
        )
        aborted = prim("SYNC")             # the receiver abandoned our frame
        fsm.act("L_SendData",
            copy.eq(1),
            If(aborted,
                copy.eq(0),
                self.tx_err.eq(1),
                NextState("L_Drain")
            ).Elif(frame.valid & frame.last & frame.ready,
                NextState("L_SendEOF")
            ).Elif(prim("HOLD"),
                NextState("L_RcvrHold")
            )
        )
        fsm.act("L_RcvrHold",
            insert.eq(PRIMITIVES["HOLDA"]),
            If(aborted,
                self.tx_err.eq(1),
                NextState("L_Drain")
            ).Elif(prim.other_than("HOLD"),
                NextState("L_SendData")
            )
        )
        fsm.act("L_SendEOF",
            insert.eq(PRIMITIVES["EOF"]),
            If(source.ready, NextState("L_Wait"))
        )
        fsm.act("L_Wait",
            insert.eq(PRIMITIVES["WTRM"]),
            If(prim("R_OK"),
                self.tx_ok.eq(1),
                NextState("L_IDLE")
            ).Elif(prim("R_ERR") | aborted,
                self.tx_err.eq(1),
                NextState("L_IDLE")
            )
        )
        # The rest of an aborted frame is taken from the transport layer and dropped (SYNC out).
        fsm.act("L_Drain",
            insert.eq(PRIMITIVES["SYNC"]),
            frame.ready.eq(1),
            If(frame.valid & frame.last, NextState("L_IDLE"))
        )
        in_frame = fsm.ongoing("L_SendData") | fsm.ongoing("L_RcvrHold")
        self.sync += If(~in_frame, self.dmat.eq(0)).Elif(prim("DMAT"), self.dmat.eq(1))


class ECPSATALinkRX(LiteXModule):
    """Receive side: frames from the PHY to ``source`` (descrambled, CRC checked and removed),
    with R_RDY, R_IP, HOLD when the buffer behind it is half full, HOLDA, and R_OK / R_ERR once
    the transport layer has judged the frame. ``answer_eof``: also the level of that name, for a
    PHY that answers a good frame's EOF itself (below)."""
    def __init__(self, answer_eof=False):
        self.sink   = sink   = stream.Endpoint(phy_description(32))
        self.source = source = stream.Endpoint(link_description(32))
        self.hold   = Signal()             # in: the buffer behind is half full
        self.idle   = Signal()             # out: L_IDLE (the transmit side may send)
        self.insert = Signal(32)           # out: the primitive the receive side sends, or 0
        self.verdict_valid = Signal()      # in: pulse, the transport judged the frame it reads
        self.verdict_good  = Signal()
        self.rx_escape    = Signal()       # out pulses
        self.rx_crc_error = Signal()
        self.rx_refused   = Signal()
        self.rx_bad_seq   = Signal()
        self.rx_overrun   = Signal()       # a frame lost dwords: the buffer behind was full
        self.rx_too_long  = Signal()       # a frame longer than any FIS
        self.rx_pm_denied = Signal()       # the drive asked for a power state, we answered PMNAK

        # # #

        self.comb += sink.ready.eq(1)
        data_valid = Signal()
        prim_valid = Signal()
        self.comb += [
            data_valid.eq(sink.valid & (sink.charisk == 0)),
            prim_valid.eq(sink.valid & (sink.charisk == 0b0001)),
        ]
        self.prim = prim = _Primitives(prim_valid, sink.data)

        # A register between the descrambler and the CRC check: without it, the path from the
        # descrambler's state through its XOR and the CRC into `crc_error` (and on through the
        # transport) was sys' longest on ECP5. It costs one cycle per received frame.
        descrambler = LiteSATAScrambler(link_description(32))
        descrambled = stream.PipeValid(link_description(32))
        checker     = LiteSATACRCChecker(link_description(32))
        self.submodules += descrambler, descrambled, checker
        self.pipeline = pipeline = Pipeline(descrambler, descrambled, checker, source)
        # The frame's CRC is known (checked) one cycle after its last dword left the checker.
        crc_error, crc_known, crc_forget = Signal(), Signal(), Signal()
        self.sync += [
            If(crc_forget,
                crc_known.eq(0)
            ).Elif(checker.source.valid & checker.source.last & checker.source.ready,
                crc_error.eq(checker.source.error), crc_known.eq(1)
            )
        ]

        # Each data dword goes down the pipeline when the next one arrives (one cycle of latency
        # in LiteSATA's design): at the frame's end the held dword (the CRC) goes as the last.
        # A frame of fewer than two dwords is not a FIS: it is never passed on.
        held   = Signal()                  # a dword is held
        passed = Signal()                  # at least one dword went down this frame
        self.sync += If(data_valid, pipeline.sink.data.eq(sink.data))
        # A drive that ignores our HOLD overruns the buffer: the frame is then bad (R_ERR), never
        # passed on as good with dwords missing, and its last dword waits for room (without it
        # the transport never judges the frame and L_RcvEOF would answer R_IP for ever). A frame
        # longer than any FIS is bad too (a Data FIS carries 2,048 dwords at most, SATA 3.x
        # 10.3.10).
        overrun, too_long = Signal(), Signal()
        dwords = Signal(max=FRAME_MAX_DWORDS + 1)      # dwords received this frame (saturates)
        last_pending, last_error = Signal(), Signal()   # the last dword still to go down
        push_last = Signal()

        # The transport's verdict, kept until the frame's end consumes it (one frame at a time:
        # the next frame is not taken before).
        v_pending, v_good = Signal(), Signal()
        consume = Signal()
        self.sync += [
            If(consume,
                v_pending.eq(0)
            ).Elif(self.verdict_valid,
                v_pending.eq(1), v_good.eq(self.verdict_good)
            )
        ]
        owed = Signal()                    # the frame reached the transport: a verdict comes

        end_frame = lambda error: [        # push the held dword as the last one
            If(held & passed,
                push_last.eq(1),
                pipeline.sink.valid.eq(1),
                pipeline.sink.last.eq(1),
                pipeline.sink.error.eq(error | overrun | too_long),
                NextValue(owed, 1),
                NextValue(last_error, error | overrun | too_long),
            )
        ]
        self.sync += [
            If(push_last,
                last_pending.eq(~pipeline.sink.ready)
            ).Elif(last_pending & pipeline.sink.ready,
                last_pending.eq(0)
            )
        ]
        retry_last = [                     # in the states after the frame's end
            If(last_pending,
                pipeline.sink.valid.eq(1),
                pipeline.sink.last.eq(1),
                pipeline.sink.error.eq(last_error),
            )
        ]

        self.fsm = fsm = FSM(reset_state="L_IDLE")
        fsm.act("L_IDLE",
            descrambler.reset.eq(1),
            NextValue(held, 0), NextValue(passed, 0), NextValue(owed, 0), crc_forget.eq(1),
            NextValue(overrun, 0), NextValue(too_long, 0), NextValue(dwords, 0),
            If(prim("X_RDY"),
                NextState("L_RcvChkRdy")
            ).Elif(prim("PMREQ_P") | prim("PMREQ_S"),
                self.rx_pm_denied.eq(1),
                NextState("L_PMDeny")
            )
        )
        # No power management here: a drive's request for Partial or Slumber is denied for as
        # long as it asks (SATA 3.x §9.6.3, L_IDLE -> L_PMDeny).
        fsm.act("L_PMDeny",
            self.insert.eq(PRIMITIVES["PMNAK"]),
            If(prim.other_than("PMREQ_P", "PMREQ_S"), NextState("L_IDLE"))
        )
        fsm.act("L_RcvChkRdy",
            self.insert.eq(PRIMITIVES["R_RDY"]),
            If(prim("SOF"),
                NextState("L_RcvData")
            ).Elif(prim.other_than("X_RDY", "SOF"),
                NextState("L_IDLE")
            )
        )
        fsm.act("L_RcvData",
            self.insert.eq(PRIMITIVES["R_IP"]),
            If(data_valid,
                NextValue(held, 1),
                If(dwords != FRAME_MAX_DWORDS,
                    NextValue(dwords, dwords + 1)
                ).Else(
                    NextValue(too_long, 1)
                ),
                If(held,
                    pipeline.sink.valid.eq(1),
                    NextValue(passed, 1),
                    If(~pipeline.sink.ready, NextValue(overrun, 1)),
                )
            ),
            If(prim("EOF"),
                *end_frame(0),
                NextState("L_RcvEOF")
            ).Elif(prim("WTRM"),            # the EOF was lost: the frame ends as bad
                self.rx_bad_seq.eq(1),
                *end_frame(1),
                NextState("L_RcvEOF")
            ).Elif(prim("SYNC"),            # the device abandoned the frame
                self.rx_escape.eq(1),
                *end_frame(1),
                NextState("L_SyncEscape")
            ).Elif(prim("HOLD"),
                self.insert.eq(PRIMITIVES["HOLDA"])
            ).Elif(self.hold,
                self.insert.eq(PRIMITIVES["HOLD"])
            )
        )
        # EOF received: R_IP until the CRC and the transport's verdict are known. The verdict is
        # taken from its register: used in the cycle it came, the path from the command layer's
        # decision through the transport into this state machine held sys at 77 MHz on ECP5. The
        # transport judges the FISes a command waits on (Data, Register D2H, DMA Activate) as
        # their dwords arrive, so that the register costs them nothing against an answer on the
        # CRC alone.
        verdict = Signal()
        good = Signal()
        self.comb += [
            verdict.eq(v_pending),
            good.eq(~crc_error & v_good),
        ]
        fsm.act("L_RcvEOF",
            self.insert.eq(PRIMITIVES["R_IP"]),
            *retry_last,
            If(~owed,
                self.rx_refused.eq(1),
                NextState("L_BadEnd")
            ).Elif(verdict & crc_known,
                consume.eq(1),
                self.rx_crc_error.eq(crc_error & ~overrun & ~too_long),
                self.rx_overrun.eq(overrun),
                self.rx_too_long.eq(too_long),
                # the answer goes out in this cycle already (from registers: no long path)
                If(good,
                    self.insert.eq(PRIMITIVES["R_OK"]),
                    NextState("L_GoodEnd")
                ).Else(
                    self.insert.eq(PRIMITIVES["R_ERR"]),
                    self.rx_refused.eq(1),
                    NextState("L_BadEnd")
                )
            )
        )
        fsm.act("L_GoodEnd",
            self.insert.eq(PRIMITIVES["R_OK"]),
            If(prim("SYNC"), NextState("L_IDLE"))
        )
        fsm.act("L_BadEnd",
            self.insert.eq(PRIMITIVES["R_ERR"]),
            If(prim("SYNC"), NextState("L_IDLE"))
        )
        # After an escape: SYNC, and no new frame until the transport has finished with this one:
        # its verdict, and its last dword gone down (an early verdict, a Data FIS judged at its
        # first dword, can come while the last dword still waits for room in the buffer; leaving
        # then would lose the frame's end and join the next frame to it).
        fsm.act("L_SyncEscape",
            self.insert.eq(PRIMITIVES["SYNC"]),
            *retry_last,
            If((~owed | verdict) & ~last_pending,
                consume.eq(1),
                NextState("L_IDLE")
            )
        )
        self.comb += self.idle.eq(fsm.ongoing("L_IDLE"))
        # ``answer_eof``: for a PHY that answers a good EOF with R_OK in its word clock when this
        # level is set (its own frame check: CRC and length). The transport has accepted the
        # frame already (a Data FIS at its first dword), the buffer behind is less than half full
        # (so no dword the PHY has passed on can overrun it; HOLD clears the level) and the frame
        # is not too long. Made only for such a PHY: the state machine's comparisons would
        # otherwise change the netlist of a build without it.
        # ``answer_status``: the same for a Register D2H, before its verdict: the transport takes
        # any whose length and CRC are right, which the PHY checks itself with its type (a good
        # frame of that type and length), so the level is this side's receiving alone. It is
        # never a frame's before: the PHY answers the next frame's X_RDY only on this side's
        # levels from L_IDLE, which follow the last frame's in the order of the dwords we send.
        # ``answer_setup``: the same for a DMA Setup or a Set Device Bits while the transport
        # holds the queued layer's masks for this frame (``pre_setup``: the tags it takes a DMA
        # Setup for and those a Set Device Bits may complete, which the PHY checks the frame's
        # second dword against; the transport judges such a frame good).
        if answer_eof:
            self.answer_eof = Signal()
            self.answer_status = Signal()
            self.answer_setup = Signal()
            self.pre_setup = Signal()      # in: the transport holds the queued layer's masks
            receiving = Signal()
            self.comb += [
                receiving.eq((fsm.ongoing("L_RcvData") | fsm.ongoing("L_RcvEOF")) &
                             ~self.hold & ~overrun & ~too_long),
                self.answer_eof.eq(receiving & v_pending & v_good),
                self.answer_status.eq(receiving),
                self.answer_setup.eq(receiving & self.pre_setup),
            ]


class ECPSATALink(LiteXModule):
    """Link layer: ``ECPSATALinkTX`` straight to the PHY's (registered) sink, ``ECPSATALinkRX``
    with a 256-dword buffer behind it (HOLD when half full, from a register). The buffer is in
    block RAM with the cycles of a LUT RAM FIFO (``LookaheadFIFO``): no added latency, the word
    at its head a block RAM's output instead of a LUT RAM's read multiplexer (on the Versa that
    read ran through the transport's decode into the queued layer's tags; in LUT RAM the buffer
    took more than a thousand LUTs).

    Two registers keep the PHY's receive FIFO off the long paths into the layers above, without
    a register between the PHY and the state machines: the transmit side's ``ready`` to the
    transport layer comes from a ready register (``ReadyPipe``: no added latency), and the
    pulses (``tx_ok``, ``tx_err``, ``rx_escape``, ``rx_crc_error``, ``rx_refused``,
    ``rx_bad_seq``) come one cycle after the primitive that caused them. Before, the paths from
    the receive FIFO through a primitive's comparison and the state machines into the queued
    layer's tags and the benchmark engines' byte counts were sys' longest on ECP5."""
    def __init__(self, phy):
        self.rx = rx = ECPSATALinkRX(answer_eof=hasattr(phy, "answer_eof"))
        self.tx = tx = ECPSATALinkTX(rx)
        self.tx_ready  = ReadyPipe(link_description(32))
        self.rx_buffer = LookaheadFIFO(link_description(32), RX_BUFFER_DWORDS)
        self.tx_pipeline = Pipeline(self.tx_ready, tx, phy)
        self.rx_pipeline = Pipeline(phy, rx, self.rx_buffer)
        # HOLD from a register: one cycle later than the level, with half the buffer still free.
        self.sync += rx.hold.eq(self.rx_buffer.level > RX_BUFFER_DWORDS // 2)
        # Our PHY answers the drive's X_RDY with R_RDY in its word clock when both sides are idle
        # (or we wait for R_RDY ourselves: the host yields), as the receive side would.
        if hasattr(phy, "answer_x_rdy"):
            self.comb += [
                phy.answer_x_rdy.eq(
                    rx.fsm.ongoing("L_IDLE") &
                    (tx.fsm.ongoing("L_IDLE") | tx.fsm.ongoing("HL_SendChkRdy"))),
                phy.want_send.eq(tx.want_send),
            ]
        if hasattr(phy, "answer_eof"):
            self.comb += [
                phy.answer_eof.eq(rx.answer_eof),
                phy.answer_status.eq(rx.answer_status),
                phy.answer_setup.eq(rx.answer_setup),
            ]
            self.pre_setup = rx.pre_setup
            # The masks the transport holds, to the PHY; and this side's L_IDLE, when the
            # transport takes them.
            self.setup_mask = Signal(32)
            self.sdb_mask = Signal(32)
            self.rx_idle = rx.idle
            self.comb += [
                phy.setup_mask.eq(self.setup_mask),
                phy.sdb_mask.eq(self.sdb_mask),
            ]

        for name, pulse in [("tx_ok", tx.tx_ok), ("tx_err", tx.tx_err),
                            ("rx_escape", rx.rx_escape), ("rx_crc_error", rx.rx_crc_error),
                            ("rx_refused", rx.rx_refused), ("rx_bad_seq", rx.rx_bad_seq),
                            ("rx_overrun", rx.rx_overrun), ("rx_too_long", rx.rx_too_long),
                            ("rx_pm_denied", rx.rx_pm_denied)]:
            registered = Signal(name=name)
            self.sync += registered.eq(pulse)
            setattr(self, name, registered)
        self.dmat = tx.dmat
        self.verdict_valid, self.verdict_good = rx.verdict_valid, rx.verdict_good
        self.sink, self.source = self.tx_pipeline.sink, self.rx_pipeline.source
