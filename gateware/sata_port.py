"""Registered user port: a crossbar port with flip-flops on valid, data and ready.

The LiteSATA layers pass ``ready`` through combinationally from the PHY up to the user port; a
frontend with deep logic of its own (the benchmark engine) on top makes the longest path in sys.
Placing this between them cuts it, for one or two cycles of latency in each direction.

    port = BufferedUserPort(crossbar.get_port())
    engine = BenchEngine(port, sys_clk_freq)
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream


class BufferedUserPort(LiteXModule):
    def __init__(self, port):
        self.dw     = port.dw
        self.sink   = stream.Endpoint(port.sink.description)    # commands / write data to the core
        self.source = stream.Endpoint(port.source.description)  # responses / read data

        # # #

        self.tx = tx = stream.Buffer(port.sink.description, pipe_valid=True, pipe_ready=True)
        self.rx = rx = stream.Buffer(port.source.description, pipe_valid=True, pipe_ready=True)
        self.comb += [
            self.sink.connect(tx.sink),
            tx.source.connect(port.sink),
            port.source.connect(rx.sink),
            rx.source.connect(self.source),
        ]
