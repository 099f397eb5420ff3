"""LiteSATA's link layer, assembled for our PHY.

Same parts as ``litesata.core.link.LiteSATALink`` (link TX and RX state machines, CRC, scrambler,
the 256-dword RX buffer with HOLD at half full), with these differences:

- no ALIGN inserter, no ALIGN remover, no CONT remover: our PHY sends the ALIGN pairs itself,
  drops the received ones and expands CONT sequences before its clock crossing
  (gateware/phy/datapath.py). That keeps their comparisons off sys' receive path (the path from
  the RX FIFO through the link state machines to the CRC checker is sys' longest on ECP5), and
  the CONT state off the core's reset (a core reset while the drive sent CONT junk made the
  junk look like data, and the link waited for a SYNC forever);
- no registered stage between the PHY and the link state machines. Our PHY registers its side
  (the TX buffer in gateware/phy/phy.py, the RX FIFO), and every register on that path adds to
  the turnaround of each primitive handshake (R_OK, SYNC, R_RDY: three per Data FIS), which
  bounds sequential throughput;
- R_OK / R_ERR of our frames reported upwards (the command layer resends a refused command
  FIS), and no wait for a single primitive that a bit error can destroy, or for one that a
  destroyed CONT hides (below).
"""

from functools import reduce
from operator import or_

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream
from litex.soc.interconnect.stream import Pipeline

from litesata.common import link_description, primitives
from litesata.core.link import LiteSATALinkTX, LiteSATALinkRX, LiteSATAScrambler

RX_BUFFER_DWORDS = 256


class ECPSATALink(LiteXModule):
    def __init__(self, phy):
        # TX: link state machine straight to the PHY's (registered) sink.
        self.tx = LiteSATALinkTX()
        self.tx_pipeline = Pipeline(self.tx, phy)

        # RX: link state machine, buffer (HOLD when half full).
        self.rx        = LiteSATALinkRX()
        self.rx_buffer = stream.SyncFIFO(link_description(32), RX_BUFFER_DWORDS)
        self.rx_pipeline = Pipeline(phy, self.rx, self.rx_buffer)

        self.comb += [
            self.rx.to_tx.connect(self.tx.from_rx),
            self.rx.hold.eq(self.rx_buffer.level > RX_BUFFER_DWORDS // 2),
        ]

        # The end of each frame we send, for the transport's retries (pulses): the drive took it
        # (R_OK), or refused it (R_ERR, or SYNC in the middle: the frame was aborted).
        self.tx_ok  = Signal()
        self.tx_err = Signal()
        from_rx = self.rx.to_tx
        prim = lambda name: from_rx.primitive_valid & (from_rx.primitive == primitives[name])
        self.comb += [
            self.tx_ok.eq(self.tx.fsm.ongoing("WTRM") & prim("R_OK")),
            self.tx_err.eq((self.tx.fsm.ongoing("WTRM") & ~prim("R_OK") &
                            (prim("R_ERR") | self.tx.error)) |
                           (self.tx.fsm.ongoing("HOLDA") & self.tx.error)),
        ]
        # Where LiteSATA's link waits for one primitive only, a lost one (a bit error on the
        # line) hung both ends until the command timeout. Data dwords outside a frame are ignored
        # by every rule below: they are CONT junk whose CONT a bit error destroyed (the PHY then
        # cannot expand it), and so are primitives we do not know (a bit error in the junk).
        # - Sending a frame from idle: LiteSATA needs the current dword to be SYNC, which a lost
        #   CONT hid for good (the idle drive sends SYNC SYNC CONT and junk, then nothing else
        #   until we send X_RDY). Remember the last known primitive instead: the drive is idle
        #   when the last one it sent was SYNC (after R_OK / R_ERR it waits for our SYNC first).
        # - Waiting for SOF after X_RDY: a known primitive other than X_RDY / SOF (the drive
        #   went back to SYNC, or the SOF was lost and EOF / WTRM follow) returns to idle, where
        #   we send SYNC and the drive ends its frame as failed (SATA 3.x 9.6, LR:RcvWaitFifo).
        # - Receiving a frame: WTRM means its EOF was lost; end the frame there with an error
        #   (R_ERR: the drive fails the command, a named error) instead of waiting for an EOF
        #   that the drive, now waiting for our R_OK / R_ERR, never sends.
        known  = [p for p in primitives if p not in ("ALIGN", "ALIGN_N", "CONT")]
        others = lambda *names: reduce(or_, [prim(p) for p in known if p not in names])
        self.drive_idle = drive_idle = Signal()
        self.sync += [
            If(prim("SYNC"),
                drive_idle.eq(1)
            ).Elif(others("SYNC"),
                drive_idle.eq(0)
            )
        ]
        tx_frame = next(m for _, m in self.tx._submodules if isinstance(m, Pipeline)).source
        self.tx.fsm.act("IDLE",
            If(from_rx.idle & tx_frame.valid & drive_idle,
                NextState("RDY")
            )
        )
        self.rx.fsm.act("RDY",
            If(others("X_RDY", "SOF"),
                NextState("IDLE")
            )
        )
        descrambler = next(m for _, m in self.rx._submodules if isinstance(m, LiteSATAScrambler))
        self.rx.fsm.act("COPY",
            If(prim("WTRM"),
                descrambler.sink.valid.eq(1),
                descrambler.sink.last.eq(1),
                descrambler.sink.error.eq(1),
                NextState("WTRM")
            )
        )
        self.sink, self.source = self.tx_pipeline.sink, self.rx_pipeline.source
