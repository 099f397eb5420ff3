# SPDX-License-Identifier: BSD-2-Clause
"""A ready register for a stream: the sink's `ready` does not depend on the source's.

Behaves as LiteX's `stream.PipeReady` (zero added latency while the source is ready, one beat
held while it is not), with one difference for timing: the holding register loads whenever it is
empty, whatever the source's `ready` says. Its clock enable is then a register's output, not the
end of the long path that decides `ready` downstream (on ECP5 that path ran from the PHY's
receive FIFO through the link, the transport and the command layers into the 32 enables of the
holding register). The copy made while the source is ready is never used: the beat went through
in that cycle and the register stays empty.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream


class ReadyPipe(LiteXModule):
    def __init__(self, layout):
        self.sink   = sink   = stream.Endpoint(layout)
        self.source = source = stream.Endpoint(layout)

        # # #

        full   = Signal()
        held   = stream.Endpoint(layout)
        self.sync += [
            If(sink.valid & ~source.ready,
                full.eq(1)
            ).Elif(source.ready,
                full.eq(0)
            ),
            If(~full, held.eq(sink)),
        ]
        self.comb += [
            sink.ready.eq(~full),
            If(full,
                held.connect(source, omit={"ready"})
            ).Else(
                sink.connect(source, omit={"ready"})
            )
        ]

