# SPDX-License-Identifier: BSD-2-Clause
"""Registered user port: a crossbar port with flip-flops on valid, data and ready.

The LiteSATA layers pass ``ready`` through combinationally from the PHY up to the user port; a
frontend with deep logic of its own (the benchmark engine) on top makes the longest path in sys.
Placing this between them cuts it, for one or two cycles of latency in each direction.

    port = BufferedUserPort(crossbar.get_port())
    engine = ECPSATABenchEngine(port, sys_clk_freq)
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from ecpsata.pipe import ReadyPipe


class _Buffer(LiteXModule):
    """stream.Buffer(pipe_valid=True, pipe_ready=True) with our ready register."""
    def __init__(self, layout):
        self.sink   = stream.Endpoint(layout)
        self.source = stream.Endpoint(layout)
        self.pipe_valid = stream.PipeValid(layout)
        self.pipe_ready = ReadyPipe(layout)
        self.pipeline = stream.Pipeline(self.sink, self.pipe_valid, self.pipe_ready, self.source)


class BufferedUserPort(LiteXModule):
    """``write_beat`` pulses, one cycle late (registered: the crossbar's paths end here), when the
    core takes a write data dword from the port (behind the buffer, where the data leaves for the
    drive), not when the buffer takes it from the user: a user measuring write timing (the
    benchmark engine) uses this, as the buffer takes the first beats of a packet at once whatever
    the drive does. Beats the command layer drains after a failed write's status are not data and
    do not pulse."""
    def __init__(self, port):
        self.dw     = port.dw
        self.sink   = stream.Endpoint(port.sink.description)    # commands / write data to the core
        self.source = stream.Endpoint(port.source.description)  # responses / read data
        self.write_beat = Signal()

        # # #

        # A valid register, then a ready register; the ready register is ours (ecpsata/pipe.py),
        # LiteX's PipeReady cycle for cycle, whose holding register loads from a flip-flop's
        # enable: with PipeReady the core's `ready` (through the link, the command layer and the
        # crossbar, where the other ports' requests join it) ended at the enables of all of the
        # command's bits.
        self.tx = tx = _Buffer(port.sink.description)
        self.rx = rx = _Buffer(port.source.description)
        self.comb += [
            self.sink.connect(tx.sink),
            tx.source.connect(port.sink),
            port.source.connect(rx.sink),
            rx.source.connect(self.source),
        ]

        # Core side: a write packet is in progress from its first beat taken to its last; the
        # status (end) coming back inside it means the command failed and the rest is drained.
        taken     = Signal()
        in_packet = Signal()
        drained   = Signal()
        status    = Signal()
        self.comb += [
            taken.eq(port.sink.valid & port.sink.ready & port.sink.write),
            status.eq(port.source.valid & port.source.ready & port.source.end),
        ]
        self.sync += [
            self.write_beat.eq(taken & ~drained & ~status),
            If(taken,
                in_packet.eq(~port.sink.last),
            ),
            If(taken & port.sink.last,
                drained.eq(0),
            ).Elif(status & (in_packet | (port.sink.valid & port.sink.write)),
                drained.eq(1),
            ),
        ]



class SectorLastPort(LiteXModule):
    """A crossbar port as LiteSATA's DMA frontends (``LiteSATASector2MemDMA``) read it: the last
    dword of each sector of read data marked ``last``. LiteSATA's command layer ends each Data FIS
    with ``last``; ours marks only the response that ends the command (``end``), after the data,
    and a DMA frontend that counts a sector to its ``last`` would take that response as a 129th
    dword. Commands and write data pass unchanged (``sink`` is the port's)."""
    def __init__(self, port, sector_dwords=128):
        self.dw     = port.dw
        self.sink   = port.sink
        self.source = stream.Endpoint(port.source.description)

        # # #

        count = Signal(max=sector_dwords)
        data = Signal()
        self.comb += [
            port.source.connect(self.source),
            data.eq(port.source.valid & (port.source.read | port.source.identify) &
                    ~port.source.end),
            If(data, self.source.last.eq(count == sector_dwords - 1)),
        ]
        self.sync += If(port.source.valid & port.source.ready,
            If(data,
                count.eq(Mux(count == sector_dwords - 1, 0, count + 1))
            ).Else(
                count.eq(0)
            )
        )
