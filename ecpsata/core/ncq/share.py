# SPDX-License-Identifier: BSD-2-Clause
"""`ECPSATAQueueShare`: the queued command layer (`ECPSATANCQ`, ecpsata/core/ncq/layer.py) beside
the non-queued command layer (ecpsata/core/command.py) of an `ECPSATACore(ncq=True)`, on one
transport layer.

The queue owns the transport while it has anything in hand, and a non-queued command presented
then is refused (answered as failed, never sent: the drive would abort the whole queue).
Ref: SATA 3.x §13.6 (Native Command Queuing).
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import transport_tx_description, command_rx_description
from ecpsata.core.transport import FISView
from ecpsata.core.command import REPEAT_TIME
from ecpsata.core.ncq.layer import ECPSATANCQ


class ECPSATAQueueShare(LiteXModule):
    """Puts `ECPSATANCQ` beside the non-queued command layer of an ECPSATACore.

    The queued layer owns the transport (its TX when it is sending, the received FISes while it
    is busy, from the cycle after it became busy to the cycle after it ceased to be). A
    non-queued command presented on the user port while the queue is busy is refused: its beats
    are taken and one end beat with ``failed`` answers it (``refused`` pulses); it never reaches
    the drive, which would abort every queued command for it. While a non-queued command is in
    flight the queue holds its next command.

    ``cmd_tx`` and ``cmd_fis`` are what the non-queued command layer sees in place of the
    transport's TX sink and RX; `attach` wires that layer and returns the user port.
    """
    def __init__(self, transport, command_tx_description, sys_clk_freq=75e6):
        self.ncq = ECPSATANCQ(repeat_cycles=max(1, int(REPEAT_TIME*sys_clk_freq)),
                              early_setup=hasattr(transport.rx, "setup_mask"))
        self.cmd_tx  = stream.Endpoint(transport_tx_description(32))
        self.cmd_fis = FISView()
        self.refused = Signal()
        self.transport = transport
        self.command_tx_description = command_tx_description

    def attach(self, command):
        """Wires the non-queued command layer; returns the user port (sink, source)."""
        ncq, transport, fis = self.ncq, self.transport, self.cmd_fis
        trx = transport.rx
        self.sink   = sink   = stream.Endpoint(self.command_tx_description)
        self.source = source = stream.Endpoint(command_rx_description(32))

        # # #

        # The received FISes go where the queue's `busy` of the cycle before says: `busy` is a
        # wide OR (the outstanding tags, both state machines, the open data phases) and the
        # receive path behind the switch runs through the command layer's receive side into the
        # caller's registers. The cycle's lag is never seen: the drive's first FIS for a queue
        # that has just started its command FIS comes many cycles later, and the next FIS for
        # the command layer once the queue is done answers a command that the gate lets through
        # only after the queue was seen idle.
        rx_queued = Signal()
        self.sync += rx_queued.eq(ncq.busy)
        self.comb += [
            If(ncq.tx_active,
                ncq.tx.connect(transport.sink)
            ).Else(
                self.cmd_tx.connect(transport.sink)
            ),
            If(rx_queued,
                trx.source.connect(ncq.rx),
                trx.refuse.eq(ncq.rx_refuse),
                trx.accept_data.eq(ncq.rx_accept_data),
                trx.accept_activate.eq(ncq.rx_accept_activate),
            ).Else(
                trx.source.connect(fis.source),
                trx.refuse.eq(fis.refuse),
                trx.accept_data.eq(fis.accept_data),
                trx.accept_activate.eq(fis.accept_activate),
            ),
            ncq.rx_ev_refused.eq(trx.ev_refused),
            fis.ev_refused.eq(trx.ev_refused),
        ]
        # The tags a DMA Setup is taken for and those a Set Device Bits may complete (a PHY with
        # its frame check): the queue's alone, the non-queued command layer takes neither.
        if hasattr(trx, "setup_mask"):
            self.comb += [
                trx.setup_mask.eq(ncq.rx_setup_mask),
                trx.sdb_mask.eq(ncq.rx_sdb_mask),
                trx.queued.eq(rx_queued),
            ]
        # A non-queued command is in flight from its command FIS to its end beat.
        nq_busy = Signal()
        nq_end = command.source.valid & command.source.ready & command.source.end
        self.sync += [
            If(command.tx.start,
                nq_busy.eq(1)
            ).Elif(nq_end,
                nq_busy.eq(0)
            )
        ]
        # The gate takes a presented command in IDLE, decides on it one cycle later (WAIT) and
        # connects the port only from the cycle after (PASS): the queue's busy then reaches the
        # gate's state register and nothing beyond, and the port's path into the command layer
        # starts at that register. The queue is held from WAIT on, by a state register, so that
        # no path runs from the user port into the queued layer's start: a queued command
        # started in the cycle the port was first presented shows as `busy` in WAIT, and the
        # port's command is refused. From the command FIS on, `nq_busy` holds the queue.
        is_write, is_read, is_identify = Signal(), Signal(), Signal()
        self.gate = gate = FSM(reset_state="IDLE")
        gate.act("IDLE",
            command.source.connect(source),
            If(sink.valid,
                NextState("WAIT")
            )
        )
        gate.act("WAIT",
            command.source.connect(source),
            If(~nq_busy & ncq.busy,
                NextValue(is_write, sink.write),
                NextValue(is_read, sink.read),
                NextValue(is_identify, sink.identify),
                NextState("DRAIN")
            ).Else(
                NextState("PASS")
            )
        )
        gate.act("PASS",
            sink.connect(command.sink),
            command.source.connect(source),
            If(sink.valid & sink.ready & sink.last,
                NextState("IDLE")
            )
        )
        gate.act("DRAIN",
            sink.ready.eq(1),
            If(sink.valid & sink.last,
                NextState("ANSWER")
            )
        )
        gate.act("ANSWER",
            source.valid.eq(1),
            source.last.eq(1),
            source.end.eq(1),
            source.failed.eq(1),
            source.write.eq(is_write),
            source.read.eq(is_read),
            source.identify.eq(is_identify),
            If(source.ready,
                self.refused.eq(1),
                NextState("IDLE")
            )
        )
        self.comb += ncq.hold.eq(nq_busy | gate.ongoing("WAIT") | gate.ongoing("PASS"))
        return sink, source
